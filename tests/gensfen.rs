//! `hayate gensfen`: determinism, resuming, sharding and merging, the position filters, and the
//! conversion from game records to training positions. Short games at tiny node counts.

mod common;

use common::TempDir;

use hayate::tools::gensfen::convert::{convert_files, convert_files_as, Filter, Format};
use hayate::tools::gensfen::generate::{run, shard_paths, GenConfig};
use hayate::tools::gensfen::merge::merge;
use hayate::tools::gensfen::psv::{PackedSfenValue, PSV_SIZE};
use hayate::tools::gensfen::record::{self, GameRecord};
use hayate::tools::selfplay::opening::read_openings;
use hayate::tools::selfplay::player::PlayConfig;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

const GAMES: u64 = 6;

fn play_config() -> PlayConfig {
    PlayConfig {
        nodes: Some(300),
        depth: None,
        max_ply: 70,
        resign_score: 1500,
        resign_plies: 4,
        eval_limit: 1200,
        min_ply: 12,
    }
}

fn config(out: &Path, games: u64, shard: u64, shards: u64, threads: usize) -> GenConfig {
    let (openings, _) = read_openings(Path::new("tests/data/openings.txt")).unwrap();
    GenConfig {
        out: out.to_path_buf(),
        games: Some(games),
        seed: 7,
        shard,
        shards,
        threads,
        openings,
        openings_id: "openings.txt".into(),
        random_plies: 4,
        play: play_config(),
        hash_mb: 1,
        network: None,
        eval_id: "embedded".into(),
        progress_secs: 1000,
    }
}

/// A fresh folder for one test.
fn scratch(name: &str) -> TempDir {
    TempDir::new("gensfen", name)
}

/// The whole run in one piece on one thread: the reference the other tests compare with.
fn reference() -> &'static (PathBuf, PathBuf) {
    static REFERENCE: OnceLock<(PathBuf, PathBuf)> = OnceLock::new();
    REFERENCE.get_or_init(|| {
        let dir = scratch("reference").keep();
        let s = run(&config(&dir, GAMES, 0, 1, 1)).unwrap();
        assert_eq!(s.stats.games, GAMES);
        assert!(s.stats.positions > 20, "{} positions", s.stats.positions);
        shard_paths(&dir, 0, 1)
    })
}

