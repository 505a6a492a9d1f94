//! The opening book: YaneuraOu's text book format (`#YANEURAOU-DB2016 1.00`), read whole into
//! memory or, with `BookOnTheFly`, looked up in the file at each probe (a binary search over the
//! file, which must then be sorted by SFEN, as YaneuraOu writes its books); the choice of a book
//! move at the root under the `Book*` options.
//!
//! The format: a header line, then for each position a line `sfen <board> <side> <hands> <ply>`
//! followed by its moves, one per line: `<move> <ponder move or none> <value> <depth> <count>`
//! (the last three may be missing; they count as 0). Lines starting with `#` are comments. A
//! position is looked up by its board, side and hands; the move number is ignored.
//!
//! A book is text of bounded lines: a line longer than [`MAX_LINE_BYTES`], or a NUL byte, makes
//! the file malformed. A book read into memory is read line by line as it is checked (a file of
//! zeros stops at its first line, not after the allocator gave up), up to [`MAX_MEMORY_BOOK`];
//! its table is allocated fallibly. A probe in the file reads at most [`MAX_PROBE_BYTES`], so
//! that it returns within milliseconds whatever the file holds, and the engine answers `stop`
//! and `quit` right after it.

use super::files::{found_from_here_or_beside_the_binary, stamp, Stamp};
use super::options::{self, Options};
use super::user_file::{open_regular, size_text};
use crate::position::Position;
use crate::types::Move;
use std::collections::HashMap;
use std::fs::File;
use std::io::{BufRead, BufReader, Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};

/// The first line of a book file.
pub const HEADER: &str = "#YANEURAOU-DB2016 1.00";

/// With `NarrowBook`, a move is dropped when it was played in less than this percentage of the
/// games through its position (by the book's counts).
const NARROW_BOOK_PERCENT: u64 = 10;

/// The longest line a book may have. YaneuraOu's lines are under 200 bytes (a position's SFEN,
/// or one move with its numbers); a longer one means the file is not a book.
pub const MAX_LINE_BYTES: u64 = 64 << 10;

/// The largest book read into memory (its table grows with the file, and every position's key
/// is kept as text); a larger one is looked up in the file with `BookOnTheFly`, which holds
/// nothing of it in memory.
pub const MAX_MEMORY_BOOK: u64 = 2 << 30;

/// The most bytes one lookup in the file reads: a sorted book needs about 40 binary-search
/// steps of one position's lines (at most 593 moves, some 25 KiB) each. A lookup that reads
/// more has met a file that is not a sorted book.
pub const MAX_PROBE_BYTES: u64 = 16 << 20;

/// After a binary-search step's offset, the most bytes read to find the next `sfen` line: more
/// than the moves of any one position take.
const MAX_SCAN_BYTES: u64 = 1 << 20;

/// One move of a position in the book.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BookMove {
    pub mv: Move,
    /// The expected reply, when the book names one.
    pub ponder: Option<Move>,
    /// The value of the move for the side to move (centipawns).
    pub value: i32,
    /// The depth the value was searched to.
    pub depth: i32,
    /// How often the move was played.
    pub count: u64,
}

/// The key of a position in a book: its SFEN without the move number.
pub fn book_key(pos: &Position) -> String {
    let sfen = pos.to_sfen();
    match sfen.rfind(' ') {
        Some(i) => sfen[..i].to_string(),
        None => sfen,
    }
}

/// Why a book cannot be used.
#[derive(Debug, PartialEq, Eq)]
pub struct BookError(pub String);

/// A line of a book file, read.
enum Line {
    /// Empty, or a comment.
    Blank,
    /// `sfen ...`: the key of the position (the SFEN as parsed and written again, so that a book
    /// written with another order of hands still matches) and the position.
    Position(String, Box<Position>),
    Move(BookMove),
}

