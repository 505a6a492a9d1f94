//! A game as a CSA record file (format V2.2): the players, the game ID, the start and end time,
//! the start position, each move with the time the server charged for it, and the result.

use super::notation::{move_to_csa, position_lines};
use super::summary::GameSummary;
use std::path::{Path, PathBuf};
use std::time::{SystemTime, UNIX_EPOCH};

pub struct GameRecord {
    game_id: String,
    lines: Vec<String>,
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
        let mut record = GameRecord { game_id: summary.game_id.clone(), lines };
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
        self.lines.push(csa.to_string());
        if let Some(t) = time_ms {
            self.lines.push(format!("T{}", t / 1000));
        }
    }

    /// A comment line (`'...`), such as the engine's evaluation of a move.
    pub fn push_comment(&mut self, text: &str) {
        self.lines.push(format!("'{text}"));
    }

    /// The end: the server's result lines as comments, and the end time.
    pub fn finish(&mut self, result: &[String], ended: SystemTime) {
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

    /// Writes the record to `<dir>/<game id>.csa` (characters unsafe in a file name replaced).
    pub fn save(&self, dir: &Path) -> std::io::Result<PathBuf> {
        std::fs::create_dir_all(dir)?;
        let name: String = self
            .game_id
            .chars()
            .map(|c| if c.is_ascii_alphanumeric() || "+-_.".contains(c) { c } else { '_' })
            .take(150)
            .collect();
        let name = if name.is_empty() || name.starts_with('.') { format!("game{name}") } else { name };
        let path = dir.join(format!("{name}.csa"));
        std::fs::write(&path, self.text())?;
        Ok(path)
    }
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

    #[test]
    fn timestamps() {
        assert_eq!(timestamp(UNIX_EPOCH), "1970/01/01 00:00:00");
        assert_eq!(timestamp(UNIX_EPOCH + Duration::from_secs(951_782_400)), "2000/02/29 00:00:00");
        assert_eq!(timestamp(UNIX_EPOCH + Duration::from_secs(1_795_602_645)), "2026/11/25 10:30:45");
    }
}
