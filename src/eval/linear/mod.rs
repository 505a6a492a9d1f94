//! The linear evaluation: needs no file, its weights are in the binary. A linear function of the
//! features in `features.rs` with the weights in `weights.rs`, tuned on the engine's own self-play games (`hayate tune`).
//!
//! Its placement part (material, tables, places relative to the kings, hands) changes only where
//! a move changes the board, so a search keeps it incrementally ([`LinearState`]); the attack part
//! is computed at each evaluation.

pub mod features;
pub mod weights;

use crate::position::Position;
use crate::types::{Color, Move, PieceType, Value, VALUE_EVAL_MAX};
use features::{extract, extract_dynamic, extract_placement, hand_feature, piece_features, Scorer};
use weights::WEIGHTS;

/// The static evaluation for the side to move.
pub fn evaluate(pos: &Position) -> Value {
    let mut scorer = Scorer { weights: &WEIGHTS, total: 0 };
    extract(pos, &mut scorer);
    for_side_to_move(pos, scorer.total)
}

/// Black's score `v` for the side to move of `pos`, clamped.
#[inline(always)]
fn for_side_to_move(pos: &Position, v: i32) -> Value {
    let v = if pos.side_to_move() == Color::Black { v } else { -v };
    v.clamp(-VALUE_EVAL_MAX, VALUE_EVAL_MAX)
}

/// The placement part of `pos`'s score, black's view, from scratch.
fn placement(pos: &Position) -> i32 {
    let mut scorer = Scorer { weights: &WEIGHTS, total: 0 };
    extract_placement(pos, &mut scorer);
    scorer.total
}

/// How much `m` (legal in `before`) changes the placement part, black's view; None when it moves
/// a king (every piece's place relative to that king changes: recompute).
#[inline(always)]
fn placement_change(before: &Position, m: Move) -> Option<i32> {
    let us = before.side_to_move();
    let mut d = Scorer { weights: &WEIGHTS, total: 0 };
    let kings = |c: Color| (before.king_square(c), before.king_square(!c));
    if m.is_drop() {
        let pt = m.dropped_piece();
        let (own, enemy) = kings(us);
        hand_feature(us, pt, before.hand(us).count(pt), -1, &mut d);
        piece_features(crate::types::Piece::new(us, pt), m.to(), own, enemy, &mut d);
        return Some(d.total);
    }
    let pc = before.piece_on(m.from())?;
    if pc.piece_type() == PieceType::King {
        return None;
    }
    let (own, enemy) = kings(us);
    let mut removed = Scorer { weights: &WEIGHTS, total: 0 };
    piece_features(pc, m.from(), own, enemy, &mut removed);
    let after = if m.is_promotion() { crate::types::Piece::new(us, pc.piece_type().promote()) } else { pc };
    piece_features(after, m.to(), own, enemy, &mut d);
    if let Some(cap) = before.piece_on(m.to()) {
        if cap.piece_type() == PieceType::King {
            return None;
        }
        let (their_own, their_enemy) = kings(!us);
        piece_features(cap, m.to(), their_own, their_enemy, &mut removed);
        let kind = cap.piece_type().unpromote();
        hand_feature(us, kind, before.hand(us).count(kind) + 1, 1, &mut d);
    }
    Some(d.total - removed.total)
}

/// The placement part kept incrementally while a search follows the moves: black's view, one
/// entry per ply followed, None where a king move asks for a recomputation (done on first need).
#[derive(Clone, Debug, Default)]
pub struct LinearState {
    stack: Vec<Option<i32>>,
}

impl LinearState {
    /// Starts following `pos`.
    pub fn reset(&mut self, pos: &Position) {
        self.stack.clear();
        self.stack.push(Some(placement(pos)));
    }

    /// The evaluation for the side to move of `pos`, the position this state follows; equal to
    /// [`evaluate`].
    #[inline]
    pub fn evaluate(&mut self, pos: &Position) -> Value {
        let p = match self.stack.last_mut() {
            Some(Some(v)) => *v,
            Some(slot) => *slot.insert(placement(pos)),
            None => placement(pos),
        };
        debug_assert_eq!(p, placement(pos), "incremental placement of {}", pos.to_sfen());
        let mut scorer = Scorer { weights: &WEIGHTS, total: p };
        extract_dynamic(pos, &mut scorer);
        for_side_to_move(pos, scorer.total)
    }

    #[inline]
    pub fn on_do_move(&mut self, before: &Position, m: Move) {
        let next = match self.stack.last_mut() {
            Some(top) => {
                let base = match top {
                    Some(v) => *v,
                    None => *top.insert(placement(before)),
                };
                placement_change(before, m).map(|d| base + d)
            }
            None => None,
        };
        self.stack.push(next);
    }

