//! CSA notation: piece names (`FU` .. `RY`), moves (`+7776FU`, a drop `-0055KA`), and the
//! position block of a `Game_Summary` (`P1`..`P9`, `P+`/`P-` pieces in hand, `PI`, the side to
//! move), turned into and out of the engine's types.
//!
//! A CSA move names the piece as it stands after the move, so a promotion is the origin square's
//! kind turned into its promoted kind (`+2822UM` for a bishop promoting on 2b).

use crate::position::{MoveList, Position};
use crate::types::{Color, Move, MoveKind, PieceType, Score, Square};

/// CSA names in `PieceType` order (pawn .. dragon).
const NAMES: [(&str, PieceType); 14] = [
    ("FU", PieceType::Pawn),
    ("KY", PieceType::Lance),
    ("KE", PieceType::Knight),
    ("GI", PieceType::Silver),
    ("KA", PieceType::Bishop),
    ("HI", PieceType::Rook),
    ("KI", PieceType::Gold),
    ("OU", PieceType::King),
    ("TO", PieceType::ProPawn),
    ("NY", PieceType::ProLance),
    ("NK", PieceType::ProKnight),
    ("NG", PieceType::ProSilver),
    ("UM", PieceType::Horse),
    ("RY", PieceType::Dragon),
];

pub fn piece_from_csa(name: &str) -> Option<PieceType> {
    NAMES.iter().find(|(n, _)| *n == name).map(|&(_, pt)| pt)
}

pub fn piece_to_csa(pt: PieceType) -> &'static str {
    NAMES.iter().find(|(_, p)| *p == pt).map(|&(n, _)| n).expect("every kind has a CSA name")
}

/// `+` for black (sente), `-` for white.
pub fn color_sign(c: Color) -> char {
    match c {
        Color::Black => '+',
        Color::White => '-',
    }
}

pub fn color_from_sign(c: char) -> Option<Color> {
    match c {
        '+' => Some(Color::Black),
        '-' => Some(Color::White),
        _ => None,
    }
}

/// A square from its two CSA digits (`"76"`: file 7, rank 6).
fn square_from_digits(file: u8, rank: u8) -> Option<Square> {
    if !(b'1'..=b'9').contains(&file) || !(b'1'..=b'9').contains(&rank) {
        return None;
    }
    Square::new(file - b'1', rank - b'1')
}

fn square_digits(sq: Square) -> String {
    format!("{}{}", sq.file() + 1, sq.rank() + 1)
}

/// Reads a CSA move (`+7776FU`, `-0055KA`; anything after a comma, such as `,T12`, is ignored)
/// for the side to move of `pos`, and checks that it is legal there.
pub fn move_from_csa(pos: &Position, text: &str) -> Result<Move, String> {
    let body = text.split(',').next().unwrap_or("");
    let b = body.as_bytes();
    if b.len() != 7 || !body.is_ascii() {
        return Err(format!("'{}' is not a CSA move", shorten(text)));
    }
    let color =
        color_from_sign(b[0] as char).ok_or_else(|| format!("'{}': no + or - sign", shorten(text)))?;
    if color != pos.side_to_move() {
        return Err(format!("'{}' is a move of the side not to move", shorten(text)));
    }
    let to = square_from_digits(b[3], b[4]).ok_or_else(|| format!("'{}': bad destination", shorten(text)))?;
    let pt = piece_from_csa(&body[5..7]).ok_or_else(|| format!("'{}': unknown piece", shorten(text)))?;
    let m = if &b[1..3] == b"00" {
        if !PieceType::HAND.contains(&pt) {
            return Err(format!("'{}': that piece cannot be dropped", shorten(text)));
        }
        Move::drop(pt, to)
    } else {
        let from =
            square_from_digits(b[1], b[2]).ok_or_else(|| format!("'{}': bad origin", shorten(text)))?;
        let on_from = pos
            .piece_on(from)
            .filter(|p| p.color() == color)
            .ok_or_else(|| format!("'{}': no own piece on the origin", shorten(text)))?
            .piece_type();
        let promote = if pt == on_from {
            false
        } else if on_from.can_promote() && pt == on_from.promote() {
            true
        } else {
            return Err(format!("'{}': the piece on the origin is {}", shorten(text), piece_to_csa(on_from)));
        };
        if from == to {
            return Err(format!("'{}' does not move", shorten(text)));
        }
        Move::normal(from, to, promote)
    };
    // All legal moves, the needless non-promotions included: the opponent may play them.
    if !MoveList::legal(pos, true).contains(m) {
        return Err(format!("'{}' is illegal in the position", shorten(text)));
    }
    Ok(m)
}

