//! Checkmate (tsume) solving, for `go mate`: can the side to move force mate by checking on every
//! move, and how?
//!
//! Rules as in tsume shogi: the attacker (the side to move) plays only checks, and answers a
//! counter-check with a move that both escapes and checks; the defender may play any legal move,
//! interpositions by drops included (all of them count towards the length, unless
//! [`MateLimits::futile`] asks for tsume convention: see `futile.rs`); pawn-drop mate is illegal;
//! a line that repeats a position is no mate (perpetual check loses). The attacker may lack a
//! king.
//!
//! # Use
//! ```no_run
//! use hayate::mate::{MateLimits, MateResult, MateSolver};
//! use hayate::position::Position;
//! use std::sync::atomic::AtomicBool;
//! use std::time::{Duration, Instant};
//!
//! let pos = Position::from_sfen("4k4/9/4P4/9/9/9/9/9/9 b G2r2b3g4s4n4l17p 1").unwrap();
//! let mut solver = MateSolver::new(64);
//! let deadline = Some(Instant::now() + Duration::from_secs(10));
//! let limits = MateLimits { deadline, ..MateLimits::default() };
//! let stop = AtomicBool::new(false); // set by the USI `stop` command from another thread
//! match solver.solve(&pos, &limits, &stop) {
//!     MateResult::Mate(line) => println!("checkmate {}", line.iter().map(|m| m.to_usi()).collect::<Vec<_>>().join(" ")),
//!     MateResult::NoMate => println!("checkmate nomate"),
//!     MateResult::Timeout => println!("checkmate timeout"),
//! }
//! ```
//!
//! # What `solve` does
//! 1. df-pn from the position until it is proven, disproven or the limits are reached.
//! 2. If proven: depth-limited searches for a mate two plies shorter, until one fails (the mate is
//!    then the shortest) or the limits are reached (the best line found is still returned). With
//!    no limits at all this phase gets [`SHORTEN_FACTOR`] times the nodes of the first phase, at
//!    least [`SHORTEN_MIN`], so that `go mate infinite` answers once a mate is found.
//! 3. The line, from a walk of the whole proof tree that verifies it move by move (`audit.rs`):
//!    the tree's moves for the attacker, the longest branch for the defender. Its length is at
//!    least the true mate length and at most the proven one, so its length is exact when phase 2
//!    completed. The tree of the first proof is walked as soon as it is found, while the table
//!    holds it all, and its line is returned if the shorter mate's tree cannot be walked (the
//!    table may have lost too much of it). Only if even the first tree is too large to walk is
//!    the line read from the table alone (`pv.rs`), and then its defender moves may not resist
//!    longest.
//! 4. When the shortest is proven, the line is made a principal variation (`pv::principal`): the
//!    tree's attacker moves below the first need not mate soonest, so a reply the tree makes
//!    long may not be the longest resistance. Each step is settled by a depth-limited search
//!    (a mate within the plies left, none two plies shorter), mostly answered by the disproofs
//!    the last round of step 2 left in the table. This gets at most as many nodes as were
//!    searched before it (at least [`SHORTEN_MIN`]), within the limits; if they run out, the
//!    tree's line stays.

mod audit;
mod checks;
mod dfpn;
mod futile;
mod hand;
mod movegen;
mod pv;
mod table;

use crate::position::{MoveList, Position};
use crate::sys::time::Instant;
use crate::types::Move;
pub use dfpn::Stop;
use dfpn::{Budget, Search, MAX_DEPTH};
use std::sync::atomic::AtomicBool;
use std::time::Duration;
use table::{Table, UNLIMITED};

/// With no limits, the shortening phase gets this many times the nodes of the first proof...
pub const SHORTEN_FACTOR: u64 = 4;
/// ... and at least this many nodes.
pub const SHORTEN_MIN: u64 = 2_000_000;
/// Nodes a line extraction may spend re-proving positions the table lost. The walk of the proof
/// tree ends at the deadline or a stop like the search (a tree of millions of positions takes
/// seconds: `go mate` answers on time); the line read from the table alone, its fallback, does
/// not, so that a proven mate always has a line. The line of the first proof is taken right
/// after it, while the table holds it all, and kept in case the line of a shorter mate cannot
/// be walked.
const LINE_NODES: u64 = 2_000_000;
/// Positions the walk of the proof tree for the line may visit (a bound on its time; its memory
/// is bounded by the table's size, see `audit.rs`).
const AUDIT_POSITIONS: u64 = 20_000_000;
/// Stack of the search thread (the search recurses once per ply, up to `MAX_DEPTH`).
pub const STACK_BYTES: usize = 64 << 20;

