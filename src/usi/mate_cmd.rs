//! `go mate`: runs the df-pn solver (`crate::mate`) on a thread of its own and answers
//! `checkmate <moves>`, `checkmate nomate` or `checkmate timeout`.
//!
//! The solver and its table live here between calls (a table's results hold for any position, so
//! later problems reuse them); while a job runs the solver is moved into its thread and comes back
//! when the thread is joined. Exactly one `checkmate` line answers each `go mate`, also when it is
//! stopped (`stop`, a new `go`, `usinewgame`, `quit`): then it reports what it had, `timeout` if
//! nothing was proven.

use super::output::send;
use crate::mate::{MateLimits, MateResult, MateSolver};
use crate::position::Position;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// What one `go mate` asks for.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct MateRequest {
    /// Milliseconds to think (`go mate <ms>`); `None` for `infinite` or a bare `go mate`.
    pub time_ms: Option<u64>,
    /// Node limit from `go mate nodes N` or the `MateNodes` option; `None`: unlimited.
    pub nodes: Option<u64>,
}

/// The solver, idle or lent to a running job.
#[derive(Default)]
pub struct MateRunner {
    solver: Option<MateSolver>,
    /// Table size of `solver` in MiB.
    solver_mb: usize,
    job: Option<Job>,
}

struct Job {
    stop: Arc<AtomicBool>,
    handle: JoinHandle<MateSolver>,
}

impl MateRunner {
    /// Asks a running job to stop; it answers on its own thread.
    pub fn stop(&self) {
        if let Some(j) = &self.job {
            j.stop.store(true, Ordering::Release);
        }
    }

    /// Stops a running job, waits for its answer and takes the solver back.
    pub fn stop_and_wait(&mut self) {
        self.stop();
        self.wait();
    }

    /// Waits for the job to end and takes the solver back.
    fn wait(&mut self) {
        if let Some(j) = self.job.take() {
            // (Release builds abort on a panic; elsewhere the solver thread's panic goes on here.)
            self.solver = Some(j.handle.join().unwrap_or_else(|panic| std::panic::resume_unwind(panic)));
        }
    }

    /// Starts solving `pos` with a table of `table_mb` MiB; answers on stdout when done.
    pub fn start(&mut self, pos: &Position, req: MateRequest, table_mb: usize) {
        self.stop_and_wait();
        let mut solver = match self.solver.take() {
            Some(s) if self.solver_mb == table_mb => s,
            other => {
                // Free the old table before allocating the new one.
                drop(other);
                self.solver_mb = table_mb;
                MateSolver::new(table_mb)
            }
        };
        let stop = Arc::new(AtomicBool::new(false));
        let limits = MateLimits {
            nodes: req.nodes,
            deadline: req.time_ms.map(|ms| Instant::now() + Duration::from_millis(ms)),
            max_plies: None,
        };
        let pos = pos.clone();
        let flag = Arc::clone(&stop);
        let handle = std::thread::Builder::new()
            .name("go mate".into())
            .spawn(move || {
                let result = solver.solve(&pos, &limits, &flag);
                send(&info_line(&solver));
                send(&answer(&result));
                solver
            })
            .expect("cannot start the go mate thread");
        self.job = Some(Job { stop, handle });
    }
}

/// `info time .. nodes .. nps .. hashfull ..` for the last solve.
fn info_line(solver: &MateSolver) -> String {
    let info = solver.info();
    let ms = info.elapsed.as_millis() as u64;
    let nps = (info.nodes as f64 / info.elapsed.as_secs_f64().max(1e-6)) as u64;
    format!("info time {ms} nodes {} nps {nps} hashfull {}", info.nodes, solver.hashfull())
}

/// The `checkmate` line for a result.
fn answer(result: &MateResult) -> String {
    match result {
        MateResult::Mate(line) => {
            let moves: Vec<String> = line.iter().map(|m| m.to_usi()).collect();
            format!("checkmate {}", moves.join(" "))
        }
        MateResult::NoMate => "checkmate nomate".to_string(),
        MateResult::Timeout => "checkmate timeout".to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::types::Move;

    #[test]
    fn answers_are_usi() {
        let line = vec![Move::from_usi("G*5b").unwrap()];
        assert_eq!(answer(&MateResult::Mate(line)), "checkmate G*5b");
        assert_eq!(answer(&MateResult::NoMate), "checkmate nomate");
        assert_eq!(answer(&MateResult::Timeout), "checkmate timeout");
    }
}
