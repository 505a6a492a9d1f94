//! The features of the linear evaluation: a linear function of these, one weight each
//! (`weights.rs`). The evaluation and the tuner walk the same code ([`extract`]), so the tuned
//! weights mean exactly what the evaluation computes.
//!
//! Every feature is computed for both colours from that colour's own view (squares rotated for
//! white, "front" towards the opponent) and enters with +1 for black and -1 for white; the result
//! is black's score. One extra feature, the tempo, belongs to the side to move.
//!
//! Feature groups (offsets below; each group's index encoding is at its offset):
//! - material on the board, by piece kind;
//! - pieces in hand: the n-th piece of a kind has its own weight (diminishing returns);
//! - piece-square tables by kind (the king's table is the king-square table);
//! - every piece's place relative to its own king and to the enemy king (file distance, rank
//!   difference, both capped at 3), by piece class;
//! - the king's neighbourhood: for each square within two of the king, by region (front, side,
//!   back, two ranks ahead, rest), how many enemy pieces attack it (0..3+), how many own pieces
//!   other than the king defend it (0..3+) and what stands on it (empty, own, enemy): the
//!   saturation of multiple attacks and of defence is in the table rather than assumed;
//! - drop threats: for each kind the enemy holds in hand, the empty squares next to the king that
//!   no own piece other than the king defends;
//! - pieces attacked by the enemy, undefended or defended, split by whether their side is to move
//!   (it can still save them);
//! - mobility of lances, bishops, rooks, horses and dragons (reachable squares not holding an own
//!   piece);
//! - tempo.

use crate::attacks;
use crate::bitboard::Bitboard;
use crate::position::Position;
use crate::types::{Color, Piece, PieceType, Square};

/// Receives features: `add(index, count)` with `count` signed (+ for black).
pub trait FeatureSink {
    fn add(&mut self, index: usize, count: i32);
}

// --- Layout ---------------------------------------------------------------------------------

/// Board material: index `MATERIAL + kind` (kind 1..=14; the king's slot stays unused).
pub const MATERIAL: usize = 0;
/// Hand pieces: index `HAND + HAND_START[kind] + n - 1` for the n-th piece of `kind` in hand.
pub const HAND: usize = MATERIAL + PieceType::NUM;
/// Where each hand kind's slots start inside the hand group, and how many there are (the most
/// a hand can hold).
const HAND_START: [usize; 8] = [0, 0, 18, 22, 26, 30, 32, 34];
const HAND_SLOTS: [usize; 8] = [0, 18, 4, 4, 4, 2, 2, 4];
const HAND_LEN: usize = 38;
/// Piece-square tables: `PST + kind * 81 + square` (square from the owner's view).
pub const PST: usize = HAND + HAND_LEN;
/// Place relative to the own king: `OWN_KING_REL + (class * 4 + dx) * 7 + (dy + 3)`.
pub const OWN_KING_REL: usize = PST + PieceType::NUM * 81;
const REL_LEN: usize = CLASSES * 4 * 7;
/// Place relative to the enemy king, same encoding.
pub const ENEMY_KING_REL: usize = OWN_KING_REL + REL_LEN;
/// King neighbourhood: `ZONE + ((region * 4 + attackers) * 4 + defenders) * 3 + occupant`.
pub const ZONE: usize = ENEMY_KING_REL + REL_LEN;
const ZONE_LEN: usize = REGIONS * 4 * 4 * 3;
/// Drop threats: `DROP_THREAT + hand kind` (1..=7), counted per undefended empty king neighbour.
pub const DROP_THREAT: usize = ZONE + ZONE_LEN;
/// Attacked pieces: `THREAT + (to_move * 15 + kind) * 2 + defended`.
pub const THREAT: usize = DROP_THREAT + 8;
const THREAT_LEN: usize = 2 * PieceType::NUM * 2;
/// Mobility: `MOBILITY + MOB_START[slider] + squares` (squares capped at the table's end).
pub const MOBILITY: usize = THREAT + THREAT_LEN;
/// Lance, bishop, rook, horse, dragon: where each table starts and its last (capped) count.
const MOB_START: [usize; 5] = [0, 9, 26, 43, 64];
const MOB_CAP: [usize; 5] = [8, 16, 16, 20, 20];
const MOB_LEN: usize = 85;
/// Tempo: the side to move's bonus.
pub const TEMPO: usize = MOBILITY + MOB_LEN;
/// Number of weights.
pub const NUM_FEATURES: usize = TEMPO + 1;

