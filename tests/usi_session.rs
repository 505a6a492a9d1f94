//! Drives the real `hayate` binary through scripted USI sessions: the ShogiHome sequence, ponder
//! hit and miss, Early Ponder, stop and isready during a search, quit during a search, garbage,
//! illegal moves, and a replay of the 34 recorded GUI sessions in `tests/data/usi-sessions/`.
//! Every `bestmove` is checked to be legal and to come exactly once per `go`.

mod common;

use common::engine::Next;
use hayate::position::{MoveList, Position};
use hayate::types::Move;
use std::process::Command;
use std::time::{Duration, Instant};

/// The engine in a session: the shared driver, and the position last sent, to check bestmoves
/// against.
struct Engine {
    engine: common::engine::Engine,
    pos: Position,
}

/// How much longer than the stated timeout a wait may take: 1 for this build's binary, 10 for an
/// engine run through `HAYATE_USI_ENGINE` (under Wine, where starting a process takes seconds
/// while the other tests start theirs; CI once saw a `usiok` arrive later than 2 s).
fn slack() -> u32 {
    if std::env::var_os("HAYATE_USI_ENGINE").is_some() {
        10
    } else {
        1
    }
}

/// The engine under test: this build's binary, or the command in `HAYATE_USI_ENGINE` (a script
/// that runs the Windows executable under Wine, for `make test-windows`).
fn engine_command() -> Command {
    match std::env::var_os("HAYATE_USI_ENGINE") {
        Some(cmd) => Command::new(cmd),
        None => Command::new(common::engine::HAYATE),
    }
}

impl Engine {
    fn start() -> Engine {
        let mut cmd = engine_command();
        cmd.current_dir(env!("CARGO_MANIFEST_DIR"));
        Engine { engine: common::engine::Engine::start_cmd(cmd), pos: Position::startpos() }
    }

    fn send(&mut self, line: &str) {
        self.engine.try_send_bytes(format!("{line}\n").as_bytes()).expect("write to engine");
        let tokens: Vec<&str> = line.split_whitespace().collect();
        if let ["position", rest @ ..] = tokens.as_slice() {
            if let Ok((p, _)) = Position::from_usi_args(rest) {
                self.pos = p;
            }
        }
    }

    /// The session so far, for failure messages.
    fn log(&self) -> String {
        self.engine.output()
    }

    /// Sends `eval` and returns its answer line (`eval = N`), which must come within 2 s.
    fn eval(&mut self) -> String {
        self.send("eval");
        self.expect("eval = ", Duration::from_secs(2)).0
    }

    /// Sends `command` (a `setoption`, a `position`), then [`Engine::eval`].
    fn eval_after(&mut self, command: &str) -> String {
        self.send(command);
        self.eval()
    }

