//! The 81 squares.
//!
//! Encoding: `index = file * 9 + rank`, both 0-based: file 0 is the USI file `1` (the right edge seen
//! from black), rank 0 is USI rank `a` (black's far side). So `1a` = 0, `1i` = 8, `2a` = 9, `7g` = 60,
//! `9i` = 80. This is the order YaneuraOu and the NNUE format use, and it keeps each file in nine
//! consecutive bits, which the bitboard layout relies on (files never straddle its two halves).
//!
//! `Square` is a fieldless enum so that `Option<Square>` is one byte and no invalid square exists.

use super::Color;
use std::fmt;

macro_rules! squares {
    ($($name:ident = $idx:expr),* $(,)?) => {
        /// A square of the board; see the module docs for the numbering.
        #[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
        #[repr(u8)]
        pub enum Square {
            $($name = $idx),*
        }

        impl Square {
            /// Every square in index order.
            pub const ALL: [Square; 81] = [$(Square::$name),*];
        }
    };
}

squares! {
    Sq11 = 0, Sq12 = 1, Sq13 = 2, Sq14 = 3, Sq15 = 4, Sq16 = 5, Sq17 = 6, Sq18 = 7, Sq19 = 8,
    Sq21 = 9, Sq22 = 10, Sq23 = 11, Sq24 = 12, Sq25 = 13, Sq26 = 14, Sq27 = 15, Sq28 = 16, Sq29 = 17,
    Sq31 = 18, Sq32 = 19, Sq33 = 20, Sq34 = 21, Sq35 = 22, Sq36 = 23, Sq37 = 24, Sq38 = 25, Sq39 = 26,
    Sq41 = 27, Sq42 = 28, Sq43 = 29, Sq44 = 30, Sq45 = 31, Sq46 = 32, Sq47 = 33, Sq48 = 34, Sq49 = 35,
    Sq51 = 36, Sq52 = 37, Sq53 = 38, Sq54 = 39, Sq55 = 40, Sq56 = 41, Sq57 = 42, Sq58 = 43, Sq59 = 44,
    Sq61 = 45, Sq62 = 46, Sq63 = 47, Sq64 = 48, Sq65 = 49, Sq66 = 50, Sq67 = 51, Sq68 = 52, Sq69 = 53,
    Sq71 = 54, Sq72 = 55, Sq73 = 56, Sq74 = 57, Sq75 = 58, Sq76 = 59, Sq77 = 60, Sq78 = 61, Sq79 = 62,
    Sq81 = 63, Sq82 = 64, Sq83 = 65, Sq84 = 66, Sq85 = 67, Sq86 = 68, Sq87 = 69, Sq88 = 70, Sq89 = 71,
    Sq91 = 72, Sq92 = 73, Sq93 = 74, Sq94 = 75, Sq95 = 76, Sq96 = 77, Sq97 = 78, Sq98 = 79, Sq99 = 80,
}

/// [`Square::relative_rank`] by colour and square index.
static RELATIVE_RANK: [[u8; 81]; 2] = {
    let mut t = [[0u8; 81]; 2];
    let mut i = 0;
    while i < 81 {
        let rank = (i % 9) as u8;
        t[Color::Black as usize][i] = rank;
        t[Color::White as usize][i] = 8 - rank;
        i += 1;
    }
    t
};

impl Square {
    pub const NUM: usize = 81;

    /// The square with this index, if the index is below 81.
    #[inline(always)]
    pub const fn from_index(index: usize) -> Option<Square> {
        if index < 81 {
            Some(Square::ALL[index])
        } else {
            None
        }
    }

    /// The square with this index, without a range check in release builds.
    ///
    /// # Safety
    /// `index` must be below 81.
    #[inline(always)]
    pub unsafe fn from_index_unchecked(index: usize) -> Square {
        debug_assert!(index < 81);
        // SAFETY: `Square` is `repr(u8)` with the contiguous discriminants 0..=80 and the caller
        // guarantees `index < 81`.
        unsafe { std::mem::transmute::<u8, Square>(index as u8) }
    }

