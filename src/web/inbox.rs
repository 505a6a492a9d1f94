//! What a search's checkpoint takes from the lines that came while it ran.
//!
//! The host keeps the lines it is sent in an inbox, in order; the web front end takes them one
//! by one (see `super::run`), and a search or `go mate` runs inside the handling of its `go`.
//! At each checkpoint of that search the inbox is read from the front, as the native front end's
//! command loop would have handled the lines while the search ran on its own thread:
//! - `stop` and `ponderhit` act on the running search at once and are taken;
//! - `isready` is answered at once (`readyok`) and taken, unless the search was told to stop:
//!   then it waits in the inbox, so that `readyok` comes after `bestmove`, as natively;
//! - `quit`, `go`, `usinewgame`, `gameover` and `bench` end the running search (natively they
//!   stop it first) and stay, with everything after them, for when it has ended;
//! - any other line (`position`, `setoption`, ...) stays for then too, and the lines after it
//!   are still looked at: a `stop` after a `setoption` must not wait for the search's end.

use crate::search::Limits;
use crate::usi::go::{parse_go, GoCommand};
use crate::usi::transport::Running;

/// The lines the host holds, oldest first.
pub trait Inbox {
    /// How many lines wait.
    fn len(&self) -> usize;
    /// Whether no line waits.
    fn is_empty(&self) -> bool {
        self.len() == 0
    }
    /// Line `i` (0: the oldest), as received.
    fn line(&self, i: usize) -> Vec<u8>;
    /// Takes line `i` out.
    fn remove(&mut self, i: usize);
}

/// Reads the inbox at a checkpoint of `running` (see the module docs); `send` writes a protocol
/// line (`readyok`).
pub fn at_checkpoint(inbox: &mut impl Inbox, running: &Running<'_>, send: &mut impl FnMut(&str)) {
    let mut i = 0;
    while i < inbox.len() {
        let line = inbox.line(i);
        let text = String::from_utf8_lossy(&line);
        let words: Vec<&str> = text.split_whitespace().collect();
        match words.as_slice() {
            ["stop"] => {
                running.stop();
                inbox.remove(i);
            }
            ["ponderhit", rest @ ..] => {
                ponderhit(running, rest, send);
                inbox.remove(i);
            }
            ["isready"] if running.stopping() => return,
            ["isready"] => {
                send("readyok");
                inbox.remove(i);
            }
            ["quit" | "go" | "usinewgame" | "gameover" | "bench", ..] => {
                running.stop();
                return;
            }
            _ => i += 1,
        }
    }
}

/// `ponderhit [clock]`: a pondering search goes on as a normal one (Early Ponder: with the clock
/// given). Nothing happens to `go mate`.
fn ponderhit(running: &Running<'_>, rest: &[&str], send: &mut impl FnMut(&str)) {
    let Running::Search(control) = running else {
        return;
    };
    let limits = if rest.is_empty() {
        None
    } else {
        // The clock words only: `searchmoves` has no meaning here, so any position will do.
        match parse_go(rest, &crate::position::Position::startpos()) {
            Ok((GoCommand::Search(l), _)) => Some(l),
            _ => {
                send("info string ponderhit: could not read the clock; keeping the go limits");
                None::<Limits>
            }
        }
    };
    control.ponderhit(limits);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::search::SearchControl;
    use std::collections::VecDeque;
    use std::sync::atomic::{AtomicBool, Ordering};

    impl Inbox for VecDeque<Vec<u8>> {
        fn len(&self) -> usize {
            VecDeque::len(self)
        }
        fn line(&self, i: usize) -> Vec<u8> {
            self[i].clone()
        }
        fn remove(&mut self, i: usize) {
            VecDeque::remove(self, i);
        }
    }

    /// The inbox after a checkpoint of a search given `lines`, the lines sent, and the control.
    fn checkpoint(lines: &[&str], control: &SearchControl) -> (Vec<String>, Vec<String>) {
        let mut inbox: VecDeque<Vec<u8>> = lines.iter().map(|l| l.as_bytes().to_vec()).collect();
        let mut sent = Vec::new();
        at_checkpoint(&mut inbox, &Running::Search(control), &mut |l| sent.push(l.to_string()));
        (inbox.iter().map(|l| String::from_utf8_lossy(l).into_owned()).collect(), sent)
    }

    #[test]
    fn stop_is_taken_at_once_even_behind_lines_that_wait() {
        let control = SearchControl::default();
        let (left, sent) =
            checkpoint(&["setoption name MultiPV value 2", "stop", "position startpos"], &control);
        assert!(control.stop.load(Ordering::SeqCst));
        assert_eq!(left, ["setoption name MultiPV value 2", "position startpos"]);
        assert!(sent.is_empty());
    }

    #[test]
    fn isready_is_answered_during_a_search_but_waits_after_a_stop() {
        let control = SearchControl::default();
        let (left, sent) = checkpoint(&["isready"], &control);
        assert!(left.is_empty());
        assert_eq!(sent, ["readyok"]);
        let (left, sent) = checkpoint(&["stop", "isready", "stop"], &control);
        assert_eq!(left, ["isready", "stop"], "readyok must follow the bestmove");
        assert!(sent.is_empty());
    }

    #[test]
    fn a_new_go_or_quit_ends_the_search_and_waits_with_what_follows() {
        for first in ["go btime 0 wtime 0 byoyomi 100", "quit", "usinewgame", "gameover win", "bench 3"] {
            let control = SearchControl::default();
            let (left, _) = checkpoint(&["position startpos", first, "stop"], &control);
            assert!(control.stop.load(Ordering::SeqCst), "{first}");
            assert_eq!(left, ["position startpos", first, "stop"], "{first}: the stop is the next search's");
        }
    }

    #[test]
    fn ponderhit_switches_to_thinking_with_or_without_a_clock() {
        let control = SearchControl::default();
        control.pondering.store(true, Ordering::SeqCst);
        let (left, _) = checkpoint(&["ponderhit"], &control);
        assert!(left.is_empty() && !control.pondering.load(Ordering::SeqCst));
        assert!(control.ponderhit.lock().unwrap().as_ref().unwrap().limits.is_none());
        control.pondering.store(true, Ordering::SeqCst);
        checkpoint(&["ponderhit btime 1000 wtime 2000 byoyomi 500"], &control);
        let hit = control.ponderhit.lock().unwrap().clone().unwrap();
        assert_eq!(hit.limits.unwrap().byoyomi, 500);
        let (_, sent) = checkpoint(&["ponderhit btime x"], &control);
        assert_eq!(sent, ["info string ponderhit: could not read the clock; keeping the go limits"]);
    }

    #[test]
    fn a_mate_search_is_stopped_and_ignores_ponderhit() {
        let flag = AtomicBool::new(false);
        let mut inbox: VecDeque<Vec<u8>> =
            [&b"ponderhit"[..], b"d", b"stop"].iter().map(|l| l.to_vec()).collect();
        at_checkpoint(&mut inbox, &Running::Mate(&flag), &mut |_| panic!("nothing to send"));
        assert!(flag.load(Ordering::SeqCst));
        assert_eq!(inbox, [b"d".to_vec()]);
    }
}
