//! Hostile input through the real binary: each case is something a GUI, a user or a file can
//! send, which once stopped, hung or killed the engine (issue 12). Every case ends with the
//! engine still answering (`readyok`) or exiting cleanly within a time limit.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
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
    session_cmd(Command::new(env!("CARGO_BIN_EXE_hayate")), dir, input, hold, limit)
}

fn session_cmd(mut cmd: Command, dir: &Path, input: &[u8], hold: Duration, limit: Duration) -> Outcome {
    let mut child = cmd
        .current_dir(dir)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("start hayate");
    let mut stdin = child.stdin.take().unwrap();
    let mut stdout = child.stdout.take().unwrap();
    let reader = std::thread::spawn(move || {
        let mut s = Vec::new();
        std::io::Read::read_to_end(&mut stdout, &mut s).ok();
        String::from_utf8_lossy(&s).into_owned()
    });
    let input = input.to_vec();
    let writer = std::thread::spawn(move || {
        let _ = stdin.write_all(&input);
        let _ = stdin.flush();
        std::thread::sleep(hold);
        drop(stdin);
    });
    let start = Instant::now();
    let code = loop {
        if let Some(status) = child.try_wait().expect("wait") {
            break status.code();
        }
        if start.elapsed() > limit {
            let _ = child.kill();
            let _ = child.wait();
            break None;
        }
        std::thread::sleep(Duration::from_millis(10));
    };
    writer.join().unwrap();
    Outcome { out: reader.join().unwrap(), code }
}

fn session(input: &[u8]) -> Outcome {
    session_in(Path::new(env!("CARGO_MANIFEST_DIR")), input, Duration::ZERO, Duration::from_secs(20))
}

/// A fresh empty folder under the system's temporary folder.
fn temp_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("hayate-reliability-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
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
    std::fs::remove_dir_all(&dir).unwrap();
}