    /// The square on 0-based `file` and `rank` (see the module docs), if both are below 9.
    #[inline(always)]
    pub const fn new(file: u8, rank: u8) -> Option<Square> {
        if file < 9 && rank < 9 {
            Square::from_index(file as usize * 9 + rank as usize)
        } else {
            None
        }
    }

    #[inline(always)]
    pub const fn index(self) -> usize {
        self as usize
    }

    /// 0-based file: 0 is USI file `1`.
    #[inline(always)]
    pub const fn file(self) -> u8 {
        self as u8 / 9
    }

    /// 0-based rank: 0 is USI rank `a`.
    #[inline(always)]
    pub const fn rank(self) -> u8 {
        self as u8 % 9
    }

    /// The rank as seen by `c`: 0 is the far rank (a for black, i for white). (A table: move
    /// generation asks it for every destination.)
    #[inline(always)]
    pub const fn relative_rank(self, c: Color) -> u8 {
        RELATIVE_RANK[c as usize][self as usize]
    }

    /// The square rotated by 180 degrees (the same square seen from the other side).
    #[inline(always)]
    pub const fn flip(self) -> Square {
        Square::ALL[80 - self as usize]
    }

    /// Whether the square is in `c`'s promotion zone (the three far ranks).
    #[inline(always)]
    pub const fn in_promotion_zone(self, c: Color) -> bool {
        self.relative_rank(c) < 3
    }

    /// The square `df` files and `dr` ranks away, if it is on the board.
    pub const fn offset(self, df: i8, dr: i8) -> Option<Square> {
        let f = self.file() as i8 + df;
        let r = self.rank() as i8 + dr;
        if f < 0 || f > 8 || r < 0 || r > 8 {
            None
        } else {
            Square::new(f as u8, r as u8)
        }
    }

    /// Parses a USI square such as `7g`.
    pub fn from_usi(s: &str) -> Option<Square> {
        let b = s.as_bytes();
        if b.len() != 2 {
            return None;
        }
        let file = b[0].checked_sub(b'1')?;
        let rank = b[1].checked_sub(b'a')?;
        Square::new(file, rank)
    }

    /// The two USI characters of the square.
    pub const fn usi_chars(self) -> [u8; 2] {
        [b'1' + self.file(), b'a' + self.rank()]
    }
}

impl fmt::Display for Square {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let [a, b] = self.usi_chars();
        write!(f, "{}{}", a as char, b as char)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn usi_round_trip_and_numbering() {
        assert_eq!(Square::from_usi("1a"), Some(Square::Sq11));
        assert_eq!(Square::from_usi("7g").map(Square::index), Some(60));
        assert_eq!(Square::from_usi("9i"), Some(Square::Sq99));
        for (i, sq) in Square::ALL.iter().enumerate() {
            assert_eq!(sq.index(), i);
            assert_eq!(Square::from_usi(&sq.to_string()), Some(*sq));
            assert_eq!(sq.flip().flip(), *sq);
            assert_eq!(sq.flip().index(), 80 - i);
            // SAFETY: i < 81.
            assert_eq!(unsafe { Square::from_index_unchecked(i) }, *sq);
        }
        for bad in ["", "0a", "1j", "a1", "10a", "1"] {
            assert_eq!(Square::from_usi(bad), None, "{bad}");
        }
    }

    #[test]
    fn zones_and_ranks() {
        assert!(Square::Sq13.in_promotion_zone(Color::Black));
        assert!(!Square::Sq14.in_promotion_zone(Color::Black));
        assert!(Square::Sq17.in_promotion_zone(Color::White));
        assert!(!Square::Sq16.in_promotion_zone(Color::White));
        assert_eq!(Square::Sq11.relative_rank(Color::White), 8);
        for sq in Square::ALL {
            assert_eq!(sq.relative_rank(Color::Black), sq.rank());
            assert_eq!(sq.relative_rank(Color::White), 8 - sq.rank());
            assert_eq!(sq.in_promotion_zone(Color::Black), sq.rank() < 3);
            assert_eq!(sq.in_promotion_zone(Color::White), sq.rank() > 5);
        }
    }
}
