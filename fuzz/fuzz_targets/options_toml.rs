//! The options file (TOML): never panics, and a file it accepts is accepted again with the same
//! resulting settings.
#![no_main]

use hayate::engine::options::Options;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    let mut options = Options::default();
    if options.apply_toml(text).is_ok() {
        let mut again = Options::default();
        again.apply_toml(text).expect("the same text is accepted again");
        assert_eq!(again.search_config(), options.search_config());
    }
});
