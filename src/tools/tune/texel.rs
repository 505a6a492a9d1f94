//! Texel tuning of the linear evaluation's weights.
//!
//! Each position's target is a blend of the game result and the search score mapped to a winning
//! probability: `lambda * sigmoid(score / K) + (1 - lambda) * result`. `K` is first fitted so that
//! `sigmoid(score / K)` predicts the results best (it sets the scale the scores are read in); then
//! the weights minimise the mean squared difference between `sigmoid(eval / K)` and the target,
//! with Adam on the whole data set. The evaluation is linear in the weights, so each position is
//! stored as its sparse feature list (from the side to move's view) and the gradient is exact.

use super::selfplay::Record;
use crate::eval::linear::features::{describe, FeatureList, NUM_FEATURES};
use crate::position::Position;
use crate::types::Color;

/// The positions as sparse feature lists.
pub struct DataSet {
    /// Start of each position's features in `index`/`count`; one more entry than positions.
    offsets: Vec<u32>,
    index: Vec<u32>,
    count: Vec<f32>,
    /// Search score (side to move) and result (side to move).
    score: Vec<f32>,
    result: Vec<f32>,
}

impl DataSet {
    /// Reads records; lines that do not parse or hold a bad SFEN are counted and skipped.
    pub fn from_lines<'a>(lines: impl Iterator<Item = &'a str>) -> (DataSet, usize) {
        let mut set = DataSet {
            offsets: vec![0],
            index: Vec::new(),
            count: Vec::new(),
            score: Vec::new(),
            result: Vec::new(),
        };
        let mut bad = 0;
        for line in lines {
            let Ok(r) = Record::parse(line) else {
                bad += 1;
                continue;
            };
            let Ok(pos) = Position::from_sfen(&r.sfen) else {
                bad += 1;
                continue;
            };
            let sign = if pos.side_to_move() == Color::Black { 1.0 } else { -1.0 };
            for (i, n) in FeatureList::of(&pos).0 {
                set.index.push(i);
                set.count.push(n as f32 * sign);
            }
            set.offsets.push(set.index.len() as u32);
            set.score.push(r.score as f32);
            set.result.push(r.result);
        }
        (set, bad)
    }

    pub fn len(&self) -> usize {
        self.score.len()
    }

    pub fn is_empty(&self) -> bool {
        self.score.is_empty()
    }

    fn features(&self, p: usize) -> impl Iterator<Item = (usize, f32)> + '_ {
        let (a, b) = (self.offsets[p] as usize, self.offsets[p + 1] as usize);
        self.index[a..b].iter().zip(&self.count[a..b]).map(|(&i, &n)| (i as usize, n))
    }

    fn eval(&self, p: usize, w: &[f64]) -> f64 {
        self.features(p).map(|(i, n)| w[i] * n as f64).sum()
    }
}

fn sigmoid(x: f64) -> f64 {
    1.0 / (1.0 + (-x).exp())
}

/// How the fit runs.
#[derive(Clone, Debug)]
pub struct TexelConfig {
    /// Weight of the search score in the target (0: results only, 1: scores only).
    pub lambda: f64,
    pub iterations: usize,
    pub learning_rate: f64,
    /// L2 pull of every weight towards its starting value (keeps rarely seen features, such as
    /// the fourth lance in hand, from fitting noise).
    pub l2: f64,
    /// Every n-th position is held out to measure the fit (0: none).
    pub holdout_every: usize,
    pub threads: usize,
}

impl Default for TexelConfig {
    fn default() -> TexelConfig {
        TexelConfig {
            lambda: 0.5,
            iterations: 1500,
            learning_rate: 2.0,
            l2: 1e-8,
            holdout_every: 10,
            threads: 2,
        }
    }
}

/// What the fit found.
pub struct TexelReport {
    pub k: f64,
    pub train_loss_before: f64,
    pub train_loss_after: f64,
    pub holdout_loss_before: f64,
    pub holdout_loss_after: f64,
    pub weights: Vec<i16>,
}

/// The K that makes `sigmoid(score / K)` predict the results best (golden-section search).
pub fn fit_k(data: &DataSet) -> f64 {
    let loss = |k: f64| {
        (0..data.len())
            .map(|p| {
                let d = sigmoid(data.score[p] as f64 / k) - data.result[p] as f64;
                d * d
            })
            .sum::<f64>()
    };
    let (mut lo, mut hi) = (50.0f64, 3000.0f64);
    let g = 0.618_033_988_75;
    for _ in 0..60 {
        let (a, b) = (hi - g * (hi - lo), lo + g * (hi - lo));
        if loss(a) < loss(b) {
            hi = b;
        } else {
            lo = a;
        }
    }
    (lo + hi) / 2.0
}

