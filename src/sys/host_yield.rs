//! Where a search or a `go mate` solve on a bare WebAssembly host (`wasm32-unknown-unknown`: a
//! web page, ShogiHome's web app) hands control back to the host, which has no threads: once it
//! has run for [`SLICE_MS`], the import `env.hayate_pause` unwinds the module's stack to the
//! host (binaryen's asyncify, applied when the module is built), which lets its event loop run
//! and later rewinds the stack, so that the call returns with everything as it was. Back from
//! a pause, the caller gives its front end the chance to read the commands that came meanwhile
//! (`crate::search::Reporter::checkpoint`).
//!
//! Every call on the way from the module's entry to the import is a direct call: the module is
//! built with asyncify told to ignore indirect calls (see `scripts/wasm-build.sh`), so that only
//! the functions on that way are instrumented, which costs less speed. On every other target
//! nothing pauses.

/// How long a search runs before it hands control back to the host, in milliseconds: short
/// enough for `stop` to be answered at once, long enough for the pauses to cost little.
pub const SLICE_MS: f64 = 10.0;

/// How long a search that has ended waits before it looks again for `stop` or `ponderhit`
/// (`go ponder`, `go infinite`), in milliseconds: the host's event loop is idle meanwhile.
pub const WAIT_MS: u32 = 5;

#[cfg(all(target_arch = "wasm32", target_os = "unknown"))]
mod host {
    use crate::sys::time::Instant;
    use std::cell::Cell;

    #[link(wasm_import_module = "env")]
    extern "C" {
        /// Hands control to the host until it resumes the module, after at least `delay_ms`.
        fn hayate_pause(delay_ms: u32);
    }

    thread_local! {
        /// When this slice began: the host's call into the module, or the last resumption.
        static SLICE_START: Cell<Option<Instant>> = const { Cell::new(None) };
    }

    pub fn slice_starts() {
        SLICE_START.set(Some(Instant::now()));
    }

    pub fn pause_if_due() -> bool {
        let now = Instant::now();
        let start = SLICE_START.get().unwrap_or(now);
        if now.duration_since(start).as_secs_f64() * 1000.0 < super::SLICE_MS {
            return false;
        }
        pause(0)
    }

    pub fn pause(delay_ms: u32) -> bool {
        // SAFETY: an import with a plain number; the host unwinds and later rewinds the stack,
        // so the call returns here with everything as it was.
        unsafe { hayate_pause(delay_ms) };
        slice_starts();
        true
    }
}

/// A new slice begins: the host has called into the module.
pub fn slice_starts() {
    #[cfg(all(target_arch = "wasm32", target_os = "unknown"))]
    host::slice_starts();
}

/// Hands control to the host when this slice is used up. Returns whether it did (then the
/// caller reads what came meanwhile); always false where there is no such host.
#[inline]
pub fn pause_if_due() -> bool {
    #[cfg(all(target_arch = "wasm32", target_os = "unknown"))]
    return host::pause_if_due();
    #[cfg(not(all(target_arch = "wasm32", target_os = "unknown")))]
    false
}

/// Hands control to the host for at least `delay_ms` (a search waiting for `stop`). Returns
/// whether it did; false where there is no such host (the caller sleeps instead).
pub fn pause_for(delay_ms: u32) -> bool {
    #[cfg(all(target_arch = "wasm32", target_os = "unknown"))]
    return host::pause(delay_ms);
    #[cfg(not(all(target_arch = "wasm32", target_os = "unknown")))]
    {
        let _ = delay_ms;
        false
    }
}
