//! Every row of `tests/data/rules.tsv` (repetition, perpetual check, declaration under each rule,
//! the move limit, pawn-drop mate, no legal move) gives the expected verdict.

mod common;

use hayate::position::{Declaration, DeclarationRule, MoveList, Position, Repetition};
use hayate::search::{Limits, Recorder, SearchConfig, ThreadPool, TranspositionTable};
use hayate::types::{Move, Score};
use std::sync::Arc;

struct Row {
    name: String,
    sfen: String,
    moves: Vec<Move>,
    expected: String,
}

fn rows() -> Vec<Row> {
    common::tsv_rows("rules.tsv")
        .into_iter()
        .map(|f| Row {
            name: f[0].clone(),
            sfen: f[1].clone(),
            moves: f[2].split_whitespace().map(|m| Move::from_usi(m).unwrap()).collect(),
            expected: f[4].clone(),
        })
        .collect()
}

/// Searches to `depth` with the move limit set; returns the last reported score.
fn search_score(pos: &Position, depth: i32, max_moves: u32) -> Score {
    // The default evaluation (the embedded net), as the engine plays.
    let mut pool = ThreadPool::new(1);
    let recorder = Arc::new(Recorder::default());
    let config = SearchConfig { max_moves_to_draw: max_moves, ..SearchConfig::default() };
    let limits = Limits { depth: Some(depth), ..Limits::default() };
    pool.start(pos, limits, config, Arc::new(TranspositionTable::new(16)), recorder.clone());
    pool.finish();
    recorder.last_info().expect("at least one info line").score
}

fn declaration_verdict(d: Declaration) -> &'static str {
    match d {
        Declaration::Win => "WIN",
        Declaration::Draw => "DRAW",
        _ => "NONE",
    }
}

#[test]
fn every_rules_row() {
    let rows = rows();
    assert_eq!(rows.len(), 20);
    for r in rows {
        let mut pos = Position::from_sfen(&r.sfen).unwrap_or_else(|e| panic!("{}: {e}", r.name));
        let n = r.moves.len();
        for (i, &m) in r.moves.iter().enumerate() {
            if r.name.starts_with("pawn_") {
                break;
            }
            assert!(pos.is_legal_move(m), "{}: move {m} illegal", r.name);
            if i + 1 == n && n > 0 {
                assert_eq!(pos.fourfold_repetition(), None, "{}: repetition before the last move", r.name);
            }
            pos.do_move(m);
        }
        let e = r.expected.as_str();
        match r.name.as_str() {
            name if name.starts_with("sennichite")
                || name.starts_with("perpetual")
                || name.starts_with("repetition") =>
            {
                let want = if e.starts_with("DRAW") {
                    Repetition::Draw
                } else if (e.starts_with("BLACK LOSES") && pos.side_to_move() == hayate::types::Color::Black)
                    || (e.contains("WHITE LOSES") && pos.side_to_move() == hayate::types::Color::White)
                {
                    Repetition::Lose
                } else {
                    Repetition::Win
                };
                assert_eq!(pos.fourfold_repetition(), Some(want), "{name}: {e}");
                // The search sees the same verdict at the first recurrence.
                assert_eq!(pos.repetition(64), want, "{name}");
            }
            name if name.starts_with("declare") => {
                let want27 = e.split("27-point(CSA): ").nth(1).unwrap().split(';').next().unwrap().trim();
                let want24 = e.split("24-point: ").nth(1).unwrap().trim();
                assert_eq!(
                    declaration_verdict(pos.declaration(DeclarationRule::CSARule27)),
                    want27,
                    "{name}"
                );
                assert_eq!(
                    declaration_verdict(pos.declaration(DeclarationRule::CSARule24)),
                    want24,
                    "{name}"
                );
                assert_eq!(pos.declaration(DeclarationRule::NoEnteringKing), Declaration::None, "{name}");
            }
            name if name.starts_with("max_moves") => {
                let score = search_score(&pos, 4, 256);
                if e.starts_with("WIN") {
                    assert!(matches!(score, Score::Mate(n) if n > 0), "{name}: {score:?}");
                } else {
                    assert!(matches!(score, Score::Cp(_)), "{name}: must not claim a mate: {score:?}");
                    // Without the limit the mate is there.
                    if name.ends_with("ply257") {
                        assert!(matches!(search_score(&pos, 2, 0), Score::Mate(1)), "{name}");
                    }
                }
            }
            "pawn_drop_mate_illegal" => {
                let drop = r.moves[0];
                assert!(!pos.is_legal_move(drop));
                assert_eq!(MoveList::legal(&pos, true).len(), 76);
            }
            "pawn_push_mate_legal" => {
                let push = r.moves[0];
                assert!(pos.is_legal_move(push));
                pos.do_move(push);
                assert!(pos.in_check() && MoveList::legal(&pos, true).is_empty(), "mate by a pawn move");
            }
            "no_legal_moves_not_in_check" => {
                assert!(!pos.in_check());
                assert!(MoveList::legal(&pos, true).is_empty());
            }
            other => panic!("unhandled row {other}"),
        }
    }
}
