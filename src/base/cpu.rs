//! The instruction-set extensions this build of retrodb was compiled to use, checked against
//! the CPU it runs on.
//!
//! A build for a newer x86-64 level (the repository's default sets `x86-64-v3`: AVX2, BMI2,
//! LZCNT, ...) dies with "Illegal instruction" on an older CPU, or in a virtual machine that
//! hides AVX2, at the first such instruction. The command line and the Python module check
//! first and say what is missing instead. The check runs before anything else, and is plain code
//! (CPUID, bit tests, then the standard library's formatting, which is compiled for the
//! baseline whatever the build's level): nothing in it gives the compiler a loop to vectorise.
//!
//! `RETRODB_PRETEND_CPU_LACKS=avx2,bmi2` makes the check treat those extensions as missing,
//! so that the refusal can be tested on a machine that has them.

/// The extensions this build uses that the CPU does not have (empty where all are there, and
/// on other architectures).
pub fn missing_features() -> Vec<&'static str> {
    #[cfg(target_arch = "x86_64")]
    {
        let pretend = std::env::var("RETRODB_PRETEND_CPU_LACKS").unwrap_or_default();
        let lacks =
            |name: &str, detected: bool| !detected || pretend.split(',').any(|w| w.trim() == name);
        let mut missing = Vec::new();
        macro_rules! need {
            ($($f:tt),*) => {$(
                if cfg!(target_feature = $f) && lacks($f, std::is_x86_feature_detected!($f)) {
                    missing.push($f);
                }
            )*};
        }
        need!(
            "sse3", "ssse3", "sse4.1", "sse4.2", "popcnt", "avx", "avx2", "bmi1", "bmi2", "fma",
            "lzcnt", "movbe", "f16c", "xsave"
        );
        missing
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        Vec::new()
    }
}

/// The message for a CPU without `missing`, or `None` when nothing is missing.
pub fn unsupported_message() -> Option<String> {
    let missing = missing_features();
    if missing.is_empty() {
        return None;
    }
    Some(format!(
        "this build of retrodb uses instructions this CPU does not have ({}); build it for this \
         machine with RUSTFLAGS='-C target-cpu=native' (or '-C target-cpu=x86-64' for any \
         x86-64 CPU), e.g. RUSTFLAGS='-C target-cpu=native' cargo install --locked --path .",
        missing.join(", ")
    ))
}
