//! The engine session, whatever the front end: the position to think about, the option values,
//! the transposition table, the search threads, the NNUE net and the `go mate` solver. A front
//! end (the USI layer; a CSA client) turns its protocol into calls here and the results into its
//! protocol: the session never prints. Problems come back as values (`Result`, messages); search
//! results go to the front end's [`Reporter`], mate results to its [`MateReporter`].
//!
//! A game as a front end drives it:
//! ```no_run
//! use hayate::engine::{options::Options, Engine};
//! use hayate::position::Position;
//! use hayate::search::{BestMove, Limits, Reporter, SearchInfo};
//! use std::sync::{mpsc, Arc, Mutex};
//!
//! struct ToChannel(Mutex<mpsc::Sender<BestMove>>);
//! impl Reporter for ToChannel {
//!     fn info(&self, _: &SearchInfo) {}
//!     fn message(&self, _: &str) {}
//!     fn best_move(&self, best: BestMove) {
//!         let _ = self.0.lock().unwrap().send(best);
//!     }
//! }
//!
//! let mut engine = Engine::new(Options::default());
//! engine.set_option("Threads", "2").unwrap();
//! for message in engine.prepare() {
//!     eprintln!("{message}"); // e.g. which NNUE file was loaded
//! }
//! engine.new_game();
//! let mut pos = Position::startpos();
//! pos.do_move(hayate::types::Move::from_usi("7g7f").unwrap()); // the opponent's move
//! engine.set_position(pos);
//! let (tx, rx) = mpsc::channel();
//! let limits = Limits { byoyomi: 10_000, time: [Some(0), Some(0)], ..Limits::default() };
//! engine.start_search(limits, Arc::new(ToChannel(Mutex::new(tx))));
//! let best = rx.recv().unwrap(); // or engine.stop() first, to answer at once
//! engine.wait();
//! # let _ = best;
//! ```

pub mod book;
mod files;
pub mod mate;
mod net;
pub mod options;
pub mod path_bytes;
pub mod user_file;

use crate::eval::{EvalType, Evaluator};
use crate::position::{MoveList, Position};
use crate::search::thread::{STACK_SIZE, THREAD_ADDRESS_SPACE, THREAD_MEMORY};
use crate::search::{
    BestMove, Limits, Reporter, ScoreBound, SearchConfig, SearchInfo, ThreadPool, TranspositionTable,
};
use crate::sys::memory::{self, Reserve};
use crate::types::{Score, Value};
use book::{BookChoice, BookSlot};
use mate::{MateReporter, MateRequest, MateRunner};
use net::NetSlot;
use options::{OptionError, Options};
use std::sync::Arc;

/// The engine's name and authors, for a front end's greeting (`id name`, a CSA login).
pub const ENGINE_NAME: &str = concat!("Hayate ", env!("CARGO_PKG_VERSION"));

/// The instruction set the build was compiled for, shown after the name in `id name`: Windows
/// releases come as an AVX2 (with BMI2) and an SSE4.2 executable, and a user should see which one
/// a GUI loaded. (The NNUE code also picks AVX-512, VNNI, AVX2 or SSE4.1 kernels at run time,
/// whatever the build.)
pub const BUILD_CPU: &str = if cfg!(all(target_arch = "wasm32", target_feature = "simd128")) {
    "WebAssembly-SIMD128"
} else if cfg!(target_arch = "wasm32") {
    "WebAssembly"
} else if !cfg!(target_arch = "x86_64") {
    "portable"
} else if cfg!(all(target_feature = "avx2", target_feature = "bmi2")) {
    "AVX2"
} else if cfg!(target_feature = "sse4.2") {
    "SSE4.2"
} else {
    "SSE2"
};
pub const ENGINE_AUTHOR: &str = "the Hayate developers";

/// The engine's state between a front end's commands.
pub struct Engine {
    pos: Position,
    options: Options,
    pool: ThreadPool,
    tt: Arc<TranspositionTable>,
    net: NetSlot,
    book: BookSlot,
    /// `go mate`'s solver.
    mate: MateRunner,
    /// The option values the table and the pool were last made for (they may be smaller).
    applied: Applied,
    /// A search has written to the table and the histories since they were last cleared.
    tables_used: bool,
    /// An option was set since [`Engine::prepare`] last brought the net and the book in line
    /// with the options: the next search does it first when no `isready` came between (a
    /// `setoption` sent during a search, with an `isready` answered while it still ran).
    options_changed: bool,
    /// When the session began and how many searches it has started: with the position, they
    /// seed a weakened level's choices, so that its games differ from one another.
    born: crate::sys::time::Instant,
    searches: u64,
}

