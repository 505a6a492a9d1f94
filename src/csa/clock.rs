//! The server's clock, kept from the times it reports: each move comes back as `<move>,T<n>`,
//! the units the server charged for it (whole seconds on floodgate, rounded as `Time_Roundup`
//! says). The client never measures its own time for the ledger: what the server counts is
//! what decides a time loss.

use super::summary::TimeRules;
use crate::search::Limits;
use crate::types::Color;

#[derive(Clone, Debug)]
pub struct ServerClock {
    rules: [TimeRules; 2],
    /// Main time left, in ms (never below 0: once it is gone the byoyomi applies).
    remaining: [u64; 2],
    /// Time charged so far, in ms, as the server reported it.
    used: [u64; 2],
}

impl ServerClock {
    pub fn new(rules: [TimeRules; 2]) -> ServerClock {
        ServerClock { rules, remaining: [rules[0].total_ms, rules[1].total_ms], used: [0; 2] }
    }

    /// A move of `color` that the server charged `used_ms` for: the main time goes down by it
    /// (the byoyomi pays for what the main time cannot), and a Fischer increment is added.
    pub fn charge(&mut self, color: Color, used_ms: u64) {
        let c = color.index();
        let used = used_ms.max(self.rules[c].least_ms);
        // Saturating: the times come from the server, and an absurd one must not wrap.
        self.remaining[c] = self.remaining[c].saturating_sub(used).saturating_add(self.rules[c].increment_ms);
        self.used[c] = self.used[c].saturating_add(used_ms);
    }

    /// Time the server has charged `color` so far, in ms.
    pub fn used(&self, color: Color) -> u64 {
        self.used[color.index()]
    }

    /// Main time left to `color`, in ms.
    pub fn remaining(&self, color: Color) -> u64 {
        self.remaining[color.index()]
    }

    /// The clock as the engine's search should see it, `margin_ms` shorter than the server's for
    /// each side (the time a move spends on the way to the server). With a Fischer increment,
    /// the increment of the move to come is part of the time it may use (the server adds it
    /// before it checks), as the engine's time plan assumes.
    pub fn limits(&self, margin_ms: u64) -> Limits {
        let r = &self.rules;
        let mut time = [None; 2];
        let mut inc = [0; 2];
        for c in 0..2 {
            let left = self.remaining[c];
            // The margin comes out of the main time, and out of the increment where the main
            // time is shorter than the margin (a Fischer move may use both).
            let (t, i) = if left >= margin_ms {
                (left - margin_ms, r[c].increment_ms)
            } else if r[c].byoyomi_ms > 0 {
                // The byoyomi, with its own margin below, pays for the rest.
                (0, 0)
            } else {
                (0, r[c].increment_ms.saturating_sub(margin_ms - left))
            };
            time[c] = Some(t);
            inc[c] = i;
        }
        // USI has one byoyomi for both sides; the side to move's is the one that matters, and
        // servers give both sides the same.
        let byoyomi = r[0].byoyomi_ms.max(r[1].byoyomi_ms);
        // With the main time gone, the byoyomi itself carries the margin.
        let byoyomi = if byoyomi > 0 { byoyomi.saturating_sub(margin_ms).max(byoyomi / 2) } else { 0 };
        Limits { time, inc, byoyomi, ..Limits::default() }
    }

    /// Whether `color`'s clock gives it no time beyond the unit the server rounds to: a move then
    /// must be sent at once (sudden death with less than a second).
    pub fn is_flagging(&self, color: Color) -> bool {
        let c = color.index();
        let r = &self.rules[c];
        r.byoyomi_ms == 0 && self.remaining[c].saturating_add(r.increment_ms) < r.unit_ms.min(1000)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rules(total: u64, byoyomi: u64, inc: u64) -> [TimeRules; 2] {
        let r = TimeRules { total_ms: total, byoyomi_ms: byoyomi, increment_ms: inc, ..TimeRules::default() };
        [r, r]
    }

    #[test]
    fn fischer_adds_the_increment_after_each_move() {
        let mut c = ServerClock::new(rules(300_000, 0, 10_000));
        c.charge(Color::Black, 12_000);
        assert_eq!(c.remaining(Color::Black), 298_000);
        assert_eq!(c.remaining(Color::White), 300_000);
        let l = c.limits(500);
        assert_eq!(l.time, [Some(297_500), Some(299_500)]);
        assert_eq!(l.inc, [10_000, 10_000]);
        assert_eq!(l.byoyomi, 0);
        // Main time shorter than the margin: the increment pays the rest.
        c.charge(Color::Black, 297_800);
        assert_eq!(c.remaining(Color::Black), 10_200);
        c.charge(Color::Black, 10_000);
        assert_eq!(c.remaining(Color::Black), 10_200);
        let c = ServerClock::new(rules(300, 0, 10_000));
        let l = c.limits(500);
        assert_eq!((l.time[0], l.inc[0]), (Some(0), 9_800));
    }

    #[test]
    fn byoyomi_pays_for_what_the_main_time_cannot() {
        let mut c = ServerClock::new(rules(60_000, 10_000, 0));
        c.charge(Color::White, 59_000);
        assert_eq!(c.limits(400).time[1], Some(600));
        c.charge(Color::White, 8_000);
        assert_eq!(c.remaining(Color::White), 0);
        // The time used is what the server charged, the byoyomi's share too.
        assert_eq!((c.used(Color::White), c.used(Color::Black)), (67_000, 0));
        let l = c.limits(400);
        assert_eq!(l.time[1], Some(0));
        assert_eq!(l.byoyomi, 9_600);
        // A margin bigger than the byoyomi leaves half of it.
        assert_eq!(c.limits(20_000).byoyomi, 5_000);
    }

    #[test]
    fn least_time_per_move_and_sudden_death() {
        let mut r = rules(1_500, 0, 0);
        r[0].least_ms = 1_000;
        let mut c = ServerClock::new(r);
        c.charge(Color::Black, 0);
        assert_eq!(c.remaining(Color::Black), 500);
        assert!(c.is_flagging(Color::Black));
        assert!(!c.is_flagging(Color::White));
        assert_eq!(c.limits(100).time[0], Some(400));
    }
}