/// The CSA spelling of a legal move `m` of the side to move of `pos`.
pub fn move_to_csa(pos: &Position, m: Move) -> String {
    let sign = color_sign(pos.side_to_move());
    match m.kind() {
        MoveKind::Drop { piece, to } => format!("{sign}00{}{}", square_digits(to), piece_to_csa(piece)),
        MoveKind::Normal { from, to, .. } => {
            let pt = pos.moved_piece_after(m).piece_type();
            format!("{sign}{}{}{}", square_digits(from), square_digits(to), piece_to_csa(pt))
        }
    }
}

/// Floodgate's evaluation comment, `'* <score> <pv>`: the score in centipawns from black's side
/// (a mate as +-100000 less its distance), the PV in CSA moves from `pos`. Moves of the PV that
/// are not legal (a PV cut by a stop can end oddly) end it.
pub fn eval_comment(pos: &Position, score: Score, pv: &[Move]) -> String {
    let ours = match score {
        Score::Cp(v) => v,
        Score::Mate(n) if n >= 0 => 100_000 - n,
        Score::Mate(n) => -100_000 - n,
    };
    let black = if pos.side_to_move() == Color::Black { ours } else { -ours };
    let mut text = format!("'* {black}");
    let mut p = pos.clone();
    for &m in pv {
        if !p.is_legal_move(m) {
            break;
        }
        text.push(' ');
        text.push_str(&move_to_csa(&p, m));
        p.do_move(m);
    }
    text
}

/// At most 40 characters of bad input, for messages.
pub fn shorten(text: &str) -> String {
    let mut s: String = text.chars().take(40).collect();
    if s.len() < text.len() {
        s.push_str("...");
    }
    s
}

/// The position of a `Game_Summary`'s position block, before the moves it lists: from `P1`..`P9`
/// rows, or `PI` (the even game, optionally with pieces taken off: `PI82HI22KA`), with `P+`/`P-`
/// lines adding pieces in hand (`P+00KA00FU`; `00AL`, the rest of the pieces, is accepted too)
/// and a line `+` or `-` naming the side to move.
#[derive(Default)]
pub struct PositionBlock {
    board: [[Option<(Color, PieceType)>; 9]; 9],
    rows_seen: [bool; 9],
    hands: [[u32; 8]; 2],
    side: Option<Color>,
    even: bool,
    rest_to: Option<Color>,
}