/// Piece classes for the king-relative tables: pawn, lance, knight, silver, gold and the golds
/// by promotion, bishop, rook, horse, dragon.
const CLASSES: usize = 9;
const fn class_of(pt: PieceType) -> usize {
    match pt {
        PieceType::Pawn => 0,
        PieceType::Lance => 1,
        PieceType::Knight => 2,
        PieceType::Silver => 3,
        PieceType::Bishop => 5,
        PieceType::Rook => 6,
        PieceType::Horse => 7,
        PieceType::Dragon => 8,
        _ => 4,
    }
}

/// King-neighbourhood regions: 0 the three squares in front, 1 the two beside, 2 the three
/// behind, 3 the five squares two ranks ahead, 4 the rest of the 5x5 block.
const REGIONS: usize = 5;

/// The square from `c`'s view (rotated for white).
#[inline(always)]
fn relative(c: Color, sq: Square) -> usize {
    match c {
        Color::Black => sq.index(),
        Color::White => sq.flip().index(),
    }
}

/// The squares within two files and ranks of a king (the king's square excluded), each with
/// its region for the king's owner. Squares are given as offsets from `base`, the lowest of
/// them: the 5x5 box spans at most 4 files of 9 squares plus 5, so every offset is below 64 and
/// one shift of a 128-bit board word brings the whole zone into one 64-bit word.
struct Zone {
    base: u8,
    squares: [(u8, u8); 24],
    len: u8,
}

/// Zones by king colour and king square.
static ZONE_LIST: [[Zone; 81]; 2] = [build_zones(Color::Black), build_zones(Color::White)];

const fn build_zones(c: Color) -> [Zone; 81] {
    let mut t = [const { Zone { base: 0, squares: [(0, 0); 24], len: 0 } }; 81];
    let mut k = 0;
    while k < 81 {
        let (kf, kr) = ((k / 9) as i32, (k % 9) as i32);
        let mut n = 0;
        let mut df = -2;
        while df <= 2 {
            let mut dr = -2;
            while dr <= 2 {
                let (f, r) = (kf + df, kr + dr);
                if f >= 0 && f < 9 && r >= 0 && r < 9 && !(df == 0 && dr == 0) {
                    // Rank difference from the owner's view: negative is towards the enemy.
                    let dy = match c {
                        Color::Black => dr,
                        Color::White => -dr,
                    };
                    let dist = if df.abs() > dr.abs() { df.abs() } else { dr.abs() };
                    let region = match (dist, dy) {
                        (1, -1) => 0,
                        (1, 0) => 1,
                        (1, _) => 2,
                        (_, -2) => 3,
                        _ => 4,
                    };
                    t[k].squares[n] = ((f * 9 + r) as u8, region);
                    n += 1;
                }
                dr += 1;
            }
            df += 1;
        }
        t[k].len = n as u8;
        // Squares were added in increasing order (file-major), so the first is the lowest.
        let base = t[k].squares[0].0;
        let mut i = 0;
        while i < n {
            t[k].squares[i].0 -= base;
            assert!(t[k].squares[i].0 < 64);
            i += 1;
        }
        t[k].base = base;
        k += 1;
    }
    t
}

/// Attack counts of one side: squares attacked at least once, twice, three times by pieces
/// other than the king, and everything the side attacks including its king.
#[derive(Clone, Copy)]
struct AttackMap {
    one: Bitboard,
    two: Bitboard,
    three: Bitboard,
    all: Bitboard,
}

