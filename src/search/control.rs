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
