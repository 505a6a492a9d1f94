//! `hayate openings` through the binary, and the committed book `data/openings-8000.txt`.

mod common;

use common::engine::{hayate, Engine};
use hayate::tools::selfplay::opening::Opening;
use std::collections::HashSet;
use std::time::Duration;

/// Each run here takes seconds at most.
const LIMIT: Duration = Duration::from_secs(60);

fn run(args: &[&str]) -> (Option<i32>, String, String) {
    let out = common::engine::run(hayate(&[&["openings"], args].concat()), LIMIT);
    (out.code, out.stdout, out.stderr)
}

#[test]
fn the_command_writes_the_same_legal_lines_with_any_number_of_threads() {
    let args = ["--count", "6", "--depth", "4", "--seed", "3"];
    let (code, one, err) = run(&[&args[..], &["--threads", "1"]].concat());
    assert_eq!(code, Some(0), "{err}");
    assert!(err.contains("openings: 6 written from"), "{err}");
    let lines: Vec<&str> = one.lines().collect();
    assert_eq!(lines.len(), 7);
    assert_eq!(
        lines[0],
        "# hayate openings --count 6 --seed 3 --min-plies 6 --max-plies 12 --depth 4 --margin 120 --eval NNUE"
    );
    for line in &lines[1..] {
        // The match runner reads `startpos moves ...` lines only.
        assert!(line.starts_with("startpos moves "), "{line}");
        let plies = Opening::parse(line).unwrap().moves.len();
        assert!((6..=12).contains(&plies), "{line}");
    }
    let (_, two, _) = run(&[&args[..], &["--threads", "2"]].concat());
    assert_eq!(one, two);
}

#[test]
fn bad_settings_are_refused_without_output() {
    for (args, code, message) in [
        (&["--eval", "Auto"][..], 2, "'Auto' is not one of Material, NNUE, Linear"),
        (&["--min-plies", "9", "--max-plies", "3"][..], 1, "--min-plies <= --max-plies"),
        (&["--count", "0"][..], 1, "--count must be at least 1"),
        (&["--depth", "300"][..], 1, "--depth must be from 1 to 246"),
        (&["--threads", "600"][..], 1, "--threads must be from 1 to 512, not 600"),
    ] {
        let (got, out, err) = run(args);
        assert_eq!(got, Some(code), "{args:?}: {err}");
        assert!(err.contains(message) && !err.contains("panicked"), "{args:?}: {err}");
        assert!(out.is_empty(), "{args:?}: {out}");
    }
}

/// The book long node-limited matches use: 8,000 legal lines of 6-12 plies, no position twice.
#[test]
fn the_committed_book_is_legal_and_distinct() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/data/openings-8000.txt");
    let text = std::fs::read_to_string(path).unwrap();
    let mut lines = text.lines();
    assert!(lines.next().unwrap().starts_with("# hayate openings --count 8000 "));
    let mut seen = HashSet::new();
    for line in lines {
        let o = Opening::parse(line).unwrap();
        assert!(line.starts_with("startpos moves ") && (6..=12).contains(&o.moves.len()), "{line}");
        let pos = o.position();
        assert!(!pos.in_check() && seen.insert(pos.key()), "{line}");
    }
    assert_eq!(seen.len(), 8000);
}

/// A reader that closes stdout early (`hayate openings ... | head`) ends the command quietly.
#[test]
fn a_reader_that_stops_early_ends_the_command_without_a_panic() {
    // 3,000 lines are more than a pipe holds: the command is still writing when the reader goes.
    let mut e = Engine::start_cmd(hayate(&["openings", "--count", "3000", "--depth", "1"]));
    e.close_input();
    let first = e.until(|_| true).remove(0);
    assert!(first.starts_with("# hayate openings"), "{first}");
    e.close_output();
    let status = e.wait_exit(LIMIT);
    let err = e.stderr();
    assert_eq!(status.and_then(|s| s.code()), Some(0), "{err}");
    assert!(!err.contains("panicked"), "{err}");
}
