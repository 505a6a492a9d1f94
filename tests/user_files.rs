//! Files a user names, through the real binary (issue 54, items 9 to 11): books that are not
//! books (a file of zeros, a header followed by zeros, zeros in the middle of a sorted book), an
//! options file that is a FIFO or a device, and `gensfen` outputs that are its inputs under
//! another name. Each case ends within a time limit with a message, and nothing is overwritten.
//!
//! The huge files are sparse (`set_len`), so they take no disk space; the engine runs under a
//! memory limit (`ulimit -v`), so that a regression reading them whole fails at once instead of
//! taking the machine's memory.

mod common;

use common::engine::{limited, run, Engine, HAYATE};
use common::TempDir;
use std::io::Write;
use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};
const HEADER: &str = "#YANEURAOU-DB2016 1.00";

/// A fresh empty folder under the system's temporary folder.
fn temp_dir(name: &str) -> TempDir {
    TempDir::new("user-files", name)
}

/// What the engine printed on stdout so far.
fn stdout(e: &Engine) -> String {
    e.seen.join("\n")
}

/// A file of `len` bytes: `head`, zeros (a hole: no disk space), then `tail` at the end.
fn sparse_file(path: &Path, head: &[u8], len: u64, tail: &[u8]) {
    use std::io::{Seek, SeekFrom};
    let mut f = std::fs::File::create(path).unwrap();
    f.write_all(head).unwrap();
    f.set_len(len).unwrap();
    f.seek(SeekFrom::Start(len - tail.len() as u64)).unwrap();
    f.write_all(tail).unwrap();
}

/// Waits up to 10 s for a line of the engine (`what` in the messages) that starts with `prefix`.
fn expect_line(s: &mut Engine, prefix: &str, what: &str) {
    assert!(s.came_within(Duration::from_secs(10), |l| l.starts_with(prefix)), "{what}: {}", s.output());
}

/// Sends `quit`: the engine (`what` in the messages) must exit with 0 within 5 s.
fn quit(s: &mut Engine, what: &str) {
    s.send("quit\n");
    let code = s.wait_exit(Duration::from_secs(5)).and_then(|st| st.code());
    assert_eq!(code, Some(0), "{what}: {}", s.output());
}

/// Sends `isready` and `quit`: the engine (`what` in the messages) must answer `readyok` within
/// 10 s and exit with 0 within 5 s more.
fn ready_then_quit(s: &mut Engine, what: &str) {
    s.send("isready\n");
    expect_line(s, "readyok", what);
    quit(s, what);
}

/// Item 9: a 2 GiB file of zeros as an in-memory book is refused at its first line, at once and
/// within 1.5 GiB of memory (it was read whole: 13 s and 2.2 GB, or an abort under the limit),
/// and so is a 3 GiB one, by its size, with the advice to use BookOnTheFly.
#[test]
fn a_book_of_zeros_is_refused_at_its_first_line_without_reading_it_whole() {
    let dir = temp_dir("zeros");
    for (name, len, want) in [
        ("two.db", 2u64 << 30, "line 1: a line longer than 64.0 KiB: not a text book; no book"),
        ("three.db", 3u64 << 30, "set BookOnTheFly to true"),
    ] {
        sparse_file(&dir.join(name), b"", len, b"");
        let mut s = Engine::start_cmd(limited(&dir, 1_572_864, &[]));
        s.send(&format!("setoption name USI_Hash value 16\nsetoption name BookFile value {name}\n"));
        ready_then_quit(&mut s, name);
        assert!(stdout(&s).contains(want), "{name}: {}", s.output());
    }
}

/// Item 9: with BookOnTheFly, a header followed by 2 GiB of zeros is refused at `isready` (the
/// probe read the zeros: no `bestmove` in 30 s, `quit` ignored), and the engine searches.
#[test]
fn a_header_then_zeros_is_not_a_book_to_look_up() {
    let dir = temp_dir("header-zeros");
    sparse_file(&dir.join("book.db"), format!("{HEADER}\n").as_bytes(), 2 << 30, b"");
    let mut s = Engine::start_cmd(limited(&dir, 3_145_728, &[]));
    s.send("setoption name USI_Hash value 16\nsetoption name BookOnTheFly value true\nsetoption name BookFile value book.db\nisready\n");
    expect_line(&mut s, "readyok", "header then zeros");
    assert!(stdout(&s).contains("a NUL byte at byte"), "{}", s.output());
    s.send("position startpos\ngo btime 2000 wtime 2000\n");
    expect_line(&mut s, "bestmove ", "header then zeros");
    quit(&mut s, "header then zeros");
}

