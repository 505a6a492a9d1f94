//! One TCP connection to a CSA server: lines out, lines in (from a reader thread, so that the
//! client can wait for a server line and a search result at once), and the keep-alive: an empty
//! line when nothing was sent for a while, as floodgate asks of idle clients.

use super::stop;
use crate::search::{BestMove, SearchInfo};
use crossbeam_channel::{Receiver, Sender};
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{Shutdown, TcpStream, ToSocketAddrs};
use std::time::{Duration, Instant};

/// The longest line kept from the server; the rest of a longer line, up to its newline, is
/// dropped. No line of the protocol comes near it.
const MAX_LINE: usize = 64 * 1024;
/// Lines read and not yet taken by the client; past this the reader waits, and TCP's flow control
/// holds a server that sends faster than the client reads (the memory stays bounded).
const QUEUED_LINES: usize = 256;

/// A line from the server, without its line ending.
pub struct ServerLine {
    /// The line as text (bytes that are not UTF-8 replaced by U+FFFD).
    pub text: String,
    /// The bytes as received, when they are not UTF-8: what must go back to the server unchanged
    /// (a Game_ID in `AGREE`).
    raw: Option<Vec<u8>>,
}

impl ServerLine {
    /// The bytes as received.
    pub fn bytes(&self) -> &[u8] {
        self.raw.as_deref().unwrap_or(self.text.as_bytes())
    }
}

/// What the client waits for.
pub enum Event {
    /// A line from the server.
    Line(ServerLine),
    /// The server closed the connection (or it broke), with why.
    Closed(String),
    /// A search ended: its number, its answer and its last main line.
    Best { search: u64, best: BestMove, info: Option<SearchInfo> },
    /// A stop was asked for by a signal (see [`stop`]).
    Stop,
}

pub struct Link {
    stream: TcpStream,
    /// The reader's lines (and its [`Event::Closed`]).
    lines: Receiver<Event>,
    /// The searches' results.
    events: Receiver<Event>,
    sender: Sender<Event>,
    last_sent: Instant,
    keepalive: Duration,
    /// Ready when a stop is asked for; `None` once the client has seen the stop (its waits for
    /// the server's last answers go on until their deadlines).
    stop: Option<Receiver<()>>,
}

impl Link {
    pub fn connect(host: &str, port: u16, keepalive: Duration) -> Result<Link, String> {
        let addrs: Vec<_> = (host, port)
            .to_socket_addrs()
            .map_err(|e| format!("cannot resolve {host}:{port}: {e}"))?
            .collect();
        let mut last = format!("no address for {host}");
        for addr in addrs {
            match TcpStream::connect_timeout(&addr, Duration::from_secs(20)) {
                Ok(stream) => return Link::over(stream, keepalive),
                Err(e) => last = format!("cannot connect to {addr}: {e}"),
            }
        }
        Err(last)
    }

    fn over(stream: TcpStream, keepalive: Duration) -> Result<Link, String> {
        let _ = stream.set_nodelay(true);
        let reading = stream.try_clone().map_err(|e| format!("socket: {e}"))?;
        let (sender, events) = crossbeam_channel::unbounded();
        let (to_client, lines) = crossbeam_channel::bounded(QUEUED_LINES);
        std::thread::Builder::new()
            .name("csa-reader".into())
            .spawn(move || read_lines(reading, to_client))
            .map_err(|e| format!("cannot start the reader thread: {e}"))?;
        Ok(Link {
            stream,
            lines,
            events,
            sender,
            last_sent: Instant::now(),
            keepalive,
            stop: Some(stop::receiver()),
        })
    }

    /// Where searches send their results.
    pub fn sender(&self) -> Sender<Event> {
        self.sender.clone()
    }

    /// Sends one line (a `\n` is added).
    pub fn send(&mut self, line: &str) -> Result<(), String> {
        self.send_bytes(line.as_bytes())
    }

    /// Sends one line of bytes (a `\n` is added): a line that quotes the server's bytes.
    pub fn send_bytes(&mut self, line: &[u8]) -> Result<(), String> {
        if line.starts_with(b"LOGIN ") {
            log::debug!("> LOGIN (name and password not shown)");
        } else {
            log::debug!("> {}", String::from_utf8_lossy(line));
        }
        let mut bytes = Vec::with_capacity(line.len() + 1);
        bytes.extend_from_slice(line);
        bytes.push(b'\n');
        self.stream
            .write_all(&bytes)
            .and_then(|_| self.stream.flush())
            .map_err(|e| format!("send failed: {e}"))?;
        self.last_sent = Instant::now();
        Ok(())
    }

