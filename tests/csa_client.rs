//! `hayate csa` against a CSA server played by the test: a scripted peer that speaks as
//! floodgate and shogi-server do (login, Game_Summary, AGREE/START, moves echoed with their time,
//! result lines, LOGOUT), checks every move the client sends for legality and turn, and plays
//! the other side with legal moves of its own.

mod common;

use common::engine::{hayate, run, run_watched, Ran, HAYATE};
use common::TempDir;
use hayate::csa::notation::{move_from_csa, move_to_csa};
use hayate::position::{MoveList, Position};
use hayate::types::Color;
use std::io::{BufRead, BufReader, Write};
use std::net::{TcpListener, TcpStream};
use std::path::Path;
use std::process::Command;
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// One accepted connection, seen from the server's side.
struct Conn {
    reader: BufReader<TcpStream>,
    writer: TcpStream,
    /// Empty lines received (the client's keep-alives).
    keepalives: usize,
}

impl Conn {
    fn send(&mut self, text: &str) {
        for line in text.lines() {
            let _ = self.writer.write_all(format!("{line}\n").as_bytes());
        }
        let _ = self.writer.flush();
    }

    /// Sends bytes as they are (the line endings included).
    fn send_bytes(&mut self, bytes: &[u8]) {
        let _ = self.writer.write_all(bytes);
        let _ = self.writer.flush();
    }

    /// The next line that is not a keep-alive; panics after 60 s or at the end of the
    /// connection.
    fn recv(&mut self) -> String {
        String::from_utf8_lossy(&self.recv_bytes()).into_owned()
    }

    /// [`Conn::recv`] as bytes.
    fn recv_bytes(&mut self) -> Vec<u8> {
        loop {
            let mut line = Vec::new();
            match self.reader.read_until(b'\n', &mut line) {
                Ok(0) => panic!("the client closed the connection"),
                Ok(_) => {}
                Err(e) => panic!("reading from the client: {e}"),
            }
            while line.last().is_some_and(|&b| b == b'\n' || b == b'\r') {
                line.pop();
            }
            if line.is_empty() {
                self.keepalives += 1;
                continue;
            }
            return line;
        }
    }

    /// Waits for the client to close the connection, taking no line but keep-alives; panics
    /// when it sends one, or does not close within `limit`.
    fn expect_close(&mut self, limit: Duration) {
        self.reader.get_ref().set_read_timeout(Some(limit)).unwrap();
        let mut line = Vec::new();
        loop {
            line.clear();
            match self.reader.read_until(b'\n', &mut line) {
                Ok(0) => return,
                Ok(_) if line == b"\n" => self.keepalives += 1,
                Ok(_) => panic!("the client sent {:?}", String::from_utf8_lossy(&line)),
                Err(e) => panic!("the client did not close the connection: {e}"),
            }
        }
    }

    fn login(&mut self, name: &str) {
        let login = self.recv();
        assert!(login.starts_with(&format!("LOGIN {name} ")), "{login}");
        self.send(&format!("LOGIN:{name} OK"));
    }

    /// Sends a summary and expects `AGREE <id>`, then starts the game.
    fn start(&mut self, summary: &str) {
        self.send(summary);
        let id = game_id(summary);
        assert_eq!(self.recv(), format!("AGREE {id}"));
        self.send(&format!("START:{id}"));
    }

    /// Logs `name` in and starts the game of `summary`.
    fn begin(&mut self, name: &str, summary: &str) {
        self.login(name);
        self.start(summary);
    }

    /// Expects `LOGOUT` and answers it.
    fn logout(&mut self) {
        assert_eq!(self.recv(), "LOGOUT");
        self.send("LOGOUT:completed");
    }

    /// Sends the game's last lines (`last`: moves, then the result lines) and takes the LOGOUT.
    fn end(&mut self, last: &str) {
        self.send(last);
        self.logout();
    }

    /// Expects the client's `%TORYO`, echoes it and ends the game as the client's loss.
    fn take_resignation(&mut self) {
        assert_eq!(self.recv(), "%TORYO");
        self.end("%TORYO,T0\n#RESIGN\n#LOSE");
    }

    /// Takes the client's next line as a move and plays it in `pos` (it must be legal there);
    /// returns the line as sent.
    fn take_move(&mut self, pos: &mut Position) -> String {
        let line = self.recv();
        let m =
            move_from_csa(pos, move_part(&line)).unwrap_or_else(|e| panic!("the client sent {line}: {e}"));
        pos.do_move(m);
        line
    }

    /// Echoes the client's move `line` (its comment cut) charged `time` (`T1`).
    fn echo(&mut self, line: &str, time: &str) {
        self.send(&format!("{},{time}", move_part(line)));
    }

