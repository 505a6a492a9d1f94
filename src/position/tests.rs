//! Position invariants: SFEN round trips and rejections, incremental state against recomputation,
//! generator categories against each other, move predicates against making the move.

use super::*;
use crate::splitmix::next as rand;
use crate::types::MoveKind;

const POSITIONS: &[&str] = &[
    STARTPOS,
    "l6nl/5+P1gk/2np1S3/p1p4Pp/3P2Sp1/1PPb2P1P/P5GS1/R8/LN4bKL w RGgsn5p 1",
    "R8/2K1S1SSk/4B4/9/9/9/9/9/1L1L1L3 b RBGSNLP3g3n17p 1",
    "lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL w - 1",
    "8l/1l+R2P3/p2pBG1pp/kps1p4/Nn1P2G2/P1P1P2PP/1PS6/1KSG3+r1/LN2+p3L w Sbgn3p 124",
    "ln1g1g1nl/1ks2r3/1ppppsbpp/p5p2/9/P1P1P3P/1P1PSPPP1/1BK1GS1R1/LN1G3NL b - 1",
    "4k4/9/9/9/9/9/9/9/9 b 16P 1",
    "3lkl3/9/4G4/9/9/9/9/9/4K4 b P 1",
    "k8/9/PK7/9/9/9/9/9/9 b 2r2b4g4s4n4l17p 1",
    "+R+N+SGKG+S+N+R/+B+N+SG+LG+S+N+B/P+LPP+LPP+LP/1P2P2P1/9/9/9/9/4k4 b 9P 200",
    "4k4/9/9/9/9/9/9/9/4K4 b 2R2B4G4S4N4L18P 1",
];

fn legal(pos: &Position) -> Vec<Move> {
    MoveList::legal(pos, true).iter().copied().collect()
}

/// Every position reached on random walks from the test positions (including the start).
fn random_positions(walks: usize, plies: usize, seed: u64) -> Vec<Position> {
    let mut out = Vec::new();
    let mut s = seed;
    for w in 0..walks {
        let mut pos = Position::from_sfen(POSITIONS[w % POSITIONS.len()]).unwrap();
        for _ in 0..plies {
            out.push(pos.clone());
            let moves = legal(&pos);
            if moves.is_empty() {
                break;
            }
            pos.do_move(moves[rand(&mut s) as usize % moves.len()]);
        }
    }
    out
}

#[test]
fn sfen_round_trips() {
    for sfen in POSITIONS {
        let pos = Position::from_sfen(sfen).unwrap();
        assert_eq!(pos.to_sfen(), *sfen);
        pos.check_consistency().unwrap();
    }
    for pos in random_positions(30, 60, 1) {
        let again = Position::from_sfen(&pos.to_sfen()).unwrap();
        assert_eq!(again.to_sfen(), pos.to_sfen());
        assert_eq!(again.key(), pos.key());
    }
    // The move number is optional on input.
    let p = Position::from_sfen("lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b -").unwrap();
    assert_eq!(p.to_sfen(), STARTPOS);
}

