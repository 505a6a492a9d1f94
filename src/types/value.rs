//! Search values (centipawn-like units, side-to-move view) and depths.
//!
//! Mate scores count plies from the root: `mate_in(ply)` is a win delivered `ply` plies from the
//! root, `mated_in(ply)` a loss. Every mate score lies beyond `VALUE_MATE_IN_MAX_PLY`; nothing else
//! does (evaluations are clamped well inside it).

pub type Value = i32;
pub type Depth = i32;

/// The deepest ply the search reaches from the root.
pub const MAX_PLY: i32 = 246;

pub const VALUE_MATE: Value = 32000;
pub const VALUE_INFINITE: Value = 32001;
/// "No value": never a real score.
pub const VALUE_NONE: Value = 32002;
pub const VALUE_MATE_IN_MAX_PLY: Value = VALUE_MATE - MAX_PLY;
pub const VALUE_MATED_IN_MAX_PLY: Value = -VALUE_MATE_IN_MAX_PLY;
/// The largest value an evaluation may return.
pub const VALUE_EVAL_MAX: Value = 20000;

#[inline(always)]
pub const fn mate_in(ply: i32) -> Value {
    VALUE_MATE - ply
}

#[inline(always)]
pub const fn mated_in(ply: i32) -> Value {
    -VALUE_MATE + ply
}

#[inline(always)]
pub const fn is_mate_score(v: Value) -> bool {
    v.abs() >= VALUE_MATE_IN_MAX_PLY && v.abs() <= VALUE_MATE
}

/// A won value: a mate score for the side to move.
#[inline(always)]
pub const fn is_win(v: Value) -> bool {
    v >= VALUE_MATE_IN_MAX_PLY
}

/// A lost value: the side to move is mated.
#[inline(always)]
pub const fn is_loss(v: Value) -> bool {
    v <= VALUE_MATED_IN_MAX_PLY
}

/// A mate score either way.
#[inline(always)]
pub const fn is_decisive(v: Value) -> bool {
    is_win(v) || is_loss(v)
}

/// A score as USI reports it: centipawns, or mate in plies (negative when being mated).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Score {
    Cp(i32),
    Mate(i32),
}

impl Score {
    pub fn from_value(v: Value) -> Score {
        if v >= VALUE_MATE_IN_MAX_PLY {
            Score::Mate(VALUE_MATE - v)
        } else if v <= VALUE_MATED_IN_MAX_PLY {
            Score::Mate(-(VALUE_MATE + v))
        } else {
            Score::Cp(v)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mate_scores_round_trip() {
        assert_eq!(Score::from_value(mate_in(3)), Score::Mate(3));
        assert_eq!(Score::from_value(mated_in(2)), Score::Mate(-2));
        assert_eq!(Score::from_value(123), Score::Cp(123));
        assert!(is_mate_score(mate_in(MAX_PLY)) && !is_mate_score(VALUE_EVAL_MAX));
    }
}
