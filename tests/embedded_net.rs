//! The net embedded in the binary: its `nn.bin` export, loaded through `EvalFile`, evaluates
//! every position exactly as the embedded copy does; `EvalType` picks between the nets and the
//! linear evaluation as documented.

use hayate::engine::options::Options;
use hayate::engine::Engine;
use hayate::eval::nnue::{compact, embedded_net};
use hayate::position::{MoveList, Position};
use std::path::PathBuf;

/// An engine with `EvalType` set and a folder without a net as `EvalDir` (so that only the
/// options given here decide which net plays).
fn engine(eval_type: &str, eval_file: Option<&str>) -> Engine {
    let mut e = Engine::new(Options::default());
    e.set_option("EvalDir", "/nonexistent-hayate-eval-dir").unwrap();
    e.set_option("EvalType", eval_type).unwrap();
    if let Some(f) = eval_file {
        e.set_option("EvalFile", f).unwrap();
    }
    e.prepare();
    e
}

/// The bench positions and, from each, positions along a deterministic walk of legal moves
/// (captures, drops and promotions included).
fn positions() -> Vec<Position> {
    let mut out = Vec::new();
    let mut seed = 0x2545_F491_4F6C_DD1Du64;
    for sfen in hayate::tools::bench::positions() {
        let mut pos = Position::from_sfen(sfen).unwrap();
        out.push(pos.clone());
        for _ in 0..12 {
            let moves = MoveList::legal(&pos, false);
            if moves.as_slice().is_empty() {
                break;
            }
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            let m = moves.as_slice()[(seed % moves.as_slice().len() as u64) as usize];
            pos.do_move(m);
            out.push(pos.clone());
        }
    }
    out
}

fn evals(e: &mut Engine, positions: &[Position]) -> Vec<i32> {
    positions
        .iter()
        .map(|p| {
            e.set_position(p.clone());
            e.evaluate()
        })
        .collect()
}

#[test]
fn exported_net_loads_through_eval_file_and_evaluates_identically() {
    let path: PathBuf = std::env::temp_dir().join(format!("hayate-embedded-{}.bin", std::process::id()));
    std::fs::write(&path, compact::decode(embedded_net::BYTES).unwrap()).unwrap();
    let positions = positions();
    assert!(positions.len() > 300, "{} positions", positions.len());

    let embedded = evals(&mut engine("NNUE", None), &positions);
    let from_file = evals(&mut engine("NNUE", Some(path.to_str().unwrap())), &positions);
    let auto_file = evals(&mut engine("Auto", Some(path.to_str().unwrap())), &positions);
    let linear = evals(&mut engine("Linear", Some(path.to_str().unwrap())), &positions);
    let auto_no_file = evals(&mut engine("Auto", None), &positions);
    std::fs::remove_file(&path).ok();
    // The default (no EvalType set, no net file): the embedded net, with or without `isready`.
    let mut default = Engine::new(Options::default());
    default.set_option("EvalDir", "/nonexistent-hayate-eval-dir").unwrap();
    let unprepared = evals(&mut default, &positions);
    let messages = default.prepare();
    assert!(
        messages.iter().any(|m| m.contains(&format!("using the embedded net {}", embedded_net::NAME))),
        "{messages:?}"
    );
    assert_eq!(evals(&mut default, &positions), embedded);
    assert_eq!(unprepared, embedded);

    assert_eq!(embedded, from_file);
    assert_eq!(embedded, auto_file);
    // Without a file, Auto is the linear evaluation; Linear ignores the file.
    assert_eq!(auto_no_file, linear);
    let expected_linear: Vec<i32> = positions.iter().map(hayate::eval::linear::evaluate).collect();
    assert_eq!(linear, expected_linear);
    // The net is not the linear evaluation in disguise.
    let differ = embedded.iter().zip(&linear).filter(|(a, b)| a != b).count();
    assert!(differ > positions.len() / 2, "only {differ} of {} evaluations differ", positions.len());
}

#[test]
fn eval_type_option_values() {
    let decl = Options::default();
    assert_eq!(decl.text("EvalType"), hayate::eval::EvalType::DEFAULT_NAME);
    let mut e = Engine::new(Options::default());
    for name in hayate::eval::EvalType::NAMES {
        assert!(e.set_option("EvalType", name).is_ok(), "{name}");
        assert_eq!(hayate::eval::EvalType::from_name(name).unwrap().name(), name);
    }
    assert!(e.set_option("EvalType", "Neural").is_err());
}
