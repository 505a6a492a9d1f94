//! Time management: turns `Limits` and the time options into an optimum (soft) and a maximum
//! (hard) thinking time, in milliseconds from the moment the search (or a ponder hit) started.
//!
//! - Fischer (`binc`/`winc`): a share of the remaining time plus most of the increment; the hard
//!   limit keeps `NetworkDelay` in hand and never exceeds what the clock holds.
//! - Byoyomi: the main time is spent in shares; once it is gone the whole byoyomi is used except
//!   a safety margin (`NetworkDelay2`, scaled down for short byoyomi: servers count whole seconds,
//!   floored, and a move must arrive before the byoyomi runs out).
//! - Sudden death (`byoyomi 0`, no increment): small shares of what is left.
//! - `movetime`: that long, minus `NetworkDelay` (but at least half of it).
//!
//! `MinimumThinkingTime` lifts the optimum up to a third of the maximum at most.
//!
//! Between iterations the search stops at `NewIterationPercent` of the optimum once it is settled,
//! later when it is not ([`Settledness`]); inside an iteration only the maximum stops it.
//!
//! Time that costs nothing (`TimePlan::free`: the byoyomi once the main time is gone, or a
//! `movetime`) is always used: iterative deepening does not stop early before it runs out.
//!
//! `RoundUpToFullSecond`: servers floor the time used to whole seconds, so once the search has
//! decided to stop it may go on to just before the next full second (less the network delay) at
//! no cost on the server's clock.

use super::limits::Limits;
use super::params;
use crate::types::{Color, Value};

/// The time-related USI options (the defaults are the options' defaults).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TimeOptions {
    pub network_delay: u64,
    pub network_delay2: u64,
    pub minimum_thinking_time: u64,
    /// Percent applied to the optimum time.
    pub slow_mover: u64,
    pub round_up_to_full_second: bool,
}

impl Default for TimeOptions {
    fn default() -> TimeOptions {
        TimeOptions {
            network_delay: 120,
            network_delay2: 1120,
            minimum_thinking_time: 2000,
            slow_mover: 100,
            round_up_to_full_second: false,
        }
    }
}

/// The longest clock the plan reads (a century, in milliseconds); longer ones count as this.
pub const MAX_CLOCK_MS: u64 = 100 * 365 * 24 * 3600 * 1000;

/// Deadlines for one move, in milliseconds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TimePlan {
    /// Aim to finish around here.
    pub optimum: u64,
    /// Never think longer than this.
    pub maximum: u64,
    /// Round a decided stop up to just before the next full second (see module docs).
    pub round_up: bool,
    /// The network delay to keep in hand when rounding up.
    pub delay: u64,
    /// Time that costs nothing on the clock: the byoyomi (less the margin) once the main time is
    /// gone, or the whole `movetime`. The search does not stop early before it.
    pub free: u64,
}

impl TimePlan {
    /// When to stop once the search decides to at `elapsed`: at once, or, when rounding up, just
    /// before the next full second on the server's clock (never beyond the maximum).
    pub fn stop_time(&self, elapsed: u64) -> u64 {
        if !self.round_up {
            return elapsed;
        }
        let next_second = (elapsed + self.delay) / 1000 * 1000 + 1000;
        next_second.saturating_sub(self.delay + 20).max(elapsed).min(self.maximum)
    }
}

/// How settled the search is after a completed iteration, which stretches the time a search
/// takes before it starts no new iteration (the scheme of Stockfish's time management, in this
/// engine's units): a best score that fell below the previous move's or below the iterations'
/// before, a best move that changed lately or often, take longer; a settled search stops where
/// `NewIterationPercent` of the optimum says.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Settledness {
    /// The best score of the iteration just completed.
    pub best: Value,
    /// The previous move's search: its best move's average score (None at a game's first).
    pub previous_average: Option<Value>,
    /// The best score of four iterations ago (before the fourth, the previous move's best).
    pub four_iterations_ago: Value,
    /// The iteration just completed, and the one in which the best move last changed.
    pub depth: i32,
    pub best_move_depth: i32,
    /// The best move's changes, halved at each iteration, per thread.
    pub changes_per_thread: f64,
    /// The previous move's time reduction (`Settledness::reduction`).
    pub previous_reduction: f64,
}

impl Settledness {
    /// The time reduction of this iteration: larger when the best move has stood longer.
    pub fn reduction(&self) -> f64 {
        let percent = if self.best_move_depth + params::TmStableDepth() < self.depth {
            params::TmReductionStable()
        } else {
            params::TmReductionUnstable()
        };
        percent as f64 / 100.0
    }

