//! Proof and disproof hands: which attacker hands a proven or disproven result also holds for.
//!
//! All hands here are the *attacker's*. Within one search the pieces in play never change, so the
//! defender's hand is whatever the board and the attacker's hand leave over: more for the
//! attacker means less for the defender.
//!
//! - A **proof hand** `P` of a proven node: the mate also works with any attacker hand that
//!   dominates `P` (the attacker's drops stay available and the defender, holding less, has no
//!   new interpositions). It is built from the leaves up: nothing at a mate, plus every piece
//!   the defender could otherwise interpose with; at the attacker's node, the child's hand plus a
//!   dropped piece (or minus a captured one); at the defender's node, the field-wise maximum over
//!   all replies, plus again the interposition pieces.
//! - A **disproof hand** `D` of a disproven node: no mate either with any attacker hand that `D`
//!   dominates. At the attacker's node: the field-wise minimum over all checks (a drop child's
//!   hand plus the dropped piece, a capture child's minus the captured one), and zero for every
//!   kind the attacker lacks and could drop with check (holding one would add a check; a kind
//!   that no drop checks with adds nothing here); at the defender's node, the refuting
//!   reply's hand, capped at the current count for a kind the reply drops (the defender must
//!   still hold one).

use crate::types::{Hand, PieceType};

/// A hand with every field at its capacity: the disproof hand that restricts nothing.
pub(crate) fn full() -> Hand {
    with_counts(Hand::capacity)
}

/// Field-wise minimum.
pub(crate) fn min(a: Hand, b: Hand) -> Hand {
    match ordered(a, b) {
        Some((low, _)) => low,
        None => with_counts(|pt| a.count(pt).min(b.count(pt))),
    }
}

/// Field-wise maximum.
pub(crate) fn max(a: Hand, b: Hand) -> Hand {
    match ordered(a, b) {
        Some((_, high)) => high,
        None => with_counts(|pt| a.count(pt).max(b.count(pt))),
    }
}

/// `(lower, higher)` when one of `a` and `b` dominates the other (the usual case, which needs no
/// field-wise work); `None` when each has more of some kind.
fn ordered(a: Hand, b: Hand) -> Option<(Hand, Hand)> {
    if b.dominates(a) {
        Some((a, b))
    } else if a.dominates(b) {
        Some((b, a))
    } else {
        None
    }
}

/// The hand holding `count(pt)` pieces of each kind `pt`.
fn with_counts(count: impl Fn(PieceType) -> u32) -> Hand {
    let mut h = Hand::EMPTY;
    for pt in PieceType::HAND {
        h.set_count(pt, count(pt));
    }
    h
}

/// One more piece of `pt`, saturating at the field's capacity.
pub(crate) fn plus(mut h: Hand, pt: PieceType) -> Hand {
    if h.count(pt) < Hand::capacity(pt) {
        h.add(pt);
    }
    h
}

/// One piece of `pt` fewer, saturating at zero.
pub(crate) fn minus(mut h: Hand, pt: PieceType) -> Hand {
    if h.has(pt) {
        h.remove(pt);
    }
    h
}

/// `h` with the count of `pt` set to `n`.
pub(crate) fn with(mut h: Hand, pt: PieceType, n: u32) -> Hand {
    h.set_count(pt, n.min(Hand::capacity(pt)));
    h
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn field_wise_operations() {
        let mut a = Hand::EMPTY;
        a.set_count(PieceType::Pawn, 3);
        a.set_count(PieceType::Rook, 1);
        let mut b = Hand::EMPTY;
        b.set_count(PieceType::Pawn, 1);
        b.set_count(PieceType::Gold, 2);
        let lo = min(a, b);
        let hi = max(a, b);
        assert_eq!(lo.count(PieceType::Pawn), 1);
        assert_eq!(lo.count(PieceType::Rook), 0);
        assert_eq!(lo.count(PieceType::Gold), 0);
        assert_eq!(hi.count(PieceType::Pawn), 3);
        assert_eq!(hi.count(PieceType::Rook), 1);
        assert_eq!(hi.count(PieceType::Gold), 2);
        assert!(hi.dominates(a) && hi.dominates(b) && a.dominates(lo) && b.dominates(lo));
        assert_eq!(minus(Hand::EMPTY, PieceType::Pawn), Hand::EMPTY);
        let f = full();
        assert_eq!(plus(f, PieceType::Rook), f);
        assert!(f.dominates(a));
        assert_eq!(with(a, PieceType::Pawn, 0).count(PieceType::Pawn), 0);
    }
}