#[test]
fn bad_sfens_are_rejected_with_a_reason() {
    let bad: &[(&str, &str)] = &[
        ("", "syntax"),
        ("lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL", "syntax"),
        ("lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1 b - 1", "syntax"),
        ("lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL x - 1", "syntax"),
        ("lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 0", "syntax"),
        ("lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - x", "syntax"),
        ("lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1 extra", "syntax"),
        ("lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNLL b - 1", "syntax"),
        ("lnsgkgsnl/1r5b2/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1", "syntax"),
        ("lnsgkgsnl/1r5b/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1", "syntax"),
        ("lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNX b - 1", "syntax"),
        ("lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNS+GKGSNL b - 1", "syntax"),
        ("lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSN+ b - 1", "syntax"),
        ("lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b K 1", "syntax"),
        ("lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b 0P 1", "syntax"),
        ("lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b P2 1", "syntax"),
        ("lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b 99P 1", "syntax"),
        ("lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b P 1", "too many"),
        ("lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b R 1", "too many"),
        ("lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b 3B 1", "too many"),
        ("lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNK b - 1", "king"),
        ("lnsg1gsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSG1GSNL b - 1", "no king"),
        ("lnsgkgsnl/1r5b1/ppppppppp/9/9/4P4/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1", "pawns on file"),
        ("4k4/9/9/9/9/9/9/9/p3K4 w - 1", "never move"),
        ("P3k4/9/9/9/9/9/9/9/4K4 b - 1", "never move"),
        ("L3k4/9/9/9/9/9/9/9/4K4 b - 1", "never move"),
        ("4k4/N8/9/9/9/9/9/9/4K4 b - 1", "never move"),
        ("4k4/9/9/9/9/9/9/9/l3K4 b - 1", "never move"),
        ("4k4/9/9/9/9/9/9/8n/4K4 b - 1", "never move"),
        ("4k4/4R4/9/9/9/9/9/9/4K4 b - 1", "not to move is in check"),
        ("4k4/9/9/9/9/9/9/4r4/4K4 w - 1", "not to move is in check"),
    ];
    for (sfen, why) in bad {
        match Position::from_sfen(sfen) {
            Ok(p) => panic!("accepted {sfen:?} as {}", p.to_sfen()),
            Err(e) => {
                let msg = e.to_string();
                assert!(msg.contains(why), "{sfen:?}: message {msg:?} should mention {why:?}");
            }
        }
    }
    // Garbage of every kind: never a panic.
    let mut s = 99;
    let alphabet: Vec<char> = "lnsgkbrpLNSGKBRP+123456789/ -wb0".chars().collect();
    for _ in 0..20000 {
        let len = (rand(&mut s) % 90) as usize;
        let text: String = (0..len).map(|_| alphabet[rand(&mut s) as usize % alphabet.len()]).collect();
        let _ = Position::from_sfen(&text);
    }
}

#[test]
fn do_undo_keeps_every_incremental_field_exact() {
    let mut s = 7;
    for w in 0..60 {
        let mut pos = Position::from_sfen(POSITIONS[w % POSITIONS.len()]).unwrap();
        let start_sfen = pos.to_sfen();
        let start_key = pos.key();
        let mut played = Vec::new();
        for _ in 0..80 {
            let moves = legal(&pos);
            if moves.is_empty() {
                break;
            }
            let m = moves[rand(&mut s) as usize % moves.len()];
            // Sometimes force the lazily computed information before moving, sometimes not.
            if rand(&mut s).is_multiple_of(2) {
                let _ = pos.check_squares(PieceType::Rook);
            }
            pos.do_move(m);
            pos.check_consistency().unwrap_or_else(|e| panic!("after {m}: {e}"));
            played.push(m);
            if rand(&mut s).is_multiple_of(8) && !pos.in_check() {
                let key = pos.key();
                pos.do_null_move();
                pos.check_consistency().unwrap();
                assert_ne!(pos.key(), key);
                pos.undo_null_move();
                assert_eq!(pos.key(), key);
            }
        }
        while let Some(m) = played.pop() {
            pos.undo_move(m);
            pos.check_consistency().unwrap();
        }
        assert_eq!(pos.to_sfen(), start_sfen);
        assert_eq!(pos.key(), start_key);
    }
}

