//! Parsing `go` (and the clock that `ponderhit` may carry) into `Limits`, or into the request of
//! `go mate` or `go perft`. Tokens come in any subset and order; numbers may be fractional;
//! unknown tokens are reported and skipped.

use crate::engine::mate::MateRequest;
use crate::position::Position;
use crate::search::Limits;
use crate::types::{Color, Move, MAX_PLY};

/// What a `go` line asks for.
#[derive(Clone, Debug, PartialEq)]
pub enum GoCommand {
    Search(Limits),
    Perft(u32),
    /// `go mate [<ms> | infinite] [nodes <n>]`.
    Mate(MateRequest),
}

/// The number after a keyword, rounded to a whole number (it may be negative or fractional).
fn signed(tok: Option<&&str>, what: &str) -> Result<f64, String> {
    let tok = tok.ok_or_else(|| format!("'{what}' needs a number"))?;
    let v: f64 = tok.parse().map_err(|_| format!("'{what}' needs a number, not '{tok}'"))?;
    if !v.is_finite() {
        return Err(format!("'{what}' needs a finite number, not '{tok}'"));
    }
    Ok(v.round())
}

/// A number of milliseconds (or nodes); fractions are rounded, negatives become zero (GUIs send
/// a negative clock when a side has overstepped, so that is no mistake worth a message).
fn number(tok: Option<&&str>, what: &str) -> Result<u64, String> {
    Ok(signed(tok, what)?.max(0.0) as u64)
}

/// A count that no GUI sends negative (`nodes`, `movetime`): a negative one counts as zero, with
/// a warning.
fn count(tok: Option<&&str>, what: &str, warnings: &mut Vec<String>) -> Result<u64, String> {
    let v = signed(tok, what)?;
    if v < 0.0 {
        warnings.push(format!("go: {what} must not be negative, not {v}; using 0"));
    }
    Ok(v.max(0.0) as u64)
}

/// A depth for `depth` or `perft`: `1..=max`; one outside is brought inside with a warning.
fn depth(tok: Option<&&str>, what: &str, max: u32, warnings: &mut Vec<String>) -> Result<u32, String> {
    let v = signed(tok, what)?;
    let d = v.clamp(1.0, f64::from(max));
    if d != v {
        warnings.push(format!("go: {what} must be from 1 to {max}, not {v}; using {d}"));
    }
    Ok(d as u32)
}

/// Whether a token has the shape of a USI move (so a malformed one is not taken for a `go` keyword).
fn looks_like_move(t: &str) -> bool {
    let b = t.as_bytes();
    (b.len() == 4 || b.len() == 5) && (b[0].is_ascii_digit() || b[1] == b'*')
}

