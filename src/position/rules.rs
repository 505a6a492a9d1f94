//! Game-ending rules: repetition (with perpetual check and superior/inferior positions),
//! entering-king declaration, and the move limit. See `tests/data/rules.md` for the rule texts.

use super::Position;
use crate::bitboard::Bitboard;
use crate::types::{Color, Move, PieceType};

/// What a repetition of the current position means for the side to move.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Repetition {
    /// No earlier occurrence of this board with the same side to move.
    None,
    /// Plain repetition (sennichite): a draw.
    Draw,
    /// The opponent gave check with every move of the cycle: the side to move wins.
    Win,
    /// The side to move gave check with every move of the cycle: it loses.
    Lose,
    /// Same board, and the side to move holds strictly more in hand than before.
    Superior,
    /// Same board, and the side to move holds strictly less in hand than before.
    Inferior,
}

/// The entering-king rule in force (USI option `EnteringKingRule`).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum DeclarationRule {
    NoEnteringKing,
    /// 24-point rule: 31 points win, 24..=30 draw.
    CSARule24,
    /// 24-point rule with the thresholds of the handicap giver lowered by its missing material.
    CSARule24H,
    /// 27-point rule (CSA, floodgate): black needs 28, white 27.
    CSARule27,
    /// 27-point rule with handicap adjustment.
    CSARule27H,
    /// Try rule: a king reaching the enemy king's starting square wins.
    TryRule,
}

impl DeclarationRule {
    pub const NAMES: [&'static str; 6] =
        ["NoEnteringKing", "CSARule24", "CSARule24H", "CSARule27", "CSARule27H", "TryRule"];

    /// The rule's name, as in [`DeclarationRule::NAMES`] (the values of the USI option).
    pub fn name(self) -> &'static str {
        match self {
            DeclarationRule::NoEnteringKing => "NoEnteringKing",
            DeclarationRule::CSARule24 => "CSARule24",
            DeclarationRule::CSARule24H => "CSARule24H",
            DeclarationRule::CSARule27 => "CSARule27",
            DeclarationRule::CSARule27H => "CSARule27H",
            DeclarationRule::TryRule => "TryRule",
        }
    }

    pub fn from_name(s: &str) -> Option<DeclarationRule> {
        Some(match s {
            "NoEnteringKing" => DeclarationRule::NoEnteringKing,
            "CSARule24" => DeclarationRule::CSARule24,
            "CSARule24H" => DeclarationRule::CSARule24H,
            "CSARule27" => DeclarationRule::CSARule27,
            "CSARule27H" => DeclarationRule::CSARule27H,
            "TryRule" => DeclarationRule::TryRule,
            _ => return None,
        })
    }
}

/// The outcome of declaring now.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Declaration {
    /// Declaring would fail (and lose): the conditions are not met.
    None,
    /// Declaring wins (`bestmove win`).
    Win,
    /// Declaring draws (24-point rule, 24..=30 points). Not announced by the engine.
    Draw,
    /// Try rule: this king move to the try square wins.
    TryMove(Move),
}

/// Points of a piece kind for the declaration count: rook and bishop (promoted or not) 5, other
/// pieces 1, king 0.
fn declaration_points(pt: PieceType) -> u32 {
    match pt.unpromote() {
        PieceType::Bishop | PieceType::Rook => 5,
        PieceType::King => 0,
        _ => 1,
    }
}

/// Total declaration points of all pieces in a full set (both sides): 2 * 27.
const FULL_SET_POINTS: u32 = 54;

impl Position {
    /// The first repetition found looking back over the game (at most `max_back` plies, and never
    /// past a null move): the verdict search uses, at the first recurrence.
    pub fn repetition(&self, max_back: usize) -> Repetition {
        let st = self.st();
        let end = (st.plies_from_null as usize).min(max_back).min(self.moves_played());
        let us = self.side_to_move();
        let mut i = 4;
        while i <= end {
            let past = self.state_back(i);
            if past.board_key == st.board_key {
                let (now, then) = (st.hands[us.index()], past.hands[us.index()]);
                if now == then {
                    return if st.continuous_check[(!us).index()] as usize >= i {
                        Repetition::Win
                    } else if st.continuous_check[us.index()] as usize >= i {
                        Repetition::Lose
                    } else {
                        Repetition::Draw
                    };
                }
                if now.dominates(then) {
                    return Repetition::Superior;
                }
                if then.dominates(now) {
                    return Repetition::Inferior;
                }
            }
            i += 2;
        }
        Repetition::None
    }