/// Sizes last asked of the resources, so that one the system could not grant in full is not
/// tried again at every command.
struct Applied {
    hash_mb: usize,
    threads: usize,
}

impl Engine {
    /// A session at the start position. The table, threads and net follow the options at the
    /// first [`Engine::prepare`] (or search).
    pub fn new(options: Options) -> Engine {
        Engine {
            pos: Position::startpos(),
            // The evaluation follows the options at `prepare` or `start_search`; material costs
            // nothing to set up, so `usi` is answered before the embedded net is decoded (a
            // sixth of a second of work, done at `isready`).
            pool: ThreadPool::with_eval(1, EvalType::Material),
            tt: Arc::new(TranspositionTable::new(1)),
            options,
            net: NetSlot::default(),
            book: BookSlot::default(),
            mate: MateRunner::default(),
            applied: Applied { hash_mb: 1, threads: 1 },
            tables_used: false,
            options_changed: true,
            born: crate::sys::time::Instant::now(),
            searches: 0,
        }
    }

    pub fn options(&self) -> &Options {
        &self.options
    }

    /// Sets an option from the bytes a front end received (see [`Options::set_bytes`]); returns
    /// whether they were not UTF-8.
    pub fn set_option_bytes(&mut self, name: &str, value: &[u8]) -> Result<bool, OptionError> {
        match std::str::from_utf8(value) {
            Ok(text) => self.set_option(name, text).map(|_| false),
            Err(_) => {
                let lossy = self.options.set_bytes(name, value).map(|(_, lossy)| lossy)?;
                self.options_changed = true;
                Ok(lossy)
            }
        }
    }

