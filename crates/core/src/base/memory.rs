//! How much memory a build may use, and how much it did use.
//!
//! Every build estimates its peak before allocating and refuses with the estimate and the limit
//! when it would not fit; the default limit is a safe fraction of this machine's memory.

use crate::base::error::{Error, Result};

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

/// Bytes free for this user on the file system holding `dir`, where the system says.
pub fn disk_free(dir: &std::path::Path) -> Option<u64> {
    use std::os::unix::ffi::OsStrExt;
    let c = std::ffi::CString::new(dir.as_os_str().as_bytes()).ok()?;
    let mut st = std::mem::MaybeUninit::<libc::statvfs>::zeroed();
    // SAFETY: `c` is a NUL-terminated path and `st` points to a statvfs the call fills in.
    let rc = unsafe { libc::statvfs(c.as_ptr(), st.as_mut_ptr()) };
    if rc != 0 {
        return None;
    }
    // SAFETY: statvfs returned 0, so it filled the structure.
    let st = unsafe { st.assume_init() };
    // The field types differ between platforms (u64 here, u32 on some 32-bit ones).
    #[allow(clippy::unnecessary_cast)]
    Some((st.f_bavail as u64).saturating_mul(st.f_frsize as u64))
}

/// The directory holding `out` (`.` for a bare file name).
pub fn dir_of(out: &std::path::Path) -> &std::path::Path {
    match out.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => std::path::Path::new("."),
    }
}

/// Refuses to write `need` bytes for `what` into the directory of `out` when its file system
/// has less free space (unknown free space is not refused).
pub fn check_disk(what: impl Into<String>, out: &std::path::Path, need: u64) -> Result<()> {
    let dir = dir_of(out);
    match disk_free(dir) {
        Some(free) if need > free => Err(Error::Disk {
            what: what.into(),
            path: dir.display().to_string(),
            need,
            free,
        }),
        _ => Ok(()),
    }
}

/// A size that [`parse_size`] cannot read; the text is as given.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SizeError {
    #[error("'{0}' is not a size (examples: 512M, 4G, 1000000)")]
    NotASize(String),
    #[error("'{text}': unknown size unit '{unit}' (use K, M, G or T)")]
    Unit { text: String, unit: String },
    #[error("'{0}' is larger than any machine's memory")]
    TooLarge(String),
}

/// Reads a size such as `512M`, `4G`, `1.5GiB` or a plain number of bytes.
pub fn parse_size(text: &str) -> std::result::Result<u64, SizeError> {
    let t = text.trim();
    let split = t
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(t.len());
    let (num, unit) = t.split_at(split);
    let num: f64 = num.parse().map_err(|_| SizeError::NotASize(text.into()))?;
    let mult: u64 = match unit.trim().to_ascii_lowercase().as_str() {
        "" | "b" => 1,
        "k" | "kb" | "kib" => 1 << 10,
        "m" | "mb" | "mib" => 1 << 20,
        "g" | "gb" | "gib" => 1 << 30,
        "t" | "tb" | "tib" => 1 << 40,
        _ => {
            return Err(SizeError::Unit {
                text: text.into(),
                unit: unit.into(),
            });
        }
    };
    let bytes = num * mult as f64;
    // `as u64` saturates: a size past 2^64 would silently become 16 EiB.
    if !bytes.is_finite() || bytes >= u64::MAX as f64 {
        return Err(SizeError::TooLarge(text.into()));
    }
    Ok(bytes as u64)
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
        assert_eq!(parse_size("lots"), Err(SizeError::NotASize("lots".into())));
        assert!(
            matches!(parse_size("3 parsecs"), Err(SizeError::Unit { unit, .. }) if unit == " parsecs")
        );
        assert!(matches!(
            parse_size("99999999999T"),
            Err(SizeError::TooLarge(_))
        ));
        let e = parse_size("99999999999999999999T").unwrap_err();
        assert!(e.to_string().contains("larger than"), "{e}");
        assert!(parse_size("20000000T").is_err());
    }

    #[test]
    fn disk_check_refuses_more_than_the_free_space() {
        let free = disk_free(std::path::Path::new(".")).expect("statvfs works here");
        assert!(check_disk("x", std::path::Path::new("t.rdb"), 1).is_ok());
        let e = check_disk(
            "the table",
            std::path::Path::new("t.rdb"),
            free.saturating_mul(2) + (1 << 40),
        )
        .unwrap_err()
        .to_string();
        assert!(e.contains("the table") && e.contains("free"), "{e}");
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