    /// The game-level verdict: `Some` once the current position (board, hands, side to move) has
    /// occurred four times, with `Win`/`Lose` when one side checked with every move since the
    /// first of those occurrences, else `Draw`.
    pub fn fourfold_repetition(&self) -> Option<Repetition> {
        let st = self.st();
        let key = st.board_key ^ st.hand_key;
        let end = (st.plies_from_null as usize).min(self.moves_played());
        let mut seen = 1;
        let mut first = 0;
        let mut i = 4;
        while i <= end {
            let past = self.state_back(i);
            if past.board_key ^ past.hand_key == key {
                seen += 1;
                first = i;
            }
            i += 2;
        }
        if seen < 4 {
            return None;
        }
        let us = self.side_to_move();
        Some(if st.continuous_check[(!us).index()] as usize >= first {
            Repetition::Win
        } else if st.continuous_check[us.index()] as usize >= first {
            Repetition::Lose
        } else {
            Repetition::Draw
        })
    }

    /// Declaration points of colour `c`: its pieces in the enemy camp (king excluded) and in hand,
    /// and how many of its pieces (king excluded) stand in the enemy camp.
    pub fn declaration_points(&self, c: Color) -> (u32, u32) {
        let camp = Bitboard::promotion_zone(c);
        let mut points = 0;
        let mut count = 0;
        for sq in (self.pieces(c) & camp).and_not(self.pieces_of(PieceType::King)) {
            let pt = self.piece_on(sq).expect("occupied").piece_type();
            points += declaration_points(pt);
            count += 1;
        }
        let hand = self.hand(c);
        for pt in PieceType::HAND {
            points += hand.count(pt) * declaration_points(pt);
        }
        (points, count)
    }

    /// Declaration points of everything in the game (both sides, board and hands): 54 in an even
    /// game, less in handicap games.
    fn total_points(&self) -> u32 {
        let mut total = 0;
        for sq in self.occupied() {
            total += declaration_points(self.piece_on(sq).expect("occupied").piece_type());
        }
        for c in Color::ALL {
            for pt in PieceType::HAND {
                total += self.hand(c).count(pt) * declaration_points(pt);
            }
        }
        total
    }

    /// What declaring now would give the side to move under `rule`.
    pub fn declaration(&self, rule: DeclarationRule) -> Declaration {
        let us = self.side_to_move();
        let Some(k) = self.king_square(us) else {
            return Declaration::None;
        };
        if rule == DeclarationRule::NoEnteringKing {
            return Declaration::None;
        }
        if rule == DeclarationRule::TryRule {
            let target = match us {
                Color::Black => crate::types::Square::Sq51,
                Color::White => crate::types::Square::Sq59,
            };
            if crate::attacks::king(k).contains(target) {
                let m = Move::normal(k, target, false);
                if self.is_legal_move(m) {
                    return Declaration::TryMove(m);
                }
            }
            return Declaration::None;
        }
        if self.in_check() || !Bitboard::promotion_zone(us).contains(k) {
            return Declaration::None;
        }
        let (points, count) = self.declaration_points(us);
        if count < 10 {
            return Declaration::None;
        }
        // Handicap variants lower the thresholds of the side missing material (the handicap giver,
        // white in handicap SFENs) by the points missing from a full set.
        let missing = FULL_SET_POINTS.saturating_sub(self.total_points());
        let handicap = matches!(rule, DeclarationRule::CSARule24H | DeclarationRule::CSARule27H);
        let lower = if handicap && us == Color::White { missing } else { 0 };
        match rule {
            DeclarationRule::CSARule27 | DeclarationRule::CSARule27H => {
                let need = if us == Color::Black { 28 } else { 27 };
                if points >= need - lower.min(need) {
                    Declaration::Win
                } else {
                    Declaration::None
                }
            }
            _ => {
                if points >= 31 - lower.min(31) {
                    Declaration::Win
                } else if points >= 24 - lower.min(24) {
                    Declaration::Draw
                } else {
                    Declaration::None
                }
            }
        }
    }

    /// Whether the game is already drawn by the move limit `max_moves` (0: no limit): the ply about
    /// to be played is beyond the limit. (A side with no legal move has lost before this applies.)
    pub fn is_move_limit_reached(&self, max_moves: u32) -> bool {
        max_moves > 0 && self.game_ply() > max_moves
    }
}
