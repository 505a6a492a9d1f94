//! Commands after a `stop`, through the real binary (issue 54, item 12): a search told to stop
//! answers its `bestmove` before the `readyok` of the `isready` that follows, and the options set
//! in between (here a book) are applied before the next `go`, whether the `isready` came after
//! the `stop` or during the search.

mod common;

use common::engine::{is_best, Engine};
use std::path::PathBuf;
use std::time::Duration;

/// The start position with one book move, one no search would choose.
const BOOK: &str = "#YANEURAOU-DB2016 1.00\n\
                    sfen lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1\n\
                    1g1f none 0 32 1\n";

/// A book file with [`BOOK`] in a fresh folder.
fn book(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("hayate-stop-isready-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("book.db");
    std::fs::write(&path, BOOK).unwrap();
    path
}

/// The session, three times (the old engine got it right about one time in six): `go
/// infinite`, then `stop`, `setoption name BookFile`, `isready` and a `go` at once. The stopped
/// search's `bestmove` comes before `readyok`, and the `go` plays the book's move.
#[test]
fn isready_after_stop_waits_for_the_bestmove_and_applies_the_options() {
    let path = book("after-stop");
    for round in 0..3 {
        let mut e = Engine::start();
        e.send("usi\nsetoption name USI_Hash value 16\nisready\nposition startpos\ngo infinite\n");
        e.until(|l| l == "readyok");
        // Let the search get going (an iteration or two), as in the issue.
        std::thread::sleep(Duration::from_millis(300));
        e.send(&format!(
            "stop\nsetoption name BookFile value {}\nisready\nposition startpos\ngo btime 5000 wtime 5000\n",
            path.display()
        ));
        let got = e.until(|l| l == "readyok");
        assert!(
            got.iter().any(|l| is_best(l)),
            "round {round}: readyok came before the stopped search's bestmove:\n{}",
            got.join("\n")
        );
        let got = e.until(is_best);
        let best = got.last().unwrap();
        assert_eq!(best, "bestmove 1g1f", "round {round}: the book was skipped:\n{}", e.seen.join("\n"));
        assert!(got.iter().any(|l| l.starts_with("info string book move 1g1f")), "{}", got.join("\n"));
        e.quit();
    }
    std::fs::remove_dir_all(path.parent().unwrap()).unwrap();
}

/// An `isready` during a search (a GUI asking whether the engine lives) is answered at once,
/// while the search goes on; the option set before it is still applied before the next `go`.
#[test]
fn an_option_set_during_a_search_applies_at_the_next_go() {
    let path = book("during");
    let mut e = Engine::start();
    e.send("usi\nsetoption name USI_Hash value 16\nisready\nposition startpos\ngo infinite\n");
    e.until(|l| l == "readyok");
    std::thread::sleep(Duration::from_millis(200));
    e.send(&format!("setoption name BookFile value {}\nisready\n", path.display()));
    let got = e.until(|l| l == "readyok");
    assert!(!got.iter().any(|l| is_best(l)), "the search did not go on:\n{}", got.join("\n"));
    e.send("stop\n");
    e.until(is_best);
    e.send("position startpos\ngo btime 5000 wtime 5000\n");
    let got = e.until(is_best);
    assert_eq!(got.last().unwrap(), "bestmove 1g1f", "the book was skipped:\n{}", e.seen.join("\n"));
    e.quit();
    std::fs::remove_dir_all(path.parent().unwrap()).unwrap();
}

/// `stop` then `isready` during `go mate`: the solver's answer comes before `readyok`.
#[test]
fn isready_after_stopping_go_mate_comes_after_its_answer() {
    let mut e = Engine::start();
    // Checks but no mate: the proof takes seconds.
    e.send("usi\nisready\nposition sfen 9/9/4k4/9/9/9/9/9/4K4 b RBP 1\ngo mate infinite\n");
    e.until(|l| l == "readyok");
    std::thread::sleep(Duration::from_millis(200));
    e.send("stop\nisready\n");
    let got = e.until(|l| l == "readyok");
    assert!(got.iter().any(|l| l.starts_with("checkmate")), "readyok before the answer:\n{}", got.join("\n"));
    e.quit();
}
