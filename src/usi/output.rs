//! Everything the engine writes to stdout goes through here (and on through `transport.rs`). The
//! `UsiReporter` formats search progress and results as USI, the `UsiMateReporter` the answer to
//! `go mate`; `option_lines` lists the options.

use super::transport::{self, Running};
use crate::engine::mate::{MateReport, MateReporter};
use crate::engine::options::{Kind, Options};
use crate::mate::MateResult;
use crate::search::SearchControl;
use crate::search::{BestMove, Reporter, ScoreBound, SearchInfo};
use crate::types::Score;
use std::sync::atomic::AtomicBool;

/// Writes one protocol line (to stdout, or through the transport a front end installed).
pub fn send(line: &str) {
    transport::line(line);
}

/// `info string`, kept to ASCII (GUIs read Shift_JIS).
pub fn info_string(text: &str) {
    send(&info_string_line(text));
}

/// The longest message an `info string` carries; the rest is cut (messages quote input, and an
/// input line can be any length).
const INFO_STRING_CHARS: usize = 1000;

/// `info string <text>` with `text` printable ASCII (others become '?') and at most
/// [`INFO_STRING_CHARS`] characters.
fn info_string_line(text: &str) -> String {
    let mut ascii: String = text
        .chars()
        .take(INFO_STRING_CHARS)
        .map(|c| if c.is_ascii() && !c.is_ascii_control() { c } else { '?' })
        .collect();
    let total = text.chars().count();
    if total > INFO_STRING_CHARS {
        ascii.push_str(&format!("... ({} more characters)", total - INFO_STRING_CHARS));
    }
    format!("info string {ascii}")
}

pub fn format_info(info: &SearchInfo) -> String {
    let score = match info.score {
        Score::Cp(v) => format!("cp {v}"),
        Score::Mate(n) => format!("mate {n}"),
    };
    let bound = match info.bound {
        ScoreBound::Exact => "",
        ScoreBound::Lower => " lowerbound",
        ScoreBound::Upper => " upperbound",
    };
    let pv: Vec<String> = info.pv.iter().map(|m| m.to_usi()).collect();
    format!(
        "info depth {} seldepth {} time {} nodes {} nps {} hashfull {} score {score}{bound} multipv {} pv {}",
        info.depth,
        info.sel_depth,
        info.time_ms,
        info.nodes,
        info.nps,
        info.hashfull,
        info.multipv,
        pv.join(" ")
    )
}

pub fn format_best_move(best: BestMove) -> String {
    match best {
        BestMove::Move { best, ponder: Some(p) } => format!("bestmove {best} ponder {p}"),
        BestMove::Move { best, ponder: None } => format!("bestmove {best}"),
        BestMove::Resign => "bestmove resign".to_string(),
        BestMove::Win => "bestmove win".to_string(),
    }
}

/// Reports a search in USI.
pub struct UsiReporter {
    /// Whether `bestmove` carries a `ponder` move (only when USI_Ponder is on).
    pub ponder: bool,
}

impl Reporter for UsiReporter {
    fn info(&self, info: &SearchInfo) {
        send(&format_info(info));
    }

    fn message(&self, text: &str) {
        info_string(text);
    }

    fn best_move(&self, best: BestMove) {
        let best = match best {
            BestMove::Move { best, .. } if !self.ponder => BestMove::Move { best, ponder: None },
            other => other,
        };
        send(&format_best_move(best));
    }

    fn checkpoint(&self, control: &SearchControl) {
        transport::checkpoint(Running::Search(control));
    }
}

/// Answers `go mate`: `info time .. nodes .. nps .. hashfull ..`, then `checkmate <moves>`,
/// `checkmate nomate` or `checkmate timeout`.
pub struct UsiMateReporter;

impl MateReporter for UsiMateReporter {
    fn mate_report(&self, report: &MateReport) {
        // The figures stay the line just before the answer (where GUIs and tests read them).
        if let Some(text) = mate_quality(report) {
            info_string(&text);
        }
        send(&mate_info_line(report));
        send(&checkmate_line(&report.result));
    }

    fn message(&self, text: &str) {
        info_string(text);
    }

    fn checkpoint(&self, stop: &AtomicBool) {
        transport::checkpoint(Running::Mate(stop));
    }
}

/// `info time .. nodes .. nps .. hashfull ..` for a finished solve.
fn mate_info_line(report: &MateReport) -> String {
    let info = &report.info;
    let ms = info.elapsed.as_millis() as u64;
    let nps = (info.nodes as f64 / info.elapsed.as_secs_f64().max(1e-6)) as u64;
    format!("info time {ms} nodes {} nps {nps} hashfull {}", info.nodes, report.hashfull)
}

/// What the user can trust of a mate line: whether no shorter mate exists, and whether every
/// defender reply was checked (see `MateInfo`).
fn mate_quality(report: &MateReport) -> Option<String> {
    let MateResult::Mate(line) = &report.result else {
        return None;
    };
    let info = &report.info;
    let mut text = format!("mate in {} plies", line.len());
    text += match (info.shortest, info.principal) {
        (true, true) => ", proven shortest; every move of the line is best play",
        (true, false) => {
            ", proven shortest; below the first move the line may not be best play (the limits ended the check)"
        }
        (false, _) => "; a shorter mate is not ruled out (the limits ended the search for one)",
    };
    if !info.line_verified {
        text += "; the line was read from the table, and its defender moves may not resist longest";
    }
    Some(text)
}

