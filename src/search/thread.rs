//! Threads: each search thread's own data ([`Worker`]) and the pool that runs a search on them.
//!
//! Each [`Worker`] owns its position, evaluator, its own histories and root moves, and the main
//! worker also the [`SearchManager`] (its clock and deadlines); workers persist across searches
//! (histories carry over) and move into the search threads for the duration of a `go`. What the
//! threads share is in [`super::shared`].
//!
//! A `go` spawns one coordinator thread that runs the main worker itself and the helpers as
//! scoped threads (Lazy SMP: all search the same root, sharing the table and the shared
//! histories). When the main worker stops, it waits out `ponder`/`infinite`, stops the helpers,
//! picks the best thread by vote and reports `bestmove`. Exactly one `bestmove` per `go`.

use super::config::SearchConfig;
use super::control::SearchControl;
use super::correction::StructureCorrection;
use super::history::{shared_scale, PawnHistory};
use super::limits::Limits;
use super::manager::SearchManager;
use super::report::{BestMove, Reporter};
use super::root_move::RootMove;
use super::shared::{SharedHistories, SharedState, ThreadCounters};
use super::stack::{Frame, PvTable, STACK_OFFSET};
use super::tt::TranspositionTable;
use crate::eval::{EvalType, Evaluator};
use crate::position::Position;
use crate::sys::thread::{self, Handle};
use crate::sys::time::Instant;
use crate::types::{Color, Move, Value, MAX_PLY};
use std::sync::atomic::Ordering;
use std::sync::Arc;

/// Stack size of search threads (deep recursion with move lists on the stack).
pub const STACK_SIZE: usize = 64 * 1024 * 1024;

/// The memory one more search thread takes, about: its own histories, its part of the shared
/// ones (twice it, as their number of threads is rounded up to a power of two) and 8 MiB for the
/// rest (the principal-variation table, the evaluator, the stack pages a search reaches).
pub const THREAD_MEMORY: usize = super::history::History::BYTES
    + super::correction::CorrectionHistory::BYTES
    + 2 * (PawnHistory::BYTES_PER_THREAD + StructureCorrection::SHARED_BYTES_PER_THREAD)
    + 8 * 1024 * 1024;

/// The address space one more search thread takes, about: [`THREAD_MEMORY`], the whole of its
/// stack, and the 64 MiB that glibc's allocator maps for a thread's own arena.
pub const THREAD_ADDRESS_SPACE: usize = THREAD_MEMORY + STACK_SIZE + 64 * 1024 * 1024;

/// One search thread's own data.
pub struct Worker {
    pub id: usize,
    pub pos: Position,
    pub eval: Evaluator,
    pub history: super::history::History,
    pub correction: super::correction::CorrectionHistory,
    pub root_moves: Vec<RootMove>,
    pub nodes: u64,
    pub sel_depth: i32,
    pub root_depth: i32,
    pub completed_depth: i32,
    pub pv_idx: usize,
    /// Null moves are not tried below this ply (a verification search is running above it).
    pub nmp_min_ply: i32,
    /// Per-ply frames; the frame of ply `p` is `stack[p + STACK_OFFSET]`.
    pub stack: Vec<Frame>,
    pub pv: PvTable,
    /// The colour to move at the root (draw values are from its view).
    pub root_color: Color,
    /// The main worker's clock and deadlines; `None` for the helpers.
    pub manager: Option<SearchManager>,
    /// The late-move reduction factor of a depth or a move count (see [`lmr_table`]).
    pub lmr: Vec<i32>,
    /// The width of the root's aspiration window in the current iteration.
    pub root_delta: i32,
    /// The number of lines the current iteration searches (main worker).
    pub iteration_multi_pv: usize,
    /// Main worker: the current iteration is abandoned and the deepening starts again from
    /// depth 1, because a GUI changed `MultiPV` during an analysis.
    pub restart: bool,
    /// The PV of the last completed iteration.
    pub last_iteration_pv: Vec<Move>,
    /// Below full strength (main worker): the lines of the last completed iteration, best first,
    /// which the level chooses among.
    pub completed_lines: Vec<RootMove>,
    /// The node count's low bits that are zero when the limits are due for a check (one less
    /// than a power of two; the search checks the limits every `check_mask + 1` nodes).
    pub check_mask: u64,
    /// How often the best root move changed in this search (the first line's, at the root).
    pub best_move_changes: u64,
}

