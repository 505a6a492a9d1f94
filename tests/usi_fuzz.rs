//! A USI session of random and mutated command lines through the real binary (issue 12): the
//! engine must neither crash nor hang, and must still answer a final `isready` with `readyok`.
//!
//! Seeded and bounded: `HAYATE_FUZZ_SEED` (default 1) picks the lines, `HAYATE_FUZZ_LINES`
//! (default 20,000) how many, and no more are sent after `HAYATE_FUZZ_SECONDS` (default 120).
//! `HAYATE_FUZZ_DUMP=file` writes the lines sent there, to replay a failure by hand.
//! A long run: `HAYATE_FUZZ_LINES=1000000 HAYATE_FUZZ_SECONDS=3600 cargo test --release --test
//! usi_fuzz -- --nocapture`.

mod common;

use common::engine::{Engine, Next};
use std::io::Write;
use std::time::{Duration, Instant};

/// xorshift64*: a small deterministic generator.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }

    fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len())]
    }
}

/// Well-formed commands, the material the mutations start from.
const TEMPLATES: &[&str] = &[
    "usi",
    "isready",
    "usinewgame",
    "position startpos",
    "position startpos moves 7g7f 3c3d 8h2b+ 3a2b B*4e",
    "position startpos moves 2g2f 8c8d 2f2e 8d8e 6i7h 4a3b 2e2d 2c2d 2h2d",
    "position sfen lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL w - 1",
    "position sfen 7kl/9/7G1/9/9/9/9/9/K8 b G 1",
    "position sfen l6nl/5+P1gk/2np1S3/p1p4Pp/3P2Sp1/1PPb2P1P/P5GS1/R8/LN4bKL w RGgsn5p 1 moves G*2h",
    "position sfen 4k4/9/9/9/9/9/9/9/4K4 b 2r2b4g4s4n4l18p 1",
    "go depth 3",
    "go depth 1 searchmoves 7g7f 2g2f",
    "go nodes 2000",
    "go btime 1000 wtime 1000 byoyomi 100",
    "go btime 60000 wtime 60000 binc 1000 winc 1000",
    "go byoyomi 50",
    "go movetime 30",
    "go infinite",
    "go ponder btime 1000 wtime 1000 byoyomi 100",
    "go mate 100",
    "go mate infinite",
    "go perft 3",
    "stop",
    "ponderhit",
    "ponderhit btime 1000 wtime 1000 byoyomi 100",
    "gameover win",
    "gameover lose",
    "setoption name MultiPV value 3",
    "setoption name USI_Ponder value true",
    "setoption name EvalType value Material",
    "setoption name EvalType value Auto",
    "setoption name ResignValue value 500",
    "setoption name EnteringKingRule value CSARule27",
    "setoption name MaxMovesToDraw value 10",
    "setoption name NetworkDelay2 value 0",
    "setoption name MinimumThinkingTime value 0",
    "d",
    "eval",
    "moves",
    "bench 1",
];

/// Replacement tokens: edge numbers, junk, other commands' words.
const TOKENS: &[&str] = &[
    "0",
    "-1",
    "1",
    "2147483648",
    "9223372036854775808",
    "18446744073709551616",
    "1e308",
    "NaN",
    "-0",
    "0.5",
    "",
    "startpos",
    "sfen",
    "moves",
    "go",
    "depth",
    "nodes",
    "infinite",
    "mate",
    "perft",
    "ponder",
    "searchmoves",
    "btime",
    "byoyomi",
    "binc",
    "name",
    "value",
    "7g7f",
    "8h2b",
    "P*5e",
    "+",
    "9/9/9",
    "lnsgkgsnl",
    "b",
    "w",
    "-",
    "\u{3042}",
    "resign",
    "win",
];

/// Options whose values allocate memory, start threads or name files: a fuzz run should not
/// ask for 10 GB or read /dev/zero; their handling has tests of its own (`reliability.rs`).
fn is_resource_line(line: &[u8]) -> bool {
    let lower = String::from_utf8_lossy(line).to_lowercase();
    ["thread", "hash", "evalfile", "evaldir", "book", "nodeslimit"].iter().any(|w| lower.contains(w))
        || lower.split_whitespace().next() == Some("quit")
}

fn mutate(rng: &mut Rng, line: &str) -> Vec<u8> {
    let mut tokens: Vec<Vec<u8>> = line.split(' ').map(|t| t.as_bytes().to_vec()).collect();
    for _ in 0..1 + rng.below(3) {
        let i = rng.below(tokens.len());
        match rng.below(9) {
            0 => tokens[i] = rng.pick(TOKENS).as_bytes().to_vec(),
            1 if tokens.len() > 1 => {
                tokens.remove(i);
            }
            2 => {
                let t = tokens[i].clone();
                tokens.insert(i, t);
            }
            3 => {
                let j = rng.below(tokens.len());
                tokens.swap(i, j);
            }
            4 if !tokens[i].is_empty() => {
                let k = rng.below(tokens[i].len());
                tokens[i][k] ^= 1 << rng.below(8);
            }
            5 => {
                let bytes = [0xff, 0xfe, 0x81, 0x00, b'\r', b'\t', 0x7f, 0xe3];
                let k = rng.below(tokens[i].len() + 1);
                tokens[i].insert(k, *rng.pick(&bytes));
            }
            6 => tokens.truncate(i + 1),
            7 => tokens.insert(i, rng.pick(TEMPLATES).as_bytes().to_vec()),
            _ => {
                let digits = rng.below(30) + 1;
                tokens[i] = (0..digits).map(|_| b'0' + rng.below(10) as u8).collect();
            }
        }
    }
    tokens.join(&b' ')
}

