//! Which instructions retrodb uses: the x86-64-v3 level chosen at run time for the hot kernels,
//! and the check of the extensions a build was compiled for against the CPU it runs on.
//!
//! The repository builds for the baseline x86-64, so a binary or wheel runs on any x86-64 CPU.
//! The solvers' inner loops (counting bits, finding the lowest set bit, spreading bits, ORing
//! rows of words) are compiled a second time for x86-64-v3 (POPCNT, BMI1/2, LZCNT, AVX2, FMA)
//! and that copy is chosen once a solve where the CPU has them ([`v3`]). A front end may force
//! the baseline copy ([`choose`]; the command line and the Python module map
//! `RETRODB_CPU=baseline` onto it): the tables are the same either way.
//!
//! A build for a newer level (`RUSTFLAGS='-C target-cpu=native'`) dies with "Illegal
//! instruction" on an older CPU, or in a virtual machine that hides AVX2, at the first such
//! instruction. The command line and the Python module check first and say what is missing
//! instead. The check runs before anything else, and is plain code
//! (CPUID, bit tests, then the standard library's formatting, which is compiled for the
//! baseline whatever the build's level): nothing in it gives the compiler a loop to vectorise.
//!
//! [`Choice::pretend_lacking`] (the front ends' `RETRODB_PRETEND_CPU_LACKS=avx2,bmi2`) makes the
//! check treat those extensions as missing, so that the refusal can be tested on a machine that
//! has them; the run-time choice then takes the baseline copy. The core reads no environment
//! variable: what the front ends read they hand over here.

use std::sync::OnceLock;

/// The extensions of x86-64-v3 that the dispatched kernels are compiled for (the
/// `#[target_feature(enable = ...)]` of each kernel's v3 copy names the same).
pub const V3_FEATURES: &str = "avx2,bmi1,bmi2,popcnt,lzcnt,fma";

/// What a front end asks of the instruction level, once a process ([`choose`]).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Choice {
    /// Run the kernels' baseline copies whatever the CPU has.
    pub baseline: bool,
    /// Extensions to treat as missing (`avx2`, `bmi2`, ...), for tests of the refusal.
    pub pretend_lacking: Vec<String>,
}

impl Choice {
    /// The choice the front ends' variables say, read by `var` (the front end's: the core reads
    /// no environment): `RETRODB_CPU=baseline` forces the baseline, `RETRODB_PRETEND_CPU_LACKS`
    /// lists extensions to treat as missing, separated by commas.
    pub fn from_variables(var: impl Fn(&str) -> Option<String>) -> Choice {
        let lacking = var("RETRODB_PRETEND_CPU_LACKS").unwrap_or_default();
        Choice {
            baseline: var("RETRODB_CPU").is_some_and(|v| v.trim() == "baseline"),
            pretend_lacking: lacking
                .split(',')
                .map(|w| w.trim().to_string())
                .filter(|w| !w.is_empty())
                .collect(),
        }
    }
}

static CHOICE: OnceLock<Choice> = OnceLock::new();

/// Sets the process's [`Choice`] before the first kernel or check reads it; `false` (nothing
/// changed) when it was set, or read, already.
pub fn choose(choice: Choice) -> bool {
    CHOICE.set(choice).is_ok()
}

/// The process's choice: the one [`choose`] set, else the default (the CPU decides).
fn choice() -> &'static Choice {
    CHOICE.get_or_init(Choice::default)
}

/// Whether `name` is pretended missing.
fn pretended(name: &str) -> bool {
    choice().pretend_lacking.iter().any(|w| w == name)
}

/// Whether the kernels' x86-64-v3 copies run: the CPU has every extension of
/// [`V3_FEATURES`], none is pretended missing and the baseline is not forced ([`Choice`]).
/// Decided once a process; false on other architectures.
pub fn v3() -> bool {
    static V3: OnceLock<bool> = OnceLock::new();
    *V3.get_or_init(|| {
        if choice().baseline {
            return false;
        }
        #[cfg(target_arch = "x86_64")]
        {
            macro_rules! all {
                ($($f:tt),*) => {
                    true $(&& std::is_x86_feature_detected!($f) && !pretended($f))*
                };
            }
            all!("avx2", "bmi1", "bmi2", "popcnt", "lzcnt", "fma")
        }
        #[cfg(not(target_arch = "x86_64"))]
        {
            false
        }
    })
}

/// The level the kernels run at: `"x86-64-v3"` or `"baseline"`.
pub fn level() -> &'static str {
    if v3() { "x86-64-v3" } else { "baseline" }
}

/// The extensions this build uses that the CPU does not have (empty where all are there, and
/// on other architectures).
pub fn missing_features() -> Vec<&'static str> {
    #[cfg(target_arch = "x86_64")]
    {
        let lacks = |name: &str, detected: bool| !detected || pretended(name);
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
