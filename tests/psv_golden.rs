//! Our PackedSfenValue writer and reader against records written by cshogi
//! (`tests/data/psv_golden.bin`, made by `tools/psv_golden.py`; the `.tsv` beside it holds the
//! same records as text).

use hayate::position::Position;
use hayate::tools::gensfen::psv::{from_move16, to_move16, PackedSfenValue, PSV_SIZE};
use hayate::types::Move;

#[test]
fn cshogi_records_read_and_write_byte_for_byte() {
    let bin = std::fs::read("tests/data/psv_golden.bin").unwrap();
    let tsv = std::fs::read_to_string("tests/data/psv_golden.tsv").unwrap();
    let lines: Vec<&str> = tsv.lines().collect();
    assert_eq!(bin.len(), lines.len() * PSV_SIZE);
    assert!(lines.len() > 150);
    let (mut drops, mut promotions, mut boxes) = (0, 0, 0);
    for (i, line) in lines.iter().enumerate() {
        let f: Vec<&str> = line.split('\t').collect();
        let (sfen, usi, score, ply, result) = (f[0], f[1], f[2], f[3], f[4]);
        let bytes: &[u8; PSV_SIZE] = bin[i * PSV_SIZE..(i + 1) * PSV_SIZE].try_into().unwrap();
        // Reading: cshogi's bytes give cshogi's position and move.
        let record = PackedSfenValue::from_bytes(bytes);
        let (pos, m) = record.position_and_move().unwrap_or_else(|e| panic!("record {i}: {e}"));
        let expected = Position::from_sfen(sfen).unwrap();
        assert_eq!(pos.to_sfen(), expected.to_sfen(), "record {i}");
        assert_eq!(m.to_usi(), usi, "record {i}");
        assert_eq!(record.score.to_string(), score);
        assert_eq!(record.game_ply.to_string(), ply);
        assert_eq!(record.game_result.to_string(), result);
        // Writing: our record of cshogi's position and move is cshogi's bytes.
        let mine = PackedSfenValue {
            sfen: expected.to_packed().unwrap(),
            score: score.parse().unwrap(),
            move16: to_move16(Move::from_usi(usi).unwrap()),
            game_ply: ply.parse().unwrap(),
            game_result: result.parse().unwrap(),
        };
        assert_eq!(&mine.to_bytes(), bytes, "record {i}: {sfen}");
        assert_eq!(from_move16(mine.move16), Some(m));
        drops += m.is_drop() as u32;
        promotions += m.is_promotion() as u32;
        let on_board_or_hand: u32 = hayate::types::PieceType::HAND
            .iter()
            .map(|&pt| {
                expected.hand(hayate::types::Color::Black).count(pt)
                    + expected.hand(hayate::types::Color::White).count(pt)
            })
            .sum::<u32>()
            + (expected.occupied().count() - 2);
        boxes += (on_board_or_hand < 38) as u32;
    }
    assert!(
        drops > 5 && promotions > 3 && boxes >= 2,
        "{drops} drops, {promotions} promotions, {boxes} piece boxes"
    );
}