/// One side's pieces of one kind: mobility, and their attacks added to `map`.
struct Side {
    c: Color,
    sign: i32,
    own: Bitboard,
    occ: Bitboard,
}

impl Side {
    #[inline(always)]
    fn walk<const KIND: u8, S: FeatureSink>(&self, pos: &Position, map: &mut AttackMap, sink: &mut S) {
        let Some(pt) = PieceType::from_u8(KIND) else {
            return;
        };
        let (c, sign) = (self.c, self.sign);
        let pc = Piece::new(c, pt);
        let slider = match pt {
            PieceType::Lance => 0,
            PieceType::Bishop => 1,
            PieceType::Rook => 2,
            PieceType::Horse => 3,
            PieceType::Dragon => 4,
            _ => usize::MAX,
        };
        for sq in pos.pieces_cp(c, pt) {
            let att = attacks::piece(pc, sq, self.occ);
            map.all |= att;
            map.three |= map.two & att;
            map.two |= map.one & att;
            map.one |= att;
            if slider != usize::MAX {
                let n = (att.and_not(self.own).count() as usize).min(MOB_CAP[slider]);
                sink.add(MOBILITY + MOB_START[slider] + n, sign);
            }
        }
    }
}

/// Walks the features of `pos` into `sink`: those of the pieces' placement, then those of
/// their attacks.
pub fn extract<S: FeatureSink>(pos: &Position, sink: &mut S) {
    extract_placement(pos, sink);
    extract_dynamic(pos, sink);
}

/// The features of one piece other than a king of colour `pc.color()` on `sq`: its material,
/// its table square and its place relative to both kings (`own_king`, `enemy_king`: the kings of
/// its own colour and of the other). A sum of such terms over the pieces, plus the kings' table
/// squares and the hands, is the placement part of the evaluation, which a move changes only
/// for the pieces it moves, captures or drops (and for every piece when a king moves).
#[inline(always)]
pub fn piece_features<S: FeatureSink>(
    pc: Piece,
    sq: Square,
    own_king: Option<Square>,
    enemy_king: Option<Square>,
    sink: &mut S,
) {
    let (c, pt) = (pc.color(), pc.piece_type());
    let sign = if c == Color::Black { 1 } else { -1 };
    let class = class_of(pt);
    sink.add(PST + pt.index() * 81 + relative(c, sq), sign);
    sink.add(MATERIAL + pt.index(), sign);
    for (base, king) in [(OWN_KING_REL, own_king), (ENEMY_KING_REL, enemy_king)] {
        if let Some(k) = king {
            let dx = (sq.file() as i32 - k.file() as i32).unsigned_abs().min(3) as usize;
            let dy = (sq.relative_rank(c) as i32 - k.relative_rank(c) as i32).clamp(-3, 3);
            sink.add(base + (class * 4 + dx) * 7 + (dy + 3) as usize, sign);
        }
    }
}

/// The feature of the `n`-th piece (from 1) of kind `pt` in the hand of colour `c`, if the
/// hand's table reaches that far.
#[inline(always)]
pub fn hand_feature<S: FeatureSink>(c: Color, pt: PieceType, n: u32, count: i32, sink: &mut S) {
    let n = n as usize;
    if n >= 1 && n <= HAND_SLOTS[pt.index()] {
        let sign = if c == Color::Black { 1 } else { -1 };
        sink.add(HAND + HAND_START[pt.index()] + n - 1, sign * count);
    }
}

