//! BonaPieces: how each side sees every piece (board square or hand count), and what a move
//! changes in them. Every feature set of the family ([`super::features`]) is built on these.
//!
//! Each perspective (black, white) sees the board from its own side: black's view uses squares as
//! they are; white's view rotates the board (`sq -> 80 - sq`) and swaps own and enemy. A
//! BonaPiece (below 1710) names one piece as the perspective sees it:
//!
//! ```text
//!  0              unused slot (a piece missing from a handicap position)
//!  1 ..= 89       pieces in hand: the k-th held piece (k = 1, 2, ...) of a kind is `start + k - 1`
//!                 own/enemy starts: pawn 1/20, lance 39/44, knight 49/54, silver 59/64,
//!                                   gold 69/74, bishop 79/82, rook 85/88
//!  90 ..= 1547    pieces on the board: `base + sq` (own) or `base + 81 + sq` (enemy), with bases
//!                 pawn 90, lance 252, knight 414, silver 576, gold 738 (also the promoted pawn,
//!                 lance, knight and silver), bishop 900, horse 1062, rook 1224, dragon 1386
//!  1548 ..= 1628  the own king (`f_king + sq`)
//!  1629 ..= 1709  the enemy king (`e_king + sq`)
//! ```
//!
//! A game always has 38 non-king pieces; a handicap position has fewer, and each missing one
//! is BonaPiece 0, as YaneuraOu's fixed 38-slot piece list has it. The number of missing pieces
//! never changes during a game, so moves never touch those slots.

use super::FE_END;
use crate::position::Position;
use crate::types::{Color, Move, MoveKind, Piece, PieceType, Square};

/// Non-king pieces in a game.
pub const PIECES: usize = 38;
/// First BonaPiece of the own king's plane (`f_king`).
pub const F_KING: u16 = FE_END as u16;
/// First BonaPiece of the enemy king's plane (`e_king`).
pub const E_KING: u16 = F_KING + 81;

/// Board base of each piece kind, indexed by `PieceType` number (0 and king unused).
const BOARD_BASE: [u16; PieceType::NUM] = [
    0,    // (none)
    90,   // pawn
    252,  // lance
    414,  // knight
    576,  // silver
    900,  // bishop
    1224, // rook
    738,  // gold
    0,    // king: planes of its own (F_KING, E_KING)
    738,  // promoted pawn moves and counts as a gold
    738,  // promoted lance
    738,  // promoted knight
    738,  // promoted silver
    1062, // horse
    1386, // dragon
];

/// Hand start of each hand kind, `[own, enemy]`, indexed by `PieceType` number (pawn .. gold).
const HAND_START: [[u16; 2]; 8] = [
    [0, 0],   // (none)
    [1, 20],  // pawn
    [39, 44], // lance
    [49, 54], // knight
    [59, 64], // silver
    [79, 82], // bishop
    [85, 88], // rook
    [69, 74], // gold
];

/// The square as `perspective` sees it: unchanged for black, rotated by 180 degrees for white.
#[inline(always)]
pub fn orient(perspective: Color, sq: Square) -> usize {
    match perspective {
        Color::Black => sq.index(),
        Color::White => 80 - sq.index(),
    }
}

/// BonaPiece of piece `pc` on `sq` (a king too), seen from `perspective`.
#[inline(always)]
pub fn board_piece(perspective: Color, pc: Piece, sq: Square) -> u16 {
    let enemy = pc.color() != perspective;
    let s = orient(perspective, sq) as u16;
    if pc.piece_type() == PieceType::King {
        return if enemy { E_KING } else { F_KING } + s;
    }
    BOARD_BASE[pc.piece_type().index()] + if enemy { 81 } else { 0 } + s
}

/// BonaPiece of the `k`-th (1-based) piece of kind `pt` (pawn .. gold) in `owner`'s hand, seen
/// from `perspective`. Composed positions with more pieces of a kind than a game has (SFEN read
/// with `PieceLimits::Extended`) spill into the next kind's numbers: meaningless, but in range.
#[inline(always)]
pub fn hand_piece(perspective: Color, owner: Color, pt: PieceType, k: u32) -> u16 {
    debug_assert!(k >= 1);
    let side = (owner != perspective) as usize;
    HAND_START[pt.index()][side] + (k as u16).saturating_sub(1)
}

