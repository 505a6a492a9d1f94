//! The engine binary talked to line by line, for the tests that wait for one answer before
//! sending the next command. Every wait has a deadline, stderr is collected for the failure
//! messages, and the engine is killed when the value is dropped, so that no test can hang.

use std::io::{BufRead, BufReader, Read, Write};
use std::path::Path;
use std::process::{Child, ChildStdin, Command, ExitStatus, Stdio};
use std::sync::mpsc::{channel, Receiver, RecvTimeoutError};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// How long any one answer may take by default (a loaded machine included; the first `isready`
/// allocates the tables).
pub const ANSWER_LIMIT: Duration = Duration::from_secs(30);

/// The engine binary under test.
pub const HAYATE: &str = env!("CARGO_BIN_EXE_hayate");

pub struct Engine {
    child: Child,
    /// `None` once the input is closed.
    stdin: Option<ChildStdin>,
    /// The lines of stdout, each with when it arrived.
    lines: Receiver<(Instant, String)>,
    /// Everything it wrote to stderr so far.
    stderr: Arc<Mutex<Vec<u8>>>,
    /// Every line it printed so far (read so far by a wait), for the checks and the failure
    /// messages.
    pub seen: Vec<String>,
    /// When each line of [`Engine::seen`] arrived.
    pub arrived: Vec<Instant>,
}

impl Engine {
    /// The engine binary, started in the repository's folder.
    pub fn start() -> Engine {
        Engine::start_in(Path::new(env!("CARGO_MANIFEST_DIR")))
    }

    /// The engine binary, started in `dir`.
    pub fn start_in(dir: &Path) -> Engine {
        let mut cmd = Command::new(HAYATE);
        cmd.current_dir(dir);
        Engine::start_cmd(cmd)
    }

    /// The engine under a limit on its address space of `kib` KiB (`ulimit -v`), as a machine
    /// short of memory, in the repository's folder.
    #[cfg(unix)]
    pub fn start_limited(kib: u64) -> Engine {
        let mut cmd = Command::new("sh");
        cmd.args(["-c", &format!("ulimit -v {kib} && exec \"$0\""), HAYATE]);
        cmd.current_dir(env!("CARGO_MANIFEST_DIR"));
        Engine::start_cmd(cmd)
    }

    /// Runs `cmd` (its program, arguments and working directory as the caller set them) with its
    /// three streams taken here.
    pub fn start_cmd(mut cmd: Command) -> Engine {
        let mut child = cmd
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("start hayate");
        let stdin = child.stdin.take();
        let stdout = child.stdout.take().expect("piped stdout");
        let mut err = child.stderr.take().expect("piped stderr");
        let (tx, lines) = channel();
        std::thread::spawn(move || {
            // Line by line as bytes: a line that is not UTF-8 is shown, not the end of the output.
            let mut reader = BufReader::new(stdout);
            let mut line = Vec::new();
            while reader.read_until(b'\n', &mut line).is_ok_and(|n| n > 0) {
                let text = String::from_utf8_lossy(&line).trim_end_matches(['\n', '\r']).to_string();
                if tx.send((Instant::now(), text)).is_err() {
                    break;
                }
                line.clear();
            }
        });
        let stderr = Arc::new(Mutex::new(Vec::new()));
        let sink = Arc::clone(&stderr);
        std::thread::spawn(move || {
            let mut buf = [0u8; 4096];
            while let Ok(n @ 1..) = err.read(&mut buf) {
                sink.lock().unwrap().extend_from_slice(&buf[..n]);
            }
        });
        Engine { child, stdin, lines, stderr, seen: Vec::new(), arrived: Vec::new() }
    }

    fn record(&mut self, at: Instant, line: String) {
        self.seen.push(line);
        self.arrived.push(at);
    }

    /// The engine's process id.
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// What the engine wrote to stderr so far.
    pub fn stderr(&self) -> String {
        String::from_utf8_lossy(&self.stderr.lock().unwrap()).into_owned()
    }

    /// What it printed so far, stdout then stderr, for a failure message.
    pub fn output(&self) -> String {
        format!("{}\n-- stderr:\n{}", self.seen.join("\n"), self.stderr())
    }

    /// Writes `text` to the engine; returns when it was written. A write the engine no longer
    /// reads (it ended) is left to the waits to report.
    pub fn send_bytes(&mut self, text: &[u8]) -> Instant {
        if let Some(stdin) = self.stdin.as_mut() {
            let _ = stdin.write_all(text);
            let _ = stdin.flush();
        }
        Instant::now()
    }

    /// Writes `text` (whole lines) to the engine; returns when it was written.
    pub fn send(&mut self, text: &str) -> Instant {
        self.send_bytes(text.as_bytes())
    }

    /// Closes the engine's input (the end of input a GUI's exit gives).
    pub fn close_input(&mut self) {
        self.stdin = None;
    }

    /// The lines up to and including the first one that `done` accepts, and when that one came,
    /// within `limit`. Fails the test when it does not come in time or the engine ends first.
    pub fn until_within(&mut self, limit: Duration, done: impl Fn(&str) -> bool) -> (Vec<String>, Instant) {
        let deadline = Instant::now() + limit;
        let mut got = Vec::new();
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.lines.recv_timeout(left) {
                Ok((at, line)) => {
                    self.record(at, line.clone());
                    got.push(line.clone());
                    if done(&line) {
                        return (got, at);
                    }
                }
                Err(RecvTimeoutError::Timeout) => {
                    panic!("no answer in {limit:?}; output:\n{}", self.output())
                }
                Err(RecvTimeoutError::Disconnected) => {
                    let status = self.child.wait().expect("wait");
                    panic!("hayate ended ({status}); output:\n{}", self.output())
                }
            }
        }
    }

    /// [`Engine::until_within`] the default [`ANSWER_LIMIT`].
    pub fn until_timed(&mut self, done: impl Fn(&str) -> bool) -> (Vec<String>, Instant) {
        self.until_within(ANSWER_LIMIT, done)
    }

    /// [`Engine::until_timed`] without the time.
    pub fn until(&mut self, done: impl Fn(&str) -> bool) -> Vec<String> {
        self.until_timed(done).0
    }

    /// Waits up to `limit` for the engine to end, reading what it still prints; `None` when it
    /// had not ended by then (it is killed when dropped).
    pub fn wait_exit(&mut self, limit: Duration) -> Option<ExitStatus> {
        let deadline = Instant::now() + limit;
        loop {
            while let Ok((at, line)) = self.lines.try_recv() {
                self.record(at, line);
            }
            if let Some(status) = self.child.try_wait().expect("wait") {
                // The reader thread may still hold the last lines.
                while let Ok((at, line)) = self.lines.recv_timeout(Duration::from_millis(200)) {
                    self.record(at, line);
                }
                return Some(status);
            }
            if Instant::now() >= deadline {
                return None;
            }
            std::thread::sleep(Duration::from_millis(10));
        }
    }

    /// Sends `quit` and checks that the engine ends cleanly.
    pub fn quit(mut self) {
        self.send("quit\n");
        match self.wait_exit(Duration::from_secs(10)) {
            Some(status) => assert!(status.success(), "exit {status}; output:\n{}", self.output()),
            None => panic!("no exit after quit; output:\n{}", self.output()),
        }
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