/// The late-move reduction factors: `LmrScale / 128 * ln(i)` for a depth or move count `i`; a
/// reduction is the product of two of them (in 1/1024 plies) plus adjustments.
pub fn lmr_table() -> Vec<i32> {
    (0..=crate::position::MAX_MOVES)
        .map(|i| if i == 0 { 0 } else { (super::params::LmrScale() as f64 / 128.0 * (i as f64).ln()) as i32 })
        .collect()
}

impl Worker {
    /// Whether the search must unwind: the threads were stopped, or this worker's iteration is
    /// abandoned for a restart.
    #[inline(always)]
    pub fn stopped(&self, shared: &SharedState) -> bool {
        self.restart || shared.stopped()
    }

    pub fn new(id: usize) -> Worker {
        Worker::try_new(id).expect("memory for a search thread")
    }

    /// A worker, or `None` when the allocator refuses the memory of its histories.
    pub fn try_new(id: usize) -> Option<Worker> {
        Some(Worker {
            id,
            pos: Position::startpos(),
            eval: Evaluator::default(),
            history: super::history::History::try_new()?,
            correction: super::correction::CorrectionHistory::try_new()?,
            root_moves: Vec::new(),
            nodes: 0,
            sel_depth: 0,
            root_depth: 0,
            completed_depth: 0,
            pv_idx: 0,
            nmp_min_ply: 0,
            stack: vec![Frame::default(); MAX_PLY as usize + STACK_OFFSET + 8],
            pv: PvTable::default(),
            root_color: Color::Black,
            manager: (id == 0).then(SearchManager::default),
            lmr: lmr_table(),
            root_delta: 1,
            iteration_multi_pv: 1,
            restart: false,
            last_iteration_pv: Vec::new(),
            completed_lines: Vec::new(),
            check_mask: super::control::check_interval(None) - 1,
            best_move_changes: 0,
        })
    }

    /// Forgets what earlier games taught (usinewgame).
    pub fn clear(&mut self) {
        self.history.clear();
        self.correction.clear();
        if let Some(manager) = &mut self.manager {
            manager.new_game();
        }
    }
}

/// The search threads' data and the running search, if any.
pub struct ThreadPool {
    workers: Vec<Worker>,
    /// The histories the workers share, sized for their number.
    histories: Arc<SharedHistories>,
    running: Option<Handle<Vec<Worker>>>,
    control: Arc<SearchControl>,
    /// The NNUE net (and FV_SCALE) every worker evaluates with, if any.
    network: Option<(Arc<crate::eval::nnue::Network>, i32)>,
    /// The evaluation every worker plays with.
    eval_type: EvalType,
}

impl ThreadPool {
    /// A pool of `threads` workers evaluating with the default evaluation (the embedded net).
    pub fn new(threads: usize) -> ThreadPool {
        ThreadPool::with_eval(threads, EvalType::default())
    }

    /// A pool whose workers evaluate with `kind` (and the embedded net where `kind` uses a net)
    /// until [`ThreadPool::set_network`] says otherwise.
    pub fn with_eval(threads: usize, kind: EvalType) -> ThreadPool {
        let mut pool = ThreadPool {
            workers: Vec::new(),
            histories: Arc::new(
                SharedHistories::try_new(threads)
                    .or_else(|| SharedHistories::try_new(1))
                    .expect("memory for the shared histories"),
            ),
            running: None,
            control: Arc::new(SearchControl::default()),
            network: None,
            eval_type: kind,
        };
        pool.set_threads(threads);
        pool
    }