#[test]
fn generator_categories_partition_the_legal_moves() {
    for pos in random_positions(40, 80, 3) {
        for all in [true, false] {
            let legal_list = MoveList::legal(&pos, all);
            let mut legal: Vec<Move> = legal_list.iter().copied().collect();
            legal.sort_by_key(|m| m.bits());
            let n = legal.len();
            legal.dedup();
            assert_eq!(n, legal.len(), "duplicate legal moves in {}", pos.to_sfen());
            let filter = |gt: GenType| -> Vec<Move> {
                let mut v: Vec<Move> =
                    MoveList::generate(&pos, gt, all).iter().copied().filter(|&m| pos.is_legal(m)).collect();
                v.sort_by_key(|m| m.bits());
                v
            };
            if pos.in_check() {
                assert_eq!(filter(GenType::Evasions), legal, "evasions of {}", pos.to_sfen());
            } else {
                let caps = filter(GenType::CapturesProPlus);
                let quiets = filter(GenType::QuietsProMinus);
                assert!(caps.iter().all(|m| !quiets.contains(m)), "overlap in {}", pos.to_sfen());
                let mut both: Vec<Move> = caps.iter().chain(quiets.iter()).copied().collect();
                both.sort_by_key(|m| m.bits());
                assert_eq!(both, legal, "captures+quiets of {}", pos.to_sfen());
                assert_eq!(filter(GenType::NonEvasions), legal, "non-evasions of {}", pos.to_sfen());
                for m in &caps {
                    assert!(
                        pos.is_capture(*m)
                            || (m.is_promotion() && pos.moved_piece(*m).piece_type() == PieceType::Pawn)
                    );
                }
            }
            if all {
                let mut counter = MoveCounter::default();
                generate_legal(&pos, &mut counter);
                assert_eq!(counter.count as usize, legal.len(), "bulk count of {}", pos.to_sfen());
            }
        }
    }
}

#[test]
fn move_predicates_agree_with_making_the_move() {
    let mut s = 5;
    for pos in random_positions(40, 60, 11) {
        let legal = legal(&pos);
        for &m in &legal {
            assert!(pos.is_pseudo_legal(m) && pos.is_legal(m), "{m} in {}", pos.to_sfen());
            let mut p = pos.clone();
            let gives = p.gives_check(m);
            let key = p.key_after(m);
            p.do_move(m);
            assert_eq!(gives, p.in_check(), "gives_check({m}) in {}", pos.to_sfen());
            assert_eq!(key, p.key(), "key_after({m}) in {}", pos.to_sfen());
            // Nothing leaves the mover in check.
            if let Some(k) = p.king_square(pos.side_to_move()) {
                assert!(!p.is_attacked(p.side_to_move(), k));
            }
        }
        // Random well-formed moves outside the legal list are rejected.
        for _ in 0..300 {
            let Some(m) = Move::from_bits(rand(&mut s) as u16) else {
                continue;
            };
            if !legal.contains(&m) {
                assert!(!(pos.is_pseudo_legal(m) && pos.is_legal(m)), "{m} accepted in {}", pos.to_sfen());
            }
        }
    }
}

#[test]
fn pawn_drop_mate_is_not_generated() {
    let pos = Position::from_sfen("3lkl3/9/4G4/9/9/9/9/9/4K4 b P 1").unwrap();
    let moves = legal(&pos);
    assert_eq!(moves.len(), 76);
    let drop = Move::from_usi("P*5b").unwrap();
    assert!(!moves.contains(&drop));
    assert!(!pos.is_pseudo_legal(drop));
    // Without the gold the king escapes: the drop is a legal check.
    let pos = Position::from_sfen("3lkl3/9/9/9/9/9/9/9/4K4 b P 1").unwrap();
    assert!(legal(&pos).contains(&drop));
}

#[test]
fn see_values_simple_exchanges() {
    // Black rook takes a defended pawn: loses the rook for a pawn.
    let pos = Position::from_sfen("4k4/4g4/4p4/9/9/9/9/4R4/4K4 b - 1").unwrap();
    let m = Move::from_usi("5h5c+").unwrap();
    assert!(!pos.see_ge(m, 0));
    // An undefended pawn is won.
    let pos = Position::from_sfen("4k4/9/4p4/9/9/9/9/4R4/4K4 b - 1").unwrap();
    let m = Move::from_usi("5h5c").unwrap();
    assert!(pos.see_ge(m, 0));
    assert!(pos.see_ge(m, 180));
    assert!(!pos.see_ge(m, 181));
    // A drop on an attacked square loses the piece.
    let pos = Position::from_sfen("4k4/9/4p4/9/9/9/9/9/4K4 b G 1").unwrap();
    assert!(!pos.see_ge(Move::from_usi("G*5d").unwrap(), 0));
    assert!(pos.see_ge(Move::from_usi("G*1a").unwrap(), 0));
    // X-ray: a lance behind a rook supports it.
    let pos = Position::from_sfen("4k4/4s4/4p4/9/9/9/4R4/4L4/4K4 b - 1").unwrap();
    let m = Move::from_usi("5g5c").unwrap();
    // RxP, SxR, LxS: 180 - 1980 + 990 < 0.
    assert!(!pos.see_ge(m, 0));
}