/// The `checkmate` line for a result.
fn checkmate_line(result: &MateResult) -> String {
    match result {
        MateResult::Mate(line) => {
            let moves: Vec<String> = line.iter().map(|m| m.to_usi()).collect();
            format!("checkmate {}", moves.join(" "))
        }
        MateResult::NoMate => "checkmate nomate".to_string(),
        MateResult::Timeout => "checkmate timeout".to_string(),
    }
}

/// The `option name ... type ...` lines of the `usi` answer, with the current values as defaults.
pub fn option_lines(options: &Options) -> Vec<String> {
    options
        .decls()
        .iter()
        .map(|d| {
            let current = options.value(d.name);
            match &d.kind {
                Kind::Check(_) => {
                    format!("option name {} type check default {current}", d.name)
                }
                Kind::Spin { min, max, .. } => {
                    format!("option name {} type spin default {current} min {min} max {max}", d.name)
                }
                Kind::Combo { vars, .. } => {
                    let vars: String = vars.iter().map(|v| format!(" var {v}")).collect();
                    format!("option name {} type combo default {current}{vars}", d.name)
                }
                Kind::Str(_) | Kind::Filename(_) => {
                    let ty = if matches!(d.kind, Kind::Str(_)) { "string" } else { "filename" };
                    let shown = if current.to_string().is_empty() {
                        "<empty>".to_string()
                    } else {
                        current.to_string()
                    };
                    format!("option name {} type {ty} default {shown}", d.name)
                }
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::types::Move;

    #[test]
    fn info_strings_are_printable_and_bounded() {
        assert_eq!(info_string_line("a\tb\u{3042}"), "info string a?b?");
        let long = info_string_line(&"x".repeat(100_000));
        assert!(long.len() < 1100, "{}", long.len());
        assert!(long.ends_with("... (99000 more characters)"), "{long}");
    }

    #[test]
    fn mate_answers_are_usi() {
        let line = vec![Move::from_usi("G*5b").unwrap()];
        assert_eq!(checkmate_line(&MateResult::Mate(line)), "checkmate G*5b");
        assert_eq!(checkmate_line(&MateResult::NoMate), "checkmate nomate");
        assert_eq!(checkmate_line(&MateResult::Timeout), "checkmate timeout");
    }

    #[test]
    fn mate_lines_say_what_is_proven_of_them() {
        let line = ["R*2b", "1a2b", "G*3b"].map(|m| Move::from_usi(m).unwrap()).to_vec();
        let report = |result: MateResult, shortest, line_verified| MateReport {
            result,
            info: crate::mate::MateInfo {
                shortest,
                line_verified,
                principal: shortest,
                ..Default::default()
            },
            hashfull: 0,
        };
        let said = |r: &MateReport| mate_quality(r).unwrap_or_default();
        assert_eq!(
            said(&report(MateResult::Mate(line.clone()), true, true)),
            "mate in 3 plies, proven shortest; every move of the line is best play"
        );
        let mut tree_line = report(MateResult::Mate(line.clone()), true, true);
        tree_line.info.principal = false;
        assert!(said(&tree_line).contains("below the first move the line may not be best play"));
        let open = said(&report(MateResult::Mate(line.clone()), false, true));
        assert!(open.starts_with("mate in 3 plies; a shorter mate is not ruled out"), "{open}");
        let unverified = said(&report(MateResult::Mate(line), false, false));
        assert!(unverified.ends_with("its defender moves may not resist longest"), "{unverified}");
        assert_eq!(mate_quality(&report(MateResult::NoMate, false, false)), None);
        assert_eq!(mate_quality(&report(MateResult::Timeout, false, false)), None);
    }

    #[test]
    fn option_lines_are_well_formed() {
        let o = Options::default();
        for line in option_lines(&o) {
            assert!(line.starts_with("option name ") && !line.ends_with(' '), "{line}");
        }
        assert!(option_lines(&o).iter().any(|l| l == "option name EvalFile type filename default <empty>"));
    }

    /// A `tune` build offers every search parameter as a spin option with its range.
    #[cfg(feature = "tune")]
    #[test]
    fn tune_build_offers_every_parameter() {
        let lines = option_lines(&Options::default());
        for p in crate::search::params::ALL {
            let want =
                format!("option name {} type spin default {} min {} max {}", p.name, p.default, p.min, p.max);
            assert!(lines.contains(&want), "missing: {want}");
        }
    }

    #[test]
    fn formats() {
        let m = Move::from_usi("7g7f").unwrap();
        let p = Move::from_usi("3c3d").unwrap();
        assert_eq!(
            format_best_move(BestMove::Move { best: m, ponder: Some(p) }),
            "bestmove 7g7f ponder 3c3d"
        );
        assert_eq!(format_best_move(BestMove::Resign), "bestmove resign");
        let info = SearchInfo {
            depth: 3,
            sel_depth: 5,
            time_ms: 10,
            nodes: 100,
            nps: 10000,
            hashfull: 0,
            score: Score::Mate(-2),
            bound: ScoreBound::Lower,
            multipv: 1,
            pv: vec![m, p],
        };
        assert_eq!(
            format_info(&info),
            "info depth 3 seldepth 5 time 10 nodes 100 nps 10000 hashfull 0 score mate -2 lowerbound multipv 1 pv 7g7f 3c3d"
        );
    }
}
