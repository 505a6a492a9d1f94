//! Hostile input through the real binary: each case is something a GUI, a user or a file can
//! send, which once stopped, hung or killed the engine (issue 12). Every case ends with the
//! engine still answering (`readyok`) or exiting cleanly within a time limit.

mod common;

use common::engine::{is_best, Engine, ANSWER_LIMIT, HAYATE};
use common::TempDir;
use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

/// What a session gave: stdout, and the exit code (None when it had to be killed at the limit).
struct Outcome {
    out: String,
    code: Option<i32>,
}

impl Outcome {
    fn count(&self, line: &str) -> usize {
        self.out.lines().filter(|l| *l == line).count()
    }
}

/// Runs the engine in `dir` on `input`, keeps stdin open for `hold` after writing it (so that
/// the end of input does not end the session early), and kills it after `limit`.
fn session_in(dir: &Path, input: &[u8], hold: Duration, limit: Duration) -> Outcome {
    session_cmd(Command::new(HAYATE), dir, input, hold, limit)
}

fn session_cmd(mut cmd: Command, dir: &Path, input: &[u8], hold: Duration, limit: Duration) -> Outcome {
    cmd.current_dir(dir);
    let start = Instant::now();
    let mut e = Engine::start_cmd(cmd);
    e.send_bytes(input);
    // Ended within `hold` (at a `quit`), or at the end of input, or killed at the limit.
    let mut status = e.wait_exit(hold);
    if status.is_none() {
        e.close_input();
        status = e.wait_exit(limit.saturating_sub(start.elapsed()));
    }
    Outcome { out: e.seen.iter().map(|l| format!("{l}\n")).collect(), code: status.and_then(|s| s.code()) }
}

fn session(input: &[u8]) -> Outcome {
    session_in(Path::new(env!("CARGO_MANIFEST_DIR")), input, Duration::ZERO, Duration::from_secs(20))
}

/// A fresh empty folder under the system's temporary folder.
fn temp_dir(name: &str) -> TempDir {
    TempDir::new("reliability", name)
}

#[test]
fn invalid_utf8_in_a_line_is_reported_and_the_engine_goes_on() {
    let o = session(
        b"isready\nposition sfen lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGS\xff\xfe\x81 b - 1\nisready\nquit\n",
    );
    assert_eq!(o.code, Some(0), "{}", o.out);
    assert_eq!(o.count("readyok"), 2, "{}", o.out);
    assert!(o.out.contains("not valid UTF-8"), "{}", o.out);
}

#[test]
fn crlf_line_endings_are_commands() {
    let o = session(b"usi\r\nisready\r\nposition startpos moves 7g7f\r\ngo depth 2\r\nisready\r\nquit\r\n");
    assert_eq!(o.code, Some(0));
    assert_eq!(o.count("usiok"), 1, "{}", o.out);
    assert_eq!(o.count("readyok"), 2, "{}", o.out);
    assert_eq!(o.out.lines().filter(|l| l.starts_with("bestmove ")).count(), 1, "{}", o.out);
    assert!(!o.out.contains("unknown command"), "{}", o.out);
}

/// A Shift-JIS folder name (a Japanese Windows GUI's EvalDir) is used as the bytes received: the
/// engine opens the file in that folder (here one too short to be a net, so the loader names it).
#[cfg(unix)]
#[test]
fn a_shift_jis_eval_dir_opens_the_folder_of_those_bytes() {
    use std::os::unix::ffi::OsStrExt;
    let dir = temp_dir("sjis");
    let sjis: &[u8] = b"\x95\x5d\x89\xbf"; // "評価" in Shift-JIS
    let eval_dir = dir.join(std::ffi::OsStr::from_bytes(sjis));
    std::fs::create_dir_all(&eval_dir).unwrap();
    std::fs::write(eval_dir.join("nn.bin"), [0u8; 100]).unwrap();
    let mut input = b"setoption name EvalType value NNUE\nsetoption name EvalDir value ".to_vec();
    input.extend_from_slice(sjis);
    input.extend_from_slice(b"\nisready\nquit\n");
    let o = session_in(&dir, &input, Duration::ZERO, Duration::from_secs(20));
    assert_eq!(o.code, Some(0));
    assert_eq!(o.count("readyok"), 1, "{}", o.out);
    assert!(o.out.contains("kept as the file name's bytes"), "{}", o.out);
    // The loader read the file (and refused it as too short), so it found the folder.
    let load_line = o.out.lines().find(|l| l.contains("nn.bin")).unwrap_or_default().to_string();
    assert!(!load_line.contains("no NNUE file"), "{}", o.out);
}