#[test]
fn repetition_verdicts() {
    let mut pos = Position::startpos();
    for u in ["5i5h", "5a5b", "5h5i", "5b5a"] {
        pos.do_move(Move::from_usi(u).unwrap());
    }
    assert_eq!(pos.repetition(16), Repetition::Draw);
    assert_eq!(pos.fourfold_repetition(), None);
    let mut pos =
        Position::from_sfen("lnsg1gsnl/1r5b1/ppppppppp/4k4/9/5R3/PPPPPPPPP/1B7/LNSGKGSNL b - 1").unwrap();
    for u in ["4f5f", "5d4d", "5f4f", "4d5d"] {
        pos.do_move(Move::from_usi(u).unwrap());
    }
    assert_eq!(pos.repetition(16), Repetition::Lose);
    let moves: Vec<Move> =
        ["5d4d", "5f4f", "4d5d", "4f5f"].iter().map(|u| Move::from_usi(u).unwrap()).collect();
    let mut pos =
        Position::from_sfen("lnsg1gsnl/1r5b1/ppppppppp/4k4/9/4R4/PPPPPPPPP/1B7/LNSGKGSNL w - 1").unwrap();
    for &m in &moves {
        pos.do_move(m);
    }
    assert_eq!(pos.repetition(16), Repetition::Win);
}

#[test]
fn drop_targets_respect_ranks_and_two_pawns() {
    for pos in random_positions(20, 80, 21) {
        for m in legal(&pos) {
            if let MoveKind::Drop { piece, to } = m.kind() {
                let us = pos.side_to_move();
                assert!(drop_rank_ok_for_test(us, piece, to), "{m} in {}", pos.to_sfen());
                if piece == PieceType::Pawn {
                    let file = crate::bitboard::FILE_BB[to.file() as usize];
                    assert!((pos.pieces_cp(us, PieceType::Pawn) & file).is_empty());
                }
            }
        }
    }
}

fn drop_rank_ok_for_test(us: Color, pt: PieceType, to: Square) -> bool {
    let r = to.relative_rank(us);
    match pt {
        PieceType::Pawn | PieceType::Lance => r >= 1,
        PieceType::Knight => r >= 2,
        _ => true,
    }
}

fn usi_args(line: &str) -> Result<(Position, Option<IllegalMoveInList>), PositionArgsError> {
    let tokens: Vec<&str> = line.split_whitespace().collect();
    Position::from_usi_args(&tokens)
}

#[test]
fn usi_args_forms_seen_in_practice() {
    let Ok((p, None)) = usi_args("startpos") else { panic!() };
    assert_eq!(p.game_ply(), 1);
    let Ok((p, None)) = usi_args("startpos moves") else { panic!() };
    assert_eq!(p.moves_played(), 0);
    let Ok((p, None)) = usi_args("startpos moves 7g7f 3c3d") else { panic!() };
    assert_eq!((p.game_ply(), p.moves_played()), (3, 2));
    let Ok((p, None)) =
        usi_args("sfen lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL w - 1 moves 3c3d")
    else {
        panic!()
    };
    assert_eq!(p.game_ply(), 2);
    let Ok((p, None)) = usi_args("sfen lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 57")
    else {
        panic!()
    };
    // The move number counts (MaxMovesToDraw, time allocation), as in YaneuraOu.
    assert_eq!(p.game_ply(), 57);
}

