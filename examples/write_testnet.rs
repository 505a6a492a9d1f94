//! Writes a deterministic test net (`hayate::eval::nnue::testnet`) to a file, for YaneuraOu:
//! `cargo run --release --example write_testnet -- SHAPE SEED OUT [OUTPUT_BIAS]`, where SHAPE is
//! a normal shape (`halfkp_256x2-32-32`, `halfkpe9_32x2-32-32`) or an SFNN one
//! (`SFNN_halfka2_128_7_32_k3k3`). OUTPUT_BIAS (normal shapes only) replaces the output bias.

use hayate::eval::nnue::sfnn::SfnnShape;
use hayate::eval::nnue::{testnet, Shape};
use std::process::ExitCode;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [name, seed, out, rest @ ..] = &args[..] else {
        eprintln!("usage: write_testnet SHAPE SEED OUT [OUTPUT_BIAS]");
        return ExitCode::from(2);
    };
    let Ok(seed) = seed.parse::<u64>() else {
        eprintln!("seed `{seed}` is not a number");
        return ExitCode::from(2);
    };
    let bias = match rest {
        [] => None,
        [b] => match b.parse::<i32>() {
            Ok(b) => Some(b),
            Err(_) => {
                eprintln!("output bias `{b}` is not a number");
                return ExitCode::from(2);
            }
        },
        _ => {
            eprintln!("usage: write_testnet SHAPE SEED OUT [OUTPUT_BIAS]");
            return ExitCode::from(2);
        }
    };
    let bytes = match (SfnnShape::from_name(name), Shape::from_name(name)) {
        (Ok(Some(s)), _) if bias.is_none() => testnet::sfnn_bytes(s, seed),
        (Ok(Some(_)), _) => {
            eprintln!("an SFNN test net has no output bias to replace");
            return ExitCode::from(2);
        }
        (Err(e), _) => {
            eprintln!("{e}");
            return ExitCode::from(2);
        }
        (Ok(None), Some(s)) => testnet::bytes_of(s, seed, bias),
        (Ok(None), None) => {
            eprintln!("`{name}` names no shape (halfkp_256x2-32-32, SFNN_halfka2_1024_7_64_k3k3, ...)");
            return ExitCode::from(2);
        }
    };
    if let Err(e) = std::fs::write(out, &bytes) {
        eprintln!("cannot write {out}: {e}");
        return ExitCode::FAILURE;
    }
    println!("{name} seed {seed}: {} bytes to {out}", bytes.len());
    ExitCode::SUCCESS
}