/// Most BonaPieces a perspective lists: 38 in any real game; composed positions read with
/// `PieceLimits::Extended` hold at most 31 pawns, 7 each of lance, knight, silver, gold and 3
/// each of bishop and rook (65 pieces). Anything beyond is ignored.
pub const MAX_PIECES: usize = 72;

/// The kings of `pos` as `perspective` sees them: its own king's square (oriented) and the
/// BonaPieces of the own and the enemy king; `None` without both kings.
#[inline]
pub fn kings(pos: &Position, perspective: Color) -> Option<(usize, [u16; 2])> {
    let own = pos.king_square(perspective)?;
    let enemy = pos.king_square(!perspective)?;
    let bps = [
        board_piece(perspective, Piece::new(perspective, PieceType::King), own),
        board_piece(perspective, Piece::new(!perspective, PieceType::King), enemy),
    ];
    Some((orient(perspective, own), bps))
}

/// Calls `f` with the BonaPiece of every non-king piece of `pos` as `perspective` sees it, then
/// with BonaPiece 0 for each piece missing from the 38 of a game (handicap positions); at most
/// [`MAX_PIECES`] calls.
#[inline(always)]
pub fn for_each_piece(pos: &Position, perspective: Color, mut f: impl FnMut(u16)) {
    let mut n = 0;
    let mut push = |bp: u16| {
        if n < MAX_PIECES {
            f(bp);
            n += 1;
        }
    };
    let board = pos.occupied().and_not(pos.pieces_of(PieceType::King));
    for sq in board {
        if let Some(pc) = pos.piece_on(sq) {
            push(board_piece(perspective, pc, sq));
        }
    }
    for owner in Color::ALL {
        let hand = pos.hand(owner);
        for pt in PieceType::HAND {
            for k in 1..=hand.count(pt) {
                push(hand_piece(perspective, owner, pt, k));
            }
        }
    }
    for _ in n..PIECES {
        f(0);
    }
}

/// One piece's BonaPiece before and after a move, as each side sees it (`[black, white]`).
#[derive(Clone, Copy, Default, Debug, PartialEq, Eq)]
pub struct Change {
    pub old: [u16; 2],
    pub new: [u16; 2],
}

/// What one move changes, for both perspectives at once: at most two non-king pieces (the
/// moving piece from its square to its destination, a captured piece from the board to the
/// mover's hand; or a dropped piece from hand to board), and the mover's king when it moves.
#[derive(Clone, Copy, Default, Debug, PartialEq, Eq)]
pub struct FeatureDelta {
    pub changes: [Change; 2],
    pub n: u8,
    /// The king that moved (its colour's index plus one; 0: no king move).
    king_moved: u8,
    /// The king's own change when one moved.
    pub king: Change,
}

impl FeatureDelta {
    /// No change (a null move).
    pub const NONE: FeatureDelta = FeatureDelta {
        changes: [Change { old: [0; 2], new: [0; 2] }; 2],
        n: 0,
        king_moved: 0,
        king: Change { old: [0; 2], new: [0; 2] },
    };

    /// The non-king pieces that changed.
    #[inline(always)]
    pub fn changes(&self) -> &[Change] {
        &self.changes[..self.n as usize]
    }

    /// Whose king moved, if one did.
    #[inline(always)]
    pub fn king_moved(&self) -> Option<Color> {
        match self.king_moved {
            1 => Some(Color::Black),
            2 => Some(Color::White),
            _ => None,
        }
    }

    #[inline(always)]
    fn push(&mut self, old: [u16; 2], new: [u16; 2]) {
        self.changes[self.n as usize] = Change { old, new };
        self.n += 1;
    }