    /// Sets an option from its text (names are case-insensitive); returns its declared name, or
    /// why the value was refused (the option keeps its value). Sizes, threads and the net take
    /// effect at the next [`Engine::prepare`]; in a `tune` build a search parameter at once.
    pub fn set_option(&mut self, name: &str, value: &str) -> Result<&'static str, OptionError> {
        let name = self.options.set(name, value)?;
        self.options_changed = true;
        if name == options::MULTI_PV && self.pool.is_searching() {
            // An analysis in a GUI: the running search starts its deepening again with the new
            // number of lines.
            let lines = self.options.int(options::MULTI_PV) as usize;
            self.pool.control().multi_pv.store(lines, std::sync::atomic::Ordering::Relaxed);
        }
        #[cfg(feature = "tune")]
        if crate::search::params::ALL.iter().any(|p| p.name == name) {
            // In range: the option's declaration has the parameter's range.
            crate::search::params::set(name, self.options.int(name) as i32);
        }
        Ok(name)
    }

    /// The position the next search starts from.
    pub fn position(&self) -> &Position {
        &self.pos
    }

    /// Sets the position for the next search (a running search keeps its own copy).
    pub fn set_position(&mut self, pos: Position) {
        self.pos = pos;
    }

    /// True while a search runs and has not yet given its best move.
    pub fn is_searching(&self) -> bool {
        self.pool.is_searching()
    }

    /// Gets ready to search (USI `isready`): brings the table size, the number of threads, the
    /// NNUE net and the book in line with the options, and clears the table and the histories
    /// when a search has used them (see [`Engine::new_game`]). Returns messages for the user
    /// (which net and book were loaded, or why none).
    ///
    /// A search still thinking (an `isready` during `go infinite`: a GUI asking whether the
    /// engine is alive) is left alone and nothing is done, so that the answer comes at once; the
    /// options then apply at the next search. A search that was told to stop, or that has given
    /// its best move, is waited for first: after `stop`, `isready` comes after the search's
    /// best move, and options set in between are not skipped.
    pub fn prepare(&mut self) -> Vec<String> {
        let stopping = self.pool.control().stop.load(std::sync::atomic::Ordering::SeqCst);
        if self.pool.is_searching() && !stopping {
            return Vec::new();
        }
        self.pool.wait();
        self.mate.wait_if_stopped();
        let mut messages = self.load_files();
        messages.extend(self.apply_resources());
        self.clear_tables();
        messages
    }

    /// Loads the net and the book the options name (each only when it changed) and gives the
    /// net to the threads. The net comes before the table and the threads, which take what
    /// memory is left. Returns what happened, for the user.
    fn load_files(&mut self) -> Vec<String> {
        let kind = self.eval_type();
        let mut messages = self.net.load(&self.options, || kind.fallback());
        messages.extend(self.book.load(&self.options));
        self.pool.set_network(self.eval_type(), self.net.net(), self.fv_scale());
        self.options_changed = false;
        messages
    }

    /// A new game (USI `usinewgame`): ends what runs, and forgets what earlier games taught the
    /// table and the histories, unless nothing has searched since they were last cleared.
    /// Returns what could not be had in full (see [`Engine::prepare`]).
    ///
    /// A GUI sends `isready` before each game and then `usinewgame`, `position` and `go` without
    /// waiting, so the clearing is done at `isready` ([`Engine::prepare`]), whose answer the GUI
    /// waits for: done here, it delayed the first move by as much as it took (0.7 s for 8 GiB
    /// of table), unseen by the clock, which starts at `go`. Here it is left only for a front end
    /// that starts a game without `isready`.
    pub fn new_game(&mut self) -> Vec<String> {
        self.stop_and_wait();
        let messages = self.apply_resources();
        self.clear_tables();
        messages
    }

    /// Clears the table and the histories if a search has used them since they were last
    /// cleared, with as many threads as the search uses.
    fn clear_tables(&mut self) {
        if self.tables_used {
            self.tt.clear_on(self.pool.threads());
            self.pool.clear();
            self.tables_used = false;
        }
    }

    /// Starts searching the position in the background with the options' settings; `reporter`
    /// receives progress and exactly one best move. Whatever runs is stopped first (its own best
    /// move or mate report still comes). A book move, when the book has one, is the answer at
    /// once (not while pondering or analysing: `go ponder`, `go infinite`).
    pub fn start_search(&mut self, limits: Limits, reporter: Arc<dyn Reporter>) {
        self.stop_and_wait();
        if self.options_changed {
            // Options set since the last `isready` (or with no `isready` at all): the book and
            // the net they name are read now, before the book is asked.
            for message in self.load_files() {
                reporter.message(&message);
            }
        }
        if !limits.ponder && !limits.infinite && self.play_from_book(&limits, reporter.as_ref()) {
            return;
        }
        for message in self.apply_resources() {
            reporter.message(&message);
        }
        self.pool.set_network(self.eval_type(), self.net.net(), self.fv_scale());
        let mut config = self.search_config();
        self.searches += 1;
        let since_born = self.born.elapsed().as_nanos() as u64;
        config.skill =
            config.skill.with_seed(crate::splitmix::nth(self.pos.key() ^ since_born, self.searches));
        self.tables_used = true;
        self.pool.start(&self.pos, limits, config, Arc::clone(&self.tt), reporter);
    }

    /// Starts the mate solver on the position (`go mate`); `reporter` receives exactly one
    /// report. Without a node limit in `request`, the `MateNodes` option's applies (0: none).
    /// Whatever runs is stopped first.
    pub fn start_mate(&mut self, request: MateRequest, reporter: Arc<dyn MateReporter>) {
        self.stop_and_wait();
        let option_nodes = self.options.int(options::MATE_NODES) as u64;
        let request =
            MateRequest { nodes: request.nodes.or((option_nodes > 0).then_some(option_nodes)), ..request };
        let table_mb = self.options.int(options::MATE_HASH) as usize;
        let futile = self.options.bool(options::TSUME_CONVENTION);
        self.mate.start(&self.pos, request, table_mb, futile, reporter);
    }

    /// Asks the running search and mate job to stop; they still report (a search its best move).
    pub fn stop(&self) {
        self.pool.control().stop();
        self.mate.stop();
    }

    /// The opponent played the expected move: a pondering search goes on as a normal one, with
    /// the clock from `limits` when given (Early Ponder), else from the `go`.
    pub fn ponderhit(&self, limits: Option<Limits>) {
        self.pool.control().ponderhit(limits);
    }

    /// Waits for the running search and mate job to end by themselves (a pondering or infinite
    /// search ends only when stopped).
    pub fn wait(&mut self) {
        self.pool.wait();
        self.mate.wait();
    }

    /// Stops the running search and mate job and waits for their reports.
    pub fn stop_and_wait(&mut self) {
        self.pool.stop_and_wait();
        self.mate.stop_and_wait();
    }

    /// Answers from the book when it has a move for the position: an `info` line with the book's
    /// value and depth, a message saying where the move came from, and the best move. Returns
    /// whether it did.
    fn play_from_book(&mut self, limits: &Limits, reporter: &dyn Reporter) -> bool {
        if !self.book.is_loaded() {
            return false;
        }
        let choice = BookChoice::from_options(&self.options);
        let (hit, messages) = self.book.probe(&self.pos, &choice, &limits.searchmoves);
        for m in messages {
            reporter.message(&m);
        }
        let Some(hit) = hit else {
            return false;
        };
        let m = hit.chosen;
        reporter.message(&format!(
            "book move {} (value {}, depth {}, count {}; {} candidate{})",
            m.mv,
            m.value,
            m.depth,
            m.count,
            hit.candidates,
            if hit.candidates == 1 { "" } else { "s" }
        ));
        let pv = std::iter::once(m.mv).chain(hit.ponder).collect();
        reporter.info(&SearchInfo {
            depth: m.depth.max(1),
            sel_depth: m.depth.max(1),
            time_ms: 0,
            nodes: 0,
            nps: 0,
            hashfull: 0,
            score: Score::Cp(m.value),
            bound: ScoreBound::Exact,
            multipv: 1,
            pv,
        });
        reporter.best_move(BestMove::Move { best: m.mv, ponder: hit.ponder });
        true
    }

    /// The evaluation the `EvalType` option selects.
    fn eval_type(&self) -> EvalType {
        EvalType::from_name(self.options.text(options::EVAL_TYPE)).unwrap_or_default()
    }

    /// The static evaluation of the position for the side to move, as the search sees it.
    pub fn evaluate(&self) -> Value {
        let mut e = Evaluator::default();
        e.configure(self.eval_type(), self.net.net(), self.fv_scale());
        e.reset(&self.pos);
        e.evaluate(&self.pos)
    }

    /// The legal moves of the position (with the needless non-promotions when the
    /// `GenerateAllLegalMoves` option asks for them).
    pub fn legal_moves(&self) -> MoveList {
        MoveList::legal(&self.pos, self.options.bool(options::GENERATE_ALL_LEGAL_MOVES))
    }

    /// The search settings the options give.
    pub fn search_config(&self) -> SearchConfig {
        self.options.search_config()
    }

    fn fv_scale(&self) -> i32 {
        self.options.int(options::FV_SCALE) as i32
    }

    /// Brings the table size and the number of threads in line with the options (when no
    /// search runs); returns what could not be had in full (the engine goes on with less).
    ///
    /// Threads first, fewer than asked where their tables would not fit with head room (see
    /// [`memory::threads_that_fit`]); then the table takes what memory is left, less the stacks
    /// the threads will map when a search starts.
    fn apply_resources(&mut self) -> Vec<String> {
        let mut messages = Vec::new();
        let mb = self.options.int(options::USI_HASH) as usize;
        if self.applied.hash_mb != mb {
            // Free the old table before anything else is sized: it is replaced.
            self.tt = Arc::new(TranspositionTable::new(1));
        }
        let threads = self.options.int(options::THREADS) as usize;
        if self.applied.threads != threads {
            let current = self.pool.threads();
            let each = Reserve { memory: THREAD_MEMORY as u64, address_space: THREAD_ADDRESS_SPACE as u64 };
            let reserve = SYSTEM_RESERVE.plus(thread_stacks(current));
            let fit = memory::threads_that_fit(threads, current, each, reserve);
            let got = self.pool.set_threads(fit);
            self.applied.threads = threads;
            if got < threads {
                messages.push(format!(
                    "Threads {threads}: cannot allocate the memory of more than {got} threads \
                     (about {} MiB each, with room left for the table and the system), using {got}",
                    THREAD_MEMORY >> 20
                ));
            }
        }
        if self.applied.hash_mb != mb {
            let threads = self.pool.threads();
            let reserve = SYSTEM_RESERVE.plus(thread_stacks(threads));
            let (tt, message) = match memory::room_for_table_mb(reserve) {
                Some(room_mb) if mb > room_mb => {
                    // More than can be had: the fallback leaves half of what is left to the
                    // system and other programs, and is zeroed for at most a second, so that a
                    // GUI gets its `readyok` soon (zeroing the fitting size could take many
                    // seconds).
                    let fallback = (room_mb / 2).max(1);
                    let deadline = crate::sys::time::Instant::now() + FALLBACK_ZEROING;
                    let (tt, _) = memory::largest_fitting_within(fallback, None, |mb| {
                        TranspositionTable::try_new_until(mb, threads, deadline)
                    });
                    let got = tt.size_mb().max(1);
                    let mut message = options::shrunk_message(options::USI_HASH, mb, got);
                    message.push_str(&if got < fallback {
                        format!(
                            " (the part of {fallback} MiB, half the memory left, that could be made ready \
                             within a second; set up to {fallback} MiB to have it whole, at a slower isready)"
                        )
                    } else {
                        " (half the memory left beside the other tables)".to_string()
                    });
                    (tt, Some(message))
                }
                _ => {
                    let (tt, got) = memory::largest_fitting_leaving(mb, reserve, |mb| {
                        TranspositionTable::try_new_on(mb, threads)
                    });
                    (tt, (got < mb).then(|| options::shrunk_message(options::USI_HASH, mb, got)))
                }
            };
            self.tt = Arc::new(tt);
            self.applied.hash_mb = mb;
            messages.extend(message);
        }
        messages
    }
}

