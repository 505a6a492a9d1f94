//! The `Game_Summary` a CSA server sends before each game: who plays which colour, the time
//! rules, the move limit, the declaration rule and the position (with any moves already played).
//!
//! Keys this client does not use are skipped; rules it cannot follow (a time unit it does not
//! know, a declaration rule other than `Jishogi 1.1`, a format other than `Shogi 1.0`) make the
//! summary an error, so that the game is rejected rather than played under the wrong rules.

use super::notation::{color_from_sign, move_from_csa, shorten, PositionBlock};
use crate::position::Position;
use crate::types::{Color, Move};

/// The time rules of one side, in the units of `Time_Unit` converted to milliseconds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TimeRules {
    /// Milliseconds in one unit of the server's clock (1000 for `1sec`).
    pub unit_ms: u64,
    pub total_ms: u64,
    pub byoyomi_ms: u64,
    pub increment_ms: u64,
    /// The least time a move costs (`Least_Time_Per_Move`), in ms.
    pub least_ms: u64,
    /// `Time_Roundup:YES`: the time of a move is rounded up to the unit, else down.
    pub round_up: bool,
}

impl Default for TimeRules {
    fn default() -> TimeRules {
        TimeRules { unit_ms: 1000, total_ms: 0, byoyomi_ms: 0, increment_ms: 0, least_ms: 0, round_up: false }
    }
}

/// One game's summary.
#[derive(Clone, Debug)]
pub struct GameSummary {
    pub game_id: String,
    /// The players' names, black then white.
    pub names: [String; 2],
    /// The colour this client plays (`Your_Turn`).
    pub my_color: Color,
    /// The moves after which the game is drawn (`Max_Moves`; 0: no limit).
    pub max_moves: u32,
    /// `Declaration:Jishogi 1.1`: entering-king declarations by the CSA 27-point rule.
    pub jishogi: bool,
    /// The entering-king rule named by rshogi's `Entering_King_Rule` key (a USI
    /// `EnteringKingRule` name), over the one `Declaration` implies.
    pub entering_king_rule: Option<String>,
    /// The time rules of black and white.
    pub time: [TimeRules; 2],
    /// The position of the block, before its moves.
    pub start: Position,
    /// Moves already played (a resumed game), with the time each took in ms when given.
    pub moves: Vec<(Move, Option<u64>)>,
}

impl GameSummary {
    /// The position after the moves already played.
    pub fn current(&self) -> Position {
        let mut pos = self.start.clone();
        for &(m, _) in &self.moves {
            pos.do_move(m);
        }
        pos
    }
}

/// Where the reader is inside the summary.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Section {
    Top,
    /// `BEGIN Time`, `BEGIN Time+` or `BEGIN Time-`: the sides it applies to.
    Time([bool; 2]),
    Position,
    Done,
}

/// Reads a summary line by line, from the line after `BEGIN Game_Summary` to
/// `END Game_Summary`.
pub struct SummaryReader {
    section: Section,
    game_id: Option<String>,
    names: [String; 2],
    my_color: Option<Color>,
    to_move: Option<Color>,
    max_moves: u32,
    jishogi: bool,
    entering_king_rule: Option<String>,
    time: [TimeRules; 2],
    /// The `Time_Unit` of each side, applied at the end (it may come after the times).
    unit: [u64; 2],
    raw_time: [[Option<f64>; 5]; 2],
    block: PositionBlock,
    move_lines: Vec<String>,
    error: Option<String>,
}

/// Indexes into `raw_time`.
const TOTAL: usize = 0;
const BYOYOMI: usize = 1;
const INCREMENT: usize = 2;
const LEAST: usize = 3;
const DELAY: usize = 4;

impl Default for SummaryReader {
    fn default() -> SummaryReader {
        SummaryReader {
            section: Section::Top,
            game_id: None,
            names: [String::new(), String::new()],
            my_color: None,
            to_move: None,
            max_moves: 0,
            jishogi: false,
            entering_king_rule: None,
            time: [TimeRules::default(); 2],
            unit: [1000; 2],
            raw_time: [[None; 5]; 2],
            block: PositionBlock::default(),
            move_lines: Vec::new(),
            error: None,
        }
    }
}

impl SummaryReader {
    /// Reads one line; returns true at `END Game_Summary`. The first problem is kept and reported
    /// by [`SummaryReader::finish`]; the lines up to the end are still read.
    pub fn line(&mut self, line: &str) -> bool {
        if line == "END Game_Summary" {
            self.section = Section::Done;
            return true;
        }
        if self.error.is_none() {
            if let Err(e) = self.read(line) {
                self.error = Some(e);
            }
        }
        false
    }

