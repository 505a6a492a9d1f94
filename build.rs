//! Generates the slider lookup tables (bishop and rook-rank attacks, indexed by PEXT and by magic
//! multiplication) at compile time.
//!
//! The attack sets come from the same naive walk (`src/attacks/naive.rs`) that the tests use as
//! ground truth; what the tests then prove is that the fast indexing reproduces it.

use std::fmt::Write as _;
use std::path::Path;

#[allow(dead_code)]
#[path = "src/attacks/naive.rs"]
mod naive;

#[path = "src/attacks/magic_numbers.rs"]
mod magic_numbers;

/// Software `pdep` on the two halves: deposits the low bits of `index` into the set bits of
/// `mask.0` (lowest first), then the remaining bits into `mask.1`. The inverse of the runtime index
/// `pext(lo, mask.0) | pext(hi, mask.1) << popcount(mask.0)`.
fn deposit(index: u64, mask: (u64, u64)) -> (u64, u64) {
    let mut out = (0u64, 0u64);
    let mut k = 0;
    for (half, m) in [mask.0, mask.1].into_iter().enumerate() {
        let mut m = m;
        while m != 0 {
            let bit = m & m.wrapping_neg();
            if index >> k & 1 != 0 {
                if half == 0 {
                    out.0 |= bit;
                } else {
                    out.1 |= bit;
                }
            }
            m &= m - 1;
            k += 1;
        }
    }
    out
}

fn bb(b: (u64, u64)) -> String {
    format!("Bitboard::from_halves({:#x}, {:#x})", b.0, b.1)
}

/// Writes MASK, OFFSET and ATTACKS tables for a slider along `dirs`, indexed by PEXT.
fn pext_table(out: &mut String, name: &str, dirs: &[(i8, i8)]) {
    let mut masks = Vec::new();
    let mut offsets = Vec::new();
    let mut attacks = Vec::new();
    for sq in 0..81 {
        let mask = naive::relevant_mask(sq, dirs);
        let bits = mask.0.count_ones() + mask.1.count_ones();
        masks.push(mask);
        offsets.push(attacks.len());
        for index in 0..(1u64 << bits) {
            attacks.push(naive::slide(sq, dirs, deposit(index, mask)));
        }
    }
    writeln!(out, "pub(super) static {name}_MASK: [Bitboard; 81] = [").unwrap();
    for m in &masks {
        writeln!(out, "    {},", bb(*m)).unwrap();
    }
    writeln!(out, "];").unwrap();
    writeln!(out, "pub(super) static {name}_OFFSET: [u32; 81] = {offsets:?};").unwrap();
    writeln!(out, "pub(super) static {name}_ATTACKS: [Bitboard; {}] = [", attacks.len()).unwrap();
    for a in &attacks {
        writeln!(out, "    {},", bb(*a)).unwrap();
    }
    writeln!(out, "];").unwrap();
}

/// Writes MASK, MAGIC, SHIFT, OFFSET and ATTACKS tables for a slider along `dirs`, indexed by
/// `((occ.lo & mask.lo) | (occ.hi & mask.hi)) * magic >> shift`. Panics on a bad magic.
fn magic_table(out: &mut String, name: &str, dirs: &[(i8, i8)], magics: &[u64; 81]) {
    let mut masks = Vec::new();
    let mut shifts = Vec::new();
    let mut offsets = Vec::new();
    let mut attacks: Vec<(u64, u64)> = Vec::new();
    for (sq, &magic) in magics.iter().enumerate() {
        let mask = naive::relevant_mask(sq, dirs);
        assert_eq!(mask.0 & mask.1, 0, "{name}: halves overlap on square {sq}");
        let bits = mask.0.count_ones() + mask.1.count_ones();
        masks.push(mask);
        shifts.push(64 - bits);
        let base = attacks.len();
        offsets.push(base);
        let mut slots: Vec<Option<(u64, u64)>> = vec![None; 1 << bits];
        for index in 0..(1u64 << bits) {
            let occ = deposit(index, mask);
            let a = naive::slide(sq, dirs, occ);
            let i = ((occ.0 | occ.1).wrapping_mul(magic) >> (64 - bits)) as usize;
            match slots[i] {
                None => slots[i] = Some(a),
                Some(b) => assert_eq!(a, b, "{name}: bad magic for square {sq}"),
            }
        }
        attacks.extend(slots.into_iter().map(|s| s.unwrap_or((0, 0))));
    }
    writeln!(out, "pub(super) static {name}_MASK: [Bitboard; 81] = [").unwrap();
    for m in &masks {
        writeln!(out, "    {},", bb(*m)).unwrap();
    }
    writeln!(out, "];").unwrap();
    writeln!(out, "pub(super) static {name}_SHIFT: [u32; 81] = {shifts:?};").unwrap();
    writeln!(out, "pub(super) static {name}_OFFSET: [u32; 81] = {offsets:?};").unwrap();
    writeln!(out, "pub(super) static {name}_ATTACKS: [Bitboard; {}] = [", attacks.len()).unwrap();
    for a in &attacks {
        writeln!(out, "    {},", bb(*a)).unwrap();
    }
    writeln!(out, "];").unwrap();
}

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    // The one switch for the default slider method: PEXT when the target has BMI2 enabled.
    println!("cargo::rustc-check-cfg=cfg(hayate_pext)");
    let features = std::env::var("CARGO_CFG_TARGET_FEATURE").unwrap_or_default();
    let arch = std::env::var("CARGO_CFG_TARGET_ARCH").unwrap_or_default();
    let bmi2 = features.split(',').any(|f| f == "bmi2");
    let forced_off = std::env::var_os("CARGO_FEATURE_PORTABLE").is_some()
        || std::env::var_os("CARGO_FEATURE_NO_PEXT").is_some();
    if arch == "x86_64" && bmi2 && !forced_off {
        println!("cargo::rustc-cfg=hayate_pext");
    }
    println!("cargo:rerun-if-changed=src/attacks/naive.rs");
    println!("cargo:rerun-if-changed=src/attacks/magic_numbers.rs");
    let mut out = String::from("// Generated by build.rs from src/attacks/naive.rs. Do not edit.\n");
    pext_table(&mut out, "BISHOP", &naive::BISHOP_DIRS);
    pext_table(&mut out, "ROOK_RANK", &naive::ROOK_RANK_DIRS);
    let dir = std::env::var("OUT_DIR").expect("cargo sets OUT_DIR");
    std::fs::write(Path::new(&dir).join("pext_tables.rs"), out).expect("write pext tables");
    let mut out = String::from(
        "// Generated by build.rs from src/attacks/naive.rs and magic_numbers.rs. Do not edit.\n",
    );
    magic_table(&mut out, "BISHOP", &naive::BISHOP_DIRS, &magic_numbers::BISHOP_MAGIC);
    magic_table(&mut out, "ROOK_RANK", &naive::ROOK_RANK_DIRS, &magic_numbers::ROOK_RANK_MAGIC);
    std::fs::write(Path::new(&dir).join("magic_tables.rs"), out).expect("write magic tables");
}
