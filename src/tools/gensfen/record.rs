//! The compact game record (`.hgr`): every game of a run, move by move with the search scores,
//! from which the training positions (`.bin`) are rebuilt exactly (see `convert`).
//!
//! File layout:
//! ```text
//! "HYTGAMES"                       8 bytes, magic
//! version                          1 byte (1)
//! header length                    varint
//! header                           UTF-8 text, one `key=value` line per setting of the run
//! records, until the end:
//!   payload length                 varint
//!   payload                        one game (below)
//!   CRC-32 (IEEE) of the payload   4 bytes, little-endian
//! ```
//! A game's payload:
//! ```text
//! seed                             varint, the run's seed
//! index                            varint, the game's number in the run
//! outcome                          1 byte: 0 draw, 1 black wins, 2 white wins
//! end                              1 byte: how the game ended: 0 max-ply, 1 adjudicated,
//!                                  2 mate-score, 3 no-legal-move, 4 declaration, 5 repetition,
//!                                  6 perpetual-check
//! start                            1 byte: 0 the start position; 1 an SFEN, then its length
//!                                  (varint) and its text
//! setup count, setup moves         varint, then one move each: the opening line and the random
//!                                  moves (no search, never training positions)
//! ply count, plies                 varint, then per searched ply: the move, then
//!                                  zigzag(score + previous ply's score) * 2 + keep, a varint
//! ```
//! A move is its index (varint) in the list of legal moves of the position, non-promotions
//! included, sorted by [`Move::bits`] (Hayate's 16-bit move: to | from << 7 | promote << 14 |
//! drop << 15, a drop's kind in place of `from`; the format depends on this order): one byte for
//! almost every move. Scores are the side to
//! move's; a score is usually close to minus the previous one (0 before the first searched ply),
//! so the sum is small. `keep` marks the plies that are training positions. Varints are LEB128
//! (7 bits a byte, low bits first). With the scores about 2.5 bytes a ply.

use super::codec::{crc32, put_varint, unzigzag, zigzag, Reader};
use crate::position::{MoveList, Position};
use crate::tools::selfplay::game::{EndReason, Outcome, Ply, Start};
use crate::types::Move;
use std::io::{Read, Write};

pub const MAGIC: &[u8; 8] = b"HYTGAMES";
pub const VERSION: u8 = 1;
/// No game payload is larger (a game of thousands of plies is a few kilobytes).
const MAX_PAYLOAD: u64 = 1 << 20;
/// The most moves a record may hold in one list.
const MAX_MOVES_IN_RECORD: usize = 100_000;

/// One game.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GameRecord {
    /// The run's seed and the game's number in the run: together they name the game.
    pub seed: u64,
    pub index: u64,
    pub start: Start,
    /// Moves played from `start` without a search (opening line and random moves).
    pub setup: Vec<Move>,
    pub plies: Vec<Ply>,
    pub outcome: Outcome,
    pub end: EndReason,
}

/// The legal moves of `pos` (non-promotions included) sorted by their bits: the move code book.
fn code_book(pos: &Position, list: &mut MoveList) {
    *list = MoveList::legal(pos, true);
    list.as_mut_slice().sort_unstable_by_key(|m| m.bits());
}

fn put_move(out: &mut Vec<u8>, pos: &Position, list: &mut MoveList, m: Move) -> Result<(), String> {
    code_book(pos, list);
    let i = list
        .as_slice()
        .binary_search_by_key(&m.bits(), |x| x.bits())
        .map_err(|_| format!("move {m} is not legal in {}", pos.to_sfen()))?;
    put_varint(out, i as u64);
    Ok(())
}

fn get_move(r: &mut Reader, pos: &Position, list: &mut MoveList) -> Result<Move, String> {
    code_book(pos, list);
    let i = r.varint()?;
    list.as_slice()
        .get(i as usize)
        .copied()
        .ok_or_else(|| format!("move index {i} beyond the {} legal moves of {}", list.len(), pos.to_sfen()))
}

