//! The game loop: connect, log in, read the `Game_Summary`, agree, play the game with the
//! engine session in-process, save the record, log out; again until the games asked for are
//! played. A connection per game: servers (floodgate included) pair a login that waits, and
//! logging in again is how a client waits for its next game.

use super::config::Settings;
use super::game::{color_name, Game, Interrupted, Tally};
use super::ignored::IgnoredLines;
use super::link::{Event, Link};
use super::notation::shorten;
use super::stop;
use super::summary::{GameSummary, SummaryReader};
use crate::engine::options::{ENTERING_KING_RULE, MAX_MOVES_TO_DRAW, ROUND_UP_TO_FULL_SECOND};
use crate::engine::Engine;
use std::time::{Duration, Instant};

/// The longest wait between two connection attempts (unless `reconnect_s` is longer).
const MAX_RECONNECT_WAIT: Duration = Duration::from_secs(300);
/// How long the server may take to answer a `LOGOUT`.
const LOGOUT_WAIT: Duration = Duration::from_secs(5);

/// Plays `settings.games` games (0: until the process is stopped). Returns the tally, or an error
/// that retrying cannot mend (the login refused). A stop (see [`stop`]) ends the game in
/// progress by resigning it, saves its record, logs out and returns the tally.
pub fn run(settings: &Settings, engine: &mut Engine) -> Result<Tally, String> {
    let mut tally = Tally::default();
    let first_wait = Duration::from_secs(settings.reconnect_s);
    let max_wait = MAX_RECONNECT_WAIT.max(first_wait);
    // Doubled after each attempt that played no game (the server refuses connections, or takes
    // the login and drops it), back to the first after a game.
    let mut wait = first_wait;
    let user_round_up = settings.options.iter().any(|(n, _)| n.eq_ignore_ascii_case(ROUND_UP_TO_FULL_SECOND));
    let games_left = |tally: &Tally| settings.games == 0 || tally.played() < settings.games;
    while games_left(&tally) && !stop::requested() {
        let mut link =
            match Link::connect(&settings.host, settings.port, Duration::from_secs(settings.keepalive_s)) {
                Ok(link) => link,
                Err(e) => {
                    retry_after(&e, &mut wait, max_wait);
                    continue;
                }
            };
        log::info!("connected to {}:{}", settings.host, settings.port);
        let mut ignored = IgnoredLines::default();
        let played = login(&mut link, settings, &mut ignored)
            .and_then(|()| play_one(&mut link, settings, engine, user_round_up, &mut tally, &mut ignored));
        match played {
            Ok(()) => {
                wait = first_wait;
                let _ = logout(&mut link);
            }
            Err(Failure::Fatal(e)) => return Err(e),
            Err(Failure::Stopped) => {
                let _ = logout(&mut link);
            }
            Err(Failure::Lost(e)) => retry_after(&e, &mut wait, max_wait),
            Err(Failure::Dropped(e)) => {
                // A game was played: the server works, and the next attempt is soon.
                wait = first_wait;
                if games_left(&tally) {
                    retry_after(&e, &mut wait, max_wait);
                } else {
                    log::warn!("{e}; no game left to play");
                }
            }
        }
    }
    if stop::requested() {
        log::info!("stopped by a signal after {} games", tally.played());
    }
    Ok(tally)
}

/// Logs `e` and waits `wait` (less when a stop is asked for) before the next attempt; doubles
/// `wait` up to `max_wait`.
fn retry_after(e: &str, wait: &mut Duration, max_wait: Duration) {
    if stop::requested() {
        log::warn!("{e}");
        return;
    }
    log::warn!("{e}; connecting again in {} s", wait.as_secs());
    stop::sleep(*wait);
    *wait = (*wait * 2).min(max_wait);
}

enum Failure {
    /// Retrying will not help.
    Fatal(String),
    /// The connection broke, or the server did not answer, before a game started: connect again,
    /// after a longer wait each time.
    Lost(String),
    /// The connection broke during a game: connect again.
    Dropped(String),
    /// A signal asked the client to stop.
    Stopped,
}

impl From<Interrupted> for Failure {
    fn from(i: Interrupted) -> Failure {
        match i {
            Interrupted::Dropped(e) => Failure::Dropped(e),
            Interrupted::Stopped => Failure::Stopped,
        }
    }
}

fn login(link: &mut Link, settings: &Settings, ignored: &mut IgnoredLines) -> Result<(), Failure> {
    link.send(&format!("LOGIN {} {}", settings.login_id, settings.login_password)).map_err(Failure::Lost)?;
    let deadline = Instant::now() + Duration::from_secs(settings.answer_wait_s);
    loop {
        match link.next(Some(deadline)) {
            None => {
                return Err(Failure::Lost(format!("no answer to LOGIN within {} s", settings.answer_wait_s)))
            }
            Some(Event::Closed(e)) => return Err(Failure::Lost(format!("LOGIN: {e}"))),
            Some(Event::Stop) => return Err(Failure::Stopped),
            Some(Event::Best { .. }) => {}
            Some(Event::Line(line)) => {
                let line = line.text;
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
                    ignored.line("before login", &line);
                }
            }
        }
    }
}