    /// Waits for a line starting with `prefix`; returns it and every line before it.
    /// Under Wine the timeout is stretched (see `slack`), and an engine that exits without a
    /// line after its first `usi` is started again, up to twice: a freshly started Wine process
    /// now and then exits before it reads anything (about one start in a hundred in `make
    /// test-windows`). One that printed anything, or fails three starts, fails the test.
    fn expect(&mut self, prefix: &str, timeout: Duration) -> (String, Vec<String>) {
        let timeout = timeout * slack();
        let mut deadline = Instant::now() + timeout;
        let mut before = Vec::new();
        let mut restarts = 0;
        // Only a first `usi` sent: nothing else has been said in this session yet.
        let only_usi = |e: &Engine| *e.engine.transcript() == ["> usi"];
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.engine.next_within(left) {
                Next::Line(line) => {
                    if line.starts_with(prefix) {
                        return (line, before);
                    }
                    before.push(line);
                }
                Next::Timeout => panic!("no '{prefix}' within {timeout:?}; session:\n{}", self.log()),
                Next::Ended if slack() > 1 && restarts < 2 && only_usi(self) => {
                    eprintln!("the engine under Wine exited before it answered `usi`; starting it again");
                    *self = Engine::start();
                    self.send("usi");
                    restarts += 1;
                    deadline = Instant::now() + timeout;
                }
                Next::Ended => panic!("engine exited waiting for '{prefix}'; session:\n{}", self.log()),
            }
        }
    }

    /// Lines that arrive within `wait`, without expecting any.
    fn drain(&mut self, wait: Duration) -> Vec<String> {
        self.engine.drain(wait)
    }

    /// Waits for a `bestmove`, checks it is legal (or resign/win) and that no second one follows.
    fn bestmove(&mut self, timeout: Duration) -> String {
        let (line, before) = self.expect("bestmove", timeout);
        assert!(!before.iter().any(|l| l.starts_with("bestmove")));
        let tokens: Vec<&str> = line.split_whitespace().collect();
        match tokens.get(1) {
            Some(&"resign") | Some(&"win") => {}
            Some(m) => {
                let mv = Move::from_usi(m).unwrap_or_else(|| panic!("unparsable {line}"));
                assert!(
                    self.pos.is_legal_move(mv),
                    "illegal {line} in {}\n{}",
                    self.pos.to_sfen(),
                    self.log()
                );
                if let (Some(&"ponder"), Some(p)) = (tokens.get(2), tokens.get(3)) {
                    let mut after = self.pos.clone();
                    after.do_move(mv);
                    let pm = Move::from_usi(p).expect("ponder move parses");
                    assert!(after.is_legal_move(pm), "illegal ponder move in {line}");
                }
            }
            None => panic!("empty bestmove"),
        }
        line
    }

    fn handshake(&mut self) {
        self.send("usi");
        self.expect("usiok", Duration::from_secs(5));
        self.send("isready");
        self.expect("readyok", Duration::from_secs(30));
    }

    fn quit(&mut self) {
        self.send("quit");
        match self.engine.wait_exit(Duration::from_secs(5)) {
            Some(status) => assert!(status.success(), "exit status {status}"),
            None => panic!("engine did not exit after quit:\n{}", self.log()),
        }
    }
}

const LONG: Duration = Duration::from_secs(20);

#[test]
fn usi_answer_lists_options_and_identity() {
    let mut e = Engine::start();
    e.send("usi");
    let (_, before) = e.expect("usiok", Duration::from_secs(2));
    assert!(before.iter().any(|l| l.starts_with("id name Hayate")));
    assert!(before.iter().any(|l| l.starts_with("id author ")));
    for name in ["USI_Hash", "USI_Ponder", "Threads", "MultiPV", "EnteringKingRule", "MaxMovesToDraw"] {
        assert!(before.iter().any(|l| l.starts_with(&format!("option name {name} type"))), "{name}");
    }
    assert!(before.iter().all(|l| !l.ends_with(' ')));
    e.quit();
}

#[test]
fn shogihome_sequence() {
    let mut e = Engine::start();
    e.send("usi");
    e.expect("usiok", Duration::from_secs(2));
    e.send("setoption name USI_Hash value 32");
    e.send("setoption name USI_Ponder value true");
    e.send("setoption name EvalDir value ");
    e.send("setoption name UnknownOption value 5");
    e.send("isready");
    let (_, before) = e.expect("readyok", LONG);
    assert!(before.iter().any(|l| l.starts_with("info string") && l.contains("UnknownOption")));
    e.send("usinewgame");
    e.send("position startpos moves 7g7f");
    e.send("go btime 2000 wtime 2000 byoyomi 300");
    e.bestmove(Duration::from_secs(5));
    e.send("position startpos moves 7g7f 3c3d 2g2f");
    e.send("go btime 0 wtime 0 byoyomi 0");
    e.bestmove(Duration::from_secs(5));
    e.send("position sfen lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1 moves 2g2f");
    e.send("go btime 3000 wtime 3000 binc 500 winc 500");
    e.bestmove(Duration::from_secs(5));
    e.send("gameover win");
    assert!(e.drain(Duration::from_millis(200)).is_empty(), "gameover answers nothing");
    e.quit();
}