/// The SFEN fields of a `sfen` line without the move number, as the file has them.
fn sfen_line_key_text(line: &str) -> Option<String> {
    let fields: Vec<&str> = line.strip_prefix("sfen ")?.split_whitespace().collect();
    (fields.len() >= 3).then(|| fields[..3].join(" "))
}

fn parse_line(line: &str) -> Result<Line, String> {
    let line = line.trim_end_matches(['\r', '\n']).trim();
    if line.is_empty() || line.starts_with('#') || line.starts_with("//") {
        return Ok(Line::Blank);
    }
    if let Some(text) = line.strip_prefix("sfen ") {
        let pos = Position::from_sfen(text.trim()).map_err(|e| format!("bad SFEN ({e})"))?;
        return Ok(Line::Position(book_key(&pos), Box::new(pos)));
    }
    let fields: Vec<&str> = line.split_whitespace().collect();
    if fields.len() > 5 {
        return Err(format!("{} fields, expected at most 5 (move ponder value depth count)", fields.len()));
    }
    let mv = Move::from_usi(fields[0]).ok_or_else(|| format!("'{}' is not a move", excerpt(fields[0])))?;
    let ponder = match fields.get(1) {
        None | Some(&"none") => None,
        Some(p) => Some(Move::from_usi(p).ok_or_else(|| format!("'{}' is not a ponder move", excerpt(p)))?),
    };
    let number = |i: usize, what: &str| -> Result<i64, String> {
        match fields.get(i) {
            None => Ok(0),
            Some(t) => t.parse::<i64>().map_err(|_| format!("{what} '{}' is not an integer", excerpt(t))),
        }
    };
    let value = number(2, "value")?.clamp(-1_000_000, 1_000_000) as i32;
    let depth = number(3, "depth")?.clamp(-1_000_000, 1_000_000) as i32;
    let count = number(4, "count")?.max(0) as u64;
    Ok(Line::Move(BookMove { mv, ponder, value, depth, count }))
}

/// Reads the next line (up to and with its newline) into `line`, which is cleared first; returns
/// its length, 0 at the end of the file. A line longer than [`MAX_LINE_BYTES`] or holding a NUL
/// byte is malformed; at most `MAX_LINE_BYTES + 1` bytes are read to find that out.
fn read_book_line<R: BufRead>(reader: &mut R, line: &mut Vec<u8>) -> Result<usize, LineError> {
    line.clear();
    let n = reader.by_ref().take(MAX_LINE_BYTES + 1).read_until(b'\n', line).map_err(LineError::Io)?;
    if n as u64 > MAX_LINE_BYTES {
        return Err(LineError::Malformed(format!(
            "a line longer than {}: not a text book",
            size_text(MAX_LINE_BYTES)
        )));
    }
    if line.contains(&0) {
        return Err(LineError::Malformed("a NUL byte: not a text book".to_string()));
    }
    Ok(n)
}

/// Why a line could not be read.
#[derive(Debug)]
enum LineError {
    Io(std::io::Error),
    /// The line is not one a book can have.
    Malformed(String),
}

impl std::fmt::Display for LineError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            LineError::Io(e) => write!(f, "{e}"),
            LineError::Malformed(why) => f.write_str(why),
        }
    }
}

fn excerpt(text: &str) -> String {
    text.chars().take(40).collect()
}

/// A book read into memory.
#[derive(Default, Debug)]
struct Table {
    positions: HashMap<String, Vec<BookMove>>,
}

impl Table {
    /// Adds a move of the position `key`; `Err` when memory ran out (every allocation here grows
    /// with the book, so each is fallible).
    fn add(&mut self, key: &str, m: BookMove) -> Result<(), std::collections::TryReserveError> {
        if !self.positions.contains_key(key) {
            self.positions.try_reserve(1)?;
            let mut owned = String::new();
            owned.try_reserve_exact(key.len())?;
            owned.push_str(key);
            self.positions.insert(owned, Vec::new());
        }
        let moves = self.positions.get_mut(key).expect("inserted above");
        // A position listed twice (at two move numbers): its moves once each.
        if !moves.iter().any(|o| o.mv == m.mv) {
            moves.try_reserve(1)?;
            moves.push(m);
        }
        Ok(())
    }
}

