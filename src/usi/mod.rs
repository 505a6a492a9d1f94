//! The USI front end: reads commands, turns them into calls on the engine session
//! (`crate::engine`) and answers on stdout. The session holds the state (position, options,
//! table, threads, net); this layer parses lines and formats what comes back.
//!
//! A reader thread owns stdin and passes lines over a channel, so that stdin stays live whatever
//! the main loop is doing; the main loop handles them in order and never blocks on a search
//! (searches run in the thread pool). Commands: see `UsiSession::handle`.

pub mod go;
pub mod input;
mod job;
pub mod output;
pub mod transport;

use crate::engine::options::Options;
use crate::engine::{Engine, BUILD_CPU, ENGINE_AUTHOR, ENGINE_NAME};
use crate::position::Position;
use crate::search::Limits;
use crate::tools;
use go::{parse_go, GoCommand};
use output::{info_string, option_lines, send, UsiMateReporter, UsiReporter};
use std::sync::Arc;

/// The USI protocol over an engine session.
pub struct UsiSession {
    engine: Engine,
    /// A problem with the defaults file, reported with the `usi` answer.
    config_problem: Option<String>,
    /// `go perft` or `bench`, running beside the command loop.
    job: Option<job::Job>,
}

impl UsiSession {
    pub fn new(engine: Engine, config_problem: Option<String>) -> UsiSession {
        UsiSession { engine, config_problem, job: None }
    }

    /// Handles one command line as received; returns false on `quit`. A line that is not UTF-8
    /// is read with its undecodable bytes replaced (and a message), except the value of a
    /// `setoption`, which names a file and is kept as bytes (see `Engine::set_option_bytes`).
    pub fn handle_bytes(&mut self, line: &[u8]) -> bool {
        if let Ok(text) = std::str::from_utf8(line) {
            return self.handle(text);
        }
        let words = input::words(line);
        if words.first() == Some(&&b"setoption"[..]) {
            self.setoption_bytes(&words[1..]);
            return true;
        }
        let text = String::from_utf8_lossy(line);
        info_string("input line is not valid UTF-8: undecodable bytes replaced with U+FFFD");
        self.handle(&text)
    }

    /// Handles one command line; returns false on `quit`.
    pub fn handle(&mut self, line: &str) -> bool {
        let tokens: Vec<&str> = line.split_whitespace().collect();
        match tokens.as_slice() {
            [] => {}
            ["usi"] => self.usi(),
            ["isready"] => {
                for message in self.engine.prepare() {
                    info_string(&message);
                }
                send("readyok");
            }
            ["setoption", rest @ ..] => self.setoption(rest),
            ["usinewgame"] => {
                for message in self.engine.new_game() {
                    info_string(&message);
                }
            }
            ["position", rest @ ..] => self.position(rest),
            ["go", rest @ ..] => self.go(rest),
            ["stop"] => {
                self.engine.stop();
                if let Some(job) = &self.job {
                    job.stop();
                }
            }
            ["ponderhit", rest @ ..] => self.ponderhit(rest),
            ["gameover", ..] => self.engine.stop_and_wait(),
            ["quit"] => {
                self.end_job();
                self.engine.stop_and_wait();
                return false;
            }
            ["d"] => self.display(),
            ["eval"] => send(&format!("eval = {}", self.engine.evaluate())),
            ["moves"] => {
                let moves: Vec<String> = self.engine.legal_moves().iter().map(|m| m.to_usi()).collect();
                send(&moves.join(" "));
            }
            ["bench", rest @ ..] => self.bench(rest),
            [cmd, ..] => info_string(&format!("unknown command '{cmd}' ignored")),
        }
        true
    }

    fn usi(&self) {
        send(&format!("id name {ENGINE_NAME} {BUILD_CPU}"));
        send(&format!("id author {ENGINE_AUTHOR}"));
        for line in option_lines(self.engine.options()) {
            send(&line);
        }
        send("usiok");
        if let Some(p) = &self.config_problem {
            info_string(p);
        }
    }

    fn setoption(&mut self, rest: &[&str]) {
        // setoption name <id...> [value <x...>]; an empty string arrives as "value" with nothing after.
        let Some(("name", rest)) = rest.split_first().map(|(h, t)| (*h, t)) else {
            info_string("setoption: expected 'name'");
            return;
        };
        let (name, value) = match rest.iter().position(|&t| t == "value") {
            Some(i) => (rest[..i].join(" "), rest[i + 1..].join(" ")),
            None => (rest.join(" "), String::new()),
        };
        if name.is_empty() {
            info_string("setoption: missing option name");
            return;
        }
        if let Err(e) = self.engine.set_option(&name, &value) {
            info_string(&format!("setoption ignored: {e}"));
        }
    }

    /// `setoption` from a line that is not UTF-8: the name must be, the value is kept as bytes.
    fn setoption_bytes(&mut self, rest: &[&[u8]]) {
        let Some(rest) = rest.strip_prefix(&[&b"name"[..]]) else {
            info_string("setoption: expected 'name'");
            return;
        };
        let (name, value) = match rest.iter().position(|&t| t == b"value") {
            Some(i) => (&rest[..i], rest[i + 1..].join(&b' ')),
            None => (rest, Vec::new()),
        };
        let Ok(name) = std::str::from_utf8(&name.join(&b' ')).map(str::to_string) else {
            info_string("setoption ignored: the option name is not valid UTF-8");
            return;
        };
        match self.engine.set_option_bytes(&name, &value) {
            Ok(true) => info_string(&format!(
                "setoption {name}: the value is not UTF-8; kept as the file name's bytes ({})",
                String::from_utf8_lossy(&value)
            )),
            Ok(false) => {}
            Err(e) => info_string(&format!("setoption ignored: {e}")),
        }
    }

