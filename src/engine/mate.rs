//! `go mate`: runs the df-pn solver (`crate::mate`) on a thread of its own and hands what it
//! found to a [`MateReporter`].
//!
//! The solver and its table live here between calls (a table's results hold for any position, so
//! later problems reuse them); while a job runs the solver is moved into its thread and comes back
//! when the thread is joined. Exactly one report answers each job, also when it is stopped: then
//! it reports what it had, `Timeout` if nothing was proven.

use super::options;
use crate::mate::{MateInfo, MateLimits, MateResult, MateSolver};
use crate::position::Position;
use crate::sys::memory;
use crate::sys::thread::{self, Handle};
use crate::sys::time::Instant;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

/// What one `go mate` asks for.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct MateRequest {
    /// Milliseconds to think (`go mate <ms>`); `None` for `infinite` or a bare `go mate`.
    pub time_ms: Option<u64>,
    /// Node limit (`go mate nodes N`); `None`: the `MateNodes` option's (see `Engine::start_mate`).
    pub nodes: Option<u64>,
}

/// What a finished job found.
#[derive(Clone, Debug)]
pub struct MateReport {
    pub result: MateResult,
    /// Nodes, time and the like of the solve.
    pub info: MateInfo,
    /// Permille of the solver's table in use.
    pub hashfull: usize,
}

/// Receives the report of a `go mate` job, on the job's thread.
pub trait MateReporter: Send + Sync {
    fn mate_report(&self, report: &MateReport);
    /// Free text for the user (`info string`).
    fn message(&self, text: &str);

    /// Called by the solver each time it got control back from a host without threads (see
    /// `crate::search::Reporter::checkpoint`): the front end sets `stop` when a `stop` came
    /// meanwhile. Never called where there are threads.
    fn checkpoint(&self, _stop: &AtomicBool) {}
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
    handle: Handle<MateSolver>,
}

impl MateRunner {
    /// Asks a running job to stop; it reports on its own thread.
    pub fn stop(&self) {
        if let Some(j) = &self.job {
            j.stop.store(true, Ordering::Release);
        }
    }

    /// Stops a running job, waits for its report and takes the solver back.
    pub fn stop_and_wait(&mut self) {
        self.stop();
        self.wait();
    }

    /// Waits for a job that was asked to stop (it is about to report); one still solving is
    /// left to run.
    pub fn wait_if_stopped(&mut self) {
        if self.job.as_ref().is_some_and(|j| j.stop.load(Ordering::Acquire)) {
            self.wait();
        }
    }

    /// Waits for the job to end and takes the solver back.
    pub fn wait(&mut self) {
        if let Some(j) = self.job.take() {
            // (Release builds abort on a panic; elsewhere the solver thread's panic goes on here.)
            self.solver = Some(j.handle.join());
        }
    }

    /// Starts solving `pos` with a table of `table_mb` MiB, by tsume convention if `futile` (see
    /// [`MateLimits::futile`]); `reporter` gets the result.
    pub fn start(
        &mut self,
        pos: &Position,
        req: MateRequest,
        table_mb: usize,
        futile: bool,
        reporter: Arc<dyn MateReporter>,
    ) {
        self.stop_and_wait();
        let solver = match self.solver.take() {
            Some(s) if self.solver_mb == table_mb => s,
            other => {
                // Free the old table before allocating the new one.
                drop(other);
                self.solver_mb = table_mb;
                // The solver runs on a thread with a deep stack: leave room for it.
                let stack = crate::mate::STACK_BYTES as u64;
                let reserve = memory::Reserve { memory: stack, address_space: stack };
                let (solver, mb) = memory::largest_fitting_leaving(table_mb, reserve, MateSolver::try_new);
                if mb < table_mb {
                    reporter.message(&options::shrunk_message("MateHash", table_mb, mb));
                }
                solver
            }
        };
        let stop = Arc::new(AtomicBool::new(false));
        let limits = MateLimits {
            nodes: req.nodes,
            deadline: req.time_ms.and_then(|ms| Instant::now().checked_add(Duration::from_millis(ms))),
            max_plies: None,
            futile,
        };
        self.launch(Solve { solver, pos: pos.clone(), limits, stop, reporter });
    }

    /// Solves on a thread of its own, with the solver's deep stack, and keeps its handle; one
    /// that cannot start reports at once (the solver stays here). WebAssembly has no threads:
    /// the solve runs here, to its end, handing control to the host now and then
    /// (`crate::sys::host_yield`) and hearing `stop` at the reporter's checkpoint, and the
    /// solver comes back at once.
    fn launch(&mut self, solve: Solve) {
        let stop = Arc::clone(&solve.stop);
        match thread::spawn_with("go mate", Some(crate::mate::STACK_BYTES), solve, Solve::run) {
            Ok(handle) => {
                self.job = Some(Job { stop, handle });
                if thread::INLINE {
                    self.wait();
                }
            }
            Err((e, solve)) => {
                self.solver = Some(solve.solver);
                solve.reporter.message(&format!("cannot start the go mate thread ({e})"));
                solve.reporter.mate_report(&MateReport {
                    result: MateResult::Timeout,
                    info: MateInfo::default(),
                    hashfull: 0,
                });
            }
        }
    }
}

/// A solve about to start: the solver, what to solve, its stop flag and who hears the result.
struct Solve {
    solver: MateSolver,
    pos: Position,
    limits: MateLimits,
    stop: Arc<AtomicBool>,
    reporter: Arc<dyn MateReporter>,
}

impl Solve {
    /// Solves and reports, on the job's thread (which has the solver's deep stack); returns the
    /// solver.
    fn run(self) -> MateSolver {
        let Solve { mut solver, pos, limits, stop, reporter } = self;
        let checked = CheckedStop { flag: &stop, reporter: reporter.as_ref() };
        let result = solver.solve_here(&pos, &limits, &checked);
        report(reporter.as_ref(), result, &solver);
        solver
    }
}

/// The one report of a finished (or stopped) solve.
fn report(reporter: &dyn MateReporter, result: MateResult, solver: &MateSolver) {
    reporter.mate_report(&MateReport { result, info: solver.info(), hashfull: solver.hashfull() });
}

/// The stop flag of a solve, and on a host without threads what the front end reads after each
/// pause (where there are threads nothing pauses, and `resumed` is never called).
struct CheckedStop<'a> {
    flag: &'a AtomicBool,
    reporter: &'a dyn MateReporter,
}

impl crate::mate::Stop for CheckedStop<'_> {
    fn stopped(&self) -> bool {
        self.flag.load(Ordering::Acquire)
    }

    fn resumed(&self) {
        self.reporter.checkpoint(self.flag);
    }
}
