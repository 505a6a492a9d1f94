//! Parsing `position startpos|sfen ... [moves ...]`.
//!
//! The SFEN move number is ignored for the game length (ShogiHome always sends 1): the game ply
//! counts the moves after `moves`, starting from 1. An illegal move stops the replay there: the
//! position is the one before it, and the problem is reported.

use crate::position::{Position, STARTPOS};
use crate::types::Move;

/// The outcome of a `position` command.
pub enum Parsed {
    /// The position, and a warning when the move list was cut at an illegal move.
    Ok(Box<Position>, Option<String>),
    /// Nothing usable (bad SFEN or syntax): the engine keeps its previous position.
    Err(String),
}

pub fn parse_position(tokens: &[&str]) -> Parsed {
    let moves_at = tokens.iter().position(|&t| t == "moves");
    let (head, moves) = match moves_at {
        Some(i) => (&tokens[..i], &tokens[i + 1..]),
        None => (tokens, &[][..]),
    };
    let mut pos = match head {
        ["startpos"] => Position::from_sfen(STARTPOS).expect("startpos is valid"),
        ["sfen", fields @ ..] if !fields.is_empty() => match Position::from_sfen(&fields.join(" ")) {
            Ok(p) => p,
            Err(e) => return Parsed::Err(format!("position: {e}; keeping the previous position")),
        },
        [] => {
            return Parsed::Err(
                "position: expected 'startpos' or 'sfen'; keeping the previous position".into(),
            )
        }
        other => {
            return Parsed::Err(format!(
                "position: expected 'startpos' or 'sfen <sfen>', got '{}'; keeping the previous position",
                other.join(" ")
            ))
        }
    };
    pos.set_game_ply(1);
    for (i, text) in moves.iter().enumerate() {
        match Move::from_usi(text) {
            Some(m) if pos.is_legal_move(m) => pos.do_move(m),
            _ => {
                return Parsed::Ok(
                    Box::new(pos),
                    Some(format!(
                        "position: move {} '{text}' is illegal; position set to the one before it",
                        i + 1
                    )),
                )
            }
        }
    }
    Parsed::Ok(Box::new(pos), None)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(line: &str) -> Parsed {
        let tokens: Vec<&str> = line.split_whitespace().collect();
        parse_position(&tokens)
    }

    #[test]
    fn forms_seen_in_practice() {
        let Parsed::Ok(p, None) = parse("startpos") else { panic!() };
        assert_eq!(p.game_ply(), 1);
        let Parsed::Ok(p, None) = parse("startpos moves") else { panic!() };
        assert_eq!(p.moves_played(), 0);
        let Parsed::Ok(p, None) = parse("startpos moves 7g7f 3c3d") else { panic!() };
        assert_eq!((p.game_ply(), p.moves_played()), (3, 2));
        let Parsed::Ok(p, None) =
            parse("sfen lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL w - 1 moves 3c3d")
        else {
            panic!()
        };
        assert_eq!(p.game_ply(), 2);
        let Parsed::Ok(p, None) =
            parse("sfen lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 57")
        else {
            panic!()
        };
        assert_eq!(p.game_ply(), 1);
    }

    #[test]
    fn bad_input() {
        let Parsed::Ok(p, Some(w)) = parse("startpos moves 7g7f 7g7f 3c3d") else { panic!() };
        assert_eq!(p.moves_played(), 1);
        assert!(w.contains("move 2"));
        assert!(matches!(parse("sfen xyz b - 1"), Parsed::Err(_)));
        assert!(matches!(parse(""), Parsed::Err(_)));
        assert!(matches!(parse("startpos 7g7f"), Parsed::Err(_)));
        assert!(matches!(parse("sfen"), Parsed::Err(_)));
    }
}
