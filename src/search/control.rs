//! The flags a front end flips (through the engine session) while a search runs: `stop`,
//! pondering and `ponderhit`, the `MultiPV` of an analysis, and the mark that the best move has
//! gone out. Part of the state the threads share ([`super::shared::SharedState`]).

use super::limits::Limits;
use crate::sys::time::Instant;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Mutex;

/// What `ponderhit` brings: when it arrived and, for Early Ponder, the clock it carries.
#[derive(Clone, Debug)]
pub struct PonderHit {
    pub at: Instant,
    pub limits: Option<Limits>,
}

/// The flags the front end flips (through the engine session) while a search runs.
#[derive(Default)]
pub struct SearchControl {
    pub stop: AtomicBool,
    /// True while the search runs in ponder mode (until `ponderhit` or `stop`).
    pub pondering: AtomicBool,
    pub ponderhit: Mutex<Option<PonderHit>>,
    /// Set just before `bestmove` goes out: from then on the search is over for the protocol, and
    /// `isready` waits for the threads to end (a moment) instead of answering at once as it does
    /// during a search. Set before, not after, so that a GUI's `isready` sent on seeing the
    /// `bestmove` can never find it unset.
    pub answered: AtomicBool,
    /// A `MultiPV` set while the search runs (analysis in a GUI): the main worker abandons its
    /// iteration and deepens again from depth 1 with this number of lines. 0: the one the
    /// search started with.
    pub multi_pv: AtomicUsize,
}

impl SearchControl {
    pub fn stop(&self) {
        self.stop.store(true, Ordering::SeqCst);
    }

    /// Switches a pondering search to normal thinking.
    pub fn ponderhit(&self, limits: Option<Limits>) {
        *self.ponderhit.lock().unwrap_or_else(|e| e.into_inner()) =
            Some(PonderHit { at: Instant::now(), limits });
        self.pondering.store(false, Ordering::SeqCst);
    }
}

/// How many nodes pass between the main thread's time checks. On WebAssembly the check is also
/// where the search hands control to its host (`crate::sys::host_yield`), and code the browser has
/// only just compiled runs a few thousand nodes a second: checks every 2048 nodes would keep a
/// page from answering `stop` for most of a second.
const CHECK_INTERVAL: u64 = if cfg!(target_family = "wasm") { 128 } else { 2048 };

/// How many nodes pass between checks of the limits: [`CHECK_INTERVAL`], or under a node limit
/// the largest power of two at most a 1024th of it, so that `go nodes N` stops within about a
/// thousandth of N (at a check every 2048 nodes, `go nodes 1000` searched 2048 and `gensfen
/// --nodes 5000` 6144). A power of two, so that the check is a mask.
pub(super) fn check_interval(node_limit: Option<u64>) -> u64 {
    match node_limit {
        Some(n) => {
            let fine = (n / 1024).clamp(1, CHECK_INTERVAL);
            1 << (63 - fine.leading_zeros())
        }
        None => CHECK_INTERVAL,
    }
}

#[cfg(test)]
mod tests {
    use super::{check_interval, CHECK_INTERVAL};

    #[test]
    fn a_node_limit_is_checked_within_a_thousandth_of_it() {
        assert_eq!(check_interval(None), CHECK_INTERVAL);
        for (limit, interval) in
            [(1, 1), (1000, 1), (2047, 1), (2048, 2), (5000, 4), (10_000, 8), (1 << 30, CHECK_INTERVAL)]
        {
            let got = check_interval(Some(limit));
            assert_eq!(got, interval.min(CHECK_INTERVAL), "limit {limit}");
            assert!(got.is_power_of_two());
        }
    }
}
