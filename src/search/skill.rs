//! Strength levels (`SkillLevel`, `USI_LimitStrength` with `USI_Elo`): how a weaker level plays.
//!
//! A level below full strength weakens the search in two ways that a weaker player shows too:
//! - it sees less: the search stops at a node budget that doubles every [`LOG2_NODES_PER_LEVEL`]
//!   reciprocal levels, so a low level reads a move or two ahead and a high one nearly as far as
//!   the full engine at a fast clock (the budget is nodes, not time, so a level plays alike on
//!   every machine and at every clock; a clock shorter than the budget still wins);
//! - it judges less sharply: it searches [`CANDIDATES`] lines and plays one of them at random,
//!   each weighted by `exp((score - best) / temperature)`, the temperature falling to nothing at
//!   full strength. A move a little worse than the best is often played at a low level, one that
//!   drops a piece sometimes, one that loses outright almost never.
//!
//! Two things no level does: play a move its search sees mated while another is not, or leave its
//! king mated in one when another of its lines avoids it (checked exactly, with
//! [`Position::mate_in_one`], after each candidate).
//!
//! Full strength ([`Skill::FULL`], the default) changes nothing: one line, no budget, the search's
//! own move (and `bench`'s node count).
//!
//! `USI_Elo` maps to a level, fractional between two whole levels, through the ladder
//! [`ELO_OF_LEVEL`] that games between the levels measured (docs/records/levels.md).

use super::root_move::RootMove;
use crate::position::Position;
use crate::types::{is_mate_score, Value};

/// The full-strength level, `SkillLevel`'s maximum and default.
pub const FULL_LEVEL: u32 = 20;

/// The number of lines a weakened level searches and chooses among.
pub const CANDIDATES: usize = 4;

/// log2 of the node budget at level 0.
const LOG2_NODES_AT_ZERO: f64 = 7.0;
/// How much the budget's log2 grows per level.
const LOG2_NODES_PER_LEVEL: f64 = 0.6;
/// The choice's temperature at level 0 (score units); it falls with the square of the distance
/// to full strength.
const TEMPERATURE_AT_ZERO: f64 = 300.0;
/// Scores beyond this are clamped before weighting, so that a found mate weighs as a large
/// advantage rather than an infinite one, and exp never overflows.
const SCORE_CLAMP: Value = 3000;

/// The Elo of each whole level 0..=20 on the ladder's scale (docs/records/levels.md): measured by
/// games between the levels, the top tied to the anchors there. `USI_Elo` interpolates.
pub const ELO_OF_LEVEL: [i32; FULL_LEVEL as usize + 1] = [
    800, 880, 960, 1040, 1120, 1200, 1280, 1360, 1440, 1520, 1600, 1680, 1760, 1840, 1920, 2000, 2080, 2160,
    2240, 2320, 2400,
];

/// A strength level and the seed of its choices.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Skill {
    /// Hundredths of a level: 0 (the weakest) ..= 2000 (full strength).
    centi: u32,
    /// The seed of the random choice among the lines (a new one each search).
    pub seed: u64,
}

impl Default for Skill {
    fn default() -> Skill {
        Skill::FULL
    }
}

impl Skill {
    /// Full strength: no weakening at all.
    pub const FULL: Skill = Skill { centi: FULL_LEVEL * 100, seed: 0 };

    /// A whole level (`SkillLevel`), clamped to 0..=20.
    pub fn level(level: u32) -> Skill {
        Skill { centi: level.min(FULL_LEVEL) * 100, seed: 0 }
    }

    /// The level that plays at `elo` on the ladder (`USI_Elo`), between two whole levels where it
    /// falls between theirs; below level 0's Elo the weakest level, above level 20's full strength.
    pub fn from_elo(elo: i32) -> Skill {
        let top = ELO_OF_LEVEL[FULL_LEVEL as usize];
        if elo >= top {
            return Skill::FULL;
        }
        let Some(i) = ELO_OF_LEVEL.windows(2).position(|w| elo < w[1]) else {
            return Skill::FULL;
        };
        let (lo, hi) = (ELO_OF_LEVEL[i], ELO_OF_LEVEL[i + 1]);
        let within = ((i64::from(elo) - i64::from(lo)).max(0) * 100 / i64::from((hi - lo).max(1))) as u32;
        Skill { centi: i as u32 * 100 + within.min(99), seed: 0 }
    }

    /// The same level with the seed of a new search.
    pub fn with_seed(self, seed: u64) -> Skill {
        Skill { seed, ..self }
    }

    pub fn is_full(&self) -> bool {
        self.centi >= FULL_LEVEL * 100
    }

    /// The level as a number of levels (fractional for an Elo between two whole levels).
    fn levels(&self) -> f64 {
        f64::from(self.centi) / 100.0
    }

    /// The search's node budget at this level (`None` at full strength).
    pub fn node_budget(&self) -> Option<u64> {
        (!self.is_full())
            .then(|| (LOG2_NODES_AT_ZERO + LOG2_NODES_PER_LEVEL * self.levels()).exp2().round() as u64)
    }

    /// The number of lines to search: [`CANDIDATES`] below full strength, else 1 (the user's
    /// `MultiPV` applies where it is larger).
    pub fn lines(&self) -> usize {
        if self.is_full() {
            1
        } else {
            CANDIDATES
        }
    }

    /// The temperature of the choice (score units): how far below the best a line may be and
    /// still be played fairly often.
    fn temperature(&self) -> f64 {
        let distance = 1.0 - self.levels() / f64::from(FULL_LEVEL);
        TEMPERATURE_AT_ZERO * distance * distance
    }