/// Fits the weights, starting from `start`. `progress(iteration, train_loss)` follows along.
pub fn fit(
    data: &DataSet,
    start: &[i16],
    config: &TexelConfig,
    mut progress: impl FnMut(usize, f64),
) -> TexelReport {
    assert_eq!(start.len(), NUM_FEATURES);
    let k = fit_k(data);
    let target: Vec<f64> = (0..data.len())
        .map(|p| {
            config.lambda * sigmoid(data.score[p] as f64 / k) + (1.0 - config.lambda) * data.result[p] as f64
        })
        .collect();
    let holdout = |p: usize| config.holdout_every > 0 && p.is_multiple_of(config.holdout_every);
    let train: Vec<usize> = (0..data.len()).filter(|&p| !holdout(p)).collect();
    let held: Vec<usize> = (0..data.len()).filter(|&p| holdout(p)).collect();
    let loss = |w: &[f64], set: &[usize]| {
        if set.is_empty() {
            return 0.0;
        }
        set.iter()
            .map(|&p| {
                let d = sigmoid(data.eval(p, w) / k) - target[p];
                d * d
            })
            .sum::<f64>()
            / set.len() as f64
    };
    let mut w: Vec<f64> = start.iter().map(|&x| x as f64).collect();
    let train_before = loss(&w, &train);
    let held_before = loss(&w, &held);

    let (mut m, mut v) = (vec![0.0f64; NUM_FEATURES], vec![0.0f64; NUM_FEATURES]);
    let (b1, b2, eps) = (0.9f64, 0.999f64, 1e-8f64);
    let threads = config.threads.max(1);
    let chunk = train.len().div_ceil(threads).max(1);
    for it in 0..config.iterations {
        // Gradient of the mean squared error, each thread over a slice of the training set.
        let parts: Vec<(Vec<f64>, f64)> = std::thread::scope(|s| {
            let handles: Vec<_> = train
                .chunks(chunk)
                .map(|slice| {
                    let (w, target) = (&w, &target);
                    s.spawn(move || {
                        let mut g = vec![0.0f64; NUM_FEATURES];
                        let mut l = 0.0;
                        for &p in slice {
                            let s = sigmoid(data.eval(p, w) / k);
                            let d = s - target[p];
                            l += d * d;
                            let f = 2.0 * d * s * (1.0 - s) / k;
                            for (i, n) in data.features(p) {
                                g[i] += f * n as f64;
                            }
                        }
                        (g, l)
                    })
                })
                .collect();
            handles.into_iter().map(|h| h.join().expect("gradient thread")).collect()
        });
        let mut grad = vec![0.0f64; NUM_FEATURES];
        let mut train_loss = 0.0;
        for (g, l) in parts {
            for (a, b) in grad.iter_mut().zip(g) {
                *a += b;
            }
            train_loss += l;
        }
        let n = train.len().max(1) as f64;
        train_loss /= n;
        let t = (it + 1) as i32;
        for i in 0..NUM_FEATURES {
            let mut g = grad[i] / n;
            g += 2.0 * config.l2 * (w[i] - start[i] as f64);
            m[i] = b1 * m[i] + (1.0 - b1) * g;
            v[i] = b2 * v[i] + (1.0 - b2) * g * g;
            let (mh, vh) = (m[i] / (1.0 - b1.powi(t)), v[i] / (1.0 - b2.powi(t)));
            w[i] -= config.learning_rate * mh / (vh.sqrt() + eps);
        }
        progress(it, train_loss);
    }
    let weights: Vec<i16> = w.iter().map(|&x| x.round().clamp(-30000.0, 30000.0) as i16).collect();
    let rounded: Vec<f64> = weights.iter().map(|&x| x as f64).collect();
    TexelReport {
        k,
        train_loss_before: train_before,
        train_loss_after: loss(&rounded, &train),
        holdout_loss_before: held_before,
        holdout_loss_after: loss(&rounded, &held),
        weights,
    }
}

