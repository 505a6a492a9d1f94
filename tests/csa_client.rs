//! `hayate csa` against a CSA server played by the test: a scripted peer that speaks as
//! floodgate and shogi-server do (login, Game_Summary, AGREE/START, moves echoed with their time,
//! result lines, LOGOUT), checks every move the client sends for legality and turn, and plays
//! the other side with legal moves of its own.

use hayate::csa::notation::{move_from_csa, move_to_csa};
use hayate::position::{MoveList, Position};
use hayate::types::Color;
use std::io::{BufRead, BufReader, Write};
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
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

    /// Expects `LOGOUT` and answers it.
    fn logout(&mut self) {
        assert_eq!(self.recv(), "LOGOUT");
        self.send("LOGOUT:completed");
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
                let line = self.recv();
                let took = asked.elapsed();
                if let Some(b) = budget {
                    assert!(took < b, "the move {line} took {took:?}, more than {b:?}");
                }
                let body = line.split(',').next().unwrap().to_string();
                let m = move_from_csa(pos, &body).unwrap_or_else(|e| panic!("the client sent {line}: {e}"));
                self.send(&format!("{body},T1"));
                pos.do_move(m);
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

/// A fresh folder for a client's records and settings.
fn temp_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("hayate-csa-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

struct Run {
    code: Option<i32>,
    log: String,
}

/// A `hayate csa` process running.
struct Running {
    child: Child,
    err_reader: JoinHandle<String>,
    out_reader: JoinHandle<String>,
}

impl Running {
    fn pid(&self) -> u32 {
        self.child.id()
    }

    /// Waits for the end (killing the client after 120 s); its exit status and log.
    fn wait(mut self) -> Run {
        let start = Instant::now();
        let code = loop {
            if let Some(status) = self.child.try_wait().unwrap() {
                break status.code();
            }
            if start.elapsed() > Duration::from_secs(120) {
                let _ = self.child.kill();
                let _ = self.child.wait();
                break None;
            }
            std::thread::sleep(Duration::from_millis(20));
        };
        let log = self.err_reader.join().unwrap();
        let out = self.out_reader.join().unwrap();
        assert!(out.is_empty(), "the CSA client wrote on stdout: {out}");
        Run { code, log }
    }
}

/// Runs `hayate csa` in `dir` with a settings file (small table, one thread, the client
/// section given) and the flags given.
fn client(dir: &Path, port: u16, client_section: &str, flags: &[&str]) -> Run {
    spawn_client(dir, port, client_section, flags).wait()
}

/// Starts `hayate csa` as [`client`] does; `reconnect_s = 1` unless `client_section` sets it.
fn spawn_client(dir: &Path, port: u16, client_section: &str, flags: &[&str]) -> Running {
    let config = dir.join("csa.toml");
    let reconnect = if client_section.contains("reconnect_s") { "" } else { "reconnect_s = 1\n" };
    std::fs::write(
        &config,
        format!(
            "[server]\nhost = \"127.0.0.1\"\nport = {port}\n[client]\n{reconnect}{client_section}\n\
             [options]\nUSI_Hash = 16\nThreads = 1\nEvalDir = \"no-such-folder\"\n"
        ),
    )
    .unwrap();
    let mut child = Command::new(env!("CARGO_BIN_EXE_hayate"))
        .arg("--config")
        .arg(&config)
        .arg("csa")
        .args(flags)
        .args(["--record-dir", "records"])
        .current_dir(dir)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start hayate csa");
    let mut stderr = child.stderr.take().unwrap();
    let mut stdout = child.stdout.take().unwrap();
    let err_reader = std::thread::spawn(move || {
        let mut s = String::new();
        let _ = std::io::Read::read_to_string(&mut stderr, &mut s);
        s
    });
    let out_reader = std::thread::spawn(move || {
        let mut s = String::new();
        let _ = std::io::Read::read_to_string(&mut stdout, &mut s);
        s
    });
    Running { child, err_reader, out_reader }
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

/// The records the client saved, by file name.
fn records(dir: &Path) -> Vec<(String, String)> {
    let mut found: Vec<(String, String)> = std::fs::read_dir(dir.join("records"))
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
    found
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

/// Black in a Fischer game the server's side resigns after three moves of the client; with
/// pondering, and floodgate's login built from --game.
#[test]
fn fischer_game_as_black_won_by_the_opponents_resignation() {
    let id = "wdoor+floodgate-10-1F+hayate+opp+20261125100000";
    let s = summary(id, '+', FISCHER, &format!("{EVEN}\n+"));
    let (port, server) = start_server(vec![Box::new(move |c: &mut Conn| {
        let login = c.recv();
        assert_eq!(login, "LOGIN hayate floodgate-10-1F,trip");
        c.send("LOGIN:hayate OK");
        c.start(&s);
        let mut pos = Position::startpos();
        let sent = c.play(&mut pos, Color::Black, 3, Some(Duration::from_millis(10_500)));
        // floodgate's evaluation comment after the move.
        assert!(sent.iter().all(|l| l.contains(",'* ")), "{sent:?}");
        c.send("%TORYO,T1\n#RESIGN\n#WIN");
        c.logout();
    })]);
    let dir = temp_dir("fischer");
    let run = client(
        &dir,
        port,
        "ponder = true",
        &["--id", "hayate", "--password", "trip", "--game", "floodgate-10-1F"],
    );
    server.join().expect("the server's script");
    assert_eq!(run.code, Some(0), "{}", run.log);
    assert!(run.log.contains("ended: Win"), "{}", run.log);
    // A line per move of ours: the move, the search's score and depth, the clock.
    assert!(run.log.contains("move 1: +") && run.log.contains("move 3: +"), "{}", run.log);
    assert!(run.log.contains("(score cp ") || run.log.contains("(score mate "), "{}", run.log);
    let recs = records(&dir);
    assert_eq!(recs.len(), 1);
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
    let (port, server) = start_server(vec![Box::new(move |c: &mut Conn| {
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
        c.send("#SENNICHITE\n#DRAW");
        c.logout();
    })]);
    let dir = temp_dir("byoyomi");
    let run = client(
        &dir,
        port,
        "ponder = false",
        &["--id", "alice", "--game", "g", "--color", "white", "--password", "pw"],
    );
    server.join().expect("the server's script");
    assert_eq!(run.code, Some(0), "{}", run.log);
    assert!(run.log.contains("Game_Summary rejected: unknown Time_Unit"), "{}", run.log);
    assert!(run.log.contains("ended: Draw (#SENNICHITE #DRAW)"), "{}", run.log);
    let recs = records(&dir);
    assert_eq!(recs.len(), 1, "{recs:?}");
    assert!(recs[0].1.contains("+7776FU\nT3\n-3334FU\nT2\n+2726FU\nT1\n-"), "{}", recs[0].1);
    assert!(recs[0].1.contains("\nT1\n'** "), "the evaluation after the move: {}", recs[0].1);
}

/// A position where the client (black) wins by declaration: it sends %KACHI. Then a position
/// where it is mated: it resigns with %TORYO. Two games on two logins.
#[test]
fn declaration_and_resignation() {
    // Black king on 1b with ten pieces in the camp and 28+ points (two rooks, two bishops).
    let declare = "P1 *  * +KI+KI+KI+KI * +RY+RY
P2 *  *  *  *  *  * +UM+UM+OU
P3 *  *  *  *  * +TO+TO+TO+TO
P4 *  *  *  *  *  *  *  *  * 
P5 *  *  *  *  *  *  *  *  * 
P6 *  *  *  *  *  *  *  *  * 
P7 *  *  *  *  *  *  *  *  * 
P8 *  *  *  *  *  *  *  *  * 
P9-OU *  *  *  *  *  *  *  * 
P+
P-00AL
+";
    // Black to move and mated: the king in the corner (1a), white golds on 1b and 2b.
    let mated = "P1 *  *  *  *  *  *  *  * +OU
P2 *  *  *  *  *  *  * -KI-KI
P3 *  *  *  *  *  *  *  *  * 
P4 *  *  *  *  *  *  *  *  * 
P5 *  *  *  *  *  *  *  *  * 
P6 *  *  *  *  *  *  *  *  * 
P7 *  *  *  *  *  *  *  *  * 
P8 *  *  *  *  *  *  *  *  * 
P9-OU *  *  *  *  *  *  *  * 
P+
P-00AL
+";
    let s1 = summary("declare-1", '+', FISCHER, declare);
    let s2 = summary("mated-2", '+', FISCHER, mated);
    let (port, server) = start_server(vec![
        Box::new(move |c: &mut Conn| {
            c.login("bob+g+black");
            c.start(&s1);
            assert_eq!(c.recv(), "%KACHI");
            c.send("%KACHI,T0\n#JISHOGI\n#WIN");
            c.logout();
        }),
        Box::new(move |c: &mut Conn| {
            c.login("bob+g+black");
            c.start(&s2);
            assert_eq!(c.recv(), "%TORYO");
            // As rshogi's server does: no echo of %TORYO.
            c.send("#RESIGN\n#LOSE");
            c.logout();
        }),
    ]);
    let dir = temp_dir("declare");
    let run = client(&dir, port, "", &["--id", "bob+g+black", "--password", "pw", "--games", "2"]);
    server.join().expect("the server's script");
    assert_eq!(run.code, Some(0), "{}", run.log);
    assert!(run.log.contains("ended: Win (#JISHOGI #WIN)"), "{}", run.log);
    assert!(run.log.contains("ended: Loss (#RESIGN #LOSE)"), "{}", run.log);
    assert!(run.log.contains("2 games: +1 -1 =0"), "{}", run.log);
    let recs = records(&dir);
    assert_eq!(recs.len(), 2, "{recs:?}");
    assert!(recs[0].1.contains("%KACHI\nT0\n'$END_TIME"), "{}", recs[0].1);
    assert!(recs[1].1.contains("%TORYO\n'$END_TIME"), "{}", recs[1].1);
}

/// The server closes the connection mid-game: the client saves what it has, connects again and
/// plays the next game; the exit status says a game ended without a result. Keep-alives go out
/// while the client waits for a game.
#[test]
fn a_disconnect_mid_game_then_a_new_game_and_keepalives() {
    let s1 = summary("cut-1", '+', FISCHER, &format!("{EVEN}\n+"));
    let s2 = summary("next-2", '-', FISCHER, &format!("{EVEN}\n+"));
    let (port, server) = start_server(vec![
        Box::new(move |c: &mut Conn| {
            c.login("carol");
            c.start(&s1);
            let mut pos = Position::startpos();
            c.play(&mut pos, Color::Black, 1, None);
            // The connection drops here.
        }),
        Box::new(move |c: &mut Conn| {
            c.login("carol");
            // No game for a while: the client keeps the connection alive (keepalive_s = 1).
            std::thread::sleep(Duration::from_millis(2_600));
            c.start(&s2);
            let mut pos = Position::startpos();
            c.play(&mut pos, Color::White, 1, None);
            c.send("#TIME_UP\n#WIN");
            c.logout();
        }),
    ]);
    let dir = temp_dir("disconnect");
    let run = client(&dir, port, "keepalive_s = 1", &["--id", "carol", "--password", "pw", "--games", "2"]);
    let keepalives = server.join().expect("the server's script");
    assert_eq!(run.code, Some(2), "{}", run.log);
    assert!(run.log.contains("ended: Unfinished"), "{}", run.log);
    assert!(run.log.contains("ended: Win (#TIME_UP #WIN)"), "{}", run.log);
    assert!(keepalives[1] >= 2, "keep-alives: {keepalives:?}\n{}", run.log);
    let recs = records(&dir);
    assert_eq!(recs.len(), 2, "{recs:?}");
    assert!(recs[0].1.contains("'connection lost"), "{}", recs[0].1);
    // The server gave no special move: the result's is written (%TIME_UP), then the result.
    assert!(recs[1].1.contains("\n%TIME_UP\n'$END_TIME"), "{}", recs[1].1);
}

/// A refused login ends the client with a message and status 1; so do settings that cannot
/// work. An opponent's move the client finds illegal stops it sending moves (it waits for the
/// result).
#[test]
fn a_refused_login_bad_settings_and_an_illegal_move_from_the_server() {
    let (port, server) = start_server(vec![Box::new(|c: &mut Conn| {
        let _ = c.recv();
        c.send("LOGIN:incorrect");
    })]);
    let dir = temp_dir("refused");
    let run = client(&dir, port, "", &["--id", "dave", "--password", "wrong"]);
    server.join().expect("the server's script");
    assert_eq!(run.code, Some(1), "{}", run.log);
    assert!(run.log.contains("refused the login of dave"), "{}", run.log);
    assert!(!run.log.contains("wrong"), "the password is not logged: {}", run.log);

    let run = client(&dir, port, "colour = \"black\"", &["--id", "dave", "--password", "pw"]);
    assert_eq!(run.code, Some(1), "{}", run.log);
    assert!(run.log.contains("colour"), "{}", run.log);

    let s = summary("illegal-1", '-', FISCHER, &format!("{EVEN}\n+"));
    let (port, server) = start_server(vec![Box::new(move |c: &mut Conn| {
        c.login("erin");
        c.start(&s);
        c.send("+5152OU,T1"); // no king on 5a for black: not a legal move
        std::thread::sleep(Duration::from_millis(1_500));
        c.send("#ILLEGAL_MOVE\n#WIN");
        c.logout();
    })]);
    let run = client(&dir, port, "", &["--id", "erin", "--password", "pw"]);
    server.join().expect("the server's script (the client sent nothing after the bad move)");
    assert_eq!(run.code, Some(0), "{}", run.log);
    assert!(run.log.contains("the opponent's move"), "{}", run.log);
}

/// Black to move and mated (the king in the corner, white golds on 1b and 2b): the client
/// resigns at once, for tests about what happens around a game.
const MATED: &str = "P1 *  *  *  *  *  *  *  * +OU
P2 *  *  *  *  *  *  * -KI-KI
P3 *  *  *  *  *  *  *  *  * 
P4 *  *  *  *  *  *  *  *  * 
P5 *  *  *  *  *  *  *  *  * 
P6 *  *  *  *  *  *  *  *  * 
P7 *  *  *  *  *  *  *  *  * 
P8 *  *  *  *  *  *  *  *  * 
P9-OU *  *  *  *  *  *  *  * 
P+
P-00AL
+";

/// A game the client (black, mated) resigns at once: the server's side of it, `summary` given.
fn resigned_game(c: &mut Conn, name: &str, summary: &str) {
    c.login(name);
    c.start(summary);
    assert_eq!(c.recv(), "%TORYO");
    c.send("%TORYO,T0\n#RESIGN\n#LOSE");
    c.logout();
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

/// Settings out of range, in the file or on the command line, are refused by name before the
/// client connects (a keep-alive of 2^63 - 1 s used to be accepted and then overflow the clock's
/// arithmetic: a panic).
#[test]
fn out_of_range_settings_are_refused_by_name() {
    // A server that never answers: a client that connects waits on its LOGIN.
    let silent = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = silent.local_addr().unwrap().port();
    let dir = temp_dir("ranges");
    for (section, key) in [
        ("keepalive_s = 9223372036854775807", "keepalive_s"),
        ("keepalive_s = 0", "keepalive_s"),
        ("reconnect_s = -5", "reconnect_s"),
        ("reconnect_s = 3601", "reconnect_s"),
        ("margin_ms = 60001", "margin_ms"),
        ("answer_wait_s = 0", "answer_wait_s"),
        ("games = 4294967296", "games"),
    ] {
        let start = Instant::now();
        let run = client(&dir, port, section, &["--id", "x", "--password", "y"]);
        assert_eq!(run.code, Some(1), "{section}: {}", run.log);
        assert!(run.log.contains(key) && run.log.contains("must be from"), "{section}: {}", run.log);
        assert!(start.elapsed() < Duration::from_secs(10), "{section}: {:?}", start.elapsed());
    }
    let config = dir.join("port.toml");
    for port_line in ["port = 0", "port = 65536"] {
        std::fs::write(&config, format!("[server]\nhost = \"127.0.0.1\"\n{port_line}\n")).unwrap();
        let out = Command::new(env!("CARGO_BIN_EXE_hayate"))
            .arg("--config")
            .arg(&config)
            .args(["csa", "--id", "x", "--password", "y"])
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{port_line}: {err}");
        assert!(
            err.contains("[server] port") && err.contains("must be from 1 to 65535"),
            "{port_line}: {err}"
        );
    }
    for flags in [["--margin-ms", "60001"], ["--port", "0"]] {
        let out = Command::new(env!("CARGO_BIN_EXE_hayate"))
            .args(["csa", "--host", "127.0.0.1", "--id", "x", "--password", "y"])
            .args(flags)
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{flags:?}: {err}");
        assert!(err.contains(flags[0]) && err.contains("not in"), "{flags:?}: {err}");
    }
    drop(silent);
}

/// A server line over 64 KiB is cut there and the rest of it, up to its newline, dropped: the
/// tail of a 65,540-byte line ending in `#WIN` is not a result line (it used to end the game as
/// a win).
#[test]
fn a_line_over_64_kib_is_cut_and_its_tail_dropped() {
    let s = summary("long-1", '+', FISCHER, &format!("{EVEN}\n+"));
    let (port, server) = start_server(vec![Box::new(move |c: &mut Conn| {
        c.login("long");
        c.start(&s);
        let mut pos = Position::startpos();
        c.play(&mut pos, Color::Black, 1, None);
        let mut long = b"##[CHAT]".to_vec();
        long.resize(64 * 1024, b'x');
        long.extend_from_slice(b"#WIN\n");
        c.send_bytes(&long);
        // The game goes on: the server's move, the client's answer.
        c.play(&mut pos, Color::Black, 1, None);
        c.send("%TORYO,T1\n#RESIGN\n#WIN");
        c.logout();
    })]);
    let dir = temp_dir("long-line");
    let run = client(&dir, port, "ponder = false", &["--id", "long", "--password", "pw"]);
    server.join().expect("the server's script (the game went on after the long line)");
    assert_eq!(run.code, Some(0), "{}", run.log);
    assert!(run.log.contains("over 65536 bytes"), "{}", run.log);
    assert!(run.log.contains("ended: Win (#RESIGN #WIN)"), "{}", run.log);
    assert_replays(&records(&dir)[0].1);
}

/// Two games with the same Game_ID keep two records (the second used to replace the first), and
/// no temporary file is left beside them.
#[test]
fn two_games_with_one_game_id_keep_two_records() {
    let s = summary("same-1", '+', FISCHER, MATED);
    let s2 = s.clone();
    let (port, server) = start_server(vec![
        Box::new(move |c: &mut Conn| resigned_game(c, "same", &s)),
        Box::new(move |c: &mut Conn| resigned_game(c, "same", &s2)),
    ]);
    let dir = temp_dir("same-id");
    let run = client(&dir, port, "", &["--id", "same", "--password", "pw", "--games", "2"]);
    server.join().expect("the server's script");
    assert_eq!(run.code, Some(0), "{}", run.log);
    let recs = records(&dir);
    let names: Vec<&str> = recs.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(names, ["same-1-2.csa", "same-1.csa"], "{}", run.log);
    for (_, text) in &recs {
        assert!(text.contains("%TORYO\nT0\n'$END_TIME"), "{text}");
    }
    assert!(run.log.contains("same-1-2.csa; tally"), "{}", run.log);
}

/// SIGTERM mid-game: the client stops its search, resigns (`%TORYO`), records the game to the
/// server's result, saves the record, logs out and exits with a message (it used to die at once:
/// no record, no resignation, no LOGOUT). SIGINT while waiting for a game: it logs out.
#[cfg(unix)]
#[test]
fn a_signal_resigns_the_game_saves_the_record_and_logs_out() {
    let kill = |signal: &str, pid: u32| {
        let status = Command::new("kill").args([signal, &pid.to_string()]).status().expect("kill");
        assert!(status.success());
    };
    let s = summary("signal-1", '+', FISCHER, &format!("{EVEN}\n+"));
    let pid = Pid::default();
    let script_pid = pid.clone();
    let (port, server) = start_server(vec![Box::new(move |c: &mut Conn| {
        c.login("sig");
        c.start(&s);
        let mut pos = Position::startpos();
        c.play(&mut pos, Color::Black, 1, None);
        // The client ponders on the server's time.
        std::thread::sleep(Duration::from_millis(300));
        kill("-TERM", script_pid.get());
        assert_eq!(c.recv(), "%TORYO");
        // As shogi-server does: a %TORYO sent on the other side's turn waits for that side's move.
        let m = *MoveList::legal(&pos, false).iter().next().unwrap();
        c.send(&format!("{},T1\n%TORYO,T0\n#RESIGN\n#LOSE", move_to_csa(&pos, m)));
        c.logout();
    })]);
    let dir = temp_dir("sigterm");
    let running = spawn_client(&dir, port, "ponder = true", &["--id", "sig", "--password", "pw"]);
    pid.set(running.pid());
    let run = running.wait();
    server.join().expect("the server's script (%TORYO and LOGOUT after SIGTERM)");
    assert_eq!(run.code, Some(0), "{}", run.log);
    assert!(run.log.contains("stop requested by a signal"), "{}", run.log);
    assert!(run.log.contains("ended: Loss (#RESIGN #LOSE)"), "{}", run.log);
    assert!(run.log.contains("stopped by a signal after 1 games"), "{}", run.log);
    let recs = records(&dir);
    assert_eq!(recs.len(), 1, "{recs:?}");
    let text = &recs[0].1;
    assert!(text.contains("\n%TORYO\nT0\n'$END_TIME") && text.contains("'#LOSE"), "{text}");
    assert_replays(text);

    let pid = Pid::default();
    let script_pid = pid.clone();
    let (port, server) = start_server(vec![Box::new(move |c: &mut Conn| {
        c.login("sig");
        kill("-INT", script_pid.get());
        c.logout();
    })]);
    let running = spawn_client(&dir, port, "", &["--id", "sig", "--password", "pw", "--games", "0"]);
    pid.set(running.pid());
    let run = running.wait();
    server.join().expect("the server's script (LOGOUT after SIGINT)");
    assert_eq!(run.code, Some(0), "{}", run.log);
    assert!(run.log.contains("stopped by a signal after 0 games"), "{}", run.log);
}

/// The server relays a move of our colour that we never sent: the client stops moving, and the
/// record keeps it as a comment, so that it still replays (the move used to be written in it).
#[test]
fn a_move_of_ours_we_did_not_send_is_a_comment_in_the_record() {
    let s = summary("relay-1", '+', FISCHER, &format!("{EVEN}\n+"));
    let (port, server) = start_server(vec![Box::new(move |c: &mut Conn| {
        c.login("relay");
        c.start(&s);
        let sent = c.recv();
        assert!(sent.starts_with('+'), "{sent}");
        // Not what the client sent, and not legal either.
        c.send("+5152OU,T1");
        std::thread::sleep(Duration::from_millis(1_000));
        c.send("#ILLEGAL_MOVE\n#WIN");
        c.logout();
    })]);
    let dir = temp_dir("relay");
    let run = client(&dir, port, "ponder = false", &["--id", "relay", "--password", "pw"]);
    server.join().expect("the server's script (the client sent nothing after the relay)");
    assert_eq!(run.code, Some(0), "{}", run.log);
    assert!(run.log.contains("the server relays our move as '+5152OU'"), "{}", run.log);
    let text = &records(&dir)[0].1;
    assert!(!text.lines().any(|l| l == "+5152OU"), "{text}");
    assert!(text.contains("'the server relayed '+5152OU,T1' as our move"), "{text}");
    assert_replays(text);
}

/// An echo time too large for the arithmetic (`T18446744073709552`: 2^64 ms and a bit, which
/// used to wrap to 384 ms) saturates and is reported; the game goes on with the clock spent.
#[test]
fn an_absurd_time_from_the_server_saturates_and_is_reported() {
    let s = summary("absurd-1", '+', FISCHER, &format!("{EVEN}\n+"));
    let (port, server) = start_server(vec![Box::new(move |c: &mut Conn| {
        c.login("absurd");
        c.start(&s);
        let mut pos = Position::startpos();
        let sent = c.recv();
        let body = sent.split(',').next().unwrap().to_string();
        pos.do_move(move_from_csa(&pos, &body).unwrap());
        c.send(&format!("{body},T18446744073709552"));
        // The client has its increment (1 s) left: it must answer within it.
        c.play(&mut pos, Color::Black, 1, Some(Duration::from_millis(3_000)));
        c.send("%TORYO,T1\n#RESIGN\n#WIN");
        c.logout();
    })]);
    let dir = temp_dir("absurd");
    let run = client(&dir, port, "ponder = false", &["--id", "absurd", "--password", "pw"]);
    server.join().expect("the server's script");
    assert_eq!(run.code, Some(0), "{}", run.log);
    assert!(run.log.contains(&format!("charged {} ms for a move of black", u64::MAX)), "{}", run.log);
    assert!(run.log.contains("ended: Win"), "{}", run.log);
}

/// After the last game's connection drops, the client says so and ends (it used to promise to
/// connect again, wait, and end without connecting).
#[test]
fn the_last_game_dropped_ends_the_client_without_a_reconnect_message() {
    let s = summary("drop-1", '+', FISCHER, &format!("{EVEN}\n+"));
    let (port, server) = start_server(vec![Box::new(move |c: &mut Conn| {
        c.login("drop");
        c.start(&s);
        let mut pos = Position::startpos();
        c.play(&mut pos, Color::Black, 1, None);
    })]);
    let dir = temp_dir("last-drop");
    let start = Instant::now();
    let run = client(&dir, port, "reconnect_s = 30\nponder = false", &["--id", "drop", "--password", "pw"]);
    server.join().expect("the server's script");
    assert_eq!(run.code, Some(2), "{}", run.log);
    assert!(!run.log.contains("connecting again"), "{}", run.log);
    assert!(run.log.contains("no game left to play"), "{}", run.log);
    assert!(start.elapsed() < Duration::from_secs(20), "{:?}", start.elapsed());
}

/// A server that takes the login and drops the connection is tried again after 1 s, then 2 s
/// (it used to be tried every `reconnect_s`, forever); a game resets the wait.
#[test]
fn a_server_dropping_after_the_login_is_retried_with_growing_waits() {
    let accepted = Arc::new(Mutex::new(Vec::new()));
    let stamp = |accepted: &Arc<Mutex<Vec<Instant>>>| {
        let accepted = accepted.clone();
        move || accepted.lock().unwrap().push(Instant::now())
    };
    let (a, b, d) = (stamp(&accepted), stamp(&accepted), stamp(&accepted));
    let s = summary("backoff-1", '+', FISCHER, MATED);
    let (port, server) = start_server(vec![
        Box::new(move |c: &mut Conn| {
            a();
            c.login("backoff");
        }),
        Box::new(move |c: &mut Conn| {
            b();
            c.login("backoff");
        }),
        Box::new(move |c: &mut Conn| {
            d();
            resigned_game(c, "backoff", &s);
        }),
    ]);
    let dir = temp_dir("backoff");
    let run = client(&dir, port, "", &["--id", "backoff", "--password", "pw"]);
    server.join().expect("the server's script");
    assert_eq!(run.code, Some(0), "{}", run.log);
    assert!(run.log.contains("connecting again in 1 s"), "{}", run.log);
    assert!(run.log.contains("connecting again in 2 s"), "{}", run.log);
    let at = accepted.lock().unwrap().clone();
    let second_wait = at[2] - at[1];
    assert!(second_wait >= Duration::from_millis(1_900), "{second_wait:?}\n{}", run.log);
}

/// A server that answers AGREE with nothing: after `answer_wait_s` the client gives up on that
/// connection, says why, and plays on the next (the wait for START used to have no end).
#[test]
fn no_start_after_agree_is_given_up_after_answer_wait_s() {
    let s1 = summary("nostart-1", '+', FISCHER, MATED);
    let s2 = summary("nostart-2", '+', FISCHER, MATED);
    let (port, server) = start_server(vec![
        Box::new(move |c: &mut Conn| {
            c.login("nostart");
            c.send(&s1);
            assert_eq!(c.recv(), "AGREE nostart-1");
            c.expect_close(Duration::from_secs(10));
        }),
        Box::new(move |c: &mut Conn| resigned_game(c, "nostart", &s2)),
    ]);
    let dir = temp_dir("no-start");
    let run = client(&dir, port, "answer_wait_s = 1", &["--id", "nostart", "--password", "pw"]);
    server.join().expect("the server's script");
    assert_eq!(run.code, Some(0), "{}", run.log);
    assert!(
        run.log.contains("no START within 1 s of AGREE nostart-1; connecting again in 1 s"),
        "{}",
        run.log
    );
    assert!(run.log.contains("ended: Loss"), "{}", run.log);
}

/// A Game_ID that is not UTF-8 goes back in AGREE as the server's bytes (it used to go back
/// with U+FFFD in place of them, an AGREE for no game).
#[test]
fn a_game_id_that_is_not_utf8_goes_back_unchanged() {
    let s = summary("GAMEID", '+', FISCHER, MATED);
    let (port, server) = start_server(vec![Box::new(move |c: &mut Conn| {
        c.login("bytes");
        let id: &[u8] = b"g-\xff\x83-1";
        let mut summary = s.replace("GAMEID", "\u{1}").into_bytes();
        let at = summary.iter().position(|&b| b == 1).unwrap();
        summary.splice(at..=at, id.iter().copied());
        summary.push(b'\n');
        c.send_bytes(&summary);
        assert_eq!(c.recv_bytes(), [b"AGREE ".as_slice(), id].concat());
        c.send_bytes(&[b"START:".as_slice(), id, b"\n"].concat());
        assert_eq!(c.recv(), "%TORYO");
        c.send("%TORYO,T0\n#RESIGN\n#LOSE");
        c.logout();
    })]);
    let dir = temp_dir("bytes-id");
    let run = client(&dir, port, "", &["--id", "bytes", "--password", "pw"]);
    server.join().expect("the server's script (AGREE with the Game_ID's bytes)");
    assert_eq!(run.code, Some(0), "{}", run.log);
    assert!(!run.log.contains("names another game"), "{}", run.log);
    assert_eq!(records(&dir)[0].0, "g-__-1.csa");
}

/// Thousands of chat lines while waiting for a game: a few are logged, the rest counted (each
/// used to get a log line).
#[test]
fn chat_lines_are_logged_at_a_bounded_rate() {
    let s = summary("chat-1", '+', FISCHER, MATED);
    let (port, server) = start_server(vec![Box::new(move |c: &mut Conn| {
        c.login("chat");
        let chat: String = (0..5000).map(|i| format!("##[CHAT][someone] hello {i}\n")).collect();
        c.send(&chat);
        c.start(&s);
        assert_eq!(c.recv(), "%TORYO");
        c.send("%TORYO,T0\n#RESIGN\n#LOSE");
        c.logout();
    })]);
    let dir = temp_dir("chat");
    let run = client(&dir, port, "", &["--id", "chat", "--password", "pw"]);
    server.join().expect("the server's script");
    assert_eq!(run.code, Some(0), "{}", run.log);
    let shown = run.log.lines().filter(|l| l.contains("hello")).count();
    assert_eq!(shown, 10, "{}", run.log);
    assert!(run.log.contains("4990 more server lines ignored and not shown"), "{}", run.log);
    assert!(run.log.len() < 20_000, "{} bytes of log", run.log.len());
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
    // Sudden death, a second each, in milliseconds.
    let time = "Total_Time:1000\nIncrement:0";
    let s =
        summary("silent-1", '+', time, &format!("{EVEN}\n+")).replace("Time_Unit:1sec", "Time_Unit:1msec");
    let pid = Pid::default();
    let script_pid = pid.clone();
    let idle_ticks = Arc::new(Mutex::new(None));
    let ticks = idle_ticks.clone();
    let (port, server) = start_server(vec![Box::new(move |c: &mut Conn| {
        c.login("silent");
        c.start(&s);
        let mut pos = Position::startpos();
        let sent = c.recv();
        let body = sent.split(',').next().unwrap().to_string();
        pos.do_move(move_from_csa(&pos, &body).unwrap());
        c.send(&format!("{body},T0"));
        // White's clock (1 s) and the grace (3 s) pass.
        std::thread::sleep(Duration::from_millis(4_600));
        let pid = script_pid.get();
        #[cfg(target_os = "linux")]
        {
            let before = cpu_ticks(pid);
            std::thread::sleep(Duration::from_millis(1_000));
            *ticks.lock().unwrap() = Some(cpu_ticks(pid) - before);
        }
        let _ = (pid, &ticks);
        c.play(&mut pos, Color::Black, 1, None);
        c.send("%TORYO,T0\n#RESIGN\n#WIN");
        c.logout();
    })]);
    let dir = temp_dir("silent");
    let running =
        spawn_client(&dir, port, "ponder = true\nmargin_ms = 300", &["--id", "silent", "--password", "pw"]);
    pid.set(running.pid());
    let run = running.wait();
    server.join().expect("the server's script");
    assert_eq!(run.code, Some(0), "{}", run.log);
    assert!(run.log.contains("pondering stopped"), "{}", run.log);
    assert!(run.log.contains("ended: Win"), "{}", run.log);
    let idle = *idle_ticks.lock().unwrap();
    if let Some(ticks) = idle {
        // A searching thread takes about 100 ticks a second; an idle client next to none.
        assert!(ticks < 15, "the client used {ticks} ticks of CPU in a second of silence\n{}", run.log);
    }
}

/// The client's settings file is read as the options file is: a FIFO (which blocked the client
/// before it said anything) or a device is refused with a message that says what it is.
#[cfg(unix)]
#[test]
fn a_settings_file_that_is_a_fifo_or_a_device_is_refused() {
    let dir = temp_dir("settings-fifo");
    let fifo = dir.join("fifo.toml");
    assert!(Command::new("mkfifo").arg(&fifo).status().unwrap().success());
    for (path, kind) in [(fifo.as_path(), "FIFO"), (Path::new("/dev/zero"), "device")] {
        let mut child = Command::new(env!("CARGO_BIN_EXE_hayate"))
            .arg("--config")
            .arg(path)
            .args(["csa", "--host", "127.0.0.1", "--id", "x", "--password", "y"])
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let deadline = Instant::now() + Duration::from_secs(20);
        let status = loop {
            if let Some(status) = child.try_wait().unwrap() {
                break Some(status);
            }
            if Instant::now() > deadline {
                let _ = child.kill();
                break None;
            }
            std::thread::sleep(Duration::from_millis(20));
        };
        let mut err = String::new();
        std::io::Read::read_to_string(&mut child.stderr.take().unwrap(), &mut err).unwrap();
        let status = status.unwrap_or_else(|| panic!("{}: no answer in 20 s", path.display()));
        assert_eq!(status.code(), Some(1), "{}: {err}", path.display());
        assert!(err.contains(kind), "{}: {err}", path.display());
    }
}
