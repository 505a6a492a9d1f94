//! The CSA client's settings: command-line flags over environment variables (`CSA_HOST`,
//! `CSA_PORT`, `CSA_ID`, `CSA_PASSWORD`, for secrets) over a TOML file over the defaults.
//!
//! ```toml
//! [server]
//! host = "wdoor.c.u-tokyo.ac.jp"
//! port = 4081
//! id = "hayate_2core"
//! game = "floodgate-300-10F"   # floodgate: the password sent is "<game>,<password>"
//! password = "my-trip"
//!
//! [client]
//! games = 0            # 0: play until stopped
//! ponder = true
//! margin_ms = 500      # the server's clock less this is what the search sees
//! keepalive_s = 30     # an empty line after this long without sending
//! reconnect_s = 10     # the wait before connecting again (doubled up to 5 min on failures)
//! answer_wait_s = 60   # how long the server may take to answer LOGIN, AGREE and LOGOUT
//! record_dir = "csa-records"
//! eval_comment = true  # floodgate's ,'* <score> <pv> after each move
//!
//! [options]            # USI options, as in engine-options.toml
//! Threads = 2
//! USI_Hash = 256
//! ```

use crate::engine::options::MAX_OPTIONS_FILE_BYTES;
use crate::engine::user_file::read_regular_text;
use serde::Deserialize;
use std::path::{Path, PathBuf};

/// The largest `margin_ms`: a minute off the clock leaves no time in any game a server offers.
const MAX_MARGIN_MS: i64 = 60_000;
/// The longest `keepalive_s`, `reconnect_s` and `answer_wait_s`, an hour: the waits are added to
/// the clock's instants, which a value near `u64::MAX` would overflow, and a longer wait is a
/// client that looks hung.
const MAX_WAIT_S: i64 = 3600;

/// `hayate csa` flags.
#[derive(clap::Args, Debug, Default, Clone)]
pub struct CsaArgs {
    /// The server's host name or address [env: CSA_HOST].
    #[arg(long)]
    pub host: Option<String>,
    /// The server's port (default 4081) [env: CSA_PORT].
    #[arg(long, value_parser = clap::value_parser!(u16).range(1..))]
    pub port: Option<u16>,
    /// Login name: a handle, or shogi-server's direct form `<handle>+<game>+<black|white>`
    /// [env: CSA_ID].
    #[arg(long)]
    pub id: Option<String>,
    /// Password [env: CSA_PASSWORD]; with --game and no --color, floodgate's form
    /// `<game>,<password>` is sent.
    #[arg(long)]
    pub password: Option<String>,
    /// Game name (e.g. floodgate-300-10F).
    #[arg(long)]
    pub game: Option<String>,
    /// With --game: a direct game as black or white (the login name becomes
    /// `<id>+<game>+<color>`).
    #[arg(long)]
    pub color: Option<String>,
    /// Games to play (0: until stopped; default 1).
    #[arg(long)]
    pub games: Option<u32>,
    /// Think on the opponent's time.
    #[arg(long)]
    pub ponder: Option<bool>,
    /// Milliseconds taken off the server's clock for the way to the server (default 500, at most
    /// 60000).
    #[arg(long, value_parser = clap::value_parser!(u64).range(..=MAX_MARGIN_MS as u64))]
    pub margin_ms: Option<u64>,
    /// Folder for the game records (default csa-records).
    #[arg(long)]
    pub record_dir: Option<PathBuf>,
}

/// The TOML file.
#[derive(Deserialize, Default, Debug)]
#[serde(deny_unknown_fields)]
struct FileSettings {
    #[serde(default)]
    server: ServerSection,
    #[serde(default)]
    client: ClientSection,
    #[serde(default)]
    options: toml::Table,
}

#[derive(Deserialize, Default, Debug)]
#[serde(deny_unknown_fields)]
struct ServerSection {
    host: Option<String>,
    /// Numbers are read as TOML's integers and range-checked here, so that a value out of range
    /// is reported by name.
    port: Option<i64>,
    id: Option<String>,
    password: Option<String>,
    game: Option<String>,
    color: Option<String>,
}

#[derive(Deserialize, Default, Debug)]
#[serde(deny_unknown_fields)]
struct ClientSection {
    games: Option<i64>,
    ponder: Option<bool>,
    margin_ms: Option<i64>,
    keepalive_s: Option<i64>,
    reconnect_s: Option<i64>,
    answer_wait_s: Option<i64>,
    record_dir: Option<PathBuf>,
    eval_comment: Option<bool>,
}

/// Everything the client needs, resolved.
#[derive(Debug, Clone, PartialEq)]
pub struct Settings {
    pub host: String,
    pub port: u16,
    /// The name and password exactly as `LOGIN` sends them.
    pub login_id: String,
    pub login_password: String,
    /// 0: until stopped.
    pub games: u32,
    pub ponder: bool,
    pub margin_ms: u64,
    pub keepalive_s: u64,
    pub reconnect_s: u64,
    /// How long the server may take to answer a `LOGIN`, an `AGREE` or a `LOGOUT`.
    pub answer_wait_s: u64,
    pub record_dir: PathBuf,
    pub eval_comment: bool,
    /// USI options as `name = value` text pairs, sorted by name.
    pub options: Vec<(String, String)>,
}