/// When to stop searching (besides the stop flag). Nothing set: until solved.
#[derive(Clone, Copy, Debug, Default)]
pub struct MateLimits {
    pub nodes: Option<u64>,
    pub deadline: Option<Instant>,
    /// Only mates of at most this many plies count; `NoMate` then means "none that short".
    /// `go mate` leaves it unset.
    pub max_plies: Option<u16>,
    /// Tsume convention: a defender left with nothing but futile interpositions (drops that the
    /// distant checker simply takes, mated again) is mated, and the line ends there (`futile.rs`).
    /// `go mate` sets it; lengths then count no such interposition. Unset, every interposition
    /// counts and lines end in checkmate by the plain rules.
    pub futile: bool,
}

/// The answer to a mate question.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum MateResult {
    /// A mating line ending in checkmate: the attacker's checks and the defender's longest
    /// resistance against them. When it comes from the verified proof tree
    /// ([`MateInfo::line_verified`]) it is never shorter than the true (shortest forced) mate,
    /// and exactly that long when [`MateInfo::shortest`] says so; a line read from the table
    /// alone may be shorter (its defender need not resist longest).
    Mate(Vec<Move>),
    /// Proven: no mate exists (no sequence of checks forces one).
    NoMate,
    /// Not resolved within the limits (or stopped).
    Timeout,
}

/// What the last `solve` did.
#[derive(Clone, Copy, Debug, Default)]
pub struct MateInfo {
    /// Nodes searched (positions expanded or probed for a mate in one).
    pub nodes: u64,
    pub elapsed: Duration,
    /// Length of the first mate df-pn proved (before shortening), if any.
    pub first_len: Option<u16>,
    /// Nodes searched until that first proof (or the end of the first phase).
    pub first_nodes: u64,
    /// The shortest mate length proven (after shortening); the line is at most this long.
    pub proven_len: Option<u16>,
    /// Whether the returned line's length is proven to be the shortest mate's: no mate two plies
    /// shorter exists. (Its defender moves resist longest within the proof tree walked, whose
    /// attacker moves below the first need not be the shortest there.)
    pub shortest: bool,
    /// Whether the line comes from a walk of the whole proof tree, every defender reply checked
    /// (`audit.rs`); if not, it was read from the table alone and its defender moves may not
    /// resist longest.
    pub line_verified: bool,
    /// Whether the line is a principal variation: every attacker move mates in the fewest plies
    /// from where it is played, every defender move puts the mate off longest. Established by
    /// the search (the depth-limited disproofs that also prove the shortest) after the tree walk.
    pub principal: bool,
}

/// A df-pn mate solver with its proof-number table. The table is kept between calls (its results
/// hold for any position); `clear` empties it.
pub struct MateSolver {
    table: Table,
    info: MateInfo,
}

impl MateSolver {
    /// A solver whose table takes about `table_mb` mebibytes. Aborts when the memory cannot be
    /// had; see [`MateSolver::try_new`].
    pub fn new(table_mb: usize) -> MateSolver {
        MateSolver::try_new(table_mb).expect("memory for the mate table")
    }

    /// A solver whose table takes about `table_mb` mebibytes, or `None` when the allocator
    /// refuses that much memory.
    pub fn try_new(table_mb: usize) -> Option<MateSolver> {
        Some(MateSolver { table: Table::try_new(table_mb)?, info: MateInfo::default() })
    }

    /// Forgets everything the table learned.
    pub fn clear(&mut self) {
        self.table.clear();
    }

    /// Nodes searched by the last `solve`.
    pub fn nodes(&self) -> u64 {
        self.info.nodes
    }

    /// Details of the last `solve`.
    pub fn info(&self) -> MateInfo {
        self.info
    }

    /// Permille of the table in use (sampled).
    pub fn hashfull(&self) -> usize {
        self.table.hashfull()
    }

    /// How often the table has been collected (freed of its least useful entries because it was
    /// full) since it was made or cleared.
    pub fn collections(&self) -> u64 {
        self.table.collections()
    }