/// Item 9: a sorted book with 1 GiB of zeros in its middle (its start and end are text, so it
/// opens): the lookup stops at the zeros at once, says the book is malformed and where, and the
/// engine searches instead; `quit` sent right after the `go` is answered at once (in 5 s at most
/// on a loaded machine).
#[test]
fn a_lookup_through_zeros_stops_at_once_and_quit_is_answered() {
    let dir = temp_dir("middle-zeros");
    // One position that sorts before the start position, and text at the end.
    let head = format!("{HEADER}\nsfen 4k4/9/9/9/9/9/9/9/4K4 b - 1\n5i5h none 0 16 1\n");
    let tail = "# padding\n".repeat(8000);
    sparse_file(&dir.join("book.db"), head.as_bytes(), 1 << 30, tail.as_bytes());
    let mut s = Engine::start_cmd(limited(&dir, 3_145_728, &[]));
    s.send("setoption name USI_Hash value 16\nsetoption name BookOnTheFly value true\nsetoption name BookFile value book.db\nisready\n");
    expect_line(&mut s, "readyok", "zeros in the middle");
    assert!(stdout(&s).contains("looked up in the file"), "{}", s.output());
    let sent = Instant::now();
    s.send("position startpos\ngo btime 2000 wtime 2000\nquit\n");
    let code = s.wait_exit(Duration::from_secs(10)).and_then(|st| st.code());
    let took = sent.elapsed();
    assert_eq!(code, Some(0), "{}", s.output());
    assert!(took < Duration::from_secs(5), "quit answered after {took:?}: {}", s.output());
    assert!(stdout(&s).contains("malformed at byte"), "{}", s.output());
    // The book is put away: a second search does not read it again.
    let mut s = Engine::start_cmd(limited(&dir, 3_145_728, &[]));
    s.send("setoption name BookOnTheFly value true\nsetoption name BookFile value book.db\nisready\n");
    s.send("position startpos\ngo depth 1\n");
    expect_line(&mut s, "bestmove ", "the first search");
    s.send("go depth 1\n");
    expect_line(&mut s, "bestmove ", "the second search");
    s.send("quit\n");
    s.wait_exit(Duration::from_secs(5));
    let reports = s.seen.iter().filter(|l| l.contains("malformed at byte")).count();
    assert_eq!(reports, 1, "{}", s.output());
}

/// Item 10: an `engine-options.toml` that is a FIFO (found in the working folder) no longer
/// blocks start-up, and one that is a symbolic link to a device is not read until memory runs
/// out and skipped in silence: each is named for what it is, with the built-in defaults used.
#[cfg(unix)]
#[test]
fn an_options_file_that_is_a_fifo_or_a_device_is_refused_with_a_message() {
    let dir = temp_dir("options");
    let path = common::make_fifo(dir.join("engine-options.toml"));
    for (what, make) in
        [("a FIFO", None), ("a device", Some("/dev/zero")), ("a device", Some("/dev/urandom"))]
    {
        if let Some(target) = make {
            let _ = std::fs::remove_file(&path);
            std::os::unix::fs::symlink(target, &path).unwrap();
        }
        let mut s = Engine::start_cmd(limited(&dir, 2_097_152, &[]));
        s.send("usi\n");
        expect_line(&mut s, "usiok", what);
        s.send("setoption name USI_Hash value 16\n");
        ready_then_quit(&mut s, what);
        let want = format!("not a regular file ({what}); using built-in defaults");
        assert!(stdout(&s).contains(&want), "{make:?}: {}", s.output());
    }
    // Named with --config: an error, as for any bad file, and no wait.
    for (arg, want) in [
        (path.clone(), "not a regular file (a device)"),
        (dir.join("big.toml"), "more than the 1.0 MiB such a file may have"),
    ] {
        if arg.ends_with("big.toml") {
            sparse_file(&arg, b"Threads = 1\n", 2 << 20, b"\n");
        }
        let (code, err, took) = run_to_end(limited(&dir, 2_097_152, &["--config", arg.to_str().unwrap()]));
        assert_eq!(code, Some(1), "{arg:?}: {err}");
        assert!(took < Duration::from_secs(5), "{arg:?}: {took:?}");
        assert!(err.contains(want), "{arg:?}: {err}");
    }
}

/// Runs a command to its end (killed after 30 s), input closed: exit code, stderr, time taken.
fn run_to_end(cmd: Command) -> (Option<i32>, String, Duration) {
    let ran = run(cmd, Duration::from_secs(30));
    (ran.code, ran.stderr, ran.took)
}

/// `hayate gensfen ARGS` in `dir`: exit code and stderr.
fn gensfen(dir: &Path, args: &[&str]) -> (Option<i32>, String) {
    let mut cmd = Command::new(HAYATE);
    cmd.arg("gensfen").args(args).current_dir(dir);
    let (code, err, _) = run_to_end(cmd);
    (code, err)
}