    /// The Game_ID, when one was read (to `REJECT` a summary that is otherwise unusable).
    pub fn game_id(&self) -> Option<&str> {
        self.game_id.as_deref()
    }

    fn read(&mut self, line: &str) -> Result<(), String> {
        match self.section {
            Section::Position => {
                if line == "END Position" {
                    self.section = Section::Top;
                } else if line.len() >= 7 && (line.starts_with('+') || line.starts_with('-')) {
                    self.move_lines.push(line.to_string());
                } else {
                    self.block.line(line)?;
                }
                return Ok(());
            }
            Section::Time(sides) => {
                if line.starts_with("END Time") {
                    self.section = Section::Top;
                    return Ok(());
                }
                let (key, value) =
                    line.split_once(':').ok_or_else(|| format!("'{}' is not key:value", shorten(line)))?;
                // `Total_Time+:600` style keys inside a common block name one side.
                let (key, sides) = match key.strip_suffix('+') {
                    Some(k) => (k, [true, false]),
                    None => match key.strip_suffix('-') {
                        Some(k) => (k, [false, true]),
                        None => (key, sides),
                    },
                };
                let slot = match key {
                    "Time_Unit" => {
                        let unit = parse_unit(value)?;
                        for c in which(sides) {
                            self.unit[c] = unit;
                        }
                        return Ok(());
                    }
                    "Time_Roundup" => {
                        let up = match value {
                            "YES" => true,
                            "NO" => false,
                            _ => {
                                return Err(format!(
                                    "Time_Roundup '{}' is neither YES nor NO",
                                    shorten(value)
                                ))
                            }
                        };
                        for c in which(sides) {
                            self.time[c].round_up = up;
                        }
                        return Ok(());
                    }
                    "Total_Time" => TOTAL,
                    "Byoyomi" => BYOYOMI,
                    "Increment" => INCREMENT,
                    "Least_Time_Per_Move" => LEAST,
                    "Delay" => DELAY,
                    _ => {
                        log::debug!("Game_Summary: time key '{}' not used", shorten(key));
                        return Ok(());
                    }
                };
                let n: f64 = value
                    .trim()
                    .parse()
                    .ok()
                    .filter(|v: &f64| v.is_finite() && *v >= 0.0 && *v < 1e9)
                    .ok_or_else(|| format!("{key} '{}' is not a time", shorten(value)))?;
                for c in which(sides) {
                    self.raw_time[c][slot] = Some(n);
                }
                return Ok(());
            }
            Section::Top | Section::Done => {}
        }
        match line {
            "BEGIN Time" => self.section = Section::Time([true, true]),
            "BEGIN Time+" => self.section = Section::Time([true, false]),
            "BEGIN Time-" => self.section = Section::Time([false, true]),
            "BEGIN Position" => self.section = Section::Position,
            "" => {}
            _ => {
                let (key, value) =
                    line.split_once(':').ok_or_else(|| format!("'{}' is not key:value", shorten(line)))?;
                match key {
                    "Game_ID" => self.game_id = Some(value.to_string()),
                    "Name+" => self.names[0] = value.to_string(),
                    "Name-" => self.names[1] = value.to_string(),
                    "Your_Turn" => {
                        self.my_color =
                            Some(sign(value).ok_or_else(|| format!("Your_Turn '{}'", shorten(value)))?)
                    }
                    "To_Move" => {
                        self.to_move =
                            Some(sign(value).ok_or_else(|| format!("To_Move '{}'", shorten(value)))?)
                    }
                    "Max_Moves" => {
                        self.max_moves = value
                            .parse()
                            .map_err(|_| format!("Max_Moves '{}' is not a number", shorten(value)))?
                    }
                    "Declaration" => {
                        if value == "Jishogi 1.1" {
                            self.jishogi = true;
                        } else {
                            return Err(format!("unknown declaration rule '{}'", shorten(value)));
                        }
                    }
                    "Entering_King_Rule" => match crate::position::DeclarationRule::from_name(value) {
                        Some(rule) => self.entering_king_rule = Some(rule.name().to_string()),
                        None => return Err(format!("unknown entering-king rule '{}'", shorten(value))),
                    },
                    "Format" => {
                        if value != "Shogi 1.0" {
                            return Err(format!("unknown game format '{}'", shorten(value)));
                        }
                    }
                    "Protocol_Mode" => {
                        if value != "Server" {
                            return Err(format!(
                                "Protocol_Mode '{}' (only Server is played)",
                                shorten(value)
                            ));
                        }
                    }
                    _ => log::debug!("Game_Summary: '{}' not used", shorten(key)),
                }
            }
        }
        Ok(())
    }