impl PositionBlock {
    /// Reads one line of the block (not the moves, not `BEGIN`/`END`).
    pub fn line(&mut self, line: &str) -> Result<(), String> {
        let bad = |why: &str| format!("position line '{}': {why}", shorten(line));
        if line == "+" || line == "-" {
            self.side = color_from_sign(line.chars().next().unwrap_or('+'));
            return Ok(());
        }
        if let Some(rest) = line.strip_prefix("PI") {
            self.even = true;
            self.board = even_board();
            self.rows_seen = [true; 9];
            for chunk in chunks(rest, 4).map_err(|e| bad(&e))? {
                let sq = square_from_digits(chunk.as_bytes()[0], chunk.as_bytes()[1])
                    .ok_or_else(|| bad("bad square"))?;
                let pt = piece_from_csa(&chunk[2..4]).ok_or_else(|| bad("unknown piece"))?;
                let cell = &mut self.board[sq.rank() as usize][sq.file() as usize];
                if cell.map(|(_, p)| p) != Some(pt) {
                    return Err(bad("no such piece there to take off"));
                }
                *cell = None;
            }
            return Ok(());
        }
        if let Some(rest) = line
            .strip_prefix("P+")
            .map(|r| (Color::Black, r))
            .or(line.strip_prefix("P-").map(|r| (Color::White, r)))
        {
            let (color, rest) = rest;
            for chunk in chunks(rest, 4).map_err(|e| bad(&e))? {
                if &chunk[2..4] == "AL" {
                    self.rest_to = Some(color);
                    continue;
                }
                let pt = piece_from_csa(&chunk[2..4]).ok_or_else(|| bad("unknown piece"))?;
                if &chunk[0..2] == "00" {
                    if !PieceType::HAND.contains(&pt) {
                        return Err(bad("that piece cannot be in hand"));
                    }
                    self.hands[color.index()][pt as usize] += 1;
                } else {
                    let sq = square_from_digits(chunk.as_bytes()[0], chunk.as_bytes()[1])
                        .ok_or_else(|| bad("bad square"))?;
                    self.board[sq.rank() as usize][sq.file() as usize] = Some((color, pt));
                }
            }
            return Ok(());
        }
        let b = line.as_bytes();
        if b.len() >= 2 && b[0] == b'P' && (b'1'..=b'9').contains(&b[1]) {
            let rank = (b[1] - b'1') as usize;
            let cells = &line[2..];
            if cells.len() < 27 || !cells.is_ascii() {
                return Err(bad("a row has nine cells of three characters"));
            }
            for i in 0..9 {
                let cell = &cells[i * 3..i * 3 + 3];
                // Cell i is file 9 - i.
                let file = 8 - i;
                self.board[rank][file] = if cell.trim() == "*" {
                    None
                } else {
                    let color = color_from_sign(cell.as_bytes()[0] as char).ok_or_else(|| bad("bad cell"))?;
                    Some((color, piece_from_csa(&cell[1..3]).ok_or_else(|| bad("unknown piece"))?))
                };
            }
            self.rows_seen[rank] = true;
            return Ok(());
        }
        Err(bad("not a position line"))
    }

    /// The position the block describes, checked as any SFEN is.
    pub fn position(&self) -> Result<Position, String> {
        if !self.even && self.rows_seen.iter().any(|&s| !s) && self.rows_seen.iter().any(|&s| s) {
            return Err("the position block lacks some of the rows P1..P9".to_string());
        }
        let side = self.side.ok_or("the position block does not say who moves (+ or -)")?;
        let mut hands = self.hands;
        if let Some(color) = self.rest_to {
            // Every piece not on the board or in a hand goes to `color`'s hand.
            let full: [u32; 8] = [0, 18, 4, 4, 4, 2, 2, 4];
            for (i, &n) in full.iter().enumerate().skip(1) {
                let Some(pt) = PieceType::from_u8(i as u8) else { continue };
                let on_board: u32 = self
                    .board
                    .iter()
                    .flatten()
                    .flatten()
                    .filter(|(_, p)| (if p.is_promoted() { p.unpromote() } else { *p }) == pt)
                    .count() as u32;
                let held = hands[0][i] + hands[1][i];
                hands[color.index()][i] += n.saturating_sub(on_board + held);
            }
        }
        let mut sfen = String::new();
        for (rank, row) in self.board.iter().enumerate() {
            let mut empty = 0;
            for file in (0..9).rev() {
                match row[file] {
                    None => empty += 1,
                    Some((color, pt)) => {
                        if empty > 0 {
                            sfen.push_str(&empty.to_string());
                            empty = 0;
                        }
                        let letter = crate::types::Piece::new(color, pt).sfen();
                        sfen.push_str(&letter);
                    }
                }
            }
            if empty > 0 {
                sfen.push_str(&empty.to_string());
            }
            if rank < 8 {
                sfen.push('/');
            }
        }
        sfen.push_str(if side == Color::Black { " b " } else { " w " });
        let mut hand = String::new();
        for color in Color::ALL {
            for pt in crate::position::SFEN_HAND_ORDER {
                let n = hands[color.index()][pt as usize];
                if n > 0 {
                    if n > 1 {
                        hand.push_str(&n.to_string());
                    }
                    hand.push_str(&crate::types::Piece::new(color, pt).sfen());
                }
            }
        }
        sfen.push_str(if hand.is_empty() { "-" } else { &hand });
        sfen.push_str(" 1");
        Position::from_sfen(&sfen).map_err(|e| format!("the position block is not a legal position: {e}"))
    }
}

