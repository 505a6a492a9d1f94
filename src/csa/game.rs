//! One game on a CSA server, from the start to the result: the moves both ways, the server's
//! clock, the engine's searches (on our time and, pondering, on the opponent's), the record;
//! then its outcome counted. `client.rs` connects, logs in and agrees to the games.

use super::clock::ServerClock;
use super::config::Settings;
use super::ignored::IgnoredLines;
use super::link::{Event, Link};
use super::notation::{eval_comment, move_from_csa, move_to_csa, shorten};
use super::record::GameRecord;
use super::summary::GameSummary;
use crate::engine::Engine;
use crate::position::Position;
use crate::search::{BestMove, Limits, Reporter, SearchInfo};
use crate::types::{Color, Move};
use crossbeam_channel::Sender;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant, SystemTime};

/// After a stop, how long the server may take to end the game the client resigned.
const STOP_WAIT: Duration = Duration::from_secs(5);
/// How long past the opponent's whole clock the client ponders without a word from the server:
/// by then the server has ended the game or gone silent, and the search would only keep a core
/// busy.
const PONDER_GRACE: Duration = Duration::from_secs(3);

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

/// Why a game was left before its result.
pub(super) enum Interrupted {
    /// The connection broke.
    Dropped(String),
    /// A signal asked the client to stop, and the server did not end the game in time.
    Stopped,
}

/// How a game ended for this client.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Outcome {
    Win,
    Loss,
    Draw,
    Unfinished,
}

pub(super) fn color_name(c: Color) -> &'static str {
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

/// One game being played: its summary, position, clock, record and the state of the exchange
/// with the server, each held once.
pub(super) struct Game<'a> {
    summary: GameSummary,
    settings: &'a Settings,
    sender: Sender<Event>,
    pos: Position,
    clock: ServerClock,
    record: GameRecord,
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
    /// While pondering: when the opponent's whole clock (and [`PONDER_GRACE`]) has run out
    /// without a move; the search on its time is stopped then.
    ponder_deadline: Option<Instant>,
    /// After a stop: the game was resigned, and the server's result is awaited until then.
    stopping: Option<Instant>,
}

