//! The CSA front end: `hayate csa` plays on a CSA server (floodgate, shogi-server, any server of
//! the CSA protocol 1.2.1 with floodgate's extensions), with the engine session in-process, as
//! the USI front end drives it.
//!
//! This front end writes nothing on stdout: it logs on stderr, a line per game at least.

mod client;
pub mod clock;
pub mod config;
mod game;
mod ignored;
mod link;
pub mod notation;
pub mod record;
mod stop;
pub mod summary;

use crate::engine::options::Options;
use crate::engine::Engine;
use std::path::Path;

pub use config::{CsaArgs, Settings};
pub use game::Tally;

/// `hayate csa`: reads the settings, sets the engine up and plays. `engine_options` are the
/// defaults from `engine-options.toml`; the `[options]` of the settings file go over them.
/// Returns the tally; an error for settings or a login that cannot work.
pub fn main(args: &CsaArgs, file: Option<&Path>, engine_options: Options) -> Result<Tally, String> {
    let settings = config::resolve(args, file, &|var| std::env::var(var).ok())?;
    if let Err(e) = stop::install() {
        log::warn!("{e}");
    }
    let mut engine = Engine::new(engine_options);
    for (name, value) in &settings.options {
        engine.set_option(name, value).map_err(|e| format!("[options] {name}: {e}"))?;
    }
    for message in engine.prepare() {
        log::info!("{message}");
    }
    client::run(&settings, &mut engine)
}