/// Reads a whole book, line by line, each checked as it comes. Returns it and warnings (moves
/// that are not legal in their position are left out, with their line numbers); a line that
/// cannot be read is an error naming it, and so is running out of memory.
fn read_table(mut reader: impl BufRead) -> Result<(Table, Vec<String>), BookError> {
    let mut table = Table::default();
    let mut warnings = Vec::new();
    let mut illegal = 0usize;
    let mut current: Option<(String, Box<Position>)> = None;
    let mut bytes = Vec::new();
    for number in 1usize.. {
        match read_book_line(&mut reader, &mut bytes) {
            Ok(0) => break,
            Ok(_) => {}
            Err(e) => return Err(BookError(format!("line {number}: {e}"))),
        }
        let text = String::from_utf8_lossy(&bytes);
        if number == 1 {
            check_header(&text)?;
            continue;
        }
        match parse_line(&text).map_err(|e| BookError(format!("line {number}: {e}")))? {
            Line::Blank => {}
            Line::Position(key, pos) => current = Some((key, pos)),
            Line::Move(m) => {
                let Some((key, pos)) = &current else {
                    return Err(BookError(format!("line {number}: a move before any sfen line")));
                };
                if pos.is_legal_move(m.mv) {
                    table.add(key, m).map_err(|_| {
                        BookError(format!(
                            "line {number}: out of memory after {} positions (BookOnTheFly reads \
                             the book in the file instead)",
                            table.positions.len()
                        ))
                    })?;
                } else {
                    illegal += 1;
                    if illegal <= 3 {
                        warnings
                            .push(format!("line {number}: {} is not legal in its position; left out", m.mv));
                    }
                }
            }
        }
    }
    if illegal > 3 {
        warnings.push(format!("{illegal} illegal moves left out in all"));
    }
    Ok((table, warnings))
}

fn check_header(first: &str) -> Result<(), BookError> {
    let first = first.trim_start_matches('\u{feff}').trim_end();
    if first.starts_with("#YANEURAOU-DB2016") {
        Ok(())
    } else {
        Err(BookError(format!(
            "line 1: '{}' is not the header of a YaneuraOu text book ({HEADER})",
            excerpt(first)
        )))
    }
}

/// A book looked up in its file at each probe: a binary search for the position's `sfen` line,
/// which needs the file sorted by SFEN (YaneuraOu's books are).
#[derive(Debug)]
struct OnTheFly {
    path: PathBuf,
    len: u64,
}

/// Why a lookup in the file failed.
#[derive(Debug)]
enum ProbeError {
    Io(std::io::Error),
    /// What was read there is not a sorted book.
    Malformed {
        offset: u64,
        why: String,
    },
}

/// The file as one lookup reads it: what is left of the lookup's byte budget.
struct Cursor {
    reader: BufReader<File>,
    budget: u64,
}

impl Cursor {
    fn seek(&mut self, offset: u64) -> Result<(), ProbeError> {
        self.reader.seek(SeekFrom::Start(offset)).map(drop).map_err(ProbeError::Io)
    }

    /// The line starting at byte `at` (where the reader stands), charged to the budget.
    fn line(&mut self, line: &mut Vec<u8>, at: u64) -> Result<usize, ProbeError> {
        if self.budget == 0 {
            return Err(ProbeError::Malformed {
                offset: at,
                why: format!("one lookup read {} without an answer", size_text(MAX_PROBE_BYTES)),
            });
        }
        let n = read_book_line(&mut self.reader, line).map_err(|e| match e {
            LineError::Io(e) => ProbeError::Io(e),
            LineError::Malformed(why) => ProbeError::Malformed { offset: at, why },
        })?;
        self.budget = self.budget.saturating_sub(n as u64);
        Ok(n)
    }
}