/// The fields before the moves: seed, index, outcome, end, start.
fn read_head(r: &mut Reader) -> Result<(u64, u64, Outcome, EndReason, Start), String> {
    let seed = r.varint()?;
    let index = r.varint()?;
    let outcome = match r.u8()? {
        0 => Outcome::Draw,
        1 => Outcome::BlackWins,
        2 => Outcome::WhiteWins,
        x => return Err(format!("unknown outcome {x}")),
    };
    let end = *EndReason::ALL.get(r.u8()? as usize).ok_or("unknown end reason")?;
    let start = match r.u8()? {
        0 => Start::Startpos,
        1 => {
            let n = r.count(1000, "SFEN length")?;
            let text = std::str::from_utf8(r.bytes(n)?).map_err(|_| "the SFEN is not UTF-8")?;
            Start::Sfen(text.to_string())
        }
        x => return Err(format!("unknown start kind {x}")),
    };
    Ok((seed, index, outcome, end, start))
}

impl GameRecord {
    /// The payload (see the module docs). Fails if a move is not legal where it is played.
    pub fn encode(&self) -> Result<Vec<u8>, String> {
        let mut out = Vec::with_capacity(64 + 3 * (self.setup.len() + self.plies.len()));
        put_varint(&mut out, self.seed);
        put_varint(&mut out, self.index);
        out.push(match self.outcome {
            Outcome::Draw => 0,
            Outcome::BlackWins => 1,
            Outcome::WhiteWins => 2,
        });
        out.push(EndReason::ALL.iter().position(|&e| e == self.end).expect("listed") as u8);
        match &self.start {
            Start::Startpos => out.push(0),
            Start::Sfen(s) => {
                out.push(1);
                put_varint(&mut out, s.len() as u64);
                out.extend_from_slice(s.as_bytes());
            }
        }
        let mut pos = self.start.position()?;
        let mut list = MoveList::default();
        put_varint(&mut out, self.setup.len() as u64);
        for &m in &self.setup {
            put_move(&mut out, &pos, &mut list, m)?;
            pos.do_move(m);
        }
        put_varint(&mut out, self.plies.len() as u64);
        let mut previous = 0i64;
        for p in &self.plies {
            put_move(&mut out, &pos, &mut list, p.mv)?;
            put_varint(&mut out, zigzag(p.score as i64 + previous) << 1 | p.keep as u64);
            previous = p.score as i64;
            pos.do_move(p.mv);
        }
        Ok(out)
    }

    /// Decodes a payload, calling `visit` with the position before each searched ply. Anything
    /// malformed (an index beyond the legal moves, a bad SFEN, trailing bytes) is an error.
    pub fn decode_with(payload: &[u8], mut visit: impl FnMut(&Position, &Ply)) -> Result<GameRecord, String> {
        let mut r = Reader::new(payload);
        let (seed, index, outcome, end, start) = read_head(&mut r)?;
        let mut pos = start.position()?;
        let mut list = MoveList::default();
        let n = r.count(MAX_MOVES_IN_RECORD, "setup length")?;
        let mut setup = Vec::with_capacity(n.min(payload.len()));
        for _ in 0..n {
            let m = get_move(&mut r, &pos, &mut list)?;
            pos.do_move(m);
            setup.push(m);
        }
        let n = r.count(MAX_MOVES_IN_RECORD, "ply count")?;
        let mut plies = Vec::with_capacity(n.min(payload.len()));
        let mut previous = 0i64;
        for _ in 0..n {
            let mv = get_move(&mut r, &pos, &mut list)?;
            let v = r.varint()?;
            let score = unzigzag(v >> 1) - previous;
            let score = i32::try_from(score).map_err(|_| format!("score {score} out of range"))?;
            let ply = Ply { mv, score, keep: v & 1 != 0 };
            visit(&pos, &ply);
            previous = score as i64;
            pos.do_move(mv);
            plies.push(ply);
        }
        if !r.is_empty() {
            return Err("bytes after the last ply".into());
        }
        Ok(GameRecord { seed, index, start, setup, plies, outcome, end })
    }

