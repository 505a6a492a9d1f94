//! The command-line subcommands refuse bad arguments with a message and a failing status, write
//! nothing on stdout then, and never panic.

mod common;

use common::engine::{hayate, run};
use std::time::Duration;

/// Each command answers in well under this.
const LIMIT: Duration = Duration::from_secs(30);

#[test]
fn bad_arguments_are_refused_with_a_message() {
    for (args, code, message) in [
        (&["perft", "3", "--sfen", "garbage"][..], 1, "bad SFEN"),
        (&["perft", "3", "--sfen", "9/9/9/9/9/9/9/9/9 b - 1"][..], 1, "no king"),
        (&["perft", "100"][..], 1, "beyond the deepest perft, 64"),
        (&["perft", "1", "--reps", "0"][..], 2, "invalid value '0' for '--reps <REPS>'"),
        (&["bench", "0"][..], 2, "the depth must be a whole number from 1 to 246, not '0'"),
        (&["bench", "x"][..], 2, "not 'x'"),
        (&["tune", "fit", "/nonexistent/data.txt"][..], 1, "/nonexistent/data.txt"),
        (&["--config", "/nonexistent/options.toml"][..], 1, "/nonexistent/options.toml"),
        (&["no-such-command"][..], 2, "unrecognized subcommand"),
    ] {
        let out = run(hayate(args), LIMIT);
        let err = &out.stderr;
        assert_eq!(out.code, Some(code), "{args:?}: {err}");
        assert!(err.contains(message) && !err.contains("panicked"), "{args:?}: {err}");
        assert!(out.stdout.is_empty(), "{args:?}: {}", out.stdout);
    }
}

#[test]
fn good_arguments_report_on_stdout() {
    let out = run(hayate(&["perft", "2", "--reps", "2"]), LIMIT);
    assert_eq!(out.code, Some(0), "{}", out.stderr);
    let text = out.stdout;
    assert!(text.starts_with("Nodes searched: 900\n") && text.contains("median of 2"), "{text}");
}

/// Every PV the search reports is legal as it stands: `bench` searches its positions with no
/// stale line to cut (the search warns on stderr when it cuts one). Before 2026-12-06 a move
/// taken on a tie at a PV node brought a sibling's line with it: one PV of the bench at depth 9.
#[test]
fn bench_reports_no_stale_line() {
    let out = run(hayate(&["bench"]), LIMIT);
    assert_eq!(out.code, Some(0), "{}", out.stderr);
    assert!(out.stdout.contains("Nodes searched"), "{}", out.stdout);
    assert!(!out.stderr.contains("went stale"), "{}", out.stderr);
}