    /// The control flags of the current (or next) search, for the engine session.
    pub fn control(&self) -> Arc<SearchControl> {
        Arc::clone(&self.control)
    }

    /// Resizes the pool (waits for a running search first). Returns the number of threads it
    /// has: fewer than asked when the memory of another thread's histories cannot be had.
    pub fn set_threads(&mut self, threads: usize) -> usize {
        self.wait();
        let threads = threads.max(1);
        self.workers.truncate(threads);
        while self.workers.len() < threads {
            let id = self.workers.len();
            let Some(mut w) = Worker::try_new(id) else {
                break;
            };
            let (net, fv_scale) = match self.network.as_ref() {
                Some((net, fv_scale)) => (Some(net), *fv_scale),
                None => (None, crate::eval::nnue::DEFAULT_FV_SCALE),
            };
            w.eval.configure(self.eval_type, net, fv_scale);
            self.workers.push(w);
        }
        assert!(!self.workers.is_empty(), "memory for one search thread");
        // The shared histories follow the number of threads (rounded up to a power of two);
        // when the memory for larger ones cannot be had, the threads share the smaller ones.
        if shared_scale(self.workers.len()) != Some(self.histories.scale) {
            if let Some(h) = SharedHistories::try_new(self.workers.len()) {
                self.histories = Arc::new(h);
            }
        }
        self.workers.len()
    }

    /// Nodes the threads searched in the last search (call when no search runs).
    pub fn nodes(&self) -> u64 {
        self.workers.iter().map(|w| w.nodes).sum()
    }

    /// Number of search threads (call when no search runs).
    pub fn threads(&self) -> usize {
        self.workers.len()
    }

    /// True while a search runs and has not yet answered `bestmove`.
    pub fn is_searching(&self) -> bool {
        self.running.as_ref().is_some_and(|h| !h.is_finished())
            && !self.control.answered.load(Ordering::SeqCst)
    }

    /// Sets the evaluation of every worker: `kind`, with an NNUE net where it uses one (the
    /// linear evaluation for `None`). Waits for a running search first.
    pub fn set_network(
        &mut self,
        kind: EvalType,
        net: Option<&Arc<crate::eval::nnue::Network>>,
        fv_scale: i32,
    ) {
        self.wait();
        self.network = net.map(|n| (Arc::clone(n), fv_scale));
        self.eval_type = kind;
        for w in &mut self.workers {
            w.eval.configure(kind, net, fv_scale);
        }
    }

    /// Clears every worker's histories and the shared ones (waits for a running search first).
    /// Each worker's are cleared on a thread of their own (tens of megabytes a worker).
    pub fn clear(&mut self) {
        self.wait();
        self.histories.clear();
        let threads = self.workers.len();
        crate::sys::parallel::for_each_on(self.workers.iter_mut().collect(), threads, |w| w.clear());
    }

    /// Waits for the running search, if any, to report its `bestmove` and finish.
    pub fn wait(&mut self) {
        if let Some(h) = self.running.take() {
            // (Release builds abort on a panic; elsewhere a search thread's panic goes on here.)
            self.workers = h.join();
        }
    }

    /// Stops the running search (it still reports its `bestmove`) and waits for it.
    pub fn stop_and_wait(&mut self) {
        self.control.stop();
        self.wait();
    }

    /// Starts searching `pos` in the background; the reporter receives progress and exactly one
    /// `bestmove`. A search still running is stopped first.
    pub fn start(
        &mut self,
        pos: &Position,
        limits: Limits,
        config: SearchConfig,
        tt: Arc<TranspositionTable>,
        reporter: Arc<dyn Reporter>,
    ) {
        self.stop_and_wait();
        self.control = Arc::new(SearchControl::default());
        self.control.pondering.store(limits.ponder, Ordering::SeqCst);
        let limits = config.skill.limit(limits);
        let shared = Arc::new(SharedState {
            tt,
            histories: Arc::clone(&self.histories),
            control: Arc::clone(&self.control),
            counters: (0..self.workers.len()).map(|_| ThreadCounters::default()).collect(),
            limits,
            config,
            start: Instant::now(),
            reporter,
        });
        let mut workers = std::mem::take(&mut self.workers);
        for w in &mut workers {
            w.pos = pos.clone();
            w.eval.reset(pos);
            if cfg!(feature = "tune") {
                w.lmr = lmr_table();
            }
        }
        self.launch(workers, shared, pos);
    }