/// Parses the tokens after `go` (or after `ponderhit`). `pos` validates `searchmoves`.
/// Returns the command and warnings about what was skipped.
pub fn parse_go(tokens: &[&str], pos: &Position) -> Result<(GoCommand, Vec<String>), String> {
    let mut l = Limits::default();
    let mut warnings = Vec::new();
    let mut perft = None;
    // `go mate`: the time limit in ms, `None` for infinite.
    let mut mate: Option<Option<u64>> = None;
    let mut i = 0;
    while i < tokens.len() {
        let t = tokens[i];
        let next = tokens.get(i + 1);
        let mut used = 2;
        match t {
            "btime" => l.time[Color::Black.index()] = Some(number(next, t)?),
            "wtime" => l.time[Color::White.index()] = Some(number(next, t)?),
            "binc" => l.inc[Color::Black.index()] = number(next, t)?,
            "winc" => l.inc[Color::White.index()] = number(next, t)?,
            "byoyomi" => l.byoyomi = number(next, t)?,
            "movetime" => l.movetime = Some(count(next, t, &mut warnings)?),
            "movestogo" => {
                number(next, t)?;
            }
            "depth" => l.depth = Some(depth(next, t, MAX_PLY as u32, &mut warnings)? as i32),
            "nodes" => l.nodes = Some(count(next, t, &mut warnings)?),
            "perft" => perft = Some(depth(next, t, crate::tools::perft::MAX_DEPTH, &mut warnings)?),
            "infinite" => {
                l.infinite = true;
                used = 1;
            }
            "ponder" => {
                l.ponder = true;
                used = 1;
            }
            "mate" => match next {
                Some(&"infinite") => mate = Some(None),
                Some(n) if n.parse::<f64>().is_ok() => {
                    let ms = signed(next, t)?;
                    if ms < 0.0 {
                        warnings.push(format!("go mate: the time must not be negative, not {ms}; using 0"));
                    }
                    mate = Some(Some(ms.max(0.0) as u64));
                }
                _ => {
                    mate = Some(None);
                    used = 1;
                }
            },
            "searchmoves" => {
                let mut j = i + 1;
                while j < tokens.len() {
                    match Move::from_usi(tokens[j]) {
                        Some(m) if pos.is_legal_move(m) => l.searchmoves.push(m),
                        Some(_) => {
                            warnings.push(format!("searchmoves: {} is not legal here, ignored", tokens[j]))
                        }
                        None if looks_like_move(tokens[j]) => {
                            warnings.push(format!("searchmoves: '{}' is not a move, ignored", tokens[j]))
                        }
                        None => break,
                    }
                    j += 1;
                }
                used = j - i;
            }
            _ => {
                warnings.push(format!("go: unknown token '{t}' ignored"));
                used = 1;
            }
        }
        i += used;
    }
    Ok((
        if let Some(d) = perft {
            GoCommand::Perft(d)
        } else if let Some(time_ms) = mate {
            GoCommand::Mate(MateRequest { time_ms, nodes: l.nodes })
        } else {
            GoCommand::Search(l)
        },
        warnings,
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn go(line: &str) -> GoCommand {
        let tokens: Vec<&str> = line.split_whitespace().collect();
        parse_go(&tokens, &Position::startpos()).unwrap().0
    }

    #[test]
    fn any_subset_any_order() {
        let GoCommand::Search(l) = go("byoyomi 1000 wtime 2000 btime 3000.6 ponder") else { panic!() };
        assert_eq!(l.time, [Some(3001), Some(2000)]);
        assert_eq!(l.byoyomi, 1000);
        assert!(l.ponder && l.has_clock());
        let GoCommand::Search(l) = go("movetime 0.9") else { panic!() };
        assert_eq!(l.movetime, Some(1));
        let GoCommand::Search(l) = go("") else { panic!() };
        assert!(!l.has_clock() && !l.infinite);
        let GoCommand::Search(l) = go("infinite searchmoves 7g7f 2g2f 9a9b depth 3") else { panic!() };
        assert!(l.infinite);
        assert_eq!(l.searchmoves.len(), 2);
        assert_eq!(l.depth, Some(3));
        assert_eq!(go("perft 3"), GoCommand::Perft(3));
        let GoCommand::Mate(r) = go("mate 1000") else { panic!() };
        assert_eq!(r.time_ms, Some(1000));
        let GoCommand::Mate(r) = go("mate infinite") else { panic!() };
        assert_eq!(r.time_ms, None);
        let GoCommand::Mate(r) = go("mate nodes 5000") else { panic!() };
        assert_eq!((r.time_ms, r.nodes), (None, Some(5000)));
        let GoCommand::Mate(r) = go("mate") else { panic!() };
        assert_eq!(r, MateRequest { time_ms: None, nodes: None });
    }

    #[test]
    fn bad_numbers_are_errors() {
        let p = Position::startpos();
        assert!(parse_go(&["btime"], &p).is_err());
        assert!(parse_go(&["btime", "x"], &p).is_err());
        assert!(parse_go(&["btime", "inf"], &p).is_err());
        let (_, w) = parse_go(&["foo", "btime", "5"], &p).unwrap();
        assert_eq!(w.len(), 1);
    }

    #[test]
    fn numbers_out_of_range_are_brought_inside_with_a_warning() {
        let p = Position::startpos();
        let parse = |line: &str| {
            let tokens: Vec<&str> = line.split_whitespace().collect();
            parse_go(&tokens, &p).unwrap()
        };
        for (line, want) in [("depth 0", 1), ("depth -3", 1), ("depth 0.4", 1), ("depth 100000", MAX_PLY)] {
            let (GoCommand::Search(l), w) = parse(line) else { panic!("{line}") };
            assert_eq!((l.depth, w.len()), (Some(want), 1), "{line}");
        }
        let (GoCommand::Search(l), w) = parse("depth 7 btime -5 wtime -5") else { panic!() };
        assert_eq!((l.depth, l.time, w.len()), (Some(7), [Some(0), Some(0)], 0));
        assert_eq!(
            parse("perft 0"),
            (GoCommand::Perft(1), vec!["go: perft must be from 1 to 64, not 0; using 1".to_string()])
        );
        let (cmd, w) = parse("perft 1000");
        assert_eq!((cmd, w.len()), (GoCommand::Perft(crate::tools::perft::MAX_DEPTH), 1));
        assert_eq!(parse("perft 5").1.len(), 0);
        for line in ["nodes -5", "movetime -1"] {
            let (GoCommand::Search(l), w) = parse(line) else { panic!("{line}") };
            assert_eq!((l.nodes.or(l.movetime), w.len()), (Some(0), 1), "{line}");
        }
        let (GoCommand::Mate(r), w) = parse("mate -3") else { panic!() };
        assert_eq!((r.time_ms, w.len()), (Some(0), 1));
    }
}
