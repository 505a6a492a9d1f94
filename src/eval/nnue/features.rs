//! HalfKP features: BonaPiece numbering, feature indices, the active list of a position, and the
//! feature changes a move causes.
//!
//! Each perspective (black, white) sees the board from its own side: black's view uses squares as
//! they are; white's view rotates the board (`sq -> 80 - sq`) and swaps own and enemy. A feature is
//! `king * 1548 + bona_piece`, where `king` is the perspective's own king square in that view and
//! `bona_piece` (below 1548) names one non-king piece as the perspective sees it:
//!
//! ```text
//!  0           unused slot (a piece missing from a handicap position)
//!  1 ..= 89    pieces in hand: the k-th held piece (k = 1, 2, ...) of a kind is `start + k - 1`
//!              own/enemy starts: pawn 1/20, lance 39/44, knight 49/54, silver 59/64,
//!                                gold 69/74, bishop 79/82, rook 85/88
//!  90 ..= 1547 pieces on the board: `base + sq` (own) or `base + 81 + sq` (enemy), with bases
//!              pawn 90, lance 252, knight 414, silver 576, gold 738 (also the promoted pawn,
//!              lance, knight and silver), bishop 900, horse 1062, rook 1224, dragon 1386
//! ```
//!
//! A game always has 38 non-king pieces, so every perspective has 38 active features; a handicap
//! position has fewer pieces and each missing one contributes BonaPiece 0 (row `king * 1548`), as
//! YaneuraOu's fixed 38-slot piece list does. The number of missing pieces never changes during a
//! game, so moves never touch those rows.
//!
//! Composed positions with more pieces of a kind than a game has (SFEN read with
//! `PieceLimits::Extended`) are still indexed in range: an extra hand piece spills into the next
//! kind's hand numbers. The value is then meaningless, but nothing panics.

use super::FE_END;
use crate::position::Position;
use crate::types::{Color, Move, MoveKind, Piece, PieceType, Square};

/// Non-king pieces in a game: the number of active features per perspective.
pub const PIECES: usize = 38;

/// Most active features a perspective can have: 38 in any real game; composed positions read
/// with `PieceLimits::Extended` hold at most 31 pawns, 7 each of lance, knight, silver, gold and
/// 3 each of bishop and rook (65 pieces). Anything beyond this capacity is ignored.
pub const MAX_ACTIVE: usize = 72;

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
    0,    // king: not a feature
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

/// BonaPiece of a non-king piece `pc` on `sq`, seen from `perspective`.
#[inline(always)]
pub fn board_piece(perspective: Color, pc: Piece, sq: Square) -> u16 {
    let enemy = if pc.color() == perspective { 0 } else { 81 };
    BOARD_BASE[pc.piece_type().index()] + enemy + orient(perspective, sq) as u16
}

/// BonaPiece of the `k`-th (1-based) piece of kind `pt` (pawn .. gold) in `owner`'s hand, seen
/// from `perspective`.
#[inline(always)]
pub fn hand_piece(perspective: Color, owner: Color, pt: PieceType, k: u32) -> u16 {
    debug_assert!(k >= 1);
    let side = (owner != perspective) as usize;
    HAND_START[pt.index()][side] + (k as u16).saturating_sub(1)
}

/// Feature index of BonaPiece `bp` for a perspective whose own king is on `king` (already
/// oriented, see [`orient`]).
#[inline(always)]
pub fn index(king: usize, bp: u16) -> u32 {
    debug_assert!(king < 81 && (bp as usize) < FE_END);
    (king * FE_END) as u32 + bp as u32
}

/// The active features of one perspective (order irrelevant: they are summed).
#[derive(Clone)]
pub struct FeatureList {
    len: usize,
    indices: [u32; MAX_ACTIVE],
}

impl FeatureList {
    fn new() -> FeatureList {
        FeatureList { len: 0, indices: [0; MAX_ACTIVE] }
    }

    #[inline(always)]
    fn push(&mut self, f: u32) {
        if self.len < MAX_ACTIVE {
            self.indices[self.len] = f;
            self.len += 1;
        }
    }

    #[inline(always)]
    pub fn as_slice(&self) -> &[u32] {
        &self.indices[..self.len]
    }
}