    /// The seed, index and number of training positions of a payload, read without replaying
    /// the moves (so without checking them).
    pub fn skim(payload: &[u8]) -> Result<(u64, u64, usize), String> {
        let mut r = Reader::new(payload);
        let (seed, index, ..) = read_head(&mut r)?;
        let n = r.count(MAX_MOVES_IN_RECORD, "setup length")?;
        for _ in 0..n {
            r.varint()?;
        }
        let n = r.count(MAX_MOVES_IN_RECORD, "ply count")?;
        let mut kept = 0;
        for _ in 0..n {
            r.varint()?;
            kept += (r.varint()? & 1) as usize;
        }
        if !r.is_empty() {
            return Err("bytes after the last ply".into());
        }
        Ok((seed, index, kept))
    }

    pub fn decode(payload: &[u8]) -> Result<GameRecord, String> {
        GameRecord::decode_with(payload, |_, _| {})
    }

    /// Number of training positions.
    pub fn kept(&self) -> usize {
        self.plies.iter().filter(|p| p.keep).count()
    }
}

/// The settings of a run, in order: `key=value` lines.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct Header(pub Vec<(String, String)>);

impl Header {
    pub fn get(&self, key: &str) -> Option<&str> {
        self.0.iter().find(|(k, _)| k == key).map(|(_, v)| v.as_str())
    }

    pub fn push(&mut self, key: &str, value: impl ToString) {
        self.0.push((key.to_string(), value.to_string()));
    }

    pub fn text(&self) -> String {
        self.0.iter().map(|(k, v)| format!("{k}={v}\n")).collect()
    }

    fn parse(text: &str) -> Result<Header, String> {
        let mut h = Header::default();
        for line in text.lines() {
            let (k, v) =
                line.split_once('=').ok_or_else(|| format!("header line '{line}' is not key=value"))?;
            h.push(k, v);
        }
        Ok(h)
    }

    /// The file's first bytes: magic, version, header.
    pub fn to_bytes(&self) -> Vec<u8> {
        let text = self.text();
        let mut out = MAGIC.to_vec();
        out.push(VERSION);
        put_varint(&mut out, text.len() as u64);
        out.extend_from_slice(text.as_bytes());
        out
    }
}

/// A framed record: length, payload, CRC.
pub fn frame(payload: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(payload.len() + 8);
    put_varint(&mut out, payload.len() as u64);
    out.extend_from_slice(payload);
    out.extend_from_slice(&crc32(payload).to_le_bytes());
    out
}

/// Why reading records stopped before the end of the file.
#[derive(Debug)]
pub enum ReadError {
    /// The file ends inside a record (an interrupted write); `offset` is where the record began.
    Truncated {
        offset: u64,
    },
    /// A record's length is implausible or its checksum does not match.
    Corrupt {
        offset: u64,
        why: String,
    },
    Io(std::io::Error),
}

impl std::fmt::Display for ReadError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ReadError::Truncated { offset } => write!(f, "the file ends inside the record at byte {offset}"),
            ReadError::Corrupt { offset, why } => write!(f, "corrupt record at byte {offset}: {why}"),
            ReadError::Io(e) => write!(f, "{e}"),
        }
    }
}

/// Reads a game-record file record by record.
pub struct GameReader<R: Read> {
    input: R,
    /// Bytes consumed so far: the end of the last complete record.
    offset: u64,
    pub header: Header,
}

