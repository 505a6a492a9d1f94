//! Structure keys: hashes of parts of the board (the pawns, the minor pieces, each colour's
//! pieces other than pawns) that the search's pawn and correction histories are indexed by.
//!
//! Each key xors one random number per piece of its part, by colour, class and square, so
//! `do_move` keeps them up to date with a few xors instead of the search hashing bitboards at
//! every node. Classes follow what a piece does: the promoted minors count as gold, the horse as
//! a bishop, the dragon as a rook. The minor key sees lance, knight, silver, gold and the
//! promoted minors by colour and square alone. Hands are not part of any key.

use crate::splitmix;
use crate::types::{Piece, PieceType, Square};

/// The structure hashes of one position.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct StructureKeys {
    /// The pawns of both colours.
    pub pawn: u64,
    /// The minor pieces of both colours.
    pub minor: u64,
    /// By colour: its pieces other than pawns (king included).
    pub non_pawn: [u64; 2],
}

/// Classes of the per-square numbers: 0 is the pawn (its number goes to the pawn key), the
/// others go to the colour's non-pawn key.
const CLASSES: usize = 8;
const PAWN_CLASS: usize = 0;

/// By piece kind (index 0 unused): its class.
const CLASS: [usize; PieceType::NUM] = [0, 0, 1, 2, 3, 4, 5, 6, 7, 6, 6, 6, 6, 4, 5];

/// By piece kind: all ones where the kind is a minor piece (lance, knight, silver, gold and the
/// promoted minors).
const MINOR: [u64; PieceType::NUM] = {
    let mut m = [0u64; PieceType::NUM];
    let minors = [2, 3, 4, 7, 9, 10, 11, 12];
    let mut i = 0;
    while i < minors.len() {
        m[minors[i]] = u64::MAX;
        i += 1;
    }
    m
};

struct Numbers {
    class: [[[u64; Square::NUM]; CLASSES]; 2],
    minor: [[u64; Square::NUM]; 2],
}

const fn build() -> Numbers {
    let mut n = Numbers { class: [[[0; Square::NUM]; CLASSES]; 2], minor: [[0; Square::NUM]; 2] };
    let mut s = 0x5354_5255_4354_u64; // "STRUCT"
    let mut c = 0;
    while c < 2 {
        let mut sq = 0;
        while sq < Square::NUM {
            let mut class = 0;
            while class < CLASSES {
                let (ns, v) = splitmix::step(s);
                s = ns;
                n.class[c][class][sq] = v;
                class += 1;
            }
            let (ns, v) = splitmix::step(s);
            s = ns;
            n.minor[c][sq] = v;
            sq += 1;
        }
        c += 1;
    }
    n
}

static NUMBERS: Numbers = build();

impl StructureKeys {
    /// Adds `pc` on `sq` to the keys, or takes it away if it is there.
    #[inline(always)]
    pub fn toggle(&mut self, pc: Piece, sq: Square) {
        let c = pc.color().index();
        let pt = pc.piece_type().index();
        let class = CLASS[pt];
        let v = NUMBERS.class[c][class][sq.index()];
        if class == PAWN_CLASS {
            self.pawn ^= v;
        } else {
            self.non_pawn[c] ^= v;
        }
        self.minor ^= NUMBERS.minor[c][sq.index()] & MINOR[pt];
    }

    /// The keys of the pieces `pieces` yields.
    pub fn of(pieces: impl IntoIterator<Item = (Piece, Square)>) -> StructureKeys {
        let mut k = StructureKeys::default();
        for (pc, sq) in pieces {
            k.toggle(pc, sq);
        }
        k
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::types::Color;

    fn sq(s: &str) -> Square {
        Square::from_usi(s).unwrap()
    }

    #[test]
    fn parts_see_only_their_pieces() {
        let mut k = StructureKeys::default();
        k.toggle(Piece::new(Color::Black, PieceType::Pawn), sq("7g"));
        assert!(k.pawn != 0 && k.minor == 0 && k.non_pawn == [0, 0]);
        let mut k = StructureKeys::default();
        k.toggle(Piece::new(Color::White, PieceType::Silver), sq("7g"));
        assert!(k.pawn == 0 && k.minor != 0 && k.non_pawn[0] == 0 && k.non_pawn[1] != 0);
        let mut k = StructureKeys::default();
        k.toggle(Piece::new(Color::Black, PieceType::Rook), sq("7g"));
        assert!(k.pawn == 0 && k.minor == 0 && k.non_pawn[0] != 0 && k.non_pawn[1] == 0);
        k.toggle(Piece::new(Color::Black, PieceType::Rook), sq("7g"));
        assert_eq!(k, StructureKeys::default());
    }

    #[test]
    fn classes_join_pieces_that_move_alike() {
        let one = |pt| StructureKeys::of([(Piece::new(Color::Black, pt), sq("5e"))]);
        assert_eq!(one(PieceType::ProPawn), one(PieceType::Gold));
        assert_eq!(one(PieceType::ProSilver), one(PieceType::Gold));
        assert_eq!(one(PieceType::Horse), one(PieceType::Bishop));
        assert_eq!(one(PieceType::Dragon), one(PieceType::Rook));
        assert_ne!(one(PieceType::Silver), one(PieceType::Gold));
        assert_ne!(one(PieceType::Knight), one(PieceType::Lance));
        // The minor key tells colour and square, not kind.
        assert_eq!(one(PieceType::Silver).minor, one(PieceType::Lance).minor);
        assert_ne!(
            one(PieceType::Silver).minor,
            StructureKeys::of([(Piece::new(Color::White, PieceType::Silver), sq("5e"))]).minor
        );
    }
}