    /// The summary, or why it cannot be played.
    pub fn finish(self) -> Result<GameSummary, String> {
        if let Some(e) = self.error {
            return Err(e);
        }
        if self.section != Section::Done {
            return Err("the summary ended before END Game_Summary".to_string());
        }
        let game_id = self.game_id.ok_or("no Game_ID")?;
        let my_color = self.my_color.ok_or("no Your_Turn")?;
        let start = self.block.position()?;
        let mut time = self.time;
        #[allow(clippy::needless_range_loop)] // c indexes four arrays
        for c in 0..2 {
            let unit = self.unit[c];
            let ms = |slot: usize| (self.raw_time[c][slot].unwrap_or(0.0) * unit as f64) as u64;
            if self.raw_time[c][TOTAL].is_none() {
                return Err(format!("no Total_Time for {}", if c == 0 { "black" } else { "white" }));
            }
            if self.raw_time[c][BYOYOMI].unwrap_or(0.0) > 0.0
                && self.raw_time[c][INCREMENT].unwrap_or(0.0) > 0.0
            {
                return Err("both Byoyomi and Increment: not a known time control".to_string());
            }
            if self.raw_time[c][DELAY].unwrap_or(0.0) > 0.0 {
                return Err("a Delay clock is not supported".to_string());
            }
            time[c] = TimeRules {
                unit_ms: unit,
                total_ms: ms(TOTAL),
                byoyomi_ms: ms(BYOYOMI),
                increment_ms: ms(INCREMENT),
                least_ms: ms(LEAST),
                round_up: time[c].round_up,
            };
        }
        let mut pos = start.clone();
        let mut moves = Vec::new();
        for line in &self.move_lines {
            let m = move_from_csa(&pos, line).map_err(|e| format!("a move of the position block: {e}"))?;
            let t =
                line.split(',').skip(1).find_map(|f| f.strip_prefix('T')).map(|t| {
                    t.parse::<f64>().map(|v| (v * self.unit[pos.side_to_move().index()] as f64) as u64)
                });
            let t = match t {
                Some(Ok(t)) => Some(t),
                Some(Err(_)) => return Err(format!("'{}': a bad time", shorten(line))),
                None => None,
            };
            moves.push((m, t));
            pos.do_move(m);
        }
        if let Some(c) = self.to_move {
            if c != pos.side_to_move() {
                return Err("To_Move disagrees with the position and its moves".to_string());
            }
        }
        Ok(GameSummary {
            game_id,
            names: self.names,
            my_color,
            max_moves: self.max_moves,
            jishogi: self.jishogi,
            entering_king_rule: self.entering_king_rule,
            time,
            start,
            moves,
        })
    }
}

/// The side indexes (0 black, 1 white) a time block applies to.
fn which(sides: [bool; 2]) -> impl Iterator<Item = usize> {
    (0..2).filter(move |&c| sides[c])
}

fn sign(value: &str) -> Option<Color> {
    let mut chars = value.chars();
    let c = color_from_sign(chars.next()?)?;
    chars.next().is_none().then_some(c)
}

