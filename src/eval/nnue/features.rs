//! The feature sets: how a perspective's BonaPieces ([`super::bona`]) become transformer rows, for
//! each set of YaneuraOu's family (its `source/eval/nnue/features/`, the Friend variants).
//!
//! ```text
//!  set        row of BonaPiece bp, own king on k (both oriented)          kings   rows
//!  halfkp     1548 k + bp                                                 no      81 x 1548
//!  halfkpvm   1548 k' + m(bp)                                             no      45 x 1548
//!  halfkpe9   81 x 1548 x (3 e_own + e_enemy) + 1548 k + bp               no      9 x 81 x 1548
//!  halfka1    1710 k + bp                                                 yes     81 x 1710
//!  halfkahm1  1710 k' + m(bp)                                             yes     45 x 1710
//!  halfka2    1629 k + f(bp)                                              yes     81 x 1629
//!  halfkahm2  1629 k' + f(m(bp))                                          yes     45 x 1629
//!  kp         bp (the kings' BonaPieces 1548.. are the K part)            yes     1710
//! ```
//!
//! `k'` and `m`: when the own king stands on files 6-9 (`k >= 45`), the king square and every
//! board BonaPiece (and king BonaPiece) are mirrored file-wise (`file -> 10 - file`); pieces in hand
//! are not. `f` folds the enemy king's plane onto the own king's (`bp >= 1629: bp - 81`).
//!
//! In the sets that hold the kings, a move of the own king changes every row (its square keys
//! them all), so that perspective is recomputed; a move of the enemy king changes one feature.
//! K+P keys nothing by the king: every move, king moves too, is a few changed features.
//!
//! halfkpe9 also splits every board piece by the attack counts on its square ([`super::effects`]):
//! a move changes the rows of every piece whose square's counts it changes, besides its own.

use super::bona::{self, F_KING, MAX_PIECES};
use super::effects::{self, Effects};
use super::shape::{FeatureKind, E_KING, FE_END2};
use super::FE_END;
use crate::position::Position;
use crate::types::Color;

/// A perspective's king, as a feature set uses it: the first row of its plane, and whether its
/// pieces are mirrored.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Key {
    base: u32,
    mirrored: bool,
}

/// A feature set: rows from BonaPieces. Implemented by zero-sized types, so that the kernels
/// that use one are compiled for it.
pub trait FeatureSet: 'static + Send + Sync {
    /// Which set this is.
    const KIND: FeatureKind;
    /// A move of the perspective's own king changes every row of that perspective.
    const KING_RELATIVE: bool;
    /// The kings' BonaPieces are features.
    const KINGS: bool;
    /// The rows also depend on the attack counts on each piece's square (halfkpe9): `index`
    /// gives plane 0, and the accumulator stack records the other pieces a move re-plans.
    const EFFECTS: bool = false;
    /// The key of a perspective whose own king is on `king` (oriented).
    fn key(king: usize) -> Key;

    /// The row of BonaPiece `bp` for a perspective with key `key`.
    fn index(key: Key, bp: u16) -> u32;

    /// The active rows of `perspective` in `pos`, or `None` without both kings.
    #[inline]
    fn active(pos: &Position, perspective: Color) -> Option<Active> {
        let (king, kings) = bona::kings(pos, perspective)?;
        let key = Self::key(king);
        let mut out = Active { len: 0, rows: [0; MAX_ACTIVE] };
        bona::for_each_piece(pos, perspective, |bp| out.push(Self::index(key, bp)));
        if Self::KINGS {
            out.push(Self::index(key, kings[0]));
            out.push(Self::index(key, kings[1]));
        }
        Some(out)
    }
}

/// The most rows a perspective has active: every listed piece and both kings.
pub const MAX_ACTIVE: usize = MAX_PIECES + 2;

/// A perspective's active rows.
pub struct Active {
    len: usize,
    rows: [u32; MAX_ACTIVE],
}

impl Active {
    #[inline(always)]
    fn push(&mut self, row: u32) {
        if self.len < MAX_ACTIVE {
            self.rows[self.len] = row;
            self.len += 1;
        }
    }

    #[inline(always)]
    pub fn as_slice(&self) -> &[u32] {
        &self.rows[..self.len]
    }
}

