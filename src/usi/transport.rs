//! Where the USI front end's lines go, and what its searches do at their checkpoints: stdout
//! and nothing, unless a front end built on this one installs its own transport (the WebAssembly
//! front end, `crate::web`, whose host has neither stdout nor threads).

use crate::search::SearchControl;
use once_cell::sync::OnceCell;
use std::io::Write;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Mutex;

/// What is running when a checkpoint comes, and how to reach it.
pub enum Running<'a> {
    /// A search (`go`): its control flags.
    Search(&'a SearchControl),
    /// `go mate`: its stop flag.
    Mate(&'a AtomicBool),
}

impl Running<'_> {
    /// Asks it to stop (it still reports).
    pub fn stop(&self) {
        match self {
            Running::Search(control) => control.stop(),
            Running::Mate(flag) => flag.store(true, Ordering::Release),
        }
    }

    /// Whether it was asked to stop.
    pub fn stopping(&self) -> bool {
        match self {
            Running::Search(control) => control.stop.load(Ordering::SeqCst),
            Running::Mate(flag) => flag.load(Ordering::Acquire),
        }
    }
}

/// Another way out than stdout.
pub struct Transport {
    /// Writes one protocol line.
    pub line: fn(&str),
    /// The reporters' checkpoint: see `crate::search::Reporter::checkpoint`.
    pub checkpoint: fn(running: Running<'_>),
}

static INSTALLED: OnceCell<Transport> = OnceCell::new();

/// Sends every later line through `transport`; `Err` gives it back when one is installed already.
pub fn install(transport: Transport) -> Result<(), Transport> {
    INSTALLED.set(transport)
}

static STDOUT: Mutex<()> = Mutex::new(());

/// Writes one protocol line: one at a time, under a lock, flushed at once.
pub(super) fn line(text: &str) {
    if let Some(t) = INSTALLED.get() {
        return (t.line)(text);
    }
    let _guard = STDOUT.lock().unwrap_or_else(|e| e.into_inner());
    let mut out = std::io::stdout().lock();
    // A closed stdout (the GUI went away) is not worth a panic; the read loop will see EOF.
    let _ = writeln!(out, "{text}");
    let _ = out.flush();
}

/// A search's or a solve's checkpoint: nothing to do unless a transport is installed.
pub(super) fn checkpoint(running: Running<'_>) {
    if let Some(t) = INSTALLED.get() {
        (t.checkpoint)(running);
    }
}
