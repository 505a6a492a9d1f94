//! The embedded evaluation: needs no file. A linear function of the features in `features.rs`
//! with the weights in `weights.rs`, tuned on the engine's own self-play games (`hayate tune`).

use super::features::{extract, Scorer};
use super::weights::WEIGHTS;
use crate::position::Position;
use crate::types::{Color, Value, VALUE_EVAL_MAX};

/// The static evaluation for the side to move.
pub fn evaluate(pos: &Position) -> Value {
    let mut scorer = Scorer { weights: &WEIGHTS, total: 0 };
    extract(pos, &mut scorer);
    let v = if pos.side_to_move() == Color::Black { scorer.total } else { -scorer.total };
    v.clamp(-VALUE_EVAL_MAX, VALUE_EVAL_MAX)
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
        let bench = include_str!("../../tests/data/bench.sfen");
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
}
