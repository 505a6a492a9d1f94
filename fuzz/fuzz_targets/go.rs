//! USI `go` parsing, from the start position and from one with a pending promotion: never
//! panics, and every searchmove it keeps is legal.
#![no_main]

use hayate::position::Position;
use hayate::usi::go::{parse_go, GoCommand};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let tokens: Vec<&str> = text.split_whitespace().collect();
    let (other, _) = Position::from_usi_args(&["startpos", "moves", "7g7f", "3c3d"]).expect("legal");
    for pos in [Position::startpos(), other] {
        if let Ok((GoCommand::Search(limits), _warnings)) = parse_go(&tokens, &pos) {
            for &m in &limits.searchmoves {
                assert!(pos.is_legal_move(m), "searchmove {m} is not legal");
            }
        }
    }
});