/// The position as a CSA position block: rows `P1`..`P9`, the hands (`P+00KI00FU`, `P-`) and
/// the side to move.
pub fn position_lines(pos: &Position) -> Vec<String> {
    let mut lines = Vec::new();
    for rank in 0..9u8 {
        let mut row = format!("P{}", rank + 1);
        for file in (0..9u8).rev() {
            let sq = Square::new(file, rank).expect("on the board");
            match pos.piece_on(sq) {
                None => row.push_str(" * "),
                Some(p) => {
                    row.push(color_sign(p.color()));
                    row.push_str(piece_to_csa(p.piece_type()));
                }
            }
        }
        lines.push(row);
    }
    for color in Color::ALL {
        let mut line = format!("P{}", color_sign(color));
        for pt in PieceType::HAND.iter().rev() {
            for _ in 0..pos.hand(color).count(*pt) {
                line.push_str("00");
                line.push_str(piece_to_csa(*pt));
            }
        }
        lines.push(line);
    }
    lines.push(color_sign(pos.side_to_move()).to_string());
    lines
}

/// `text` cut into pieces of `n` characters.
fn chunks(text: &str, n: usize) -> Result<Vec<&str>, String> {
    if !text.is_ascii() || !text.len().is_multiple_of(n) {
        return Err(format!("expected groups of {n} characters"));
    }
    Ok((0..text.len() / n).map(|i| &text[i * n..i * n + n]).collect())
}

/// The even game's board, indexed `[rank][file]` (0-based, file 0 is file 1).
fn even_board() -> [[Option<(Color, PieceType)>; 9]; 9] {
    let mut board = [[None; 9]; 9];
    let pos = Position::startpos();
    for sq in Square::ALL {
        board[sq.rank() as usize][sq.file() as usize] = pos.piece_on(sq).map(|p| (p.color(), p.piece_type()));
    }
    board
}

/// The even game's board rows in CSA notation, for the readers' tests.
#[cfg(test)]
pub(crate) const EVEN_ROWS: [&str; 9] = [
    "P1-KY-KE-GI-KI-OU-KI-GI-KE-KY",
    "P2 * -HI *  *  *  *  * -KA * ",
    "P3-FU-FU-FU-FU-FU-FU-FU-FU-FU",
    "P4 *  *  *  *  *  *  *  *  * ",
    "P5 *  *  *  *  *  *  *  *  * ",
    "P6 *  *  *  *  *  *  *  *  * ",
    "P7+FU+FU+FU+FU+FU+FU+FU+FU+FU",
    "P8 * +KA *  *  *  *  * +HI * ",
    "P9+KY+KE+GI+KI+OU+KI+GI+KE+KY",
];

#[cfg(test)]
mod tests {
    use super::*;

    fn block(lines: &[&str]) -> Result<Position, String> {
        let mut b = PositionBlock::default();
        for l in lines {
            b.line(l)?;
        }
        b.position()
    }