impl OnTheFly {
    /// Opens a book to look up in: a regular file whose first line is the header and whose end
    /// is text of bounded lines (a header followed by zeros is refused here, not at the probe).
    fn open(path: &Path) -> Result<OnTheFly, BookError> {
        let (file, len) = open_regular(path, u64::MAX).map_err(|e| BookError(e.to_string()))?;
        let io = |e: std::io::Error| BookError(e.to_string());
        let mut reader = BufReader::with_capacity(4096, file);
        let mut first = Vec::new();
        read_book_line(&mut reader, &mut first).map_err(|e| BookError(format!("line 1: {e}")))?;
        check_header(&String::from_utf8_lossy(&first))?;
        let body = len.saturating_sub(first.len() as u64);
        let tail_len = body.min(MAX_LINE_BYTES);
        if tail_len > 0 {
            reader.seek(SeekFrom::Start(len - tail_len)).map_err(io)?;
            let mut tail = Vec::new();
            reader.take(tail_len).read_to_end(&mut tail).map_err(io)?;
            if let Some(i) = tail.iter().position(|&b| b == 0) {
                return Err(BookError(format!(
                    "a NUL byte at byte {}: not a text book",
                    len - tail_len + i as u64
                )));
            }
            if body > MAX_LINE_BYTES && !tail.contains(&b'\n') {
                return Err(BookError(format!(
                    "its last line is longer than {}: not a text book",
                    size_text(MAX_LINE_BYTES)
                )));
            }
        }
        Ok(OnTheFly { path: path.to_path_buf(), len })
    }

    /// The first `sfen` line that starts at or after `offset`: where the next line starts, and
    /// its key text; the reader stands there. `None` at the end of the file. At most
    /// [`MAX_SCAN_BYTES`] are read past `offset` to find it.
    fn sfen_at(&self, cur: &mut Cursor, offset: u64) -> Result<Option<(u64, String)>, ProbeError> {
        let mut line = Vec::new();
        // Find the start of the first line at or after `offset`.
        let mut start = offset;
        if offset > 0 {
            cur.seek(offset - 1)?;
            start = offset - 1 + cur.line(&mut line, offset - 1)? as u64;
        } else {
            cur.seek(0)?;
        }
        loop {
            if start >= self.len {
                return Ok(None);
            }
            if start - offset > MAX_SCAN_BYTES {
                return Err(ProbeError::Malformed {
                    offset,
                    why: format!("no sfen line in the {} after it", size_text(MAX_SCAN_BYTES)),
                });
            }
            let n = cur.line(&mut line, start)?;
            if n == 0 {
                return Ok(None);
            }
            let text = String::from_utf8_lossy(&line);
            if let Some(key) = sfen_line_key_text(text.trim_end()) {
                return Ok(Some((start + n as u64, key)));
            }
            start += n as u64;
        }
    }

    /// The moves of the position with key `key`, read from the file, with the byte offset of
    /// each one's line. Reads at most about [`MAX_PROBE_BYTES`].
    fn probe(&self, key: &str) -> Result<Vec<(BookMove, u64)>, ProbeError> {
        // Opened again as a regular file: the path may name something else by now.
        let (file, _) = open_regular(&self.path, u64::MAX)
            .map_err(|e| ProbeError::Io(std::io::Error::other(e.to_string())))?;
        let mut cur = Cursor { reader: BufReader::with_capacity(4096, file), budget: MAX_PROBE_BYTES };
        // The smallest offset whose next sfen line has a key >= `key`.
        let (mut lo, mut hi) = (0u64, self.len + 1);
        while lo < hi {
            let mid = lo + (hi - lo) / 2;
            match self.sfen_at(&mut cur, mid)? {
                Some((_, k)) if k.as_str() < key => lo = mid + 1,
                _ => hi = mid,
            }
        }
        let mut moves = Vec::new();
        let Some((mut offset, found)) = self.sfen_at(&mut cur, lo)? else {
            return Ok(moves);
        };
        if found != key {
            return Ok(moves);
        }
        // The reader stands after the sfen line; read its moves up to the next sfen line. The
        // same position may come again at another move number, right after.
        let mut line = Vec::new();
        loop {
            let n = cur.line(&mut line, offset)?;
            if n == 0 {
                break;
            }
            let text = String::from_utf8_lossy(&line);
            match parse_line(&text) {
                Ok(Line::Blank) => {}
                Ok(Line::Move(m)) => moves.push((m, offset)),
                Ok(Line::Position(k, _)) if k == key => {}
                Ok(Line::Position(..)) => break,
                Err(why) => return Err(ProbeError::Malformed { offset, why }),
            }
            offset += n as u64;
        }
        Ok(moves)
    }
}

