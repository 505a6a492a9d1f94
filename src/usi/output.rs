//! Everything the engine writes to stdout goes through here: one line at a time, under a lock,
//! flushed at once. The `UsiReporter` formats search progress and results as USI.

use crate::search::{BestMove, Reporter, ScoreBound, SearchInfo};
use crate::types::Score;
use std::io::Write;
use std::sync::Mutex;

static STDOUT: Mutex<()> = Mutex::new(());

/// Writes one protocol line.
pub fn send(line: &str) {
    let _guard = STDOUT.lock().unwrap_or_else(|e| e.into_inner());
    let mut out = std::io::stdout().lock();
    // A closed stdout (the GUI went away) is not worth a panic; the read loop will see EOF.
    let _ = writeln!(out, "{line}");
    let _ = out.flush();
}

/// `info string`, kept to ASCII (GUIs read Shift_JIS).
pub fn info_string(text: &str) {
    let ascii: String =
        text.chars().map(|c| if c.is_ascii() && !c.is_ascii_control() { c } else { '?' }).collect();
    send(&format!("info string {ascii}"));
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
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::types::Move;

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
