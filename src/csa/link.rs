//! One TCP connection to a CSA server: lines out, lines in (from a reader thread, so that the
//! client can wait for a server line and a search result at once), and the keep-alive: an empty
//! line when nothing was sent for a while, as floodgate asks of idle clients.

use crate::search::{BestMove, SearchInfo};
use crossbeam_channel::{Receiver, RecvTimeoutError, Sender};
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{Shutdown, TcpStream, ToSocketAddrs};
use std::time::{Duration, Instant};

/// What the client waits for.
pub enum Event {
    /// A line from the server, without its line ending.
    Line(String),
    /// The server closed the connection (or it broke), with why.
    Closed(String),
    /// A search ended: its number, its answer and its last main line.
    Best { search: u64, best: BestMove, info: Option<SearchInfo> },
}

pub struct Link {
    stream: TcpStream,
    events: Receiver<Event>,
    sender: Sender<Event>,
    last_sent: Instant,
    keepalive: Duration,
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
        let to_client = sender.clone();
        std::thread::Builder::new()
            .name("csa-reader".into())
            .spawn(move || read_lines(reading, to_client))
            .map_err(|e| format!("cannot start the reader thread: {e}"))?;
        Ok(Link { stream, events, sender, last_sent: Instant::now(), keepalive })
    }

    /// Where searches send their results.
    pub fn sender(&self) -> Sender<Event> {
        self.sender.clone()
    }

    /// Sends one line (a `\n` is added).
    pub fn send(&mut self, line: &str) -> Result<(), String> {
        if line.starts_with("LOGIN ") {
            log::debug!("> LOGIN (name and password not shown)");
        } else {
            log::debug!("> {line}");
        }
        let mut bytes = Vec::with_capacity(line.len() + 1);
        bytes.extend_from_slice(line.as_bytes());
        bytes.push(b'\n');
        self.stream
            .write_all(&bytes)
            .and_then(|_| self.stream.flush())
            .map_err(|e| format!("send failed: {e}"))?;
        self.last_sent = Instant::now();
        Ok(())
    }

    /// The next event, sending keep-alives while waiting; `None` when `deadline` passes first.
    pub fn next(&mut self, deadline: Option<Instant>) -> Option<Event> {
        loop {
            let ping_at = self.last_sent + self.keepalive;
            let wake = deadline.map_or(ping_at, |d| d.min(ping_at));
            match self.events.recv_timeout(wake.saturating_duration_since(Instant::now())) {
                Ok(event) => return Some(event),
                Err(RecvTimeoutError::Disconnected) => return Some(Event::Closed("reader ended".into())),
                Err(RecvTimeoutError::Timeout) => {
                    if deadline.is_some_and(|d| Instant::now() >= d) {
                        return None;
                    }
                    if Instant::now() >= ping_at {
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
        // A line is at most 64 KiB; a server sending more without a newline is cut off.
        let read = Read::by_ref(&mut reader).take(64 * 1024).read_until(b'\n', &mut buf);
        match read {
            Ok(0) => {
                let _ = to_client.send(Event::Closed("the server closed the connection".into()));
                return;
            }
            Ok(_) => {
                while buf.last().is_some_and(|&b| b == b'\n' || b == b'\r') {
                    buf.pop();
                }
                let line = String::from_utf8_lossy(&buf).into_owned();
                log::debug!("< {line}");
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
