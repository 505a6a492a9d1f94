//! Finds the magic multipliers used by `src/attacks/magic.rs` (run once; the output is pasted
//! into `src/attacks/magic_numbers.rs`). Deterministic: a fixed-seed splitmix64.
//!
//! Magic index: `((occ.lo & mask.lo) | (occ.hi & mask.hi)) * magic >> (64 - bits)`. Merging the
//! halves by OR is collision-free for bishops and rook ranks because their relevant squares never
//! include file 1 (low half bits 0..=8) or file 9 (high half bits 9..=17), the board edges, so the
//! two halves' bits never share a position.

#[path = "../src/attacks/naive.rs"]
#[allow(dead_code)]
mod naive;
// The crate's own generator, included as a file like `naive`: the example stays buildable
// without the library it makes the numbers for.
#[path = "../src/splitmix.rs"]
#[allow(dead_code)]
mod splitmix;

use splitmix::next as rand;

fn subsets(mask: (u64, u64)) -> Vec<(u64, u64)> {
    let bits: Vec<usize> = (0..81).filter(|&i| naive::test_bit(mask, i)).collect();
    (0u64..1 << bits.len())
        .map(|s| {
            let mut b = (0, 0);
            for (k, &i) in bits.iter().enumerate() {
                if s >> k & 1 != 0 {
                    b = naive::with_bit(b, i);
                }
            }
            b
        })
        .collect()
}

fn find(sq: usize, dirs: &[(i8, i8)], seed: &mut u64) -> u64 {
    let mask = naive::relevant_mask(sq, dirs);
    assert_eq!(mask.0 & mask.1, 0, "halves overlap on square {sq}");
    let bits = mask.0.count_ones() + mask.1.count_ones();
    let occs = subsets(mask);
    let attacks: Vec<(u64, u64)> = occs.iter().map(|&o| naive::slide(sq, dirs, o)).collect();
    let mut table = vec![None; 1 << bits];
    loop {
        let magic = rand(seed) & rand(seed) & rand(seed);
        table.iter_mut().for_each(|e| *e = None);
        let ok = occs.iter().zip(&attacks).all(|(o, a)| {
            let merged = o.0 | o.1;
            let idx = (merged.wrapping_mul(magic) >> (64 - bits)) as usize;
            match table[idx] {
                None => {
                    table[idx] = Some(*a);
                    true
                }
                Some(b) => b == *a,
            }
        });
        if ok {
            return magic;
        }
    }
}

fn main() {
    let mut seed = 0x006d_6167_6963; // "magic"
    for (name, dirs) in [("BISHOP", &naive::BISHOP_DIRS[..]), ("ROOK_RANK", &naive::ROOK_RANK_DIRS[..])] {
        println!("pub const {name}_MAGIC: [u64; 81] = [");
        for sq in 0..81 {
            println!("    {:#018x},", find(sq, dirs, &mut seed));
        }
        println!("];");
    }
}
