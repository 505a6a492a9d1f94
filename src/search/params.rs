//! Every search tunable, named, in one place.
//!
//! Without the `tune` feature each parameter is a `const fn` returning its default, so it costs
//! nothing. With `--features tune` each becomes an atomic that the engine session exposes as an
//! option of the same name (a USI spin option, for SPSA tuners such as shogiarena's).

macro_rules! params {
    ($($(#[$doc:meta])* $name:ident = $default:expr, $min:expr, $max:expr;)*) => {
        #[cfg(not(feature = "tune"))]
        mod values {
            $(
                $(#[$doc])*
                #[inline(always)]
                #[allow(non_snake_case)]
                pub const fn $name() -> i32 {
                    $default
                }
            )*
        }

        #[cfg(feature = "tune")]
        mod values {
            use std::sync::atomic::Ordering;
            /// The current values (functions and statics share a namespace, hence the module).
            pub mod cells {
                use std::sync::atomic::AtomicI32;
                $(
                    #[allow(non_upper_case_globals)]
                    pub static $name: AtomicI32 = AtomicI32::new($default);
                )*
            }
            $(
                $(#[$doc])*
                #[inline(always)]
                #[allow(non_snake_case)]
                pub fn $name() -> i32 {
                    cells::$name.load(Ordering::Relaxed)
                }
            )*
        }

        pub use values::*;

        /// One tunable: its name, default and range.
        pub struct Param {
            pub name: &'static str,
            pub default: i32,
            pub min: i32,
            pub max: i32,
        }

        /// Every tunable, for the USI options of a `tune` build and for tests.
        pub const ALL: &[Param] = &[
            $(Param { name: stringify!($name), default: $default, min: $min, max: $max },)*
        ];

        /// Sets a tunable by its exact name (`tune` builds); false if unknown or out of range.
        #[cfg(feature = "tune")]
        pub fn set(name: &str, value: i32) -> bool {
            use std::sync::atomic::Ordering;
            $(
                if name == stringify!($name) {
                    if !($min..=$max).contains(&value) {
                        return false;
                    }
                    values::cells::$name.store(value, Ordering::Relaxed);
                    return true;
                }
            )*
            false
        }
    };
}

params! {
    /// First aspiration window half-width.
    AspirationDelta = 18, 5, 60;
    /// Aspiration is used from this root depth on.
    AspirationMinDepth = 4, 1, 10;
    /// Value of a repetition where the side to move holds strictly more in hand.
    SuperiorValue = 600, 0, 3000;
    /// Maximum history score (gravity bound).
    HistoryMax = 16384, 1000, 32000;
    /// History bonus per depth squared.
    HistoryBonusScale = 32, 1, 200;
    /// Maximum history bonus per update.
    HistoryBonusMax = 1500, 100, 8000;
    /// Soft time limit: percentage of the optimum after which no new iteration starts.
    NewIterationPercent = 60, 20, 100;
    /// Late move reductions: constant part, 1/1024 plies.
    LmrBase = 800, 0, 3000;
    /// Late move reductions: scale of ln(depth) * ln(move count), 1/1024 plies.
    LmrScale = 450, 100, 1500;
    /// Extra reduction when the position is not improving, 1/1024 plies.
    LmrNotImproving = 512, 0, 2048;
    /// History score worth one ply less (or more) reduction.
    LmrHistoryDivisor = 8192, 1000, 60000;
    /// Move count pruning: quiet moves tried before the rest are skipped, plus depth^2 (halved
    /// when not improving).
    LmpBase = 3, 0, 20;
    /// History pruning: a quiet move whose history is below minus this times depth is skipped.
    HistoryPruneScale = 4000, 0, 20000;
    /// Futility pruning of quiets: margin constant.
    FutilityBase = 60, 0, 500;
    /// Futility pruning: margin per ply of (reduced) depth.
    FutilityScale = 120, 20, 500;
    /// Futility pruning of captures: margin constant (plus the captured value).
    CaptureFutilityBase = 200, 0, 1000;
    /// SEE pruning of quiets: allowed loss per (reduced depth)^2.
    SeeQuietScale = 25, 0, 200;
    /// SEE pruning of captures and checks: allowed loss per ply of depth.
    SeeCaptureScale = 90, 0, 400;
    /// Razoring: margin below alpha, constant part.
    RazorBase = 300, 0, 2000;
    /// Razoring: margin below alpha per depth squared.
    RazorDepth = 250, 0, 1000;
    /// Reverse futility pruning: below this depth.
    RfpMaxDepth = 9, 1, 20;
    /// Reverse futility pruning: margin above beta per ply of depth.
    RfpMargin = 100, 20, 400;
    /// Null move: the static evaluation must be at least beta minus this per ply of depth...
    NmpDepthMargin = 12, 0, 100;
    /// ... plus this.
    NmpBase = 100, -500, 1000;
    /// Null move: constant part of the reduction (plus depth / 3).
    NmpReduction = 4, 1, 8;
    /// Null move: each this much of eval above beta reduces one more ply (at most 6).
    NmpEvalDivisor = 80, 30, 1000;
    /// Null move: from this depth a fail-high is verified by a search without null moves.
    NmpVerifyDepth = 14, 4, 40;
    /// Internal iterative reductions: from this depth.
    IirMinDepth = 4, 2, 12;
    /// Singular extensions: from this depth.
    SingularMinDepth = 8, 3, 12;
    /// Singular extensions: the margin below the table's value, per 16 plies of depth.
    SingularMargin = 32, 4, 64;
    /// Singular extensions: a move this far below the singular beta is extended twice...
    DoubleExtensionMargin = 300, 0, 1000;
    /// ... while the path has made at most this many double extensions.
    DoubleExtensionLimit = 2, 0, 20;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_are_in_range() {
        for p in ALL {
            assert!(p.min <= p.default && p.default <= p.max, "{}", p.name);
        }
        assert_eq!(AspirationDelta(), ALL[0].default);
    }

    /// A `tune` build sets parameters by name within their ranges and refuses the rest.
    #[cfg(feature = "tune")]
    #[test]
    fn tune_build_sets_parameters() {
        let p = ALL.iter().find(|p| p.name == "LmrBase").unwrap();
        assert!(set("LmrBase", p.max));
        assert_eq!(LmrBase(), p.max);
        assert!(!set("LmrBase", p.max + 1));
        assert!(!set("NoSuchParameter", 1));
        assert!(set("LmrBase", p.default));
        assert_eq!(LmrBase(), p.default);
    }
}
