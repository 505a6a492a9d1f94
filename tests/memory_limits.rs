//! The engine short of memory, through the real binary (issue 54, items 1 and 2): under a limit
//! on its address space (`ulimit -v`), more threads than fit and a table larger than the memory
//! never abort the engine; it takes what fits with head room, says what it chose, answers
//! `isready` within a couple of seconds and still searches.
#![cfg(target_os = "linux")]

mod common;

use common::engine::{is_best, Engine};
use std::time::Duration;

/// The number in `line` after `prefix`, up to the next space.
fn number_after(line: &str, prefix: &str) -> Option<usize> {
    line.strip_prefix(prefix)?.split(' ').next()?.parse().ok()
}

/// The line of `got` that starts with `prefix` (the test fails, showing `got`, if none does).
fn line_starting<'a>(got: &'a [String], prefix: &str) -> &'a str {
    got.iter().find(|l| l.starts_with(prefix)).unwrap_or_else(|| panic!("no message:\n{}", got.join("\n")))
}

/// Item 1: `Threads 64` under 3 GiB of address space. The old engine's threads took all of it
/// and the net's decode then aborted (`memory allocation of 64217066 bytes failed`, exit 134);
/// now the engine takes the threads that fit beside the net and the table, says how many, and
/// searches with them, also when asked for 512 later.
#[test]
fn threads_beyond_the_memory_are_fewer_with_a_message_and_no_abort() {
    let mut e = Engine::start_limited(3 << 20);
    e.send("usi\nsetoption name Threads value 64\nisready\n");
    let got = e.until(|l| l == "readyok");
    let prefix = "info string Threads 64: cannot allocate the memory of more than ";
    let line = line_starting(&got, prefix);
    let threads = number_after(line, prefix).expect("a number of threads");
    assert!((1..64).contains(&threads), "{line}");
    assert!(line.ends_with(&format!(", using {threads}")), "{line}");
    assert!(
        got.iter().any(|l| l.contains("using the embedded net")),
        "the net was decoded:\n{}",
        got.join("\n")
    );
    e.send("position startpos\ngo depth 6\n");
    let got = e.until(is_best);
    assert!(got.iter().any(|l| l.starts_with("info depth 6 ")), "the search ran:\n{}", got.join("\n"));
    e.send("setoption name Threads value 512\nisready\nposition startpos moves 7g7f\ngo depth 5\n");
    let got = e.until(is_best);
    assert!(
        got.iter()
            .any(|l| l.starts_with("info string Threads 512: cannot allocate the memory of more than ")),
        "{}",
        got.join("\n")
    );
    assert!(got.iter().any(|l| l.starts_with("info depth 5 ")), "the search ran:\n{}", got.join("\n"));
    assert!(
        !e.seen.iter().any(|l| l.contains("cannot start")),
        "every thread started:\n{}",
        e.seen.join("\n")
    );
    e.quit();
}

/// Item 1, the net: under limits so tight that the table, the threads or the net's decode (128
/// MB at its peak) cannot have what they want, the engine still answers `readyok` and a
/// `bestmove` and ends at `quit`, with a smaller table, without the net, or without a search.
/// The old engine aborted in the decode. The limits are the engine's own address space after
/// `usi` plus 60 to 450 MB, so that they bind the same on any machine.
#[test]
fn a_tight_address_space_never_aborts_the_engine() {
    let mut e = Engine::start();
    e.send("usi\n");
    e.until(|l| l == "usiok");
    let status = std::fs::read_to_string(format!("/proc/{}/status", e.pid())).expect("the engine's status");
    let line = status.lines().find(|l| l.starts_with("VmSize:")).expect("VmSize");
    let base_kib: u64 = line.split_whitespace().nth(1).and_then(|n| n.parse().ok()).expect("a size");
    e.quit();
    let runs: Vec<_> = [60u64, 100, 150, 250, 450]
        .into_iter()
        .map(|mb| {
            std::thread::spawn(move || {
                let mut e = Engine::start_limited(base_kib + mb * 1024);
                e.send("usi\nisready\n");
                e.until(|l| l == "readyok");
                e.send("position startpos\ngo depth 3\n");
                e.until(is_best);
                e.quit();
            })
        })
        .collect();
    for run in runs {
        run.join().expect("the engine answered and ended cleanly");
    }
}

/// Item 2: `USI_Hash 65536` where far less fits. The old engine took the largest power of two
/// under seven eighths of the room and zeroed all of it before `readyok` (16 GiB, 10 s, on a
/// 24 GiB machine); now it takes half the room left beside the other tables, zeroes it for at
/// most a second, and says what it took.
#[test]
fn an_absurd_hash_falls_back_to_half_the_room_and_isready_stays_prompt() {
    let mut e = Engine::start_limited(4 << 20);
    // The first isready decodes the net; the second only makes the table.
    e.send("usi\nisready\n");
    e.until(|l| l == "readyok");
    let sent = e.send("setoption name USI_Hash value 65536\nisready\n");
    let (got, at) = e.until_timed(|l| l == "readyok");
    let took = at - sent;
    assert!(took < Duration::from_millis(2500), "readyok after {took:?}:\n{}", got.join("\n"));
    let prefix = "info string USI_Hash 65536 MiB: more than the memory that can be had, using ";
    let line = line_starting(&got, prefix);
    let mb = number_after(line, prefix).expect("a size");
    assert!((1..2048).contains(&mb), "at most half of 4 GiB: {line}");
    assert!(line.contains("half the memory left"), "the message says how the size was chosen: {line}");
    e.send("position startpos\ngo depth 6\n");
    let got = e.until(is_best);
    assert!(got.iter().any(|l| l.starts_with("info depth 6 ")), "the search ran:\n{}", got.join("\n"));
    e.quit();
}
