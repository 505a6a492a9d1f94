//! The arguments of USI `position` (`startpos|sfen ... [moves ...]`): never panics, and the
//! moves it plays are legal where they are played (the position it returns is consistent).
#![no_main]

use hayate::position::Position;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let tokens: Vec<&str> = text.split_whitespace().collect();
    if let Ok((pos, _illegal)) = Position::from_usi_args(&tokens) {
        let again = Position::from_sfen(&pos.to_sfen()).expect("a reached position has a valid SFEN");
        assert_eq!(again.key(), pos.key());
    }
});