#[test]
fn ponder_hit_miss_and_early_ponder() {
    let mut e = Engine::start();
    e.send("setoption name USI_Ponder value true");
    e.handshake();
    // Ponder hit: the search goes on with the clock from the go.
    e.send("position startpos moves 7g7f 3c3d");
    e.send("go ponder btime 2000 wtime 2000 byoyomi 500");
    assert!(
        e.drain(Duration::from_millis(300)).iter().all(|l| !l.starts_with("bestmove")),
        "no bestmove while pondering"
    );
    e.send("ponderhit");
    e.bestmove(Duration::from_secs(3));
    // Ponder miss: stop, exactly one bestmove.
    e.send("position startpos moves 7g7f 3c3d 2g2f");
    e.send("go ponder btime 2000 wtime 2000 byoyomi 500");
    std::thread::sleep(Duration::from_millis(200));
    e.send("stop");
    e.bestmove(Duration::from_secs(3));
    assert!(e.drain(Duration::from_millis(300)).iter().all(|l| !l.starts_with("bestmove")));
    // Early Ponder: no times on the go; the clock comes with the ponderhit.
    e.send("position startpos moves 7g7f 3c3d 2g2f 8c8d");
    e.send("go ponder");
    std::thread::sleep(Duration::from_millis(300));
    e.send("ponderhit btime 1000 wtime 1000 byoyomi 300");
    let t = Instant::now();
    e.bestmove(Duration::from_secs(3));
    assert!(t.elapsed() < Duration::from_millis(1500), "early ponder took {:?}", t.elapsed());
    e.quit();
}

#[test]
fn stop_isready_and_quit_during_search() {
    let mut e = Engine::start();
    e.handshake();
    e.send("position startpos");
    e.send("go infinite");
    std::thread::sleep(Duration::from_millis(200));
    e.send("isready");
    let (_, before) = e.expect("readyok", Duration::from_secs(1));
    assert!(!before.iter().any(|l| l.starts_with("bestmove")), "isready must not stop the search");
    e.send("stop");
    e.bestmove(Duration::from_secs(2));
    // Stop when idle does nothing; a second go gets its own bestmove.
    e.send("stop");
    e.send("go depth 2");
    e.bestmove(LONG);
    assert!(e.drain(Duration::from_millis(200)).iter().all(|l| !l.starts_with("bestmove")));
    // Quit during a search ends the process promptly.
    e.send("go infinite");
    std::thread::sleep(Duration::from_millis(100));
    let t = Instant::now();
    e.quit();
    assert!(t.elapsed() < Duration::from_secs(2));
}

#[test]
fn garbage_and_illegal_input_never_break_the_engine() {
    let mut e = Engine::start();
    e.handshake();
    for junk in [
        "hello",
        "position",
        "position sfen",
        "position sfen 9/9/9 b - 1",
        "position startpos 7g7f",
        "go btime",
        "go wtime abc",
        "setoption",
        "setoption name",
        "setoption name Threads value -3",
        "setoption name USI_Hash value huge",
        "\u{3042}\u{3044}",
        "ponderhit",
        "go searchmoves 1a1a",
        "go nodes -5 depth 1",
    ] {
        e.send(junk);
    }
    let lines = e.drain(Duration::from_millis(1500));
    assert!(lines.iter().filter(|l| l.starts_with("info string")).count() >= 8, "{lines:?}");
    assert!(lines.iter().all(|l| l.is_ascii()), "{lines:?}");
    // The engine still works, and an illegal move cuts the move list before it.
    e.send("position startpos moves 7g7f 3c3d 5i5g 4a3b");
    let (w, _) = e.expect("info string", Duration::from_secs(2));
    assert!(w.contains("illegal"), "{w}");
    e.send("d");
    let (sfen, _) = e.expect("sfen ", Duration::from_secs(2));
    assert!(
        sfen.starts_with("sfen lnsgkgsnl/1r5b1/pppppp1pp/6p2/9/2P6/PP1PPPPPP/1B5R1/LNSGKGSNL b - 3"),
        "{sfen}"
    );
    e.send("go depth 3");
    e.bestmove(LONG);
    e.send("isready");
    e.expect("readyok", LONG);
    e.quit();
}

#[test]
fn debug_commands_perft_and_mate() {
    let mut e = Engine::start();
    e.handshake();
    e.send("position startpos");
    e.send("go perft 3");
    let (line, before) = e.expect("Nodes searched", LONG);
    assert_eq!(line, "Nodes searched: 25470");
    assert_eq!(before.iter().filter(|l| l.contains(": ")).count(), 30, "{before:?}");
    e.drain(Duration::from_millis(300));
    e.send("moves");
    let (m, _) = e.expect("", Duration::from_secs(2));
    assert_eq!(m.split_whitespace().count(), 30);
    e.eval();
    e.quit();
}

