//! A search thread's per-ply state: the frames of the search stack and the triangular table of
//! principal variations.

use crate::types::{Move, Value, MAX_PLY, VALUE_NONE};

/// Per-ply search state. The stack has [`STACK_OFFSET`] sentinel frames before the root's, so
/// that a node can look six plies back without bounds checks.
#[derive(Clone, Copy)]
pub struct Frame {
    pub static_eval: Value,
    pub current_move: Option<Move>,
    /// The (piece, destination) key of `current_move` (see `history`), None for a null move.
    pub piece_to: Option<usize>,
    /// Its continuation key (`history::cont_key`): the row its follow-ups are learnt in.
    pub cont_key: Option<usize>,
    /// Whether `current_move` captured.
    pub captured: bool,
    /// The move a singular-extension search leaves out at this ply.
    pub excluded_move: Option<Move>,
    pub in_check: bool,
    /// Whether the table saw this node on a principal variation (or it is on one now).
    pub tt_pv: bool,
    pub tt_hit: bool,
    /// Whether the moves from the root to this node are those of the last iteration's PV.
    pub follow_pv: bool,
    /// Moves searched so far at this node.
    pub move_count: i32,
    /// The history score of `current_move` (late move reductions and the parent's bonuses).
    pub stat_score: i32,
    /// How many children of the nodes at this ply cut off (reset by the grandparent).
    pub cutoff_cnt: i32,
    /// How much the search of `current_move` was reduced (for the child's depth adjustments).
    pub reduction: i32,
}

/// Frames before the root's in a search thread's stack (`Worker::stack`).
pub const STACK_OFFSET: usize = 7;

impl Default for Frame {
    fn default() -> Frame {
        Frame {
            static_eval: VALUE_NONE,
            current_move: None,
            piece_to: None,
            cont_key: None,
            captured: false,
            excluded_move: None,
            in_check: false,
            tt_pv: false,
            tt_hit: false,
            follow_pv: false,
            move_count: 0,
            stat_score: 0,
            cutoff_cnt: 0,
            reduction: 0,
        }
    }
}

/// Triangular principal-variation table.
pub struct PvTable {
    moves: Vec<[Option<Move>; MAX_PLY as usize + 2]>,
    len: Vec<usize>,
}

impl Default for PvTable {
    fn default() -> PvTable {
        PvTable {
            moves: vec![[None; MAX_PLY as usize + 2]; MAX_PLY as usize + 2],
            len: vec![0; MAX_PLY as usize + 2],
        }
    }
}

impl PvTable {
    #[inline(always)]
    pub fn clear(&mut self, ply: usize) {
        self.len[ply] = 0;
    }

    /// The PV at `ply` becomes `m` followed by the PV at `ply + 1`.
    #[inline]
    pub fn update(&mut self, ply: usize, m: Move) {
        let n = self.len[ply + 1];
        let (head, tail) = self.moves.split_at_mut(ply + 1);
        head[ply][0] = Some(m);
        head[ply][1..=n].copy_from_slice(&tail[0][..n]);
        self.len[ply] = n + 1;
    }

    pub fn line(&self, ply: usize) -> Vec<Move> {
        self.moves[ply][..self.len[ply]].iter().flatten().copied().collect()
    }
}
