//! The module's side of the contract with its glue (`wasm/js/hayate.js`): the exports the host
//! calls and the imports it provides. See the module docs of `crate::web`.

use super::inbox::{self, Inbox};
use crate::engine::options::Options;
use crate::engine::Engine;
use crate::usi::transport::{self, Running, Transport};
use crate::usi::UsiSession;
use std::cell::RefCell;

#[link(wasm_import_module = "env")]
extern "C" {
    /// One protocol line (UTF-8, no line end).
    fn hayate_write(ptr: *const u8, len: usize);
    /// One line for the host's error output (`printErr`).
    fn hayate_log(ptr: *const u8, len: usize);
    /// How many lines wait in the host's inbox.
    fn hayate_inbox_len() -> usize;
    /// The length in bytes of inbox line `i`.
    fn hayate_inbox_line_len(i: usize) -> usize;
    /// Copies inbox line `i` to `ptr` (as many bytes as `hayate_inbox_line_len` said).
    fn hayate_inbox_read(i: usize, ptr: *mut u8);
    /// Takes inbox line `i` out.
    fn hayate_inbox_remove(i: usize);
}

/// Bytes the host may use to save the stack while a search is paused: the call frames of the
/// deepest search or `go mate` line, with room to spare.
const PAUSE_BUFFER_BYTES: usize = 8 << 20;

/// The host's inbox, read through the imports.
struct HostInbox;

impl Inbox for HostInbox {
    fn len(&self) -> usize {
        // SAFETY: an import without arguments.
        unsafe { hayate_inbox_len() }
    }

    fn line(&self, i: usize) -> Vec<u8> {
        // SAFETY: an import with a plain index.
        let len = unsafe { hayate_inbox_line_len(i) };
        let mut line = Vec::new();
        if line.try_reserve_exact(len).is_err() {
            log(&format!("an input line of {len} bytes is more than the memory left: dropped"));
            return line;
        }
        // SAFETY: `line` has room for `len` bytes, which the host writes before `set_len`.
        unsafe {
            hayate_inbox_read(i, line.as_mut_ptr());
            line.set_len(len);
        }
        line
    }

    fn remove(&mut self, i: usize) {
        // SAFETY: an import with a plain index.
        unsafe { hayate_inbox_remove(i) }
    }
}

fn write(line: &str) {
    // SAFETY: the pointer and length of a live `str`, read by the host during the call.
    unsafe { hayate_write(line.as_ptr(), line.len()) }
}

fn log(line: &str) {
    // SAFETY: as in `write`.
    unsafe { hayate_log(line.as_ptr(), line.len()) }
}

thread_local! {
    /// The session, made at the first `hayate_run`.
    static SESSION: RefCell<Option<UsiSession>> = const { RefCell::new(None) };
}

/// The checkpoint of a search or `go mate`, back from a pause (see the module docs of
/// `crate::web`): what came meanwhile.
fn checkpoint(running: Running<'_>) {
    inbox::at_checkpoint(&mut HostInbox, &running, &mut |line| write(line));
}

/// Log records of warnings and errors go to the host's error output.
struct HostLogger;

impl log::Log for HostLogger {
    fn enabled(&self, metadata: &log::Metadata<'_>) -> bool {
        metadata.level() <= log::Level::Warn
    }

    fn log(&self, record: &log::Record<'_>) {
        if self.enabled(record.metadata()) {
            log(&format!("[{}] {}", record.level(), record.args()));
        }
    }

    fn flush(&self) {}
}

static LOGGER: HostLogger = HostLogger;

/// The first call: the transport, the logger, the panic message, the session.
fn start() -> UsiSession {
    let _ = transport::install(Transport { line: write, checkpoint });
    if log::set_logger(&LOGGER).is_ok() {
        log::set_max_level(log::LevelFilter::Warn);
    }
    std::panic::set_hook(Box::new(|info| log(&format!("the engine stopped: {info}"))));
    UsiSession::new(Engine::new(Options::default()), None)
}

/// Export `hayate_run`: handles the inbox's lines in order until it is empty. Returns 1 once
/// `quit` was handled (the module is done), else 0.
#[no_mangle]
pub extern "C" fn hayate_run() -> i32 {
    run()
}

/// [`hayate_run`].
pub fn run() -> i32 {
    // A new slice starts with each call from the host (a resumption skips this: asyncify's
    // rewind goes straight back to the paused call).
    crate::sys::host_yield::slice_starts();
    SESSION.with(|session| {
        let mut session = session.borrow_mut();
        let session = session.get_or_insert_with(start);
        let mut inbox = HostInbox;
        while !inbox.is_empty() {
            let line = inbox.line(0);
            inbox.remove(0);
            if !session.handle_bytes(&line) {
                return 1;
            }
        }
        0
    })
}

/// Export `hayate_pause_buffer_bytes`: the size of the area at [`hayate_pause_buffer`].
#[no_mangle]
pub extern "C" fn hayate_pause_buffer_bytes() -> usize {
    PAUSE_BUFFER_BYTES
}

/// Export `hayate_pause_buffer`: the address of the area the host saves the paused stack in
/// (asyncify's data: two 32-bit words, the free space's start and end, then the space), made at
/// the first call; 0 when its memory cannot be had.
#[no_mangle]
pub extern "C" fn hayate_pause_buffer() -> usize {
    thread_local! {
        static BUFFER: RefCell<Vec<u32>> = const { RefCell::new(Vec::new()) };
    }
    BUFFER.with(|b| {
        let mut b = b.borrow_mut();
        if b.is_empty() {
            if b.try_reserve_exact(PAUSE_BUFFER_BYTES / 4).is_err() {
                return 0;
            }
            b.resize(PAUSE_BUFFER_BYTES / 4, 0);
        }
        b.as_ptr() as usize
    })
}