/// Item 11: `gensfen convert` and `merge` refuse an output that is one of their inputs (or two
/// outputs that are one file), by the file and not by its name: the same name, another spelling,
/// a symbolic link, a hard link. The input is left as it was (convert truncated it to 0 bytes,
/// merge overwrote it through --bin). Generation refuses an openings or net file that is one of
/// its shard's files.
#[cfg(unix)]
#[test]
fn gensfen_refuses_an_output_that_is_an_input() {
    let dir = temp_dir("gensfen");
    let (code, err) = gensfen(&dir, &["--out", "run", "--games", "1", "--nodes", "200", "--max-ply", "24"]);
    assert_eq!(code, Some(0), "{err}");
    std::fs::rename(dir.join("run/shard-0-of-1.hgr"), dir.join("a.hgr")).unwrap();
    let original = std::fs::read(dir.join("a.hgr")).unwrap();
    assert!(original.len() > 20);
    std::os::unix::fs::symlink("a.hgr", dir.join("link.hgr")).unwrap();
    std::fs::hard_link(dir.join("a.hgr"), dir.join("hard.hgr")).unwrap();
    let cases: [&[&str]; 9] = [
        &["convert", "a.hgr", "--out", "a.hgr"],
        &["convert", "a.hgr", "--out", "./a.hgr"],
        &["convert", "a.hgr", "--out", "link.hgr"],
        &["convert", "link.hgr", "--out", "hard.hgr", "--text"],
        &["merge", "a.hgr", "--out", "m.hgr", "--bin", "a.hgr"],
        &["merge", "a.hgr", "--out", "m.hgr", "--bin", "hard.hgr"],
        &["merge", "a.hgr", "--out", "link.hgr"],
        &["merge", "a.hgr", "--out", "hard.hgr", "--bin", "m.bin"],
        &["merge", "a.hgr", "--out", "m.hgr", "--bin", "m.hgr"],
    ];
    for args in cases {
        let (code, err) = gensfen(&dir, args);
        assert_eq!(code, Some(1), "{args:?}: {err}");
        assert!(err.contains("same file"), "{args:?}: {err}");
        assert!(!err.contains("panicked"), "{args:?}: {err}");
        assert_eq!(std::fs::read(dir.join("a.hgr")).unwrap(), original, "{args:?} changed the input");
        assert!(!dir.join("m.hgr").exists() && !dir.join("m.bin").exists(), "{args:?} wrote an output");
    }
    // What is allowed still works.
    let (code, err) = gensfen(&dir, &["merge", "a.hgr", "--out", "m.hgr"]);
    assert_eq!(code, Some(0), "{err}");
    let (code, err) = gensfen(&dir, &["convert", "a.hgr", "--out", "a.bin"]);
    assert_eq!(code, Some(0), "{err}");
    // Generation: an openings file that is the shard's position file (a hard link) is refused
    // before anything is written.
    let fresh = dir.join("fresh");
    std::fs::create_dir_all(&fresh).unwrap();
    std::fs::write(dir.join("openings.txt"), "startpos\n").unwrap();
    std::fs::hard_link(dir.join("openings.txt"), fresh.join("shard-0-of-1.bin")).unwrap();
    let (code, err) = gensfen(&dir, &["--out", "fresh", "--games", "1", "--openings", "openings.txt"]);
    assert_eq!(code, Some(1), "{err}");
    assert!(err.contains("same file as the --openings openings.txt"), "{err}");
    assert!(!fresh.join("shard-0-of-1.hgr").exists(), "{err}");
    assert_eq!(std::fs::read_to_string(dir.join("openings.txt")).unwrap(), "startpos\n");
}

/// `hayate tune` (the linear evaluation's data and fit) reads and writes files the same way:
/// `tune fit` refuses an `--out` that is one of its data files (it would have overwritten the
/// data with the weights' source) and a data file that is a FIFO (it blocked); `tune gen`
/// refuses an `--out` that is its openings file, and a full disk ends it with a message and
/// status 1 (it panicked, an abort in a release build).
#[cfg(unix)]
#[test]
fn tune_refuses_outputs_that_are_inputs_and_reports_a_full_disk() {
    let dir = temp_dir("tune");
    let data = "lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1\t0\t0.5\n";
    std::fs::write(dir.join("d.txt"), data).unwrap();
    std::fs::write(dir.join("o.txt"), "startpos moves 7g7f\n").unwrap();
    let tune = |args: &[&str]| {
        let mut cmd = Command::new(HAYATE);
        cmd.arg("tune").args(args).current_dir(&dir);
        let (code, err, _) = run_to_end(cmd);
        assert!(!err.contains("panicked"), "{args:?}: {err}");
        (code, err)
    };
    let (code, err) = tune(&["fit", "d.txt", "--out", "./d.txt"]);
    assert_eq!(code, Some(1), "{err}");
    assert!(err.contains("same file"), "{err}");
    assert_eq!(std::fs::read_to_string(dir.join("d.txt")).unwrap(), data, "the data file changed");
    let (code, err) = tune(&["gen", "--out", "o.txt", "--openings", "o.txt", "--games", "1"]);
    assert_eq!(code, Some(1), "{err}");
    assert!(err.contains("same file"), "{err}");
    common::make_fifo(dir.join("fifo"));
    let (code, err) = tune(&["fit", "fifo", "--out", "w.rs"]);
    assert_eq!(code, Some(1), "{err}");
    assert!(err.contains("FIFO"), "{err}");
    if Path::new("/dev/full").exists() {
        let (code, err) = tune(&["gen", "--out", "/dev/full", "--games", "1", "--nodes", "100"]);
        assert_eq!(code, Some(1), "{err}");
        assert!(err.contains("No space left"), "{err}");
    }
}
