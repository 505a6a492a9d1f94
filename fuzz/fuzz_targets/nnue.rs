//! The NNUE loaders, `nn.bin` images and the compact embedded format: never panic on any bytes.
#![no_main]

use hayate::eval::nnue::{compact, Network};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let _ = Network::from_bytes(data);
    let _ = compact::load(data);
});