    /// Verifies, independently of the search's reasoning, that the side to move of `pos` mates
    /// within `plies`: walks the whole proof tree the table suggests (re-proving what it lost),
    /// enumerating every defender reply and checking every move and every final mate (see
    /// `audit.rs`). Returns the longest line of the verified tree, or why it failed (including
    /// running past `max_positions`, or its map outgrowing the table). Meant for tests and
    /// diagnostics, typically right after a `solve` of the same position.
    pub fn audit(&mut self, pos: &Position, plies: u16, max_positions: u64) -> Result<u16, String> {
        let table = &mut self.table;
        let pos = pos.clone();
        on_deep_stack("mate audit", move || {
            let stop = AtomicBool::new(false);
            let budget = Budget { nodes: LINE_NODES * 10, deadline: None, use_stop: false };
            let mut s = Search::new(pos, table, budget, &stop);
            let budget = Budget { nodes: LINE_NODES * 10, ..budget };
            let max_bytes = s.tt.bytes();
            audit::audit(&mut s, plies, budget, max_positions, max_bytes)
        })
        .expect("cannot start the mate audit thread")
    }

    /// Can the side to move of `pos` force mate? `stop` (set from another thread) ends the search
    /// within a few thousand nodes. Runs on a thread of its own with a deep stack; panics when
    /// that thread cannot start (see [`MateSolver::try_solve`]).
    pub fn solve(&mut self, pos: &Position, limits: &MateLimits, stop: &dyn Stop) -> MateResult {
        self.try_solve(pos, limits, stop).expect("cannot start the mate search thread")
    }

    /// [`MateSolver::solve`], or the error that kept its thread from starting.
    pub fn try_solve(
        &mut self,
        pos: &Position,
        limits: &MateLimits,
        stop: &dyn Stop,
    ) -> std::io::Result<MateResult> {
        // A position is not `Sync`: the thread gets its own.
        let pos = pos.clone();
        on_deep_stack("mate", move || self.solve_owned(pos, limits, stop))
    }

    /// [`MateSolver::solve`] on this thread, which must have the solver's deep stack
    /// ([`STACK_BYTES`]; on WebAssembly the module's own stack): for a caller that started a
    /// thread with it for the solve (`go mate`, `crate::engine::mate`).
    pub(crate) fn solve_here(&mut self, pos: &Position, limits: &MateLimits, stop: &dyn Stop) -> MateResult {
        self.solve_owned(pos.clone(), limits, stop)
    }

    /// [`MateSolver::solve_here`] on a position of its own.
    fn solve_owned(&mut self, pos: Position, limits: &MateLimits, stop: &dyn Stop) -> MateResult {
        let start = Instant::now();
        let (result, mut info) = solve_with(&mut self.table, pos, limits, stop);
        info.elapsed = start.elapsed();
        self.info = info;
        result
    }
}

/// Runs `work` on a thread of its own with the solver's deep stack ([`STACK_BYTES`]), or
/// `Err` when that thread cannot start; on WebAssembly here, on the module's own stack
/// (`crate::sys::thread`). A panic of `work` goes on in the caller.
fn on_deep_stack<T: Send>(name: &str, work: impl FnOnce() -> T + Send) -> std::io::Result<T> {
    crate::sys::thread::run_on(name, STACK_BYTES, work)
}

