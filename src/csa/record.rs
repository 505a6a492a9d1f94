//! A game as a CSA record file (format V2.2): the players, the game ID, the start and end time,
//! the start position, each move with the time the server charged for it, and the result.

use super::notation::{color_sign, move_to_csa, position_lines};
use super::summary::GameSummary;
use crate::types::Color;
use std::path::{Path, PathBuf};
use std::time::{SystemTime, UNIX_EPOCH};

pub struct GameRecord {
    game_id: String,
    lines: Vec<String>,
    /// The last move written was a special one (`%TORYO`, `%KACHI`, ...).
    ended_by_move: bool,
}

impl GameRecord {
    /// The header and start position of the game `summary` describes.
    pub fn new(summary: &GameSummary, started: SystemTime) -> GameRecord {
        let mut lines = vec![
            "V2.2".to_string(),
            format!("N+{}", summary.names[0]),
            format!("N-{}", summary.names[1]),
            format!("$EVENT:{}", summary.game_id),
            format!("$START_TIME:{}", timestamp(started)),
        ];
        let t = &summary.time[0];
        lines.push(format!(
            "'Time: total {} s, byoyomi {} s, increment {} s",
            t.total_ms / 1000,
            t.byoyomi_ms / 1000,
            t.increment_ms / 1000
        ));
        if summary.max_moves > 0 {
            lines.push(format!("'$MAX_MOVES:{}", summary.max_moves));
        }
        if summary.jishogi {
            lines.push("'$JISHOGI:27".to_string());
        }
        lines.extend(position_lines(&summary.start));
        let mut record = GameRecord { game_id: summary.game_id.clone(), lines, ended_by_move: false };
        // Moves played before this client joined (a resumed game).
        let mut pos = summary.start.clone();
        for &(m, t) in &summary.moves {
            record.push_move(&move_to_csa(&pos, m), t);
            pos.do_move(m);
        }
        record
    }

    /// A move (`+7776FU`) or a special move (`%TORYO`) and the time the server charged for it.
    pub fn push_move(&mut self, csa: &str, time_ms: Option<u64>) {
        self.ended_by_move = csa.starts_with('%');
        self.lines.push(csa.to_string());
        if let Some(t) = time_ms {
            self.lines.push(format!("T{}", t / 1000));
        }
    }

    /// A comment line (`'...`), such as the engine's evaluation of a move.
    pub fn push_comment(&mut self, text: &str) {
        self.lines.push(format!("'{text}"));
    }

    /// The end: the special move the result implies when no move ended the game (servers relay
    /// an opponent's `%TORYO` or not), the server's result lines as comments, and the end time.
    /// `loser`: the side that lost, when one did.
    pub fn finish(&mut self, result: &[String], loser: Option<Color>, ended: SystemTime) {
        if !self.ended_by_move {
            let sign = loser.map(color_sign);
            let special = result.iter().find_map(|r| match (r.as_str(), sign) {
                ("#RESIGN", _) => Some("%TORYO".to_string()),
                ("#TIME_UP", _) => Some("%TIME_UP".to_string()),
                ("#SENNICHITE", _) => Some("%SENNICHITE".to_string()),
                ("#JISHOGI", _) => Some("%KACHI".to_string()),
                ("#CHUDAN", _) => Some("%CHUDAN".to_string()),
                ("#ILLEGAL_MOVE" | "#OUTE_SENNICHITE", Some(s)) => Some(format!("%{s}ILLEGAL_ACTION")),
                _ => None,
            });
            if let Some(m) = special {
                self.push_move(&m, None);
            }
        }
        self.lines.push(format!("'$END_TIME:{}", timestamp(ended)));
        for r in result {
            self.lines.push(format!("'{r}"));
        }
    }

    pub fn text(&self) -> String {
        let mut s = self.lines.join("\n");
        s.push('\n');
        s
    }

    /// Writes the record to `<dir>/<game id>.csa` (characters unsafe in a file name replaced), or
    /// to `<game id>-2.csa`, `-3`, ... when that name is taken: a record never replaces another
    /// (a server may use a Game_ID twice). The file appears whole or not at all: the text is
    /// written to a temporary file in `dir` first, synced, then linked under its name.
    pub fn save(&self, dir: &Path) -> std::io::Result<PathBuf> {
        std::fs::create_dir_all(dir)?;
        let name: String = self
            .game_id
            .chars()
            .map(|c| if c.is_ascii_alphanumeric() || "+-_.".contains(c) { c } else { '_' })
            .take(150)
            .collect();
        let name = if name.is_empty() || name.starts_with('.') { format!("game{name}") } else { name };
        let temp = write_temp(dir, &name, self.text().as_bytes())?;
        let placed = place(&temp, dir, &name);
        let _ = std::fs::remove_file(&temp);
        placed
    }
}

/// The most records of one Game_ID kept apart (`-2` to `-MAX_SAME_ID`); past it saving fails.
const MAX_SAME_ID: u32 = 10_000;