#[derive(Debug)]
enum Source {
    Memory(Table),
    File(OnTheFly),
}

/// The `Book*` options that choose among a position's moves.
#[derive(Clone, Debug, PartialEq)]
pub struct BookChoice {
    /// Use the book up to this game ply (`BookMoves`).
    pub max_ply: u32,
    /// Percent of probes that ignore the book (`BookIgnoreRate`).
    pub ignore_rate: u32,
    /// Only moves at most this far below the best value (`BookEvalDiff`).
    pub eval_diff: i32,
    /// Only moves searched at least this deep (`BookDepthLimit`; 0: any).
    pub depth_limit: i32,
    /// Leave out rarely played moves (`NarrowBook`).
    pub narrow: bool,
    /// Choose in proportion to the counts, not uniformly (`ConsiderBookMoveCount`).
    pub by_count: bool,
}

impl BookChoice {
    pub fn from_options(o: &Options) -> BookChoice {
        BookChoice {
            max_ply: o.int(options::BOOK_MOVES) as u32,
            ignore_rate: o.int(options::BOOK_IGNORE_RATE) as u32,
            eval_diff: o.int(options::BOOK_EVAL_DIFF) as i32,
            depth_limit: o.int(options::BOOK_DEPTH_LIMIT) as i32,
            narrow: o.bool(options::NARROW_BOOK),
            by_count: o.bool(options::CONSIDER_BOOK_MOVE_COUNT),
        }
    }
}

/// What a probe found: the move to play and why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BookHit {
    pub chosen: BookMove,
    /// The ponder move, when the book's is legal after the chosen move.
    pub ponder: Option<Move>,
    /// How many moves were candidates after the options' filters.
    pub candidates: usize,
}

/// The book the options name, if any, and the file it came from.
#[derive(Default, Debug)]
pub struct BookSlot {
    source: Option<Source>,
    /// The file of the last load attempt, what it was then, and whether on the fly (loaded again
    /// when any differs).
    loaded: Option<(PathBuf, Stamp, bool)>,
    /// The state of the random choices.
    rng: u64,
}

/// Where `BookFile` points: a relative path from the working directory, else from the binary's
/// folder. `None` for no book.
fn book_path(o: &Options) -> Option<PathBuf> {
    let text = o.text(options::BOOK_FILE);
    if text.is_empty() || text == options::NO_BOOK {
        return None;
    }
    Some(found_from_here_or_beside_the_binary(o.path(options::BOOK_FILE)))
}

impl BookSlot {
    pub fn is_loaded(&self) -> bool {
        self.source.is_some()
    }

