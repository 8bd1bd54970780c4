//! How much memory a build may use, and how much it did use.
//!
//! Every build estimates its peak before allocating and refuses with the estimate and the limit
//! when it would not fit; the default limit is a safe fraction of this machine's memory.

use crate::error::{Error, Result};

fn meminfo(key: &str) -> Option<u64> {
    let text = std::fs::read_to_string("/proc/meminfo").ok()?;
    text.lines().find_map(|l| {
        let rest = l.strip_prefix(key)?.strip_prefix(':')?;
        let kib: u64 = rest.trim().trim_end_matches("kB").trim().parse().ok()?;
        Some(kib * 1024)
    })
}

/// The default memory limit: 80% of the memory available now (or of the total), or 4 GiB
/// where the system does not say.
pub fn default_limit() -> u64 {
    let avail = meminfo("MemAvailable").or_else(|| meminfo("MemTotal"));
    avail.map_or(4 << 30, |a| a / 10 * 8)
}

/// The peak resident memory of this process so far, where the system reports it.
pub fn peak_rss() -> Option<u64> {
    let text = std::fs::read_to_string("/proc/self/status").ok()?;
    text.lines().find_map(|l| {
        let rest = l.strip_prefix("VmHWM:")?;
        let kib: u64 = rest.trim().trim_end_matches("kB").trim().parse().ok()?;
        Some(kib * 1024)
    })
}

/// Refuses `need` bytes for `what` when they exceed `limit`.
pub fn check(what: impl Into<String>, need: u64, limit: u64) -> Result<()> {
    if need > limit {
        return Err(Error::Memory {
            what: what.into(),
            need,
            limit,
        });
    }
    Ok(())
}

/// Reads a size such as `512M`, `4G`, `1.5GiB` or a plain number of bytes.
pub fn parse_size(text: &str) -> std::result::Result<u64, String> {
    let t = text.trim();
    let split = t
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(t.len());
    let (num, unit) = t.split_at(split);
    let num: f64 = num
        .parse()
        .map_err(|_| format!("'{text}' is not a size (examples: 512M, 4G, 1000000)"))?;
    let mult: u64 = match unit.trim().to_ascii_lowercase().as_str() {
        "" | "b" => 1,
        "k" | "kb" | "kib" => 1 << 10,
        "m" | "mb" | "mib" => 1 << 20,
        "g" | "gb" | "gib" => 1 << 30,
        "t" | "tb" | "tib" => 1 << 40,
        _ => {
            return Err(format!(
                "'{text}': unknown size unit '{unit}' (use K, M, G or T)"
            ));
        }
    };
    Ok((num * mult as f64) as u64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_parse() {
        assert_eq!(parse_size("512M"), Ok(512 << 20));
        assert_eq!(parse_size("4G"), Ok(4 << 30));
        assert_eq!(parse_size("1.5GiB"), Ok(3 << 29));
        assert_eq!(parse_size("1000"), Ok(1000));
        assert!(parse_size("lots").is_err());
        assert!(parse_size("3 parsecs").is_err());
    }

    #[test]
    fn check_refuses_over_limit() {
        assert!(check("x", 10, 20).is_ok());
        let e = check("the table", 3 << 30, 1 << 30)
            .unwrap_err()
            .to_string();
        assert!(e.contains("3.00 GiB") && e.contains("1.00 GiB"), "{e}");
    }
}
