//! Where self-play games start: an opening line from a file, then a few random moves, chosen by a
//! small seeded generator so that a game index always gives the same start.

use super::game::Start;
use crate::position::{MoveList, Position};
use crate::splitmix::mix;
use crate::types::Move;

/// A small deterministic generator (xorshift64*).
#[derive(Clone, Debug)]
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1)
    }

    /// The generator of game `index` of the run seeded `seed`: independent of which shard or
    /// thread plays the game.
    pub fn for_game(seed: u64, index: u64) -> Rng {
        Rng::new(mix(mix(seed).wrapping_add(index).wrapping_add(0x9E37_79B9_7F4A_7C15)))
    }

    /// A number below `n` (0 when `n` is 0).
    pub fn below(&mut self, n: usize) -> usize {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        (self.0.wrapping_mul(0x2545_F491_4F6C_DD1D) >> 33) as usize % n.max(1)
    }
}

/// An opening line: a start position and the moves played from it.
#[derive(Clone, Debug, PartialEq)]
pub struct Opening {
    pub start: Start,
    pub moves: Vec<Move>,
}

impl Opening {
    /// Parses a `position` argument list: `startpos [moves ...]` or `sfen <sfen> [moves ...]`.
    /// Unlike the USI command, the SFEN's move number is kept. Every move must be legal.
    pub fn parse(line: &str) -> Result<Opening, String> {
        let tokens: Vec<&str> = line.split_whitespace().collect();
        let moves_at = tokens.iter().position(|&t| t == "moves").unwrap_or(tokens.len());
        let start = match &tokens[..moves_at] {
            ["startpos"] => Start::Startpos,
            ["sfen", fields @ ..] if !fields.is_empty() => Start::Sfen(fields.join(" ")),
            _ => return Err(format!("opening '{line}': expected 'startpos' or 'sfen <sfen>'")),
        };
        let mut pos = start.position().map_err(|e| format!("opening '{line}': {e}"))?;
        let mut moves = Vec::new();
        for text in tokens.iter().skip(moves_at + 1) {
            match Move::from_usi(text) {
                Some(m) if pos.is_legal_move(m) => {
                    pos.do_move(m);
                    moves.push(m);
                }
                _ => return Err(format!("opening '{line}': move '{text}' is illegal")),
            }
        }
        Ok(Opening { start, moves })
    }

    /// The position at the end of the line, with its history.
    pub fn position(&self) -> Position {
        let mut pos = self.start.position().expect("checked when parsed");
        for &m in &self.moves {
            pos.do_move(m);
        }
        pos
    }
}

/// The largest openings file read (a million lines of 200 bytes): it is read whole, and a path
/// to a device or a huge file is refused before it is.
pub const MAX_OPENINGS_FILE_BYTES: u64 = 256 << 20;

/// Reads an openings file: one `position` argument list a line; blank lines and lines starting
/// with `#` are skipped. An unreadable file or a bad line is an error naming the line.
pub fn read_openings(path: &std::path::Path) -> Result<(Vec<Opening>, Vec<u8>), String> {
    let bytes = crate::engine::user_file::read_regular(path, MAX_OPENINGS_FILE_BYTES)
        .map_err(|e| format!("{}: {e}", path.display()))?;
    let text = std::str::from_utf8(&bytes).map_err(|_| format!("{}: not UTF-8 text", path.display()))?;
    let mut out = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        out.push(Opening::parse(line).map_err(|e| format!("{}:{}: {e}", path.display(), i + 1))?);
    }
    if out.is_empty() {
        return Err(format!("{}: no opening lines", path.display()));
    }
    Ok((out, bytes))
}

/// Plays up to `plies` random moves on `pos`, each among the moves that do not hand material
/// over at once (static exchange >= 0), so the game varies without being decided. Stops early
/// where there is no such move. Returns the moves played.
pub fn random_moves(pos: &mut Position, plies: usize, rng: &mut Rng) -> Vec<Move> {
    let mut played = Vec::with_capacity(plies);
    for _ in 0..plies {
        let list = MoveList::legal(pos, false);
        let moves: Vec<Move> = list.iter().copied().filter(|&m| pos.see_ge(m, 0)).collect();
        if moves.is_empty() {
            break;
        }
        let m = moves[rng.below(moves.len())];
        pos.do_move(m);
        played.push(m);
    }
    played
}

/// The start of a game: an opening (the start position when there are none) picked by `rng`,
/// then `random_plies` random moves. Returns the start, every move played from it (the
/// opening's and the random ones), and the position reached.
pub fn game_start(openings: &[Opening], random_plies: usize, rng: &mut Rng) -> (Start, Vec<Move>, Position) {
    let (start, mut moves, mut pos) = if openings.is_empty() {
        (Start::Startpos, Vec::new(), Position::startpos())
    } else {
        let o = &openings[rng.below(openings.len())];
        (o.start.clone(), o.moves.clone(), o.position())
    };
    moves.extend(random_moves(&mut pos, random_plies, rng));
    (start, moves, pos)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn opening_lines_parse_or_fail_with_the_reason() {
        let o = Opening::parse("startpos moves 7g7f 3c3d").unwrap();
        assert_eq!((o.start.clone(), o.moves.len()), (Start::Startpos, 2));
        assert_eq!(o.position().game_ply(), 3);
        let o = Opening::parse("sfen 4k4/9/9/9/9/9/9/9/4K4 b G 17 moves G*5b").unwrap();
        assert_eq!(o.position().game_ply(), 18);
        for bad in
            ["", "moves 7g7f", "startpos moves 7g7e", "sfen 9/9 b - 1", "startpos 7g7f", "startpos moves x"]
        {
            assert!(Opening::parse(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn starts_are_reproducible_and_vary() {
        let openings: Vec<Opening> = ["startpos moves 7g7f", "startpos moves 2g2f 8c8d"]
            .iter()
            .map(|l| Opening::parse(l).unwrap())
            .collect();
        let a = game_start(&openings, 6, &mut Rng::for_game(1, 5));
        let b = game_start(&openings, 6, &mut Rng::for_game(1, 5));
        assert_eq!(a.2.to_sfen(), b.2.to_sfen());
        assert_eq!(a.1, b.1);
        let distinct: std::collections::HashSet<String> =
            (0..20).map(|i| game_start(&openings, 6, &mut Rng::for_game(1, i)).2.to_sfen()).collect();
        assert!(distinct.len() > 15);
    }
}