    /// Plays until the client has made `client_moves` moves: checks the client's moves (legal, in
    /// turn, within `budget` when given) and echoes them charged `T1`, answering with the first
    /// legal move of each position. Returns the client's moves as sent.
    fn play(
        &mut self,
        pos: &mut Position,
        client: Color,
        client_moves: usize,
        budget: Option<Duration>,
    ) -> Vec<String> {
        let mut sent = Vec::new();
        let mut asked = Instant::now();
        while sent.len() < client_moves {
            if pos.side_to_move() == client {
                let line = self.take_move(pos);
                let took = asked.elapsed();
                if let Some(b) = budget {
                    assert!(took < b, "the move {line} took {took:?}, more than {b:?}");
                }
                self.echo(&line, "T1");
                sent.push(line);
            } else {
                let m = *MoveList::legal(pos, false).iter().next().expect("the server has a move");
                self.send(&format!("{},T1", move_to_csa(pos, m)));
                pos.do_move(m);
                asked = Instant::now();
            }
        }
        sent
    }
}

/// The move of a move line, without the time or comment after it.
fn move_part(line: &str) -> &str {
    line.split(',').next().unwrap_or_default()
}

fn game_id(summary: &str) -> String {
    summary.lines().find_map(|l| l.strip_prefix("Game_ID:")).expect("a Game_ID").to_string()
}

/// What the server does on one connection.
type Script = Box<dyn FnOnce(&mut Conn) + Send>;

/// A server on a free port running `script` on each connection it accepts, in order.
fn start_server(scripts: Vec<Script>) -> (u16, std::thread::JoinHandle<Vec<usize>>) {
    let listener = TcpListener::bind("127.0.0.1:0").expect("bind");
    let port = listener.local_addr().unwrap().port();
    let handle = std::thread::spawn(move || {
        let mut keepalives = Vec::new();
        for script in scripts {
            let stream = accept(&listener, Duration::from_secs(60));
            stream.set_read_timeout(Some(Duration::from_secs(60))).unwrap();
            let mut conn =
                Conn { reader: BufReader::new(stream.try_clone().unwrap()), writer: stream, keepalives: 0 };
            script(&mut conn);
            keepalives.push(conn.keepalives);
        }
        keepalives
    });
    (port, handle)
}

/// The next connection to `listener`; panics when none comes within `limit` (a client that
/// ended early), so that a test cannot hang on it.
fn accept(listener: &TcpListener, limit: Duration) -> TcpStream {
    listener.set_nonblocking(true).unwrap();
    let start = Instant::now();
    loop {
        match listener.accept() {
            Ok((stream, _)) => {
                stream.set_nonblocking(false).unwrap();
                return stream;
            }
            Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {
                assert!(start.elapsed() < limit, "no connection from the client within {limit:?}");
                std::thread::sleep(Duration::from_millis(10));
            }
            Err(e) => panic!("accept: {e}"),
        }
    }
}

/// A port that takes connections and never answers: a client that connects to it waits on its
/// LOGIN. The port is open while the listener lives.
fn silent_server() -> (TcpListener, u16) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    (listener, port)
}

/// A fresh folder for a client's records and settings.
fn temp_dir(name: &str) -> TempDir {
    TempDir::new("csa", name)
}

/// Checks how `hayate` ended: its exit status, nothing on stdout, and each of `lines` in its log
/// (stderr).
fn expect(run: &Ran, code: i32, lines: &[&str]) {
    assert_eq!(run.code, Some(code), "{}", run.stderr);
    assert!(run.stdout.is_empty(), "hayate wrote on stdout: {}\n{}", run.stdout, run.stderr);
    for line in lines {
        assert!(run.stderr.contains(line), "{line:?} is not in the log:\n{}", run.stderr);
    }
}

/// A slot for the client's process id, filled once it is started, for a server script that
/// signals the client or watches it.
#[derive(Clone, Default)]
struct Pid(Arc<AtomicU32>);

impl Pid {
    fn set(&self, pid: u32) {
        self.0.store(pid, Ordering::SeqCst);
    }

    /// The id, once set (the script runs once the client has connected, just after its start).
    fn get(&self) -> u32 {
        let start = Instant::now();
        loop {
            let pid = self.0.load(Ordering::SeqCst);
            if pid != 0 {
                return pid;
            }
            assert!(start.elapsed() < Duration::from_secs(10), "no client process id");
            std::thread::sleep(Duration::from_millis(10));
        }
    }
}

/// How a test runs `hayate csa`: the login id (also the name of the client's folder), the flags
/// after `--id <id>`, and the settings file's `[client]` section; the rest of the settings file
/// is the same for every test (the server on 127.0.0.1, a small table, one thread, no net).
struct Client {
    id: &'static str,
    flags: &'static [&'static str],
    settings: &'static str,
}

impl Client {
    /// `--id <id> --password pw`, the default settings but `reconnect_s = 1`.
    fn new(id: &'static str) -> Client {
        Client { id, flags: &["--password", "pw"], settings: "" }
    }

    /// The `[client]` section (with `reconnect_s = 1` unless it sets it).
    fn settings(self, settings: &'static str) -> Client {
        Client { settings, ..self }
    }