    #[inline]
    pub fn on_undo_move(&mut self) {
        self.stack.pop();
    }

    #[inline]
    pub fn on_do_null_move(&mut self) {
        let top = self.stack.last().copied().flatten();
        self.stack.push(top);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The position with colours swapped and the board rotated: the same position for the
    /// other side.
    fn mirrored(sfen: &str) -> Position {
        let pos = Position::from_sfen(sfen).unwrap();
        let fields: Vec<&str> = sfen.split_whitespace().collect();
        let swap_case = |s: &str| {
            s.chars()
                .map(|c| if c.is_ascii_uppercase() { c.to_ascii_lowercase() } else { c.to_ascii_uppercase() })
                .collect::<String>()
        };
        let board: String = swap_case(fields[0]).chars().rev().collect::<String>();
        // Reversing moves a '+' behind its piece letter; put it back in front.
        let mut fixed = String::new();
        let chars: Vec<char> = board.chars().collect();
        let mut i = 0;
        while i < chars.len() {
            if i + 1 < chars.len() && chars[i + 1] == '+' {
                fixed.push('+');
                fixed.push(chars[i]);
                i += 2;
            } else {
                fixed.push(chars[i]);
                i += 1;
            }
        }
        let side = if pos.side_to_move() == Color::Black { "w" } else { "b" };
        let hand = if fields[2] == "-" { "-".to_string() } else { swap_case(fields[2]) };
        Position::from_sfen(&format!("{fixed} {side} {hand} 1")).unwrap()
    }

    #[test]
    fn colour_symmetric() {
        let bench = include_str!("../../../tests/data/bench.sfen");
        for sfen in bench.lines().map(str::trim).filter(|l| !l.is_empty() && !l.starts_with('#')) {
            let pos = Position::from_sfen(sfen).unwrap();
            assert_eq!(evaluate(&pos), evaluate(&mirrored(sfen)), "{sfen}");
        }
        let start = Position::startpos();
        let flipped =
            Position::from_sfen("lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL w - 1").unwrap();
        assert_eq!(evaluate(&start), evaluate(&flipped));
    }

    #[test]
    fn material_aware() {
        // Black is a rook up.
        let up =
            Position::from_sfen("lnsgkgsnl/7b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b R 1").unwrap();
        assert!(evaluate(&up) > 600, "{}", evaluate(&up));
        let up_w =
            Position::from_sfen("lnsgkgsnl/7b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL w R 1").unwrap();
        assert!(evaluate(&up_w) < -600, "{}", evaluate(&up_w));
    }

    /// The incremental state equals the evaluation from scratch along random games, through
    /// captures, promotions, drops, king moves, null moves and take-backs.
    #[test]
    fn incremental_matches_evaluate() {
        use crate::position::MoveList;
        let mut seed = 12345u64;
        let mut rand = || crate::splitmix::next(&mut seed);
        let bench = include_str!("../../../tests/data/bench.sfen");
        let (mut checked, mut king_moves) = (0, 0);
        for sfen in bench.lines().map(str::trim).filter(|l| !l.is_empty() && !l.starts_with('#')) {
            let mut pos = Position::from_sfen(sfen).unwrap();
            let mut state = LinearState::default();
            state.reset(&pos);
            let mut made = Vec::new();
            for ply in 0..120 {
                assert_eq!(state.evaluate(&pos), evaluate(&pos), "{}", pos.to_sfen());
                checked += 1;
                let moves: Vec<Move> = MoveList::legal(&pos, true).iter().copied().collect();
                if moves.is_empty() {
                    break;
                }
                // Now and then take a move back, or pass (not in check).
                if ply % 7 == 6 {
                    if let Some(m) = made.pop() {
                        pos.undo_move(m);
                        state.on_undo_move();
                        continue;
                    }
                }
                if ply % 11 == 10 && !pos.in_check() {
                    state.on_do_null_move();
                    pos.do_null_move();
                    assert_eq!(state.evaluate(&pos), evaluate(&pos), "{}", pos.to_sfen());
                    pos.undo_null_move();
                    state.on_undo_move();
                }
                let m = moves[rand() as usize % moves.len()];
                king_moves +=
                    (!m.is_drop() && pos.piece_on(m.from()).unwrap().piece_type() == PieceType::King) as u32;
                state.on_do_move(&pos, m);
                pos.do_move(m);
                made.push(m);
            }
        }
        assert!(checked > 1000 && king_moves > 20, "{checked} positions, {king_moves} king moves");
    }
}