/// Checks a `checkmate` answer: the moves are legal from `sfen`, every attacker move checks, and
/// the last position is checkmate. Returns the number of plies.
fn assert_mating_line(sfen: &str, answer: &str) -> usize {
    let moves: Vec<&str> = answer.strip_prefix("checkmate ").expect("a checkmate line").split(' ').collect();
    let mut pos = Position::from_sfen(sfen).unwrap();
    for (i, m) in moves.iter().enumerate() {
        let mv = Move::from_usi(m).unwrap_or_else(|| panic!("unparsable move {m} in {answer}"));
        assert!(pos.is_legal_move(mv), "{m} illegal in {answer}");
        pos.do_move(mv);
        if i % 2 == 0 {
            assert!(pos.in_check(), "{m} does not check in {answer}");
        }
    }
    assert!(pos.in_check() && MoveList::legal(&pos, true).is_empty(), "not checkmate at the end: {answer}");
    moves.len()
}

#[test]
fn go_mate_answers_checkmate_nomate_and_timeout() {
    let mut e = Engine::start();
    e.handshake();
    // A 13-ply problem (tests/data/mate.tsv, mogami_bench_s7_mate13), within a time limit.
    let sfen = "5n1k1/5p3/5s1p1/8N/7P1/9/9/9/9 b R2Br4g3s2n4l15p 1";
    e.send(&format!("position sfen {sfen}"));
    e.send("go mate 30000");
    let (c, before) = e.expect("checkmate", LONG);
    assert_eq!(assert_mating_line(sfen, &c), 13, "{c}");
    assert!(before.iter().any(|l| l.starts_with("info ") && l.contains(" nodes ")), "{before:?}");
    // What the line is worth: 13 plies, no mate of 11, and best play throughout (30 s is ample).
    let said = "info string mate in 13 plies, proven shortest; every move of the line is best play";
    assert!(before.iter().any(|l| l == said), "{before:?}");
    // A 21-ply problem: `go mate infinite`, a node limit, and a bare `go mate`.
    let sfen = "n+B1sS4/1R1g5/1Ls6/2k6/2n6/3L5/R8/9/9 b B2P3gs2n2l16p 1";
    e.send("usinewgame");
    e.send(&format!("position sfen {sfen}"));
    for go in ["go mate infinite", "go mate nodes 50000000", "go mate"] {
        e.send(go);
        let (c, _) = e.expect("checkmate", LONG);
        assert_mating_line(sfen, &c);
    }
    // No check at all: proven nomate.
    e.send("position startpos moves 7g7f");
    e.send("go mate 1000");
    assert_eq!(e.expect("checkmate", Duration::from_secs(5)).0, "checkmate nomate");
    // A 39-ply problem (TSUME_LONG_zukou_004), not yet in the solver's table. Too few nodes:
    // timeout, never a guess.
    e.send("position sfen 6S+Pl/5s3/4L2l1/5gkBr/4pn3/5Gp2/9/6N2/7+R+n b BN2g2sl15p 1");
    e.send("go mate nodes 10");
    assert_eq!(e.expect("checkmate", Duration::from_secs(5)).0, "checkmate timeout");
    // Then `stop`: one prompt answer (it cannot have been solved so soon).
    e.send("go mate infinite");
    std::thread::sleep(Duration::from_millis(200));
    e.send("stop");
    let (c, _) = e.expect("checkmate", Duration::from_secs(2));
    assert!(c == "checkmate timeout" || c.split(' ').count() > 10, "{c}");
    // The engine still plays afterwards; a second stop does nothing.
    e.send("stop");
    e.send("position startpos");
    e.send("go depth 3");
    e.bestmove(LONG);
    assert!(!e.drain(Duration::from_millis(300)).iter().any(|l| l.starts_with("checkmate")));
    e.quit();
}