    /// Loads the book the options name, unless it is the file last tried and unchanged. Returns
    /// messages for the user (nothing when nothing changed). A book that cannot be read is
    /// reported, with the line, and not used.
    pub fn load(&mut self, o: &Options) -> Vec<String> {
        let Some(path) = book_path(o) else {
            let had = self.loaded.take().is_some();
            self.source = None;
            return if had { vec!["no book".to_string()] } else { Vec::new() };
        };
        let on_the_fly = o.bool(options::BOOK_ON_THE_FLY);
        let now = (path.clone(), stamp(&path), on_the_fly);
        if self.loaded.as_ref() == Some(&now) {
            return Vec::new();
        }
        self.loaded = Some(now);
        self.source = None;
        let shown = path.display();
        if on_the_fly {
            return match OnTheFly::open(&path) {
                Ok(f) => {
                    self.source = Some(Source::File(f));
                    vec![format!("book {shown}: looked up in the file at each move (BookOnTheFly)")]
                }
                Err(e) => vec![format!("book {shown}: {}; no book", e.0)],
            };
        }
        let file = match open_regular(&path, MAX_MEMORY_BOOK) {
            Ok((file, _)) => file,
            Err(e @ super::user_file::FileError::TooLarge { .. }) => {
                return vec![format!(
                    "book {shown}: {e} to be read into memory; set BookOnTheFly to true to look \
                     its moves up in the file; no book"
                )]
            }
            Err(e) => return vec![format!("book {shown}: {e}; no book")],
        };
        match read_table(BufReader::with_capacity(1 << 16, file)) {
            Ok((table, warnings)) => {
                let moves: usize = table.positions.values().map(Vec::len).sum();
                let mut messages: Vec<String> =
                    warnings.into_iter().map(|w| format!("book {shown}: {w}")).collect();
                messages.push(format!("book {shown}: {} positions, {moves} moves", table.positions.len()));
                self.source = Some(Source::Memory(table));
                messages
            }
            Err(e) => vec![format!("book {shown}: {}; no book", e.0)],
        }
    }

    /// A book move for `pos`, chosen under `choice`, restricted to `allowed` when it is not
    /// empty; `None` when the book has none (or the options say not to use it now). Also returns
    /// problems met for the user (an illegal move or an unreadable line in an on-the-fly book).
    pub fn probe(
        &mut self,
        pos: &Position,
        choice: &BookChoice,
        allowed: &[Move],
    ) -> (Option<BookHit>, Vec<String>) {
        if self.source.is_none() || pos.game_ply() > choice.max_ply {
            return (None, Vec::new());
        }
        if choice.ignore_rate > 0 && (self.next_random() % 100) < u64::from(choice.ignore_rate) {
            return (None, Vec::new());
        }
        let Some(source) = self.source.as_ref() else {
            return (None, Vec::new());
        };
        let key = book_key(pos);
        let mut messages = Vec::new();
        let moves: Vec<BookMove> = match source {
            Source::Memory(t) => t.positions.get(&key).cloned().unwrap_or_default(),
            Source::File(f) => match f.probe(&key) {
                Ok(found) => {
                    let mut moves = Vec::new();
                    for (m, offset) in found {
                        if pos.is_legal_move(m.mv) {
                            if !moves.iter().any(|o: &BookMove| o.mv == m.mv) {
                                moves.push(m);
                            }
                        } else {
                            messages
                                .push(format!("book: {} at byte {offset} is not legal here; left out", m.mv));
                        }
                    }
                    moves
                }
                Err(ProbeError::Io(e)) => {
                    messages.push(format!("book {}: {e}", f.path.display()));
                    Vec::new()
                }
                Err(ProbeError::Malformed { offset, why }) => {
                    // Each later lookup would meet the same: the book is put away until the
                    // file changes (the next `isready` then reads it again).
                    messages.push(format!(
                        "book {}: malformed at byte {offset} ({why}); no book until the file changes",
                        f.path.display()
                    ));
                    self.source = None;
                    return (None, messages);
                }
            },
        };
        let candidates = select(&moves, choice, allowed);
        if candidates.is_empty() {
            return (None, messages);
        }
        let chosen = self.pick(&candidates, choice.by_count);
        let ponder = chosen.ponder.filter(|&p| {
            let mut after = pos.clone();
            after.do_move(chosen.mv);
            after.is_legal_move(p)
        });
        (Some(BookHit { chosen, ponder, candidates: candidates.len() }), messages)
    }

