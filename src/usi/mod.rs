//! The USI front end: reads commands, keeps the engine state (position, options, table, thread
//! pool) and answers on stdout. The only layer that prints.
//!
//! A reader thread owns stdin and passes lines over a channel, so that stdin stays live whatever
//! the main loop is doing; the main loop handles them in order and never blocks on a search
//! (searches run in the thread pool). Commands: see `handle`.

pub mod go;
pub mod mate_cmd;
pub mod options;
pub mod output;
pub mod position_cmd;

use crate::eval::nnue::{Network, NnueError};
use crate::eval::{EvalType, Evaluator};
use crate::position::{DeclarationRule, MoveList, Position};
use crate::search::time::TimeOptions;
use crate::search::{Limits, SearchConfig, ThreadPool, TranspositionTable};
use go::{parse_go, GoCommand};
use mate_cmd::{MateRequest, MateRunner};
use options::Options;
use output::{info_string, send, UsiReporter};
use position_cmd::{parse_position, Parsed};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

pub const ENGINE_NAME: &str = concat!("Hayate ", env!("CARGO_PKG_VERSION"));
pub const ENGINE_AUTHOR: &str = "the Hayate developers";

/// The engine's state between commands.
pub struct Engine {
    pos: Position,
    options: Options,
    pool: ThreadPool,
    tt: Arc<TranspositionTable>,
    /// A problem with the defaults file, reported with the `usi` answer.
    config_problem: Option<String>,
    /// The NNUE net in use, if one is loaded.
    net: Option<Arc<Network>>,
    /// The file the last load attempt read (reloaded only when the options name another).
    net_source: Option<PathBuf>,
    /// `go mate`'s solver.
    mate: MateRunner,
}

impl Engine {
    pub fn new(options: Options, config_problem: Option<String>) -> Engine {
        Engine {
            pos: Position::startpos(),
            pool: ThreadPool::new(1),
            tt: Arc::new(TranspositionTable::new(1)),
            options,
            config_problem,
            net: None,
            net_source: None,
            mate: MateRunner::default(),
        }
    }

    /// Where the options say the NNUE file is: `EvalFile` when set, else `EvalDir/nn.bin`;
    /// relative paths are tried from the working directory, then from the binary's folder.
    fn eval_path(&self) -> PathBuf {
        let file = self.options.text(options::EVAL_FILE);
        let path = if file.is_empty() {
            Path::new(self.options.text(options::EVAL_DIR)).join("nn.bin")
        } else {
            PathBuf::from(file)
        };
        if path.is_relative() && !path.exists() {
            if let Some(dir) = std::env::current_exe().ok().and_then(|e| e.parent().map(Path::to_path_buf)) {
                let beside = dir.join(&path);
                if beside.exists() {
                    return beside;
                }
            }
        }
        path
    }

    /// Loads the NNUE net named by the options (on `isready`); without one, or when it cannot be
    /// used, the embedded evaluation plays, and the GUI is told why.
    fn load_eval(&mut self) {
        let path = self.eval_path();
        if self.net_source.as_ref() != Some(&path) {
            self.net_source = Some(path.clone());
            self.net = match Network::load(&path) {
                Ok(net) => {
                    info_string(&format!("NNUE loaded from {}", path.display()));
                    Some(Arc::new(net))
                }
                Err(NnueError::Io { source, .. }) if source.kind() == std::io::ErrorKind::NotFound => {
                    info_string(&format!(
                        "no NNUE file at {}: using the embedded evaluation",
                        path.display()
                    ));
                    None
                }
                Err(e) => {
                    info_string(&format!("{}: {e}; using the embedded evaluation", path.display()));
                    None
                }
            };
        }
        self.pool.set_network(self.eval_type(), self.net.as_ref(), self.fv_scale());
    }

    fn fv_scale(&self) -> i32 {
        self.options.int(options::FV_SCALE) as i32
    }

    fn eval_type(&self) -> EvalType {
        EvalType::from_name(self.options.text(options::EVAL_TYPE)).unwrap_or_default()
    }

    /// An evaluator for the current position, as the search would use it.
    fn evaluator(&self) -> Evaluator {
        let mut e = Evaluator::default();
        e.configure(self.eval_type(), self.net.as_ref(), self.fv_scale());
        e.reset(&self.pos);
        e
    }