    /// Runs the search on a thread of its own (with a deep stack) and keeps its handle; a
    /// thread that cannot start leaves the workers here and answers with an unsearched move.
    /// WebAssembly has no threads: the search runs here, to its end, handing control to its host
    /// at the reporter's checkpoints (see [`Reporter::checkpoint`]), and the workers come back
    /// at once.
    fn launch(&mut self, workers: Vec<Worker>, shared: Arc<SharedState>, pos: &Position) {
        // The workers go to the thread once it runs, so that they stay here if it cannot start.
        let input = (workers, Arc::clone(&shared));
        let spawned = thread::spawn_with("search", Some(STACK_SIZE), input, |(mut workers, shared)| {
            run_search(&mut workers, &shared);
            workers
        });
        match spawned {
            Ok(handle) => {
                self.running = Some(handle);
                if thread::INLINE {
                    self.wait();
                }
            }
            Err((e, (workers, _))) => {
                self.workers = workers;
                shared
                    .reporter
                    .message(&format!("cannot start the search thread ({e}): answering without a search"));
                let best = unsearched_move(pos, &shared);
                shared.control.answered.store(true, Ordering::SeqCst);
                shared.reporter.best_move(best);
            }
        }
    }

    /// Runs the search [`ThreadPool::start`] started to completion (bench, tests, self-play):
    /// waits for its `bestmove`, which goes to the reporter as usual. Returns the nodes of all
    /// threads.
    pub fn finish(&mut self) -> u64 {
        self.wait();
        self.nodes()
    }
}

/// The coordinator: main worker in this thread, helpers in scoped threads, then the vote.
fn run_search(workers: &mut [Worker], shared: &Arc<SharedState>) {
    shared.tt.new_search();
    let (main, helpers) = workers.split_first_mut().expect("at least one worker");
    let best = std::thread::scope(|s| {
        let mut failed = None;
        let helper_count = helpers.len();
        for h in helpers.iter_mut() {
            // A helper that cannot start must not vote with the moves of an earlier search.
            h.root_moves.clear();
            let shared = Arc::clone(shared);
            let spawned = std::thread::Builder::new()
                .stack_size(STACK_SIZE)
                .spawn_scoped(s, move || h.search_helper(&shared));
            if let Err(e) = spawned {
                failed.get_or_insert((0, e)).0 += 1;
            }
        }
        if let Some((count, e)) = failed {
            shared.reporter.message(&format!(
                "cannot start {count} of {helper_count} helper threads ({e}): searching with fewer"
            ));
        }
        let best = main.search_main(shared);
        shared.control.stop();
        best
    });
    let best = match best {
        BestMove::Move { .. } => pick_best_thread(workers, shared),
        other => other,
    };
    shared.control.answered.store(true, Ordering::SeqCst);
    shared.reporter.best_move(best);
}

/// The move played when no search can run: the table's move if it is legal here, else the first
/// legal move (among `searchmoves` when given), else resignation.
fn unsearched_move(pos: &Position, shared: &SharedState) -> BestMove {
    let only = &shared.limits.searchmoves;
    let allowed = |m: Move| only.is_empty() || only.contains(&m);
    let (entry, _) = shared.tt.probe(pos.key());
    let moves = crate::position::MoveList::legal(pos, !only.is_empty());
    let table_move = entry.and_then(|e| e.mv).filter(|&m| moves.iter().any(|&l| l == m) && allowed(m));
    match table_move.or_else(|| moves.iter().copied().find(|&m| allowed(m))) {
        Some(best) => BestMove::Move { best, ponder: None },
        None => BestMove::Resign,
    }
}