/// The placement features: material, tables, places relative to the kings, hands.
pub fn extract_placement<S: FeatureSink>(pos: &Position, sink: &mut S) {
    for c in [Color::Black, Color::White] {
        let sign = if c == Color::Black { 1 } else { -1 };
        let own_king = pos.king_square(c);
        let enemy_king = pos.king_square(!c);
        if let Some(k) = own_king {
            sink.add(PST + PieceType::King.index() * 81 + relative(c, k), sign);
        }
        for sq in pos.pieces(c).and_not(pos.pieces_cp(c, PieceType::King)) {
            let pc = pos.piece_on(sq).expect("occupied");
            piece_features(pc, sq, own_king, enemy_king, sink);
        }
        let hand = pos.hand(c);
        for pt in PieceType::HAND {
            for n in 1..=hand.count(pt) {
                hand_feature(c, pt, n, 1, sink);
            }
        }
    }
}

/// The features of the pieces' attacks: mobility, kings' neighbourhoods, drop threats,
/// attacked pieces, and the tempo.
pub fn extract_dynamic<S: FeatureSink>(pos: &Position, sink: &mut S) {
    let occ = pos.occupied();
    let mut maps = [AttackMap {
        one: Bitboard::EMPTY,
        two: Bitboard::EMPTY,
        three: Bitboard::EMPTY,
        all: Bitboard::EMPTY,
    }; 2];

    // Mobility; attack counts on the way.
    for c in [Color::Black, Color::White] {
        let sign = if c == Color::Black { 1 } else { -1 };
        let own = pos.pieces(c);
        let map = &mut maps[c.index()];
        if let Some(k) = pos.king_square(c) {
            map.all |= attacks::king(k);
        }
        let side = Side { c, sign, own, occ };
        // One call per kind, so each call knows its kind at compile time (no branch on the kind
        // per piece): every kind but the king, in numbering order.
        macro_rules! walk_kinds {
            ($($kind:literal)*) => { $(side.walk::<$kind, S>(pos, map, sink);)* };
        }
        walk_kinds!(1 2 3 4 5 6 7 9 10 11 12 13 14);
    }

    // Kings' neighbourhoods, drop threats and attacked pieces.
    for c in [Color::Black, Color::White] {
        let sign = if c == Color::Black { 1 } else { -1 };
        let (ours, theirs) = (&maps[c.index()], &maps[(!c).index()]);
        let own = pos.pieces(c);
        if let Some(k) = pos.king_square(c) {
            // Bit tests on 64-bit windows of the boards starting at the zone's lowest square
            // (square i at bit i - base): cheaper than 48 bitboard probes or 128-bit shifts.
            let zone = &ZONE_LIST[c.index()][k.index()];
            let window = |b: Bitboard| ((b.lo() as u128 | (b.hi() as u128) << 63) >> zone.base) as u64;
            let (own_w, enemy_w) = (window(own), window(pos.pieces(!c)));
            let (t1, t2, t3) = (window(theirs.one), window(theirs.two), window(theirs.three));
            let (o1, o2, o3) = (window(ours.one), window(ours.two), window(ours.three));
            for &(z, r) in &zone.squares[..zone.len as usize] {
                let bit = |w: u64| (w >> z) as usize & 1;
                let attackers = bit(t1) + bit(t2) + bit(t3);
                let defenders = bit(o1) + bit(o2) + bit(o3);
                let occupant = bit(own_w) + 2 * bit(enemy_w);
                let idx = ((r as usize * 4 + attackers) * 4 + defenders) * 3 + occupant;
                sink.add(ZONE + idx, sign);
            }
            let holes = (attacks::king(k).and_not(occ).and_not(ours.one)).count() as i32;
            if holes > 0 {
                let enemy_hand = pos.hand(!c);
                for pt in PieceType::HAND {
                    if enemy_hand.has(pt) {
                        sink.add(DROP_THREAT + pt.index(), sign * holes);
                    }
                }
            }
        }
        let to_move = (pos.side_to_move() == c) as usize;
        for sq in own & theirs.all {
            let pt = pos.piece_on(sq).expect("occupied").piece_type();
            if pt == PieceType::King {
                continue;
            }
            let defended = ours.all.contains(sq) as usize;
            sink.add(THREAT + (to_move * PieceType::NUM + pt.index()) * 2 + defended, sign);
        }
    }

    let stm = if pos.side_to_move() == Color::Black { 1 } else { -1 };
    sink.add(TEMPO, stm);
}