    fn search_config(&self) -> SearchConfig {
        let o = &self.options;
        SearchConfig {
            multi_pv: o.int(options::MULTI_PV) as usize,
            draw_value_black: o.int(options::DRAW_VALUE_BLACK) as i32,
            draw_value_white: o.int(options::DRAW_VALUE_WHITE) as i32,
            max_moves_to_draw: o.int(options::MAX_MOVES_TO_DRAW) as u32,
            entering_king_rule: DeclarationRule::from_name(o.text(options::ENTERING_KING_RULE))
                .unwrap_or(DeclarationRule::CSARule27),
            generate_all_moves: o.bool(options::GENERATE_ALL_LEGAL_MOVES),
            resign_value: o.int(options::RESIGN_VALUE) as i32,
            time: TimeOptions {
                network_delay: o.int(options::NETWORK_DELAY) as u64,
                network_delay2: o.int(options::NETWORK_DELAY2) as u64,
                minimum_thinking_time: o.int(options::MINIMUM_THINKING_TIME) as u64,
                slow_mover: o.int(options::SLOW_MOVER) as u64,
                round_up_to_full_second: o.bool(options::ROUND_UP_TO_FULL_SECOND),
            },
        }
    }

    /// Makes the table and threads match the options (on `isready`, when no search runs).
    fn apply_resources(&mut self) {
        let mb = self.options.int(options::USI_HASH) as usize;
        if self.tt.size_mb() != mb {
            // Free the old table before allocating the new one.
            self.tt = Arc::new(TranspositionTable::new(1));
            self.tt = Arc::new(TranspositionTable::new(mb));
        }
        let threads = self.options.int(options::THREADS) as usize;
        if self.pool.threads() != threads {
            self.pool.set_threads(threads);
        }
    }

    /// Handles one command line; returns false on `quit`.
    pub fn handle(&mut self, line: &str) -> bool {
        let tokens: Vec<&str> = line.split_whitespace().collect();
        match tokens.as_slice() {
            [] => {}
            ["usi"] => self.usi(),
            ["isready"] => {
                if !self.pool.is_searching() {
                    self.pool.wait();
                    self.apply_resources();
                    self.load_eval();
                }
                send("readyok");
            }
            ["setoption", rest @ ..] => self.setoption(rest),
            ["usinewgame"] => {
                self.pool.stop_and_wait();
                self.mate.stop_and_wait();
                self.apply_resources();
                self.tt.clear();
                self.pool.clear();
            }
            ["position", rest @ ..] => self.position(rest),
            ["go", rest @ ..] => self.go(rest),
            ["stop"] => {
                self.pool.control().stop();
                self.mate.stop();
            }
            ["ponderhit", rest @ ..] => self.ponderhit(rest),
            ["gameover", ..] => {
                self.pool.stop_and_wait();
                self.mate.stop_and_wait();
            }
            ["quit"] => {
                self.pool.stop_and_wait();
                self.mate.stop_and_wait();
                return false;
            }
            ["d"] => self.display(),
            ["eval"] => send(&format!("eval = {}", self.evaluator().evaluate(&self.pos))),
            ["moves"] => {
                let list = MoveList::legal(&self.pos, self.options.bool(options::GENERATE_ALL_LEGAL_MOVES));
                let moves: Vec<String> = list.iter().map(|m| m.to_usi()).collect();
                send(&moves.join(" "));
            }
            ["bench", rest @ ..] => self.bench(rest),
            [cmd, ..] => info_string(&format!("unknown command '{cmd}' ignored")),
        }
        true
    }

