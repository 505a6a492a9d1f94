//! `go perft` and `bench` run on a thread of their own, so that the command loop goes on
//! reading: `isready` is answered meanwhile, and `stop`, `quit` or a new `go` ends them. On
//! WebAssembly, which has no threads, they run to their end at once (perft and bench are tools
//! for native builds; the web front end answers them all the same).

use crate::sys::thread::{self, Handle};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

/// A running (or finished) background job.
pub struct Job {
    stop: Arc<AtomicBool>,
    /// The thread (on WebAssembly the job has already run).
    handle: Handle<()>,
}

impl Job {
    /// Starts `work` on a new thread; it should end soon after its stop flag is set. `Err` when
    /// no thread can be started (the job has not run).
    pub fn spawn(name: &str, work: impl FnOnce(&AtomicBool) + Send + 'static) -> std::io::Result<Job> {
        let stop = Arc::new(AtomicBool::new(false));
        let flag = Arc::clone(&stop);
        let handle = thread::spawn(name, None, move || work(&flag))?;
        Ok(Job { stop, handle })
    }

    /// Asks the job to end (it still prints what it has).
    pub fn stop(&self) {
        self.stop.store(true, Ordering::Relaxed);
    }

    /// Asks the job to end and waits until it has.
    pub fn stop_and_wait(self) {
        self.stop();
        // (Release builds abort on a panic; elsewhere the job's panic goes on here.)
        self.handle.join();
    }
}
