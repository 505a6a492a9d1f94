//! The game loop: connect, log in, read the `Game_Summary`, agree, play the game with the
//! engine session in-process, save the record, log out; again until the games asked for are
//! played. A connection per game: servers (floodgate included) pair a login that waits, and
//! logging in again is how a client waits for its next game.

use super::clock::ServerClock;
use super::config::Settings;
use super::link::{Event, Link};
use super::notation::{eval_comment, move_from_csa, move_to_csa, shorten};
use super::record::GameRecord;
use super::summary::{GameSummary, SummaryReader};
use crate::engine::options::{ENTERING_KING_RULE, MAX_MOVES_TO_DRAW, ROUND_UP_TO_FULL_SECOND};
use crate::engine::Engine;
use crate::position::Position;
use crate::search::{BestMove, Limits, Reporter, SearchInfo};
use crate::types::{Color, Move};
use crossbeam_channel::Sender;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant, SystemTime};

/// How long the server may take to answer a `LOGIN`, an `AGREE` or a `LOGOUT`.
const ANSWER_WAIT: Duration = Duration::from_secs(60);
/// The longest wait between two connection attempts.
const MAX_RECONNECT_WAIT: Duration = Duration::from_secs(300);

/// What the games came to.
#[derive(Default, Debug)]
pub struct Tally {
    pub wins: u32,
    pub losses: u32,
    pub draws: u32,
    /// Games that ended without a result (the connection lost, `#CHUDAN`).
    pub unfinished: u32,
}

impl Tally {
    pub fn played(&self) -> u32 {
        self.wins + self.losses + self.draws + self.unfinished
    }
}

/// Plays `settings.games` games (0: until the process is stopped). Returns the tally, or an error
/// that retrying cannot mend (the login refused).
pub fn run(settings: &Settings, engine: &mut Engine) -> Result<Tally, String> {
    let mut tally = Tally::default();
    let mut wait = Duration::from_secs(settings.reconnect_s);
    let user_round_up = settings.options.iter().any(|(n, _)| n.eq_ignore_ascii_case(ROUND_UP_TO_FULL_SECOND));
    while settings.games == 0 || tally.played() < settings.games {
        let mut link =
            match Link::connect(&settings.host, settings.port, Duration::from_secs(settings.keepalive_s)) {
                Ok(link) => link,
                Err(e) => {
                    log::warn!("{e}; trying again in {} s", wait.as_secs());
                    std::thread::sleep(wait);
                    wait = (wait * 2).min(MAX_RECONNECT_WAIT);
                    continue;
                }
            };
        log::info!("connected to {}:{}", settings.host, settings.port);
        match login(&mut link, settings) {
            Ok(()) => {}
            Err(Failure::Fatal(e)) => return Err(e),
            Err(Failure::Lost(e)) => {
                log::warn!("{e}; trying again in {} s", wait.as_secs());
                std::thread::sleep(wait);
                wait = (wait * 2).min(MAX_RECONNECT_WAIT);
                continue;
            }
        }
        wait = Duration::from_secs(settings.reconnect_s);
        let played = play_one(&mut link, settings, engine, user_round_up, &mut tally);
        if played.is_ok() {
            let _ = logout(&mut link);
        }
        if let Err(e) = played {
            log::warn!("{e}; connecting again in {} s", wait.as_secs());
            std::thread::sleep(wait);
        }
    }
    Ok(tally)
}

enum Failure {
    /// Retrying will not help.
    Fatal(String),
    /// The connection broke: connect again.
    Lost(String),
}

fn login(link: &mut Link, settings: &Settings) -> Result<(), Failure> {
    link.send(&format!("LOGIN {} {}", settings.login_id, settings.login_password)).map_err(Failure::Lost)?;
    let deadline = Instant::now() + ANSWER_WAIT;
    loop {
        match link.next(Some(deadline)) {
            None => return Err(Failure::Lost("no answer to LOGIN".into())),
            Some(Event::Closed(e)) => return Err(Failure::Lost(format!("LOGIN: {e}"))),
            Some(Event::Best { .. }) => {}
            Some(Event::Line(line)) => {
                if line.starts_with("LOGIN:") && line.ends_with(" OK") {
                    log::info!("logged in as {}", settings.login_id);
                    return Ok(());
                }
                if line.starts_with("LOGIN:incorrect") {
                    return Err(Failure::Fatal(format!(
                        "the server refused the login of {} ({})",
                        settings.login_id,
                        shorten(&line)
                    )));
                }
                if !line.is_empty() {
                    log::info!("before login: '{}' ignored", shorten(&line));
                }
            }
        }
    }
}

