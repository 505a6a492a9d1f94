//! Reading and writing SFEN, strictly: a malformed or impossible position is rejected with a reason.
//! Also the position a USI `position` command (or a line of an openings file) describes:
//! `startpos` or `sfen ...`, then the moves played from it.

use super::Position;
use crate::types::{Color, Hand, Move, Piece, PieceType, Square};
use std::fmt;

/// The kinds a hand holds, strongest first, the order of an SFEN's hands: rook, bishop, gold,
/// silver, knight, lance, pawn.
pub const SFEN_HAND_ORDER: [PieceType; 7] = [
    PieceType::Rook,
    PieceType::Bishop,
    PieceType::Gold,
    PieceType::Silver,
    PieceType::Knight,
    PieceType::Lance,
    PieceType::Pawn,
];

/// The board field of an SFEN (`lnsgkgsnl/1r5b1/...`): `piece(rank, column)` names what stands
/// on each square (`P`, `+r`; `None` when it is empty), rank 0 the top row (rank a) and column 0
/// the left one (file 9), in the order the field is written.
pub fn board_field<S: AsRef<str>>(piece: impl Fn(usize, usize) -> Option<S>) -> String {
    let mut s = String::with_capacity(96);
    for rank in 0..9 {
        let mut empty = 0u8;
        for column in 0..9 {
            match piece(rank, column) {
                None => empty += 1,
                Some(p) => {
                    if empty > 0 {
                        s.push(char::from(b'0' + empty));
                        empty = 0;
                    }
                    s.push_str(p.as_ref());
                }
            }
        }
        if empty > 0 {
            s.push(char::from(b'0' + empty));
        }
        if rank < 8 {
            s.push('/');
        }
    }
    s
}

/// The start position.
pub const STARTPOS: &str = "lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1";

/// How many pieces of a kind an SFEN may hold.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum PieceLimits {
    /// No more than a game has (18 pawns, 4 lances, ..., 2 rooks): what USI input must satisfy.
    Standard,
    /// As many as the hand encoding can hold when all of a kind end up in one hand (31 pawns,
    /// 7 lances/knights/silvers/golds, 3 bishops/rooks): for composed test positions, such as
    /// some published perft positions with three rooks.
    Extended,
}

impl PieceLimits {
    fn max(self, pt: PieceType) -> u32 {
        match self {
            PieceLimits::Standard => Hand::max_count(pt),
            PieceLimits::Extended => Hand::capacity(pt),
        }
    }
}

/// Why an SFEN was rejected.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SfenError {
    /// The text does not follow the SFEN grammar; the string says where.
    Syntax(String),
    /// More pieces of a kind (board and hands, promoted or not) than a game has.
    TooManyPieces { kind: PieceType, count: u32, max: u32 },
    /// A side has more than one king.
    TooManyKings(Color),
    /// Neither side has a king.
    NoKing,
    /// Two unpromoted pawns of one side on one file.
    TwoPawnsOnFile { color: Color, file: u8 },
    /// A pawn or lance on the last rank, or a knight on the last two: it could never move.
    PieceWithoutMoves { piece: Piece, square: Square },
    /// The side that has just moved is in check, which no legal move can leave behind.
    SideNotToMoveInCheck,
}

impl fmt::Display for SfenError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SfenError::Syntax(s) => write!(f, "bad SFEN syntax: {s}"),
            SfenError::TooManyPieces { kind, count, max } => {
                write!(f, "too many {}s: {count} (at most {max})", kind.name())
            }
            SfenError::TooManyKings(c) => write!(f, "{c:?} has more than one king"),
            SfenError::NoKing => write!(f, "no king on the board"),
            SfenError::TwoPawnsOnFile { color, file } => {
                write!(f, "two {color:?} pawns on file {}", file + 1)
            }
            SfenError::PieceWithoutMoves { piece, square } => {
                write!(f, "{} on {square} could never move", piece.sfen())
            }
            SfenError::SideNotToMoveInCheck => write!(f, "the side not to move is in check"),
        }
    }
}