    fn usi(&self) {
        send(&format!("id name {ENGINE_NAME}"));
        send(&format!("id author {ENGINE_AUTHOR}"));
        for line in self.options.usi_lines() {
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
        #[cfg(feature = "tune")]
        if let Some(p) = crate::search::params::ALL.iter().find(|p| p.name == name) {
            match value.parse::<i32>() {
                Ok(v) if crate::search::params::set(p.name, v) => {}
                _ => info_string(&format!("setoption: bad value '{value}' for {name}")),
            }
            let _ = self.options.set(&name, &value);
            return;
        }
        if let Err(e) = self.options.set(&name, &value) {
            info_string(&format!("setoption ignored: {e}"));
        }
    }

    fn position(&mut self, rest: &[&str]) {
        match parse_position(rest) {
            Parsed::Ok(pos, warning) => {
                self.pos = *pos;
                if let Some(w) = warning {
                    info_string(&w);
                }
            }
            Parsed::Err(e) => info_string(&e),
        }
    }

    fn go(&mut self, rest: &[&str]) {
        let (cmd, warnings) = match parse_go(rest, &self.pos) {
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
        // A go during a search (not expected from a GUI) ends the old search first.
        self.pool.stop_and_wait();
        self.mate.stop_and_wait();
        match cmd {
            GoCommand::Perft(depth) => self.perft(depth),
            GoCommand::Mate(limits) => {
                let option_nodes = self.options.int(options::MATE_NODES) as u64;
                let req = MateRequest {
                    time_ms: limits.mate.flatten(),
                    nodes: limits.nodes.or((option_nodes > 0).then_some(option_nodes)),
                };
                self.mate.start(&self.pos, req, self.options.int(options::MATE_HASH) as usize);
            }
            GoCommand::Search(limits) => {
                self.apply_resources();
                self.pool.set_network(self.eval_type(), self.net.as_ref(), self.fv_scale());
                let reporter = Arc::new(UsiReporter { ponder: self.options.bool(options::USI_PONDER) });
                let config = self.search_config();
                self.pool.start(&self.pos, limits, config, Arc::clone(&self.tt), reporter);
            }
        }
    }

    fn ponderhit(&mut self, rest: &[&str]) {
        let limits = if rest.is_empty() {
            None
        } else {
            match parse_go(rest, &self.pos) {
                Ok((GoCommand::Search(l), _)) => Some(l),
                _ => {
                    info_string("ponderhit: could not read the clock; keeping the go limits");
                    None
                }
            }
        };
        self.pool.control().ponderhit(limits);
    }

    fn perft(&mut self, depth: u32) {
        let start = Instant::now();
        let mut pos = self.pos.clone();
        let mut total = 0;
        for (m, n) in crate::perft::divide(&mut pos, depth.max(1), true) {
            send(&format!("{m}: {n}"));
            total += n;
        }
        let elapsed = start.elapsed().max(Duration::from_micros(1));
        send("");
        send(&format!("Nodes searched: {total}"));
        send(&format!("Time: {} ms", elapsed.as_millis()));
        send(&format!("Nodes/second: {}", (total as f64 / elapsed.as_secs_f64()) as u64));
    }

    fn display(&self) {
        for line in board_diagram(&self.pos) {
            send(&line);
        }
        send(&format!("sfen {}", self.pos.to_sfen()));
        send(&format!("key {:016x}", self.pos.key()));
        let checkers: Vec<String> = self.pos.checkers().iter().map(|s| s.to_string()).collect();
        send(&format!("checkers {}", if checkers.is_empty() { "-".to_string() } else { checkers.join(" ") }));
    }

    fn bench(&mut self, rest: &[&str]) {
        self.pool.stop_and_wait();
        self.mate.stop_and_wait();
        let depth = rest.first().and_then(|d| d.parse().ok()).unwrap_or(crate::bench::DEFAULT_DEPTH);
        let result = crate::bench::run(depth, |i, _sfen, nodes| {
            send(&format!("info string position {} nodes {nodes}", i + 1))
        });
        let secs = result.elapsed.as_secs_f64().max(1e-6);
        send(&format!("Nodes searched: {}", result.nodes));
        send(&format!("Nodes/second: {}", (result.nodes as f64 / secs) as u64));
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

/// Reads the defaults file: returns the options and a problem to report, if any.
pub fn load_options(explicit: Option<&Path>) -> Result<(Options, Option<String>), String> {
    let mut opts = Options::default();
    for path in options::config_candidates(explicit) {
        match std::fs::read_to_string(&path) {
            Ok(text) => {
                return match opts.apply_toml(&text) {
                    Ok(()) => {
                        log::info!("options from {}", path.display());
                        Ok((opts, None))
                    }
                    Err(e) => {
                        let msg = format!("{}: {e}", path.display());
                        if explicit.is_some() {
                            Err(msg)
                        } else {
                            // Keep the built-in defaults; say so on stderr and to the GUI.
                            log::error!("{msg}; using built-in defaults");
                            Ok((Options::default(), Some(format!("{msg}; using built-in defaults"))))
                        }
                    }
                };
            }
            Err(e) if explicit.is_some() => return Err(format!("{}: {e}", path.display())),
            Err(_) => continue,
        }
    }
    Ok((opts, None))
}

/// Runs the USI loop until `quit` or the end of input.
pub fn run(options: Options, config_problem: Option<String>) {
    let (tx, rx) = crossbeam_channel::unbounded::<String>();
    std::thread::Builder::new()
        .name("stdin".into())
        .spawn(move || {
            let stdin = std::io::stdin();
            let mut line = String::new();
            loop {
                line.clear();
                match stdin.read_line(&mut line) {
                    Ok(0) | Err(_) => {
                        let _ = tx.send("quit".to_string());
                        break;
                    }
                    Ok(_) => {
                        let cmd = line.trim().to_string();
                        let quit = cmd == "quit";
                        if tx.send(cmd).is_err() || quit {
                            break;
                        }
                    }
                }
            }
        })
        .expect("spawn the stdin reader");
    let mut engine = Engine::new(options, config_problem);
    for line in rx {
        if !engine.handle(&line) {
            break;
        }
    }
}