    fn pick(&mut self, candidates: &[BookMove], by_count: bool) -> BookMove {
        let total: u64 = candidates.iter().map(|m| m.count).sum();
        if by_count && total > 0 {
            let mut r = self.next_random() % total;
            for m in candidates {
                if r < m.count {
                    return *m;
                }
                r -= m.count;
            }
        }
        candidates[(self.next_random() % candidates.len() as u64) as usize]
    }

    /// xorshift64*, seeded from the clock on first use.
    fn next_random(&mut self) -> u64 {
        if self.rng == 0 {
            let nanos = std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0x9E37_79B9_7F4A_7C15, |d| d.as_nanos() as u64);
            self.rng = nanos | 1;
        }
        self.rng ^= self.rng >> 12;
        self.rng ^= self.rng << 25;
        self.rng ^= self.rng >> 27;
        self.rng.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
}

/// The moves the options allow, best value first (the book's order among equals).
fn select(moves: &[BookMove], choice: &BookChoice, allowed: &[Move]) -> Vec<BookMove> {
    let mut pool: Vec<BookMove> = moves
        .iter()
        .filter(|m| allowed.is_empty() || allowed.contains(&m.mv))
        .filter(|m| m.depth >= choice.depth_limit)
        .copied()
        .collect();
    if choice.narrow {
        let total: u64 = pool.iter().map(|m| m.count).sum();
        if total > 0 {
            pool.retain(|m| m.count * 100 >= total * NARROW_BOOK_PERCENT);
        }
    }
    let Some(best) = pool.iter().map(|m| m.value).max() else {
        return pool;
    };
    pool.retain(|m| i64::from(m.value) >= i64::from(best) - i64::from(choice.eval_diff));
    pool.sort_by_key(|m| std::cmp::Reverse(m.value));
    pool
}

#[cfg(test)]
mod tests {
    use super::*;

    const START: &str = "lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1";

    fn book_text() -> String {
        format!(
            "{HEADER}\n# a comment\nsfen {START}\n7g7f 3c3d 50 20 70\n2g2f 8c8d 40 20 25\n5i5h none -300 20 5\n\
             sfen lnsgkgsnl/1r5b1/ppppppppp/9/9/2P6/PP1PPPPPP/1B5R1/LNSGKGSNL w - 2\n3c3d 2g2f 0 18 9\n"
        )
    }

    fn choice() -> BookChoice {
        BookChoice {
            max_ply: 16,
            ignore_rate: 0,
            eval_diff: 30,
            depth_limit: 0,
            narrow: false,
            by_count: false,
        }
    }

    fn memory(text: &str) -> BookSlot {
        let (table, _) = read_table(text.as_bytes()).unwrap();
        BookSlot { source: Some(Source::Memory(table)), loaded: None, rng: 7 }
    }

    #[test]
    fn moves_within_the_eval_diff_are_chosen() {
        let mut book = memory(&book_text());
        let pos = Position::startpos();
        let mut seen = std::collections::BTreeSet::new();
        for _ in 0..100 {
            let hit = book.probe(&pos, &choice(), &[]).0.unwrap();
            assert_eq!(hit.candidates, 2);
            seen.insert(hit.chosen.mv.to_usi());
        }
        assert_eq!(seen.into_iter().collect::<Vec<_>>(), ["2g2f", "7g7f"]);
        let tight = BookChoice { eval_diff: 5, ..choice() };
        assert_eq!(book.probe(&pos, &tight, &[]).0.unwrap().chosen.mv.to_usi(), "7g7f");
        let narrow = BookChoice { narrow: true, eval_diff: 1000, ..choice() };
        let hit = book.probe(&pos, &narrow, &[]).0.unwrap();
        assert_eq!(hit.candidates, 2, "5i5h, 5 of 100, is dropped");
        let deep = BookChoice { depth_limit: 19, ..choice() };
        assert!(book.probe(&pos, &deep, &[]).0.is_some());
        let deeper = BookChoice { depth_limit: 21, ..choice() };
        assert!(book.probe(&pos, &deeper, &[]).0.is_none());
        let only = [Move::from_usi("2g2f").unwrap()];
        assert_eq!(book.probe(&pos, &choice(), &only).0.unwrap().chosen.mv.to_usi(), "2g2f");
        let never = BookChoice { ignore_rate: 100, ..choice() };
        assert!(book.probe(&pos, &never, &[]).0.is_none());
        let late = BookChoice { max_ply: 0, ..choice() };
        assert!(book.probe(&pos, &late, &[]).0.is_none());
    }