    /// From now on, a stop no longer interrupts [`Link::next`]: the client has seen it and waits
    /// for the server's last answers, each wait with its deadline.
    pub fn stop_seen(&mut self) {
        self.stop = None;
    }

    /// The next event, sending keep-alives while waiting; `None` when `deadline` passes first.
    /// [`Event::Stop`] as soon as a stop is asked for, until [`Link::stop_seen`].
    pub fn next(&mut self, deadline: Option<Instant>) -> Option<Event> {
        loop {
            // The keep-alive is at most an hour (the settings say so); a far deadline is no
            // deadline.
            let ping_at = self.last_sent.checked_add(self.keepalive);
            let wake = match (deadline, ping_at) {
                (Some(d), Some(p)) => Some(d.min(p)),
                (d, p) => d.or(p),
            };
            let timeout = match wake {
                Some(w) => crossbeam_channel::after(w.saturating_duration_since(Instant::now())),
                None => crossbeam_channel::never(),
            };
            let never = crossbeam_channel::never();
            let stop = self.stop.as_ref().unwrap_or(&never);
            crossbeam_channel::select! {
                recv(self.lines) -> event => {
                    return Some(event.unwrap_or_else(|_| Event::Closed("reader ended".into())));
                }
                // `self` holds a sender: this channel never disconnects.
                recv(self.events) -> event => if let Ok(event) = event { return Some(event) },
                recv(stop) -> _ => return Some(Event::Stop),
                recv(timeout) -> _ => {
                    if deadline.is_some_and(|d| Instant::now() >= d) {
                        return None;
                    }
                    if ping_at.is_some_and(|p| Instant::now() >= p) {
                        if let Err(e) = self.send("") {
                            return Some(Event::Closed(e));
                        }
                    }
                }
            }
        }
    }
}

impl Drop for Link {
    fn drop(&mut self) {
        // Ends the reader thread too.
        let _ = self.stream.shutdown(Shutdown::Both);
    }
}

fn read_lines(stream: TcpStream, to_client: Sender<Event>) {
    let mut reader = BufReader::new(stream);
    let mut buf = Vec::new();
    loop {
        buf.clear();
        // A line is at most MAX_LINE bytes; the rest of a longer one is dropped, so that its
        // tail is not read as a line of its own (a `#WIN` at the end of a long chat line).
        let read =
            Read::by_ref(&mut reader).take(MAX_LINE as u64).read_until(b'\n', &mut buf).and_then(|n| {
                if n == MAX_LINE && buf.last() != Some(&b'\n') {
                    let dropped = skip_line(&mut reader)?;
                    log::warn!(
                        "a line from the server over {MAX_LINE} bytes: its last {dropped} bytes dropped"
                    );
                }
                Ok(n)
            });
        match read {
            Ok(0) => {
                let _ = to_client.send(Event::Closed("the server closed the connection".into()));
                return;
            }
            Ok(_) => {
                while buf.last().is_some_and(|&b| b == b'\n' || b == b'\r') {
                    buf.pop();
                }
                let line = match String::from_utf8(std::mem::take(&mut buf)) {
                    Ok(text) => ServerLine { text, raw: None },
                    Err(e) => {
                        let raw = e.into_bytes();
                        ServerLine { text: String::from_utf8_lossy(&raw).into_owned(), raw: Some(raw) }
                    }
                };
                log::debug!("< {}", line.text);
                if to_client.send(Event::Line(line)).is_err() {
                    return;
                }
            }
            Err(e) => {
                let _ = to_client.send(Event::Closed(format!("connection error: {e}")));
                return;
            }
        }
    }
}

/// Reads and drops the bytes up to the next newline (included), or to the end of the stream;
/// returns how many.
fn skip_line(reader: &mut impl BufRead) -> std::io::Result<u64> {
    let mut dropped = 0u64;
    loop {
        let available = reader.fill_buf()?;
        if available.is_empty() {
            return Ok(dropped);
        }
        let (used, done) = match available.iter().position(|&b| b == b'\n') {
            Some(i) => (i + 1, true),
            None => (available.len(), false),
        };
        reader.consume(used);
        dropped += used as u64;
        if done {
            return Ok(dropped);
        }
    }
}