/// `1sec`, `1min`, `1msec` (any count) in milliseconds.
fn parse_unit(value: &str) -> Result<u64, String> {
    let digits: String = value.chars().take_while(char::is_ascii_digit).collect();
    let n: u64 =
        if digits.is_empty() { 1 } else { digits.parse().map_err(|_| "bad Time_Unit".to_string())? };
    let ms = match &value[digits.len()..] {
        "sec" => 1000,
        "min" => 60_000,
        "msec" => 1,
        _ => return Err(format!("unknown Time_Unit '{}'", shorten(value))),
    };
    if n == 0 || n > 3600 {
        return Err(format!("Time_Unit '{}' out of range", shorten(value)));
    }
    Ok(n * ms)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::csa::notation::EVEN_ROWS;

    /// A floodgate summary as the server sends it (Fischer, a game already two moves in): the
    /// lines before the board...
    const BEFORE_BOARD: &str = "Protocol_Version:1.2
Protocol_Mode:Server
Format:Shogi 1.0
Declaration:Jishogi 1.1
Game_ID:wdoor+floodgate-300-10F+hayate+gps+20261125103000
Name+:hayate
Name-:gps
Your_Turn:-
Rematch_On_Draw:NO
To_Move:+
Max_Moves:256
BEGIN Time
Time_Unit:1sec
Total_Time:300
Byoyomi:0
Increment:10
Least_Time_Per_Move:0
END Time
BEGIN Position";

    /// ... and after it.
    const AFTER_BOARD: &str = "P+
P-
+
+2726FU,T12
-3334FU,T6
END Position
END Game_Summary";

    /// That summary: the even game's board, two moves played.
    fn floodgate() -> String {
        [BEFORE_BOARD, &EVEN_ROWS.join("\n"), AFTER_BOARD].join("\n")
    }

    fn read(text: &str) -> Result<GameSummary, String> {
        let mut r = SummaryReader::default();
        for line in text.lines() {
            if r.line(line) {
                break;
            }
        }
        r.finish()
    }

    #[test]
    fn a_floodgate_summary() {
        let s = read(&floodgate()).unwrap();
        assert_eq!(s.game_id, "wdoor+floodgate-300-10F+hayate+gps+20261125103000");
        assert_eq!(s.names, ["hayate".to_string(), "gps".to_string()]);
        assert_eq!(s.my_color, Color::White);
        assert_eq!(s.max_moves, 256);
        assert!(s.jishogi);
        assert_eq!(s.entering_king_rule, None);
        let s = read(&floodgate().replace("Max_Moves:256", "Entering_King_Rule:CSARule24")).unwrap();
        assert_eq!(s.entering_king_rule.as_deref(), Some("CSARule24"));
        assert_eq!(s.time[0], TimeRules { total_ms: 300_000, increment_ms: 10_000, ..TimeRules::default() });
        assert_eq!(s.time[1], s.time[0]);
        assert_eq!(s.moves.len(), 2);
        assert_eq!(s.moves[0], (Move::from_usi("2g2f").unwrap(), Some(12_000)));
        assert_eq!(s.current().side_to_move(), Color::Black);
    }

    #[test]
    fn per_side_times_and_units() {
        let text = floodgate()
            .replace("BEGIN Time\nTime_Unit:1sec\nTotal_Time:300\nByoyomi:0\nIncrement:10\n", "BEGIN Time+\nTime_Unit:1min\nTotal_Time:10\nEND Time+\nBEGIN Time-\nTime_Unit:1sec\nTotal_Time:60\nByoyomi:10\nTime_Roundup:YES\n")
            .replace("+2726FU,T12\n-3334FU,T6\n", "");
        let s = read(&text).unwrap();
        assert_eq!(s.time[0].total_ms, 600_000);
        assert_eq!(
            s.time[1],
            TimeRules { total_ms: 60_000, byoyomi_ms: 10_000, round_up: true, ..TimeRules::default() }
        );
        assert_eq!(s.current().side_to_move(), Color::Black);
    }

    #[test]
    fn bad_summaries_say_why() {
        for (from, to, why) in [
            ("Declaration:Jishogi 1.1", "Declaration:Try 1.0", "declaration rule"),
            ("Time_Unit:1sec", "Time_Unit:1fortnight", "Time_Unit"),
            ("Total_Time:300", "Total_Time:lots", "not a time"),
            ("Byoyomi:0", "Byoyomi:10", "both Byoyomi and Increment"),
            ("Your_Turn:-", "Your_Turn:?", "Your_Turn"),
            ("-3334FU,T6", "-3334FU,Tx", "bad time"),
            ("-3334FU,T6", "+3334FU,T6", "side not to move"),
            ("To_Move:+", "To_Move:-", "To_Move"),
            ("P5 *  *  *  *  *  *  *  *  * ", "P5 * ", "nine cells"),
            ("Game_ID:wdoor", "Game_ID wdoor", "key:value"),
            ("Format:Shogi 1.0", "Format:Chess 1.0", "format"),
            ("Max_Moves:256", "Entering_King_Rule:Anything", "entering-king rule"),
        ] {
            let text = floodgate().replace(from, to);
            assert_ne!(text, floodgate(), "{from}");
            let e = read(&text).expect_err(to);
            assert!(e.contains(why), "{to}: {e}");
        }
        let cut = floodgate().replace("END Game_Summary", "");
        assert!(read(&cut).unwrap_err().contains("ended before"));
        let no_id = floodgate().replace("Game_ID:wdoor+floodgate-300-10F+hayate+gps+20261125103000\n", "");
        assert!(read(&no_id).unwrap_err().contains("Game_ID"));
    }
}
