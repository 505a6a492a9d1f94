//! Strength levels (`SkillLevel`, `USI_LimitStrength` with `USI_Elo`): how a weaker level plays.
//!
//! A level below full strength weakens the search in two ways that a weaker player shows too:
//! - it sees less: the search stops at a node budget, so a low level reads a move or two ahead
//!   and a high one nearly as far as the full engine at a fast clock (the budget is nodes, not
//!   time, so a level plays alike on every machine and at every clock; a clock shorter than the
//!   budget still stops it first);
//! - it judges less sharply: it searches up to four lines ([`LINES`]) and plays one of them at
//!   random, each weighted by `exp((score - best) / temperature)`, the temperature falling to
//!   nothing at full strength. A move a little worse than the best is often played at a low
//!   level, one that drops a piece sometimes, one that loses outright almost never.
//!
//! Two things no level does: play a move its search sees mated while another is not, or leave its
//! king mated in one when another of its lines avoids it (checked exactly, with
//! [`Position::mate_in_one`], after each candidate).
//!
//! Full strength ([`Skill::FULL`], the default) changes nothing: one line, no budget, the search's
//! own move (and `bench`'s node count).
//!
//! Both weakenings follow one number, the *grade* (0 to 20, in hundredths): the budget is
//! 2^(7 + 0.6 grade) nodes and the temperature 300 (1 - grade/20)^2. How strong each grade plays
//! was measured by games between grades ([`CURVE`]); the levels are the grades whose measured
//! ratings are evenly spaced from the weakest grade's to full strength's, so that each step up is
//! worth about the same, and `USI_Elo` is the grade the curve gives for that rating.

use super::limits::Limits;
use super::root_move::RootMove;
use crate::position::Position;
use crate::types::{is_mate_score, Value};

/// The full-strength level, `SkillLevel`'s maximum and default.
pub const FULL_LEVEL: u32 = 20;

/// How many lines a weakened level searches and chooses among, by its temperature: the first
/// row whose least temperature the level's reaches. Each line costs the search depth at the same
/// budget (four lines cost about two plies), so the count falls one line at a time as the choice
/// narrows: had it gone from four to one at once, the grades on either side would play some 300
/// Elo apart (docs/records/levels.md). At a temperature below 5 even the second line would
/// rarely be played, and the level plays the search's own move.
pub const LINES: [(f64, usize); 4] = [(20.0, 4), (10.0, 3), (5.0, 2), (0.0, 1)];

/// Full strength's grade, in hundredths.
const FULL_GRADE: u32 = 2000;
/// log2 of the node budget at grade 0.
const LOG2_NODES_AT_ZERO: f64 = 7.0;
/// How much the budget's log2 grows per grade.
const LOG2_NODES_PER_GRADE: f64 = 0.6;
/// The choice's temperature at grade 0 (score units); it falls with the square of the distance
/// to full strength.
const TEMPERATURE_AT_ZERO: f64 = 300.0;
/// Scores beyond this are clamped before weighting, so that a found mate weighs as a large
/// advantage rather than an infinite one, and exp never overflows.
const SCORE_CLAMP: Value = 3000;

/// The measured rating of grades (hundredths, rating): the broken line with knots two grades
/// apart (and at 18.91, the highest grade played) that fits every game between grades and levels
/// likeliest (docs/records/levels.md, R0180-R0236; `python3 -m tools.level_curve ... --knots 2`),
/// on the scale where Debian's gpsshogi at one second a move is 2800 (full strength at byoyomi
/// 1 s, the last point, is +275.5 over it: R0068). Only the grades that searched as many lines
/// as [`LINES`] gives them today lie on the line; where a knot fitted below a lower one, the two
/// were pooled and the lower kept, as the curve must rise.
pub const CURVE: [(u32, i32); 11] = [
    (0, 271),
    (200, 325),
    (600, 505),
    (800, 779),
    (1000, 1128),
    (1200, 1537),
    (1400, 1872),
    (1600, 2309),
    (1800, 2768),
    (1891, 2954),
    (FULL_GRADE, 3076),
];

/// The rating of a whole level: evenly spaced between the curve's ends.
pub fn level_elo(level: u32) -> i32 {
    let (lo, hi) = (CURVE[0].1, CURVE[CURVE.len() - 1].1);
    lo + ((hi - lo) as i64 * i64::from(level.min(FULL_LEVEL)) / i64::from(FULL_LEVEL)) as i32
}

/// The grade whose measured rating is `elo` (clamped to the curve's ends): linear between the
/// curve's points.
fn grade_at_elo(elo: i32) -> u32 {
    let elo = elo.clamp(CURVE[0].1, CURVE[CURVE.len() - 1].1);
    for w in CURVE.windows(2) {
        let ((g0, e0), (g1, e1)) = (w[0], w[1]);
        if elo <= e1 {
            let within = i64::from(elo - e0) * i64::from(g1 - g0) / i64::from((e1 - e0).max(1));
            return g0 + within as u32;
        }
    }
    FULL_GRADE
}