impl std::error::Error for SfenError {}

/// Why `position` arguments describe no position at all.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PositionArgsError {
    /// Neither `startpos` nor `sfen <sfen>`: what came instead (empty when nothing did).
    Expected(String),
    /// The SFEN was rejected.
    Sfen(SfenError),
}

impl fmt::Display for PositionArgsError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PositionArgsError::Expected(got) if got.is_empty() => {
                f.write_str("expected 'startpos' or 'sfen'")
            }
            PositionArgsError::Expected(got) => {
                write!(f, "expected 'startpos' or 'sfen <sfen>', got '{got}'")
            }
            PositionArgsError::Sfen(e) => write!(f, "{e}"),
        }
    }
}

impl std::error::Error for PositionArgsError {}

/// A move of a `moves` list that is not legal (or not a move) where it stands: the position
/// stops before it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct IllegalMoveInList {
    /// 1-based index in the list.
    pub number: usize,
    pub text: String,
}

impl fmt::Display for IllegalMoveInList {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "move {} '{}' is illegal", self.number, self.text)
    }
}

fn syntax(s: impl Into<String>) -> SfenError {
    SfenError::Syntax(s.into())
}

/// `text` as quoted in a message: at most [`EXCERPT_CHARS`] characters, then how much was left
/// out (a malformed line can be 100 kB long).
pub fn excerpt(text: &str) -> String {
    match text.char_indices().nth(EXCERPT_CHARS) {
        None => text.to_string(),
        Some((cut, _)) => format!("{}... ({} more bytes)", &text[..cut], text.len() - cut),
    }
}

/// The characters of an input quoted in a message.
pub const EXCERPT_CHARS: usize = 40;

/// Parses the board field into (square, piece) pairs.
fn parse_board(text: &str) -> Result<Vec<(Square, Piece)>, SfenError> {
    let ranks: Vec<&str> = text.split('/').collect();
    if ranks.len() != 9 {
        return Err(syntax(format!("the board has {} ranks, not 9", ranks.len())));
    }
    let mut out = Vec::new();
    for (rank, row) in ranks.iter().enumerate() {
        // Within a rank, SFEN lists file 9 first.
        let mut file: i32 = 8;
        let mut promoted = false;
        for ch in row.chars() {
            if promoted && !ch.is_ascii_alphabetic() {
                return Err(syntax(format!("'+' not followed by a piece in rank {}", rank + 1)));
            }
            match ch {
                '1'..='9' => {
                    file -= ch as i32 - '0' as i32;
                    if file < -1 {
                        return Err(syntax(format!("rank {} is longer than 9 squares", rank + 1)));
                    }
                }
                '+' => promoted = true,
                _ => {
                    let pt = PieceType::from_sfen_letter(ch)
                        .ok_or_else(|| syntax(format!("unknown piece letter '{ch}'")))?;
                    if file < 0 {
                        return Err(syntax(format!("rank {} is longer than 9 squares", rank + 1)));
                    }
                    let pt = if promoted {
                        if !pt.can_promote() {
                            return Err(syntax(format!("'+{ch}' is not a piece")));
                        }
                        pt.promote()
                    } else {
                        pt
                    };
                    let color = if ch.is_ascii_uppercase() { Color::Black } else { Color::White };
                    let sq = Square::new(file as u8, rank as u8).expect("file and rank checked");
                    out.push((sq, Piece::new(color, pt)));
                    file -= 1;
                    promoted = false;
                }
            }
        }
        if promoted {
            return Err(syntax(format!("'+' at the end of rank {}", rank + 1)));
        }
        if file != -1 {
            return Err(syntax(format!("rank {} has {} squares, not 9", rank + 1, 8 - file)));
        }
    }
    Ok(out)
}