impl<'a> Game<'a> {
    pub(super) fn new(summary: GameSummary, settings: &'a Settings, sender: Sender<Event>) -> Game<'a> {
        let mut clock = ServerClock::new(summary.time);
        let mut pos = summary.start.clone();
        for &(m, t) in &summary.moves {
            clock.charge(pos.side_to_move(), t.unwrap_or(0));
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
            search: 0,
            searches: 0,
            pondering: None,
            unechoed: None,
            result: Vec::new(),
            lost_track: false,
            ponder_deadline: None,
            stopping: None,
        }
    }

    fn my_turn(&self) -> bool {
        self.pos.side_to_move() == self.summary.my_color
    }

    /// Plays until the server's final result line. Err: the connection was lost
    /// ([`Interrupted::Dropped`]), or a stop came and the server did not end the game in time
    /// ([`Interrupted::Stopped`]).
    pub(super) fn play(
        &mut self,
        link: &mut Link,
        engine: &mut Engine,
        ignored: &mut IgnoredLines,
    ) -> Result<(), Interrupted> {
        let id = self.summary.game_id.clone();
        let dropped = |e: String| Interrupted::Dropped(format!("game {id}: {e}"));
        if self.my_turn() {
            self.think(engine, false);
        }
        loop {
            let deadline = self.stopping.or(self.ponder_deadline.filter(|_| self.pondering.is_some()));
            let Some(event) = link.next(deadline) else {
                if self.stopping.is_some() {
                    log::warn!(
                        "game {}: no result from the server after the resignation",
                        self.summary.game_id
                    );
                    self.result.push("stopped by a signal; the server gave no result".into());
                    return Err(Interrupted::Stopped);
                }
                self.stop_pondering(engine);
                continue;
            };
            match event {
                Event::Closed(e) => {
                    self.result.push(format!("connection lost: {e}"));
                    return Err(dropped(e));
                }
                Event::Stop => {
                    link.stop_seen();
                    engine.stop_and_wait();
                    self.search = 0;
                    self.pondering = None;
                    self.stopping = Some(Instant::now() + STOP_WAIT);
                    // A %TORYO sent on the opponent's turn is held by shogi-server until ours.
                    log::info!("game {}: resigning (%TORYO) to stop", self.summary.game_id);
                    self.record.push_comment("stopped by a signal: %TORYO sent");
                    link.send("%TORYO").map_err(dropped)?;
                }
                Event::Best { search, best, info } => {
                    if search == self.search
                        && self.search != 0
                        && self.pondering.is_none()
                        && self.my_turn()
                        && !self.lost_track
                    {
                        self.search = 0;
                        self.answer(link, engine, best, info).map_err(dropped)?;
                    }
                }
                Event::Line(line) => {
                    if self.line(engine, &line.text, ignored) {
                        return Ok(());
                    }
                }
            }
        }
    }

    /// Ends the search on the opponent's time: the server has been silent for longer than the
    /// opponent's clock holds.
    fn stop_pondering(&mut self, engine: &mut Engine) {
        if self.pondering.take().is_some() {
            log::warn!(
                "game {}: no move from the server for longer than the opponent's clock holds; \
                 pondering stopped",
                self.summary.game_id
            );
            engine.stop_and_wait();
            self.search = 0;
        }
        self.ponder_deadline = None;
    }

    /// One line from the server during the game; true at the end of the game.
    fn line(&mut self, engine: &mut Engine, line: &str, ignored: &mut IgnoredLines) -> bool {
        if line.is_empty() {
            return false;
        }
        // Result lines are `#` and capitals (`#WIN`); `##[...]` lines are server notices.
        let code = line
            .strip_prefix('#')
            .filter(|c| !c.is_empty() && c.bytes().all(|b| b.is_ascii_uppercase() || b == b'_'));
        if let Some(code) = code {
            self.result.push(line.to_string());
            return matches!(code, "WIN" | "LOSE" | "DRAW" | "CENSORED" | "CHUDAN");
        }
        if line.starts_with('%') {
            // %TORYO or %KACHI of either side, echoed with its time.
            let (word, time) = self.split_time(line, self.pos.side_to_move());
            if self.unechoed.as_ref().is_some_and(|(sent, _)| sent == word) {
                self.unechoed = None;
            }
            self.record.push_move(word, time);
            return false;
        }
        if line.starts_with('+') || line.starts_with('-') {
            self.move_line(engine, line);
            return false;
        }
        ignored.line(&format!("game {}", self.summary.game_id), line);
        false
    }

    /// A move of either side, as the server relays it with the time it charged.
    fn move_line(&mut self, engine: &mut Engine, line: &str) {
        let Some(mover) = super::notation::color_from_sign(line.chars().next().unwrap_or(' ')) else {
            return;
        };
        let (body, time) = self.split_time(line, mover);
        if mover == self.summary.my_color {
            // The echo of our move.
            match self.unechoed.take() {
                Some((sent, comment)) if sent == body => {
                    self.charge(mover, time);
                    self.record.push_move(body, time);
                    if let Some(c) = comment {
                        self.record.push_comment(&c);
                    }
                }
                other => {
                    log::error!(
                        "game {}: the server relays our move as '{}', we sent {:?}; no more moves are sent",
                        self.summary.game_id,
                        shorten(body),
                        other.map(|o| o.0)
                    );
                    self.lost_track = true;
                    // Not a move of the record: it was not played from the record's position
                    // (the record replays up to here).
                    self.record.push_comment(&format!(
                        "the server relayed '{}' as our move, which we did not send",
                        shorten(line)
                    ));
                }
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
        self.ponder_deadline = None;
        if self.stopping.is_some() {
            // Resigned: the game is recorded to its end, not played.
            return;
        }
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

    /// Charges `c` the time the server reports; a time beyond all the clock held (the server
    /// should have ended the game) is reported and counted as all of it.
    fn charge(&mut self, c: Color, time: Option<u64>) {
        let t = time.unwrap_or(0);
        let r = &self.summary.time[c.index()];
        let held = [r.byoyomi_ms, r.increment_ms, r.unit_ms, r.least_ms]
            .iter()
            .fold(self.clock.remaining(c), |sum, &ms| sum.saturating_add(ms));
        if t > held {
            log::warn!(
                "game {}: the server charged {} ms for a move of {}, more than the clock held ({held} ms)",
                self.summary.game_id,
                t,
                color_name(c)
            );
        }
        self.clock.charge(c, t);
    }

    /// `+7776FU,T12` -> (`+7776FU`, Some(12 units of `mover`'s clock in ms)); other comma fields
    /// are dropped. A time that is not a number is reported and taken as none; one too large for
    /// the arithmetic saturates (and [`Game::charge`] reports it).
    fn split_time<'l>(&self, line: &'l str, mover: Color) -> (&'l str, Option<u64>) {
        let unit_ms = self.summary.time[mover.index()].unit_ms;
        let mut fields = line.split(',');
        let body = fields.next().unwrap_or("");
        let time = fields.find_map(|f| f.strip_prefix('T')).and_then(|t| match t.parse::<u64>() {
            Ok(units) => Some(units.saturating_mul(unit_ms)),
            // More digits than a u64 holds: still a time, beyond any clock.
            Err(_) if !t.is_empty() && t.bytes().all(|b| b.is_ascii_digit()) => Some(u64::MAX),
            Err(_) => {
                log::warn!("game {}: '{}': the time is not a number", self.summary.game_id, shorten(line));
                None
            }
        });
        (body, time)
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
            // The opponent's whole clock, and a grace for the server's own time-keeping.
            let opponent = self.summary.time[me.flip().index()];
            let clock = [opponent.byoyomi_ms, opponent.increment_ms, opponent.unit_ms]
                .iter()
                .fold(self.clock.remaining(me.flip()), |sum, &ms| sum.saturating_add(ms));
            self.ponder_deadline = Instant::now().checked_add(Duration::from_millis(clock) + PONDER_GRACE);
        }
        Ok(())
    }

    /// After the game: the record completed and saved, the tally counted, a line logged.
    pub(super) fn close(&mut self, settings: &Settings, tally: &mut Tally) {
        if let Some((word, _)) = self.unechoed.take().filter(|(w, _)| w.starts_with('%')) {
            // A server that does not relay %TORYO or %KACHI: the record still has it.
            self.record.push_move(&word, None);
        }
        let me = self.summary.my_color;
        let loser = match self.outcome() {
            Outcome::Win => Some(me.flip()),
            Outcome::Loss => Some(me),
            _ => None,
        };
        self.record.finish(&self.result, loser, SystemTime::now());
        let saved = match self.record.save(&settings.record_dir) {
            Ok(path) => path.display().to_string(),
            Err(e) => format!("not saved ({e})"),
        };
        let outcome = self.outcome();
        match outcome {
            Outcome::Win => tally.wins += 1,
            Outcome::Loss => tally.losses += 1,
            Outcome::Draw => tally.draws += 1,
            Outcome::Unfinished => tally.unfinished += 1,
        }
        log::info!(
            "game {} ended: {:?} ({}) as {} vs {}; {} moves; our time used {} s, {} s left; record {}; \
         tally +{} -{} ={} unfinished {}",
            self.summary.game_id,
            outcome,
            if self.result.is_empty() { "no result".to_string() } else { self.result.join(" ") },
            color_name(me),
            self.summary.names[me.flip().index()],
            self.pos.game_ply() - 1,
            self.clock.used(me) / 1000,
            self.clock.remaining(me) / 1000,
            saved,
            tally.wins,
            tally.losses,
            tally.draws,
            tally.unfinished
        );
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