fn logout(link: &mut Link) -> Result<(), String> {
    // The answer is awaited even after a stop: the wait is short.
    link.stop_seen();
    link.send("LOGOUT")?;
    let deadline = Instant::now() + LOGOUT_WAIT;
    while let Some(event) = link.next(Some(deadline)) {
        match event {
            Event::Line(l) if l.text.starts_with("LOGOUT:") => return Ok(()),
            Event::Closed(_) => return Ok(()),
            _ => {}
        }
    }
    Ok(())
}

/// Waits for a summary, agrees and plays the game. Err: the connection was lost before the game
/// ([`Failure::Lost`]) or during it ([`Failure::Dropped`]; the game is counted as unfinished), or
/// a stop came ([`Failure::Stopped`]; a game in progress is resigned and counted).
fn play_one(
    link: &mut Link,
    settings: &Settings,
    engine: &mut Engine,
    user_round_up: bool,
    tally: &mut Tally,
    ignored: &mut IgnoredLines,
) -> Result<(), Failure> {
    let summary = loop {
        let Some((summary, id)) = wait_for_summary(link, ignored)? else { continue };
        log::info!(
            "game {}: {} (black) vs {} (white), we play {}",
            summary.game_id,
            summary.names[0],
            summary.names[1],
            color_name(summary.my_color)
        );
        // The Game_ID goes back as the server's bytes, UTF-8 or not.
        link.send_bytes(&[b"AGREE ".as_slice(), &id].concat()).map_err(Failure::Lost)?;
        if wait_for_start(link, &id, settings, ignored)? {
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
    let end = game.play(link, engine, ignored).map_err(Failure::from);
    ignored.report();
    // The table and the histories are cleared now, between games, so that the next game's start
    // (its clock already running) finds them clean.
    for m in engine.new_game() {
        log::info!("{m}");
    }
    game.close(settings, tally);
    end
}

/// Reads up to the end of the next summary; with it, its Game_ID as the server's bytes.
/// `Ok(None)`: a summary that cannot be played (the game is rejected, with why). A server may
/// keep a client waiting for a game as long as it likes (floodgate pairs every half hour): the
/// keep-alives check the connection meanwhile.
fn wait_for_summary(
    link: &mut Link,
    ignored: &mut IgnoredLines,
) -> Result<Option<(GameSummary, Vec<u8>)>, Failure> {
    loop {
        match link.next(None) {
            Some(Event::Line(line)) if line.text == "BEGIN Game_Summary" => break,
            Some(Event::Line(line)) if !line.text.is_empty() => {
                ignored.line("waiting for a game", &line.text)
            }
            Some(Event::Closed(e)) => return Err(Failure::Lost(format!("while waiting for a game: {e}"))),
            Some(Event::Stop) => return Err(Failure::Stopped),
            _ => {}
        }
    }
    let mut reader = SummaryReader::default();
    let mut id = None;
    loop {
        match link.next(None) {
            Some(Event::Line(line)) => {
                if let Some(bytes) = line.bytes().strip_prefix(b"Game_ID:") {
                    // The last one, as the reader keeps it.
                    id = Some(bytes.to_vec());
                }
                if reader.line(&line.text) {
                    break;
                }
            }
            Some(Event::Closed(e)) => return Err(Failure::Lost(format!("in the Game_Summary: {e}"))),
            Some(Event::Stop) => return Err(Failure::Stopped),
            _ => {}
        }
    }
    match (reader.finish(), id) {
        (Ok(summary), Some(id)) => Ok(Some((summary, id))),
        (result, id) => {
            log::error!("Game_Summary rejected: {}", result.err().unwrap_or_else(|| "no Game_ID".into()));
            let reject = match id {
                Some(id) => [b"REJECT ".as_slice(), &id].concat(),
                None => b"REJECT".to_vec(),
            };
            link.send_bytes(&reject).map_err(Failure::Lost)?;
            Ok(None)
        }
    }
}

/// After `AGREE`: true at `START`, false at `REJECT` (the opponent declined). `id`: the
/// Game_ID as the server's bytes.
fn wait_for_start(
    link: &mut Link,
    id: &[u8],
    settings: &Settings,
    ignored: &mut IgnoredLines,
) -> Result<bool, Failure> {
    let deadline = Instant::now() + Duration::from_secs(settings.answer_wait_s);
    loop {
        match link.next(Some(deadline)) {
            Some(Event::Line(line)) => {
                if let Some(named) = line.bytes().strip_prefix(b"START:") {
                    if named != id {
                        log::warn!(
                            "'{}' names another game; playing {}",
                            shorten(&line.text),
                            String::from_utf8_lossy(id)
                        );
                    }
                    return Ok(true);
                }
                if line.text.starts_with("REJECT:") {
                    log::info!("game rejected: {}", shorten(&line.text));
                    return Ok(false);
                }
                if !line.text.is_empty() {
                    ignored.line("waiting for START", &line.text);
                }
            }
            None => {
                return Err(Failure::Lost(format!(
                    "no START within {} s of AGREE {}",
                    settings.answer_wait_s,
                    String::from_utf8_lossy(id)
                )))
            }
            Some(Event::Closed(e)) => return Err(Failure::Lost(format!("before START: {e}"))),
            Some(Event::Stop) => return Err(Failure::Stopped),
            Some(Event::Best { .. }) => {}
        }
    }
}
