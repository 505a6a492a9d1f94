//! An engine talked to line by line, for the tests that wait for one answer before sending the
//! next command (`tests/stop_then_isready.rs`, `tests/memory_limits.rs`). Every wait has a
//! deadline, and the engine is killed when the driver is dropped, so that no test can hang.

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{channel, Receiver, RecvTimeoutError};
use std::time::{Duration, Instant};

/// How long any one answer may take (a loaded machine included).
const ANSWER_LIMIT: Duration = Duration::from_secs(30);

pub struct Engine {
    child: Child,
    stdin: ChildStdin,
    /// The lines of stdout, each with when it arrived.
    lines: Receiver<(Instant, String)>,
    /// Every line it printed so far, for the failure messages.
    pub seen: Vec<String>,
}

impl Engine {
    /// The engine binary, started in the repository's folder.
    pub fn start() -> Engine {
        Engine::start_cmd(Command::new(env!("CARGO_BIN_EXE_hayate")))
    }

    /// The engine under a limit on its address space of `kib` KiB (`ulimit -v`), as a machine
    /// short of memory.
    #[cfg(unix)]
    pub fn start_limited(kib: u64) -> Engine {
        let mut cmd = Command::new("sh");
        cmd.args(["-c", &format!("ulimit -v {kib} && exec \"$0\""), env!("CARGO_BIN_EXE_hayate")]);
        Engine::start_cmd(cmd)
    }

    fn start_cmd(mut cmd: Command) -> Engine {
        let mut child = cmd
            .current_dir(env!("CARGO_MANIFEST_DIR"))
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("start hayate");
        let stdin = child.stdin.take().unwrap();
        let stdout = child.stdout.take().unwrap();
        let (tx, lines) = channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines().map_while(Result::ok) {
                if tx.send((Instant::now(), line)).is_err() {
                    break;
                }
            }
        });
        Engine { child, stdin, lines, seen: Vec::new() }
    }

    /// The engine's process id.
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// Writes `text` (whole lines) to the engine; returns when it was written.
    pub fn send(&mut self, text: &str) -> Instant {
        self.stdin.write_all(text.as_bytes()).expect("write to hayate");
        self.stdin.flush().expect("flush");
        Instant::now()
    }

    /// The lines up to and including the first one that `done` accepts, and when that one came.
    /// Fails the test when it does not come in time or the engine ends first.
    pub fn until_timed(&mut self, done: impl Fn(&str) -> bool) -> (Vec<String>, Instant) {
        let deadline = Instant::now() + ANSWER_LIMIT;
        let mut got = Vec::new();
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.lines.recv_timeout(left) {
                Ok((at, line)) => {
                    self.seen.push(line.clone());
                    got.push(line.clone());
                    if done(&line) {
                        return (got, at);
                    }
                }
                Err(RecvTimeoutError::Timeout) => {
                    panic!("no answer in {ANSWER_LIMIT:?}; output:\n{}", self.seen.join("\n"))
                }
                Err(RecvTimeoutError::Disconnected) => {
                    let status = self.child.wait().expect("wait");
                    panic!("hayate ended ({status}); output:\n{}", self.seen.join("\n"))
                }
            }
        }
    }

    /// [`Engine::until_timed`] without the time.
    pub fn until(&mut self, done: impl Fn(&str) -> bool) -> Vec<String> {
        self.until_timed(done).0
    }

    /// Sends `quit` and checks that the engine ends cleanly.
    pub fn quit(mut self) {
        self.send("quit\n");
        let deadline = Instant::now() + Duration::from_secs(10);
        while Instant::now() < deadline {
            if let Some(status) = self.child.try_wait().expect("wait") {
                assert!(status.success(), "exit {status}; output:\n{}", self.seen.join("\n"));
                return;
            }
            std::thread::sleep(Duration::from_millis(10));
        }
        panic!("no exit after quit; output:\n{}", self.seen.join("\n"));
    }
}

impl Drop for Engine {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

pub fn is_best(line: &str) -> bool {
    line.starts_with("bestmove ")
}