    /// The flags after `--id <id>`, in place of `--password pw`.
    fn flags(self, flags: &'static [&'static str]) -> Client {
        Client { flags, ..self }
    }

    /// Runs the client in `dir` against a server on `port` and waits for its end (killing it after
    /// 120 s); `started` is told its process id.
    fn run(&self, dir: &Path, port: u16, started: impl FnOnce(u32)) -> Ran {
        let config = dir.join("csa.toml");
        let reconnect = if self.settings.contains("reconnect_s") { "" } else { "reconnect_s = 1\n" };
        std::fs::write(
            &config,
            format!(
                "[server]\nhost = \"127.0.0.1\"\nport = {port}\n[client]\n{reconnect}{}\n\
                 [options]\nUSI_Hash = 16\nThreads = 1\nEvalDir = \"no-such-folder\"\n",
                self.settings
            ),
        )
        .unwrap();
        let mut cmd = Command::new(HAYATE);
        cmd.arg("--config").arg(&config).args(["csa", "--id", self.id]).args(self.flags);
        cmd.args(["--record-dir", "records"]).current_dir(dir);
        run_watched(cmd, Duration::from_secs(120), started)
    }

    /// Runs the client in a fresh folder against a server that runs the scripts, one a
    /// connection, and waits for both; `scripts` makes them with the slot the client's process id
    /// goes to.
    fn against_watched(self, scripts: impl FnOnce(Pid) -> Vec<Script>) -> Played {
        let pid = Pid::default();
        let (port, server) = start_server(scripts(pid.clone()));
        let dir = temp_dir(self.id);
        let run = self.run(&dir, port, |id| pid.set(id));
        let keepalives = match server.join() {
            Ok(keepalives) => keepalives,
            Err(_) => panic!("the server's script failed (above); the client's log:\n{}", run.stderr),
        };
        Played { run, dir, keepalives }
    }

    /// [`Client::against_watched`] for scripts that do not need the process id.
    fn against(self, scripts: Vec<Script>) -> Played {
        self.against_watched(|_| scripts)
    }

    /// [`Client::against`] with one connection.
    fn against_one(self, script: impl FnOnce(&mut Conn) + Send + 'static) -> Played {
        self.against(vec![Box::new(script)])
    }
}

/// What a client run against a scripted server left.
struct Played {
    run: Ran,
    dir: TempDir,
    /// The keep-alives received on each connection.
    keepalives: Vec<usize>,
}

impl Played {
    /// Checks the client's exit status and log as [`expect`] does.
    fn expect(&self, code: i32, lines: &[&str]) {
        expect(&self.run, code, lines);
    }

    /// Whether the client's log holds `text`.
    fn logged(&self, text: &str) -> bool {
        self.run.stderr.contains(text)
    }

    /// The records the client saved, by file name; there must be `n` of them.
    fn records(&self, n: usize) -> Vec<(String, String)> {
        let mut found: Vec<(String, String)> = std::fs::read_dir(self.dir.join("records"))
            .map(|entries| {
                entries
                    .map(|e| e.unwrap().path())
                    .map(|p| {
                        (
                            p.file_name().unwrap().to_string_lossy().into_owned(),
                            std::fs::read_to_string(&p).unwrap(),
                        )
                    })
                    .collect()
            })
            .unwrap_or_default();
        found.sort();
        assert_eq!(found.len(), n, "{found:?}\n{}", self.run.stderr);
        found
    }

    /// The text of the one record saved.
    fn record(&self) -> String {
        self.records(1).remove(0).1
    }
}

const EVEN: &str = "P1-KY-KE-GI-KI-OU-KI-GI-KE-KY
P2 * -HI *  *  *  *  * -KA * 
P3-FU-FU-FU-FU-FU-FU-FU-FU-FU
P4 *  *  *  *  *  *  *  *  * 
P5 *  *  *  *  *  *  *  *  * 
P6 *  *  *  *  *  *  *  *  * 
P7+FU+FU+FU+FU+FU+FU+FU+FU+FU
P8 * +KA *  *  *  *  * +HI * 
P9+KY+KE+GI+KI+OU+KI+GI+KE+KY
P+
P-";

/// A position block for the black side alone: `top` the first rows, the rows below empty but
/// for white's king on 9i, white holding every piece left, black to move.
fn black_attack(top: &[&str]) -> String {
    let mut rows: Vec<String> = top.iter().map(|r| r.to_string()).collect();
    while rows.len() < 8 {
        rows.push(format!("P{}{}", rows.len() + 1, " * ".repeat(9)));
    }
    rows.push(format!("P9-OU{}", " * ".repeat(8)));
    rows.extend(["P+", "P-00AL", "+"].map(String::from));
    rows.join("\n")
}

/// A summary in floodgate's form: `time` is the lines of the Time block, `position` the
/// position block's lines (board, hands, side to move, moves).
fn summary(id: &str, your_turn: char, time: &str, position: &str) -> String {
    format!(
        "BEGIN Game_Summary\nProtocol_Version:1.2\nProtocol_Mode:Server\nFormat:Shogi 1.0\nDeclaration:Jishogi 1.1\n\
         Game_ID:{id}\nName+:sente\nName-:gote\nYour_Turn:{your_turn}\nRematch_On_Draw:NO\nMax_Moves:256\n\
         BEGIN Time\nTime_Unit:1sec\n{time}\nLeast_Time_Per_Move:0\nEND Time\n\
         BEGIN Position\n{position}\nEND Position\nEND Game_Summary"
    )
}

const FISCHER: &str = "Total_Time:10\nIncrement:1";
const BYOYOMI: &str = "Total_Time:0\nByoyomi:1";

