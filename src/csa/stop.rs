//! Stopping the client by a signal (SIGINT, SIGTERM or SIGHUP on Unix; Ctrl-C, Ctrl-Break or
//! closing the console on Windows): the first one asks the client to end cleanly (resign the game
//! in progress, save its record, log out), a second one ends the process at once.
//!
//! The request is a channel that is closed, not a message sent: every wait that selects on
//! [`receiver`] then wakes, however many there are and however often they wait again.

use crossbeam_channel::{Receiver, RecvTimeoutError, Sender};
use once_cell::sync::Lazy;
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::Mutex;
use std::time::Duration;

/// The exit status of a second signal, as shells report a process ended by SIGINT.
const SECOND_SIGNAL_STATUS: i32 = 130;

struct StopChannel {
    /// Dropped (so the channel closes) at the first signal.
    sender: Mutex<Option<Sender<()>>>,
    receiver: Receiver<()>,
}

static CHANNEL: Lazy<StopChannel> = Lazy::new(|| {
    let (sender, receiver) = crossbeam_channel::bounded(0);
    StopChannel { sender: Mutex::new(Some(sender)), receiver }
});

static SIGNALS: AtomicU32 = AtomicU32::new(0);

/// Installs the signal handler. An error (another handler is installed) is the caller's to log:
/// the client then runs as before, ended by the signal's default action.
pub fn install() -> Result<(), String> {
    Lazy::force(&CHANNEL);
    ctrlc::set_handler(|| match SIGNALS.fetch_add(1, Ordering::SeqCst) {
        0 => {
            log::warn!(
                "stop requested by a signal: resigning the game in progress, if any, then logging out"
            );
            request();
        }
        _ => {
            log::warn!("a second signal: exiting at once");
            std::process::exit(SECOND_SIGNAL_STATUS);
        }
    })
    .map_err(|e| format!("cannot handle stop signals: {e}"))
}

/// Asks every wait to end.
fn request() {
    if let Ok(mut sender) = CHANNEL.sender.lock() {
        sender.take();
    }
}

/// Whether a stop was asked for.
pub fn requested() -> bool {
    matches!(CHANNEL.receiver.try_recv(), Err(crossbeam_channel::TryRecvError::Disconnected))
}

/// A receiver that becomes ready (disconnected) when a stop is asked for; for `select!`.
pub fn receiver() -> Receiver<()> {
    CHANNEL.receiver.clone()
}

/// Sleeps for `wait`, or less when a stop is asked for; true when it was.
pub fn sleep(wait: Duration) -> bool {
    match CHANNEL.receiver.recv_timeout(wait) {
        Err(RecvTimeoutError::Timeout) => false,
        // Nothing is ever sent: anything else is the channel closed by a stop.
        _ => true,
    }
}
