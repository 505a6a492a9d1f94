//! The platform floor: what the engine asks of the machine and of its host, one place for each
//! `cfg` between native builds and WebAssembly. It imports nothing of the engine; every layer may
//! use it.
//!
//! ```text
//! time         the monotonic clock: std's `Instant`, or the WebAssembly host's
//! host_file    the files a bare WebAssembly host hands the engine
//! host_yield   where a search hands control back to a WebAssembly host without threads
//! prefetch     cache prefetch hints
//! large_pages  zeroed tables on large pages, zeroed by several threads
//! memory       the memory and address space left to the process: how large a table, how many
//!              threads
//! parallel     one-off work split over helper threads
//! thread       work on a named thread with the stack it needs (inline on WebAssembly), joined
//!              with its panic
//! ```

#[cfg(all(target_arch = "wasm32", target_os = "unknown"))]
pub mod host_file;
pub mod host_yield;
pub mod large_pages;
pub(crate) mod memory;
pub(crate) mod parallel;
pub mod prefetch;
pub mod thread;
pub mod time;