/// Writes each chunk of input after waiting its delay; the engine is killed after `limit`.
/// Returns the outcome and, for each line of output, when it arrived (from the start), and when
/// each chunk was written.
fn session_steps(steps: &[(u64, &[u8])], limit: Duration) -> Timed {
    session_steps_in(Path::new(env!("CARGO_MANIFEST_DIR")), steps, limit)
}

fn session_steps_in(dir: &Path, steps: &[(u64, &[u8])], limit: Duration) -> Timed {
    session_steps_cmd(Command::new(HAYATE), dir, steps, limit)
}

/// A session's outcome, each output line with when it arrived, and when each chunk was written.
type Timed = (Outcome, Vec<(Duration, String)>, Vec<Duration>);

fn session_steps_cmd(mut cmd: Command, dir: &Path, steps: &[(u64, &[u8])], limit: Duration) -> Timed {
    cmd.current_dir(dir);
    let mut e = Engine::start_cmd(cmd);
    let start = Instant::now();
    let mut written = Vec::new();
    for (delay, chunk) in steps {
        std::thread::sleep(Duration::from_millis(*delay));
        written.push(start.elapsed());
        e.send_bytes(chunk);
    }
    e.close_input();
    let code = e.wait_exit(limit.saturating_sub(start.elapsed())).and_then(|s| s.code());
    let lines: Vec<(Duration, String)> = e
        .arrived
        .iter()
        .zip(&e.seen)
        .map(|(at, l)| (at.saturating_duration_since(start), l.clone()))
        .collect();
    let out = lines.iter().map(|(_, l)| format!("{l}\n")).collect();
    (Outcome { out, code }, lines, written)
}

#[test]
fn clocks_of_two_to_the_63_neither_overflow_nor_end_the_search() {
    let huge = "9223372036854775808";
    let go = format!(
        "setoption name USI_Hash value 16\nisready\nposition startpos\ngo btime {huge} wtime {huge} binc {huge} winc {huge}\n"
    );
    let (o, lines, written) =
        session_steps(&[(0, go.as_bytes()), (700, b"stop\nisready\nquit\n")], Duration::from_secs(20));
    assert_eq!(o.code, Some(0), "{}", o.out);
    let best: Vec<&(Duration, String)> = lines.iter().filter(|(_, l)| l.starts_with("bestmove ")).collect();
    assert_eq!(best.len(), 1, "{}", o.out);
    assert!(!o.out.contains("bestmove resign"), "{}", o.out);
    // The best move came after the stop: the plan did not wrap to a deadline in the past.
    assert!(
        best[0].0 >= written[1],
        "bestmove at {:?}, stop sent at {:?}:\n{}",
        best[0].0,
        written[1],
        o.out
    );
}

#[test]
fn go_mate_with_a_huge_time_is_stopped_normally() {
    let (o, lines, written) = session_steps(
        &[
            // Checks but no mate: the proof takes seconds (startpos has no check and is answered
            // `nomate` at once).
            (0, b"position sfen 9/9/4k4/9/9/9/9/9/4K4 b RBP 1\ngo mate 18446744073709551615\n"),
            (300, b"stop\nisready\nquit\n"),
        ],
        Duration::from_secs(20),
    );
    assert_eq!(o.code, Some(0), "{}", o.out);
    assert_eq!(o.count("readyok"), 1, "{}", o.out);
    let answer = lines.iter().find(|(_, l)| l.starts_with("checkmate")).expect("a checkmate answer");
    // A deadline wrapped into the past would answer `checkmate timeout` before the stop.
    assert!(answer.0 >= written[1], "answered before the stop:\n{}", o.out);
}