#[test]
fn usi_args_bad_input() {
    let Ok((p, Some(w))) = usi_args("startpos moves 7g7f 7g7f 3c3d") else { panic!() };
    assert_eq!(p.moves_played(), 1);
    assert!(w.to_string().contains("move 2"));
    assert!(usi_args("sfen xyz b - 1").is_err());
    assert!(usi_args("").is_err());
    assert!(usi_args("startpos 7g7f").is_err());
    assert!(usi_args("sfen").is_err());
}

#[test]
fn declaration_rule_names_round_trip() {
    for name in DeclarationRule::NAMES {
        assert_eq!(DeclarationRule::from_name(name).map(DeclarationRule::name), Some(name));
    }
}

#[test]
fn packed_round_trips() {
    let mut n = 0;
    for pos in random_positions(60, 160, 7) {
        let packed = match pos.to_packed() {
            Ok(p) => p,
            Err(e) => {
                // Only the one-king test positions cannot be packed.
                assert_eq!(e, PackError::MissingKing, "{}", pos.to_sfen());
                continue;
            }
        };
        assert_eq!(packed.side_to_move(), pos.side_to_move());
        let back = Position::from_packed(&packed, pos.game_ply()).unwrap();
        assert_eq!(back.to_sfen(), pos.to_sfen());
        assert_eq!(back.key(), pos.key());
        assert_eq!(back.to_packed().unwrap(), packed);
        back.check_consistency().unwrap();
        n += 1;
    }
    assert!(n > 5000, "{n} positions");
    // The start position, as cshogi packs it.
    let start = Position::startpos().to_packed().unwrap();
    let hex: String = start.0.iter().map(|b| format!("{b:02x}")).collect();
    assert_eq!(hex, "58a451220ceb67227e9653221caf447824c22b119e53221ceb6f223e9651220c");
    // Pieces out of the game (the piece box), promoted pieces, full hands.
    for sfen in [
        "3lkl3/9/4G4/9/9/9/9/9/4K4 b P 1",
        "4k4/9/9/9/9/9/9/9/4K4 b 2R2B4G4S4N4L18P 1",
        "4k4/9/9/9/9/9/9/9/4K4 w - 1",
        "+R+N+SGKG+S+N+R/+B+N+SG+LG+S+N+B/P+LPP+LPP+LP/1P2P2P1/9/9/9/9/4k4 b 9P 200",
        "8l/1l+R2P3/p2pBG1pp/kps1p4/Nn1P2G2/P1P1P2PP/1PS6/1KSG3+r1/LN2+p3L w Sbgn3p 124",
    ] {
        let pos = Position::from_sfen(sfen).unwrap();
        let packed = pos.to_packed().unwrap();
        assert_eq!(Position::from_packed(&packed, pos.game_ply()).unwrap().to_sfen(), sfen);
    }
}

#[test]
fn unpackable_positions_and_malformed_bits_are_errors() {
    let one_king = Position::from_sfen("4k4/9/9/9/9/9/9/9/9 b 16P 1").unwrap();
    assert_eq!(one_king.to_packed(), Err(PackError::MissingKing));
    let too_many =
        Position::from_sfen_with("4k4/9/9/9/9/9/9/9/4K4 b 3R2B4G4S4N4L18P 1", PieceLimits::Extended).unwrap();
    assert_eq!(too_many.to_packed(), Err(PackError::TooManyPieces(PieceType::Rook)));
    // Both kings on 1a; a king square beyond the board; a missing king.
    assert!(matches!(Position::from_packed(&PackedSfen([0; 32]), 1), Err(PackError::Malformed(_))));
    assert!(matches!(Position::from_packed(&PackedSfen([0xff; 32]), 1), Err(PackError::Malformed(_))));
    let mut b = Position::startpos().to_packed().unwrap();
    b.0[0] = (b.0[0] & 1) | (81 << 1); // black king "off the board"
    assert_eq!(Position::from_packed(&b, 1).unwrap_err(), PackError::MissingKing);
    // Every single-bit corruption of real positions and random bytes: an error or a legal
    // position that packs back to canonical bits, never a panic.
    let mut s = 5;
    let mut accepted = 0;
    for pos in random_positions(4, 120, 3) {
        let Ok(good) = pos.to_packed() else { continue };
        for bit in 0..256 {
            let mut bad = good;
            bad.0[bit / 8] ^= 1 << (bit % 8);
            if let Ok(p) = Position::from_packed(&bad, 1) {
                accepted += 1;
                p.check_consistency().unwrap();
                let again = Position::from_packed(&p.to_packed().unwrap(), 1).unwrap();
                assert_eq!(again.to_sfen(), p.to_sfen());
            }
        }
    }
    for _ in 0..20000 {
        let mut bytes = [0u8; 32];
        for b in bytes.iter_mut() {
            *b = rand(&mut s) as u8;
        }
        if let Ok(p) = Position::from_packed(&PackedSfen(bytes), 1) {
            p.check_consistency().unwrap();
        }
    }
    // Colour flips of a piece keep a valid encoding; a few must be accepted.
    assert!(accepted > 0);
}