/// Writes `bytes` to a new hidden file in `dir` named after `name`, synced to the disk.
fn write_temp(dir: &Path, name: &str, bytes: &[u8]) -> std::io::Result<PathBuf> {
    use std::io::Write;
    for n in 0..100u32 {
        let temp = dir.join(format!(".{name}.{}-{n}.tmp", std::process::id()));
        let mut file = match std::fs::OpenOptions::new().write(true).create_new(true).open(&temp) {
            Ok(file) => file,
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
            Err(e) => return Err(e),
        };
        let written = file.write_all(bytes).and_then(|()| file.sync_all());
        if let Err(e) = written {
            drop(file);
            let _ = std::fs::remove_file(&temp);
            return Err(e);
        }
        return Ok(temp);
    }
    Err(std::io::Error::new(std::io::ErrorKind::AlreadyExists, "no free temporary file name"))
}

/// Gives the written file `temp` the first free name of `<name>.csa`, `<name>-2.csa`, ...: a hard
/// link, which fails rather than replace a file of that name. Where the file system has no hard
/// links, a rename to a name not taken (a race with another writer is then possible).
fn place(temp: &Path, dir: &Path, name: &str) -> std::io::Result<PathBuf> {
    for n in 1..=MAX_SAME_ID {
        let path = if n == 1 { dir.join(format!("{name}.csa")) } else { dir.join(format!("{name}-{n}.csa")) };
        match std::fs::hard_link(temp, &path) {
            Ok(()) => return Ok(path),
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
            Err(_) if !path.exists() => {
                std::fs::rename(temp, &path)?;
                return Ok(path);
            }
            Err(e) => return Err(e),
        }
    }
    Err(std::io::Error::new(
        std::io::ErrorKind::AlreadyExists,
        format!("{MAX_SAME_ID} records named {name} already"),
    ))
}

/// `YYYY/MM/DD HH:MM:SS` in UTC.
pub fn timestamp(t: SystemTime) -> String {
    let secs = t.duration_since(UNIX_EPOCH).map(|d| d.as_secs()).unwrap_or(0);
    let (days, rest) = (secs / 86_400, secs % 86_400);
    // Days since 1970-01-01 to a civil date (proleptic Gregorian).
    let z = days as i64 + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!("{year:04}/{month:02}/{day:02} {:02}:{:02}:{:02}", rest / 3600, rest % 3600 / 60, rest % 60)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    fn record() -> GameRecord {
        let mut reader = super::super::summary::SummaryReader::default();
        for line in [
            "Game_ID:g",
            "Your_Turn:+",
            "BEGIN Time",
            "Total_Time:60",
            "END Time",
            "BEGIN Position",
            "PI",
            "+",
            "END Position",
            "END Game_Summary",
        ] {
            reader.line(line);
        }
        GameRecord::new(&reader.finish().unwrap(), UNIX_EPOCH)
    }

    #[test]
    fn the_result_gives_the_last_move_when_no_move_did() {
        for (result, loser, want) in [
            ("#RESIGN #WIN", Some(Color::White), Some("%TORYO")),
            ("#ILLEGAL_MOVE #LOSE", Some(Color::Black), Some("%+ILLEGAL_ACTION")),
            ("#OUTE_SENNICHITE #WIN", Some(Color::White), Some("%-ILLEGAL_ACTION")),
            ("#JISHOGI #WIN", Some(Color::White), Some("%KACHI")),
            ("#SENNICHITE #DRAW", None, Some("%SENNICHITE")),
            ("#MAX_MOVES #CENSORED", None, None),
        ] {
            let mut r = record();
            r.push_move("+7776FU", Some(1000));
            let lines: Vec<String> = result.split(' ').map(str::to_string).collect();
            r.finish(&lines, loser, UNIX_EPOCH);
            let text = r.text();
            let after = text.split("+7776FU\nT1\n").nth(1).unwrap();
            match want {
                Some(m) => assert!(after.starts_with(&format!("{m}\n'$END_TIME")), "{result}: {text}"),
                None => assert!(after.starts_with("'$END_TIME"), "{result}: {text}"),
            }
            assert!(text.ends_with(&format!("'{}\n", lines[1])), "{text}");
        }
        // A game ended by a move keeps it alone.
        let mut r = record();
        r.push_move("%TORYO", Some(2000));
        r.finish(&["#RESIGN".to_string(), "#LOSE".to_string()], Some(Color::Black), UNIX_EPOCH);
        assert_eq!(r.text().matches("%TORYO").count(), 1);
    }

    #[test]
    fn timestamps() {
        assert_eq!(timestamp(UNIX_EPOCH), "1970/01/01 00:00:00");
        assert_eq!(timestamp(UNIX_EPOCH + Duration::from_secs(951_782_400)), "2000/02/29 00:00:00");
        assert_eq!(timestamp(UNIX_EPOCH + Duration::from_secs(1_795_602_645)), "2026/11/25 10:30:45");
    }
}
