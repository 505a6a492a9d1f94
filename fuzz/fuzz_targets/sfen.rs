//! The SFEN parser, with the extended piece counts perft accepts: never panics, and what it
//! accepts it writes back as an SFEN that parses to the same position.
#![no_main]

use hayate::position::{PieceLimits, Position};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    for limits in [PieceLimits::Standard, PieceLimits::Extended] {
        if let Ok(pos) = Position::from_sfen_with(text, limits) {
            let again = Position::from_sfen_with(&pos.to_sfen(), limits).expect("its own SFEN parses");
            assert_eq!(again.to_sfen(), pos.to_sfen());
            assert_eq!(again.key(), pos.key());
        }
    }
});
