//! Slider attack micro-benchmark: every method on the same random occupancies.
//! Run with `cargo bench --bench attacks` (the Makefile's `bench-attacks` adds target-cpu=native).

use hayate::attacks::{self, methods};
use hayate::bitboard::Bitboard;
use hayate::splitmix::next as rand;
use hayate::types::{Color, Square};
use std::hint::black_box;
use std::time::Instant;

/// Median nanoseconds per call of `f` over the (square, occupancy) pairs.
fn time(name: &str, inputs: &[(Square, Bitboard)], f: impl Fn(Square, Bitboard) -> Bitboard) {
    let mut samples = Vec::new();
    for _ in 0..7 {
        let t = Instant::now();
        let mut acc = Bitboard::EMPTY;
        for _ in 0..20 {
            for &(sq, occ) in inputs {
                acc ^= f(black_box(sq), black_box(occ));
            }
        }
        black_box(acc);
        samples.push(t.elapsed().as_secs_f64() * 1e9 / (20 * inputs.len()) as f64);
    }
    samples.sort_by(f64::total_cmp);
    println!("{name:<28} {:6.2} ns/call (median of {})", samples[samples.len() / 2], samples.len());
}

fn main() {
    let mut s = 1;
    let inputs: Vec<(Square, Bitboard)> = (0..100_000)
        .map(|_| {
            let sq = Square::ALL[(rand(&mut s) % 81) as usize];
            // About a third of the squares occupied, like a middle game.
            let lo = rand(&mut s) & rand(&mut s) & ((1 << 63) - 1);
            let hi = rand(&mut s) & rand(&mut s) & ((1 << 18) - 1);
            (sq, Bitboard::from_halves(lo, hi))
        })
        .collect();
    println!("slider methods (default in this build: {})", attacks::DEFAULT_METHOD);
    time("classical bishop", &inputs, methods::classical::bishop);
    time("classical rook", &inputs, methods::classical::rook);
    time("classical lance", &inputs, |sq, occ| methods::classical::lance(Color::Black, sq, occ));
    time("magic bishop", &inputs, methods::magic::bishop);
    time("magic rook", &inputs, methods::magic::rook);
    #[cfg(all(target_arch = "x86_64", not(feature = "portable")))]
    if std::arch::is_x86_feature_detected!("bmi2") {
        // SAFETY: BMI2 was detected at run time.
        time("pext bishop", &inputs, |sq, occ| unsafe { methods::pext::bishop(sq, occ) });
        // SAFETY: BMI2 was detected at run time.
        time("pext rook", &inputs, |sq, occ| unsafe { methods::pext::rook(sq, occ) });
        time("file-trick lance", &inputs, |sq, occ| methods::pext::lance(Color::Black, sq, occ));
    }
    time("default bishop", &inputs, attacks::bishop);
    time("default rook", &inputs, attacks::rook);
}