/// The Rust source of `src/eval/linear/weights.rs` holding `weights`, one commented group per feature
/// group.
pub fn weights_source(weights: &[i16], header: &str) -> String {
    use crate::eval::linear::features as f;
    let groups = [
        (f::MATERIAL, "material on the board, by kind (1..=14)"),
        (f::HAND, "pieces in hand: the n-th piece of each kind"),
        (f::PST, "piece-square tables"),
        (f::OWN_KING_REL, "place relative to the own king"),
        (f::ENEMY_KING_REL, "place relative to the enemy king"),
        (f::ZONE, "king neighbourhood"),
        (f::DROP_THREAT, "drop threats"),
        (f::THREAT, "attacked pieces"),
        (f::MOBILITY, "mobility"),
        (f::TEMPO, "tempo"),
    ];
    let mut out = String::new();
    out.push_str(
        "//! Weights of the linear evaluation, one per feature of `features.rs` (same order, same\n\
         //! encoding; group offsets are the constants there). Written by `hayate tune fit` (docs/engine.md,\n\
         //! \"The linear evaluation and how to re-tune it\"); edit by re-running the tuner, not by hand.\n",
    );
    for line in header.lines() {
        out.push_str("//!\n//! ");
        out.push_str(line);
        out.push('\n');
    }
    out.push_str("\nuse super::features::NUM_FEATURES;\n\n#[rustfmt::skip]\npub static WEIGHTS: [i16; NUM_FEATURES] = [\n");
    for (g, &(start, name)) in groups.iter().enumerate() {
        let end = groups.get(g + 1).map_or(weights.len(), |x| x.0);
        out.push_str(&format!("    // {name}\n"));
        for row in weights[start..end].chunks(16) {
            let cells: Vec<String> = row.iter().map(|x| x.to_string()).collect();
            out.push_str(&format!("    {},\n", cells.join(", ")));
        }
    }
    out.push_str("];\n");
    out
}

/// The largest weight changes, for the report.
pub fn biggest_changes(before: &[i16], after: &[i16], n: usize) -> Vec<String> {
    let mut idx: Vec<usize> = (0..before.len()).collect();
    idx.sort_by_key(|&i| std::cmp::Reverse((after[i] as i32 - before[i] as i32).abs()));
    idx.into_iter()
        .take(n)
        .map(|i| format!("{:<48} {:>6} -> {:>6}", describe(i), before[i], after[i]))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::eval::linear::features::MATERIAL;

    #[test]
    fn eval_of_the_data_set_matches_the_engine() {
        let sfens = [
            "lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1",
            "l6nl/5+P1gk/2np1S3/p1p4Pp/3P2Sp1/1PPb2P1P/P5GS1/R8/LN4bKL w RGgsn5p 1",
        ];
        let lines: Vec<String> = sfens.iter().map(|s| format!("{s}\t0\t0.5")).collect();
        let (data, bad) = DataSet::from_lines(lines.iter().map(String::as_str));
        assert_eq!((data.len(), bad), (2, 0));
        let w: Vec<f64> = crate::eval::linear::weights::WEIGHTS.iter().map(|&x| x as f64).collect();
        for (p, sfen) in sfens.iter().enumerate() {
            let pos = Position::from_sfen(sfen).unwrap();
            assert_eq!(data.eval(p, &w) as i32, crate::eval::linear::evaluate(&pos));
        }
    }

    #[test]
    fn fit_moves_weights_towards_the_results() {
        // Black a pawn up in hand and winning every game: the pawn-in-hand weight must grow.
        let sfen = "lnsgkgsnl/1r5b1/pppppppp1/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b P 1";
        let lines: Vec<String> = (0..50).map(|_| format!("{sfen}\t300\t1")).collect();
        let (data, bad) = DataSet::from_lines(lines.iter().map(String::as_str));
        assert_eq!((data.len(), bad), (50, 0));
        let start = crate::eval::linear::weights::WEIGHTS.to_vec();
        let config = TexelConfig {
            iterations: 50,
            learning_rate: 0.05,
            holdout_every: 0,
            threads: 1,
            ..TexelConfig::default()
        };
        let report = fit(&data, &start, &config, |_, _| {});
        assert!(
            report.train_loss_after < report.train_loss_before,
            "{} -> {}, k {}",
            report.train_loss_before,
            report.train_loss_after,
            report.k
        );
        let pawn_in_hand = crate::eval::linear::features::HAND;
        assert!(report.weights[pawn_in_hand] > start[pawn_in_hand]);
        assert_eq!(report.weights[MATERIAL + 8], start[MATERIAL + 8], "no king material feature");
        assert!(weights_source(&report.weights, "test").contains("pub static WEIGHTS"));
    }
}