/// A readable name for a feature index (for the tuner's report).
pub fn describe(index: usize) -> String {
    let kind = |n: usize| PieceType::from_u8(n as u8).map_or("-".to_string(), |p| p.sfen().to_string());
    if index < HAND {
        format!("material {}", kind(index - MATERIAL))
    } else if index < PST {
        let i = index - HAND;
        let pt = (1..8).rev().find(|&p| HAND_START[p] <= i).unwrap_or(1);
        format!("hand {} #{}", kind(pt), i - HAND_START[pt] + 1)
    } else if index < OWN_KING_REL {
        let i = index - PST;
        format!("pst {} sq{}", kind(i / 81), i % 81)
    } else if index < ZONE {
        let (name, i) = if index < ENEMY_KING_REL {
            ("own-king", index - OWN_KING_REL)
        } else {
            ("enemy-king", index - ENEMY_KING_REL)
        };
        format!("{name} class{} dx{} dy{}", i / 28, i / 7 % 4, i % 7) + " (dy index: 3 = same rank)"
    } else if index < DROP_THREAT {
        let i = index - ZONE;
        format!("zone region{} att{} def{} occ{}", i / 48, i / 12 % 4, i / 3 % 4, i % 3)
    } else if index < THREAT {
        format!("drop threat {}", kind(index - DROP_THREAT))
    } else if index < MOBILITY {
        let i = index - THREAT;
        format!("threat to_move{} {} defended{}", i / 30, kind(i / 2 % 15), i % 2)
    } else if index < TEMPO {
        let i = index - MOBILITY;
        let s = (0..5).rev().find(|&s| MOB_START[s] <= i).unwrap_or(0);
        format!("mobility {} {}", ["L", "B", "R", "+B", "+R"][s], i - MOB_START[s])
    } else {
        "tempo".to_string()
    }
}

/// Collects the features as a sparse list (the tuner's input).
#[derive(Default)]
pub struct FeatureList(pub Vec<(u32, i32)>);

impl FeatureList {
    /// The features of `pos`, each index once, zero counts dropped, sorted by index.
    pub fn of(pos: &Position) -> FeatureList {
        let mut list = FeatureList::default();
        extract(pos, &mut list);
        list.0.sort_unstable_by_key(|e| e.0);
        let mut merged: Vec<(u32, i32)> = Vec::with_capacity(list.0.len());
        for (i, n) in list.0 {
            match merged.last_mut() {
                Some(last) if last.0 == i => last.1 += n,
                _ => merged.push((i, n)),
            }
        }
        merged.retain(|e| e.1 != 0);
        FeatureList(merged)
    }
}

impl FeatureSink for FeatureList {
    #[inline]
    fn add(&mut self, index: usize, count: i32) {
        self.0.push((index as u32, count));
    }
}

/// Sums the weights of the features (the evaluation's sink).
pub struct Scorer<'a> {
    pub weights: &'a [i16; NUM_FEATURES],
    pub total: i32,
}

impl FeatureSink for Scorer<'_> {
    #[inline(always)]
    fn add(&mut self, index: usize, count: i32) {
        self.total += self.weights[index] as i32 * count;
    }
}

/// Sanity: every hand kind's slots fit its most pieces.
const _: () = {
    let mut pt = 1;
    while pt < 7 {
        assert!(HAND_START[pt] + HAND_SLOTS[pt] == HAND_START[pt + 1]);
        pt += 1;
    }
    assert!(HAND_START[7] + HAND_SLOTS[7] == HAND_LEN);
    assert!(MOB_START[4] + MOB_CAP[4] + 1 == MOB_LEN);
    assert!(MOB_START[3] + MOB_CAP[3] + 1 == MOB_START[4]);
};
