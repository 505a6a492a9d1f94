//! NNUE evaluator benchmark: evaluations per second with incremental updates along search-like
//! move trees from `tests/data/bench.sfen`, the full-refresh rate, the forward pass alone, and the
//! AVX2 / scalar ratio. Uses the seed-1 test net (`hayate::eval::nnue::testnet`) of the shape
//! given (`-- --shape halfkp_512x2-8-64`; default halfkp_256x2-32-32); a real net of a shape has
//! the same speed. `-- --any-width` measures the general build that reads the widths from the net.
//!
//! Run natively:
//! `RUSTFLAGS="-C target-cpu=native" cargo bench --bench nnue --target-dir target/native`.
//! Under WebAssembly it runs in Node's WASI (`scripts/wasi-runner.mjs`, as in `make
//! test-wasm-simd`; with `-C target-feature=+simd128` for the `simd128` row). Each figure is the
//! median of several timed runs, measured in thread CPU time.

use hayate::eval::nnue::{testnet, Network, NnueState, Shape, Simd};
use hayate::position::{MoveList, Position};
use hayate::splitmix::next as rand;
use hayate::types::Move;
use std::hint::black_box;
use std::sync::Arc;
use std::time::Instant;

const SAMPLES: usize = 9;
const MIN_SAMPLE: f64 = 0.05;
/// Moves tried per node and depth of the trees: 4 + 16 + 64 evaluated children per root.
const BRANCH: usize = 4;
const DEPTH: usize = 3;
/// Walks of one root's tree in a row in the search-like figures.
const REPEAT: usize = 8;

#[derive(Clone, Copy)]
enum Op {
    /// Make the move, then evaluate.
    Do(Move),
    Undo(Move),
}

/// A depth-first walk over random legal moves: what a search does to the evaluator.
fn tree(pos: &mut Position, depth: usize, rng: &mut u64, ops: &mut Vec<Op>) {
    if depth == 0 {
        return;
    }
    let moves = MoveList::legal(pos, false);
    for _ in 0..BRANCH.min(moves.len()) {
        let m = moves.as_slice()[(rand(rng) % moves.len() as u64) as usize];
        ops.push(Op::Do(m));
        pos.do_move(m);
        tree(pos, depth - 1, rng, ops);
        pos.undo_move(m);
        ops.push(Op::Undo(m));
    }
}

/// Seconds of CPU time this thread has used. The machine this runs on is often shared, so wall
/// time would also count the time the thread waits for a core; thread CPU time does not.
#[cfg(target_os = "linux")]
fn cpu_seconds() -> f64 {
    #[repr(C)]
    struct Timespec {
        sec: i64,
        nsec: i64,
    }
    extern "C" {
        fn clock_gettime(clock: i32, ts: *mut Timespec) -> i32;
    }
    const CLOCK_THREAD_CPUTIME_ID: i32 = 3;
    let mut ts = Timespec { sec: 0, nsec: 0 };
    // SAFETY: `clock_gettime` (glibc and musl, 64-bit Linux: two 64-bit fields) only writes the
    // `timespec` it is given, which lives on this stack frame.
    let rc = unsafe { clock_gettime(CLOCK_THREAD_CPUTIME_ID, &mut ts) };
    assert_eq!(rc, 0, "clock_gettime");
    ts.sec as f64 + ts.nsec as f64 * 1e-9
}

/// The same clock under WASI (preview 1), which Node's WASI implements.
#[cfg(target_os = "wasi")]
fn cpu_seconds() -> f64 {
    #[link(wasm_import_module = "wasi_snapshot_preview1")]
    extern "C" {
        fn clock_time_get(clock: u32, precision: u64, time: *mut u64) -> u16;
    }
    const CLOCK_THREAD_CPUTIME_ID: u32 = 3;
    let mut ns = 0u64;
    // SAFETY: `clock_time_get` (WASI preview 1) writes one `u64` of nanoseconds to the address
    // given, which is `ns` on this stack frame.
    let errno = unsafe { clock_time_get(CLOCK_THREAD_CPUTIME_ID, 1, &mut ns) };
    assert_eq!(errno, 0, "clock_time_get");
    ns as f64 * 1e-9
}