fn read_exact_or_eof<R: Read>(input: &mut R, buf: &mut [u8]) -> std::io::Result<usize> {
    let mut n = 0;
    while n < buf.len() {
        match input.read(&mut buf[n..]) {
            Ok(0) => break,
            Ok(k) => n += k,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(n)
}

impl<R: Read> GameReader<R> {
    /// Reads the magic and the header.
    pub fn new(mut input: R) -> Result<GameReader<R>, String> {
        let mut head = [0u8; 9];
        let n = read_exact_or_eof(&mut input, &mut head).map_err(|e| e.to_string())?;
        if n < 9 || &head[..8] != MAGIC {
            return Err("not a Hayate game-record file (no HYTGAMES magic)".into());
        }
        if head[8] != VERSION {
            return Err(format!("game-record version {} (this build reads {VERSION})", head[8]));
        }
        let mut reader = GameReader { input, offset: 9, header: Header::default() };
        let len = match reader.varint() {
            Ok(Some((l, n))) if l <= MAX_PAYLOAD => {
                reader.offset += n;
                l as usize
            }
            _ => return Err("bad header length".into()),
        };
        let mut text = vec![0u8; len];
        if read_exact_or_eof(&mut reader.input, &mut text).map_err(|e| e.to_string())? < len {
            return Err("the file ends inside the header".into());
        }
        reader.offset += len as u64;
        let text = String::from_utf8(text).map_err(|_| "the header is not UTF-8")?;
        reader.header = Header::parse(&text)?;
        Ok(reader)
    }

    /// Where the last complete record ended (the header's end before the first).
    pub fn offset(&self) -> u64 {
        self.offset
    }

    /// A varint from the stream and its length in bytes; `None` at a clean end of file (before
    /// its first byte).
    fn varint(&mut self) -> Result<Option<(u64, u64)>, ()> {
        let mut v = 0u64;
        for (i, shift) in (0..64).step_by(7).enumerate() {
            let mut b = [0u8];
            match read_exact_or_eof(&mut self.input, &mut b) {
                Ok(1) => {}
                Ok(_) if i == 0 => return Ok(None),
                _ => return Err(()),
            }
            v |= ((b[0] & 0x7f) as u64) << shift;
            if b[0] & 0x80 == 0 {
                return Ok(Some((v, i as u64 + 1)));
            }
        }
        Err(())
    }

    /// The next game's payload, `None` at the end of the file.
    pub fn next_payload(&mut self) -> Result<Option<Vec<u8>>, ReadError> {
        let start = self.offset;
        let (len, len_bytes) = match self.varint() {
            Ok(None) => return Ok(None),
            Ok(Some((l, n))) if l <= MAX_PAYLOAD => (l as usize, n),
            Ok(Some((l, _))) => return Err(ReadError::Corrupt { offset: start, why: format!("length {l}") }),
            Err(()) => return Err(ReadError::Truncated { offset: start }),
        };
        let mut buf = vec![0u8; len + 4];
        match read_exact_or_eof(&mut self.input, &mut buf) {
            Ok(n) if n == buf.len() => {}
            Ok(_) => return Err(ReadError::Truncated { offset: start }),
            Err(e) => return Err(ReadError::Io(e)),
        }
        let crc = u32::from_le_bytes(buf[len..].try_into().expect("4 bytes"));
        buf.truncate(len);
        if crc32(&buf) != crc {
            return Err(ReadError::Corrupt { offset: start, why: "checksum mismatch".into() });
        }
        self.offset += len_bytes + len as u64 + 4;
        Ok(Some(buf))
    }
}

/// Opens a game-record file for reading.
pub fn open(path: &std::path::Path) -> Result<GameReader<std::io::BufReader<std::fs::File>>, String> {
    let f = std::fs::File::open(path).map_err(|e| format!("{}: {e}", path.display()))?;
    GameReader::new(std::io::BufReader::with_capacity(1 << 16, f))
        .map_err(|e| format!("{}: {e}", path.display()))
}

/// Writes `header` then the framed `payloads` to `out`.
pub fn write_all<W: Write>(out: &mut W, header: &Header, payloads: &[Vec<u8>]) -> std::io::Result<()> {
    out.write_all(&header.to_bytes())?;
    for p in payloads {
        out.write_all(&frame(p))?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> GameRecord {
        let mut pos = Position::startpos();
        let setup: Vec<Move> = ["7g7f", "3c3d"].iter().map(|s| Move::from_usi(s).unwrap()).collect();
        for &m in &setup {
            pos.do_move(m);
        }
        let mut plies = Vec::new();
        for (i, s) in ["8h2b+", "3a2b", "B*4e", "6a5b"].iter().enumerate() {
            let mv = Move::from_usi(s).unwrap();
            assert!(pos.is_legal_move(mv));
            plies.push(Ply { mv, score: [35, -40, 900, -32000 + 5][i], keep: i % 2 == 0 });
            pos.do_move(mv);
        }
        GameRecord {
            seed: 3,
            index: 77,
            start: Start::Startpos,
            setup,
            plies,
            outcome: Outcome::WhiteWins,
            end: EndReason::Adjudicated,
        }
    }

    #[test]
    fn games_round_trip() {
        let g = sample();
        let bytes = g.encode().unwrap();
        assert!(bytes.len() < 30, "{} bytes", bytes.len());
        let mut seen = Vec::new();
        let back = GameRecord::decode_with(&bytes, |pos, p| seen.push((pos.to_sfen(), p.mv))).unwrap();
        assert_eq!(back, g);
        assert_eq!(GameRecord::skim(&bytes).unwrap(), (3, 77, 2));
        assert_eq!(seen.len(), 4);
        assert_eq!(seen[0].0, "lnsgkgsnl/1r5b1/pppppp1pp/6p2/9/2P6/PP1PPPPPP/1B5R1/LNSGKGSNL b - 3");
        let sfen = GameRecord {
            start: Start::Sfen("4k4/9/9/9/9/9/9/9/4K4 b G 17".into()),
            setup: vec![],
            plies: vec![Ply { mv: Move::from_usi("G*5b").unwrap(), score: 31990, keep: false }],
            ..g.clone()
        };
        assert_eq!(GameRecord::decode(&sfen.encode().unwrap()).unwrap(), sfen);
        // An illegal move cannot be written.
        let bad = GameRecord { setup: vec![Move::from_usi("7g7e").unwrap()], ..g };
        assert!(bad.encode().is_err());
    }

    #[test]
    fn malformed_payloads_are_errors_not_panics() {
        let bytes = sample().encode().unwrap();
        for cut in 0..bytes.len() {
            assert!(GameRecord::decode(&bytes[..cut]).is_err(), "cut at {cut}");
            assert!(GameRecord::skim(&bytes[..cut]).is_err(), "cut at {cut}");
        }
        let mut longer = bytes.clone();
        longer.push(0);
        assert!(GameRecord::decode(&longer).is_err());
        let mut s = 12345u64;
        for i in 0..bytes.len() {
            for v in [0u8, 1, 0x7f, 0x80, 0xff] {
                let mut b = bytes.clone();
                b[i] = v;
                let _ = GameRecord::decode(&b);
                let _ = GameRecord::skim(&b);
            }
        }
        for _ in 0..2000 {
            let n = (s % 40) as usize;
            let b: Vec<u8> = (0..n)
                .map(|_| {
                    s ^= s << 13;
                    s ^= s >> 7;
                    s ^= s << 17;
                    s as u8
                })
                .collect();
            let _ = GameRecord::decode(&b);
        }
    }

    #[test]
    fn files_read_back_and_torn_tails_are_detected() {
        let mut h = Header::default();
        h.push("seed", 3);
        h.push("note", "a=b");
        let g = sample().encode().unwrap();
        let mut file = Vec::new();
        write_all(&mut file, &h, &[g.clone(), g.clone()]).unwrap();
        let mut r = GameReader::new(&file[..]).unwrap();
        assert_eq!(r.header, h);
        assert_eq!(r.header.get("note"), Some("a=b"));
        assert_eq!(r.next_payload().unwrap().unwrap(), g);
        let one = r.offset();
        assert_eq!(r.next_payload().unwrap().unwrap(), g);
        assert!(r.next_payload().unwrap().is_none());
        assert_eq!(r.offset(), file.len() as u64);
        // Torn tail: every cut inside the second record.
        for cut in one as usize + 1..file.len() {
            let mut r = GameReader::new(&file[..cut]).unwrap();
            r.next_payload().unwrap().unwrap();
            assert!(matches!(r.next_payload(), Err(ReadError::Truncated { offset }) if offset == one));
        }
        // A flipped bit in a payload: the checksum catches it.
        let mut bad = file.clone();
        bad[one as usize + 3] ^= 4;
        let mut r = GameReader::new(&bad[..]).unwrap();
        r.next_payload().unwrap().unwrap();
        assert!(matches!(r.next_payload(), Err(ReadError::Corrupt { .. })));
        assert!(GameReader::new(&b"HYTGAMEX\x01\x00"[..]).is_err());
        assert!(GameReader::new(&b"HYTGAMES\x02\x00"[..]).is_err());
        assert!(GameReader::new(&b"HYTGAMES\x01\x05ab"[..]).is_err());
        assert!(GameReader::new(&b"HYTGAMES\x01\x03a\nb"[..]).is_err());
    }
}
