//! The WebAssembly front end (ShogiHome's web app, any web page, Node.js): the USI session of
//! `crate::usi` over a host that has no stdin, no stdout and no threads.
//!
//! The host is the glue module `wasm/js/hayate.js`. It keeps the lines it is sent in an inbox
//! and calls `run` (the export `hayate_run`), which handles them in order until none is left.
//! A search (or `go mate`) runs inside the handling of its `go`, on this one thread, and hands
//! control back to the host every few milliseconds (`crate::sys::host_yield`): the import
//! `hayate_pause` unwinds the WebAssembly stack to the host (binaryen's asyncify, applied to the
//! module when it is built), which lets its event loop run (new lines arrive, `poll()` is
//! called) and then rewinds it, so that the search goes on where it was, its state intact. Back
//! from the pause, the search's checkpoint ([`crate::search::Reporter::checkpoint`]) reads the
//! inbox (`inbox.rs`): `stop` and `ponderhit` act at once.
//!
//! Protocol lines go to the host through the import `hayate_write`, log records and panics
//! through `hayate_log` (the host's `printErr`).

pub mod inbox;

#[cfg(all(target_arch = "wasm32", target_os = "unknown"))]
mod host;

#[cfg(all(target_arch = "wasm32", target_os = "unknown"))]
pub use host::run;
