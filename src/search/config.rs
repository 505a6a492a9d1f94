//! The search's settings from the engine's options (draw values, MultiPV, resignation, the
//! clock's margins), fixed for the length of one search.

use super::skill::Skill;
use super::time::TimeOptions;
use crate::position::DeclarationRule;
use crate::types::{Color, Value};

/// Search settings taken from the engine's options when a search starts. The defaults here are the
/// options' defaults (the option declarations take them from here).
#[derive(Clone, Debug, PartialEq)]
pub struct SearchConfig {
    pub multi_pv: usize,
    /// The value of a draw for the engine when it plays black / white (from its own view).
    pub draw_value_black: Value,
    pub draw_value_white: Value,
    /// 0: no limit; otherwise the game is drawn when the ply about to be played exceeds it.
    pub max_moves_to_draw: u32,
    pub entering_king_rule: DeclarationRule,
    /// Generate unnecessary non-promotions too.
    pub generate_all_moves: bool,
    /// Resign when the best score is below minus this; `None`: never.
    pub resign_value: Option<Value>,
    /// Analysis for a GUI's consideration mode: the lines of an iteration cut short by `stop`
    /// are still reported (from the last iteration that reached them), and the engine never
    /// resigns.
    pub consideration_mode: bool,
    /// The least milliseconds between two reports of the lines (0: every iteration); the last
    /// report held back goes out before the best move.
    pub pv_interval: u64,
    pub time: TimeOptions,
    /// The strength level (`SkillLevel`, `USI_Elo`); full strength changes nothing.
    pub skill: Skill,
}

impl Default for SearchConfig {
    fn default() -> SearchConfig {
        SearchConfig {
            multi_pv: 1,
            draw_value_black: -2,
            draw_value_white: -2,
            max_moves_to_draw: 0,
            entering_king_rule: DeclarationRule::CSARule27,
            generate_all_moves: false,
            resign_value: None,
            consideration_mode: false,
            pv_interval: 0,
            time: TimeOptions::default(),
            skill: Skill::FULL,
        }
    }
}

impl SearchConfig {
    /// What a draw is worth to the side to move `stm` in a search whose root has `root` to move
    /// (the draw values are the engine's own, from the root's view).
    #[inline]
    pub fn draw_value(&self, root: Color, stm: Color) -> Value {
        let v = match root {
            Color::Black => self.draw_value_black,
            Color::White => self.draw_value_white,
        };
        if stm == root {
            v
        } else {
            -v
        }
    }
}