#[cfg(not(any(target_os = "linux", target_os = "wasi")))]
fn cpu_seconds() -> f64 {
    static START: std::sync::OnceLock<Instant> = std::sync::OnceLock::new();
    START.get_or_init(Instant::now).elapsed().as_secs_f64()
}

/// Median of `SAMPLES` runs of `f`, which returns how many operations it did; in ops per second
/// of thread CPU time. Each run repeats `f` until it has taken at least `MIN_SAMPLE` seconds.
fn rate(mut f: impl FnMut() -> usize) -> f64 {
    // Through an opaque pointer, so that every run is a call of its own: a WebAssembly engine
    // moves a function to its optimising tier only between calls (V8 has no on-stack
    // replacement for WebAssembly), and a run inlined into this loop would be timed unoptimised.
    let f: &mut dyn FnMut() -> usize = black_box(&mut f);
    f(); // warm-up
    let mut v: Vec<f64> = (0..SAMPLES)
        .map(|_| {
            let t = cpu_seconds();
            let mut n = 0;
            while cpu_seconds() - t < MIN_SAMPLE {
                n += f();
            }
            n as f64 / (cpu_seconds() - t)
        })
        .collect();
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

struct Work {
    roots: Vec<Position>,
    trees: Vec<Vec<Op>>,
}

/// Evaluations per second with do/undo and lazy incremental updates, walking each root's tree
/// `repeat` times in a row (a search stays on one root, so its rows stay cached; `repeat` 1 walks
/// all 61 roots in turn, a cold-cache worst case). With `forward` false only the accumulators are
/// brought up to date (no forward pass).
fn incremental(net: &Arc<Network>, simd: Simd, w: &mut Work, forward: bool, repeat: usize) -> f64 {
    let mut state = state(net, simd);
    let eval = |state: &mut NnueState, pos: &Position| {
        if forward {
            black_box(state.evaluate(pos));
        } else {
            black_box(state.update_accumulators(pos));
        }
    };
    rate(|| {
        let mut n = 0;
        for (pos, ops) in w.roots.iter_mut().zip(&w.trees) {
            for _ in 0..repeat {
                state.reset(pos);
                eval(&mut state, pos);
                n += 1;
                for &op in ops {
                    match op {
                        Op::Do(m) => {
                            pos.do_move_observed(m, &mut state);
                            eval(&mut state, pos);
                            n += 1;
                        }
                        Op::Undo(m) => pos.undo_move_observed(m, &mut state),
                    }
                }
            }
        }
        n
    })
}

/// Whether to measure the general build (widths read from the net): `--any-width`.
fn any_width() -> bool {
    std::env::args().any(|a| a == "--any-width")
}

/// An evaluator of the build under test.
fn state(net: &Arc<Network>, simd: Simd) -> NnueState {
    let s = if any_width() {
        NnueState::with_simd_any_width(net.clone(), 16, simd)
    } else {
        NnueState::with_simd(net.clone(), 16, simd)
    };
    s.expect("memory for the evaluator")
}

/// The same walk without the evaluator: the do/undo share of `incremental`.
fn walk_only(w: &mut Work) -> f64 {
    rate(|| {
        let mut n = 0;
        for (pos, ops) in w.roots.iter_mut().zip(&w.trees) {
            n += 1;
            for &op in ops {
                match op {
                    Op::Do(m) => {
                        pos.do_move(m);
                        black_box(&*pos);
                        n += 1;
                    }
                    Op::Undo(m) => pos.undo_move(m),
                }
            }
        }
        n
    })
}

fn main() {
    let t = Instant::now();
    let args: Vec<String> = std::env::args().collect();
    let shape = match args.iter().position(|a| a == "--shape") {
        Some(i) => {
            let name = args.get(i + 1).map(String::as_str).unwrap_or("");
            Shape::from_name(name)
                .unwrap_or_else(|| panic!("--shape {name:?}: not a shape such as halfkp_512x2-8-64"))
        }
        None => Shape::CLASSIC,
    };
    let net = Arc::new(Network::from_bytes(&testnet::bytes_of(shape, 1, None)).expect("test net loads"));
    println!(
        "test net {shape} (seed 1) generated and loaded in {:.2} s; widths {}",
        t.elapsed().as_secs_f64(),
        if state(&net, Simd::SCALAR).fixed_widths() { "compiled in" } else { "read from the net" }
    );
    let text = include_str!("../tests/data/bench.sfen");
    let mut roots: Vec<Position> = text
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .map(|l| Position::from_sfen(l).unwrap_or_else(|e| panic!("{l}: {e}")))
        .collect();
    let mut rng = 1;
    let trees = roots
        .iter_mut()
        .map(|pos| {
            let mut ops = Vec::new();
            tree(pos, DEPTH, &mut rng, &mut ops);
            ops
        })
        .collect();
    let mut work = Work { roots, trees };
    let evals: usize = work.trees.iter().map(|t| t.len() / 2 + 1).sum();
    println!(
        "{} positions, {} evaluations per pass (trees of {} moves per node, depth {})\n",
        work.roots.len(),
        evals,
        BRANCH,
        DEPTH
    );

    let walk = walk_only(&mut work);
    println!("do/undo alone: {:>12.0} nodes/s", walk);
    let roots = &work.roots;
    let linear = rate(|| {
        for pos in roots {
            black_box(hayate::eval::linear::evaluate(black_box(pos)));
        }
        roots.len()
    });
    println!("linear evaluation (no file), full: {:>12.0} evaluations/s\n", linear);
    let heads = [
        "incremental",
        "(minus do/undo)",
        "acc update",
        "cold incremental",
        "full eval",
        "acc refresh",
        "forward pass",
    ];
    print!("{:<11}", "per second");
    for h in heads {
        print!(" {h:>15}");
    }
    println!();
    let mut results = Vec::new();
    for simd in Simd::available() {
        let inc = incremental(&net, simd, &mut work, true, REPEAT);
        // Time per evaluation minus the do/undo time per node.
        let eval_only = 1.0 / (1.0 / inc - 1.0 / walk);
        let update = incremental(&net, simd, &mut work, false, REPEAT);
        let cold = incremental(&net, simd, &mut work, true, 1);
        let roots = &work.roots;
        let mut st = state(&net, simd);
        let full = rate(|| {
            for pos in roots {
                st.reset(pos);
                black_box(st.evaluate(pos));
            }
            roots.len()
        });
        let refresh = rate(|| {
            for pos in roots {
                st.reset(pos);
                black_box(st.update_accumulators(pos));
            }
            roots.len()
        });
        // The accumulators of one root at a time are up to date after the first evaluation; the
        // next ones are the forward pass alone.
        let forward = rate(|| {
            for pos in roots {
                st.reset(pos);
                st.update_accumulators(pos);
                for _ in 0..20 {
                    black_box(st.evaluate(black_box(pos)));
                }
            }
            20 * roots.len()
        });
        let row = [inc, eval_only, update, cold, full, refresh, forward];
        print!("{:<11}", simd.name());
        for v in row {
            print!(" {v:>15.0}");
        }
        println!();
        results.push((simd, row));
    }
    // Speed-up of each SIMD kernel set over the scalar twin (the last row).
    let (_, scalar) = results.last().copied().expect("scalar always runs");
    for (simd, row) in &results[..results.len() - 1] {
        print!("{:<11}", format!("{}/sc", simd.name()));
        for (v, s) in row.iter().zip(scalar) {
            print!(" {:>14.2}x", v / s);
        }
        println!();
    }
    println!();
    for line in LEGEND {
        println!("{line}");
    }
    println!("Rates per second of thread CPU time, medians of {SAMPLES} runs.");
}

const LEGEND: [&str; 8] = [
    "incremental      evaluations along the search-like trees, with do/undo through the",
    "                 observer and the lazy accumulator updates (each root's tree walked",
    "                 several times in a row: a search stays on one root)",
    "(minus do/undo)  the same with the bare do/undo time removed",
    "acc update       the same walk, bringing only the accumulators up to date (no forward pass)",
    "cold incremental every root in turn, once: cold caches, the worst case",
    "full eval        both accumulators from scratch plus the forward pass; acc refresh: without",
    "forward pass     the layers after the transformer, accumulators up to date (20 per refresh)",
];
