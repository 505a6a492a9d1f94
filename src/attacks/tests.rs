//! Every slider method against the naive walk; step tables and line tables against first
//! principles.

use super::naive;
use super::*;
use crate::splitmix::next as rand;

fn to_bb(b: (u64, u64)) -> Bitboard {
    Bitboard::from_halves(b.0, b.1)
}

fn halves(b: Bitboard) -> (u64, u64) {
    (b.lo(), b.hi())
}

/// Every subset of the relevant squares of `dirs` (exhaustive), each also with random pieces on
/// the other squares, then random full-board occupancies.
fn occupancies(sq: usize, dirs: &[(i8, i8)], seed: u64) -> Vec<Bitboard> {
    let mask = naive::relevant_mask(sq, dirs);
    let bits: Vec<usize> = (0..81).filter(|&i| naive::test_bit(mask, i)).collect();
    let mut s = seed ^ sq as u64;
    let mut out = Vec::new();
    for subset in 0u64..(1 << bits.len()) {
        let mut b = (0, 0);
        for (k, &i) in bits.iter().enumerate() {
            if subset >> k & 1 != 0 {
                b = naive::with_bit(b, i);
            }
        }
        let noise = (rand(&mut s) & ((1 << 63) - 1), rand(&mut s) & ((1 << 18) - 1));
        out.push(to_bb(b));
        out.push(to_bb(b) | to_bb(noise).and_not(to_bb(mask)));
    }
    for _ in 0..2000 {
        let a = rand(&mut s) & rand(&mut s) & ((1 << 63) - 1);
        let c = rand(&mut s) & rand(&mut s) & ((1 << 18) - 1);
        out.push(Bitboard::from_halves(a, c));
    }
    out
}

type Slider = fn(Square, Bitboard) -> Bitboard;

fn check_slider(name: &str, dirs: &[(i8, i8)], f: Slider) {
    for sq in Square::ALL {
        for occ in occupancies(sq.index(), dirs, 0x5eed) {
            let want = naive::slide(sq.index(), dirs, halves(occ));
            assert_eq!(halves(f(sq, occ)), want, "{name} on {sq} with occupancy {occ:?}");
        }
    }
}

fn check_lance(name: &str, f: fn(Color, Square, Bitboard) -> Bitboard) {
    for c in Color::ALL {
        let dirs: &[(i8, i8)] =
            if c == Color::Black { &naive::BLACK_LANCE_DIRS } else { &naive::WHITE_LANCE_DIRS };
        for sq in Square::ALL {
            for occ in occupancies(sq.index(), dirs, 0x1a7ce) {
                let want = naive::slide(sq.index(), dirs, halves(occ));
                assert_eq!(halves(f(c, sq, occ)), want, "{name} {c:?} lance on {sq}");
            }
        }
    }
}

#[test]
fn classical_matches_naive() {
    check_slider("classical bishop", &naive::BISHOP_DIRS, methods::classical::bishop);
    check_slider("classical rook", &naive::ROOK_DIRS, methods::classical::rook);
    check_lance("classical", methods::classical::lance);
}

#[test]
fn magic_matches_naive() {
    check_slider("magic bishop", &naive::BISHOP_DIRS, methods::magic::bishop);
    check_slider("magic rook", &naive::ROOK_DIRS, methods::magic::rook);
    check_lance("magic", methods::magic::lance);
}

#[cfg(all(target_arch = "x86_64", not(feature = "portable")))]
#[test]
fn pext_matches_naive() {
    if !std::arch::is_x86_feature_detected!("bmi2") {
        eprintln!("skipping: this CPU has no BMI2");
        return;
    }
    // SAFETY (for the calls below): BMI2 was detected at run time.
    fn bishop(sq: Square, occ: Bitboard) -> Bitboard {
        // SAFETY: only reached after the BMI2 check above.
        unsafe { methods::pext::bishop(sq, occ) }
    }
    fn rook(sq: Square, occ: Bitboard) -> Bitboard {
        // SAFETY: only reached after the BMI2 check above.
        unsafe { methods::pext::rook(sq, occ) }
    }
    check_slider("pext bishop", &naive::BISHOP_DIRS, bishop);
    check_slider("pext rook", &naive::ROOK_DIRS, rook);
    check_lance("pext", methods::pext::lance);
}

#[test]
fn default_method_matches_naive() {
    check_slider("bishop", &naive::BISHOP_DIRS, bishop);
    check_slider("rook", &naive::ROOK_DIRS, rook);
    check_lance("default", lance);
    let mut s = 3;
    for sq in Square::ALL {
        for _ in 0..200 {
            let occ = Bitboard::from_halves(rand(&mut s) & ((1 << 63) - 1), rand(&mut s) & ((1 << 18) - 1));
            assert_eq!(horse(sq, occ), bishop(sq, occ) | king(sq));
            assert_eq!(dragon(sq, occ), rook(sq, occ) | king(sq));
        }
        assert_eq!(bishop(sq, Bitboard::EMPTY), bishop_pseudo(sq));
        assert_eq!(rook(sq, Bitboard::EMPTY), rook_pseudo(sq));
        for c in Color::ALL {
            assert_eq!(lance(c, sq, Bitboard::EMPTY), lance_pseudo(c, sq));
        }
    }
}

#[test]
fn step_tables_match_their_definition() {
    let one = |sq: Square, steps: &[(i8, i8)], c: Color| {
        let sign = if c == Color::Black { 1 } else { -1 };
        Bitboard::from_squares(steps.iter().filter_map(|&(df, dr)| sq.offset(df, dr * sign)))
    };
    let gold_steps = [(-1, -1), (0, -1), (1, -1), (-1, 0), (1, 0), (0, 1)];
    let silver_steps = [(-1, -1), (0, -1), (1, -1), (-1, 1), (1, 1)];
    for c in Color::ALL {
        for sq in Square::ALL {
            assert_eq!(pawn(c, sq), one(sq, &[(0, -1)], c));
            assert_eq!(knight(c, sq), one(sq, &[(-1, -2), (1, -2)], c));
            assert_eq!(silver(c, sq), one(sq, &silver_steps, c));
            assert_eq!(gold(c, sq), one(sq, &gold_steps, c));
            assert_eq!(king(sq), silver(c, sq) | gold(c, sq));
        }
    }
    assert_eq!(king(Square::Sq55).count(), 8);
    assert_eq!(king(Square::Sq11).count(), 3);
}

#[test]
fn between_and_line() {
    for a in Square::ALL {
        for b in Square::ALL {
            let aligned = a != b
                && (a.file() == b.file()
                    || a.rank() == b.rank()
                    || (a.file() as i8 - b.file() as i8).abs() == (a.rank() as i8 - b.rank() as i8).abs());
            let btw = between(a, b);
            let ln = line(a, b);
            assert_eq!(btw, between(b, a));
            assert_eq!(ln, line(b, a));
            if !aligned {
                assert!(btw.is_empty() && ln.is_empty());
                continue;
            }
            assert!(ln.contains(a) && ln.contains(b));
            assert!(!btw.contains(a) && !btw.contains(b));
            assert_eq!((btw & ln), btw);
            // `between` is what a queen-like slider from a sees up to b on an empty board.
            let slider = if a.file() == b.file() || a.rank() == b.rank() {
                rook(a, Bitboard::from_square(b)) & rook(b, Bitboard::from_square(a))
            } else {
                bishop(a, Bitboard::from_square(b)) & bishop(b, Bitboard::from_square(a))
            };
            assert_eq!(btw, slider);
        }
    }
}
