//! Work split over helper threads for the big one-off jobs outside the search: zeroing a new
//! table (`super::large_pages`), clearing the transposition table and the histories between
//! games.

use std::sync::Mutex;

/// Calls `work` on every item, on up to `threads` threads (this one included), each taking the
/// next item until none is left; threads that cannot start leave their items to the others.
pub(crate) fn for_each_on<I: Send>(items: Vec<I>, threads: usize, work: impl Fn(I) + Sync) {
    let helpers = threads.max(1).min(items.len()).saturating_sub(1);
    let queue = Mutex::new(items);
    let run = || {
        while let Some(item) = queue.lock().unwrap_or_else(|e| e.into_inner()).pop() {
            work(item);
        }
    };
    std::thread::scope(|s| {
        for _ in 0..helpers {
            let _ = std::thread::Builder::new().spawn_scoped(s, run);
        }
        run();
    });
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicUsize, Ordering};

    #[test]
    fn every_item_is_worked_on_once() {
        for (items, threads) in [(0, 3), (1, 3), (10, 1), (10, 4), (5, 64)] {
            let seen: Vec<AtomicUsize> = (0..items).map(|_| AtomicUsize::new(0)).collect();
            for_each_on((0..items).collect(), threads, |i: usize| {
                seen[i].fetch_add(1, Ordering::Relaxed);
            });
            assert!(seen.iter().all(|n| n.load(Ordering::Relaxed) == 1), "{items} items, {threads} threads");
        }
    }
}
