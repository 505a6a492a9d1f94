//! The fast part of the mate suite (`tests/data/mate_suite.tsv`, run whole by `make bench-mate`),
//! through the real binary: the generated rows (`GEN_`) of at most [`FAST_PLIES`] plies answered
//! by `go mate` with their exact length, and the same answers from a table of 1 MiB
//! (`MateHash 1`, 32768 entries; the largest of these problems searches 680 000 nodes), which
//! must keep working when full: the answers unchanged, `hashfull` never above the mark at which
//! the table is collected.
//!
//! Each line is replayed here with the rules library: every move legal, every attacker move a
//! check, the last position checkmate. The rows' lengths count every interposition, so these runs
//! set `TsumeConvention` off; one more run leaves it on (`go mate`'s default), where a defender
//! with only futile interpositions left is mated and the lines may be shorter.

mod common;

use common::engine::Engine;
use hayate::position::{MoveList, Position};
use hayate::types::Move;
use std::time::Duration;

/// The generated rows the tests take: these lengths solve in about a million nodes together (the
/// longer ones, up to 15 plies, take ten times that; `make bench-mate` runs them).
const FAST_PLIES: usize = 9;
/// `hashfull` never goes above this (`GC_HIGH_PERMILLE` of src/mate/table.rs).
const HASHFULL_MAX: usize = 875;

/// The longest any one answer may take (a loaded machine; the rows take milliseconds).
const ANSWER: Duration = Duration::from_secs(60);

/// Replays `answer` (`checkmate m1 m2 ...`) from `sfen`: the number of plies of a valid mating
/// line, or why it is not one.
fn mating_line(sfen: &str, answer: &str) -> Result<usize, String> {
    let moves: Vec<&str> = answer.split(' ').skip(1).collect();
    if moves.is_empty() || matches!(moves[0], "nomate" | "timeout" | "notimplemented") {
        return Err(format!("no mate: {answer}"));
    }
    let mut pos = Position::from_sfen(sfen).map_err(|e| format!("{e:?}"))?;
    for (i, m) in moves.iter().enumerate() {
        let mv = Move::from_usi(m).ok_or_else(|| format!("{m} unreadable"))?;
        if !pos.is_legal_move(mv) {
            return Err(format!("ply {}: {m} illegal", i + 1));
        }
        pos.do_move(mv);
        if i % 2 == 0 && !pos.in_check() {
            return Err(format!("ply {}: {m} does not check", i + 1));
        }
    }
    if !pos.in_check() || !MoveList::legal(&pos, true).is_empty() {
        return Err("not checkmate at the end".to_string());
    }
    Ok(moves.len())
}

/// `hashfull N` of the last `info` line before the answer.
fn hashfull(lines: &[String]) -> Option<usize> {
    let info = lines.iter().rev().find(|l| l.starts_with("info "))?;
    let mut words = info.split(' ');
    words.by_ref().find(|&w| w == "hashfull")?;
    words.next()?.parse().ok()
}

/// One row's answer: (name, plies or why not, hashfull, the `checkmate` line).
type Answer = (String, Result<usize, String>, Option<usize>, String);

/// Solves every `GEN_` row with `MateHash` `mb`, by tsume convention or not.
fn solve_generated(mb: usize, convention: bool) -> Vec<Answer> {
    let mut e = Engine::start();
    e.send_line("usi");
    e.until_within(ANSWER, |l| l == "usiok");
    e.send_line(&format!("setoption name MateHash value {mb}"));
    e.send_line(&format!("setoption name TsumeConvention value {convention}"));
    e.send_line("isready");
    e.until_within(ANSWER, |l| l == "readyok");
    let mut out = Vec::new();
    for row in fast_rows() {
        e.send_line(&format!("position sfen {}", row[1]));
        e.send_line("go mate 20000");
        let (lines, _) = e.until_within(ANSWER, |l| l.starts_with("checkmate"));
        let answer = lines.last().expect("an answer");
        out.push((row[0].clone(), mating_line(&row[1], answer), hashfull(&lines), answer.clone()));
    }
    out
}

fn fast_rows() -> Vec<Vec<String>> {
    common::tsv_rows("mate_suite.tsv")
        .into_iter()
        .filter(|r| r[0].starts_with("GEN_") && r[2].parse::<usize>().expect("mate_plies") <= FAST_PLIES)
        .collect()
}

/// The rows solved with `MateHash` `mb`: each must have its exact length and `hashfull` at most
/// [`HASHFULL_MAX`].
fn assert_exact(mb: usize) {
    let want = fast_rows();
    assert_eq!(want.len(), 30, "generated rows of at most {FAST_PLIES} plies");
    let got = solve_generated(mb, false);
    let wrong: Vec<String> = want
        .iter()
        .zip(&got)
        .filter(|(row, (_, line, full, _))| {
            line.as_ref() != Ok(&row[2].parse().expect("mate_plies")) || full.is_none_or(|f| f > HASHFULL_MAX)
        })
        .map(|(row, (name, line, full, _))| {
            format!("{name}: want {}, got {line:?}, hashfull {full:?}", row[2])
        })
        .collect();
    assert!(wrong.is_empty(), "MateHash {mb}:\n{}", wrong.join("\n"));
}

#[test]
fn generated_rows_are_mated_exactly() {
    assert_exact(16);
}

#[test]
fn a_one_mebibyte_table_gives_the_same_answers() {
    assert_exact(1);
}

/// By tsume convention (the default): every line a mate by convention (`verify_line_by`), never
/// longer than the row's plain length; and some shorter, or ending where the defender still has
/// drops (all futile): the convention is at work.
#[test]
fn by_tsume_convention_futile_interpositions_do_not_count() {
    let want = fast_rows();
    let got = solve_generated(16, true);
    let (mut shorter, mut futile_end) = (0, 0);
    for (row, (name, _, _, answer)) in want.iter().zip(&got) {
        let plain: usize = row[2].parse().expect("mate_plies");
        let pos = Position::from_sfen(&row[1]).unwrap();
        let moves: Vec<Move> = answer.split(' ').skip(1).map(|m| Move::from_usi(m).expect(answer)).collect();
        if let Err(e) = hayate::mate::verify_line_by(&pos, &moves, true) {
            panic!("{name}: {answer}: {e}");
        }
        assert!(moves.len() <= plain, "{name}: {} plies by convention, {plain} plain", moves.len());
        shorter += usize::from(moves.len() < plain);
        let mut end = pos.clone();
        for &m in &moves {
            end.do_move(m);
        }
        futile_end += usize::from(!MoveList::legal(&end, true).is_empty());
    }
    // GEN_58_156 (9 plies plain, 7 by convention), GEN_58_268 and GEN_58_322 (lines that end
    // where the defender can only drop in vain).
    assert!(shorter >= 1 && futile_end >= 2, "shorter {shorter}, ending in futile drops {futile_end}");
}