/// Parses the hand field.
fn parse_hands(text: &str, limits: PieceLimits) -> Result<[Hand; 2], SfenError> {
    let mut hands = [Hand::EMPTY; 2];
    if text == "-" {
        return Ok(hands);
    }
    let mut count: Option<u32> = None;
    for ch in text.chars() {
        if let Some(d) = ch.to_digit(10) {
            let n = count.unwrap_or(0) * 10 + d;
            if n > 31 {
                return Err(syntax(format!("hand count too large in '{}'", excerpt(text))));
            }
            count = Some(n);
            continue;
        }
        let pt = PieceType::from_sfen_letter(ch)
            .filter(|&pt| pt != PieceType::King)
            .ok_or_else(|| syntax(format!("'{ch}' cannot be held in hand")))?;
        let n = count.take().unwrap_or(1);
        if n == 0 {
            return Err(syntax(format!("zero count in hand '{}'", excerpt(text))));
        }
        let c = if ch.is_ascii_uppercase() { Color::Black } else { Color::White };
        let total = hands[c.index()].count(pt) + n;
        if total > limits.max(pt) {
            return Err(SfenError::TooManyPieces { kind: pt, count: total, max: limits.max(pt) });
        }
        hands[c.index()].set_count(pt, total);
    }
    if count.is_some() {
        return Err(syntax(format!("hand '{}' ends with a number", excerpt(text))));
    }
    Ok(hands)
}

impl Position {
    /// Parses an SFEN: `<board> <side> <hands> [<move number>]`. The move number defaults to 1.
    /// No kind may have more pieces than a game has (see [`Position::from_sfen_with`]).
    pub fn from_sfen(sfen: &str) -> Result<Position, SfenError> {
        Position::from_sfen_with(sfen, PieceLimits::Standard)
    }

    /// Parses an SFEN with the given piece-count limits; every other rule is checked as by
    /// [`Position::from_sfen`].
    pub fn from_sfen_with(sfen: &str, limits: PieceLimits) -> Result<Position, SfenError> {
        let fields: Vec<&str> = sfen.split_whitespace().collect();
        if fields.len() < 3 {
            return Err(syntax(format!("expected board, side and hands, got {} fields", fields.len())));
        }
        if fields.len() > 4 {
            return Err(syntax(format!(
                "unexpected text after the move number: '{}'",
                excerpt(&fields[4..].join(" "))
            )));
        }
        let board = parse_board(fields[0])?;
        let side = match fields[1] {
            "b" => Color::Black,
            "w" => Color::White,
            s => return Err(syntax(format!("side to move must be 'b' or 'w', not '{}'", excerpt(s)))),
        };
        let hands = parse_hands(fields[2], limits)?;
        let ply = match fields.get(3) {
            None => 1,
            Some(s) => match s.parse::<u32>() {
                Ok(n) if n >= 1 => n,
                _ => {
                    return Err(syntax(format!(
                        "move number must be a positive integer, not '{}'",
                        excerpt(s)
                    )))
                }
            },
        };
        Position::from_parts(&board, side, hands, ply, limits)
    }