/// The summary of a Fischer game from the start position.
fn even_summary(id: &str, your_turn: char) -> String {
    summary(id, your_turn, FISCHER, &format!("{EVEN}\n+"))
}

/// The summary of a Fischer game where black, the client, is mated (the king in the corner,
/// white golds on 1b and 2b): it resigns at once, for tests about what happens around a game.
fn mated_summary(id: &str) -> String {
    summary(
        id,
        '+',
        FISCHER,
        &black_attack(&["P1 *  *  *  *  *  *  *  * +OU", "P2 *  *  *  *  *  *  * -KI-KI"]),
    )
}

/// A game the client (black, mated) resigns at once: the server's side of it, the summary's
/// Game_ID given.
fn resigned_game(c: &mut Conn, name: &str, id: &str) {
    c.begin(name, &mated_summary(id));
    c.take_resignation();
}

/// The moves of a record replay from its position: every move line is legal where it stands.
fn assert_replays(record: &str) {
    let mut pos = None;
    let mut block = hayate::csa::notation::PositionBlock::default();
    for line in record.lines() {
        if line.starts_with('\'') || line.starts_with('%') || line.starts_with('T') || line.starts_with('$') {
            continue;
        }
        let is_move = line.len() >= 7 && (line.starts_with('+') || line.starts_with('-'));
        if !is_move {
            if pos.is_none() && (line.starts_with('P') || line == "+" || line == "-") {
                block.line(line).unwrap_or_else(|e| panic!("{line}: {e}\n{record}"));
            }
            continue;
        }
        let p = pos.get_or_insert_with(|| block.position().expect("the record's position"));
        let m = move_from_csa(p, line).unwrap_or_else(|e| panic!("the record's move {line}: {e}\n{record}"));
        p.do_move(m);
    }
}

/// Black in a Fischer game the server's side resigns after three moves of the client; with
/// pondering, and floodgate's login built from --game.
#[test]
fn fischer_game_as_black_won_by_the_opponents_resignation() {
    let id = "wdoor+floodgate-10-1F+hayate+opp+20261125100000";
    let client = Client::new("hayate").flags(&["--password", "trip", "--game", "floodgate-10-1F"]);
    let played = client.settings("ponder = true").against_one(move |c: &mut Conn| {
        assert_eq!(c.recv(), "LOGIN hayate floodgate-10-1F,trip");
        c.send("LOGIN:hayate OK");
        c.start(&even_summary(id, '+'));
        let sent = c.play(&mut Position::startpos(), Color::Black, 3, Some(Duration::from_millis(10_500)));
        // floodgate's evaluation comment after the move.
        assert!(sent.iter().all(|l| l.contains(",'* ")), "{sent:?}");
        c.end("%TORYO,T1\n#RESIGN\n#WIN");
    });
    // A line per move of ours: the move, the search's score and depth, the clock.
    played.expect(0, &["ended: Win", "move 1: +", "move 3: +"]);
    assert!(played.logged("(score cp ") || played.logged("(score mate "), "{}", played.run.stderr);
    let recs = played.records(1);
    assert_eq!(recs[0].0, format!("{id}.csa"));
    let text = &recs[0].1;
    for want in [
        "V2.2",
        "N+sente",
        "N-gote",
        &format!("$EVENT:{id}"),
        "P1-KY-KE-GI-KI-OU-KI-GI-KE-KY",
        "%TORYO",
        "'#WIN",
    ] {
        assert!(text.contains(want), "{want} missing:\n{text}");
    }
    assert_eq!(text.lines().filter(|l| *l == "T1").count(), 6, "{text}");
}

/// White in a byoyomi game resumed from a summary with moves already played; the server
/// declares a repetition draw. Also: a malformed summary is rejected first, and garbage lines
/// are ignored.
#[test]
fn byoyomi_game_as_white_from_a_resumed_position_ends_in_sennichite() {
    let bad = summary("bad-1", '-', "Total_Time:0\nByoyomi:1\nTime_Unit:1fortnight", &format!("{EVEN}\n+"));
    let good = summary("good-2", '-', BYOYOMI, &format!("{EVEN}\n+\n+7776FU,T3\n-3334FU,T2\n+2726FU,T1"));
    let client = Client::new("alice").flags(&["--game", "g", "--color", "white", "--password", "pw"]);
    let played = client.settings("ponder = false").against_one(move |c: &mut Conn| {
        c.login("alice+g+white");
        c.send(&bad);
        assert_eq!(c.recv(), "REJECT bad-1");
        c.send("REJECT:bad-1 by alice");
        c.send("some garbage the client does not know");
        c.start(&good);
        let mut pos = Position::from_usi_args(&["startpos", "moves", "7g7f", "3c3d", "2g2f"]).unwrap().0;
        c.send("##[MONITOR2] what a monitor sees");
        // Each move within the byoyomi (1 s) on the server's clock.
        c.play(&mut pos, Color::White, 2, Some(Duration::from_millis(1_000)));
        c.end("#SENNICHITE\n#DRAW");
    });
    played.expect(0, &["Game_Summary rejected: unknown Time_Unit", "ended: Draw (#SENNICHITE #DRAW)"]);
    let text = played.record();
    assert!(text.contains("+7776FU\nT3\n-3334FU\nT2\n+2726FU\nT1\n-"), "{text}");
    assert!(text.contains("\nT1\n'** "), "the evaluation after the move: {text}");
}

