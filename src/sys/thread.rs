//! Work on a thread of its own: a named thread with the stack the work needs, joined so that
//! its panic goes on in the caller (`std::panic::resume_unwind`; release builds abort on a
//! panic anyway). WebAssembly has no threads: there the work runs inline, to its end, on the
//! module's own stack, which the build makes deep enough (32 MiB, `scripts/wasm-build.sh`).
//!
//! [`run_on`] runs work and waits for it (the mate solver's deep stack); [`spawn`] and
//! [`spawn_with`] leave it running and hand back a [`Handle`] to join later (a search, a
//! `go mate`, a `go perft` or `bench` job).

use std::io;

/// Whether work runs inline, the caller's thread blocked until it ends (WebAssembly): then a
/// [`Handle`] comes back finished.
pub const INLINE: bool = cfg!(target_family = "wasm");

/// Work started by [`spawn`] or [`spawn_with`]: its thread, or on WebAssembly its result.
pub struct Handle<R> {
    #[cfg(not(target_family = "wasm"))]
    thread: std::thread::JoinHandle<R>,
    #[cfg(target_family = "wasm")]
    result: R,
}

impl<R> Handle<R> {
    /// Whether the work has ended (it may not have been joined yet).
    pub fn is_finished(&self) -> bool {
        #[cfg(not(target_family = "wasm"))]
        return self.thread.is_finished();
        #[cfg(target_family = "wasm")]
        true
    }

    /// Waits for the work to end and returns its result; a panic of the work goes on here.
    pub fn join(self) -> R {
        #[cfg(not(target_family = "wasm"))]
        return self.thread.join().unwrap_or_else(|panic| std::panic::resume_unwind(panic));
        #[cfg(target_family = "wasm")]
        self.result
    }
}

/// Runs `work` on a thread named `name` with a stack of `stack_bytes` (the system's default for
/// `None`) and keeps it running; `Err` when no thread can start (then `work` has not run, and is
/// dropped: see [`spawn_with`] to keep what it owns).
pub fn spawn<R: Send + 'static>(
    name: &str,
    stack_bytes: Option<usize>,
    work: impl FnOnce() -> R + Send + 'static,
) -> io::Result<Handle<R>> {
    spawn_with(name, stack_bytes, (), |()| work()).map_err(|(e, ())| e)
}

/// [`spawn`] for work that takes `input`, which comes back with the error when no thread can
/// start: it goes to the thread only once the thread runs.
pub fn spawn_with<T: Send + 'static, R: Send + 'static>(
    name: &str,
    stack_bytes: Option<usize>,
    input: T,
    work: impl FnOnce(T) -> R + Send + 'static,
) -> Result<Handle<R>, (io::Error, T)> {
    #[cfg(not(target_family = "wasm"))]
    {
        let (to_thread, from_caller) = std::sync::mpsc::channel::<T>();
        let spawned = builder(name, stack_bytes).spawn(move || {
            work(from_caller.recv().expect("the caller sends the input once the thread runs"))
        });
        match spawned {
            Ok(thread) => {
                // The thread's first act is to wait for its input: the channel is open.
                assert!(to_thread.send(input).is_ok(), "the thread waits for its input");
                Ok(Handle { thread })
            }
            Err(e) => Err((e, input)),
        }
    }
    #[cfg(target_family = "wasm")]
    {
        let _ = (name, stack_bytes);
        Ok(Handle { result: work(input) })
    }
}

/// Runs `work` on a thread named `name` with a stack of `stack_bytes` and waits for it: its
/// result, or `Err` when that thread cannot start (`work` has not run). `work` may borrow from
/// the caller. A panic of `work` goes on here.
pub fn run_on<R: Send>(name: &str, stack_bytes: usize, work: impl FnOnce() -> R + Send) -> io::Result<R> {
    #[cfg(not(target_family = "wasm"))]
    {
        std::thread::scope(|scope| {
            let thread = builder(name, Some(stack_bytes)).spawn_scoped(scope, work)?;
            Ok(thread.join().unwrap_or_else(|panic| std::panic::resume_unwind(panic)))
        })
    }
    #[cfg(target_family = "wasm")]
    {
        let _ = (name, stack_bytes);
        Ok(work())
    }
}

/// A thread named `name`, with a stack of `stack_bytes` where given.
#[cfg(not(target_family = "wasm"))]
fn builder(name: &str, stack_bytes: Option<usize>) -> std::thread::Builder {
    let builder = std::thread::Builder::new().name(name.to_string());
    match stack_bytes {
        Some(bytes) => builder.stack_size(bytes),
        None => builder,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A recursion of about `n` KiB of stack.
    fn depth(n: usize) -> usize {
        let frame = std::hint::black_box([0u8; 1024]);
        if n == 0 {
            0
        } else {
            depth(n - 1) + 1 + usize::from(frame[n % 1024])
        }
    }

    fn thread_name() -> Option<String> {
        std::thread::current().name().map(str::to_string)
    }

    #[test]
    fn work_runs_on_a_named_thread_with_its_stack() {
        let mut borrowed = vec![1, 2];
        run_on("borrow", 1 << 20, || borrowed.push(3)).unwrap();
        assert_eq!(borrowed, [1, 2, 3]);
        if !INLINE {
            assert_eq!(run_on("deep", 1 << 20, thread_name).unwrap().as_deref(), Some("deep"));
            // 8 MiB of stack, more than a thread's default of 2 MiB.
            assert_eq!(run_on("deep", 64 << 20, || depth(8000)).unwrap(), 8000);
        }
    }

    #[test]
    fn a_spawned_result_comes_back_at_the_join() {
        let h = spawn_with("with", Some(4 << 20), vec![1, 2, 3], |v| v.into_iter().sum::<i32>());
        assert_eq!(h.expect("a thread").join(), 6);
        let h = spawn("job", None, thread_name).expect("a thread");
        let name = h.join();
        if !INLINE {
            assert_eq!(name.as_deref(), Some("job"));
        }
    }

    /// Where a panic unwinds (release builds abort, as WebAssembly does).
    #[test]
    #[cfg(panic = "unwind")]
    fn a_panic_goes_on_in_the_caller() {
        let caught = std::panic::catch_unwind(|| run_on("boom", 1 << 20, || panic!("boom run")));
        let panic = caught.expect_err("the panic reaches the caller");
        assert_eq!(panic.downcast_ref::<&str>(), Some(&"boom run"));
        let h = spawn("boom", None, || -> u32 { panic!("boom spawn") }).expect("a thread");
        let caught = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| h.join()));
        let panic = caught.expect_err("the panic reaches the joiner");
        assert_eq!(panic.downcast_ref::<&str>(), Some(&"boom spawn"));
    }
}