    /// Builds a position from its parts (each square at most once), with every check of
    /// [`Position::from_sfen_with`] beyond the syntax: piece counts, kings, two pawns on a file,
    /// immobile pieces, the side not to move in check.
    pub(super) fn from_parts(
        board: &[(Square, Piece)],
        side: Color,
        hands: [Hand; 2],
        ply: u32,
        limits: PieceLimits,
    ) -> Result<Position, SfenError> {
        // Piece counts, kings, pawns per file, immobile pieces.
        let mut counts = [0u32; PieceType::NUM];
        let mut kings = [0u32; 2];
        let mut pawn_files = [[false; 9]; 2];
        for &(sq, pc) in board {
            let pt = pc.piece_type();
            let c = pc.color();
            if pt == PieceType::King {
                kings[c.index()] += 1;
                if kings[c.index()] > 1 {
                    return Err(SfenError::TooManyKings(c));
                }
                continue;
            }
            counts[pt.unpromote().index()] += 1;
            let rel = sq.relative_rank(c);
            let immobile = match pt {
                PieceType::Pawn | PieceType::Lance => rel == 0,
                PieceType::Knight => rel <= 1,
                _ => false,
            };
            if immobile {
                return Err(SfenError::PieceWithoutMoves { piece: pc, square: sq });
            }
            if pt == PieceType::Pawn {
                let f = sq.file() as usize;
                if pawn_files[c.index()][f] {
                    return Err(SfenError::TwoPawnsOnFile { color: c, file: f as u8 });
                }
                pawn_files[c.index()][f] = true;
            }
        }
        if kings == [0, 0] {
            return Err(SfenError::NoKing);
        }
        for pt in PieceType::HAND {
            let n = counts[pt.index()] + hands[0].count(pt) + hands[1].count(pt);
            if n > limits.max(pt) {
                return Err(SfenError::TooManyPieces { kind: pt, count: n, max: limits.max(pt) });
            }
        }

        let mut pos = Position::empty();
        for &(sq, pc) in board {
            pos.put_piece(pc, sq);
        }
        pos.side_to_move = side;
        pos.game_ply = ply;
        pos.states[0].hands = hands;
        pos.recompute_keys();
        pos.states[0].checkers = pos.compute_checkers();
        if let Some(k) = pos.king_square(!side) {
            if pos.is_attacked(side, k) {
                return Err(SfenError::SideNotToMoveInCheck);
            }
        }
        Ok(pos)
    }

    /// The position that USI `position` arguments describe (the tokens after the word
    /// `position`): `startpos` or `sfen <board> <side> <hands> [<move number>]`, optionally
    /// followed by `moves <m1> <m2> ...`.
    ///
    /// The game ply starts at the SFEN's move number (1 when it has none; Shogidokoro sends 1
    /// in its consideration mode) and counts the moves after `moves`, as in YaneuraOu: a game
    /// set up at move 250 reaches `MaxMovesToDraw` 256 six plies later. An illegal move stops
    /// the replay there: the position returned is the one before it, with the move that was
    /// refused.
    pub fn from_usi_args(
        tokens: &[&str],
    ) -> Result<(Position, Option<IllegalMoveInList>), PositionArgsError> {
        let (head, moves) = match tokens.iter().position(|&t| t == "moves") {
            Some(i) => (&tokens[..i], &tokens[i + 1..]),
            None => (tokens, &[][..]),
        };
        let mut pos = match head {
            ["startpos"] => Position::startpos(),
            ["sfen", fields @ ..] if !fields.is_empty() => {
                Position::from_sfen(&fields.join(" ")).map_err(PositionArgsError::Sfen)?
            }
            other => return Err(PositionArgsError::Expected(excerpt(&other.join(" ")))),
        };
        for (i, text) in moves.iter().enumerate() {
            match Move::from_usi(text) {
                Some(m) if pos.is_legal_move(m) => pos.do_move(m),
                _ => return Ok((pos, Some(IllegalMoveInList { number: i + 1, text: excerpt(text) }))),
            }
        }
        Ok((pos, None))
    }

    /// The canonical SFEN of the position, with the current move number.
    pub fn to_sfen(&self) -> String {
        let mut s = board_field(|rank, column| {
            let sq = Square::new(8 - column as u8, rank as u8).expect("on board");
            self.piece_on(sq).map(Piece::sfen)
        });
        s.push(' ');
        s.push(self.side_to_move.to_sfen());
        s.push(' ');
        let mut any = false;
        for c in Color::ALL {
            for pt in SFEN_HAND_ORDER {
                let n = self.hand(c).count(pt);
                if n > 0 {
                    if n > 1 {
                        s.push_str(&n.to_string());
                    }
                    s.push_str(&Piece::new(c, pt).sfen());
                    any = true;
                }
            }
        }
        if !any {
            s.push('-');
        }
        s.push(' ');
        s.push_str(&self.game_ply.to_string());
        s
    }
}

impl fmt::Debug for Position {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Position({})", self.to_sfen())
    }
}
