//! NNUE evaluator proofs:
//! - the golden values YaneuraOu printed for the test nets (`tests/data/nnue/`), on the SIMD and
//!   the scalar kernels, through the full refresh and through `NnueState`;
//! - incremental accumulators equal a full refresh along random games with undo and null moves;
//! - every loader error is an `Err` with a message naming the problem.
//!
//! The test nets are rebuilt in memory byte for byte from the generator's definition
//! (`docs/nnue-format.md`, "Test nets"; `hayate::eval::nnue::testnet`) and fed through the real
//! loader.

use hayate::eval::nnue::network::ARCHITECTURE;
use hayate::eval::nnue::{
    evaluate_full_with, testnet, Accumulator, Network, NnueError, NnueState, Simd, NUM_FEATURES,
};
use hayate::position::{MoveList, Position};
use hayate::splitmix::next as rand;
use hayate::types::{Move, MoveKind, PieceType};
use std::sync::{Arc, OnceLock};

// ------------------------------------------------------------------ the test nets

/// The bytes `gen_testnet.py OUT seed [output_bias]` writes (built in memory; the golden rows
/// below are what proves the generator right).
fn testnet_bytes(seed: u64, output_bias: Option<i32>) -> Vec<u8> {
    let bytes = testnet::bytes(seed, output_bias);
    assert_eq!(bytes.len(), 64_217_066);
    bytes
}

fn seed1_bytes() -> &'static [u8] {
    static BYTES: OnceLock<Vec<u8>> = OnceLock::new();
    BYTES.get_or_init(|| testnet_bytes(1, None))
}

fn seed1() -> Arc<Network> {
    static NET: OnceLock<Arc<Network>> = OnceLock::new();
    NET.get_or_init(|| Arc::new(Network::from_bytes(seed1_bytes()).expect("seed 1 net loads"))).clone()
}

fn seed7_bias() -> Arc<Network> {
    static NET: OnceLock<Arc<Network>> = OnceLock::new();
    NET.get_or_init(|| {
        let bytes = testnet_bytes(7, Some(-20000));
        Arc::new(Network::from_bytes(&bytes).expect("seed 7 net loads"))
    })
    .clone()
}

/// The kernels to prove: scalar always, and every SIMD set (AVX2, AVX-VNNI, AVX-512) this CPU and
/// build have.
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

/// Every row on every kernel, through the full refresh and through a fresh `NnueState`; all
/// mismatches are reported at once.
fn check_golden(name: &str, net: Arc<Network>, fv_scale: i32) {
    let rows = golden(name);
    assert_eq!(rows.len(), 311, "{name}");
    let mut bad = Vec::new();
    for simd in kernels() {
        let mut state = NnueState::with_simd(net.clone(), fv_scale, simd);
        for (sfen, want) in &rows {
            let pos = Position::from_sfen(sfen).unwrap_or_else(|e| panic!("{sfen}: {e}"));
            let full = evaluate_full_with(&net, &pos, fv_scale, simd);
            state.reset(&pos);
            let inc = state.evaluate(&pos);
            if full != Some(*want) || inc != Some(*want) {
                bad.push(format!("{}: {sfen}: want {want}, full {full:?}, state {inc:?}", simd.name()));
            }
        }
    }
    assert!(bad.is_empty(), "{name}: {} mismatches:\n{}", bad.len(), bad.join("\n"));
}

#[test]
fn golden_seed1_fv16() {
    check_golden("seed1_fv16.tsv", seed1(), 16);
}

#[test]
fn golden_seed7_bias_fv16() {
    check_golden("seed7_bias-20000_fv16.tsv", seed7_bias(), 16);
}

