//! Zobrist keys, fixed at compile time (splitmix64 from a constant seed, so keys, and with them
//! `bench` node counts, are identical on every build).
//!
//! A position's key is `board ^ hand`: the board part xors one key per (piece, square) and the
//! side-to-move key when white is to move; the hand part *adds* one key per piece held
//! (`count * HAND[c][kind]`), so taking a piece into hand or dropping it is one addition or
//! subtraction. Board keys keep bit 0 clear and the side key is 1, so bit 0 of the key tells the side
//! to move.

use crate::splitmix;
use crate::types::{Color, Piece, PieceType, Square};

struct Keys {
    psq: [[u64; 81]; Piece::NUM],
    hand: [[u64; PieceType::NUM]; 2],
}

const fn build() -> Keys {
    let mut k = Keys { psq: [[0; 81]; Piece::NUM], hand: [[0; PieceType::NUM]; 2] };
    let mut s = 0x4841_5941_5445_u64; // "HAYATE"
    let mut p = 0;
    while p < Piece::NUM {
        let mut sq = 0;
        while sq < 81 {
            let (ns, v) = splitmix::step(s);
            s = ns;
            k.psq[p][sq] = v & !1;
            sq += 1;
        }
        p += 1;
    }
    let mut c = 0;
    while c < 2 {
        let mut pt = 0;
        while pt < PieceType::NUM {
            let (ns, v) = splitmix::step(s);
            s = ns;
            k.hand[c][pt] = v & !1;
            pt += 1;
        }
        c += 1;
    }
    k
}

static KEYS: Keys = build();

/// Key of white to move.
pub const SIDE: u64 = 1;

#[inline(always)]
pub fn psq(pc: Piece, sq: Square) -> u64 {
    KEYS.psq[pc.index()][sq.index()]
}

/// The amount one held piece of kind `pt` adds to colour `c`'s hand key.
#[inline(always)]
pub fn hand(c: Color, pt: PieceType) -> u64 {
    KEYS.hand[c.index()][pt.index()]
}