    /// The factor on the time before no new iteration starts: 1 for a settled search, up to
    /// several times that for an unsettled one.
    pub fn scale(&self) -> f64 {
        // Falls are clamped first: a mate score would otherwise dominate the products.
        let fall = |from: Value| (from as i64 - self.best as i64).clamp(-10_000, 10_000);
        let previous = self.previous_average.map_or(0, fall);
        let falling = (params::TmFallingBase() as i64
            + params::TmFallingPrevious() as i64 * previous
            + params::TmFallingIteration() as i64 * fall(self.four_iterations_ago))
        .clamp(params::TmFallingMin() as i64, params::TmFallingMax() as i64) as f64
            / 1000.0;
        let reduction = (params::TmReductionCarry() as f64 / 100.0 + self.previous_reduction)
            / (params::TmReductionDivisor() as f64 / 100.0 * self.reduction());
        let instability = 1.0 + params::TmInstability() as f64 / 100.0 * self.changes_per_thread;
        falling * reduction * instability * params::TmScale() as f64 / 100.0
    }
}

/// Estimated own moves still to play, from the game ply.
fn moves_horizon(game_ply: u32) -> u64 {
    (160u64.saturating_sub(game_ply as u64) / 2).max(30)
}

/// The deadlines for this move, or `None` when time does not limit the search.
pub fn plan(limits: &Limits, us: Color, game_ply: u32, opts: &TimeOptions) -> Option<TimePlan> {
    if limits.infinite {
        return None;
    }
    // Clocks beyond a century are a century: the sums and products below then cannot overflow
    // whatever a front end sends (`btime 9223372036854775808` included).
    let limits = &limits.clamped(MAX_CLOCK_MS);
    if let Some(mt) = limits.movetime {
        let t = mt.saturating_sub(opts.network_delay).max(mt / 2).max(1);
        return Some(TimePlan {
            optimum: t,
            maximum: t,
            round_up: false,
            delay: opts.network_delay,
            free: t,
        });
    }
    if !limits.has_clock() {
        return None;
    }
    let remaining = limits.time[us.index()].unwrap_or(0);
    let inc = limits.inc[us.index()];
    let byoyomi = limits.byoyomi;
    let horizon = moves_horizon(game_ply);
    // `free`: see `TimePlan::free`; only a byoyomi with the main time gone gives any.
    let (mut optimum, maximum, delay, free) = if inc > 0 {
        let margin = opts.network_delay.min((remaining + inc) / 4);
        let available = (remaining + inc).saturating_sub(margin);
        // A reserve of one increment (or what is left, when less) is never spent: with a low
        // clock, moves that each took a quarter of it plus the increment would drain it
        // towards nothing; this way it settles at one increment.
        let floor = remaining.max(inc);
        let optimum = (remaining / horizon + inc * 9 / 10).min(floor);
        let maximum =
            available.min(remaining / 4 + inc).min(optimum * 5).min(floor).max(optimum.min(available));
        (optimum, maximum, margin, 0)
    } else if byoyomi > 0 {
        // A margin that fits even a 100 ms byoyomi: NetworkDelay2, or a quarter of the byoyomi.
        let margin = if byoyomi >= 2 * opts.network_delay2 { opts.network_delay2 } else { byoyomi / 4 };
        let last = byoyomi.saturating_sub(margin);
        let optimum = remaining / horizon + last;
        let maximum = (remaining / 5 + last).min(remaining + last);
        // With the main time gone, a byoyomi not used is lost.
        let free = if remaining == 0 { last } else { 0 };
        (optimum, maximum, margin, free)
    } else {
        let margin = opts.network_delay.min(remaining / 4);
        let optimum = remaining / (horizon + 20);
        let maximum = (remaining / 10).saturating_sub(margin).max(optimum.min(remaining / 2));
        (optimum, maximum, margin, 0)
    };
    optimum = optimum * opts.slow_mover / 100;
    // The minimum thinking time may lift the optimum, but never past a third of the maximum (in a
    // fast game it would otherwise make every move use the whole budget).
    optimum = optimum.max(opts.minimum_thinking_time.min(maximum / 3)).min(maximum);
    Some(TimePlan {
        optimum: optimum.max(1),
        maximum: maximum.max(1),
        round_up: opts.round_up_to_full_second,
        delay,
        free: free.min(maximum),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::types::VALUE_MATE;

    fn limits(time: u64, inc: u64, byoyomi: u64) -> Limits {
        Limits { time: [Some(time), Some(time)], inc: [inc, inc], byoyomi, ..Limits::default() }
    }

    #[test]
    fn never_beyond_the_clock() {
        let o = TimeOptions::default();
        for time in [0, 50, 500, 5_000, 60_000, 300_000, 3_600_000] {
            for inc in [0, 100, 1_000, 10_000] {
                for byoyomi in [0, 100, 1_000, 10_000] {
                    if inc > 0 && byoyomi > 0 {
                        continue;
                    }
                    let l = limits(time, inc, byoyomi);
                    for ply in [1, 80, 300] {
                        let Some(p) = plan(&l, Color::Black, ply, &o) else {
                            assert!(time == 0 && inc == 0 && byoyomi == 0);
                            continue;
                        };
                        assert!(p.optimum <= p.maximum, "{time} {inc} {byoyomi}: {p:?}");
                        assert!(p.maximum <= (time + inc + byoyomi).max(1), "{time} {inc} {byoyomi}: {p:?}");
                        if byoyomi > 0 && time + byoyomi > 1 {
                            assert!(p.maximum < time + byoyomi, "byoyomi must keep a margin: {p:?}");
                        }
                        assert!(p.stop_time(p.optimum) <= p.maximum);
                    }
                }
            }
        }
    }

    #[test]
    fn huge_clocks_neither_overflow_nor_end_the_search_at_once() {
        let opts = TimeOptions::default();
        for (time, inc, byoyomi) in [(u64::MAX, u64::MAX, 0), (1 << 63, 0, 1 << 63), (u64::MAX, 0, 0)] {
            let l = limits(time, inc, byoyomi);
            let p = plan(&l, Color::Black, 0, &opts).expect("a plan");
            assert!(p.optimum >= 1000 && p.optimum <= p.maximum, "{p:?}");
            assert!(p.stop_time(u64::MAX / 2) >= p.optimum.min(u64::MAX / 2));
        }
        let l = Limits { movetime: Some(u64::MAX), ..Limits::default() };
        assert_eq!(plan(&l, Color::Black, 0, &opts).unwrap().maximum, MAX_CLOCK_MS - opts.network_delay);
    }

    #[test]
    fn byoyomi_only_uses_most_of_it() {
        let o = TimeOptions::default();
        let p = plan(&limits(0, 0, 10_000), Color::White, 50, &o).unwrap();
        assert_eq!(p.maximum, 10_000 - 1120);
        assert_eq!(p.free, p.maximum, "the byoyomi alone is free");
        let p = plan(&limits(0, 0, 100), Color::White, 50, &o).unwrap();
        assert_eq!(p.maximum, 75);
        assert_eq!(p.free, 75);
        // With main time left, time spent comes off the main time first: nothing is free.
        let p = plan(&limits(60_000, 0, 10_000), Color::White, 50, &o).unwrap();
        assert_eq!(p.free, 0);
        // movetime and infinite
        let l = Limits { movetime: Some(1000), ..Limits::default() };
        assert_eq!(plan(&l, Color::Black, 1, &o).unwrap().maximum, 880);
        assert_eq!(plan(&l, Color::Black, 1, &o).unwrap().free, 880);
        let l = Limits { infinite: true, ..limits(1000, 0, 0) };
        assert!(plan(&l, Color::Black, 1, &o).is_none());
    }

    /// With a low Fischer clock, a move never takes more than the clock holds beyond one
    /// increment (or, below one increment, more than the increment): the clock settles instead of
    /// draining away.
    #[test]
    fn fischer_keeps_a_reserve_of_one_increment() {
        let o = TimeOptions::default();
        for inc in [1_000u64, 2_000, 10_000] {
            let mut clock = 30 * inc;
            for ply in 1..200 {
                let p = plan(&limits(clock, inc, 0), Color::Black, ply, &o).unwrap();
                assert!(p.maximum <= clock.max(inc), "{clock} + {inc}: {p:?}");
                // The worst case: every move runs to the maximum.
                clock = clock + inc - p.maximum;
                assert!(clock >= inc.min(30 * inc), "{clock} + {inc} at ply {ply}");
            }
        }
    }

    fn settled() -> Settledness {
        Settledness {
            best: 120,
            previous_average: Some(120),
            four_iterations_ago: 120,
            depth: 20,
            best_move_depth: 5,
            changes_per_thread: 0.0,
            previous_reduction: params::TmReductionStable() as f64 / 100.0,
        }
    }

    /// A settled search stops where `NewIterationPercent` says; each sign of an unsettled one
    /// makes it think longer, and together they can make it think several times as long.
    #[test]
    fn an_unsettled_search_takes_longer() {
        let s = settled();
        assert!((s.scale() - 1.0).abs() < 0.01, "{}", s.scale());
        // A score risen since the previous move is settled too.
        assert_eq!(Settledness { best: 300, ..s }.scale(), s.scale());
        let fallen = Settledness { best: 60, ..s }.scale();
        let changed_late = Settledness { best_move_depth: 18, ..s }.scale();
        let changing = Settledness { changes_per_thread: 1.5, ..s }.scale();
        for (what, scale) in [("fallen", fallen), ("changed late", changed_late), ("changing", changing)] {
            assert!(scale > 1.3, "{what}: {scale}");
        }
        let all = Settledness { best: 60, best_move_depth: 18, changes_per_thread: 1.5, ..s }.scale();
        assert!(all > fallen.max(changed_late).max(changing), "{all}");
        assert!(all > 5.0, "{all}");
        // The falling factor is bounded, so that a lost mate cannot make a move take forever.
        let mated = Settledness { best: -VALUE_MATE, previous_average: Some(VALUE_MATE), ..s }.scale();
        assert_eq!(mated, Settledness { best: -1000, ..s }.scale());
        // A game's first search has no previous move to compare with.
        assert_eq!(Settledness { previous_average: None, ..s }.scale(), s.scale());
    }

    #[test]
    fn round_up_stays_below_the_next_second() {
        let p = TimePlan { optimum: 1000, maximum: 9000, round_up: true, delay: 120, free: 0 };
        assert_eq!(p.stop_time(1300), 1860);
        assert_eq!(p.stop_time(8950), 9000);
        assert_eq!(p.stop_time(9000), 9000);
    }
}