#[test]
fn golden_seed7_bias_fv24() {
    check_golden("seed7_bias-20000_fv24.tsv", seed7_bias(), 24);
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
fn compare(net: &Network, state: &mut NnueState, pos: &Position, simd: Simd, seen: &mut Seen) {
    let want = Accumulator::refreshed(net, pos, simd).expect("both kings");
    let got = state.accumulator(pos).expect("both kings").clone();
    assert!(got == want, "accumulator differs in {}", pos.to_sfen());
    let v = state.evaluate(pos);
    assert_eq!(v, evaluate_full_with(net, pos, 16, Simd::SCALAR), "{}", pos.to_sfen());
    seen.checks += 1;
}

/// A random game of up to `plies` moves from `sfen`, checking the incremental state against a
/// refresh at random moments (so that lazy updates span several plies), with random take-backs
/// and null moves.
fn random_game(net: &Arc<Network>, simd: Simd, sfen: &str, seed: u64, plies: usize, seen: &mut Seen) {
    let mut rng = seed;
    let mut pos = Position::from_sfen(sfen).unwrap();
    let mut state = NnueState::with_simd(net.clone(), 16, simd);
    state.reset(&pos);
    compare(net, &mut state, &pos, simd, seen);
    let mut line: Vec<Move> = Vec::new();
    for _ in 0..plies {
        let r = rand(&mut rng) % 100;
        if r < 8 && !line.is_empty() {
            // Take back one to three moves.
            for _ in 0..=rand(&mut rng) % 3 {
                if let Some(m) = line.pop() {
                    pos.undo_move_observed(m, &mut state);
                    seen.undos += 1;
                }
            }
            compare(net, &mut state, &pos, simd, seen);
            continue;
        }
        if r < 12 && !pos.in_check() {
            // A null move, and (as a search does) a move made under it.
            pos.do_null_move_observed(&mut state);
            compare(net, &mut state, &pos, simd, seen);
            let replies = MoveList::legal(&pos, true);
            if let Some(&m) = replies.as_slice().first() {
                pos.do_move_observed(m, &mut state);
                compare(net, &mut state, &pos, simd, seen);
                pos.undo_move_observed(m, &mut state);
            }
            pos.undo_null_move_observed(&mut state);
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
        pos.do_move_observed(m, &mut state);
        line.push(m);
        if rand(&mut rng).is_multiple_of(3) {
            compare(net, &mut state, &pos, simd, seen);
        }
    }
    compare(net, &mut state, &pos, simd, seen);
    // Unwind the whole line, checking on the way back to the root.
    while let Some(m) = line.pop() {
        pos.undo_move_observed(m, &mut state);
        if rand(&mut rng).is_multiple_of(4) {
            compare(net, &mut state, &pos, simd, seen);
        }
    }
    assert_eq!(pos.to_sfen(), Position::from_sfen(sfen).unwrap().to_sfen());
    compare(net, &mut state, &pos, simd, seen);
}

#[test]
fn incremental_matches_refresh_along_random_games() {
    let net = seed1();
    let starts = [
        hayate::position::STARTPOS,
        // Matsuri (YaneuraOu's benchmark): many captures and drops at once.
        "l6nl/5+P1gk/2np1S3/p1p4Pp/3P2Sp1/1PPb2P1P/P5GS1/R8/LN4bKL w RGgsn5p 1",
        // Two-piece handicap: the missing pieces' rows stay put through every move.
        "lnsgkgsnl/9/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL w - 1",
    ];
    for simd in kernels() {
        let mut seen = Seen::default();
        for (i, sfen) in starts.iter().enumerate() {
            for seed in 0..4u64 {
                random_game(&net, simd, sfen, seed * 7 + i as u64, 300, &mut seen);
            }
        }
        assert!(
            seen.captures > 50
                && seen.promotions > 10
                && seen.drops > 50
                && seen.king_moves > 20
                && seen.undos > 20
                && seen.null_moves > 20,
            "{}: too little variety: {seen:?}",
            simd.name()
        );
    }
}

/// Long stretches without an evaluation: the lazy walk-back gives up on chains that cost more
/// than a refresh, and entries left uncomputed below the top are filled in correctly later.
#[test]
fn long_lazy_chains() {
    let net = seed1();
    for simd in kernels() {
        let mut seen = Seen::default();
        let mut rng = 5;
        let mut pos = Position::startpos();
        let mut state = NnueState::with_simd(net.clone(), 16, simd);
        state.reset(&pos);
        let mut line = Vec::new();
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
        assert!(seen.checks >= 5, "{seen:?}");
    }
}

#[test]
fn kernels_agree_on_accumulators_and_values() {
    let net = seed7_bias();
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
    let net = seed1();
    // A tsume problem: black (attacking) has no king.
    let sfen = "4k4/9/4P4/9/9/9/9/9/9 b G2r2b3g4s4n4l17p 1";
    let mut pos = Position::from_sfen(sfen).unwrap();
    for simd in kernels() {
        assert_eq!(evaluate_full_with(&net, &pos, 16, simd), None);
        assert!(Accumulator::refreshed(&net, &pos, simd).is_none());
        let mut state = NnueState::with_simd(net.clone(), 16, simd);
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

// ------------------------------------------------------------------ loader errors

fn load_err(bytes: &[u8]) -> NnueError {
    match Network::from_bytes(bytes) {
        Ok(_) => panic!("a bad file loaded"),
        Err(e) => e,
    }
}

#[test]
fn loader_rejects_bad_files() {
    let good = seed1_bytes();
    assert_eq!(good.len(), 64_217_066);

    for len in [0, 3, 11, 100, good.len() / 2, good.len() - 1] {
        let e = load_err(&good[..len]);
        assert!(matches!(e, NnueError::Truncated { len: l, .. } if l == len), "{len}: {e:?}");
        assert!(e.to_string().contains("truncated"), "{e}");
    }

    let mut long = good.to_vec();
    long.push(0);
    let e = load_err(&long);
    assert!(matches!(e, NnueError::TrailingBytes { .. }), "{e:?}");
    assert!(e.to_string().contains("1 more") && e.to_string().contains("trailing"), "{e}");
    drop(long);

    let mut bytes = good.to_vec();
    let mut corrupt = |offset: usize, check: &dyn Fn(&NnueError) -> bool, words: &[&str]| {
        bytes[offset] ^= 0x40;
        let e = load_err(&bytes);
        bytes[offset] ^= 0x40;
        assert!(check(&e), "offset {offset}: {e:?}");
        for w in words {
            assert!(e.to_string().contains(w), "{e}");
        }
    };
    corrupt(0, &|e| matches!(e, NnueError::Version { .. }), &["version", "0x7AF32F16"]);
    corrupt(4, &|e| matches!(e, NnueError::FileHash { .. }), &["file hash", "0x3E5AA6EE", "HalfKP(Friend)"]);
    let ft_hash = 12 + ARCHITECTURE.len();
    corrupt(
        ft_hash,
        &|e| matches!(e, NnueError::TransformerHash { .. }),
        &["transformer hash", "0x5D69D7B8"],
    );
    let net_hash = ft_hash + 4 + 512 + NUM_FEATURES * 512;
    corrupt(net_hash + 1, &|e| matches!(e, NnueError::NetworkHash { .. }), &["network hash", "0x63337156"]);
    // Untouched, the bytes still load.
    assert!(Network::from_bytes(&bytes).is_ok());
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
    assert!(matches!(e, NnueError::Truncated { len: 1000, .. }), "{e:?}");
    std::fs::remove_dir_all(&dir).unwrap();
}