/// The whole of `solve`, on the search thread.
fn solve_with(
    table: &mut Table,
    pos: Position,
    limits: &MateLimits,
    stop: &dyn Stop,
) -> (MateResult, MateInfo) {
    let mut info = MateInfo::default();
    if pos.king_square(!pos.side_to_move()).is_none() {
        return (MateResult::NoMate, info);
    }
    let budget =
        Budget { nodes: limits.nodes.unwrap_or(u64::MAX), deadline: limits.deadline, use_stop: true };
    let root = pos.clone();
    let mut s = Search::new(pos, table, budget, stop);
    if limits.futile {
        s.set_futile();
    }
    let verify_line = |root: &Position, moves: &[Move]| verify_line_by(root, moves, limits.futile);

    // 1. Any mate at all.
    let depth = limits.max_plies.map_or(MAX_DEPTH, |p| p.min(MAX_DEPTH));
    let v = s.run(depth);
    info.nodes = s.nodes;
    info.first_nodes = s.nodes;
    if !v.is_proven() {
        let proven_within = |plies: u16| v.len == UNLIMITED || v.len >= plies;
        let result = if v.is_disproven() && limits.max_plies.map_or(v.len == UNLIMITED, proven_within) {
            MateResult::NoMate
        } else {
            MateResult::Timeout
        };
        return (result, info);
    }
    info.first_len = Some(v.len);

    // The line of this first proof, while the table holds it all: kept in case the tree of a
    // shorter mate found later cannot be walked within its budget. (If even this tree is too
    // big to walk, a single line read from the table, whose defender moves may not resist
    // longest.)
    let walk = Budget { nodes: s.nodes.saturating_add(LINE_NODES), ..budget };
    let read = Budget { deadline: None, use_stop: false, ..walk };
    // (moves, whether they come from the verified tree)
    // The walk's map may take as much memory as the table (see `audit.rs`).
    let audit_bytes = s.tt.bytes();
    let first = match audit::line(&mut s, v.len, walk, AUDIT_POSITIONS, audit_bytes) {
        Ok(moves) => Some((moves, true)),
        Err(_) => pv::extract(&mut s, v.len, read).map(|moves| (moves, false)),
    }
    .filter(|(moves, _)| verify_line(&root, moves).is_ok());

    // 2. The shortest.
    s.budget = budget;
    if limits.nodes.is_none() && limits.deadline.is_none() {
        s.budget.nodes = s.nodes.saturating_add(s.nodes.saturating_mul(SHORTEN_FACTOR).max(SHORTEN_MIN));
    }
    let (len, shortest) = pv::shorten(&mut s, v.len);
    info.proven_len = Some(len);

    // 3. The line, from the verified proof tree (unless the first one is it already).
    let walk = Budget { nodes: s.nodes.saturating_add(LINE_NODES), ..walk };
    let mut line = match &first {
        Some((moves, true)) if len == v.len => Some(moves.clone()),
        _ => audit::line(&mut s, len, walk, AUDIT_POSITIONS, audit_bytes)
            .ok()
            .filter(|moves| verify_line(&root, moves).is_ok()),
    };

    // 4. With the shortest proven, the principal variation: the tree's line with the attacker's
    //    shortest and the defender's longest at every node (see `pv::principal`).
    if let (Some(tree_line), true) = (&line, shortest) {
        s.budget = budget;
        s.budget.nodes = budget.nodes.min(s.nodes.saturating_add(s.nodes.max(SHORTEN_MIN)));
        if let Some(p) = pv::principal(&mut s, tree_line, len)
            .filter(|p| p.len() == tree_line.len() && verify_line(&root, p).is_ok())
        {
            info.principal = true;
            line = Some(p);
        }
    }
    info.nodes = s.nodes;
    match (line, first) {
        (Some(line), _) => {
            info.shortest = shortest;
            info.line_verified = true;
            (MateResult::Mate(line), info)
        }
        (None, Some((first, verified))) => {
            info.line_verified = verified;
            (MateResult::Mate(first), info)
        }
        (None, None) => {
            debug_assert!(false, "no valid line for a proven mate in {}", root.to_sfen());
            (MateResult::Timeout, info)
        }
    }
}

/// Checks that `moves` is a mating line from `pos` under the tsume rules: the side to move
/// checks on every move (legally), the defender's moves are legal, and the last position is
/// checkmate.
pub fn verify_line(pos: &Position, moves: &[Move]) -> Result<(), String> {
    verify_line_by(pos, moves, false)
}

/// [`verify_line`], and with `futile` by tsume convention: the last position may also be one
/// where the defender has only futile interpositions left (see [`MateLimits::futile`]).
pub fn verify_line_by(pos: &Position, moves: &[Move], futile: bool) -> Result<(), String> {
    let mut p = pos.clone();
    let attacker = p.side_to_move();
    for (i, &m) in moves.iter().enumerate() {
        if !MoveList::legal(&p, true).contains(m) {
            return Err(format!("ply {}: {m} is not legal", i + 1));
        }
        if p.side_to_move() == attacker && !p.gives_check(m) {
            return Err(format!("ply {}: {m} does not check", i + 1));
        }
        p.do_move(m);
    }
    if p.side_to_move() == attacker
        || !p.in_check()
        || !(MoveList::legal(&p, true).is_empty() || futile && futile::mated(&mut p))
    {
        return Err("the line does not end in checkmate".to_string());
    }
    Ok(())
}