/// The lines of a fuzz session: templates (a third as they are), mutated ones, and now and then
/// pure noise.
fn line(rng: &mut Rng) -> Vec<u8> {
    loop {
        let candidate = match rng.below(12) {
            0..=3 => rng.pick(TEMPLATES).as_bytes().to_vec(),
            4..=10 => {
                let t = *rng.pick(TEMPLATES);
                mutate(rng, t)
            }
            _ => (0..rng.below(40)).map(|_| (rng.next() & 0xff) as u8).filter(|&b| b != b'\n').collect(),
        };
        if !is_resource_line(&candidate) {
            return candidate;
        }
    }
}

fn env_number(name: &str, default: u64) -> u64 {
    std::env::var(name).ok().and_then(|v| v.parse().ok()).unwrap_or(default)
}

#[test]
fn random_and_mutated_lines_leave_the_engine_answering() {
    let seed = env_number("HAYATE_FUZZ_SEED", 1);
    let lines = env_number("HAYATE_FUZZ_LINES", 20_000);
    let budget = Duration::from_secs(env_number("HAYATE_FUZZ_SECONDS", 120));
    let mut e = Engine::start();
    // Checkpoints, every SYNC_EVERY lines and at the end: a position no fuzz line sets (the
    // number of pawns in hand tells checkpoints apart), shown with `d`, then `isready`. The
    // writer waits for the `readyok` that follows the line of that checkpoint's position, so the
    // engine is never more than SYNC_EVERY lines behind, and a hang shows at the checkpoint after
    // it.
    const SYNC_EVERY: u64 = 2_000;
    let mark = |k: u64| format!("9/9/9/4k4/9/4K4/9/9/9 b RB{}P 1", k % 17 + 2);
    let checkpoint = |e: &mut Engine, k: u64| {
        let sync = format!("stop\nposition sfen {}\nd\nisready\n", mark(k));
        if e.try_send_bytes(sync.as_bytes()).is_err() {
            return false;
        }
        let want = format!("sfen {}", mark(k));
        let deadline = Instant::now() + Duration::from_secs(60);
        let mut marked = false;
        loop {
            match e.next_within(deadline.saturating_duration_since(Instant::now())) {
                Next::Line(line) if marked && line == "readyok" => return true,
                Next::Line(line) => marked |= line == want,
                Next::Timeout | Next::Ended => return false,
            }
        }
    };
    let mut rng = Rng(seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1);
    let start = Instant::now();
    // Small tables: `usinewgame` clears the whole table, thousands of times.
    e.try_send_bytes(b"setoption name USI_Hash value 16\nsetoption name MateHash value 16\n")
        .expect("write to the engine");
    let mut dump = std::env::var_os("HAYATE_FUZZ_DUMP").map(|p| std::fs::File::create(p).expect("dump file"));
    let mut sent = 0u64;
    let mut syncs = 0u64;
    let mut history: Vec<Vec<u8>> = Vec::new();
    let mut answered = true;
    while sent < lines && start.elapsed() < budget && answered {
        let l = line(&mut rng);
        if e.try_send_bytes(&[&l[..], b"\n"].concat()).is_err() {
            panic!("the engine stopped reading after {sent} lines; the last ones:\n{}", show(&history));
        }
        if let Some(f) = dump.as_mut() {
            f.write_all(&l).and_then(|_| f.write_all(b"\n")).expect("write the dump");
        }
        history.push(l);
        if history.len() > 20 {
            history.remove(0);
        }
        sent += 1;
        if sent.is_multiple_of(SYNC_EVERY) {
            answered = checkpoint(&mut e, syncs);
            syncs += 1;
        }
    }
    answered = answered && checkpoint(&mut e, syncs);
    let _ = e.try_send_bytes(b"quit\n");
    e.close_input();
    let code = e.wait_exit(Duration::from_secs(30)).and_then(|status| status.code());
    let output_lines = e.seen.len();
    eprintln!(
        "usi fuzz: seed {seed}, {sent} lines in {:.1} s, {output_lines} lines of output",
        start.elapsed().as_secs_f64()
    );
    assert!(answered, "no readyok after {sent} lines; the last ones:\n{}", show(&history));
    assert_eq!(code, Some(0), "exit after {sent} lines; the last ones:\n{}", show(&history));
}

fn show(lines: &[Vec<u8>]) -> String {
    lines.iter().map(|l| format!("{:?}\n", String::from_utf8_lossy(l))).collect()
}