    #[test]
    fn the_move_number_is_ignored_and_the_ponder_move_checked() {
        let mut book = memory(&book_text());
        let (pos, None) = Position::from_usi_args(&["startpos", "moves", "7g7f"]).unwrap() else { panic!() };
        let hit = book.probe(&pos, &choice(), &[]).0.unwrap();
        assert_eq!(hit.chosen.mv.to_usi(), "3c3d");
        assert_eq!(hit.ponder.map(Move::to_usi).as_deref(), Some("2g2f"));
        let (other, None) = Position::from_usi_args(&["startpos", "moves", "2g2f"]).unwrap() else {
            panic!()
        };
        assert!(book.probe(&other, &choice(), &[]).0.is_none());
    }

    #[test]
    fn malformed_books_name_the_line() {
        let bad = |text: &str| read_table(text.as_bytes()).unwrap_err().0;
        assert!(bad("sfen x\n").starts_with("line 1:"), "{}", bad("sfen x\n"));
        assert!(bad(&format!("{HEADER}\n7g7f none 0 0 0\n")).starts_with("line 2: a move before"));
        assert!(bad(&format!("{HEADER}\nsfen {START}\n7g7f none x 0 0\n")).starts_with("line 3: value 'x'"));
        assert!(bad(&format!("{HEADER}\nsfen {START}\n7g7z none 0 0 0\n")).starts_with("line 3: '7g7z'"));
        assert!(bad(&format!("{HEADER}\nsfen 9/9 b - 1\n")).starts_with("line 2: bad SFEN"));
        let (table, warnings) =
            read_table(format!("{HEADER}\nsfen {START}\n7g7e none 0 0 0\n").as_bytes()).unwrap();
        assert!(table.positions.values().all(Vec::is_empty), "an illegal move is left out");
        assert!(warnings[0].starts_with("line 3: 7g7e is not legal"), "{warnings:?}");
    }

    /// The file lookup finds what the whole read finds, in a sorted book of many positions.
    #[test]
    fn on_the_fly_agrees_with_memory() {
        // Positions after every first move, and after every reply to 7g7f, each with one move.
        let mut entries: Vec<(String, String)> = Vec::new();
        let start = Position::startpos();
        for m in crate::position::MoveList::legal(&start, false).iter() {
            let mut p = start.clone();
            p.do_move(*m);
            let reply = crate::position::MoveList::legal(&p, false).iter().next().copied().unwrap();
            entries.push((book_key(&p), format!("{} none 10 5 3", reply.to_usi())));
        }
        entries.push((book_key(&start), "7g7f none 10 5 3".to_string()));
        entries.sort();
        let mut text = format!("{HEADER}\n");
        for (i, (key, mv)) in entries.iter().enumerate() {
            text.push_str(&format!("sfen {key} {}\n{mv}\n", i + 1));
        }
        let dir = std::env::temp_dir().join(format!("hayate-book-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("sorted.db");
        std::fs::write(&path, &text).unwrap();
        let file = OnTheFly::open(&path).unwrap();
        let (table, _) = read_table(text.as_bytes()).unwrap();
        for (key, moves) in &table.positions {
            let found: Vec<BookMove> = file.probe(key).unwrap().into_iter().map(|(m, _)| m).collect();
            assert_eq!(&found, moves, "{key}");
        }
        let (absent, None) = Position::from_usi_args(&["startpos", "moves", "7g7f", "3c3d"]).unwrap() else {
            panic!()
        };
        assert!(file.probe(&book_key(&absent)).unwrap().is_empty());
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
