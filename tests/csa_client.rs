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
use std::process::{Command, Stdio};
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

    /// The next line that is not a keep-alive; panics after 60 s or at the end of the
    /// connection.
    fn recv(&mut self) -> String {
        loop {
            let mut line = String::new();
            match self.reader.read_line(&mut line) {
                Ok(0) => panic!("the client closed the connection"),
                Ok(_) => {}
                Err(e) => panic!("reading from the client: {e}"),
            }
            let line = line.trim_end_matches(['\r', '\n']).to_string();
            if line.is_empty() {
                self.keepalives += 1;
                continue;
            }
            return line;
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
            let (stream, _) = listener.accept().expect("accept");
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

/// Runs `hayate csa` in `dir` with a settings file (small table, one thread, the client
/// section given) and the flags given.
fn client(dir: &Path, port: u16, client_section: &str, flags: &[&str]) -> Run {
    let config = dir.join("csa.toml");
    std::fs::write(
        &config,
        format!(
            "[server]\nhost = \"127.0.0.1\"\nport = {port}\n[client]\nreconnect_s = 1\n{client_section}\n\
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
    let start = Instant::now();
    let code = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status.code();
        }
        if start.elapsed() > Duration::from_secs(120) {
            let _ = child.kill();
            let _ = child.wait();
            break None;
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    let log = err_reader.join().unwrap();
    let out = out_reader.join().unwrap();
    assert!(out.is_empty(), "the CSA client wrote on stdout: {out}");
    Run { code, log }
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