#[test]
fn no_legal_move_resigns_and_declaration_wins() {
    let mut e = Engine::start();
    e.handshake();
    // Black has no legal move (and, under the 27-point rule, could declare: the rule comes first).
    e.send("position sfen +R+N+SGKG+S+N+R/+B+N+SG+LG+S+N+B/P+LPP+LPP+LP/1P2P2P1/9/9/9/9/4k4 b 9P 200");
    assert_eq!(byoyomi_answer(&mut e), "bestmove win");
    e.send("setoption name EnteringKingRule value NoEnteringKing");
    assert_eq!(byoyomi_answer(&mut e), "bestmove resign");
    e.send("setoption name EnteringKingRule value CSARule27");
    e.send("position sfen 4K4/+P+P+P+P1+P+P+P+P/GG7/9/9/9/9/9/4k4 b 2RB3Pb2g4s4n4l7p 1");
    assert_eq!(byoyomi_answer(&mut e), "bestmove win");
    e.send("setoption name EnteringKingRule value NoEnteringKing");
    assert_ne!(byoyomi_answer(&mut e), "bestmove win");
    e.quit();
}

/// The engine's `bestmove` line for `go byoyomi 100`.
fn byoyomi_answer(e: &mut Engine) -> String {
    e.send("go byoyomi 100");
    e.bestmove(Duration::from_secs(3))
}

/// The score of the last `info depth` line among `lines`, e.g. "cp 35" or "mate 1".
fn last_score_kind(lines: &[String]) -> String {
    let info = lines.iter().rev().find(|l| l.starts_with("info depth")).expect("an info line");
    let tokens: Vec<&str> = info.split_whitespace().collect();
    let at = tokens.iter().position(|&t| t == "score").expect("a score");
    format!("{} {}", tokens[at + 1], tokens[at + 2])
}

#[test]
fn go_nodes_stops_at_the_limit() {
    // One thread: the search stops within a thousandth of the limit, also below the 2048 nodes
    // between the checks of a timed search (it once searched 2048 nodes for `go nodes 1000`).
    let mut e = Engine::start();
    e.handshake();
    for limit in [1000u64, 5000, 100_000] {
        e.send("position startpos moves 7g7f 3c3d");
        e.send(&format!("go nodes {limit}"));
        let (_, before) = e.expect("bestmove", LONG);
        let info = before.iter().rev().find(|l| l.starts_with("info depth")).expect("an info line");
        let tokens: Vec<&str> = info.split_whitespace().collect();
        let at = tokens.iter().position(|&t| t == "nodes").expect("a node count");
        let nodes: u64 = tokens[at + 1].parse().expect("a number");
        assert!((limit..=limit + limit / 1000 + 2).contains(&nodes), "go nodes {limit}: {nodes}\n{info}");
    }
    // Below what depth 1 takes, the search still completes depth 1: white takes the horse. (Cut
    // inside depth 1 it played the first move generated, 1c1d.)
    for limit in ["0", "1", "-5"] {
        e.send("position startpos moves 7g7f 3c3d 8h2b+");
        e.send(&format!("go nodes {limit}"));
        assert_eq!(e.bestmove(LONG), "bestmove 3a2b", "go nodes {limit}\n{}", e.log());
    }
    e.quit();
}

#[test]
fn sfen_move_number_counts_toward_max_moves_to_draw() {
    // Black mates at once with G*9e (tests/data/rules.tsv, max_moves_256_*): a mate on ply 256
    // stands, while at move number 257 the game is already drawn under MaxMovesToDraw 256.
    let board = "lS5nl/3s2+R2/p6p1/kS2Gb2p/3ppNpS1/Np3P2P/PPG1P1K2/4G4/LB5RL b GN4P2p";
    let mut e = Engine::start();
    e.handshake();
    e.send("setoption name MaxMovesToDraw value 256");
    // (number, moves after it, a mate expected)
    let cases = [
        ("256", "", true),
        ("257", "", false),
        ("255", " moves 3g2f 1d1e", false),
        ("254", " moves 3g2f 1d1e", true),
    ];
    for (number, moves, mate) in cases {
        e.send(&format!("position sfen {board} {number}{moves}"));
        e.send("go depth 3");
        let (_, lines) = e.expect("bestmove", LONG);
        let score = last_score_kind(&lines);
        if mate {
            assert_eq!(score, "mate 1", "move number {number}{moves}");
        } else {
            assert!(score.starts_with("cp "), "move number {number}{moves}: a draw, not {score}");
        }
    }
    e.quit();
}

