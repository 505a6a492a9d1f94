//! NNUE evaluator proofs:
//! - the golden values YaneuraOu printed for the test nets of every shape in `tests/data/nnue/`
//!   (halfkp 256, 512x2-8-64, 768x2-16-64, 1024x2-8-32, kp, halfkpvm, halfkahm2, halfkpe9 256 and
//!   32, SFNN halfka2 1024_7_64_k3k3 and 128_7_32_k3k3, halfkahm2_64_16_32), on the SIMD
//!   and the scalar kernels, through the full refresh and through `NnueState`, with the widths
//!   compiled in and read from the net;
//! - incremental accumulators equal a full refresh along random games with undo and null moves,
//!   for every feature set (king moves, mirroring, king planes, attack counts);
//! - every bad file is an `Err` with a message naming the problem, and files YaneuraOu loads
//!   despite wrong hashes or strings load here too, with a warning.
//!
//! The test nets are rebuilt in memory byte for byte from the generator's definition
//! (`docs/nnue-format.md`, "Test nets"; `hayate::eval::nnue::testnet`) and fed through the real
//! loader.

use hayate::eval::nnue::sfnn::SfnnShape;
use hayate::eval::nnue::{
    evaluate_full_with, testnet, Accumulator, FeatureKind, Network, NnueError, NnueState, Shape, Simd,
};
use hayate::position::{MoveList, Position};
use hayate::splitmix::next as rand;
use hayate::types::{Move, MoveKind, PieceType};
use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};

// ------------------------------------------------------------------ the test nets

fn shape(name: &str) -> Shape {
    Shape::from_name(name).unwrap_or_else(|| panic!("{name}"))
}

/// The bytes `gen_testnet.py OUT seed [output_bias] --arch SHAPE` writes (built in memory; the
/// golden rows below are what proves the generator right).
fn testnet_bytes(s: Shape, seed: u64, output_bias: Option<i32>) -> Vec<u8> {
    let bytes = testnet::bytes_of(s, seed, output_bias);
    assert_eq!(bytes.len(), s.file_bytes());
    bytes
}

fn seed1_bytes() -> &'static [u8] {
    static BYTES: OnceLock<Vec<u8>> = OnceLock::new();
    BYTES.get_or_init(|| testnet_bytes(Shape::CLASSIC, 1, None))
}

/// The test net `seed` of `name` (with an output bias), loaded once per test binary.
fn net(name: &str, seed: u64, output_bias: Option<i32>) -> Arc<Network> {
    type Key = (String, u64, Option<i32>);
    static NETS: OnceLock<Mutex<HashMap<Key, Arc<Network>>>> = OnceLock::new();
    let key = (name.to_string(), seed, output_bias);
    if let Some(n) = NETS.get_or_init(Default::default).lock().unwrap().get(&key) {
        return n.clone();
    }
    let n = if (name, seed, output_bias) == ("halfkp_256x2-32-32", 1, None) {
        Network::from_bytes(seed1_bytes())
    } else {
        Network::from_bytes(&testnet_bytes(shape(name), seed, output_bias))
    };
    let n = Arc::new(n.unwrap_or_else(|e| panic!("{name}: {e}")));
    assert_eq!(n.shape(), shape(name));
    // Hashes and string agree with the size; a small shape's size may also fit another shape.
    assert!(n.warnings().iter().all(|w| w.starts_with("the size also fits")), "{name}: {:?}", n.warnings());
    NETS.get().unwrap().lock().unwrap().insert(key, n.clone());
    n
}

fn seed1() -> Arc<Network> {
    net("halfkp_256x2-32-32", 1, None)
}

/// The kernels to prove: scalar always, and every SIMD set (AVX2, AVX-VNNI, AVX-512, SSE4.1) this
/// CPU and build have.
fn kernels() -> Vec<Simd> {
    let v = Simd::available();
    assert!(v.contains(&Simd::SCALAR));
    v
}

// ------------------------------------------------------------------ golden values

