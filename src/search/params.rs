//! Every search tunable, named, in one place.
//!
//! Without the `tune` feature each parameter is a `const fn` returning its default, so it costs
//! nothing. With `--features tune` each becomes an atomic that the engine session exposes as an
//! option of the same name (a USI spin option, for SPSA tuners such as shogiarena's).

macro_rules! params {
    ($($(#[$doc:meta])* $name:ident = $default:expr, $min:expr, $max:expr;)*) => {
        #[cfg(not(feature = "tune"))]
        mod values {
            $(
                $(#[$doc])*
                #[inline(always)]
                #[allow(non_snake_case)]
                pub const fn $name() -> i32 {
                    $default
                }
            )*
        }

        #[cfg(feature = "tune")]
        mod values {
            use std::sync::atomic::Ordering;
            /// The current values (functions and statics share a namespace, hence the module).
            pub mod cells {
                use std::sync::atomic::AtomicI32;
                $(
                    #[allow(non_upper_case_globals)]
                    pub static $name: AtomicI32 = AtomicI32::new($default);
                )*
            }
            $(
                $(#[$doc])*
                #[inline(always)]
                #[allow(non_snake_case)]
                pub fn $name() -> i32 {
                    cells::$name.load(Ordering::Relaxed)
                }
            )*
        }

        pub use values::*;

        /// One tunable: its name, default and range.
        pub struct Param {
            pub name: &'static str,
            pub default: i32,
            pub min: i32,
            pub max: i32,
        }

        /// Every tunable, for the USI options of a `tune` build and for tests.
        pub const ALL: &[Param] = &[
            $(Param { name: stringify!($name), default: $default, min: $min, max: $max },)*
        ];

        /// Sets a tunable by its exact name (`tune` builds); false if unknown or out of range.
        #[cfg(feature = "tune")]
        pub fn set(name: &str, value: i32) -> bool {
            use std::sync::atomic::Ordering;
            $(
                if name == stringify!($name) {
                    if !($min..=$max).contains(&value) {
                        return false;
                    }
                    values::cells::$name.store(value, Ordering::Relaxed);
                    return true;
                }
            )*
            false
        }
    };
}

params! {
    /// First aspiration window half-width, before the part that grows with how much the root
    /// move's score has varied.
    AspirationDelta = 5, 1, 60;
    /// The varying part: the mean of the squared scores (sign kept) divided by this.
    AspirationSquareDivisor = 9000, 1000, 100000;
    /// Value of a repetition where the side to move holds strictly more in hand (the cycle won
    /// material for it; minus this where it holds less). The evaluation's bound
    /// (`VALUE_EVAL_MAX`), as YaneuraOu scores them just short of its win range: with less, a
    /// side losing by more threw pieces into a cycle to cap its loss at minus this.
    SuperiorValue = 20000, 0, 20000;
    /// Soft time limit: percentage of the optimum after which no new iteration starts, for a
    /// settled search (`time::Settledness` stretches it for an unsettled one).
    NewIterationPercent = 60, 20, 100;
    /// The falling-score factor, in per mille: this...
    TmFallingBase = 111, 0, 1000;
    /// ... plus this per unit the best score fell below the previous move's average...
    TmFallingPrevious = 47, 0, 200;
    /// ... plus this per unit it fell below the score of three iterations ago...
    TmFallingIteration = 21, 0, 200;
    /// ... at least this...
    TmFallingMin = 500, 100, 1000;
    /// ... and at most this.
    TmFallingMax = 1500, 1000, 3000;
    /// The best move is stable when it last changed more than this many iterations ago.
    TmStableDepth = 8, 2, 20;
    /// The time reduction (percent) of a stable best move...
    TmReductionStable = 157, 100, 300;
    /// ... and of one that is not. The time is multiplied by (carry + the previous move's
    /// reduction) / (divisor * this move's reduction), all in percent, with the carry...
    TmReductionUnstable = 65, 20, 100;
    /// ... this...
    TmReductionCarry = 140, 50, 300;
    /// ... and the divisor this.
    TmReductionDivisor = 208, 100, 400;
    /// The instability factor: 1 + this percent per best-move change (per thread, halved each
    /// iteration).
    TmInstability = 170, 0, 400;
    /// The whole product, in percent: a settled search's product is about 45%, so that 220 makes
    /// it stop where it always did.
    TmScale = 220, 50, 500;

    /// History bonus of a move that cut off: this per ply of depth...
    HistBonusMul = 128, 20, 400;
    /// ... minus this...
    HistBonusOffset = 77, -200, 400;
    /// ... at most this...
    HistBonusMax = 1529, 200, 4000;
    /// ... plus this when it was the table's move.
    HistBonusTtMove = 353, 0, 1000;
    /// History malus of the moves tried before the one that cut off: this per ply of depth...
    HistMalusMul = 882, 100, 2000;
    /// ... minus this...
    HistMalusOffset = 204, -500, 800;
    /// ... at most this.
    HistMalusMax = 2122, 200, 5000;
    /// Main history update from the change of the static evaluation over the last move: scale.
    EvalDiffHistory = 10, 0, 40;
    /// That change is clamped to at least this...
    EvalDiffMin = -214, -1000, 0;
    /// ... and at most this...
    EvalDiffMax = 171, 0, 1000;
    /// ... and this is added to it.
    EvalDiffOffset = 60, -300, 300;
    /// Pawn history update from the same change (on a table miss, not after a pawn move or a
    /// promotion): scale.
    EvalDiffPawnHistory = 12, 0, 40;
    /// The cut-off bonus includes the previous move's stat score divided by this.
    HistStatScoreDivisor = 32, 4, 256;
    /// Share of the cut-off bonus (per 1024) that the best move gets when it is quiet...
    HistBestQuiet = 806, 0, 2048;
    /// ... or a capture.
    HistBestCapture = 1286, 0, 2048;
    /// Share of the malus (per 1024) of the first quiet tried before the best move...
    HistQuietMalus = 1113, 0, 2048;
    /// ... shrinking by this per 1024 with every quiet tried.
    HistQuietMalusDecay = 977, 700, 1024;
    /// Share of the malus (per 1024) of the captures tried before the best move.
    HistCaptureMalus = 1559, 0, 3072;
    /// Share of the malus (per 1024) of the previous move when the node's best move refuted it
    /// among its first moves tried (the continuation histories).
    HistPrevMalus = 616, 0, 2048;
    /// A quiet move's history update: share (per 1024) of the low-ply history...
    HistLowPly = 761, 0, 2048;
    /// ... of the continuation histories...
    HistContQuiet = 955, 0, 2048;
    /// ... of the pawn history for a bonus...
    HistPawnBonus = 850, 0, 2048;
    /// ... and for a malus.
    HistPawnMalus = 550, 0, 2048;
    /// Continuation history updates: weight (per 1024) of the history of the move one ply back...
    HistContWeight1 = 1157, 0, 2048;
    /// ... two plies back...
    HistContWeight2 = 648, 0, 2048;
    /// ... three plies back (not when the move was made in check, nor beyond)...
    HistContWeight3 = 288, 0, 2048;
    /// ... four plies back...
    HistContWeight4 = 576, 0, 2048;
    /// ... five plies back...
    HistContWeight5 = 140, 0, 2048;
    /// ... six plies back.
    HistContWeight6 = 441, 0, 2048;
    /// Continuation history updates: added to the update of the move one ply back.
    HistContFirstBonus = 88, -300, 400;
    /// Gravity bound of the main and low-ply histories (entries stay within plus or minus it).
    HistMainMax = 7183, 2000, 16000;
    /// Gravity bound of the capture history.
    HistCaptureMax = 10692, 2000, 20000;
    /// Gravity bound of the continuation histories (at most 32767: entries are 16-bit).
    HistContMax = 30000, 8000, 32000;
    /// Gravity bound of the pawn history.
    HistPawnMax = 8192, 2000, 16000;

    /// Table cut-off by a quiet move: its history bonus is this per ply of depth...
    TtCutBonusMul = 130, 20, 400;
    /// ... minus this...
    TtCutBonusOffset = 71, -200, 400;
    /// ... at most this.
    TtCutBonusMax = 1043, 200, 4000;
    /// Table cut-off: continuation malus of the previous (quiet) move...
    TtCutPrevMalus = 2142, 0, 6000;
    /// ... when it was among the first this many moves tried at its node.
    TtCutPrevMoves = 4, 0, 20;
    /// Table cut-offs up to this depth only where the node type agrees with the bound.
    TtCutNodeTypeDepth = 5, 0, 20;

    /// Fail low after a quiet previous move: the previous move's bonus scale is minus this...
    PriorBase = 232, -500, 1000;
    /// ... less its stat score divided by this...
    PriorStatScoreDivisor = 108, 20, 1000;
    /// ... plus this per ply of depth...
    PriorDepthMul = 59, 0, 200;
    /// ... (that part at most this)...
    PriorDepthMax = 454, 0, 1500;
    /// ... plus this when it came late in its node...
    PriorLateMove = 169, 0, 500;
    /// ... after more than this many moves...
    PriorLateMoveCount = 8, 1, 30;
    /// ... plus this when the result is well below the static evaluation...
    PriorBelowEval = 145, 0, 500;
    /// ... by more than this...
    PriorBelowEvalMargin = 110, 0, 500;
    /// ... plus this when it is well below the previous node's static evaluation...
    PriorBelowPrevEval = 154, 0, 500;
    /// ... by more than this.
    PriorBelowPrevEvalMargin = 73, 0, 500;
    /// Fail low after a quiet previous move: the bonus is this per ply of depth...
    PriorBonusMul = 135, 20, 400;
    /// ... minus this...
    PriorBonusOffset = 80, -200, 400;
    /// ... at most this (then times the scale).
    PriorBonusMax = 1400, 200, 4000;
    /// Share (per 16384) of the previous move's bonus for its continuation histories...
    PriorCont = 221, 0, 600;
    /// ... (per 32768) for its main history...
    PriorMain = 235, 0, 1000;
    /// ... (per 8192) for its pawn history (not after a pawn move or a promotion).
    PriorPawn = 290, 0, 800;
    /// Fail low after a capture: the capture history bonus of that capture.
    PriorCaptureBonus = 1018, 0, 3000;

    /// Razoring: qsearch decides when the evaluation is below alpha by this...
    RazorBase = 546, 0, 2000;
    /// ... plus this per depth squared.
    RazorDepth = 304, 0, 1000;
    /// Reverse futility pruning: below this depth.
    RfpMaxDepth = 15, 1, 30;
    /// Reverse futility pruning: margin per ply of depth (less this without a table hit).
    RfpMargin = 79, 20, 300;
    RfpNoTtHit = 21, 0, 60;
    /// Reverse futility pruning: margin taken off when improving / when the opponent worsens
    /// (in 1/1024 of the margin per ply).
    RfpImproving = 2686, 0, 6000;
    RfpOpponentWorsening = 362, 0, 3000;
    /// Reverse futility pruning: the margin grows by the correction's size divided by this.
    RfpCorrectionDivisor = 180600, 20000, 2000000;

    /// Hindsight: a child whose search was reduced by at least this many plies is searched a ply
    /// deeper (unless the opponent's position got worse)...
    HindsightDeeperReduction = 3, 1, 10;
    /// ... one reduced by at least this many a ply shallower (from depth 2) when the two static
    /// evaluations sum above the next.
    HindsightShallowerReduction = 2, 1, 10;
    /// Hindsight: the sum of the static evaluations (the node's and its parent's) above which
    /// a reduced child gives a ply up.
    HindsightShallowerMargin = 173, 0, 1000;

    /// Null move: the static evaluation must be at least beta minus this per ply of depth...
    NmpDepthMargin = 16, 0, 100;
    /// ... minus this when improving ...
    NmpImproving = 53, 0, 300;
    /// ... plus this.
    NmpBase = 336, -500, 1000;
    /// Null move: constant part of the reduction (plus depth / 3).
    NmpReduction = 7, 1, 12;
    /// Null move: from this depth a fail-high is verified by a search without null moves.
    NmpVerifyDepth = 16, 4, 40;

    /// Internal iterative reductions: from this depth.
    IirMinDepth = 6, 2, 12;
    /// Internal iterative reductions: only when the parent reduced this node by at most this.
    IirMaxPriorReduction = 3, 0, 10;

    /// ProbCut: the raised beta is beta plus this (less the next when improving).
    ProbCutMargin = 224, 50, 600;
    ProbCutImproving = 61, 0, 300;
    /// ProbCut: from this depth (100: never, for measuring it).
    ProbCutMinDepth = 3, 2, 100;
    /// ProbCut: up to this depth. At 4 (with the reduction of 4) ProbCut is the form whose
    /// verification is the quiescence search alone: it passed a non-regression SPRT against ProbCut
    /// off, where the deeper form was heading for H0 (docs/records/search.md). The maximum, the ply
    /// limit, is above every search depth: no limit.
    ProbCutMaxDepth = 4, 2, crate::types::MAX_PLY;
    /// ProbCut: the verification search is this much shallower.
    ProbCutReduction = 4, 2, 8;
    /// ProbCut: the verification search is a ply shallower still for each this much by which the
    /// static evaluation beats beta, and deeper by as much below it (0: a fixed reduction).
    ProbCutEvalDivisor = 0, 0, 2000;
    /// Small ProbCut: a table lower bound this far above beta cuts at once (30000: never).
    SmallProbCutMargin = 416, 100, 30000;
    /// Small ProbCut: the table's depth must be at least the depth minus this.
    SmallProbCutDepth = 4, 0, 10;

    /// Late move reductions: the table is `LmrScale / 128 * ln(i)` per factor, in 1/1024 plies.
    LmrScale = 2932, 1000, 5000;
    /// Late move reductions: constant part, 1/1024 plies.
    LmrBase = 1133, 0, 3000;
    /// Late move reductions: less by this times the window over the root's window.
    LmrDelta = 585, 0, 2000;
    /// Late move reductions: more when not improving, in 1/512 of the table's reduction.
    LmrNotImproving = 206, 0, 600;
    /// Late move reductions: more on a node the table saw on a principal variation (before
    /// the move is made).
    LmrTtPvEarly = 1013, 0, 3000;
    /// Late move reductions after the move is made, on nodes the table saw on a principal
    /// variation: less by this...
    LmrTtPvBase = 2819, 0, 6000;
    /// ... and this on PV nodes, this when the table's value is above alpha, this when the
    /// table's depth reaches this depth (and this more at cut nodes).
    LmrTtPvPv = 973, 0, 3000;
    LmrTtPvAlpha = 905, 0, 3000;
    LmrTtPvDepth = 935, 0, 3000;
    LmrTtPvCut = 959, 0, 3000;
    /// Late move reductions: a constant added to every reduction ...
    LmrOffset = 691, -2000, 3000;
    /// ... less this per move already searched.
    LmrMoveCount = 65, 0, 300;
    /// Late move reductions: more at cut nodes (and more without a table move).
    LmrCutNode = 3611, 0, 8000;
    LmrCutNodeNoTtMove = 985, 0, 3000;
    /// Late move reductions: more when the table's move is a capture.
    LmrTtCapture = 1054, 0, 3000;
    /// Late move reductions: more when the children cut off often.
    LmrCutoffs = 251, 0, 2000;
    LmrCutoffsMany = 1124, 0, 3000;
    LmrCutoffsAllNode = 1042, 0, 3000;
    /// Late move reductions: less for the table's move.
    LmrTtMove = 2239, 0, 5000;
    /// Late move reductions: a capture's stat score counts the captured value times this / 128.
    LmrCaptureValue = 863, 0, 2000;
    /// Late move reductions: less by the stat score times this / 4096.
    LmrStatScore = 428, 0, 2000;
    /// Late move reductions: more at all-nodes, in proportion (this / 256 per depth).
    LmrAllNode = 273, 0, 1000;
    /// Late move reductions: the all-node proportion's divisor is 256 per depth plus this.
    LmrAllNodeOffset = 260, 0, 2000;
    /// Late move reductions: less by the correction's size divided by this (1/1024 plies).
    LmrCorrectionDivisor = 25600, 2000, 500000;
    /// After a reduced search beats alpha: search deeper when it beat the best by this...
    LmrDeeperMargin = 48, 0, 300;
    /// ... shallower when it beat it by less than this.
    LmrShallowerMargin = 9, 0, 100;
    /// A move whose reduced search beat alpha: continuation history bonus.
    LmrResearchBonus = 1426, 0, 4000;
    /// Full-depth null-window searches without LMR: more reduction without a table move.
    FullSearchNoTtMove = 1057, 0, 3000;
    /// ... one ply less above this reduction, two above the next.
    FullSearchReduce1 = 4628, 1000, 10000;
    FullSearchReduce2 = 5772, 1000, 12000;

    /// Move count pruning: quiet moves tried before the rest are skipped, plus depth^2 (halved
    /// when not improving).
    LmpBase = 3, 0, 20;
    /// Futility pruning of captures: margin constant, per ply of reduced depth, and the capture
    /// history's share (per 1024).
    CaptureFutilityBase = 231, 0, 1000;
    CaptureFutilityDepth = 209, 0, 600;
    CaptureFutilityHistory = 131, 0, 500;
    /// Futility pruning of captures: below this reduced depth.
    CaptureFutilityMaxDepth = 7, 1, 30;
    /// SEE pruning of captures and checks: allowed loss per ply of depth, and the capture
    /// history's share (per 1024).
    SeeCaptureDepth = 171, 0, 500;
    SeeCaptureHistory = 34, 0, 200;
    /// History pruning: a quiet move whose continuation history is below minus this times depth
    /// is skipped.
    HistoryPruneScale = 4097, 0, 20000;
    /// History worth one ply of reduced depth in quiet pruning.
    HistoryLmrDivisor = 3220, 500, 20000;
    /// Quiet pruning: the main history's weight (per 32) in that history.
    HistoryLmrMain = 71, 0, 256;
    /// Futility pruning of quiets: margin constant, more without a best move yet, per ply of
    /// reduced depth, more when the static evaluation is above alpha; up to this reduced depth.
    FutilityBase = 40, 0, 500;
    FutilityNoBestMove = 151, 0, 500;
    FutilityDepth = 128, 20, 500;
    FutilityAboveAlpha = 81, 0, 500;
    FutilityMaxDepth = 13, 1, 30;
    /// SEE pruning of quiets: allowed loss per (reduced depth)^2.
    SeeQuietScale = 25, 0, 200;

    /// Singular extensions: from this depth (one more on nodes the table saw on a PV).
    SingularMinDepth = 6, 3, 12;
    /// Singular extensions: the table's depth must be at least the depth minus this.
    SingularTtDepth = 3, 0, 10;
    /// Singular extensions: the margin below the table's value, this (plus the next off a PV
    /// on table-PV nodes) per `SingularDivisor` plies of depth.
    SingularMargin = 60, 4, 200;
    SingularTtPvMargin = 66, 0, 200;
    SingularDivisor = 55, 16, 128;
    /// Singular extensions: a move this far below the singular beta is extended twice
    /// (margin: base, plus on PV nodes, less when the table's move is quiet)...
    DoubleExtBase = -4, -300, 300;
    DoubleExtPv = 212, 0, 1000;
    DoubleExtQuiet = 182, 0, 1000;
    /// ... and three times this far below (base, PV, quiet, table PV).
    TripleExtBase = 73, -300, 500;
    TripleExtPv = 320, 0, 1000;
    TripleExtQuiet = 218, 0, 1000;
    TripleExtTtPv = 92, 0, 500;
    /// Double and triple extensions: both margins shrink by the correction's size divided by
    /// this...
    ExtCorrectionDivisor = 210590, 20000, 2000000;
    /// ... the double margin by this deeper than the root depth...
    DoubleExtDeep = 44, 0, 300;
    /// ... and the triple margin by this.
    TripleExtDeep = 45, 0, 300;
    /// The double margin also shrinks by the table-move history (how often the table's move
    /// turned out best) times this, divided by `TtMoveHistDivisor`.
    DoubleExtTtMoveHist = 906, 0, 3000;
    TtMoveHistDivisor = 116517, 10000, 1000000;
    /// The table-move history gains this at a non-PV node where the table's move was best...
    TtMoveHistBest = 805, 0, 3000;
    /// ... loses this where another move was...
    TtMoveHistOther = 787, 0, 3000;
    /// ... and loses `TtMoveHistCutBase + TtMoveHistCutDepth * depth` (at most
    /// `TtMoveHistCutMax`) where the singular search cut the node without it.
    TtMoveHistCutBase = 424, 0, 3000;
    TtMoveHistCutDepth = 107, 0, 500;
    TtMoveHistCutMax = 3375, 0, 8000;
    /// Negative extension of the table's move when the search without it still fails high on
    /// the table's value (plies)...
    SingularNegExt = 3, 0, 6;
    /// ... and otherwise at cut nodes.
    SingularNegExtCut = 2, 0, 6;

    /// A new best move at a PV node: the remaining moves are searched this much shallower
    /// (at most 2, so that the depth stays positive)...
    PvBestReduction = 2, 0, 2;
    /// ... at depths above this (at least 2, likewise)...
    PvBestMinDepth = 2, 2, 10;
    /// ... and below this.
    PvBestMaxDepth = 14, 2, 40;

    /// Quiescence search: futility margin above the static evaluation.
    QsFutility = 328, 0, 1000;
    /// Quiescence search: captures losing more than this by SEE are skipped.
    QsSeeMargin = 73, 0, 500;
    /// Quiescence search: moves that neither check nor recapture, after the first this many,
    /// are skipped.
    QsFutilityMoves = 2, 0, 10;

    /// Move ordering: quiets scored above this come before the bad captures, the rest after.
    GoodQuietThreshold = -14000, -40000, 0;
    /// Move ordering: the bonus of a quiet check whose SEE loses at most the next.
    QuietCheckBonus = 16384, 0, 40000;
    /// Move ordering: what a quiet check may lose by SEE and still get the check bonus.
    QuietCheckSee = 75, 0, 500;
    /// Move ordering: weight of the low-ply history in a quiet's score (divided by 1 + ply).
    QuietLowPlyWeight = 8, 0, 32;
    /// Move ordering: quiets scored below minus this per ply of depth are left unsorted.
    QuietSortDepth = 3560, 0, 10000;
    /// Move ordering: a capture's score is its capture history plus this times the captured
    /// piece's value...
    CaptureValueWeight = 7, 0, 32;
    /// ... and it is a good capture when its SEE reaches minus its score divided by this.
    CaptureSeeDivisor = 18, 1, 100;

    /// Correction history: the bonus is (search value - static eval) * depth times this / 128
    /// with a best move, the next without.
    CorrBonusBest = 12, 0, 64;
    CorrBonusNone = 17, 0, 64;
    /// Correction history: the clamped bonus is scaled by this / 1024 before the update.
    CorrBonusScale = 1069, 0, 2048;
    /// Correction history: the update of the minor-piece table is the bonus times this / 128...
    CorrMinorUpdate = 153, 0, 512;
    /// ... of each non-pawn table...
    CorrNonPawnUpdate = 187, 0, 512;
    /// ... of the continuation table after the move two plies back...
    CorrCont2Update = 126, 0, 512;
    /// ... and after the move four plies back (the pawn table takes the bonus as it is).
    CorrCont4Update = 63, 0, 512;
    /// Correction history: weight of the pawn table in the correction (per 131072 of an
    /// evaluation unit)...
    CorrPawnWeight = 12153, 0, 30000;
    /// ... of the minor-piece table...
    CorrMinorWeight = 8620, 0, 30000;
    /// ... of each non-pawn table...
    CorrNonPawnWeight = 12355, 0, 30000;
    /// ... of the continuation table (its two entries summed).
    CorrContWeight = 7982, 0, 30000;
    /// Correction history: the continuation entries' sum taken without a last move.
    CorrContNone = 8, -256, 256;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_are_in_range() {
        for p in ALL {
            assert!(p.min <= p.default && p.default <= p.max, "{}", p.name);
        }
        assert_eq!(AspirationDelta(), ALL[0].default);
    }

    /// A `tune` build sets parameters by name within their ranges and refuses the rest.
    #[cfg(feature = "tune")]
    #[test]
    fn tune_build_sets_parameters() {
        let p = ALL.iter().find(|p| p.name == "LmrBase").unwrap();
        assert!(set("LmrBase", p.max));
        assert_eq!(LmrBase(), p.max);
        assert!(!set("LmrBase", p.max + 1));
        assert!(!set("NoSuchParameter", 1));
        assert!(set("LmrBase", p.default));
        assert_eq!(LmrBase(), p.default);
    }
}
