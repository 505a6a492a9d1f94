//! The server's lines the client does not use (chat, monitor notices, garbage), logged at a
//! bounded rate: a server may send any number of them (floodgate relays every chat line), and a
//! log line for each would bury the game's lines and fill the disk of a client left running.

use super::notation::shorten;
use std::time::{Duration, Instant};

/// Lines logged in full per window; the rest are counted.
const SHOWN_PER_WINDOW: u32 = 10;
const WINDOW: Duration = Duration::from_secs(60);

pub struct IgnoredLines {
    window_start: Instant,
    shown: u32,
    /// Lines not logged since the last report.
    unlogged: u64,
}

impl Default for IgnoredLines {
    fn default() -> IgnoredLines {
        IgnoredLines { window_start: Instant::now(), shown: 0, unlogged: 0 }
    }
}

impl IgnoredLines {
    /// A line ignored `while_doing` something ("waiting for a game"): logged, or counted once
    /// this window's lines have been logged.
    pub fn line(&mut self, while_doing: &str, line: &str) {
        if self.window_start.elapsed() >= WINDOW {
            self.report();
            self.window_start = Instant::now();
            self.shown = 0;
        }
        if self.shown < SHOWN_PER_WINDOW {
            self.shown += 1;
            log::info!("{while_doing}: '{}' ignored", shorten(line));
            if self.shown == SHOWN_PER_WINDOW {
                log::info!(
                    "{SHOWN_PER_WINDOW} server lines ignored within {} s: more are counted, not shown",
                    WINDOW.as_secs()
                );
            }
        } else {
            self.unlogged += 1;
        }
    }

    /// Logs how many lines were ignored without a log line, if any.
    pub fn report(&mut self) {
        if self.unlogged > 0 {
            log::info!("{} more server lines ignored and not shown", self.unlogged);
            self.unlogged = 0;
        }
    }
}

impl Drop for IgnoredLines {
    fn drop(&mut self) {
        self.report();
    }
}