/// The active features of `perspective` in `pos`, or `None` when that side has no king (HalfKP is
/// only defined relative to a king).
pub fn active_features(pos: &Position, perspective: Color) -> Option<FeatureList> {
    let king = orient(perspective, pos.king_square(perspective)?);
    let mut list = FeatureList::new();
    let board = pos.occupied().and_not(pos.pieces_of(PieceType::King));
    for sq in board {
        if let Some(pc) = pos.piece_on(sq) {
            list.push(index(king, board_piece(perspective, pc, sq)));
        }
    }
    for owner in Color::ALL {
        let hand = pos.hand(owner);
        for pt in PieceType::HAND {
            for k in 1..=hand.count(pt) {
                list.push(index(king, hand_piece(perspective, owner, pt, k)));
            }
        }
    }
    // Missing pieces (handicap games) each add the row of BonaPiece 0.
    for _ in list.len..PIECES {
        list.push(index(king, 0));
    }
    Some(list)
}

/// What one move changes in the feature sets, for both perspectives at once: at most two
/// BonaPieces leave (the moving piece from its square, a captured piece; or a hand piece that is
/// dropped) and at most two arrive (the piece on its destination, the captured piece in hand).
/// A king move changes the mover's king square, so the mover's perspective must be recomputed
/// from scratch (`refresh`), while the other perspective still takes the incremental changes.
#[derive(Clone, Copy, Default, Debug, PartialEq, Eq)]
pub struct FeatureDelta {
    /// `removed[i][perspective]`: the i-th BonaPiece that leaves, as each side sees it.
    pub removed: [[u16; 2]; 2],
    pub added: [[u16; 2]; 2],
    pub n_removed: u8,
    pub n_added: u8,
    /// `refresh[perspective]`: that side's king moved.
    pub refresh: [bool; 2],
}

impl FeatureDelta {
    /// No change (a null move).
    pub const NONE: FeatureDelta = FeatureDelta {
        removed: [[0; 2]; 2],
        added: [[0; 2]; 2],
        n_removed: 0,
        n_added: 0,
        refresh: [false; 2],
    };

    #[inline(always)]
    fn remove(&mut self, bp: [u16; 2]) {
        self.removed[self.n_removed as usize] = bp;
        self.n_removed += 1;
    }

    #[inline(always)]
    fn add(&mut self, bp: [u16; 2]) {
        self.added[self.n_added as usize] = bp;
        self.n_added += 1;
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
                d.remove(hand(us, piece, n));
                d.add(board(Piece::new(us, piece), to));
            }
            MoveKind::Normal { from, to, promote } => {
                let Some(pc) = before.piece_on(from) else {
                    return d; // not a move of this position; nothing sensible to record
                };
                if let Some(cap) = before.piece_on(to) {
                    let raw = cap.piece_type().unpromote();
                    d.remove(board(cap, to));
                    // It becomes the (n + 1)-th held piece of its kind.
                    d.add(hand(us, raw, before.hand(us).count(raw) + 1));
                }
                if pc.piece_type() == PieceType::King {
                    d.refresh[us.index()] = true;
                } else {
                    let after = if promote { Piece::new(us, pc.piece_type().promote()) } else { pc };
                    d.remove(board(pc, from));
                    d.add(board(after, to));
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
        assert_eq!(hand_piece(Color::Black, Color::Black, PieceType::Pawn, 1), 1);
        assert_eq!(hand_piece(Color::White, Color::Black, PieceType::Pawn, 18), 37);
        assert_eq!(hand_piece(Color::White, Color::White, PieceType::Rook, 2), 86);
        assert_eq!(hand_piece(Color::Black, Color::White, PieceType::Gold, 4), 77);
        assert_eq!(index(80, 1547), 125_387);
    }

    #[test]
    fn startpos_has_38_features_per_side() {
        let pos = Position::startpos();
        for c in Color::ALL {
            let l = active_features(&pos, c).unwrap();
            assert_eq!(l.as_slice().len(), PIECES);
            // The start position is symmetric: both sides see the same set.
            let mut a = l.as_slice().to_vec();
            let mut b = active_features(&pos, !c).unwrap().as_slice().to_vec();
            a.sort_unstable();
            b.sort_unstable();
            assert_eq!(a, b);
        }
    }

    #[test]
    fn handicap_pads_with_bona_piece_zero() {
        // Two-piece handicap: white has no rook or bishop.
        let pos = Position::from_sfen("lnsgkgsnl/9/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL w - 1").unwrap();
        let l = active_features(&pos, Color::White).unwrap();
        let k = orient(Color::White, pos.king_square(Color::White).unwrap());
        let zeros = l.as_slice().iter().filter(|&&f| f == index(k, 0)).count();
        assert_eq!((l.as_slice().len(), zeros), (PIECES, 2));
    }
}
