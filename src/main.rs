use hayate::perft;
use hayate::position::Position;
use std::time::Instant;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let depth: u32 = args.get(2).and_then(|s| s.parse().ok()).unwrap_or(5);
    let sfen = args
        .get(3)
        .cloned()
        .unwrap_or_else(|| hayate::position::STARTPOS.to_string());
    let bulk = !args.iter().any(|a| a == "--no-bulk");
    let mut pos = Position::from_sfen(&sfen).unwrap();
    let t = Instant::now();
    let n = perft::perft(&mut pos, depth, bulk);
    let e = t.elapsed().as_secs_f64();
    println!(
        "Nodes searched: {n} time {:.3} nps {:.1}M",
        e,
        n as f64 / e / 1e6
    );
}