    /// Chooses which of `lines` (the last completed iteration's lines, best first, each with its
    /// score) to play in `pos`, the root. Returns its index; 0 at full strength.
    pub fn choose(&self, pos: &Position, lines: &[RootMove]) -> usize {
        if self.is_full() || lines.len() < 2 {
            return 0;
        }
        let mated = |v: Value| is_mate_score(v) && v < 0;
        let allows_mate_in_one = |rm: &RootMove| {
            let mut after = pos.clone();
            after.do_move(rm.mv);
            after.mate_in_one().is_some()
        };
        // The lines a level may play: not seen mated, and not leaving a mate in one, unless
        // every line does (then the search's own best).
        let safe: Vec<usize> =
            (0..lines.len()).filter(|&i| !mated(lines[i].score) && !allows_mate_in_one(&lines[i])).collect();
        if safe.is_empty() {
            return 0;
        }
        let best = lines[safe[0]].score.clamp(-SCORE_CLAMP, SCORE_CLAMP);
        let temperature = self.temperature().max(1e-3);
        let weights: Vec<f64> = safe
            .iter()
            .map(|&i| {
                let v = lines[i].score.clamp(-SCORE_CLAMP, SCORE_CLAMP);
                (f64::from(v - best) / temperature).exp()
            })
            .collect();
        let total: f64 = weights.iter().sum();
        // A uniform number in [0, 1) from the top 53 bits of the seed's first draw.
        let uniform = (crate::splitmix::nth(self.seed, 1) >> 11) as f64 / (1u64 << 53) as f64;
        let mut target = uniform * total;
        for (k, &w) in weights.iter().enumerate() {
            if target < w {
                return safe[k];
            }
            target -= w;
        }
        safe[safe.len() - 1]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn full_strength_is_the_default_and_changes_nothing() {
        let full = Skill::default();
        assert!(full.is_full());
        assert_eq!(full.node_budget(), None);
        assert_eq!(full.lines(), 1);
        assert_eq!(Skill::level(20), Skill::FULL);
        assert_eq!(Skill::level(99), Skill::FULL);
    }

    #[test]
    fn the_budget_grows_with_the_level() {
        let budgets: Vec<u64> = (0..FULL_LEVEL).map(|l| Skill::level(l).node_budget().unwrap()).collect();
        assert_eq!(budgets[0], 128);
        assert!(budgets.windows(2).all(|w| w[0] < w[1]), "{budgets:?}");
        assert!(Skill::level(0).temperature() > Skill::level(10).temperature());
        assert!(Skill::level(19).temperature() < 1.0);
    }

    #[test]
    fn elo_maps_onto_the_ladder() {
        assert_eq!(Skill::from_elo(i32::MIN), Skill::level(0));
        assert_eq!(Skill::from_elo(ELO_OF_LEVEL[0]), Skill::level(0));
        assert_eq!(Skill::from_elo(ELO_OF_LEVEL[7]), Skill::level(7));
        assert_eq!(Skill::from_elo(ELO_OF_LEVEL[20]), Skill::FULL);
        assert_eq!(Skill::from_elo(i32::MAX), Skill::FULL);
        let between = Skill::from_elo((ELO_OF_LEVEL[3] + ELO_OF_LEVEL[4]) / 2);
        assert!(between.centi > 300 && between.centi < 400, "{between:?}");
        assert!(ELO_OF_LEVEL.windows(2).all(|w| w[0] < w[1]));
    }

    fn line(pos: &Position, usi: &str, score: Value) -> RootMove {
        let mv = crate::types::Move::from_usi(usi).expect("a move");
        assert!(pos.is_legal_move(mv), "{usi}");
        RootMove { score, ..RootMove::new(mv) }
    }

    #[test]
    fn a_weak_level_spreads_its_choices_by_score() {
        let pos = Position::startpos();
        let lines = [
            line(&pos, "2g2f", 50),
            line(&pos, "7g7f", 40),
            line(&pos, "5i5h", -100),
            line(&pos, "1g1f", -900),
        ];
        let mut counts = [0usize; 4];
        for seed in 0..2000 {
            counts[Skill::level(0).with_seed(seed).choose(&pos, &lines)] += 1;
        }
        assert!(counts[0] > counts[1] && counts[1] > counts[2] && counts[2] > counts[3], "{counts:?}");
        assert!(counts[3] > 0, "{counts:?}");
        let mut near_full = [0usize; 4];
        for seed in 0..2000 {
            near_full[Skill::level(19).with_seed(seed).choose(&pos, &lines)] += 1;
        }
        assert_eq!(near_full[0], 2000, "{near_full:?}");
    }

    #[test]
    fn no_level_leaves_a_mate_in_one_or_plays_a_mated_line() {
        // Black's king on 5i, a white pawn on 5g and a gold in white's hand: G*5h, held by the
        // pawn, mates. The king's step to 4h avoids it; the pawn drops leave it.
        let pos = Position::from_sfen("4k4/9/9/9/9/9/4p4/9/4K4 b Pg 1").expect("sfen");
        let lines = [line(&pos, "P*1e", 30), line(&pos, "5i4h", 0), line(&pos, "P*2e", -20)];
        for seed in 0..500 {
            let pick = Skill::level(0).with_seed(seed).choose(&pos, &lines);
            assert_eq!(lines[pick].mv, lines[1].mv, "seed {seed}");
        }
        let mated = [line(&pos, "5i4h", -crate::types::VALUE_MATE + 3), line(&pos, "5i6h", -500)];
        for seed in 0..200 {
            assert_eq!(Skill::level(0).with_seed(seed).choose(&pos, &mated), 1);
        }
    }
}