#[test]
fn searchmoves_naming_a_non_promotion_searches_it() {
    let o = session(b"position startpos moves 7g7f 3c3d\ngo depth 3 searchmoves 8h2b\nisready\nquit\n");
    assert_eq!(o.code, Some(0));
    assert_eq!(o.count("readyok"), 1, "{}", o.out);
    let best: Vec<&str> = o.out.lines().filter(|l| l.starts_with("bestmove ")).collect();
    assert_eq!(best, ["bestmove 8h2b"], "{}", o.out);
}

/// A FIFO (or any file that is not a regular file) named as the net is refused at once instead of
/// waiting for a writer forever.
#[cfg(unix)]
#[test]
fn a_fifo_as_eval_file_is_refused_without_hanging() {
    let dir = temp_dir("fifo");
    let fifo = common::make_fifo(dir.join("f"));
    let input = format!("setoption name EvalFile value {}\nisready\nquit\n", fifo.display());
    let o = session_in(&dir, input.as_bytes(), Duration::from_secs(4), Duration::from_secs(20));
    // It ends at `quit` (stdin stays open 4 s longer); a hang in opening the FIFO is killed at 20 s.
    assert_eq!(o.code, Some(0), "{}", o.out);
    assert_eq!(o.count("readyok"), 1, "{}", o.out);
    assert!(o.out.contains("not a regular file"), "{}", o.out);
}

/// A net file created after an `isready` that found none is read at the next `isready` (and one
/// rewritten is read again), without a restart.
#[test]
fn a_net_file_created_or_changed_later_is_read_at_the_next_isready() {
    let dir = temp_dir("reload");
    let eval = dir.join("eval");
    std::fs::create_dir_all(&eval).unwrap();
    let net = eval.join("nn.bin");
    let mut e = Engine::start_in(&dir);
    let isready = |e: &mut Engine| {
        e.send("isready\n");
        // (The first one allocates the tables: the default limit, made for a loaded machine.)
        e.until_within(ANSWER_LIMIT, |l| l == "readyok").0
    };
    let mut messages: Vec<String> = Vec::new();
    let mut net_lines = |got: Vec<String>| messages.extend(got.into_iter().filter(|l| l.contains("nn.bin")));
    net_lines(isready(&mut e));
    std::fs::write(&net, [0u8; 100]).unwrap();
    net_lines(isready(&mut e));
    std::fs::write(&net, [0u8; 200]).unwrap();
    net_lines(isready(&mut e));
    net_lines(isready(&mut e));
    let out = e.output();
    assert_eq!(
        messages.len(),
        3,
        "absent, then 100 bytes, then 200 bytes; the last isready reads nothing:\n{out}"
    );
    assert!(messages[0].contains("no NNUE file"), "{out}");
    // The file was read when created and again when rewritten (zeros: refused by the version).
    assert!(messages[1].contains("version") && messages[2].contains("version"), "{out}");
    e.quit();
}

