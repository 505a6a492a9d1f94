//! The engine's options (the USI options; a CSA client sets the same): their declarations
//! (names, types, defaults, ranges), current values, checking a value, and the defaults file
//! `engine-options.toml`. How a front end shows and sets them (`option name ...`, `setoption`)
//! is its own business.
//!
//! `engine-options.toml` must list exactly the declared options (a test checks it); the engine
//! reads it at start-up from `--config PATH`, else next to the binary, else from the working
//! directory, and falls back to the built-in defaults below when there is none.
//!
//! One source of defaults: the options that configure a search take their defaults from
//! `SearchConfig::default()` (and its `TimeOptions`), FV_SCALE from the NNUE module; the others
//! are declared here. A test checks that the default options give the default `SearchConfig`.

use crate::eval::nnue::DEFAULT_FV_SCALE;
use crate::position::DeclarationRule;
use crate::search::skill::{level_elo, Skill, FULL_LEVEL};
use crate::search::time::TimeOptions;
use crate::search::SearchConfig;
use std::collections::BTreeMap;
use std::ffi::OsString;
use std::fmt;
use std::path::{Path, PathBuf};

/// The type and domain of an option.
#[derive(Clone, Debug, PartialEq)]
pub enum Kind {
    Check(bool),
    Spin { default: i64, min: i64, max: i64 },
    Combo { default: &'static str, vars: &'static [&'static str] },
    Str(&'static str),
    Filename(&'static str),
}

/// A declared option.
#[derive(Clone, Debug)]
pub struct Decl {
    pub name: &'static str,
    pub kind: Kind,
}

/// A current value.
#[derive(Clone, Debug, PartialEq)]
pub enum Value {
    Bool(bool),
    Int(i64),
    Text(String),
}

impl fmt::Display for Value {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Value::Bool(b) => write!(f, "{b}"),
            Value::Int(i) => write!(f, "{i}"),
            Value::Text(s) => f.write_str(s),
        }
    }
}

pub const USI_HASH: &str = "USI_Hash";
pub const USI_PONDER: &str = "USI_Ponder";
pub const THREADS: &str = "Threads";
/// The most search threads `Threads` (and a tool's `--threads`) takes.
pub const MAX_THREADS: usize = 512;
pub const MULTI_PV: &str = "MultiPV";
pub const NETWORK_DELAY: &str = "NetworkDelay";
pub const NETWORK_DELAY2: &str = "NetworkDelay2";
pub const MINIMUM_THINKING_TIME: &str = "MinimumThinkingTime";
pub const SLOW_MOVER: &str = "SlowMover";
pub const ROUND_UP_TO_FULL_SECOND: &str = "RoundUpToFullSecond";
pub const MAX_MOVES_TO_DRAW: &str = "MaxMovesToDraw";
pub const ENTERING_KING_RULE: &str = "EnteringKingRule";
pub const RESIGN_VALUE: &str = "ResignValue";
pub const DRAW_VALUE_BLACK: &str = "DrawValueBlack";
pub const DRAW_VALUE_WHITE: &str = "DrawValueWhite";
pub const GENERATE_ALL_LEGAL_MOVES: &str = "GenerateAllLegalMoves";
pub const EVAL_DIR: &str = "EvalDir";
pub const EVAL_FILE: &str = "EvalFile";
pub const FV_SCALE: &str = "FV_SCALE";
pub const EVAL_TYPE: &str = "EvalType";
pub const MATE_HASH: &str = "MateHash";
pub const MATE_NODES: &str = "MateNodes";
/// `go mate` by tsume convention: futile interpositions do not count (`mate/futile.rs`).
pub const TSUME_CONVENTION: &str = "TsumeConvention";
/// The strength level, 0 (the weakest) to 20 (full strength, the default): `search/skill.rs`.
pub const SKILL_LEVEL: &str = "SkillLevel";
/// Play at the rating `USI_Elo` instead of `SkillLevel` (the Stockfish convention, in USI's
/// spelling).
pub const USI_LIMIT_STRENGTH: &str = "USI_LimitStrength";
pub const USI_ELO: &str = "USI_Elo";
pub const CONSIDERATION_MODE: &str = "ConsiderationMode";
pub const PV_INTERVAL: &str = "PvInterval";
pub const BOOK_FILE: &str = "BookFile";
/// `BookFile` at this value (YaneuraOu's word), or empty: no book.
pub const NO_BOOK: &str = "no_book";
pub const BOOK_MOVES: &str = "BookMoves";
pub const BOOK_IGNORE_RATE: &str = "BookIgnoreRate";
pub const BOOK_EVAL_DIFF: &str = "BookEvalDiff";
pub const BOOK_DEPTH_LIMIT: &str = "BookDepthLimit";
pub const BOOK_ON_THE_FLY: &str = "BookOnTheFly";
pub const NARROW_BOOK: &str = "NarrowBook";
pub const CONSIDER_BOOK_MOVE_COUNT: &str = "ConsiderBookMoveCount";

/// `ResignValue` at this value (its maximum) means: never resign. GUIs and users know the number.
pub const RESIGN_NEVER: i64 = 99999;

/// The WebAssembly build's limits (for a browser tab: its memory is at most 4 GiB, and an
/// allocation that fails ends the tab): tables of at most 256 MiB, 64 MiB by default, and one
/// search thread, as a WebAssembly page has no threads.
const WASM: bool = cfg!(target_family = "wasm");
/// The largest `USI_Hash` and `MateHash`, in MiB.
const MAX_TABLE_MB: i64 = if WASM { 256 } else { 65536 };
/// The default `USI_Hash` and `MateHash`, in MiB.
const DEFAULT_TABLE_MB: i64 = if WASM { 64 } else { 256 };
/// The most `Threads`.
const MOST_THREADS: i64 = if WASM { 1 } else { MAX_THREADS as i64 };

/// Every option the engine declares, in the order `usi` lists them.
pub fn declarations() -> Vec<Decl> {
    let spin = |name, default, min, max| Decl { name, kind: Kind::Spin { default, min, max } };
    let check = |name, default| Decl { name, kind: Kind::Check(default) };
    let search = SearchConfig::default();
    let time = search.time;
    let decls = vec![
        spin(USI_HASH, DEFAULT_TABLE_MB, 1, MAX_TABLE_MB),
        check(USI_PONDER, false),
        spin(THREADS, 1, 1, MOST_THREADS),
        spin(MULTI_PV, search.multi_pv as i64, 1, 800),
        spin(NETWORK_DELAY, time.network_delay as i64, 0, 10000),
        spin(NETWORK_DELAY2, time.network_delay2 as i64, 0, 10000),
        spin(MINIMUM_THINKING_TIME, time.minimum_thinking_time as i64, 0, 100000),
        spin(SLOW_MOVER, time.slow_mover as i64, 1, 1000),
        check(ROUND_UP_TO_FULL_SECOND, time.round_up_to_full_second),
        spin(MAX_MOVES_TO_DRAW, search.max_moves_to_draw as i64, 0, 100000),
        Decl {
            name: ENTERING_KING_RULE,
            kind: Kind::Combo { default: search.entering_king_rule.name(), vars: &DeclarationRule::NAMES },
        },
        spin(RESIGN_VALUE, search.resign_value.map_or(RESIGN_NEVER, i64::from), 0, RESIGN_NEVER),
        spin(DRAW_VALUE_BLACK, search.draw_value_black as i64, -30000, 30000),
        spin(DRAW_VALUE_WHITE, search.draw_value_white as i64, -30000, 30000),
        check(GENERATE_ALL_LEGAL_MOVES, search.generate_all_moves),
        check(CONSIDERATION_MODE, search.consideration_mode),
        spin(SKILL_LEVEL, FULL_LEVEL as i64, 0, FULL_LEVEL as i64),
        check(USI_LIMIT_STRENGTH, false),
        // The default, the middle level's rating, applies only with USI_LimitStrength.
        spin(USI_ELO, level_elo(FULL_LEVEL / 2).into(), level_elo(0).into(), level_elo(FULL_LEVEL).into()),
        spin(PV_INTERVAL, search.pv_interval as i64, 0, 100000),
        Decl { name: EVAL_DIR, kind: Kind::Str("eval") },
        Decl { name: EVAL_FILE, kind: Kind::Filename("") },
        spin(FV_SCALE, DEFAULT_FV_SCALE as i64, 1, 128),
        Decl {
            name: EVAL_TYPE,
            kind: Kind::Combo {
                default: crate::eval::EvalType::DEFAULT_NAME,
                vars: &crate::eval::EvalType::NAMES,
            },
        },
        spin(MATE_HASH, DEFAULT_TABLE_MB, 1, MAX_TABLE_MB),
        spin(MATE_NODES, 0, 0, 2_147_483_647),
        check(TSUME_CONVENTION, true),
        Decl { name: BOOK_FILE, kind: Kind::Filename(NO_BOOK) },
        spin(BOOK_MOVES, 16, 0, 10000),
        spin(BOOK_IGNORE_RATE, 0, 0, 100),
        spin(BOOK_EVAL_DIFF, 30, 0, 99999),
        spin(BOOK_DEPTH_LIMIT, 16, 0, 99999),
        check(BOOK_ON_THE_FLY, false),
        check(NARROW_BOOK, false),
        check(CONSIDER_BOOK_MOVE_COUNT, false),
    ];
    #[cfg(feature = "tune")]
    let decls = {
        let mut decls = decls;
        for p in crate::search::params::ALL {
            decls.push(spin(p.name, p.default as i64, p.min as i64, p.max as i64));
        }
        decls
    };
    decls
}

/// Why a value was refused.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OptionError(pub String);

impl fmt::Display for OptionError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

fn default_value(kind: &Kind) -> Value {
    match kind {
        Kind::Check(b) => Value::Bool(*b),
        Kind::Spin { default, .. } => Value::Int(*default),
        Kind::Combo { default, .. } => Value::Text(default.to_string()),
        Kind::Str(s) | Kind::Filename(s) => Value::Text(s.to_string()),
    }
}

/// Checks `text` against a declaration and converts it.
fn parse_value(decl: &Decl, text: &str) -> Result<Value, OptionError> {
    match &decl.kind {
        Kind::Check(_) => match text {
            "true" => Ok(Value::Bool(true)),
            "false" => Ok(Value::Bool(false)),
            _ => Err(OptionError(format!("{} takes true or false, not '{text}'", decl.name))),
        },
        Kind::Spin { min, max, .. } => {
            let n: i64 = text
                .parse()
                .map_err(|_| OptionError(format!("{} takes an integer, not '{text}'", decl.name)))?;
            if n < *min || n > *max {
                return Err(OptionError(format!("{} must be within {min}..{max}, not {n}", decl.name)));
            }
            Ok(Value::Int(n))
        }
        Kind::Combo { vars, .. } => {
            if vars.contains(&text) {
                Ok(Value::Text(text.to_string()))
            } else {
                Err(OptionError(format!("{} takes one of {}, not '{text}'", decl.name, vars.join(" "))))
            }
        }
        Kind::Str(_) | Kind::Filename(_) => Ok(Value::Text(text.to_string())),
    }
}

/// The declared options and their current values.
#[derive(Clone, Debug)]
pub struct Options {
    decls: Vec<Decl>,
    values: BTreeMap<&'static str, Value>,
    /// File names set from bytes that are not UTF-8 (`set_bytes`): the platform's name for them.
    /// `values` holds their lossy text, for display.
    raw_paths: BTreeMap<&'static str, OsString>,
}

impl Default for Options {
    fn default() -> Options {
        let decls = declarations();
        let values = decls.iter().map(|d| (d.name, default_value(&d.kind))).collect();
        Options { decls, values, raw_paths: BTreeMap::new() }
    }
}

impl Options {
    pub fn decls(&self) -> &[Decl] {
        &self.decls
    }

    fn decl(&self, name: &str) -> Option<&Decl> {
        // USI option names are case-insensitive in practice (GUIs echo what `usi` sent).
        self.decls.iter().find(|d| d.name.eq_ignore_ascii_case(name))
    }

    /// Sets an option from its text; refuses unknown names and bad values.
    pub fn set(&mut self, name: &str, text: &str) -> Result<&'static str, OptionError> {
        let decl = self.decl(name).ok_or_else(|| OptionError(format!("unknown option '{name}'")))?.clone();
        let value = parse_value(&decl, text)?;
        self.values.insert(decl.name, value);
        self.raw_paths.remove(decl.name);
        Ok(decl.name)
    }

    /// Sets an option from the bytes a front end received. Text options (all of them name files
    /// or folders) keep the bytes as a file name even when they are not UTF-8 (a Shift-JIS path
    /// from a Japanese Windows GUI); other options need UTF-8. Returns the option's name and
    /// whether the bytes were not UTF-8.
    pub fn set_bytes(&mut self, name: &str, bytes: &[u8]) -> Result<(&'static str, bool), OptionError> {
        if let Ok(text) = std::str::from_utf8(bytes) {
            return self.set(name, text).map(|n| (n, false));
        }
        let decl = self.decl(name).ok_or_else(|| OptionError(format!("unknown option '{name}'")))?.clone();
        if !matches!(decl.kind, Kind::Str(_) | Kind::Filename(_)) {
            return Err(OptionError(format!("{}: the value is not valid UTF-8", decl.name)));
        }
        let lossy = String::from_utf8_lossy(bytes).into_owned();
        self.values.insert(decl.name, Value::Text(lossy));
        self.raw_paths.insert(decl.name, super::path_bytes::os_string_from_bytes(bytes));
        Ok((decl.name, true))
    }

    /// A text option as a file name (the platform's name when it was set from non-UTF-8 bytes).
    pub fn path(&self, name: &str) -> PathBuf {
        match self.raw_paths.get(name) {
            Some(raw) => PathBuf::from(raw),
            None => PathBuf::from(self.text(name)),
        }
    }

    pub fn value(&self, name: &str) -> &Value {
        self.values.get(name).unwrap_or_else(|| panic!("option {name} is declared"))
    }

    pub fn int(&self, name: &str) -> i64 {
        match self.value(name) {
            Value::Int(i) => *i,
            v => panic!("option {name} is not a spin: {v:?}"),
        }
    }

    pub fn bool(&self, name: &str) -> bool {
        match self.value(name) {
            Value::Bool(b) => *b,
            v => panic!("option {name} is not a check: {v:?}"),
        }
    }

    pub fn text(&self, name: &str) -> &str {
        match self.value(name) {
            Value::Text(s) => s,
            v => panic!("option {name} is not text: {v:?}"),
        }
    }

    /// The search settings the options give.
    pub fn search_config(&self) -> SearchConfig {
        let resign = self.int(RESIGN_VALUE);
        SearchConfig {
            multi_pv: self.int(MULTI_PV) as usize,
            draw_value_black: self.int(DRAW_VALUE_BLACK) as i32,
            draw_value_white: self.int(DRAW_VALUE_WHITE) as i32,
            max_moves_to_draw: self.int(MAX_MOVES_TO_DRAW) as u32,
            // The value was checked against the rule names when it was set.
            entering_king_rule: DeclarationRule::from_name(self.text(ENTERING_KING_RULE))
                .unwrap_or(DeclarationRule::CSARule27),
            generate_all_moves: self.bool(GENERATE_ALL_LEGAL_MOVES),
            resign_value: (resign < RESIGN_NEVER).then_some(resign as i32),
            consideration_mode: self.bool(CONSIDERATION_MODE),
            pv_interval: self.int(PV_INTERVAL) as u64,
            time: TimeOptions {
                network_delay: self.int(NETWORK_DELAY) as u64,
                network_delay2: self.int(NETWORK_DELAY2) as u64,
                minimum_thinking_time: self.int(MINIMUM_THINKING_TIME) as u64,
                slow_mover: self.int(SLOW_MOVER) as u64,
                round_up_to_full_second: self.bool(ROUND_UP_TO_FULL_SECOND),
            },
            skill: if self.bool(USI_LIMIT_STRENGTH) {
                Skill::from_elo(self.int(USI_ELO) as i32)
            } else {
                Skill::level(self.int(SKILL_LEVEL) as u32)
            },
        }
    }

    /// Applies the defaults of a TOML document (`name = value` per option). Every key must be a
    /// declared option with a value of its type, set once (names are case-insensitive, so
    /// `threads` and `THREADS` are the same option); errors name the line.
    pub fn apply_toml(&mut self, text: &str) -> Result<(), OptionError> {
        let line_at = |offset: usize| text[..offset.min(text.len())].matches('\n').count() + 1;
        type Document = BTreeMap<toml::Spanned<String>, toml::Spanned<toml::Value>>;
        let document: Document = toml::from_str(text).map_err(|e: toml::de::Error| {
            OptionError(match e.span() {
                Some(span) => format!("line {}: {}", line_at(span.start), e.message()),
                None => e.message().to_string(),
            })
        })?;
        // In the order of the file, so that the first mistake is the one reported.
        let mut entries: Vec<_> = document.iter().collect();
        entries.sort_by_key(|(key, _)| key.span().start);
        let mut set_on: BTreeMap<&'static str, usize> = BTreeMap::new();
        for (key, value) in entries {
            let line = line_at(key.span().start);
            let text_value = match value.get_ref() {
                toml::Value::Boolean(b) => b.to_string(),
                toml::Value::Integer(i) => i.to_string(),
                toml::Value::String(s) => s.clone(),
                other => {
                    return Err(OptionError(format!(
                        "line {line}: {} has an unsupported value type ({})",
                        key.get_ref(),
                        other.type_str()
                    )))
                }
            };
            let name =
                self.set(key.get_ref(), &text_value).map_err(|e| OptionError(format!("line {line}: {e}")))?;
            if let Some(first) = set_on.insert(name, line) {
                return Err(OptionError(format!(
                    "line {line}: {} sets {name} again (names are case-insensitive; first set on line {first})",
                    key.get_ref()
                )));
            }
        }
        Ok(())
    }

    /// The option names a TOML document sets (for the test that the file lists every option).
    pub fn toml_keys(text: &str) -> Result<Vec<String>, String> {
        let table: toml::Table = text.parse().map_err(|e: toml::de::Error| e.to_string())?;
        Ok(table.keys().cloned().collect())
    }
}

/// The largest defaults file read (the shipped one is a few KiB): a path that names something
/// huge is refused before it is read.
pub const MAX_OPTIONS_FILE_BYTES: u64 = 1 << 20;

/// Reads the defaults file (`--config PATH`, else the first of [`config_candidates`] that exists):
/// returns the options and a problem to report to the user, if any. A bad file named explicitly
/// is an error; a bad file found by looking keeps the built-in defaults, with the problem. Only a
/// regular file of at most [`MAX_OPTIONS_FILE_BYTES`] is read: a FIFO, a device or a folder
/// there is such a problem, named as what it is (one found by looking is not skipped for the
/// next place, so that the user learns why the file in the first place is not used).
pub fn load_options(explicit: Option<&Path>) -> Result<(Options, Option<String>), String> {
    use super::user_file::{read_regular_text, FileError};
    let mut opts = Options::default();
    for path in config_candidates(explicit) {
        let problem = match read_regular_text(&path, MAX_OPTIONS_FILE_BYTES) {
            Ok(text) => match opts.apply_toml(&text) {
                Ok(()) => {
                    log::info!("options from {}", path.display());
                    return Ok((opts, None));
                }
                Err(e) => format!("{}: {e}", path.display()),
            },
            Err(FileError::Missing(_)) if explicit.is_none() => continue,
            Err(e) => format!("{}: {e}", path.display()),
        };
        if explicit.is_some() {
            return Err(problem);
        }
        // Keep the built-in defaults; say so on stderr and to the user.
        log::error!("{problem}; using built-in defaults");
        return Ok((Options::default(), Some(format!("{problem}; using built-in defaults"))));
    }
    Ok((opts, None))
}

/// Where the defaults file is looked for: `--config`, next to the binary, the working directory.
pub fn config_candidates(explicit: Option<&Path>) -> Vec<PathBuf> {
    if let Some(p) = explicit {
        return vec![p.to_path_buf()];
    }
    let mut out = Vec::new();
    if let Ok(exe) = std::env::current_exe() {
        if let Some(dir) = exe.parent() {
            out.push(dir.join("engine-options.toml"));
        }
    }
    out.push(PathBuf::from("engine-options.toml"));
    out
}

/// The message for an option whose size could not be had in full (see `crate::sys::memory`).
pub(crate) fn shrunk_message(option: &str, asked_mb: usize, got_mb: usize) -> String {
    format!("{option} {asked_mb} MiB: more than the memory that can be had, using {got_mb} MiB")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn set_validates() {
        let mut o = Options::default();
        assert!(o.set("Threads", "4").is_ok());
        assert_eq!(o.int(THREADS), 4);
        assert!(o.set("threads", "2").is_ok(), "names are case-insensitive");
        assert!(o.set("Threads", "0").is_err());
        assert!(o.set("Threads", "x").is_err());
        assert!(o.set("USI_Ponder", "yes").is_err());
        assert!(o.set("EnteringKingRule", "TryRule").is_ok());
        assert!(o.set("EnteringKingRule", "Nope").is_err());
        assert!(o.set("EvalDir", "").is_ok());
        assert_eq!(o.text(EVAL_DIR), "");
        assert!(o.set("NoSuchOption", "1").is_err());
        assert_eq!(o.int(THREADS), 2);
    }

    /// The default options give the default search settings, and each search option reaches its
    /// field.
    #[test]
    fn defaults_agree_with_the_search_config() {
        let mut o = Options::default();
        assert_eq!(o.search_config(), SearchConfig::default());
        for (name, value) in [
            (MULTI_PV, "3"),
            (NETWORK_DELAY, "11"),
            (NETWORK_DELAY2, "12"),
            (MINIMUM_THINKING_TIME, "13"),
            (SLOW_MOVER, "14"),
            (ROUND_UP_TO_FULL_SECOND, "true"),
            (MAX_MOVES_TO_DRAW, "256"),
            (ENTERING_KING_RULE, "TryRule"),
            (RESIGN_VALUE, "3000"),
            (DRAW_VALUE_BLACK, "-50"),
            (DRAW_VALUE_WHITE, "50"),
            (GENERATE_ALL_LEGAL_MOVES, "true"),
            (CONSIDERATION_MODE, "true"),
            (PV_INTERVAL, "250"),
            (SKILL_LEVEL, "7"),
        ] {
            o.set(name, value).unwrap();
        }
        let time = TimeOptions {
            network_delay: 11,
            network_delay2: 12,
            minimum_thinking_time: 13,
            slow_mover: 14,
            round_up_to_full_second: true,
        };
        let want = SearchConfig {
            multi_pv: 3,
            draw_value_black: -50,
            draw_value_white: 50,
            max_moves_to_draw: 256,
            entering_king_rule: DeclarationRule::TryRule,
            generate_all_moves: true,
            resign_value: Some(3000),
            consideration_mode: true,
            pv_interval: 250,
            time,
            skill: Skill::level(7),
        };
        assert_eq!(o.search_config(), want);
        // USI_LimitStrength takes the level from USI_Elo instead.
        o.set(USI_LIMIT_STRENGTH, "true").unwrap();
        o.set(USI_ELO, &level_elo(3).to_string()).unwrap();
        assert_eq!(o.search_config().skill, Skill::level(3));
        assert!(o.set(USI_ELO, &(level_elo(0) - 1).to_string()).is_err(), "below the ladder");
        o.set(RESIGN_VALUE, "99999").unwrap();
        assert_eq!(o.search_config().resign_value, None, "99999: never resign");
        o.set(RESIGN_VALUE, "0").unwrap();
        assert_eq!(o.search_config().resign_value, Some(0));
    }

    #[test]
    fn toml_errors_name_the_line() {
        let mut o = Options::default();
        let e = o.apply_toml("Threads = 2\nMultiPV = \"x\"\n").unwrap_err();
        assert!(e.0.contains("line 2"), "{e}");
        let e = o.apply_toml("Threads = 2\n\nBogus = 1\n").unwrap_err();
        assert!(e.0.contains("line 3") && e.0.contains("unknown option"), "{e}");
        let e = o.apply_toml("Threads = \n").unwrap_err();
        assert!(e.0.contains("line 1"), "{e}");
        let e = o.apply_toml("USI_Hash = 16\n\"Threads\" = 0\n").unwrap_err();
        assert!(e.0.starts_with("line 2: "), "a quoted key has its line: {e}");
        let e = o.apply_toml("USI_Hash = 16\n\n[Threads]\nx = 1\n").unwrap_err();
        assert!(e.0.starts_with("line 3: ") && e.0.contains("unsupported value type"), "{e}");
        let e = o.apply_toml("threads = 2\nMultiPV = 2\nTHREADS = 3\n").unwrap_err();
        assert!(e.0.starts_with("line 3: THREADS sets Threads again") && e.0.contains("line 1"), "{e}");
        o.apply_toml("Threads = 3\nUSI_Ponder = true\n").unwrap();
        assert_eq!(o.int(THREADS), 3);
        assert!(o.bool(USI_PONDER));
    }
}