/// A position where the client (black) wins by declaration: it sends %KACHI. Then a position
/// where it is mated: it resigns with %TORYO. Two games on two logins.
#[test]
fn declaration_and_resignation() {
    // Black king on 1b with ten pieces in the camp and 28+ points (two rooks, two bishops).
    let declare = black_attack(&[
        "P1 *  * +KI+KI+KI+KI * +RY+RY",
        "P2 *  *  *  *  *  * +UM+UM+OU",
        "P3 *  *  *  *  * +TO+TO+TO+TO",
    ]);
    let kachi = move |c: &mut Conn| {
        c.begin("bob+g+black", &summary("declare-1", '+', FISCHER, &declare));
        assert_eq!(c.recv(), "%KACHI");
        c.end("%KACHI,T0\n#JISHOGI\n#WIN");
    };
    let toryo = |c: &mut Conn| {
        c.begin("bob+g+black", &mated_summary("mated-2"));
        assert_eq!(c.recv(), "%TORYO");
        // As rshogi's server does: no echo of %TORYO.
        c.end("#RESIGN\n#LOSE");
    };
    let client = Client::new("bob+g+black").flags(&["--password", "pw", "--games", "2"]);
    let played = client.against(vec![Box::new(kachi), Box::new(toryo)]);
    played.expect(0, &["ended: Win (#JISHOGI #WIN)", "ended: Loss (#RESIGN #LOSE)", "2 games: +1 -1 =0"]);
    let recs = played.records(2);
    assert!(recs[0].1.contains("%KACHI\nT0\n'$END_TIME"), "{}", recs[0].1);
    assert!(recs[1].1.contains("%TORYO\n'$END_TIME"), "{}", recs[1].1);
}

/// The server closes the connection mid-game: the client saves what it has, connects again and
/// plays the next game; the exit status says a game ended without a result. Keep-alives go out
/// while the client waits for a game.
#[test]
fn a_disconnect_mid_game_then_a_new_game_and_keepalives() {
    let cut = |c: &mut Conn| {
        c.begin("carol", &even_summary("cut-1", '+'));
        c.play(&mut Position::startpos(), Color::Black, 1, None);
        // The connection drops here.
    };
    let next = |c: &mut Conn| {
        c.login("carol");
        // No game for a while: the client keeps the connection alive (keepalive_s = 1).
        std::thread::sleep(Duration::from_millis(2_600));
        c.start(&even_summary("next-2", '-'));
        c.play(&mut Position::startpos(), Color::White, 1, None);
        c.end("#TIME_UP\n#WIN");
    };
    let client = Client::new("carol").flags(&["--password", "pw", "--games", "2"]);
    let played = client.settings("keepalive_s = 1").against(vec![Box::new(cut), Box::new(next)]);
    played.expect(2, &["ended: Unfinished", "ended: Win (#TIME_UP #WIN)"]);
    assert!(played.keepalives[1] >= 2, "keep-alives: {:?}\n{}", played.keepalives, played.run.stderr);
    let recs = played.records(2);
    assert!(recs[0].1.contains("'connection lost"), "{}", recs[0].1);
    // The server gave no special move: the result's is written (%TIME_UP), then the result.
    assert!(recs[1].1.contains("\n%TIME_UP\n'$END_TIME"), "{}", recs[1].1);
}

/// A refused login ends the client with a message and status 1; so do settings that cannot
/// work. An opponent's move the client finds illegal stops it sending moves (it waits for the
/// result).
#[test]
fn a_refused_login_bad_settings_and_an_illegal_move_from_the_server() {
    let played = Client::new("dave").flags(&["--password", "wrong"]).against_one(|c: &mut Conn| {
        let _ = c.recv();
        c.send("LOGIN:incorrect");
    });
    played.expect(1, &["refused the login of dave"]);
    assert!(!played.logged("wrong"), "the password is not logged: {}", played.run.stderr);

    let (_silent, port) = silent_server();
    let run = Client::new("dave").settings("colour = \"black\"").run(&played.dir, port, |_| {});
    expect(&run, 1, &["colour"]);

    let played = Client::new("erin").against_one(|c: &mut Conn| {
        c.begin("erin", &even_summary("illegal-1", '-'));
        c.send("+5152OU,T1"); // no king on 5a for black: not a legal move
                              // The client sends nothing after the bad move: the next line it sends is its LOGOUT.
        std::thread::sleep(Duration::from_millis(1_500));
        c.end("#ILLEGAL_MOVE\n#WIN");
    });
    played.expect(0, &["the opponent's move"]);
}