/// Case 3: sizes and threads the system cannot grant. Under a 1.5 GB address-space limit the
/// tables are smaller than asked, with a message, the search and the mate solver still run, and
/// every command is answered; with more threads than fit, the engine says so and still moves.
#[cfg(target_os = "linux")]
#[test]
fn tables_and_threads_beyond_the_memory_shrink_with_a_message() {
    let mut cmd = Command::new("sh");
    cmd.args(["-c", "ulimit -v 1500000 && exec \"$0\"", HAYATE]);
    cmd.current_dir(env!("CARGO_MANIFEST_DIR"));
    let mut e = Engine::start_cmd(cmd);
    // Each step waits for the answer of the one before: the tables that fit are zeroed before
    // the search or the solver starts, which takes seconds on a loaded machine, and a command
    // sent meanwhile would stop them before their first iteration.
    e.send("setoption name USI_Hash value 65536\nsetoption name Threads value 2\nisready\n");
    e.until(|l| l == "readyok");
    e.send("position startpos\ngo depth 4\n");
    e.until(is_best);
    e.send("setoption name MateHash value 65536\nposition sfen 7kl/9/7G1/9/9/9/9/9/K8 b G 1\ngo mate 5000\n");
    e.until(|l| l.starts_with("checkmate"));
    e.send("setoption name Threads value 512\nusinewgame\nposition startpos\ngo depth 2\n");
    e.until(is_best);
    e.send("isready\nquit\n");
    e.until(|l| l == "readyok");
    let code = e.wait_exit(Duration::from_secs(30)).and_then(|s| s.code());
    let out: String = e.seen.iter().map(|l| format!("{l}\n")).collect();
    let out = &out;
    assert_eq!(code, Some(0), "{out}\n{}", e.output());
    for message in [
        "info string USI_Hash 65536 MiB: more than the memory that can be had, using ",
        "info string MateHash 65536 MiB: more than the memory that can be had, using ",
        "info string Threads 512: cannot allocate the memory of more than ",
    ] {
        assert_eq!(out.lines().filter(|l| l.starts_with(message)).count(), 1, "{message}\n{out}");
    }
    assert!(out.lines().any(|l| l.starts_with("info depth 4 ")), "the search ran: {out}");
    assert!(out.contains("\ncheckmate G*2b\n"), "the solver ran: {out}");
    assert_eq!(out.lines().filter(|l| l.starts_with("bestmove ")).count(), 2, "{out}");
    assert_eq!(out.lines().filter(|l| *l == "readyok").count(), 2, "{out}");
}

/// Case 10: a config file's mistakes name their own line, also for quoted keys and tables, and
/// one option set twice under two spellings is refused instead of the later name winning.
#[test]
fn config_file_mistakes_name_their_line_and_duplicates_are_refused() {
    let dir = temp_dir("config");
    let path = dir.join("hayate.toml");
    for (text, want) in [
        ("USI_Hash = 16\n\"Threads\" = 0\n", "line 2: "),
        ("USI_Hash = 16\n\n[Threads]\nvalue = 2\n", "line 3: "),
        ("threads = 2\nTHREADS = 3\n", "line 2: THREADS sets Threads again"),
    ] {
        std::fs::write(&path, text).unwrap();
        let mut cmd = Command::new(HAYATE);
        cmd.arg("--config").arg(&path);
        let out = common::engine::run(cmd, Duration::from_secs(30));
        let err = &out.stderr;
        assert!(out.code.is_some_and(|c| c != 0), "{text}: {err}");
        assert!(err.contains(want), "{text}: {err}");
        assert!(!err.contains("line 0"), "{err}");
    }
}

/// Case 10: a malformed 100 kB position line gets a short message, and the position stays.
#[test]
fn a_huge_bad_sfen_gets_a_short_message() {
    let garbage = "lnsgkgsnl/".repeat(10_000);
    let mut input = format!("position sfen 4k4/9/9/9/9/9/9/9/4K4 b - 1 {garbage}\n").into_bytes();
    input.extend_from_slice(format!("position sfen 4k4/9/9/9/9/9/9/9/4K4 {garbage} - 1\n").as_bytes());
    input.extend_from_slice(format!("position {garbage}\n").as_bytes());
    input.extend_from_slice(format!("position startpos moves 7g7f {garbage}\nd\nisready\nquit\n").as_bytes());
    let o = session(&input);
    assert_eq!(o.code, Some(0));
    let messages: Vec<&str> = o.out.lines().filter(|l| l.starts_with("info string position")).collect();
    assert_eq!(messages.len(), 4, "{}", o.out);
    for m in messages {
        assert!(m.len() < 200, "{m}");
    }
    assert!(
        o.out.contains("sfen lnsgkgsnl/1r5b1/ppppppppp/9/9/2P6/PP1PPPPPP/1B5R1/LNSGKGSNL w - 2"),
        "{}",
        o.out
    );
    assert_eq!(o.count("readyok"), 1);
}

