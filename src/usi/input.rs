//! The input side of the USI channel: a reader thread owns stdin and passes each line on as the
//! bytes received, so that stdin stays live whatever the command loop is doing. Lines end at
//! `\n`; a `\r` before it (Windows GUIs) is dropped. Bytes are not decoded here: a line that is
//! not UTF-8 (a Shift-JIS path from a Japanese Windows GUI) is a line like any other, and only
//! the end of input or a read error ends the loop (with a `quit`).

use crossbeam_channel::{Receiver, Sender};
use std::io::{BufRead, Read};

/// Starts the reader thread over `input`; the lines arrive on the returned channel, the last one
/// `quit` (sent at the end of input, or after a read error, or passed on from the input).
pub fn spawn_reader<R: Read + Send + 'static>(input: R) -> std::io::Result<Receiver<Vec<u8>>> {
    let (tx, rx) = crossbeam_channel::unbounded::<Vec<u8>>();
    std::thread::Builder::new().name("stdin".into()).spawn(move || read_lines(input, &tx))?;
    Ok(rx)
}

fn read_lines<R: Read>(input: R, tx: &Sender<Vec<u8>>) {
    let mut reader = std::io::BufReader::new(input);
    let mut line = Vec::new();
    loop {
        line.clear();
        match reader.read_until(b'\n', &mut line) {
            Ok(0) => break,
            Ok(_) => {
                let cmd = trim_line(&line).to_vec();
                let quit = cmd == b"quit";
                if tx.send(cmd).is_err() || quit {
                    return;
                }
            }
            // Interrupted reads are retried by read_until; anything else is the end of input.
            Err(e) => {
                log::error!("reading stdin: {e}");
                break;
            }
        }
    }
    let _ = tx.send(b"quit".to_vec());
}

/// A line without its end (`\n`, `\r\n`) and surrounding ASCII white space.
pub fn trim_line(line: &[u8]) -> &[u8] {
    line.trim_ascii()
}

/// The white-space separated words of a line, as bytes (a Shift-JIS character never contains an
/// ASCII space, tab or line end, so words split the same as in the decoded text).
pub fn words(line: &[u8]) -> Vec<&[u8]> {
    line.split(|b| b.is_ascii_whitespace()).filter(|w| !w.is_empty()).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lines(input: &'static [u8]) -> Vec<Vec<u8>> {
        let rx = spawn_reader(input).expect("spawn");
        rx.iter().collect()
    }

    #[test]
    fn crlf_and_lf_lines_and_a_quit_at_the_end() {
        assert_eq!(lines(b"usi\r\nisready\n\n  go  \r\n"), [&b"usi"[..], b"isready", b"", b"go", b"quit"]);
    }

    #[test]
    fn invalid_utf8_is_a_line_not_the_end() {
        assert_eq!(lines(b"a\xff\xfe\nisready\n"), [&b"a\xff\xfe"[..], b"isready", b"quit"]);
    }

    #[test]
    fn quit_ends_reading() {
        assert_eq!(lines(b"quit\nisready\n"), [b"quit"]);
    }

    #[test]
    fn words_split_on_ascii_space_only() {
        assert_eq!(
            words(b"setoption name EvalDir value \x95\x5d \x89\xbf"),
            [&b"setoption"[..], b"name", b"EvalDir", b"value", b"\x95\x5d", b"\x89\xbf"]
        );
    }
}