/// The wide list's capacity is the bound its documentation derives from the extended piece
/// counts, and it holds every move of a composed position with all pieces in one hand.
#[test]
fn wide_list_capacity_bounds_extended_positions() {
    use crate::position::movegen::{MoveCounter, MAX_MOVES_EXTENDED};
    use crate::position::{generate_legal, WideMoveList};
    use crate::types::{Hand, PieceType as P};
    let cap = Hand::capacity;
    let drops = 81 * P::HAND.len() as u32;
    let board = cap(P::Pawn) * 6
        + cap(P::Lance) * 16
        + cap(P::Knight) * 6
        + cap(P::Silver) * 10
        + cap(P::Gold) * 6
        + (cap(P::Bishop) + cap(P::Rook)) * 32
        + 8;
    assert_eq!(MAX_MOVES_EXTENDED, (drops + board) as usize);
    let pos =
        Position::from_sfen_with("8k/9/9/9/9/9/9/9/K8 b 3R3B7G7S7N7L31P 1", PieceLimits::Extended).unwrap();
    let list = WideMoveList::legal(&pos, true);
    let mut counter = MoveCounter::default();
    generate_legal(&pos, &mut counter);
    assert_eq!(list.len() as u64, counter.count);
    assert!(list.len() > 500, "{}", list.len());
}

/// The generator's order (see `movegen`'s docs), which decides the search's ties: pawns, lances,
/// knights, silvers, bishops, rooks, the gold-movers, horses, dragons, the king, then pawn drops
/// and the other drops, in every category.
#[test]
fn moves_come_in_the_generators_piece_order() {
    fn class(pos: &Position, m: Move) -> u8 {
        if m.is_drop() {
            return if m.dropped_piece() == PieceType::Pawn { 10 } else { 11 };
        }
        match pos.piece_on(m.from()).expect("a piece on the from square").piece_type() {
            PieceType::Pawn => 0,
            PieceType::Lance => 1,
            PieceType::Knight => 2,
            PieceType::Silver => 3,
            PieceType::Bishop => 4,
            PieceType::Rook => 5,
            PieceType::Gold
            | PieceType::ProPawn
            | PieceType::ProLance
            | PieceType::ProKnight
            | PieceType::ProSilver => 6,
            PieceType::Horse => 7,
            PieceType::Dragon => 8,
            PieceType::King => 9,
        }
    }
    let mut kings_seen = 0;
    for pos in random_positions(40, 80, 5) {
        let categories: &[GenType] = if pos.in_check() {
            &[GenType::Legal, GenType::Evasions]
        } else {
            &[GenType::Legal, GenType::NonEvasions, GenType::CapturesProPlus, GenType::QuietsProMinus]
        };
        for &gt in categories {
            let list = MoveList::generate(&pos, gt, true);
            let classes: Vec<u8> = list.iter().map(|&m| class(&pos, m)).collect();
            assert!(classes.windows(2).all(|w| w[0] <= w[1]), "{gt:?} of {}: {classes:?}", pos.to_sfen());
            kings_seen += classes.contains(&9) as usize;
        }
    }
    assert!(kings_seen > 100, "the walks reached too few king moves: {kings_seen}");
}