/// Settings out of range, in the file or on the command line, are refused by name before the
/// client connects (a keep-alive of 2^63 - 1 s used to be accepted and then overflow the clock's
/// arithmetic: a panic).
#[test]
fn out_of_range_settings_are_refused_by_name() {
    let (_silent, port) = silent_server();
    let dir = temp_dir("ranges");
    for (settings, key) in [
        ("keepalive_s = 9223372036854775807", "keepalive_s"),
        ("keepalive_s = 0", "keepalive_s"),
        ("reconnect_s = -5", "reconnect_s"),
        ("reconnect_s = 3601", "reconnect_s"),
        ("margin_ms = 60001", "margin_ms"),
        ("answer_wait_s = 0", "answer_wait_s"),
        ("games = 4294967296", "games"),
    ] {
        let start = Instant::now();
        let run = Client::new("x").flags(&["--password", "y"]).settings(settings).run(&dir, port, |_| {});
        expect(&run, 1, &[key, "must be from"]);
        assert!(start.elapsed() < Duration::from_secs(10), "{settings}: {:?}", start.elapsed());
    }
    let config = dir.join("port.toml");
    for port_line in ["port = 0", "port = 65536"] {
        std::fs::write(&config, format!("[server]\nhost = \"127.0.0.1\"\n{port_line}\n")).unwrap();
        let args = ["--config", config.to_str().unwrap(), "csa", "--id", "x", "--password", "y"];
        expect(
            &run(hayate(&args), Duration::from_secs(120)),
            1,
            &["[server] port", "must be from 1 to 65535"],
        );
    }
    for flags in [["--margin-ms", "60001"], ["--port", "0"]] {
        let args = ["csa", "--host", "127.0.0.1", "--id", "x", "--password", "y", flags[0], flags[1]];
        expect(&run(hayate(&args), Duration::from_secs(120)), 2, &[flags[0], "not in"]);
    }
}

/// A server line over 64 KiB is cut there and the rest of it, up to its newline, dropped: the
/// tail of a 65,540-byte line ending in `#WIN` is not a result line (it used to end the game as
/// a win).
#[test]
fn a_line_over_64_kib_is_cut_and_its_tail_dropped() {
    let mut long = b"##[CHAT]".to_vec();
    long.resize(64 * 1024, b'x');
    long.extend_from_slice(b"#WIN\n");
    let played = Client::new("long").settings("ponder = false").against_one(move |c: &mut Conn| {
        c.begin("long", &even_summary("long-1", '+'));
        let mut pos = Position::startpos();
        c.play(&mut pos, Color::Black, 1, None);
        c.send_bytes(&long);
        // The game goes on: the server's move, the client's answer.
        c.play(&mut pos, Color::Black, 1, None);
        c.end("%TORYO,T1\n#RESIGN\n#WIN");
    });
    played.expect(0, &["over 65536 bytes", "ended: Win (#RESIGN #WIN)"]);
    assert_replays(&played.record());
}

/// Two games with the same Game_ID keep two records (the second used to replace the first), and
/// no temporary file is left beside them.
#[test]
fn two_games_with_one_game_id_keep_two_records() {
    let client = Client::new("same").flags(&["--password", "pw", "--games", "2"]);
    let game = |c: &mut Conn| resigned_game(c, "same", "same-1");
    let played = client.against(vec![Box::new(game), Box::new(game)]);
    played.expect(0, &["same-1-2.csa; tally"]);
    let recs = played.records(2);
    let names: Vec<&str> = recs.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(names, ["same-1-2.csa", "same-1.csa"], "{}", played.run.stderr);
    for (_, text) in &recs {
        assert!(text.contains("%TORYO\nT0\n'$END_TIME"), "{text}");
    }
}

/// Sends `signal` (`-TERM`) to process `pid`.
#[cfg(unix)]
fn kill(signal: &str, pid: u32) {
    let status = Command::new("kill").args([signal, &pid.to_string()]).status().expect("kill");
    assert!(status.success());
}

/// SIGTERM mid-game: the client stops its search, resigns (`%TORYO`), records the game to the
/// server's result, saves the record, logs out and exits with a message (it used to die at once:
/// no record, no resignation, no LOGOUT). SIGINT while waiting for a game: it logs out.
#[cfg(unix)]
#[test]
fn a_signal_resigns_the_game_saves_the_record_and_logs_out() {
    let played = Client::new("sigterm").settings("ponder = true").against_watched(|pid| {
        vec![Box::new(move |c: &mut Conn| {
            c.begin("sigterm", &even_summary("signal-1", '+'));
            let mut pos = Position::startpos();
            c.play(&mut pos, Color::Black, 1, None);
            // The client ponders on the server's time.
            std::thread::sleep(Duration::from_millis(300));
            kill("-TERM", pid.get());
            assert_eq!(c.recv(), "%TORYO");
            // As shogi-server does: a %TORYO sent on the other side's turn waits for that side's
            // move.
            let m = *MoveList::legal(&pos, false).iter().next().unwrap();
            c.end(&format!("{},T1\n%TORYO,T0\n#RESIGN\n#LOSE", move_to_csa(&pos, m)));
        })]
    });
    played.expect(
        0,
        &["stop requested by a signal", "ended: Loss (#RESIGN #LOSE)", "stopped by a signal after 1 games"],
    );
    let text = played.record();
    assert!(text.contains("\n%TORYO\nT0\n'$END_TIME") && text.contains("'#LOSE"), "{text}");
    assert_replays(&text);

    let client = Client::new("sigint").flags(&["--password", "pw", "--games", "0"]);
    let played = client.against_watched(|pid| {
        vec![Box::new(move |c: &mut Conn| {
            c.login("sigint");
            kill("-INT", pid.get());
            c.logout();
        })]
    });
    played.expect(0, &["stopped by a signal after 0 games"]);
}