/// Replays one recorded GUI session with every clock value divided by `scale`.
fn replay(name: &str, text: &str, scale: u64) {
    let mut e = Engine::start();
    let mut pondering = false;
    for raw in text.lines() {
        let mut tokens: Vec<String> = raw.split_whitespace().map(str::to_string).collect();
        if tokens.is_empty() {
            continue;
        }
        if tokens[0] == "go" || tokens[0] == "ponderhit" {
            for i in 1..tokens.len() {
                if ["btime", "wtime", "binc", "winc", "byoyomi"].contains(&tokens[i - 1].as_str()) {
                    if let Ok(v) = tokens[i].parse::<u64>() {
                        tokens[i] = (v / scale).to_string();
                    }
                }
            }
        }
        let line = tokens.join(" ");
        e.send(&line);
        match tokens[0].as_str() {
            "usi" => {
                e.expect("usiok", Duration::from_secs(5));
            }
            "isready" => {
                e.expect("readyok", LONG);
            }
            "go" if tokens.iter().any(|t| t == "ponder") => pondering = true,
            "go" => {
                e.bestmove(LONG);
            }
            "ponderhit" | "stop" if pondering => {
                pondering = false;
                e.bestmove(LONG);
            }
            "quit" => {
                assert!(e.engine.wait_exit(Duration::from_secs(5)).is_some(), "{name}: no exit after quit");
                return;
            }
            _ => {}
        }
    }
    let _ = name;
    e.quit();
}

#[test]
fn recorded_gui_sessions_replay() {
    let dir = format!("{}/tests/data/usi-sessions", env!("CARGO_MANIFEST_DIR"));
    let mut files: Vec<_> = std::fs::read_dir(&dir).unwrap().map(|e| e.unwrap().path()).collect();
    files.retain(|p| p.extension().is_some_and(|x| x == "usi"));
    files.sort();
    assert_eq!(files.len(), 34);
    // Four sessions at a time; one at a time under Wine (HAYATE_USI_ENGINE, `make test-windows`),
    // where a process started beside others now and then exits before reading its input.
    let workers = if std::env::var_os("HAYATE_USI_ENGINE").is_some() { 1 } else { 4 };
    std::thread::scope(|s| {
        for chunk in files.chunks(files.len().div_ceil(workers)) {
            s.spawn(move || {
                for f in chunk {
                    let text = std::fs::read_to_string(f).unwrap();
                    replay(&f.display().to_string(), &text, 20);
                }
            });
        }
    });
}