fn golden(name: &str) -> Vec<(String, i32)> {
    let path = format!("{}/tests/data/nnue/{name}", env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    text.lines()
        .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
        .map(|l| {
            let (sfen, v) = l.split_once('\t').expect("SFEN TAB value");
            (sfen.to_string(), v.trim().parse().expect("integer value"))
        })
        .collect()
}

/// Every row on every kernel, through the full refresh and through a fresh `NnueState` of each
/// build (the widths compiled in where they are, and read from the net); all mismatches are
/// reported at once.
fn check_golden(file: &str, net: Arc<Network>, fv_scale: i32) {
    let rows = golden(file);
    assert_eq!(rows.len(), 311, "{file}");
    let mut bad = Vec::new();
    for simd in kernels() {
        let mut fixed = NnueState::with_simd(net.clone(), fv_scale, simd).unwrap();
        let mut any = NnueState::with_simd_any_width(net.clone(), fv_scale, simd).unwrap();
        assert!(!any.fixed_widths());
        for (sfen, want) in &rows {
            let pos = Position::from_sfen(sfen).unwrap_or_else(|e| panic!("{sfen}: {e}"));
            let full = evaluate_full_with(&net, &pos, fv_scale, simd);
            fixed.reset(&pos);
            any.reset(&pos);
            let (a, b) = (fixed.evaluate(&pos), any.evaluate(&pos));
            if full != Some(*want) || a != Some(*want) || b != Some(*want) {
                bad.push(format!("{}: {sfen}: want {want}, full {full:?}, states {a:?} {b:?}", simd.name()));
            }
        }
    }
    let n = bad.len();
    bad.truncate(10);
    assert!(n == 0, "{file}: {n} mismatches, the first:\n{}", bad.join("\n"));
}

#[test]
fn golden_seed1_fv16() {
    check_golden("seed1_fv16.tsv", seed1(), 16);
}

#[test]
fn golden_seed7_bias_fv16() {
    check_golden("seed7_bias-20000_fv16.tsv", net("halfkp_256x2-32-32", 7, Some(-20000)), 16);
}

#[test]
fn golden_seed7_bias_fv24() {
    check_golden("seed7_bias-20000_fv24.tsv", net("halfkp_256x2-32-32", 7, Some(-20000)), 24);
}

/// The golden set of the seed-1 test net of shape `name` (the file `<name>_seed1_fv16.tsv`).
fn golden_shape(name: &str) {
    let n = net(name, 1, None);
    check_golden(&format!("{name}_seed1_fv16.tsv"), n, 16);
}

#[test]
fn golden_halfkp_512x2_8_64() {
    golden_shape("halfkp_512x2-8-64");
}

#[test]
fn golden_halfkp_768x2_16_64() {
    golden_shape("halfkp_768x2-16-64");
}

#[test]
fn golden_halfkp_1024x2_8_32() {
    golden_shape("halfkp_1024x2-8-32");
}

#[test]
fn golden_kp_256x2_32_32() {
    golden_shape("kp_256x2-32-32");
}

#[test]
fn golden_halfkpvm_256x2_32_32() {
    golden_shape("halfkpvm_256x2-32-32");
}

#[test]
fn golden_halfkahm2_256x2_32_32() {
    golden_shape("halfkahm2_256x2-32-32");
}

/// The SFNN test net `seed` of `name` (`testnet::sfnn_bytes`), loaded once per test binary.
fn sfnn_net(name: &str, seed: u64) -> Arc<Network> {
    type Nets = Mutex<HashMap<(String, u64), Arc<Network>>>;
    static NETS: OnceLock<Nets> = OnceLock::new();
    let key = (name.to_string(), seed);
    if let Some(n) = NETS.get_or_init(Default::default).lock().unwrap().get(&key) {
        return n.clone();
    }
    let s = SfnnShape::from_name(name).unwrap().unwrap();
    let n = Arc::new(
        Network::from_bytes(&testnet::sfnn_bytes(s, seed)).unwrap_or_else(|e| panic!("{name}: {e}")),
    );
    assert_eq!(n.sfnn_shape(), Some(s));
    assert_eq!(n.shape_name(), name);
    assert!(n.warnings().is_empty(), "{name}: {:?}", n.warnings());
    NETS.get().unwrap().lock().unwrap().insert(key, n.clone());
    n
}

/// The golden set of the seed-1 SFNN test net of shape `name` (the file `<name>_seed1_fv16.tsv`).
fn golden_sfnn(name: &str) {
    check_golden(&format!("{name}_seed1_fv16.tsv"), sfnn_net(name, 1), 16);
}

#[test]
fn golden_sfnn_halfka2_128_7_32_k3k3() {
    // The shortcut (H1 = 7) and the nine king-rank layer stacks.
    golden_sfnn("SFNN_halfka2_128_7_32_k3k3");
}

#[test]
fn golden_sfnn_halfka2_1024_7_64_k3k3() {
    // Suisho 11's shape (a 135 MB test net; the refresh cache).
    golden_sfnn("SFNN_halfka2_1024_7_64_k3k3");
}

#[test]
fn golden_sfnn_halfkahm2_64_16_32() {
    // No shortcut (H1 = 16), one layer stack, a transformer narrower than 128 (YaneuraOu's
    // small-width path), mirroring.
    golden_sfnn("SFNN_halfkahm2_64_16_32");
}

/// halfkpe9 at the usual width: a 578 MB net, built and checked once.
#[test]
fn golden_halfkpe9_256x2_32_32() {
    golden_shape("halfkpe9_256x2-32-32");
}

/// halfkpe9 on the general build (a YaneuraOu build generated for the shape).
#[test]
fn golden_halfkpe9_32x2_32_32() {
    golden_shape("halfkpe9_32x2-32-32");
}

// ------------------------------------------------------------------ incremental updates

#[derive(Default, Debug)]
struct Seen {
    checks: usize,
    captures: usize,
    promotions: usize,
    drops: usize,
    king_moves: usize,
    undos: usize,
    null_moves: usize,
}

/// Compares the state's accumulators and value with a refresh from scratch.
fn compare(net: &Arc<Network>, state: &mut NnueState, pos: &Position, simd: Simd, seen: &mut Seen) {
    let want = Accumulator::refreshed(net, pos, Simd::SCALAR).expect("both kings");
    let got = state.accumulator(pos).expect("both kings");
    assert!(got == want, "{}: accumulator differs in {}", simd.name(), pos.to_sfen());
    let v = state.evaluate(pos);
    assert_eq!(v, evaluate_full_with(net, pos, 16, Simd::SCALAR), "{}", pos.to_sfen());
    seen.checks += 1;
}

/// A random game of up to `plies` moves from `sfen`, checking the incremental state against a
/// refresh at random moments (so that lazy updates span several plies), with random take-backs
/// and null moves.
fn random_game(state: &mut NnueState, sfen: &str, seed: u64, plies: usize, seen: &mut Seen) {
    let net = state.network().clone();
    let simd = state.simd();
    let mut rng = seed;
    let mut pos = Position::from_sfen(sfen).unwrap();
    state.reset(&pos);
    compare(&net, state, &pos, simd, seen);
    let mut line: Vec<Move> = Vec::new();
    for _ in 0..plies {
        let r = rand(&mut rng) % 100;
        if r < 8 && !line.is_empty() {
            // Take back one to three moves.
            for _ in 0..=rand(&mut rng) % 3 {
                if let Some(m) = line.pop() {
                    pos.undo_move_observed(m, state);
                    seen.undos += 1;
                }
            }
            compare(&net, state, &pos, simd, seen);
            continue;
        }
        if r < 12 && !pos.in_check() {
            // A null move, and (as a search does) a move made under it.
            pos.do_null_move_observed(state);
            compare(&net, state, &pos, simd, seen);
            let replies = MoveList::legal(&pos, true);
            if let Some(&m) = replies.as_slice().first() {
                pos.do_move_observed(m, state);
                compare(&net, state, &pos, simd, seen);
                pos.undo_move_observed(m, state);
            }
            pos.undo_null_move_observed(state);
            seen.null_moves += 1;
        }
        let moves = MoveList::legal(&pos, true);
        if moves.is_empty() {
            break;
        }
        let m = moves.as_slice()[(rand(&mut rng) % moves.len() as u64) as usize];
        match m.kind() {
            MoveKind::Drop { .. } => seen.drops += 1,
            MoveKind::Normal { from, promote, .. } => {
                seen.captures += pos.is_capture(m) as usize;
                seen.promotions += promote as usize;
                seen.king_moves +=
                    (pos.piece_on(from).map(|p| p.piece_type()) == Some(PieceType::King)) as usize;
            }
        }
        pos.do_move_observed(m, state);
        line.push(m);
        if rand(&mut rng).is_multiple_of(3) {
            compare(&net, state, &pos, simd, seen);
        }
    }
    compare(&net, state, &pos, simd, seen);
    // Unwind the whole line, checking on the way back to the root.
    while let Some(m) = line.pop() {
        pos.undo_move_observed(m, state);
        if rand(&mut rng).is_multiple_of(4) {
            compare(&net, state, &pos, simd, seen);
        }
    }
    assert_eq!(pos.to_sfen(), Position::from_sfen(sfen).unwrap().to_sfen());
    compare(&net, state, &pos, simd, seen);
}

const STARTS: [&str; 3] = [
    hayate::position::STARTPOS,
    // Matsuri (YaneuraOu's benchmark): many captures and drops at once.
    "l6nl/5+P1gk/2np1S3/p1p4Pp/3P2Sp1/1PPb2P1P/P5GS1/R8/LN4bKL w RGgsn5p 1",
    // Two-piece handicap: the missing pieces' rows stay put through every move.
    "lnsgkgsnl/9/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL w - 1",
];

/// Random games on every kernel with the net of `name`, `games` per start position.
fn incremental(name: &str, games: u64, any_width: bool) {
    incremental_with(net(name, 1, None), name, games, any_width);
}

/// [`incremental`] with a net already loaded.
fn incremental_with(net: Arc<Network>, name: &str, games: u64, any_width: bool) {
    for simd in kernels() {
        let mut seen = Seen::default();
        let mut state = if any_width {
            NnueState::with_simd_any_width(net.clone(), 16, simd)
        } else {
            NnueState::with_simd(net.clone(), 16, simd)
        }
        .unwrap();
        for (i, sfen) in STARTS.iter().enumerate() {
            for seed in 0..games {
                random_game(&mut state, sfen, seed * 7 + i as u64, 300, &mut seen);
            }
        }
        let g = games as usize;
        assert!(
            seen.captures > 12 * g
                && seen.promotions > 2 * g
                && seen.drops > 12 * g
                && seen.king_moves > 5 * g
                && seen.undos > 5 * g
                && seen.null_moves > 5 * g,
            "{name} {}: too little variety: {seen:?}",
            simd.name()
        );
    }
}

#[test]
fn incremental_matches_refresh_along_random_games() {
    incremental("halfkp_256x2-32-32", 4, false);
}

#[test]
fn incremental_matches_refresh_for_every_feature_set() {
    // K+P (king moves are two changed rows), mirroring, both king planes, the folded plane; a
    // wide transformer with a narrow first layer; and shapes only the general build reads.
    for (name, any_width) in [
        ("kp_256x2-32-32", false),
        ("halfkpvm_256x2-32-32", false),
        ("halfka1_256x2-32-32", false),
        ("halfkahm2_256x2-32-32", false),
        ("halfkp_512x2-8-64", false),
        ("kp_144x2-15-40", true),
        ("halfka2_48x2-16-8", true),
        ("halfkahm1_32x2-8-8", true),
        // Kings as features, mirrored, through the refresh cache (512 wide).
        ("halfkahm1_512x2-8-8", true),
        // Attack counts: every move re-plans the pieces whose squares' counts change.
        ("halfkpe9_32x2-32-32", true),
    ] {
        incremental(name, 1, any_width);
    }
}

#[test]
fn sfnn_incremental_matches_refresh() {
    // k3k3 buckets; no buckets and a narrow transformer; the refresh cache (512 wide), mirrored.
    for name in ["SFNN_halfka2_128_7_32_k3k3", "SFNN_halfkahm2_64_16_32", "SFNN_halfkahm2_512_8_32"] {
        incremental_with(sfnn_net(name, 1), name, 1, false);
    }
}

/// Long stretches without an evaluation: the lazy walk-back gives up on chains that cost more
/// than a refresh, and entries left uncomputed below the top are filled in correctly later.
#[test]
fn long_lazy_chains() {
    for name in ["halfkp_256x2-32-32", "kp_256x2-32-32", "halfka1_256x2-32-32", "halfkpe9_32x2-32-32"] {
        let net = net(name, 1, None);
        for simd in kernels() {
            let mut seen = Seen::default();
            let mut rng = 5;
            let mut pos = Position::startpos();
            let mut state = NnueState::with_simd(net.clone(), 16, simd).unwrap();
            state.reset(&pos);
            let mut line = Vec::new();
            // Deeper than the stack's first allocation: it grows on the way.
            for ply in 1..=150 {
                let moves = MoveList::legal(&pos, true);
                if moves.is_empty() {
                    break;
                }
                let m = moves.as_slice()[(rand(&mut rng) % moves.len() as u64) as usize];
                pos.do_move_observed(m, &mut state);
                line.push(m);
                if ply % 50 == 0 {
                    compare(&net, &mut state, &pos, simd, &mut seen);
                }
            }
            while !line.is_empty() {
                for _ in 0..17 {
                    if let Some(m) = line.pop() {
                        pos.undo_move_observed(m, &mut state);
                    }
                }
                compare(&net, &mut state, &pos, simd, &mut seen);
            }
            assert!(seen.checks >= 5, "{name}: {seen:?}");
        }
    }
}

#[test]
fn kernels_agree_on_accumulators_and_values() {
    let net = net("halfkp_256x2-32-32", 7, Some(-20000));
    let mut rng = 99;
    let mut pos = Position::startpos();
    for _ in 0..200 {
        let a = Accumulator::refreshed(&net, &pos, Simd::SCALAR).unwrap();
        for simd in kernels() {
            let b = Accumulator::refreshed(&net, &pos, simd).unwrap();
            assert!(a == b, "{}: {}", simd.name(), pos.to_sfen());
            for fv in [1, 16, 24] {
                assert_eq!(
                    evaluate_full_with(&net, &pos, fv, Simd::SCALAR),
                    evaluate_full_with(&net, &pos, fv, simd),
                    "{}: {}",
                    simd.name(),
                    pos.to_sfen()
                );
            }
        }
        let moves = MoveList::legal(&pos, true);
        if moves.is_empty() {
            break;
        }
        pos.do_move(moves.as_slice()[(rand(&mut rng) % moves.len() as u64) as usize]);
    }
}

#[test]
fn positions_without_a_king_evaluate_to_none() {
    // A tsume problem: black (attacking) has no king.
    let sfen = "4k4/9/4P4/9/9/9/9/9/9 b G2r2b3g4s4n4l17p 1";
    for name in ["halfkp_256x2-32-32", "kp_256x2-32-32"] {
        let net = net(name, 1, None);
        let mut pos = Position::from_sfen(sfen).unwrap();
        for simd in kernels() {
            assert_eq!(evaluate_full_with(&net, &pos, 16, simd), None);
            assert!(Accumulator::refreshed(&net, &pos, simd).is_none());
            let mut state = NnueState::with_simd(net.clone(), 16, simd).unwrap();
            state.reset(&pos);
            assert_eq!(state.evaluate(&pos), None);
            let m = Move::from_usi("G*5b").unwrap();
            pos.do_move_observed(m, &mut state);
            assert_eq!(state.evaluate(&pos), None);
            pos.undo_move_observed(m, &mut state);
            assert_eq!(state.evaluate(&pos), None);
            // The same state follows a normal position again after a reset.
            let start = Position::startpos();
            state.reset(&start);
            assert_eq!(state.evaluate(&start), evaluate_full_with(&net, &start, 16, simd));
        }
    }
}

// ------------------------------------------------------------------ loading

fn load_err(bytes: &[u8]) -> NnueError {
    match Network::from_bytes(bytes) {
        Ok(n) => panic!("a bad file loaded as {}", n.shape()),
        Err(e) => e,
    }
}

#[test]
fn loader_rejects_bad_files() {
    let good = seed1_bytes();
    assert_eq!(good.len(), 64_217_066);

    for len in [0, 3, 11, 100] {
        let e = load_err(&good[..len]);
        assert!(matches!(e, NnueError::Truncated { len: l } if l == len), "{len}: {e:?}");
        assert!(e.to_string().contains("truncated"), "{e}");
    }
    for len in [191, good.len() / 2, good.len() - 1] {
        let e = load_err(&good[..len]);
        assert!(matches!(e, NnueError::Size { .. }), "{len}: {e:?}");
        let text = e.to_string();
        assert!(
            text.contains("describes itself as halfkp_256x2-32-32, which takes 64217066 bytes"),
            "{text}"
        );
        assert!(text.contains(&format!("truncated by {}", good.len() - len)), "{text}");
    }

    let mut long = good.to_vec();
    long.push(0);
    let e = load_err(&long);
    assert!(e.to_string().contains("too long by 1"), "{e}");
    drop(long);

    let mut bad = good.to_vec();
    bad[0] ^= 0x40;
    let e = load_err(&bad);
    assert!(matches!(e, NnueError::Version { .. }) && e.to_string().contains("0x7AF32F16"), "{e}");
}

/// The bytes of an SFNN test net with the body of the LEB128 block at `at` replaced by `body`
/// (its byte count fixed up).
fn with_leb128_body(good: &[u8], at: usize, body: &[u8]) -> Vec<u8> {
    let n = u32::from_le_bytes(good[at + 17..at + 21].try_into().unwrap()) as usize;
    let mut b = good[..at + 17].to_vec();
    b.extend_from_slice(&(body.len() as u32).to_le_bytes());
    b.extend_from_slice(body);
    b.extend_from_slice(&good[at + 21 + n..]);
    b
}

#[test]
fn sfnn_loader_rejects_bad_files() {
    let shape = SfnnShape::from_name("SFNN_halfkahm2_64_16_32").unwrap().unwrap();
    let good = testnet::sfnn_bytes(shape, 1);
    assert!(Network::from_bytes(&good).is_ok());
    let arch = shape.architecture();
    // The transformer biases' block, then the weights' block.
    let biases = 12 + arch.len() + 4;
    assert_eq!(&good[biases..biases + 17], b"COMPRESSED_LEB128");
    let n = u32::from_le_bytes(good[biases + 17..biases + 21].try_into().unwrap()) as usize;
    let weights = biases + 21 + n;
    assert_eq!(&good[weights..weights + 17], b"COMPRESSED_LEB128");
    let text = |b: &[u8]| load_err(b).to_string();

    // Truncated inside the weights' block: the block announces more than the file holds.
    let e = text(&good[..weights + 1000]);
    assert!(e.contains("transformer weights' LEB128 block announces") && e.contains("left"), "{e}");
    // Truncated inside the layer stacks, and one byte too many.
    let e = text(&good[..good.len() - 1]);
    assert!(e.contains("ends inside its layer stacks"), "{e}");
    let mut long = good.clone();
    long.push(0);
    assert!(text(&long).contains("goes on for 1 bytes after its 1 layer stacks"));
    // A wrong marker.
    let mut bad = good.clone();
    bad[weights + 3] ^= 0x20;
    let e = text(&bad);
    assert!(e.contains("no COMPRESSED_LEB128 marker before the SFNN transformer weights"), "{e}");
    // An overlong varint (4 bytes for an i16) as the first bias, then the rest of the block.
    let body = &good[biases + 21..biases + 21 + n];
    let first = body.iter().position(|b| b & 0x80 == 0).unwrap() + 1;
    let mut overlong = vec![0x80, 0x80, 0x80, 0x00];
    overlong.extend_from_slice(&body[first..]);
    let e = text(&with_leb128_body(&good, biases, &overlong));
    assert!(e.contains("transformer biases' LEB128 block") && e.contains("value 0 runs past 3 bytes"), "{e}");
    // A block one value short (and one byte too short for its values), and one with a value
    // too many.
    let e = text(&with_leb128_body(&good, biases, &body[first..]));
    assert!(e.contains("ends inside value 63 of 64"), "{e}");
    let e = text(&with_leb128_body(&good, biases, &body[..63]));
    assert!(e.contains("block of 63 bytes cannot hold its 64 values"), "{e}");
    let mut more = body.to_vec();
    more.push(0);
    let e = text(&with_leb128_body(&good, biases, &more));
    assert!(e.contains("its 64 values end after"), "{e}");

    // Damage anywhere (a byte changed, the file cut short) is an error or a net, never a panic;
    // a damaged width in the string does not make the loader ask for its memory.
    let mut rng = 0xBAD_u64;
    for i in 0..200 {
        let mut b = good.clone();
        let at = (rand(&mut rng) % b.len() as u64) as usize;
        let at = if i % 2 == 0 { at % (weights + 64) } else { at }; // often the header and blocks
        b[at] ^= 1 << (rand(&mut rng) % 8);
        if i % 5 == 0 {
            b.truncate(at);
        }
        let _ = Network::from_bytes(&b);
    }

    // Layer-stack suffixes other than k3k3 are named and refused.
    for (network, says) in [
        ("SFNN_HALFKAHM2_64_16_32_HAND64_K3K3", "hand64_k3k3"),
        ("SFNN_HALFKAHM2_64_16_32_K3K3_PROGRESS8", "k3k3_progress8"),
        ("SFNN_HALFKAHM2_64_16_32_K9K9", "k9k9"),
        ("SFNN_HALFKAHM2_64_16_32_C0_S32X2_K3K3", "common+shard"),
    ] {
        let arch = arch.replace("SFNN_HALFKAHM2_64_16_32", network);
        let mut b = good[..4].to_vec();
        b.extend_from_slice(&good[4..8]);
        b.extend_from_slice(&(arch.len() as u32).to_le_bytes());
        b.extend_from_slice(arch.as_bytes());
        b.extend_from_slice(&good[12 + shape.architecture().len()..]);
        let e = load_err(&b);
        let t = e.to_string();
        assert!(matches!(e, NnueError::Sfnn { .. }), "{t}");
        assert!(t.contains(says) && t.contains("no layer-stack suffix or k3k3"), "{network}: {t}");
    }
}

/// What YaneuraOu loads despite it (wrong hashes, a wrong or missing architecture string) loads
/// here too, read by its size, with a warning naming each disagreement.
#[test]
fn wrong_hashes_and_strings_warn() {
    let good = seed1_bytes();
    let arch = Shape::CLASSIC.architecture();
    let ft_hash = 12 + arch.len();
    let net_hash = ft_hash + 4 + 512 + 125_388 * 512;
    for (offset, word) in [(4, "file hash"), (ft_hash, "transformer hash"), (net_hash + 1, "network hash")] {
        let mut bytes = good.to_vec();
        bytes[offset] ^= 0x40;
        let n = Network::from_bytes(&bytes).unwrap_or_else(|e| panic!("{word}: {e}"));
        assert_eq!(n.shape(), Shape::CLASSIC);
        assert!(n.warnings().iter().any(|w| w.contains(word)), "{word}: {:?}", n.warnings());
    }
    // nnue-pytorch's shogi branches write the classic string whatever the shape: the size wins.
    let kp = shape("kp_256x2-32-32");
    let mut bytes = testnet_bytes(kp, 1, None);
    let kp_arch = kp.architecture();
    let mut rebuilt = bytes[..8].to_vec();
    rebuilt.extend_from_slice(&(arch.len() as u32).to_le_bytes());
    rebuilt.extend_from_slice(arch.as_bytes());
    rebuilt.extend_from_slice(&bytes[12 + kp_arch.len()..]);
    let n = Network::from_bytes(&rebuilt).unwrap();
    assert_eq!(n.shape(), kp);
    assert!(
        n.warnings().iter().any(|w| w.contains("describes itself as halfkp_256x2-32-32")),
        "{:?}",
        n.warnings()
    );
    assert_eq!(n.architecture(), arch);
    // And an empty string with a zero hash (some trainers) still reads by size.
    bytes.splice(4..12 + kp_arch.len(), [0u8; 8]);
    let n = Network::from_bytes(&bytes).unwrap();
    assert_eq!(n.shape(), kp);
    let start = Position::startpos();
    assert_eq!(
        evaluate_full_with(&Arc::new(n), &start, 16, Simd::SCALAR),
        evaluate_full_with(&net("kp_256x2-32-32", 1, None), &start, 16, Simd::SCALAR)
    );
}

#[test]
fn every_feature_set_of_the_family_loads() {
    // The narrowest halfkpe9 net (36 MB), all zeros but the header: read by its size.
    let s = shape("halfkpe9_16x2-8-8");
    let mut bytes = vec![0u8; 12];
    bytes[..4].copy_from_slice(&0x7AF3_2F16u32.to_le_bytes());
    bytes.resize(12 + s.body_bytes(), 0);
    let n = Network::from_bytes(&bytes).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(n.shape(), s);
    for kind in FeatureKind::ALL {
        let s = Shape { features: kind, ft: 16, h1: 8, h2: 8 };
        let n =
            Arc::new(Network::from_bytes(&testnet_bytes(s, 2, None)).unwrap_or_else(|e| panic!("{s}: {e}")));
        assert!(evaluate_full_with(&n, &Position::startpos(), 16, Simd::SCALAR).is_some(), "{s}");
    }
}

#[test]
fn load_reports_unreadable_files() {
    let missing = std::env::temp_dir().join("hayate-nnue-test-does-not-exist/nn.bin");
    let e = Network::load(&missing).unwrap_err();
    assert!(matches!(e, NnueError::Io { .. }), "{e:?}");
    assert!(e.to_string().contains("nn.bin"), "{e}");

    let dir = std::env::temp_dir().join(format!("hayate-nnue-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("short.bin");
    std::fs::write(&path, &seed1_bytes()[..1000]).unwrap();
    let e = Network::load(&path).unwrap_err();
    assert!(matches!(e, NnueError::Size { len: 1000, .. }), "{e:?}");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A composed position with more pawns in hand than a game has lists one row twice (the 19th
/// and 20th pawns spill into the enemy's pawn numbers): the refresh cache cannot hold it as a set
/// and refreshes it the plain way, and the positions after it still evaluate exactly.
#[test]
fn repeated_rows_refresh_the_plain_way() {
    use hayate::position::PieceLimits;
    // 512 wide: the width from which refreshes go through the cache.
    let net = net("halfkp_512x2-8-64", 1, None);
    let crowded = "4k4/9/9/9/9/9/9/9/4K4 b 20Pp 1";
    let pos = Position::from_sfen_with(crowded, PieceLimits::Extended).expect("a composed position");
    for simd in kernels() {
        let mut state = NnueState::with_simd(net.clone(), 16, simd).unwrap();
        // Warm the cache at both kings' squares with an ordinary position first.
        let ordinary = Position::from_sfen("4k4/9/9/9/9/9/9/9/4K4 b 2Pp 1").unwrap();
        state.reset(&ordinary);
        assert_eq!(state.evaluate(&ordinary), evaluate_full_with(&net, &ordinary, 16, Simd::SCALAR));
        state.reset(&pos);
        assert_eq!(state.evaluate(&pos), evaluate_full_with(&net, &pos, 16, Simd::SCALAR));
        state.reset(&ordinary);
        assert_eq!(state.evaluate(&ordinary), evaluate_full_with(&net, &ordinary, 16, Simd::SCALAR));
        // A king move from the crowded position refreshes through the cache again.
        let mut p = pos.clone();
        state.reset(&p);
        let m = Move::from_usi("5i4h").unwrap();
        p.do_move_observed(m, &mut state);
        assert_eq!(state.evaluate(&p), evaluate_full_with(&net, &p, 16, Simd::SCALAR), "{}", simd.name());
    }
}