/// The server relays a move of our colour that we never sent: the client stops moving, and the
/// record keeps it as a comment, so that it still replays (the move used to be written in it).
#[test]
fn a_move_of_ours_we_did_not_send_is_a_comment_in_the_record() {
    let played = Client::new("relay").settings("ponder = false").against_one(|c: &mut Conn| {
        c.begin("relay", &even_summary("relay-1", '+'));
        let sent = c.recv();
        assert!(sent.starts_with('+'), "{sent}");
        // Not what the client sent, and not legal either.
        c.send("+5152OU,T1");
        // The client sends nothing after the relay: the next line it sends is its LOGOUT.
        std::thread::sleep(Duration::from_millis(1_000));
        c.end("#ILLEGAL_MOVE\n#WIN");
    });
    played.expect(0, &["the server relays our move as '+5152OU'"]);
    let text = played.record();
    assert!(!text.lines().any(|l| l == "+5152OU"), "{text}");
    assert!(text.contains("'the server relayed '+5152OU,T1' as our move"), "{text}");
    assert_replays(&text);
}

/// An echo time too large for the arithmetic (`T18446744073709552`: 2^64 ms and a bit, which
/// used to wrap to 384 ms) saturates and is reported; the game goes on with the clock spent.
#[test]
fn an_absurd_time_from_the_server_saturates_and_is_reported() {
    let played = Client::new("absurd").settings("ponder = false").against_one(|c: &mut Conn| {
        c.begin("absurd", &even_summary("absurd-1", '+'));
        let mut pos = Position::startpos();
        let sent = c.take_move(&mut pos);
        c.echo(&sent, "T18446744073709552");
        // The client has its increment (1 s) left: it must answer within it.
        c.play(&mut pos, Color::Black, 1, Some(Duration::from_millis(3_000)));
        c.end("%TORYO,T1\n#RESIGN\n#WIN");
    });
    played.expect(0, &[&format!("charged {} ms for a move of black", u64::MAX), "ended: Win"]);
}

/// After the last game's connection drops, the client says so and ends (it used to promise to
/// connect again, wait, and end without connecting).
#[test]
fn the_last_game_dropped_ends_the_client_without_a_reconnect_message() {
    let start = Instant::now();
    let client = Client::new("drop").settings("reconnect_s = 30\nponder = false");
    let played = client.against_one(|c: &mut Conn| {
        c.begin("drop", &even_summary("drop-1", '+'));
        c.play(&mut Position::startpos(), Color::Black, 1, None);
    });
    played.expect(2, &["no game left to play"]);
    assert!(!played.logged("connecting again"), "{}", played.run.stderr);
    assert!(start.elapsed() < Duration::from_secs(20), "{:?}", start.elapsed());
}

/// A server that takes the login and drops the connection is tried again after 1 s, then 2 s
/// (it used to be tried every `reconnect_s`, forever); a game resets the wait.
#[test]
fn a_server_dropping_after_the_login_is_retried_with_growing_waits() {
    let accepted = Arc::new(Mutex::new(Vec::new()));
    // The connection's time, then the script `then` on it.
    let stamped = |then: fn(&mut Conn)| -> Script {
        let accepted = accepted.clone();
        Box::new(move |c: &mut Conn| {
            accepted.lock().unwrap().push(Instant::now());
            then(c);
        })
    };
    let login_only: fn(&mut Conn) = |c| c.login("backoff");
    let game: fn(&mut Conn) = |c| resigned_game(c, "backoff", "backoff-1");
    let played =
        Client::new("backoff").against(vec![stamped(login_only), stamped(login_only), stamped(game)]);
    played.expect(0, &["connecting again in 1 s", "connecting again in 2 s"]);
    let at = accepted.lock().unwrap().clone();
    let second_wait = at[2] - at[1];
    assert!(second_wait >= Duration::from_millis(1_900), "{second_wait:?}\n{}", played.run.stderr);
}

/// A server that answers AGREE with nothing: after `answer_wait_s` the client gives up on that
/// connection, says why, and plays on the next (the wait for START used to have no end).
#[test]
fn no_start_after_agree_is_given_up_after_answer_wait_s() {
    let no_start = |c: &mut Conn| {
        c.login("nostart");
        c.send(&mated_summary("nostart-1"));
        assert_eq!(c.recv(), "AGREE nostart-1");
        c.expect_close(Duration::from_secs(10));
    };
    let game = |c: &mut Conn| resigned_game(c, "nostart", "nostart-2");
    let played = Client::new("nostart")
        .settings("answer_wait_s = 1")
        .against(vec![Box::new(no_start), Box::new(game)]);
    played.expect(0, &["no START within 1 s of AGREE nostart-1; connecting again in 1 s", "ended: Loss"]);
}