    /// `position startpos|sfen ... [moves ...]`: an unusable line keeps the previous position; an
    /// illegal move sets the position before it.
    fn position(&mut self, rest: &[&str]) {
        match Position::from_usi_args(rest) {
            Ok((pos, illegal)) => {
                self.engine.set_position(pos);
                if let Some(m) = illegal {
                    info_string(&format!("position: {m}; position set to the one before it"));
                }
            }
            Err(e) => info_string(&format!("position: {e}; keeping the previous position")),
        }
    }

    fn go(&mut self, rest: &[&str]) {
        let (cmd, warnings) = match parse_go(rest, self.engine.position()) {
            Ok(x) => x,
            Err(e) => {
                // Still exactly one answer per `go`: search without limits would hang a GUI, so
                // report and answer with a quick search.
                info_string(&format!("go: {e}; searching to depth 1"));
                (GoCommand::Search(Limits { depth: Some(1), ..Limits::default() }), Vec::new())
            }
        };
        for w in warnings {
            info_string(&w);
        }
        // A go during a search (not expected from a GUI) ends the old search first; it ends
        // a perft or bench too.
        self.end_job();
        match cmd {
            GoCommand::Perft(depth) => {
                self.engine.stop_and_wait();
                let mut pos = self.engine.position().clone();
                self.start_job("go perft", move |stop| {
                    tools::perft::report_divide(&mut pos, depth, true, stop, &mut |line| send(line))
                });
            }
            GoCommand::Mate(request) => self.engine.start_mate(request, Arc::new(UsiMateReporter)),
            GoCommand::Search(limits) => {
                let ponder = self.engine.options().bool(crate::engine::options::USI_PONDER);
                self.engine.start_search(limits, Arc::new(UsiReporter { ponder }));
            }
        }
    }

    fn ponderhit(&mut self, rest: &[&str]) {
        let limits = if rest.is_empty() {
            None
        } else {
            match parse_go(rest, self.engine.position()) {
                Ok((GoCommand::Search(l), _)) => Some(l),
                _ => {
                    info_string("ponderhit: could not read the clock; keeping the go limits");
                    None
                }
            }
        };
        self.engine.ponderhit(limits);
    }

    fn display(&self) {
        let pos = self.engine.position();
        for line in board_diagram(pos) {
            send(&line);
        }
        send(&format!("sfen {}", pos.to_sfen()));
        send(&format!("key {:016x}", pos.key()));
        let checkers: Vec<String> = pos.checkers().iter().map(|s| s.to_string()).collect();
        send(&format!("checkers {}", if checkers.is_empty() { "-".to_string() } else { checkers.join(" ") }));
    }

    fn bench(&mut self, rest: &[&str]) {
        let (depth, extra) = match rest {
            [] => (tools::bench::DEFAULT_DEPTH, rest),
            [d, extra @ ..] => match tools::bench::parse_depth(d) {
                Ok(depth) => (depth, extra),
                Err(e) => return info_string(&format!("bench: {e}; not run")),
            },
        };
        if !extra.is_empty() {
            info_string(&format!("bench: ignored '{}' after the depth", extra.join(" ")));
        }
        self.engine.stop_and_wait();
        self.end_job();
        self.start_job("bench", move |stop| {
            tools::bench::report(depth, stop, &mut |line| send(line));
        });
    }

    /// Runs `work` beside the command loop (see `job.rs`).
    fn start_job(&mut self, name: &str, work: impl FnOnce(&std::sync::atomic::AtomicBool) + Send + 'static) {
        match job::Job::spawn(name, work) {
            Ok(job) => self.job = Some(job),
            Err(e) => info_string(&format!("{name}: cannot start its thread ({e})")),
        }
    }

    /// Stops a running `go perft` or `bench` and waits for its last lines.
    fn end_job(&mut self) {
        if let Some(job) = self.job.take() {
            job.stop_and_wait();
        }
    }
}

/// A 9x9 diagram as black sees the board, with the hands.
pub fn board_diagram(pos: &Position) -> Vec<String> {
    use crate::types::{Color, Square};
    let mut out = Vec::new();
    out.push(format!("white hand: {:?}", pos.hand(Color::White)));
    out.push("  9  8  7  6  5  4  3  2  1".to_string());
    for rank in 0..9u8 {
        let mut row = String::new();
        for file in (0..9u8).rev() {
            let sq = Square::new(file, rank).expect("on board");
            let cell = match pos.piece_on(sq) {
                None => " . ".to_string(),
                Some(pc) => format!("{:>3}", pc.sfen()),
            };
            row.push_str(&cell);
        }
        out.push(format!("{row} {}", (b'a' + rank) as char));
    }
    out.push(format!("black hand: {:?}", pos.hand(Color::Black)));
    out.push(format!("side to move: {:?}", pos.side_to_move()));
    out
}

/// Runs the USI loop until `quit` or the end of input.
pub fn run(options: Options, config_problem: Option<String>) {
    let rx = match input::spawn_reader(std::io::stdin()) {
        Ok(rx) => rx,
        Err(e) => {
            log::error!("cannot start the stdin reader: {e}");
            return;
        }
    };
    let mut session = UsiSession::new(Engine::new(options), config_problem);
    for line in rx {
        if !session.handle_bytes(&line) {
            break;
        }
    }
}