/// A strength level and the seed of its choices.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Skill {
    /// The grade in hundredths: 0 (the weakest) ..= 2000 (full strength).
    grade: u32,
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
    pub const FULL: Skill = Skill { grade: FULL_GRADE, seed: 0 };

    /// A whole level (`SkillLevel`), clamped to 0..=20.
    pub fn level(level: u32) -> Skill {
        Skill::from_elo(level_elo(level))
    }

    /// The level that plays at `elo` (`USI_Elo`): below the weakest grade's rating the weakest,
    /// above full strength's full strength.
    pub fn from_elo(elo: i32) -> Skill {
        Skill { grade: grade_at_elo(elo), seed: 0 }
    }

    /// The same level with the seed of a new search.
    pub fn with_seed(self, seed: u64) -> Skill {
        Skill { seed, ..self }
    }

    pub fn is_full(&self) -> bool {
        self.grade >= FULL_GRADE
    }

    /// A grade given directly (hundredths), for measuring the curve.
    pub fn grade(grade: u32) -> Skill {
        Skill { grade: grade.min(FULL_GRADE), seed: 0 }
    }

    /// The grade as a number (0.0 to 20.0).
    fn grades(&self) -> f64 {
        f64::from(self.grade) / 100.0
    }

    /// The search's node budget at this level (`None` at full strength).
    pub fn node_budget(&self) -> Option<u64> {
        (!self.is_full())
            .then(|| (LOG2_NODES_AT_ZERO + LOG2_NODES_PER_GRADE * self.grades()).exp2().round() as u64)
    }

    /// `limits` with this level's node budget where they ask for more nodes (or set no limit).
    pub fn limit(&self, limits: Limits) -> Limits {
        match self.node_budget() {
            Some(budget) => Limits { nodes: Some(limits.nodes.map_or(budget, |n| n.min(budget))), ..limits },
            None => limits,
        }
    }

    /// The number of lines to search and choose among ([`LINES`]; the user's `MultiPV` applies
    /// where it is larger): four at the low levels, falling to one near full strength.
    pub fn lines(&self) -> usize {
        if self.is_full() {
            return 1;
        }
        let temperature = self.temperature();
        LINES.iter().find(|&&(least, _)| temperature >= least).map_or(1, |&(_, lines)| lines)
    }

    /// The temperature of the choice (score units): how far below the best a line may be and
    /// still be played fairly often.
    fn temperature(&self) -> f64 {
        let distance = 1.0 - self.grades() / f64::from(FULL_GRADE / 100);
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
    fn the_budget_grows_and_the_temperature_falls_with_the_level() {
        let budgets: Vec<u64> = (0..FULL_LEVEL).map(|l| Skill::level(l).node_budget().unwrap()).collect();
        assert_eq!(Skill::grade(0).node_budget(), Some(128));
        assert!(budgets.windows(2).all(|w| w[0] < w[1]), "{budgets:?}");
        let temperatures: Vec<f64> = (0..FULL_LEVEL).map(|l| Skill::level(l).temperature()).collect();
        assert!(temperatures.windows(2).all(|w| w[0] > w[1]), "{temperatures:?}");
        assert!(Skill::grade(1999).temperature() < 0.01);
        let lines: Vec<usize> = (0..=2000).step_by(10).map(|g| Skill::grade(g).lines()).collect();
        assert_eq!((lines[0], lines[lines.len() - 1]), (4, 1));
        assert!(lines.windows(2).all(|w| w[1] == w[0] || w[1] + 1 == w[0]), "one line at a time: {lines:?}");
        // The temperatures where the count falls: 20 at grade 14.84, 10 at 16.35, 5 at 17.42.
        let at = |g: u32| Skill::grade(g).lines();
        assert_eq!([at(1480), at(1490), at(1630), at(1640), at(1740), at(1750)], [4, 3, 3, 2, 2, 1]);
    }

    #[test]
    fn the_levels_are_evenly_spaced_on_the_measured_curve() {
        assert!(CURVE.windows(2).all(|w| w[0].0 < w[1].0 && w[0].1 < w[1].1), "{CURVE:?}");
        assert_eq!(CURVE[CURVE.len() - 1].0, FULL_GRADE);
        assert_eq!(Skill::level(0), Skill::grade(0));
        assert_eq!(Skill::level(FULL_LEVEL), Skill::FULL);
        let step = level_elo(1) - level_elo(0);
        for level in 0..FULL_LEVEL {
            assert!((level_elo(level + 1) - level_elo(level) - step).abs() <= 1, "level {level}");
            assert!(Skill::level(level).grade < Skill::level(level + 1).grade, "level {level}");
        }
        // Each curve point's rating gives its grade back.
        for &(grade, elo) in &CURVE {
            assert_eq!(Skill::from_elo(elo), Skill::grade(grade));
        }
        assert_eq!(Skill::from_elo(i32::MIN), Skill::grade(0));
        assert_eq!(Skill::from_elo(i32::MAX), Skill::FULL);
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
            counts[Skill::grade(0).with_seed(seed).choose(&pos, &lines)] += 1;
        }
        assert!(counts[0] > counts[1] && counts[1] > counts[2] && counts[2] > counts[3], "{counts:?}");
        assert!(counts[3] > 0, "{counts:?}");
        let mut near_full = [0usize; 4];
        for seed in 0..2000 {
            near_full[Skill::grade(1990).with_seed(seed).choose(&pos, &lines)] += 1;
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

    /// docs/options.md's table of the levels, as the code gives them (the failure message
    /// prints the rows it wants).
    #[test]
    fn the_options_document_lists_the_levels_as_they_are() {
        let doc = include_str!("../../docs/options.md");
        let want: Vec<String> = (0..=FULL_LEVEL)
            .map(|level| {
                let skill = Skill::level(level);
                let budget = skill.node_budget().map_or("the clock's".to_string(), |n| n.to_string());
                let (elo, temperature, lines) = (level_elo(level), skill.temperature(), skill.lines());
                format!("| {level} | {elo} | {budget} | {temperature:.0} | {lines} |")
            })
            .collect();
        let got: Vec<&str> = doc
            .lines()
            .filter(|l| {
                l.starts_with("| ") && l.split('|').nth(1).is_some_and(|c| c.trim().parse::<u32>().is_ok())
            })
            .collect();
        assert_eq!(got, want, "docs/options.md's levels should read:\n{}", want.join("\n"));
    }
}
