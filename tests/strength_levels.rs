//! The strength levels through the real binary: `SkillLevel` and `USI_LimitStrength`/`USI_Elo`
//! weaken the search (a small node budget, a choice among its best lines that varies from game
//! to game), a weak level still never leaves its king mated in one, and full strength, the
//! default, searches one line as before.

mod common;

use common::engine::{is_best, Engine};
use hayate::position::Position;
use hayate::types::Move;
use std::collections::BTreeSet;

/// The largest node count that `info` lines report.
fn most_nodes(lines: &[String]) -> u64 {
    lines
        .iter()
        .filter_map(|l| l.split_whitespace().skip_while(|&w| w != "nodes").nth(1))
        .filter_map(|n| n.parse::<u64>().ok())
        .max()
        .unwrap_or(0)
}

/// The move of one `go`, with the largest node count its `info` lines reported.
fn search(engine: &mut Engine, position: &str, go: &str) -> (String, u64, Vec<String>) {
    engine.send(&format!("{position}\n{go}\n"));
    let lines = engine.until(is_best);
    let nodes = most_nodes(&lines);
    let best = lines.last().expect("bestmove").split_whitespace().nth(1).expect("a move").to_string();
    (best, nodes, lines)
}

/// `usi`, the options, `isready`; returns the `usi` answer.
fn ready(engine: &mut Engine, options: &[(&str, &str)]) -> Vec<String> {
    engine.send("usi\n");
    let declared = engine.until(|l| l == "usiok");
    for (name, value) in options {
        engine.send(&format!("setoption name {name} value {value}\n"));
    }
    engine.send("isready\n");
    engine.until(|l| l == "readyok");
    declared
}

/// The `min` of the spin option `name` in a `usi` answer.
fn minimum(declared: &[String], name: &str) -> String {
    let line = declared.iter().find(|l| l.starts_with(&format!("option name {name} "))).expect(name);
    line.split_whitespace().skip_while(|&w| w != "min").nth(1).expect("a min").to_string()
}

fn legal(position: &Position, usi: &str) -> Move {
    let mv = Move::from_usi(usi).unwrap_or_else(|| panic!("'{usi}' is not a move"));
    assert!(position.is_legal_move(mv), "{usi} is not legal in {}", position.to_sfen());
    mv
}

#[test]
fn the_weakest_level_reads_little_and_varies_its_moves() {
    let mut engine = Engine::start();
    ready(&mut engine, &[("SkillLevel", "0"), ("USI_Hash", "16")]);
    let start = Position::startpos();
    let mut moves = BTreeSet::new();
    for _ in 0..12 {
        engine.send("usinewgame\n");
        let (best, nodes, lines) = search(&mut engine, "position startpos", "go byoyomi 1000");
        legal(&start, &best);
        // Level 0's budget is 128 nodes; depth 1 of four lines is searched in full whatever it
        // costs (a few hundred nodes).
        assert!(nodes < 2_000, "{nodes} nodes:\n{}", lines.join("\n"));
        assert!(lines.iter().any(|l| l.contains(" multipv 4 ")), "four lines:\n{}", lines.join("\n"));
        moves.insert(best);
    }
    assert!(moves.len() >= 2, "twelve games, always {moves:?}");
    engine.quit();
}

#[test]
fn a_weak_level_never_leaves_a_mate_in_one() {
    // Black's king on 5i, a white pawn on 5g and a gold in white's hand: G*5h mates unless the
    // king steps away (or something covers 5h).
    let sfen = "4k4/9/9/9/9/9/4p4/9/4K4 b Pg 1";
    let position = Position::from_sfen(sfen).expect("sfen");
    let mut engine = Engine::start();
    let declared = ready(&mut engine, &[("USI_LimitStrength", "true"), ("USI_Hash", "16")]);
    // The lowest rating: the weakest level.
    engine.send(&format!("setoption name USI_Elo value {}\n", minimum(&declared, "USI_Elo")));
    for _ in 0..10 {
        engine.send("usinewgame\n");
        let (best, _, _) = search(&mut engine, &format!("position sfen {sfen}"), "go byoyomi 1000");
        let mut after = position.clone();
        after.do_move(legal(&position, &best));
        assert_eq!(after.mate_in_one(), None, "{best} leaves a mate in one");
    }
    engine.quit();
}

#[test]
fn full_strength_searches_one_line_and_a_rating_below_the_ladder_is_refused() {
    let mut engine = Engine::start();
    ready(&mut engine, &[("USI_Hash", "16")]);
    let (best, _, lines) = search(&mut engine, "position startpos", "go depth 6");
    legal(&Position::startpos(), &best);
    assert!(!lines.iter().any(|l| l.contains(" multipv 2 ")), "{}", lines.join("\n"));
    // A rating below the ladder is refused with a message and leaves the option as it was.
    engine.send("setoption name USI_Elo value -5\n");
    let (said, _) = engine.until_within(std::time::Duration::from_secs(5), |l| l.starts_with("info string"));
    assert!(said.last().is_some_and(|l| l.contains("USI_Elo")), "{said:?}");
    engine.quit();
}

#[test]
fn a_weak_level_keeps_its_budget_while_pondering() {
    let mut engine = Engine::start();
    ready(&mut engine, &[("SkillLevel", "0"), ("USI_Hash", "16"), ("USI_Ponder", "true")]);
    engine.send("position startpos moves 7g7f 3c3d\ngo ponder btime 0 wtime 0 byoyomi 1000\n");
    // A second of pondering: the full engine would read hundreds of thousands of nodes.
    let pondered = engine.drain(std::time::Duration::from_secs(1));
    assert!(!pondered.iter().any(|l| is_best(l)), "no bestmove before ponderhit: {pondered:?}");
    engine.send("ponderhit\n");
    let lines: Vec<String> = pondered.into_iter().chain(engine.until(is_best)).collect();
    let nodes = most_nodes(&lines);
    assert!(nodes < 5_000, "{nodes} nodes:\n{}", lines.join("\n"));
    engine.quit();
}