/// What the threads and the table leave to the rest: a net's decode (130 MB at its peak, beside
/// the net in use), the search's own allocations, and some room for the system.
const SYSTEM_RESERVE: Reserve = Reserve { memory: 256 << 20, address_space: 256 << 20 };

/// How long a fallback table (one sized by the engine, the asked one being more than can be
/// had) may take to be zeroed at `isready`.
const FALLBACK_ZEROING: std::time::Duration = std::time::Duration::from_secs(1);

/// What the stacks of `threads` search threads take once a search starts them: their whole size
/// in address space, and in memory the pages a search reaches, and the allocator's arena of
/// each.
fn thread_stacks(threads: usize) -> Reserve {
    Reserve { memory: 8 << 20, address_space: (STACK_SIZE + (64 << 20)) as u64 }.times(threads)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::search::{BestMove, Recorder};

    /// A session plays a move from a position set directly, with no protocol text.
    #[test]
    fn a_session_searches_a_position_it_is_given() {
        let mut engine = Engine::new(Options::default());
        engine.set_option("usi_hash", "16").unwrap();
        assert!(engine.set_option("Threads", "0").is_err());
        assert!(engine.prepare().iter().any(|m| m.contains("NNUE") || m.contains("embedded")));
        engine.new_game();
        let (pos, None) = Position::from_usi_args(&["startpos", "moves", "7g7f"]).unwrap() else { panic!() };
        engine.set_position(pos);
        let recorder = Arc::new(Recorder::default());
        engine.start_search(Limits { depth: Some(4), ..Limits::default() }, recorder.clone());
        engine.wait();
        let Some(BestMove::Move { best, .. }) = recorder.best() else { panic!("no best move") };
        assert!(engine.position().is_legal_move(best));
        assert!(engine.legal_moves().contains(best));
    }

    /// The table is cleared at `isready` after a search (GUIs send it before every game, and
    /// wait for its answer), and at `usinewgame` only when no `isready` came since a search.
    #[test]
    fn the_tables_are_cleared_at_isready_or_else_at_usinewgame() {
        let mut engine = Engine::new(Options::default());
        for (name, value) in [("USI_Hash", "1"), ("Threads", "2"), ("EvalType", "Material")] {
            engine.set_option(name, value).unwrap();
        }
        engine.prepare();
        let search = |engine: &mut Engine| {
            engine
                .start_search(Limits { depth: Some(6), ..Limits::default() }, Arc::new(Recorder::default()));
            engine.wait();
            assert!(!engine.tt.is_empty());
        };
        search(&mut engine);
        engine.prepare();
        assert!(engine.tt.is_empty(), "isready after a search clears");
        engine.new_game();
        search(&mut engine);
        engine.new_game();
        assert!(engine.tt.is_empty(), "usinewgame without isready clears");
    }

    /// A `tune` build sets a search parameter whatever the case of its name, and up to the top of
    /// its range.
    #[cfg(feature = "tune")]
    #[test]
    fn tune_parameters_are_set_case_insensitively() {
        use crate::search::params;
        let mut engine = Engine::new(Options::default());
        let p = params::ALL.iter().find(|p| p.name == "DoubleExtPv").unwrap();
        assert!(p.max > p.default, "a tuner must be able to raise it");
        engine.set_option("doubleextpv", &p.max.to_string()).unwrap();
        assert_eq!(params::DoubleExtPv(), p.max);
        assert_eq!(engine.options().int("DoubleExtPv"), p.max as i64);
        engine.set_option("DOUBLEEXTPV", &p.default.to_string()).unwrap();
        assert_eq!(params::DoubleExtPv(), p.default);
    }
}
