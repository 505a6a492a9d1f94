//! The engine binary talked to line by line, for the tests that wait for one answer before
//! sending the next command, and run to its end for the one-shot commands ([`run`]). Every wait
//! has a deadline, stderr is collected for the failure messages, and the engine is killed when
//! the value is dropped, so that no test can hang.

use std::collections::VecDeque;
use std::io::{BufRead, BufReader, Read, Write};
use std::path::Path;
use std::process::{Child, ChildStdin, Command, ExitStatus, Stdio};
use std::sync::mpsc::{channel, Receiver, RecvTimeoutError};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// How long any one answer may take by default (a loaded machine included; the first `isready`
/// allocates the tables).
pub const ANSWER_LIMIT: Duration = Duration::from_secs(30);

/// How many lines the failure messages show at most: a long session (the fuzz test's million
/// lines) is not kept whole.
const TRANSCRIPT_LINES: usize = 10_000;

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
    /// Disconnected when the stderr reader has read the end of stderr.
    stderr_end: Receiver<()>,
    /// Every line it printed so far (read so far by a wait), for the checks and the failure
    /// messages.
    pub seen: Vec<String>,
    /// When each line of [`Engine::seen`] arrived.
    pub arrived: Vec<Instant>,
    /// The last [`TRANSCRIPT_LINES`] lines sent (`> `) and read (`< `) in their order, for the
    /// failure messages.
    transcript: VecDeque<String>,
    /// How many lines left the transcript.
    dropped: usize,
}

/// What [`Engine::next_within`] got: a line, nothing in time, or the end of the engine's output.
pub enum Next {
    Line(String),
    Timeout,
    Ended,
}

/// How a one-shot command ([`run`]) ended.
pub struct Ran {
    /// The exit code; `None` when it was killed at the limit (or by a signal).
    pub code: Option<i32>,
    /// Its stdout, each line ended by `\n`.
    pub stdout: String,
    pub stderr: String,
    /// From the start to its end (or to the kill).
    pub took: Duration,
}

/// Runs `cmd` (program, arguments, working directory as the caller set them) with its input
/// closed, as `Command::output` does, but killed after `limit` so that a hang fails the test.
pub fn run(cmd: Command, limit: Duration) -> Ran {
    run_watched(cmd, limit, |_| {})
}

/// [`run`], telling `started` the process id once the process is started (for a test that
/// signals it or watches it while it runs).
pub fn run_watched(cmd: Command, limit: Duration, started: impl FnOnce(u32)) -> Ran {
    let start = Instant::now();
    let mut e = Engine::start_cmd(cmd);
    started(e.pid());
    e.close_input();
    let code = e.wait_exit(limit).and_then(|s| s.code());
    let took = start.elapsed();
    Ran { code, stdout: e.seen.iter().map(|l| format!("{l}\n")).collect(), stderr: e.stderr(), took }
}

/// `hayate ARGS` in `dir` under a limit on its address space of `kib` KiB (`ulimit -v`), as a
/// machine short of memory: a regression that reads a huge file whole fails at once instead of
/// taking the machine's memory.
pub fn limited(dir: &Path, kib: u64, args: &[&str]) -> Command {
    let mut cmd = Command::new("sh");
    cmd.arg("-c").arg(format!("ulimit -v {kib} && exec \"$0\" \"$@\"")).arg(HAYATE).args(args);
    cmd.current_dir(dir);
    cmd
}