/// Reads the settings; `env` looks an environment variable up (the process's in `hayate csa`).
pub fn resolve(
    args: &CsaArgs,
    file: Option<&Path>,
    env: &dyn Fn(&str) -> Option<String>,
) -> Result<Settings, String> {
    let settings: FileSettings = match file {
        Some(path) => {
            // A regular file of options-file size only: a FIFO would block here and a device
            // (`/dev/zero`) would be read until the allocator gave up.
            let text = read_regular_text(path, MAX_OPTIONS_FILE_BYTES)
                .map_err(|e| format!("{}: {e}", path.display()))?;
            toml::from_str(&text)
                .map_err(|e: toml::de::Error| format!("{}: {}", path.display(), e.message()))?
        }
        None => FileSettings::default(),
    };
    let pick = |flag: &Option<String>, var: &str, file: &Option<String>| {
        flag.clone().or_else(|| env(var).filter(|v| !v.is_empty())).or_else(|| file.clone())
    };
    let s = &settings.server;
    let host = pick(&args.host, "CSA_HOST", &s.host)
        .ok_or("no server: give --host (or CSA_HOST, or host in [server])")?;
    let port = match args.port {
        Some(p) => p,
        None => match env("CSA_PORT").filter(|v| !v.is_empty()) {
            Some(v) => v
                .parse()
                .ok()
                .filter(|&p| p != 0)
                .ok_or_else(|| format!("CSA_PORT '{v}' is not a port number (1 to 65535)"))?,
            None => in_range("[server] port", s.port, 1, 65_535)?.map_or(4081, |p| p as u16),
        },
    };
    let id =
        pick(&args.id, "CSA_ID", &s.id).ok_or("no login name: give --id (or CSA_ID, or id in [server])")?;
    let password = pick(&args.password, "CSA_PASSWORD", &s.password)
        .ok_or("no password: give --password (or CSA_PASSWORD)")?;
    let game = args.game.clone().or_else(|| s.game.clone());
    let color = args.color.clone().or_else(|| s.color.clone());
    let (login_id, login_password) = login(&id, &password, game.as_deref(), color.as_deref())?;
    let c = &settings.client;
    let mut options = Vec::new();
    for (name, value) in &settings.options {
        let text = match value {
            toml::Value::String(s) => s.clone(),
            toml::Value::Integer(i) => i.to_string(),
            toml::Value::Boolean(b) => b.to_string(),
            other => return Err(format!("[options] {name}: unsupported value type ({})", other.type_str())),
        };
        options.push((name.clone(), text));
    }
    let games = in_range("[client] games", c.games, 0, u32::MAX.into())?.map(|g| g as u32);
    let margin_ms = in_range("[client] margin_ms", c.margin_ms, 0, MAX_MARGIN_MS)?.map(|m| m as u64);
    let wait = |key: &str, value: Option<i64>, default: u64| {
        in_range(&format!("[client] {key}"), value, 1, MAX_WAIT_S).map(|v| v.map_or(default, |v| v as u64))
    };
    Ok(Settings {
        host,
        port,
        login_id,
        login_password,
        games: args.games.or(games).unwrap_or(1),
        ponder: args.ponder.or(c.ponder).unwrap_or(true),
        margin_ms: args.margin_ms.or(margin_ms).unwrap_or(500),
        keepalive_s: wait("keepalive_s", c.keepalive_s, 30)?,
        reconnect_s: wait("reconnect_s", c.reconnect_s, 10)?,
        answer_wait_s: wait("answer_wait_s", c.answer_wait_s, 60)?,
        record_dir: args
            .record_dir
            .clone()
            .or(c.record_dir.clone())
            .unwrap_or_else(|| PathBuf::from("csa-records")),
        eval_comment: c.eval_comment.unwrap_or(true),
        options,
    })
}

/// `value` when it is from `min` to `max`; an error naming `key` when it is not.
fn in_range(key: &str, value: Option<i64>, min: i64, max: i64) -> Result<Option<i64>, String> {
    match value {
        Some(v) if !(min..=max).contains(&v) => Err(format!("{key} = {v}: must be from {min} to {max}")),
        v => Ok(v),
    }
}