/// Case 2: `go perft` and `bench` run beside the command loop: `isready` is answered at once,
/// `stop` ends them with what they have, and `quit` or the end of input ends the engine.
#[test]
fn perft_and_bench_leave_the_engine_answering() {
    let mut e = Engine::start();
    e.send("isready\n");
    // The first isready allocates the tables and loads the net: the default limit, made for a
    // loaded machine. The others come while a perft or bench runs, which would take minutes,
    // and must be answered at once.
    e.until_within(ANSWER_LIMIT, |l| l == "readyok");
    for (i, chunk) in [
        "go perft 9\nisready\n",
        // Deep enough to take minutes on any machine: the default depth takes about a second.
        "stop\nbench 24\nisready\n",
        "stop\nisready\n",
        "go 2147483648 perft 2147483648 2\nisready\n",
    ]
    .into_iter()
    .enumerate()
    {
        // Let the previous perft or bench get going, so that the stop finds it running.
        std::thread::sleep(Duration::from_millis(1000));
        let sent = e.send(chunk);
        let (_, at) = e.until_within(ANSWER_LIMIT, |l| l == "readyok");
        let took = at.saturating_duration_since(sent);
        assert!(took < Duration::from_millis(1000), "readyok {} after {took:?}:\n{}", i + 1, e.output());
    }
    e.send("quit\n");
    let status = e.wait_exit(Duration::from_secs(10));
    let out = e.output();
    assert!(status.is_some_and(|s| s.success()), "{status:?}:\n{out}");
    assert_eq!(
        e.seen.iter().filter(|l| l.starts_with("Stopped: 0 of 30 root moves counted")).count(),
        2,
        "{out}"
    );
    assert_eq!(
        e.seen.iter().filter(|l| l.starts_with("Stopped: ") && l.ends_with(" positions searched")).count(),
        1,
        "{out}"
    );
}

/// Case 2: the end of input during a perft ends the engine too.
#[test]
fn end_of_input_during_a_perft_ends_the_engine() {
    let o = session_in(
        Path::new(env!("CARGO_MANIFEST_DIR")),
        b"go perft 12\n",
        Duration::from_millis(300),
        Duration::from_secs(5),
    );
    assert_eq!(o.code, Some(0), "{}", o.out);
}

/// A `bench` or `go` with a depth out of range says so; a bench it refuses leaves a running search
/// alone.
#[test]
fn out_of_range_depths_are_reported() {
    let steps: [(u64, &[u8]); 3] = [
        (0, b"isready\ngo infinite\n"),
        (500, b"bench 0\nbench x\nisready\n"),
        (500, b"stop\ngo depth 0\nisready\nquit\n"),
    ];
    let (o, lines, written) = session_steps(&steps, Duration::from_secs(15));
    assert_eq!(o.code, Some(0), "{}", o.out);
    let refused = "info string bench: the depth must be a whole number from 1 to 246, not ";
    assert_eq!(o.out.lines().filter(|l| l.starts_with(refused)).count(), 2, "{}", o.out);
    assert!(!o.out.contains("positions searched"), "{}", o.out);
    // The search's bestmove comes after `stop`, not when the refused bench arrived.
    let first_best = lines.iter().find(|(_, l)| l.starts_with("bestmove")).map(|(t, _)| *t);
    assert!(first_best.is_some_and(|t| t >= written[2]), "{}", o.out);
    assert!(o.out.contains("info string go: depth must be from 1 to 246, not 0; using 1"), "{}", o.out);
    assert_eq!(o.out.lines().filter(|l| l.starts_with("bestmove ")).count(), 2, "{}", o.out);
}