    /// The changes `m` makes, computed from `before`, the position the move is made in.
    #[inline]
    pub fn of_move(before: &Position, m: Move) -> FeatureDelta {
        let board =
            |pc: Piece, sq: Square| [board_piece(Color::Black, pc, sq), board_piece(Color::White, pc, sq)];
        let hand = |owner: Color, pt: PieceType, k: u32| {
            [hand_piece(Color::Black, owner, pt, k), hand_piece(Color::White, owner, pt, k)]
        };
        let us = before.side_to_move();
        let mut d = FeatureDelta::NONE;
        match m.kind() {
            MoveKind::Drop { piece, to } => {
                // The last of the held pieces of that kind leaves the hand.
                let n = before.hand(us).count(piece);
                d.push(hand(us, piece, n), board(Piece::new(us, piece), to));
            }
            MoveKind::Normal { from, to, promote } => {
                let Some(pc) = before.piece_on(from) else {
                    return d; // not a move of this position; nothing sensible to record
                };
                if let Some(cap) = before.piece_on(to) {
                    let raw = cap.piece_type().unpromote();
                    // It becomes the (n + 1)-th held piece of its kind.
                    d.push(board(cap, to), hand(us, raw, before.hand(us).count(raw) + 1));
                }
                if pc.piece_type() == PieceType::King {
                    d.king_moved = us.index() as u8 + 1;
                    d.king = Change { old: board(pc, from), new: board(pc, to) };
                } else {
                    let after = if promote { Piece::new(us, pc.piece_type().promote()) } else { pc };
                    d.push(board(pc, from), board(after, to));
                }
            }
        }
        d
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbering_matches_the_spec() {
        let b = Piece::new(Color::Black, PieceType::Pawn);
        let sq77 = Square::from_usi("7g").unwrap();
        assert_eq!(board_piece(Color::Black, b, sq77), 90 + 60);
        assert_eq!(board_piece(Color::White, b, sq77), 90 + 81 + 20);
        let d = Piece::new(Color::White, PieceType::Dragon);
        assert_eq!(board_piece(Color::White, d, Square::Sq11), 1386 + 80);
        assert_eq!(board_piece(Color::Black, d, Square::Sq11), 1386 + 81);
        let pp = Piece::new(Color::Black, PieceType::ProPawn);
        assert_eq!(board_piece(Color::Black, pp, Square::Sq11), 738);
        let k = Piece::new(Color::White, PieceType::King);
        let sq51 = Square::from_usi("5a").unwrap();
        assert_eq!(board_piece(Color::White, k, sq51), F_KING + 80 - 36);
        assert_eq!(board_piece(Color::Black, k, sq51), E_KING + 36);
        assert_eq!(hand_piece(Color::Black, Color::Black, PieceType::Pawn, 1), 1);
        assert_eq!(hand_piece(Color::White, Color::Black, PieceType::Pawn, 18), 37);
        assert_eq!(hand_piece(Color::White, Color::White, PieceType::Rook, 2), 86);
        assert_eq!(hand_piece(Color::Black, Color::White, PieceType::Gold, 4), 77);
    }

    fn pieces(pos: &Position, c: Color) -> Vec<u16> {
        let mut v = Vec::new();
        for_each_piece(pos, c, |bp| v.push(bp));
        v
    }

    #[test]
    fn startpos_lists_38_pieces_per_side() {
        let pos = Position::startpos();
        for c in Color::ALL {
            let mut a = pieces(&pos, c);
            assert_eq!(a.len(), PIECES);
            // The start position is symmetric: both sides see the same set.
            let mut b = pieces(&pos, !c);
            a.sort_unstable();
            b.sort_unstable();
            assert_eq!(a, b);
            assert_eq!(kings(&pos, c), Some((4 * 9 + 8, [F_KING + 4 * 9 + 8, E_KING + 4 * 9])));
        }
    }

    #[test]
    fn handicap_pads_with_bona_piece_zero() {
        // Two-piece handicap: white has no rook or bishop.
        let pos = Position::from_sfen("lnsgkgsnl/9/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL w - 1").unwrap();
        let l = pieces(&pos, Color::White);
        let zeros = l.iter().filter(|&&bp| bp == 0).count();
        assert_eq!((l.len(), zeros), (PIECES, 2));
    }

    #[test]
    fn king_moves_are_recorded_apart() {
        let pos = Position::from_sfen("4k4/9/9/9/9/9/9/9/4K4 b P 1").unwrap();
        let m = Move::from_usi("5i5h").unwrap();
        let d = FeatureDelta::of_move(&pos, m);
        assert_eq!((d.n, d.king_moved()), (0, Some(Color::Black)));
        assert_eq!(d.king.old[0], F_KING + 4 * 9 + 8);
        assert_eq!(d.king.new[1], E_KING + 80 - (4 * 9 + 7));
    }
}