/// The `LOGIN` name and password: as given, or built from the game name (see [`CsaArgs`]).
fn login(
    id: &str,
    password: &str,
    game: Option<&str>,
    color: Option<&str>,
) -> Result<(String, String), String> {
    let bad = |v: &str| v.is_empty() || v.chars().any(|c| c.is_whitespace() || c.is_control());
    if bad(id) {
        return Err("the login name must be non-empty and without spaces".to_string());
    }
    if bad(password) {
        return Err("the password must be non-empty and without spaces".to_string());
    }
    match (game, color) {
        (None, None) => Ok((id.to_string(), password.to_string())),
        (None, Some(_)) => Err("--color needs --game".to_string()),
        (Some(g), _) if bad(g) || g.contains('+') || g.contains(',') => {
            Err(format!("'{g}' is not a game name (no spaces, '+' or ',')"))
        }
        (Some(_), _) if id.contains('+') => {
            Err("give either a login name of the form handle+game+color or --game, not both".to_string())
        }
        (Some(g), Some(c)) => {
            let c = match c {
                "black" | "sente" | "+" => "black",
                "white" | "gote" | "-" => "white",
                _ => return Err(format!("--color '{c}': black or white")),
            };
            Ok((format!("{id}+{g}+{c}"), password.to_string()))
        }
        (Some(g), None) => Ok((id.to_string(), format!("{g},{password}"))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn no_env(_: &str) -> Option<String> {
        None
    }

    fn args(id: &str, password: &str) -> CsaArgs {
        CsaArgs {
            host: Some("localhost".into()),
            id: Some(id.into()),
            password: Some(password.into()),
            ..CsaArgs::default()
        }
    }

    #[test]
    fn login_forms() {
        let s = resolve(&args("alice+g-60-2F+black", "pw"), None, &no_env).unwrap();
        assert_eq!((s.login_id.as_str(), s.login_password.as_str()), ("alice+g-60-2F+black", "pw"));
        assert_eq!((s.port, s.games, s.ponder, s.margin_ms), (4081, 1, true, 500));
        let floodgate = CsaArgs { game: Some("floodgate-300-10F".into()), ..args("hayate", "trip") };
        let s = resolve(&floodgate, None, &no_env).unwrap();
        assert_eq!((s.login_id.as_str(), s.login_password.as_str()), ("hayate", "floodgate-300-10F,trip"));
        let direct = CsaArgs { color: Some("white".into()), ..floodgate.clone() };
        let s = resolve(&direct, None, &no_env).unwrap();
        assert_eq!(s.login_id, "hayate+floodgate-300-10F+white");
        for bad in [
            CsaArgs { color: Some("red".into()), ..floodgate.clone() },
            CsaArgs { color: Some("black".into()), ..args("x", "y") },
            CsaArgs { game: Some("a b".into()), ..args("x", "y") },
            CsaArgs { game: Some("g".into()), ..args("x+g+black", "y") },
            args("has space", "y"),
            args("x", ""),
            CsaArgs { host: None, ..args("x", "y") },
        ] {
            assert!(resolve(&bad, None, &no_env).is_err(), "{bad:?}");
        }
    }

    #[test]
    fn flags_over_environment_over_file() {
        let dir = std::env::temp_dir().join(format!("hayate-csa-config-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let file = dir.join("csa.toml");
        std::fs::write(
            &file,
            "[server]\nhost = \"file-host\"\nport = 4000\nid = \"file-id\"\npassword = \"file-pw\"\n\
             [client]\ngames = 5\nponder = false\nkeepalive_s = 40\n[options]\nThreads = 2\nUSI_Ponder = true\nBookFile = \"no_book\"\n",
        )
        .unwrap();
        let env = |v: &str| match v {
            "CSA_HOST" => Some("env-host".to_string()),
            "CSA_PASSWORD" => Some("env-pw".to_string()),
            _ => None,
        };
        let s = resolve(&CsaArgs { games: Some(2), ..CsaArgs::default() }, Some(&file), &env).unwrap();
        assert_eq!(s.host, "env-host");
        assert_eq!(s.port, 4000);
        assert_eq!(s.login_id, "file-id");
        assert_eq!(s.login_password, "env-pw");
        assert_eq!((s.games, s.ponder, s.keepalive_s), (2, false, 40));
        assert_eq!(s.options.len(), 3);
        assert!(s.options.contains(&("Threads".to_string(), "2".to_string())));
        let s = resolve(&CsaArgs { host: Some("flag-host".into()), ..CsaArgs::default() }, Some(&file), &env)
            .unwrap();
        assert_eq!(s.host, "flag-host");
        // Mistakes name themselves.
        std::fs::write(&file, "[server]\nhots = \"x\"\n").unwrap();
        assert!(resolve(&args("a", "b"), Some(&file), &no_env).unwrap_err().contains("hots"));
        std::fs::write(&file, "[options]\nThreads = [1]\n").unwrap();
        assert!(resolve(&args("a", "b"), Some(&file), &no_env).unwrap_err().contains("Threads"));
        assert!(resolve(&args("a", "b"), Some(&dir.join("missing.toml")), &no_env).is_err());
        let env = |v: &str| (v == "CSA_PORT").then(|| "http".to_string());
        assert!(resolve(&args("a", "b"), None, &env).unwrap_err().contains("CSA_PORT"));
        let _ = std::fs::remove_dir_all(&dir);
    }
}