#[test]
fn nnue_file_is_loaded_on_isready_and_bad_files_fall_back() {
    let dir = std::env::temp_dir().join(format!("hayate-nnue-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let good = dir.join("nn.bin");
    let bytes = hayate::eval::nnue::testnet::bytes(1, None);
    std::fs::write(&good, &bytes).unwrap();
    let bad = dir.join("truncated.bin");
    std::fs::write(&bad, &bytes[..1000]).unwrap();

    let mut e = Engine::start();
    e.send("usi");
    e.expect("usiok", Duration::from_secs(2));
    e.send(&format!("setoption name EvalDir value {}", dir.display()));
    e.send("isready");
    let (_, before) = e.expect("readyok", LONG);
    assert!(before.iter().any(|l| l.contains("NNUE loaded")), "{before:?}");
    // The golden value of the test net for the start position (tests/data/nnue/seed1_fv16.tsv).
    assert_eq!(e.eval_after("position startpos"), "eval = -159");
    assert_eq!(e.eval_after("setoption name FV_SCALE value 32"), "eval = -79");
    e.send("go depth 3");
    e.bestmove(LONG);
    // EvalType: the linear evaluation despite the net, then material only (black has a rook in
    // hand, white's: +2 * 990 for black to move), with a search; back to the net.
    let embedded = hayate::eval::linear::evaluate(&hayate::position::Position::startpos());
    assert_eq!(e.eval_after("setoption name EvalType value Linear"), format!("eval = {embedded}"));
    assert_eq!(e.eval_after("setoption name EvalType value Material"), "eval = 0");
    let rook_up = "position sfen lnsgkgsnl/7b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b R 1";
    assert_eq!(e.eval_after(rook_up), "eval = 1980");
    e.send("go depth 4");
    e.bestmove(LONG);
    e.send("setoption name EvalType value Nonsense");
    let lines = e.drain(Duration::from_millis(300));
    assert!(lines.iter().any(|l| l.starts_with("info string")), "{lines:?}");
    e.send("setoption name EvalType value Auto");
    assert_eq!(e.eval_after("position startpos"), "eval = -79");
    // A truncated file: reported, and (EvalType Auto) the linear evaluation plays.
    e.send(&format!("setoption name EvalFile value {}", bad.display()));
    e.send("isready");
    let (_, before) = e.expect("readyok", LONG);
    assert!(before.iter().any(|l| l.contains("using the linear evaluation")), "{before:?}");
    let v = e.eval();
    let embedded = hayate::eval::linear::evaluate(&hayate::position::Position::startpos());
    assert_eq!(v, format!("eval = {embedded}"));
    e.send("go depth 2");
    e.bestmove(LONG);
    e.quit();
    std::fs::remove_dir_all(&dir).unwrap();
}

/// An opening book (YaneuraOu's text format) through the binary: book moves with their value as
/// `info`, the search once out of the book, no book move while pondering or analysing, the
/// `Book*` options, and a malformed book reported with its line and not used.
#[test]
fn opening_book_moves_come_first_then_the_search() {
    let dir = std::env::temp_dir().join(format!("hayate-book-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let start = "lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1";
    let after = "lnsgkgsnl/1r5b1/pppppp1pp/6p2/9/2P6/PP1PPPPPP/1B5R1/LNSGKGSNL b - 3";
    let book = dir.join("book.db");
    std::fs::write(
        &book,
        format!(
            "#YANEURAOU-DB2016 1.00\nsfen {start}\n7g7f 3c3d 50 20 70\n2g2f 8c8d 45 20 30\n5i5h none -200 20 1\n\
             sfen {after}\n2g2f none 30 20 10\n6i7h none 30 20 10\n5e5d none 0 20 1\n"
        ),
    )
    .unwrap();
    let malformed = dir.join("malformed.db");
    std::fs::write(&malformed, format!("#YANEURAOU-DB2016 1.00\nsfen {start}\n7g7f 3c3d fifty 20 70\n"))
        .unwrap();

    let mut e = Engine::start();
    e.send("usi");
    e.expect("usiok", Duration::from_secs(5));
    e.send("setoption name USI_Ponder value true");
    e.send(&format!("setoption name BookFile value {}", book.display()));
    e.send("setoption name BookDepthLimit value 0");
    e.send("isready");
    let (_, before) = e.expect("readyok", LONG);
    assert!(before.iter().any(|l| l.contains("line 9: 5e5d is not legal")), "{before:?}");
    assert!(before.iter().any(|l| l.ends_with("2 positions, 5 moves")), "{before:?}");
    e.send("usinewgame");

    // From the book, at once, with the book's value and ponder move.
    let mut seen = std::collections::BTreeSet::new();
    for _ in 0..20 {
        e.send("position startpos");
        let sent = Instant::now();
        e.send("go btime 60000 wtime 60000 byoyomi 10000");
        let (line, before) = e.expect("bestmove", LONG);
        assert!(sent.elapsed() < Duration::from_secs(5), "a book move comes at once");
        assert!(before.iter().any(|l| l.starts_with("info string book move")), "{before:?}");
        let info = before.iter().find(|l| l.starts_with("info depth")).expect("an info line");
        match line.as_str() {
            "bestmove 7g7f ponder 3c3d" => {
                assert!(info.contains("score cp 50") && info.ends_with("pv 7g7f 3c3d"))
            }
            "bestmove 2g2f ponder 8c8d" => {
                assert!(info.contains("score cp 45") && info.ends_with("pv 2g2f 8c8d"))
            }
            other => panic!("not a book move within BookEvalDiff: {other}"),
        }
        seen.insert(line);
    }
    assert_eq!(seen.len(), 2, "both candidates are played: {seen:?}");
    e.send("setoption name BookEvalDiff value 0");
    e.send("position startpos");
    e.send("go btime 60000 wtime 60000 byoyomi 10000");
    assert_eq!(e.bestmove(LONG), "bestmove 7g7f ponder 3c3d");
    e.send("position startpos");
    e.send("go btime 60000 wtime 60000 byoyomi 1000 searchmoves 2g2f 5i5h");
    assert_eq!(e.bestmove(LONG), "bestmove 2g2f ponder 8c8d", "the best book move among searchmoves");
    // The second position, found whatever its move number; a book move without a ponder move.
    e.send("position startpos moves 7g7f 3c3d");
    e.send("go btime 60000 wtime 60000 byoyomi 10000");
    let line = e.bestmove(LONG);
    assert!(line == "bestmove 2g2f" || line == "bestmove 6i7h", "{line}");

    // Out of the book: a search.
    e.send("position startpos moves 7g7f 3c3d 2g2f 8c8d");
    e.send("go btime 0 wtime 0 byoyomi 200");
    let (_, before) = e.expect("bestmove", LONG);
    assert!(!before.iter().any(|l| l.contains("book move")), "{before:?}");
    // Not while pondering or analysing, nor past BookMoves.
    for go in ["go ponder btime 60000 wtime 60000 byoyomi 1000", "go infinite"] {
        e.send("position startpos");
        e.send(go);
        e.drain(Duration::from_millis(300));
        e.send("stop");
        let (_, before) = e.expect("bestmove", LONG);
        assert!(!before.iter().any(|l| l.contains("book move")), "{go}: {before:?}");
    }
    e.send("setoption name BookMoves value 2");
    e.send("position startpos moves 7g7f 3c3d");
    e.send("go btime 0 wtime 0 byoyomi 200");
    let (_, before) = e.expect("bestmove", LONG);
    assert!(!before.iter().any(|l| l.contains("book move")), "ply 3 is past BookMoves 2: {before:?}");

    // A malformed book: the line is named, the book is not used.
    e.send(&format!("setoption name BookFile value {}", malformed.display()));
    e.send("isready");
    let (_, before) = e.expect("readyok", LONG);
    assert!(
        before.iter().any(|l| l.contains("line 3: value 'fifty' is not an integer; no book")),
        "{before:?}"
    );
    e.send("position startpos");
    e.send("go btime 0 wtime 0 byoyomi 200");
    let (_, before) = e.expect("bestmove", LONG);
    assert!(!before.iter().any(|l| l.contains("book move")), "{before:?}");
    e.quit();
    std::fs::remove_dir_all(&dir).unwrap();
}

/// The analysis options GUIs use: MultiPV changed during `go infinite` shows the new number of
/// lines without a new `go`; PvInterval spaces the reports and still sends the last one before
/// the best move; ConsiderationMode never resigns.
#[test]
fn analysis_multipv_change_pv_interval_and_consideration_mode() {
    let mut e = Engine::start();
    e.handshake();
    e.send("position startpos moves 7g7f 3c3d");
    e.send("go infinite");
    e.drain(Duration::from_millis(300));
    e.send("setoption name MultiPV value 3");
    let lines = e.drain(Duration::from_millis(1500));
    e.send("stop");
    e.bestmove(LONG);
    assert!(lines.iter().any(|l| l.contains(" multipv 3 ")), "no third line after MultiPV 3: {lines:?}");
    e.send("setoption name MultiPV value 1");

    // PvInterval: a report at the start, then at most one a second, and the last one before the
    // best move names it.
    e.send("setoption name PvInterval value 1000");
    e.send("position startpos");
    e.send("go movetime 1500");
    let (best, before) = e.expect("bestmove", LONG);
    let infos: Vec<&String> = before.iter().filter(|l| l.starts_with("info depth")).collect();
    assert!((1..=3).contains(&infos.len()), "{infos:?}");
    let mv = best.split_whitespace().nth(1).unwrap();
    assert!(infos.last().unwrap().contains(&format!(" pv {mv}")), "{infos:?} / {best}");
    e.send("setoption name PvInterval value 0");
    e.send("position startpos");
    e.send("go movetime 500");
    let (_, before) = e.expect("bestmove", LONG);
    assert!(before.iter().filter(|l| l.starts_with("info depth")).count() > 3, "every iteration: {before:?}");

    // A hopeless position: resign under ResignValue, not in ConsiderationMode.
    let lost = "position sfen 4k4/9/9/9/9/9/9/9/4K4 b 2r2b4g4s4n4l18p 1";
    e.send("setoption name ResignValue value 1000");
    e.send(lost);
    e.send("go depth 4");
    assert_eq!(e.bestmove(LONG), "bestmove resign");
    e.send("setoption name ConsiderationMode value true");
    e.send(lost);
    e.send("go depth 4");
    assert_ne!(e.bestmove(LONG), "bestmove resign");
    e.quit();
}
