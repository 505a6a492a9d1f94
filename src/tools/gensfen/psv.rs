//! YaneuraOu's training record, `PackedSfenValue`: 40 bytes a position, little-endian.
//!
//! ```text
//!  offset size  field
//!       0   32  sfen         the packed position (see `position::PackedSfen`)
//!      32    2  score        i16, the search score for the side to move
//!      34    2  move         u16, the best move in YaneuraOu's 16-bit encoding (below)
//!      36    2  gamePly      u16, the position's move number (1 at the start of a game)
//!      38    1  game_result  i8, for the side to move: 1 win, 0 draw, -1 loss
//!      39    1  padding      0
//! ```
//!
//! YaneuraOu's 16-bit move: bits 0..=6 the destination square, bits 7..=13 the origin square (for
//! a drop, the dropped kind: pawn 1, lance 2, knight 3, silver 4, bishop 5, rook 6, gold 7), bit 14
//! the drop flag, bit 15 the promotion flag. Squares and kinds are numbered as in Hayate; only the
//! two flag bits are the other way round from [`Move::bits`].

use crate::position::{PackedSfen, Position};
use crate::types::Move;

/// Size of one record in bytes.
pub const PSV_SIZE: usize = 40;

/// One training record.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct PackedSfenValue {
    pub sfen: PackedSfen,
    pub score: i16,
    /// YaneuraOu's 16-bit move (see [`to_move16`]).
    pub move16: u16,
    pub game_ply: u16,
    /// 1 win, 0 draw, -1 loss, for the side to move.
    pub game_result: i8,
}

/// Swaps bits 14 and 15 (Hayate: drop 15, promote 14; YaneuraOu: drop 14, promote 15).
fn swap_flags(bits: u16) -> u16 {
    (bits & 0x3fff) | ((bits >> 1) & 0x4000) | ((bits << 1) & 0x8000)
}

/// A move in YaneuraOu's 16-bit encoding.
pub fn to_move16(m: Move) -> u16 {
    swap_flags(m.bits())
}

/// The move a YaneuraOu 16-bit move describes, if it is well formed (not none, null, resign or
/// win, squares on the board, a hand kind for a drop, no promoting drop).
pub fn from_move16(bits: u16) -> Option<Move> {
    Move::from_bits(swap_flags(bits))
}

impl PackedSfenValue {
    pub fn to_bytes(&self) -> [u8; PSV_SIZE] {
        let mut b = [0u8; PSV_SIZE];
        b[..32].copy_from_slice(&self.sfen.0);
        b[32..34].copy_from_slice(&self.score.to_le_bytes());
        b[34..36].copy_from_slice(&self.move16.to_le_bytes());
        b[36..38].copy_from_slice(&self.game_ply.to_le_bytes());
        b[38] = self.game_result as u8;
        b
    }

    /// Reads a record; the padding byte is ignored, as YaneuraOu does.
    pub fn from_bytes(b: &[u8; PSV_SIZE]) -> PackedSfenValue {
        let mut sfen = [0u8; 32];
        sfen.copy_from_slice(&b[..32]);
        PackedSfenValue {
            sfen: PackedSfen(sfen),
            score: i16::from_le_bytes([b[32], b[33]]),
            move16: u16::from_le_bytes([b[34], b[35]]),
            game_ply: u16::from_le_bytes([b[36], b[37]]),
            game_result: b[38] as i8,
        }
    }

    /// The position and move of the record, checked: the position must be legal and the move
    /// legal in it.
    pub fn position_and_move(&self) -> Result<(Position, Move), String> {
        let pos = Position::from_packed(&self.sfen, self.game_ply as u32).map_err(|e| e.to_string())?;
        let m = from_move16(self.move16)
            .filter(|&m| pos.is_legal_move(m))
            .ok_or_else(|| format!("move {:#06x} is not legal in {}", self.move16, pos.to_sfen()))?;
        Ok((pos, m))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::position::MoveList;

    #[test]
    fn move16_matches_yaneuraou_and_round_trips() {
        // 7g7f: from 7g (60), to 7f (59): 59 + (60 << 7).
        assert_eq!(to_move16(Move::from_usi("7g7f").unwrap()), 59 + (60 << 7));
        // 8h2b+: to 2b (10), from 8h (70), promotion bit 15.
        assert_eq!(to_move16(Move::from_usi("8h2b+").unwrap()), 10 + (70 << 7) + (1 << 15));
        // G*5e: to 5e (40), gold 7, drop bit 14.
        assert_eq!(to_move16(Move::from_usi("G*5e").unwrap()), 40 + (7 << 7) + (1 << 14));
        for special in [0u16, (1 << 7) + 1, (2 << 7) + 2, (3 << 7) + 3, 0xffff] {
            assert_eq!(from_move16(special), None, "{special:#x}");
        }
        let pos = Position::from_sfen(
            "8l/1l+R2P3/p2pBG1pp/kps1p4/Nn1P2G2/P1P1P2PP/1PS6/1KSG3+r1/LN2+p3L w Sbgn3p 124",
        )
        .unwrap();
        for &m in MoveList::legal(&pos, true).iter() {
            assert_eq!(from_move16(to_move16(m)), Some(m));
        }
    }

    #[test]
    fn records_round_trip_through_bytes() {
        let pos = Position::startpos();
        let r = PackedSfenValue {
            sfen: pos.to_packed().unwrap(),
            score: -123,
            move16: to_move16(Move::from_usi("2g2f").unwrap()),
            game_ply: 1,
            game_result: -1,
        };
        let b = r.to_bytes();
        assert_eq!(b[39], 0);
        assert_eq!(PackedSfenValue::from_bytes(&b), r);
        let (p, m) = r.position_and_move().unwrap();
        assert_eq!(p.to_sfen(), pos.to_sfen());
        assert_eq!(m.to_usi(), "2g2f");
        let bad = PackedSfenValue { move16: to_move16(Move::from_usi("2g2e").unwrap()), ..r };
        assert!(bad.position_and_move().is_err());
    }
}