/// The file-wise mirror of every BonaPiece: board and king pieces move to the mirrored square,
/// pieces in hand stay (YaneuraOu's `Mir`: square `9 f + r` to `9 (8 - f) + r`).
const MIRROR: [u16; FE_END2] = {
    let mut t = [0u16; FE_END2];
    let mut p = 0;
    while p < FE_END2 {
        t[p] = if p < 90 {
            p as u16
        } else {
            let (kind, sq) = ((p - 90) / 81, (p - 90) % 81);
            (90 + kind * 81 + (8 - sq / 9) * 9 + sq % 9) as u16
        };
        p += 1;
    }
    t
};

/// The king-relative sets, one a row: `plane` rows per king square, mirrored or not, holding the
/// kings or not, the enemy king folded or not; each set is the `FeatureKind` of its name.
macro_rules! half_k {
    ($($(#[$doc:meta])* $name:ident: plane $plane:expr, mirror $mirror:expr, kings $kings:expr,
     fold $fold:expr;)+) => {$(
        $(#[$doc])*
        pub struct $name;

        impl FeatureSet for $name {
            const KIND: FeatureKind = FeatureKind::$name;
            const KING_RELATIVE: bool = true;
            const KINGS: bool = $kings;

            #[inline(always)]
            fn key(king: usize) -> Key {
                let mirrored = $mirror && king >= 45;
                let k = if mirrored { (8 - king / 9) * 9 + king % 9 } else { king };
                Key { base: ($plane * k) as u32, mirrored }
            }

            #[inline(always)]
            fn index(key: Key, bp: u16) -> u32 {
                debug_assert!((bp as usize) < if $kings { FE_END2 } else { FE_END });
                let bp = if $mirror && key.mirrored { MIRROR[bp as usize % FE_END2] } else { bp };
                let bp = if $fold && bp >= E_KING as u16 { bp - 81 } else { bp };
                key.base + bp as u32
            }
        }
    )+};
}

half_k! {
    /// HalfKP(Friend).
    HalfKp: plane FE_END, mirror false, kings false, fold false;
    /// HalfKP_vm(Friend).
    HalfKpVm: plane FE_END, mirror true, kings false, fold false;
    /// HalfKA1(Friend).
    HalfKa1: plane FE_END2, mirror false, kings true, fold false;
    /// HalfKA_hm1(Friend).
    HalfKaHm1: plane FE_END2, mirror true, kings true, fold false;
    /// HalfKA2(Friend).
    HalfKa2: plane E_KING, mirror false, kings true, fold true;
    /// HalfKA_hm2(Friend).
    HalfKaHm2: plane E_KING, mirror true, kings true, fold true;
}

/// K+P: the P part is the BonaPiece itself (0..1548), the K part follows it (YaneuraOu's
/// `FeatureSet<K, P>` puts the first set's rows after the second's), and the kings' BonaPieces
/// `F_KING + sq`, `E_KING + sq` are exactly those rows.
pub struct Kp;

impl FeatureSet for Kp {
    const KIND: FeatureKind = FeatureKind::Kp;
    const KING_RELATIVE: bool = false;
    const KINGS: bool = true;

    #[inline(always)]
    fn key(_king: usize) -> Key {
        Key { base: 0, mirrored: false }
    }

    #[inline(always)]
    fn index(_key: Key, bp: u16) -> u32 {
        debug_assert!((bp as usize) < FE_END2);
        u32::from(bp)
    }
}

/// HalfKPE9(Friend): HalfKP's rows, each board piece in one of nine planes by the attack counts
/// on its square (YaneuraOu's `HalfKPE9`; see [`super::effects`]).
pub struct HalfKpE9;

impl FeatureSet for HalfKpE9 {
    const KIND: FeatureKind = FeatureKind::HalfKpE9;
    const KING_RELATIVE: bool = true;
    const KINGS: bool = false;
    const EFFECTS: bool = true;

    #[inline(always)]
    fn key(king: usize) -> Key {
        HalfKp::key(king)
    }

    /// The row of `bp` in plane 0; the stack adds the plane (`effects::with_counts`).
    #[inline(always)]
    fn index(key: Key, bp: u16) -> u32 {
        HalfKp::index(key, bp)
    }

    #[inline]
    fn active(pos: &Position, perspective: Color) -> Option<Active> {
        let (king, _) = bona::kings(pos, perspective)?;
        let base = Self::index(Self::key(king), 0);
        let e = Effects::of(pos);
        let mut out = Active { len: 0, rows: [0; MAX_ACTIVE] };
        bona::for_each_piece(pos, perspective, |bp| {
            out.push(base + effects::with_counts(&e, perspective, bp))
        });
        Some(out)
    }
}

const _: () = assert!(F_KING as usize == FE_END && FE_END2 == FE_END + 162);

#[cfg(test)]
mod tests {
    use super::*;

    /// Every row of every set is below the set's row count, over kings on every square.
    fn in_range<F: FeatureSet>() {
        let rows = F::KIND.inputs() as u32;
        let top = if F::KINGS { FE_END2 } else { FE_END } as u16;
        let mut seen_max = 0;
        for king in 0..81 {
            let key = F::key(king);
            for bp in 0..top {
                let i = F::index(key, bp);
                assert!(i < rows, "{:?}: king {king}, bp {bp}: {i}", F::KIND);
                seen_max = seen_max.max(i);
            }
        }
        assert_eq!(seen_max, rows - 1, "{:?}: the last row is used", F::KIND);
    }

    #[test]
    fn rows_stay_in_range() {
        in_range::<HalfKp>();
        in_range::<HalfKpVm>();
        in_range::<HalfKa1>();
        in_range::<HalfKaHm1>();
        in_range::<HalfKa2>();
        in_range::<HalfKaHm2>();
        in_range::<Kp>();
    }

    #[test]
    fn halfkpe9_rows_stay_in_range() {
        // The ninth plane's last row: the king on 9i (80), an enemy dragon on 1a... as BonaPiece
        // 1547, in plane 8 (two attackers of each side).
        let last = 8 * effects::PLANE + HalfKpE9::index(HalfKpE9::key(80), 1547);
        assert_eq!(last, FeatureKind::HalfKpE9.inputs() as u32 - 1);
        let pos = Position::startpos();
        let rows = HalfKpE9::active(&pos, Color::White).unwrap();
        assert_eq!(rows.as_slice().len(), 38);
        assert!(rows.as_slice().iter().all(|&r| r < FeatureKind::HalfKpE9.inputs() as u32));
    }

    #[test]
    fn mirroring_follows_yaneuraou() {
        // A king on 6i (file 6, rank 9: square 5 * 9 + 8 = 53) mirrors to 4i (3 * 9 + 8 = 35).
        let key = HalfKpVm::key(53);
        assert_eq!(key, Key { base: 35 * FE_END as u32, mirrored: true });
        // A pawn on 1a (square 0) mirrors to 9a (square 72); a hand piece stays.
        assert_eq!(HalfKpVm::index(key, 90), 35 * FE_END as u32 + 90 + 72);
        assert_eq!(HalfKpVm::index(key, 5), 35 * FE_END as u32 + 5);
        // A king on 5e (36 + 4 = 40) is not mirrored.
        assert_eq!(HalfKpVm::key(40), Key { base: 40 * FE_END as u32, mirrored: false });
        // halfka2 folds the enemy king's plane onto the own king's.
        let k = HalfKa2::key(0);
        assert_eq!(HalfKa2::index(k, E_KING as u16 + 7), FE_END as u32 + 7);
        assert_eq!(HalfKa2::index(k, F_KING + 7), FE_END as u32 + 7);
    }

    #[test]
    fn startpos_active_counts() {
        let pos = Position::startpos();
        assert_eq!(HalfKp::active(&pos, Color::Black).unwrap().as_slice().len(), 38);
        assert_eq!(HalfKaHm2::active(&pos, Color::Black).unwrap().as_slice().len(), 40);
        let kp = Kp::active(&pos, Color::Black).unwrap();
        assert_eq!(kp.as_slice().len(), 40);
        assert!(kp.as_slice().contains(&(FE_END as u32 + 4 * 9 + 8)), "the own king's K row");
    }
}
