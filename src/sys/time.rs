//! The monotonic clock the engine reads (search deadlines, `go mate` time limits, bench and perft
//! timings): std's `Instant` where std has a clock, and on a bare WebAssembly host
//! (`wasm32-unknown-unknown`, which has none: std's `Instant::now` panics there) the host's
//! `performance.now()`, imported as `env.hayate_now_ms` (milliseconds as an `f64`, monotonic, as
//! the browser and Node.js give it).
//!
//! Only the operations the engine uses are offered, with std's meanings: `now`, `elapsed`,
//! `checked_add`, `+ Duration` and comparisons.

#[cfg(not(all(target_arch = "wasm32", target_os = "unknown")))]
pub use std::time::Instant;

#[cfg(all(target_arch = "wasm32", target_os = "unknown"))]
pub use host::Instant;

#[cfg(all(target_arch = "wasm32", target_os = "unknown"))]
mod host {
    use std::time::Duration;

    #[link(wasm_import_module = "env")]
    extern "C" {
        /// Milliseconds since an arbitrary origin, never decreasing (`performance.now()`).
        fn hayate_now_ms() -> f64;
    }

    /// A point in time, in milliseconds of the host's clock.
    #[derive(Clone, Copy, Debug, PartialEq, PartialOrd)]
    pub struct Instant(f64);

    impl Instant {
        pub fn now() -> Instant {
            // SAFETY: the import takes no arguments and returns a number; the glue module
            // (wasm/js/hayate.js) always provides it.
            Instant(unsafe { hayate_now_ms() })
        }

        /// The time since this instant (zero if the host's clock went back).
        pub fn elapsed(&self) -> Duration {
            Instant::now().duration_since(*self)
        }

        /// The time from `earlier` to this instant (zero if `earlier` is later).
        pub fn duration_since(&self, earlier: Instant) -> Duration {
            Duration::from_secs_f64(((self.0 - earlier.0) / 1000.0).max(0.0))
        }

        /// This instant plus `d`, or `None` past what an `f64` of milliseconds can hold.
        pub fn checked_add(&self, d: Duration) -> Option<Instant> {
            let t = self.0 + d.as_secs_f64() * 1000.0;
            t.is_finite().then_some(Instant(t))
        }
    }

    impl std::ops::Add<Duration> for Instant {
        type Output = Instant;

        fn add(self, d: Duration) -> Instant {
            self.checked_add(d).expect("an instant within the range of the host's clock")
        }
    }
}