fn read(p: &Path) -> Vec<u8> {
    std::fs::read(p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

fn games_of(path: &Path) -> Vec<GameRecord> {
    let mut r = record::open(path).unwrap();
    let mut out = Vec::new();
    while let Some(p) = r.next_payload().unwrap() {
        out.push(GameRecord::decode(&p).unwrap());
    }
    out
}

#[test]
fn the_same_games_whatever_the_threads() {
    let (hgr, bin) = reference();
    let dir = scratch("threads");
    run(&config(&dir, GAMES, 0, 1, 2)).unwrap();
    let (h2, b2) = shard_paths(&dir, 0, 1);
    assert_eq!(read(&h2), read(hgr));
    assert_eq!(read(&b2), read(bin));
    let games = games_of(hgr);
    assert_eq!(games.iter().map(|g| g.index).collect::<Vec<_>>(), (0..GAMES).collect::<Vec<_>>());
}

#[test]
fn a_stopped_run_goes_on_where_it_stopped() {
    let (hgr, bin) = reference();
    // Stopped after 3 games, then the same command with the full count.
    let dir = scratch("resume");
    run(&config(&dir, 3, 0, 1, 1)).unwrap();
    let s = run(&config(&dir, GAMES, 0, 1, 1)).unwrap();
    assert_eq!((s.earlier_games, s.stats.games), (3, GAMES - 3));
    let (h, b) = shard_paths(&dir, 0, 1);
    assert_eq!(read(&h), read(hgr));
    assert_eq!(read(&b), read(bin));
    // Nothing left to do: nothing changes.
    let s = run(&config(&dir, GAMES, 0, 1, 1)).unwrap();
    assert_eq!(s.stats.games, 0);
    assert_eq!(read(&h), read(hgr));

    // Killed in the middle of writing: a torn game record and a part of its positions.
    let full_h = read(hgr);
    let full_b = read(bin);
    std::fs::write(&h, &full_h[..full_h.len() - 5]).unwrap();
    std::fs::write(&b, &full_b[..full_b.len() - 17]).unwrap();
    let s = run(&config(&dir, GAMES, 0, 1, 1)).unwrap();
    assert_eq!((s.earlier_games, s.stats.games), (GAMES - 1, 1));
    assert_eq!((read(&h), read(&b)), (full_h.clone(), full_b.clone()));
    // Positions written, game record not: the extra positions go.
    let mut longer = full_b.clone();
    longer.extend_from_slice(&full_b[..PSV_SIZE]);
    std::fs::write(&b, &longer).unwrap();
    run(&config(&dir, GAMES, 0, 1, 1)).unwrap();
    assert_eq!(read(&b), full_b);
    // The positions file lost: rebuilt from the game records.
    std::fs::remove_file(&b).unwrap();
    run(&config(&dir, GAMES, 0, 1, 1)).unwrap();
    assert_eq!(read(&b), full_b);

    // Other settings into the same folder: refused, files untouched.
    let mut other = config(&dir, GAMES, 0, 1, 1);
    other.play.nodes = Some(400);
    let e = run(&other).unwrap_err();
    assert!(e.contains("nodes: file 300, now 400"), "{e}");
    assert_eq!((read(&h), read(&b)), (full_h.clone(), full_b.clone()));
    // A second run on a shard that is being written: refused.
    let busy = std::fs::File::open(&h).unwrap();
    busy.try_lock().unwrap();
    let e = run(&config(&dir, GAMES + 2, 0, 1, 1)).unwrap_err();
    assert!(e.contains("being written by another run"), "{e}");
    drop(busy);
    assert_eq!((read(&h), read(&b)), (full_h, full_b));
}

#[test]
fn shards_merge_into_the_run_played_in_one_piece() {
    let (hgr, _) = reference();
    let dir = scratch("shards");
    let a = dir.join("a");
    let b = dir.join("b");
    run(&config(&a, GAMES, 0, 2, 1)).unwrap();
    run(&config(&b, GAMES, 1, 2, 1)).unwrap();
    let (ha, _) = shard_paths(&a, 0, 2);
    let (hb, _) = shard_paths(&b, 1, 2);
    let ia: Vec<u64> = games_of(&ha).iter().map(|g| g.index).collect();
    let ib: Vec<u64> = games_of(&hb).iter().map(|g| g.index).collect();
    assert_eq!((ia, ib), (vec![0, 2, 4], vec![1, 3, 5]));

    let merged = dir.join("merged.hgr");
    let s = merge(&[hb.clone(), ha.clone()], &merged, &dir.join("merged.bin")).unwrap();
    assert_eq!((s.games_in, s.games_out, s.duplicate_games), (GAMES, GAMES, 0));
    let whole = dir.join("whole.hgr");
    let t = merge(std::slice::from_ref(hgr), &whole, &dir.join("whole.bin")).unwrap();
    assert_eq!(s, t);
    assert_eq!(read(&merged), read(&whole));
    assert_eq!(read(&dir.join("merged.bin")), read(&dir.join("whole.bin")));
    assert_eq!(std::fs::metadata(dir.join("merged.bin")).unwrap().len(), s.positions_out * PSV_SIZE as u64);
    // The same games, in the same order (only duplicate positions may lose their mark).
    let strip = |games: Vec<GameRecord>| -> Vec<(u64, usize, Vec<hayate::types::Move>)> {
        games.into_iter().map(|g| (g.index, g.plies.len(), g.plies.iter().map(|p| p.mv).collect())).collect()
    };
    assert_eq!(strip(games_of(&merged)), strip(games_of(hgr)));
    // The header keeps the run's settings, not a shard's.
    let h = record::open(&merged).unwrap().header;
    assert_eq!((h.get("seed"), h.get("shard"), h.get("nodes")), (Some("7"), None, Some("300")));

    // A shard given twice: its games are written once.
    let again = dir.join("again.hgr");
    let u = merge(&[ha.clone(), hb, ha], &again, &dir.join("again.bin")).unwrap();
    assert_eq!((u.games_out, u.duplicate_games), (GAMES, 3));
    assert_eq!(read(&again), read(&merged));
}

#[test]
fn merging_drops_positions_seen_before() {
    // Without openings or random moves every game is the same game: after merging, only the
    // first keeps its positions.
    let dir = scratch("dedup");
    let mut c = config(&dir, 3, 0, 1, 1);
    c.openings.clear();
    c.openings_id = "none".into();
    c.random_plies = 0;
    let s = run(&c).unwrap();
    let (h, _) = shard_paths(&dir, 0, 1);
    let games = games_of(&h);
    assert_eq!(games[0].plies, games[2].plies);
    let per_game = games[0].kept() as u64;
    assert!(per_game > 0);
    assert_eq!(s.stats.positions, 3 * per_game);
    let m = merge(&[h], &dir.join("m.hgr"), &dir.join("m.bin")).unwrap();
    assert!(m.positions_out <= per_game && m.positions_out > 0);
    assert_eq!(m.games_out, 3);
    let merged = games_of(&dir.join("m.hgr"));
    assert_eq!(merged[1].kept() + merged[2].kept(), 0);
}

#[test]
fn kept_positions_pass_the_filters_and_convert_back_exactly() {
    let (hgr, bin) = reference();
    let dir = scratch("convert");
    let out = dir.join("again.bin");
    let n = convert_files(std::slice::from_ref(hgr), &out, &Filter::default()).unwrap();
    assert_eq!(read(&out), read(bin));
    let bytes = read(bin);
    assert_eq!(bytes.len() as u64, n * PSV_SIZE as u64);
    let c = play_config();
    let games = games_of(hgr);
    let mut records =
        bytes.chunks_exact(PSV_SIZE).map(|c| PackedSfenValue::from_bytes(c.try_into().unwrap()));
    let mut kinds = [0; 3];
    for g in &games {
        let mut pos = g.start.position().unwrap();
        for &m in &g.setup {
            pos.do_move(m);
        }
        for p in &g.plies {
            if p.keep {
                let r = records.next().unwrap();
                let (rp, rm) = r.position_and_move().unwrap();
                assert_eq!((rp.to_sfen(), rm), (pos.to_sfen(), p.mv));
                assert!(
                    !pos.in_check() && !pos.is_capture(p.mv) && !p.mv.is_promotion(),
                    "{}",
                    pos.to_sfen()
                );
                assert!(i32::from(r.score).abs() <= c.eval_limit && r.score as i32 == p.score);
                assert!(u32::from(r.game_ply) >= c.min_ply);
                assert_eq!(r.game_result, g.outcome.for_color(pos.side_to_move()));
                kinds[(r.game_result + 1) as usize] += 1;
            }
            pos.do_move(p.mv);
        }
        assert!(pos.game_ply() <= c.max_ply + 1);
    }
    assert!(records.next().is_none());
    assert!(kinds[0] > 0 && kinds[2] > 0, "losses, draws, wins: {kinds:?}");
    // Filters on conversion keep a subset; text has one line a position.
    let fewer =
        convert_files(std::slice::from_ref(hgr), &out, &Filter { eval_limit: Some(100), min_ply: Some(30) })
            .unwrap();
    assert!(fewer < n);
    let text_path = dir.join("all.txt");
    let lines =
        convert_files_as(std::slice::from_ref(hgr), &text_path, &Filter::default(), Format::Text).unwrap();
    assert_eq!(lines, n);
    let text = std::fs::read_to_string(&text_path).unwrap();
    assert_eq!(text.lines().count() as u64, n);
    assert_eq!(text.lines().next().unwrap().split('\t').count(), 5);
}

#[test]
fn the_command_line_reports_bad_input_without_panicking() {
    let dir = scratch("cli");
    let run_cli = |args: &[&str]| {
        let out = common::engine::run(common::engine::hayate(args), std::time::Duration::from_secs(60));
        (out.code, out.stderr, out.stdout.len())
    };
    let d = dir.to_str().unwrap();
    let (code, err, _) = run_cli(&["gensfen", "--out", d, "--openings", "/nonexistent/openings.txt"]);
    assert_eq!(code, Some(1));
    assert!(err.contains("/nonexistent/openings.txt") && !err.contains("panicked"), "{err}");
    let garbage = dir.join("garbage.hgr");
    std::fs::write(&garbage, b"not a game record").unwrap();
    let (code, err, _) = run_cli(&["gensfen", "convert", garbage.to_str().unwrap(), "--out", "/dev/null"]);
    assert_eq!(code, Some(1));
    assert!(err.contains("HYTGAMES") && !err.contains("panicked"), "{err}");
    let (code, err, _) = run_cli(&["gensfen", "--out", d, "--shard", "2", "--shards", "2", "--games", "1"]);
    assert_eq!(code, Some(1));
    assert!(err.contains("--shard 2 must be below --shards 2"), "{err}");
    // More threads than the engine takes (each holds a search's tables) is refused, for both
    // self-play generators.
    let (code, err, _) = run_cli(&["gensfen", "--out", d, "--threads", "600", "--games", "1"]);
    assert_eq!(code, Some(1));
    assert!(err.contains("--threads must be from 1 to 512, not 600"), "{err}");
    let data = dir.join("tune.txt");
    let (code, err, _) = run_cli(&["tune", "gen", "--out", data.to_str().unwrap(), "--threads", "0"]);
    assert_eq!(code, Some(1));
    assert!(err.contains("--threads must be from 1 to 512, not 0") && !data.exists(), "{err}");
    // A real run: progress on stderr, the summary on stdout.
    let (code, err, out) =
        run_cli(&["gensfen", "--out", d, "--games", "1", "--nodes", "300", "--max-ply", "30"]);
    assert_eq!(code, Some(0), "{err}");
    assert!(err.contains("gensfen: games 1") && out > 0, "{err}");
}