    #[test]
    fn the_even_game_in_rows_and_as_pi() {
        let mut lines = EVEN_ROWS.to_vec();
        lines.extend(["P+", "P-", "+"]);
        assert_eq!(block(&lines).unwrap().to_sfen(), Position::startpos().to_sfen());
        assert_eq!(block(&["PI", "+"]).unwrap().to_sfen(), Position::startpos().to_sfen());
        // A rook-and-bishop handicap: white gives them and moves first.
        let p = block(&["PI82HI22KA", "-"]).unwrap();
        assert_eq!(p.to_sfen(), "lnsgkgsnl/9/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL w - 1");
        assert!(block(&["PI55FU", "+"]).is_err(), "no pawn on 5e to take off");
        assert!(block(&["PI"]).is_err(), "the side to move is missing");
        // Written and read back.
        let lines = position_lines(&p);
        assert_eq!(lines[1], "P2 *  *  *  *  *  *  *  *  * ");
        let refs: Vec<&str> = lines.iter().map(String::as_str).collect();
        assert_eq!(block(&refs).unwrap().to_sfen(), p.to_sfen());
    }

    #[test]
    fn hands_and_a_mid_game_position() {
        let p = block(&[
            "P1 *  *  *  *  *  *  *  * -OU",
            "P2 *  *  *  *  *  *  *  *  * ",
            "P3 *  *  *  *  *  *  *  *  * ",
            "P4 *  *  *  *  *  *  *  *  * ",
            "P5 *  *  *  *  *  *  *  *  * ",
            "P6 *  *  *  *  *  *  *  *  * ",
            "P7 *  *  *  *  *  *  *  *  * ",
            "P8 *  *  *  *  *  *  *  *  * ",
            "P9+OU *  *  *  *  *  *  *  * ",
            "P+00KI00KI00FU",
            "P-00HI",
            "-",
        ])
        .unwrap();
        assert_eq!(p.to_sfen(), "8k/9/9/9/9/9/9/9/K8 w 2GPr 1");
        let lines = position_lines(&p);
        assert_eq!(lines[9..], ["P+00KI00KI00FU".to_string(), "P-00HI".to_string(), "-".to_string()]);
        // 00AL: the rest of the pieces.
        let p = block(&["P+59OU", "P-51OU", "P+00AL", "+"]).unwrap();
        assert_eq!(p.hand(Color::Black).count(PieceType::Pawn), 18);
        assert_eq!(p.hand(Color::Black).count(PieceType::Rook), 2);
        assert!(block(&["P1 * ", "+"]).is_err());
        assert!(block(&["P+00OU", "+"]).is_err());
        assert!(block(&["PZ", "+"]).is_err());
        assert!(block(&[EVEN_ROWS[0], "+"]).is_err(), "eight rows missing");
    }

    #[test]
    fn moves_both_ways() {
        let mut pos = Position::startpos();
        for (csa, usi) in [
            ("+7776FU", "7g7f"),
            ("-3334FU,T3", "3c3d"),
            ("+8822UM", "8h2b+"),
            ("-3122GI", "3a2b"),
            ("+0045KA", "B*4e"),
        ] {
            let m = move_from_csa(&pos, csa).unwrap_or_else(|e| panic!("{csa}: {e}"));
            assert_eq!(m.to_usi(), usi);
            assert_eq!(move_to_csa(&pos, m), csa.split(',').next().unwrap());
            pos.do_move(m);
        }
        let pos = Position::startpos();
        for bad in
            ["-3334FU", "+7775FU", "+7776TO", "+0055KA", "+7776", "7776FU", "+7776XX", "+7777FU", "+9999FU"]
        {
            assert!(move_from_csa(&pos, bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn the_eval_comment_is_from_blacks_side() {
        let mut pos = Position::startpos();
        let m = Move::from_usi("7g7f").unwrap();
        let reply = Move::from_usi("3c3d").unwrap();
        assert_eq!(eval_comment(&pos, Score::Cp(42), &[m, reply]), "'* 42 +7776FU -3334FU");
        pos.do_move(m);
        assert_eq!(eval_comment(&pos, Score::Cp(42), &[reply]), "'* -42 -3334FU");
        assert_eq!(eval_comment(&pos, Score::Mate(3), &[]), "'* -99997");
        // An illegal PV move ends the PV.
        assert_eq!(eval_comment(&pos, Score::Cp(0), &[reply, reply]), "'* 0 -3334FU");
    }
}