/// Lazy SMP vote: each thread votes for its best move with weight growing with its score and
/// completed depth; a proven mate wins outright, and a thread that sees itself mated is not taken
/// on votes.
fn pick_best_thread(workers: &mut [Worker], shared: &SharedState) -> BestMove {
    let candidates: Vec<&Worker> = workers.iter().filter(|w| !w.root_moves.is_empty()).collect();
    let Some(first) = candidates.first() else {
        return BestMove::Resign;
    };
    let mut best = *first;
    if candidates.len() > 1 && shared.multi_pv() == 1 && shared.limits.depth.is_none() {
        let min_score = candidates.iter().map(|w| w.root_moves[0].score).min().unwrap_or(0);
        let weight = |w: &Worker| (w.root_moves[0].score - min_score + 14) as i64 * w.completed_depth as i64;
        let mut votes: std::collections::HashMap<Move, i64> = std::collections::HashMap::new();
        for w in &candidates {
            *votes.entry(w.root_moves[0].mv).or_default() += weight(w);
        }
        // Among moves with equal votes, the thread whose own weight is greater wins; a thread
        // whose PV stops at the reply or before counts as weight 0 here.
        let tie_weight = |w: &Worker| weight(w) * (w.root_moves[0].pv.len() > 2) as i64;
        let mates = |v: Value| crate::types::is_mate_score(v) && v > 0;
        let mated = |v: Value| crate::types::is_mate_score(v) && v < 0;
        for w in &candidates {
            let (bs, ws) = (best.root_moves[0].score, w.root_moves[0].score);
            let (vb, vw) = (votes[&best.root_moves[0].mv], votes[&w.root_moves[0].mv]);
            if mates(bs) {
                if ws > bs {
                    best = w;
                }
            } else if mates(ws) || (!mated(ws) && (vw > vb || (vw == vb && tie_weight(w) > tie_weight(best))))
            {
                best = w;
            }
        }
    }
    let mut rm = &best.root_moves[0];
    if !shared.config.consideration_mode && shared.config.resign_value.is_some_and(|r| rm.score < -r) {
        return BestMove::Resign;
    }
    let skill = shared.config.skill;
    if !skill.is_full() && !best.completed_lines.is_empty() {
        rm = &best.completed_lines[skill.choose(&best.pos, &best.completed_lines)];
    }
    let ponder = rm.pv.get(1).copied().or_else(|| best.ponder_from_tt(shared, rm.mv));
    BestMove::Move { best: rm.mv, ponder }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::search::report::SilentReporter;

    #[test]
    fn the_threads_share_histories_sized_for_them() {
        let mut pool = ThreadPool::with_eval(3, EvalType::Material);
        assert_eq!(pool.histories.scale, 4);
        let lone_rows = PawnHistory::try_new(1).unwrap().rows();
        assert_eq!(pool.histories.pawn.rows(), 4 * lone_rows);
        assert_eq!(pool.set_threads(2), 2);
        assert_eq!(pool.histories.pawn.rows(), 2 * lone_rows);
        let before = Arc::clone(&pool.histories);
        pool.set_threads(2);
        assert!(Arc::ptr_eq(&before, &pool.histories), "the same size keeps what was learned");
        drop(before);
        assert_eq!(pool.histories.pawn.learned(), 0);
        let limits = Limits { depth: Some(8), ..Limits::default() };
        let tt = Arc::new(TranspositionTable::new(16));
        pool.start(&Position::startpos(), limits, SearchConfig::default(), tt, Arc::new(SilentReporter));
        pool.finish();
        assert!(pool.histories.pawn.learned() > 0);
        pool.clear();
        assert_eq!(pool.histories.pawn.learned(), 0);
    }
}