/// A Game_ID that is not UTF-8 goes back in AGREE as the server's bytes (it used to go back
/// with U+FFFD in place of them, an AGREE for no game).
#[test]
fn a_game_id_that_is_not_utf8_goes_back_unchanged() {
    let id: &[u8] = b"g-\xff\x83-1";
    let mut summary = mated_summary("GAMEID").replace("GAMEID", "\u{1}").into_bytes();
    let at = summary.iter().position(|&b| b == 1).unwrap();
    summary.splice(at..=at, id.iter().copied());
    summary.push(b'\n');
    let played = Client::new("bytes").against_one(move |c: &mut Conn| {
        c.login("bytes");
        c.send_bytes(&summary);
        // AGREE with the Game_ID's bytes.
        assert_eq!(c.recv_bytes(), [b"AGREE ".as_slice(), id].concat());
        c.send_bytes(&[b"START:".as_slice(), id, b"\n"].concat());
        c.take_resignation();
    });
    played.expect(0, &[]);
    assert!(!played.logged("names another game"), "{}", played.run.stderr);
    assert_eq!(played.records(1)[0].0, "g-__-1.csa");
}

/// Thousands of chat lines while waiting for a game: a few are logged, the rest counted (each
/// used to get a log line).
#[test]
fn chat_lines_are_logged_at_a_bounded_rate() {
    let chat: String = (0..5000).map(|i| format!("##[CHAT][someone] hello {i}\n")).collect();
    let played = Client::new("chat").against_one(move |c: &mut Conn| {
        c.login("chat");
        c.send(&chat);
        c.start(&mated_summary("chat-1"));
        c.take_resignation();
    });
    played.expect(0, &["4990 more server lines ignored and not shown"]);
    let log = &played.run.stderr;
    let shown = log.lines().filter(|l| l.contains("hello")).count();
    assert_eq!(shown, 10, "{log}");
    assert!(log.len() < 20_000, "{} bytes of log", log.len());
}

/// CPU time (user and system) of process `pid` so far, in clock ticks.
#[cfg(target_os = "linux")]
fn cpu_ticks(pid: u32) -> u64 {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap();
    // The fields after the command name (which is in parentheses and may hold spaces).
    let fields: Vec<&str> = stat.rsplit_once(')').unwrap().1.split_whitespace().collect();
    fields[11].parse::<u64>().unwrap() + fields[12].parse::<u64>().unwrap()
}

/// A server silent after the client's move: pondering ends once the opponent's whole clock
/// (and a grace) has passed, and the client idles (it used to search on, a core busy for as
/// long as the server stayed silent); the opponent's late move is then answered.
#[test]
fn pondering_stops_when_the_server_is_silent_past_the_opponents_clock() {
    // Sudden death in milliseconds: white a second, black (the client) ten, so that its first
    // search (a few milliseconds with one second, depth 1 on a loaded machine, which leaves no
    // ponder move) runs deep enough to name the reply it ponders on.
    let time = "Total_Time+:10000\nTotal_Time-:1000\nIncrement:0";
    let s =
        summary("silent-1", '+', time, &format!("{EVEN}\n+")).replace("Time_Unit:1sec", "Time_Unit:1msec");
    let idle_ticks = Arc::new(Mutex::new(None));
    let ticks = idle_ticks.clone();
    let client = Client::new("silent").settings("ponder = true\nmargin_ms = 300");
    let played = client.against_watched(|pid| {
        vec![Box::new(move |c: &mut Conn| {
            c.begin("silent", &s);
            let mut pos = Position::startpos();
            let sent = c.take_move(&mut pos);
            c.echo(&sent, "T0");
            // White's clock (1 s) and the grace (3 s) pass.
            std::thread::sleep(Duration::from_millis(4_600));
            let pid = pid.get();
            #[cfg(target_os = "linux")]
            {
                let before = cpu_ticks(pid);
                std::thread::sleep(Duration::from_millis(1_000));
                *ticks.lock().unwrap() = Some(cpu_ticks(pid) - before);
            }
            let _ = (pid, &ticks);
            c.play(&mut pos, Color::Black, 1, None);
            c.end("%TORYO,T0\n#RESIGN\n#WIN");
        })]
    });
    played.expect(0, &["pondering stopped", "ended: Win"]);
    let idle = *idle_ticks.lock().unwrap();
    if let Some(ticks) = idle {
        // A searching thread takes about 100 ticks a second; an idle client next to none.
        assert!(
            ticks < 15,
            "the client used {ticks} ticks of CPU in a second of silence\n{}",
            played.run.stderr
        );
    }
}

/// The client's settings file is read as the options file is: a FIFO (which blocked the client
/// before it said anything) or a device is refused with a message that says what it is.
#[cfg(unix)]
#[test]
fn a_settings_file_that_is_a_fifo_or_a_device_is_refused() {
    let dir = temp_dir("settings-fifo");
    let fifo = common::make_fifo(dir.join("fifo.toml"));
    for (path, kind) in [(fifo.as_path(), "FIFO"), (Path::new("/dev/zero"), "device")] {
        let args = [
            "--config",
            path.to_str().unwrap(),
            "csa",
            "--host",
            "127.0.0.1",
            "--id",
            "x",
            "--password",
            "y",
        ];
        let run = run(hayate(&args), Duration::from_secs(20));
        assert!(run.code.is_some(), "{}: no answer in 20 s", path.display());
        expect(&run, 1, &[kind]);
    }
}