/// `hayate ARGS` in the repository's folder, for [`run`].
pub fn hayate(args: &[&str]) -> Command {
    let mut cmd = Command::new(HAYATE);
    cmd.args(args).current_dir(env!("CARGO_MANIFEST_DIR"));
    cmd
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
        Engine::start_cmd(limited(Path::new(env!("CARGO_MANIFEST_DIR")), kib, &[]))
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
        let (end_tx, stderr_end) = channel::<()>();
        std::thread::spawn(move || {
            let _end = end_tx;
            let mut buf = [0u8; 4096];
            while let Ok(n @ 1..) = err.read(&mut buf) {
                sink.lock().unwrap().extend_from_slice(&buf[..n]);
            }
        });
        Engine {
            child,
            stdin,
            lines,
            stderr,
            stderr_end,
            seen: Vec::new(),
            arrived: Vec::new(),
            transcript: VecDeque::new(),
            dropped: 0,
        }
    }

    /// Adds an entry to the transcript, the oldest left out beyond [`TRANSCRIPT_LINES`].
    fn note(&mut self, entry: String) {
        if self.transcript.len() == TRANSCRIPT_LINES {
            self.transcript.pop_front();
            self.dropped += 1;
        }
        self.transcript.push_back(entry);
    }

    fn record(&mut self, at: Instant, line: String) {
        self.note(format!("< {line}"));
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

    /// The lines sent (`> `) and read (`< `) so far, in order (the last [`TRANSCRIPT_LINES`]).
    pub fn transcript(&self) -> &VecDeque<String> {
        &self.transcript
    }

    /// What was sent and printed so far, in order, then stderr, for a failure message.
    pub fn output(&self) -> String {
        let earlier = match self.dropped {
            0 => String::new(),
            n => format!("({n} earlier lines left out)\n"),
        };
        let shown: Vec<&str> = self.transcript.iter().map(String::as_str).collect();
        format!("{earlier}{}\n-- stderr:\n{}", shown.join("\n"), self.stderr())
    }

    /// Writes `text` to the engine; an error when the engine no longer reads its input (it
    /// ended, or the input was closed).
    pub fn try_send_bytes(&mut self, text: &[u8]) -> std::io::Result<()> {
        let Some(stdin) = self.stdin.as_mut() else {
            return Err(std::io::Error::new(std::io::ErrorKind::BrokenPipe, "input closed"));
        };
        stdin.write_all(text)?;
        stdin.flush()?;
        // The transcript keeps what a person can read: a line each, invalid UTF-8 shown.
        for line in String::from_utf8_lossy(text).lines() {
            self.note(format!("> {line}"));
        }
        Ok(())
    }

    /// Writes `text` to the engine; returns when it was written. A write the engine no longer
    /// reads (it ended) is left to the waits to report.
    pub fn send_bytes(&mut self, text: &[u8]) -> Instant {
        let _ = self.try_send_bytes(text);
        Instant::now()
    }

    /// Writes one line (its end added) to the engine.
    pub fn send_line(&mut self, line: &str) -> Instant {
        self.send(&format!("{line}\n"))
    }

    /// Writes `text` (whole lines) to the engine; returns when it was written.
    pub fn send(&mut self, text: &str) -> Instant {
        self.send_bytes(text.as_bytes())
    }

    /// Closes the engine's input (the end of input a GUI's exit gives).
    pub fn close_input(&mut self) {
        self.stdin = None;
    }

    /// Stops reading the engine's output: the reader closes the pipe at the next line it gets,
    /// as `hayate ... | head` does. Nothing more is seen.
    pub fn close_output(&mut self) {
        // A receiver whose sender is gone: the reader's next send fails and it drops the pipe.
        self.lines = channel().1;
    }

    /// The next line within `limit`, without failing the test: for the callers that handle a
    /// timeout or an end themselves.
    pub fn next_within(&mut self, limit: Duration) -> Next {
        match self.lines.recv_timeout(limit) {
            Ok((at, line)) => {
                self.record(at, line.clone());
                Next::Line(line)
            }
            Err(RecvTimeoutError::Timeout) => Next::Timeout,
            Err(RecvTimeoutError::Disconnected) => Next::Ended,
        }
    }

    /// The lines that arrive within `wait`, without expecting any.
    pub fn drain(&mut self, wait: Duration) -> Vec<String> {
        let deadline = Instant::now() + wait;
        let mut got = Vec::new();
        while let Next::Line(line) = self.next_within(deadline.saturating_duration_since(Instant::now())) {
            got.push(line);
        }
        got
    }

    /// The lines up to and including the first one that `done` accepts, and when that one came,
    /// within `limit`. Fails the test when it does not come in time or the engine ends first.
    pub fn until_within(&mut self, limit: Duration, done: impl Fn(&str) -> bool) -> (Vec<String>, Instant) {
        let deadline = Instant::now() + limit;
        let mut got = Vec::new();
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.next_within(left) {
                Next::Line(line) => {
                    let at = *self.arrived.last().expect("the line just recorded");
                    let done = done(&line);
                    got.push(line);
                    if done {
                        return (got, at);
                    }
                }
                Next::Timeout => panic!("no answer in {limit:?}; output:\n{}", self.output()),
                Next::Ended => {
                    let status = self.child.wait().expect("wait");
                    panic!("hayate ended ({status}); output:\n{}", self.output())
                }
            }
        }
    }

    /// Whether a line that `done` accepts comes within `limit` (the lines before it are read);
    /// `false` when none does or the engine ends first, for the tests that fail with their own
    /// message.
    pub fn came_within(&mut self, limit: Duration, done: impl Fn(&str) -> bool) -> bool {
        let deadline = Instant::now() + limit;
        loop {
            match self.next_within(deadline.saturating_duration_since(Instant::now())) {
                Next::Line(line) if done(&line) => return true,
                Next::Line(_) => {}
                Next::Timeout | Next::Ended => return false,
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
                // And the stderr reader its last bytes, for the callers that check stderr.
                let _ = self.stderr_end.recv_timeout(Duration::from_secs(1));
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