fn logout(link: &mut Link) -> Result<(), String> {
    link.send("LOGOUT")?;
    let deadline = Instant::now() + Duration::from_secs(5);
    while let Some(event) = link.next(Some(deadline)) {
        match event {
            Event::Line(l) if l.starts_with("LOGOUT:") => return Ok(()),
            Event::Closed(_) => return Ok(()),
            _ => {}
        }
    }
    Ok(())
}

/// Waits for a summary, agrees and plays the game. Err: the connection was lost before or
/// during the game (a game it cut short is counted as unfinished).
fn play_one(
    link: &mut Link,
    settings: &Settings,
    engine: &mut Engine,
    user_round_up: bool,
    tally: &mut Tally,
) -> Result<(), String> {
    let summary = loop {
        let summary = wait_for_summary(link)?;
        let Some(summary) = summary else { continue };
        log::info!(
            "game {}: {} (black) vs {} (white), we play {}",
            summary.game_id,
            summary.names[0],
            summary.names[1],
            color_name(summary.my_color)
        );
        link.send(&format!("AGREE {}", summary.game_id))?;
        if wait_for_start(link, &summary.game_id)? {
            break summary;
        }
    };
    // The rules of this game.
    let rule = match &summary.entering_king_rule {
        Some(rule) => rule.as_str(),
        None if summary.jishogi => "CSARule27",
        None => "NoEnteringKing",
    };
    let _ = engine.set_option(ENTERING_KING_RULE, rule);
    let _ = engine.set_option(MAX_MOVES_TO_DRAW, &summary.max_moves.to_string());
    if !user_round_up {
        // Whole-unit clocks charge nothing for the rest of a unit once begun.
        let whole = summary.time[summary.my_color.index()].unit_ms >= 1000;
        let _ = engine.set_option(ROUND_UP_TO_FULL_SECOND, if whole { "true" } else { "false" });
    }
    for m in engine.prepare() {
        log::info!("{m}");
    }
    for m in engine.new_game() {
        log::info!("{m}");
    }
    let mut game = Game::new(summary, settings, link.sender());
    let end = game.play(link, engine);
    // The table and the histories are cleared now, between games, so that the next game's start
    // (its clock already running) finds them clean.
    for m in engine.new_game() {
        log::info!("{m}");
    }
    if let Some((word, _)) = game.unechoed.take().filter(|(w, _)| w.starts_with('%')) {
        // A server that does not relay %TORYO or %KACHI: the record still has it.
        game.record.push_move(&word, None);
    }
    let me = game.summary.my_color;
    let loser = match game.outcome() {
        Outcome::Win => Some(me.flip()),
        Outcome::Loss => Some(me),
        _ => None,
    };
    game.record.finish(&game.result, loser, SystemTime::now());
    let saved = match game.record.save(&settings.record_dir) {
        Ok(path) => path.display().to_string(),
        Err(e) => format!("not saved ({e})"),
    };
    let outcome = game.outcome();
    match outcome {
        Outcome::Win => tally.wins += 1,
        Outcome::Loss => tally.losses += 1,
        Outcome::Draw => tally.draws += 1,
        Outcome::Unfinished => tally.unfinished += 1,
    }
    log::info!(
        "game {} ended: {:?} ({}) as {} vs {}; {} moves; our time used {} s, {} s left; record {}; \
         tally +{} -{} ={} unfinished {}",
        game.summary.game_id,
        outcome,
        if game.result.is_empty() { "no result".to_string() } else { game.result.join(" ") },
        color_name(me),
        game.summary.names[me.flip().index()],
        game.pos.game_ply() - 1,
        game.used_ms[me.index()] / 1000,
        game.clock.remaining(me) / 1000,
        saved,
        tally.wins,
        tally.losses,
        tally.draws,
        tally.unfinished
    );
    end
}

/// Reads up to the end of the next summary. `Ok(None)`: a summary that cannot be played (the
/// game is rejected, with why).
fn wait_for_summary(link: &mut Link) -> Result<Option<GameSummary>, String> {
    loop {
        match link.next(None) {
            Some(Event::Line(line)) if line == "BEGIN Game_Summary" => break,
            Some(Event::Line(line)) if !line.is_empty() => {
                log::info!("waiting for a game: '{}'", shorten(&line))
            }
            Some(Event::Closed(e)) => return Err(format!("while waiting for a game: {e}")),
            _ => {}
        }
    }
    let mut reader = SummaryReader::default();
    loop {
        match link.next(None) {
            Some(Event::Line(line)) if reader.line(&line) => break,
            Some(Event::Closed(e)) => return Err(format!("in the Game_Summary: {e}")),
            _ => {}
        }
    }
    let id = reader.game_id().map(str::to_string);
    match reader.finish() {
        Ok(summary) => Ok(Some(summary)),
        Err(e) => {
            log::error!("Game_Summary rejected: {e}");
            link.send(&match id {
                Some(id) => format!("REJECT {id}"),
                None => "REJECT".to_string(),
            })?;
            Ok(None)
        }
    }
}

/// After `AGREE`: true at `START`, false at `REJECT` (the opponent declined).
fn wait_for_start(link: &mut Link, game_id: &str) -> Result<bool, String> {
    loop {
        match link.next(None) {
            Some(Event::Line(line)) => {
                if line.starts_with("START:") {
                    if line != format!("START:{game_id}") {
                        log::warn!("'{}' names another game; playing {game_id}", shorten(&line));
                    }
                    return Ok(true);
                }
                if line.starts_with("REJECT:") {
                    log::info!("game rejected: {}", shorten(&line));
                    return Ok(false);
                }
                if !line.is_empty() {
                    log::info!("waiting for START: '{}' ignored", shorten(&line));
                }
            }
            Some(Event::Closed(e)) => return Err(format!("before START: {e}")),
            _ => {}
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Outcome {
    Win,
    Loss,
    Draw,
    Unfinished,
}

fn color_name(c: Color) -> &'static str {
    match c {
        Color::Black => "black",
        Color::White => "white",
    }
}

/// Sends a search's results to the client's event queue.
struct CsaReporter {
    search: u64,
    sender: Sender<Event>,
    last: Mutex<Option<SearchInfo>>,
}

impl Reporter for CsaReporter {
    fn info(&self, info: &SearchInfo) {
        if info.multipv == 1 && !info.pv.is_empty() {
            if let Ok(mut last) = self.last.lock() {
                *last = Some(info.clone());
            }
        }
    }

    fn message(&self, text: &str) {
        log::info!("engine: {text}");
    }

    fn best_move(&self, best: BestMove) {
        let info = self.last.lock().ok().and_then(|mut l| l.take());
        let _ = self.sender.send(Event::Best { search: self.search, best, info });
    }
}

/// One game being played.
struct Game<'a> {
    summary: GameSummary,
    settings: &'a Settings,
    sender: Sender<Event>,
    pos: Position,
    clock: ServerClock,
    record: GameRecord,
    /// Time charged so far to black and white, in ms.
    used_ms: [u64; 2],
    /// The number of the search whose answer is awaited (0: none).
    search: u64,
    searches: u64,
    /// A search on the opponent's time, expecting this move.
    pondering: Option<Move>,
    /// Our move sent and not yet echoed by the server, and its evaluation comment for the record.
    unechoed: Option<(String, Option<String>)>,
    /// The server's result lines (`#RESIGN`, `#WIN`, ...).
    result: Vec<String>,
    /// The server sent something this client cannot follow: no more moves are sent.
    lost_track: bool,
}

impl<'a> Game<'a> {
    fn new(summary: GameSummary, settings: &'a Settings, sender: Sender<Event>) -> Game<'a> {
        let mut clock = ServerClock::new(summary.time);
        let mut used_ms = [0; 2];
        let mut pos = summary.start.clone();
        for &(m, t) in &summary.moves {
            let c = pos.side_to_move();
            clock.charge(c, t.unwrap_or(0));
            used_ms[c.index()] += t.unwrap_or(0);
            pos.do_move(m);
        }
        let record = GameRecord::new(&summary, SystemTime::now());
        Game {
            summary,
            settings,
            sender,
            pos,
            clock,
            record,
            used_ms,
            search: 0,
            searches: 0,
            pondering: None,
            unechoed: None,
            result: Vec::new(),
            lost_track: false,
        }
    }

    fn my_turn(&self) -> bool {
        self.pos.side_to_move() == self.summary.my_color
    }

    /// Plays until the server's final result line. Err: the connection was lost.
    fn play(&mut self, link: &mut Link, engine: &mut Engine) -> Result<(), String> {
        if self.my_turn() {
            self.think(engine, false);
        }
        loop {
            let event = link.next(None).unwrap_or_else(|| Event::Closed("no event".into()));
            match event {
                Event::Closed(e) => {
                    self.result.push(format!("connection lost: {e}"));
                    return Err(format!("game {}: {e}", self.summary.game_id));
                }
                Event::Best { search, best, info } => {
                    if search == self.search && self.pondering.is_none() && self.my_turn() && !self.lost_track
                    {
                        self.search = 0;
                        self.answer(link, engine, best, info)?;
                    }
                }
                Event::Line(line) => {
                    if self.line(engine, &line)? {
                        return Ok(());
                    }
                }
            }
        }
    }

    /// One line from the server during the game; true at the end of the game.
    fn line(&mut self, engine: &mut Engine, line: &str) -> Result<bool, String> {
        if line.is_empty() {
            return Ok(false);
        }
        // Result lines are `#` and capitals (`#WIN`); `##[...]` lines are server notices.
        let code = line
            .strip_prefix('#')
            .filter(|c| !c.is_empty() && c.bytes().all(|b| b.is_ascii_uppercase() || b == b'_'));
        if let Some(code) = code {
            self.result.push(line.to_string());
            return Ok(matches!(code, "WIN" | "LOSE" | "DRAW" | "CENSORED" | "CHUDAN"));
        }
        if line.starts_with('%') {
            // %TORYO or %KACHI of either side, echoed with its time.
            let (word, time) = split_time(line, self.summary.time[0].unit_ms);
            if self.unechoed.as_ref().is_some_and(|(sent, _)| sent == word) {
                self.unechoed = None;
            }
            self.record.push_move(word, time);
            return Ok(false);
        }
        if line.starts_with('+') || line.starts_with('-') {
            self.move_line(engine, line);
            return Ok(false);
        }
        log::info!("game {}: '{}' ignored", self.summary.game_id, shorten(line));
        Ok(false)
    }

    /// A move of either side, as the server relays it with the time it charged.
    fn move_line(&mut self, engine: &mut Engine, line: &str) {
        let Some(mover) = super::notation::color_from_sign(line.chars().next().unwrap_or(' ')) else {
            return;
        };
        let (body, time) = split_time(line, self.summary.time[mover.index()].unit_ms);
        if mover == self.summary.my_color {
            // The echo of our move.
            let comment = match self.unechoed.take() {
                Some((sent, comment)) if sent == body => comment,
                other => {
                    log::error!(
                        "the server relays our move as '{}', we sent {:?}",
                        shorten(body),
                        other.map(|o| o.0)
                    );
                    self.lost_track = true;
                    None
                }
            };
            self.charge(mover, time);
            self.record.push_move(body, time);
            if let Some(c) = comment {
                self.record.push_comment(&c);
            }
            return;
        }
        if self.lost_track {
            return;
        }
        let m = match move_from_csa(&self.pos, body) {
            Ok(m) => m,
            Err(e) => {
                log::error!("game {}: the opponent's move {e}; no more moves are sent", self.summary.game_id);
                self.lost_track = true;
                engine.stop_and_wait();
                return;
            }
        };
        self.charge(mover, time);
        self.record.push_move(body, time);
        self.pos.do_move(m);
        match self.pondering.take() {
            Some(expected) if expected == m => {
                // The search on the opponent's time goes on as ours, with the clock as it is now.
                log::debug!("ponderhit {}", m.to_usi());
                engine.ponderhit(Some(self.clock.limits(self.settings.margin_ms)));
            }
            Some(_) => {
                engine.stop_and_wait();
                self.think(engine, false);
            }
            None => self.think(engine, false),
        }
    }

    fn charge(&mut self, c: Color, time: Option<u64>) {
        let t = time.unwrap_or(0);
        self.clock.charge(c, t);
        self.used_ms[c.index()] += t;
    }

    /// Starts a search: for our move, or (`ponder`) on the opponent's time from `self.pos`, which
    /// then holds the expected reply.
    fn think(&mut self, engine: &mut Engine, ponder: bool) {
        self.searches += 1;
        self.search = self.searches;
        let limits = Limits { ponder, ..self.clock.limits(self.settings.margin_ms) };
        engine.set_position(self.pos.clone());
        let reporter = Arc::new(CsaReporter {
            search: self.search,
            sender: self.sender.clone(),
            last: Mutex::new(None),
        });
        engine.start_search(limits, reporter);
    }

    /// Sends the answer of our search, then ponders on the expected reply.
    fn answer(
        &mut self,
        link: &mut Link,
        engine: &mut Engine,
        best: BestMove,
        info: Option<SearchInfo>,
    ) -> Result<(), String> {
        let (mv, ponder) = match best {
            BestMove::Resign | BestMove::Win => {
                let word = if best == BestMove::Resign { "%TORYO" } else { "%KACHI" };
                link.send(word)?;
                self.unechoed = Some((word.to_string(), None));
                return Ok(());
            }
            BestMove::Move { best, ponder } => (best, ponder),
        };
        // The engine gives legal moves only; should it not, any legal move is better than a loss
        // by an illegal one.
        let mv = if self.pos.is_legal_move(mv) {
            mv
        } else {
            log::error!("the search answered {}, not legal here; playing another move", mv.to_usi());
            match crate::position::MoveList::legal(&self.pos, false).iter().next().copied() {
                Some(m) => m,
                None => return link.send("%TORYO"),
            }
        };
        let csa = move_to_csa(&self.pos, mv);
        let mut line = csa.clone();
        let info = info.filter(|i| i.pv.first() == Some(&mv));
        let me = self.summary.my_color;
        log::info!(
            "move {}: {csa}{}; {} s left",
            self.pos.game_ply(),
            info.as_ref().map_or(String::new(), |i| format!(
                " (score {}, depth {}, {} nodes, {} ms)",
                match i.score {
                    crate::types::Score::Cp(v) => format!("cp {v}"),
                    crate::types::Score::Mate(n) => format!("mate {n}"),
                },
                i.depth,
                i.nodes,
                i.time_ms
            )),
            self.clock.remaining(me) / 1000
        );
        let comment = info.map(|i| eval_comment(&self.pos, i.score, &i.pv));
        if let Some(c) = comment.as_ref().filter(|_| self.settings.eval_comment) {
            line.push(',');
            line.push_str(c);
        }
        link.send(&line)?;
        // In the record as floodgate writes them: `'** <score> <pv>` after the move.
        self.unechoed = Some((csa, comment.map(|c| format!("*{}", &c[1..]))));
        self.pos.do_move(mv);
        if let Some(p) = ponder.filter(|&p| self.settings.ponder && self.pos.is_legal_move(p)) {
            let mut after = self.pos.clone();
            after.do_move(p);
            let real = std::mem::replace(&mut self.pos, after);
            self.think(engine, true);
            self.pos = real;
            self.pondering = Some(p);
        }
        Ok(())
    }

    fn outcome(&self) -> Outcome {
        match self.result.last().map(String::as_str) {
            Some("#WIN") => Outcome::Win,
            Some("#LOSE") => Outcome::Loss,
            Some("#DRAW") | Some("#CENSORED") => Outcome::Draw,
            _ => Outcome::Unfinished,
        }
    }
}

/// `+7776FU,T12` -> (`+7776FU`, Some(12 units in ms)); other comma fields are dropped.
fn split_time(line: &str, unit_ms: u64) -> (&str, Option<u64>) {
    let mut fields = line.split(',');
    let body = fields.next().unwrap_or("");
    let time =
        fields.find_map(|f| f.strip_prefix('T')).and_then(|t| t.parse::<u64>().ok()).map(|t| t * unit_ms);
    (body, time)
}
