"""The referee: shogi rules with cshogi, and one game between two USI engines.

Rules applied (the engine's word is never trusted):
- every move an engine sends must be among cshogi's legal moves of the position (cshogi's list
  includes non-promotions and excludes pawn-drop mate); anything else loses;
- `bestmove resign`, a crash, a closed output or a move later than the time limit loses;
- `bestmove win` (entering-king declaration) wins when cshogi's `is_nyugyoku()` holds (27-point
  rule) and loses otherwise;
- a side to move with no legal move loses;
- the fourth occurrence of a position (same board, hands and side to move) ends the game: a side
  that gave check with every one of its moves since the position's first occurrence loses
  (perpetual check); otherwise it is a draw;
- reaching the maximum number of plies (the opening's included) is a draw.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import cshogi

from tools.usi.engine import EngineError, EngineTimeout, UsiEngine

BLACK, WHITE = 0, 1
COLOUR_NAMES = ("black", "white")


@dataclass
class Opening:
    """A start: `startpos` or an SFEN, and the moves played from it."""

    sfen: str | None  # None = the standard start position
    moves: list[str]
    text: str  # the line as read, for messages

    def base_command(self) -> str:
        return "position startpos" if self.sfen is None else f"position sfen {self.sfen}"


def parse_opening(line: str) -> Opening:
    """Parses `startpos [moves ...]` or `sfen B S H N [moves ...]` (a leading `position` is
    allowed) and checks every move with cshogi. ValueError on anything wrong."""
    tokens = line.split()
    if tokens and tokens[0] == "position":
        tokens = tokens[1:]
    if not tokens:
        raise ValueError("empty opening line")
    if tokens[0] == "startpos":
        sfen, rest = None, tokens[1:]
    elif tokens[0] == "sfen":
        if len(tokens) < 5:
            raise ValueError("sfen needs board, side, hands and move number")
        sfen, rest = " ".join(tokens[1:5]), tokens[5:]
    else:
        raise ValueError(f"expected startpos or sfen, got {tokens[0]!r}")
    if rest and rest[0] != "moves":
        raise ValueError(f"expected moves, got {rest[0]!r}")
    moves = rest[1:]
    board = cshogi.Board() if sfen is None else cshogi.Board(sfen)
    if sfen is not None and board.sfen().split()[:3] != sfen.split()[:3]:
        raise ValueError(f"bad sfen {sfen!r}")
    for m in moves:
        if m not in legal_usi(board):
            raise ValueError(f"illegal move {m} in the opening")
        board.push_usi(m)
    return Opening(sfen, moves, " ".join(tokens))


def load_openings(path: str) -> list[Opening]:
    """Every opening of a file, one per line; blank lines and `#` comments are skipped."""
    openings = []
    with open(path, encoding="utf-8") as f:
        for number, line in enumerate(f, 1):
            line = line.strip()
            if not line or line.startswith("#"):
                continue
            try:
                openings.append(parse_opening(line))
            except ValueError as e:
                raise ValueError(f"{path}:{number}: {e}") from None
    if not openings:
        raise ValueError(f"{path}: no openings")
    return openings


def legal_usi(board: cshogi.Board) -> set[str]:
    return {cshogi.move_to_usi(m) for m in board.legal_moves}


def position_key(board: cshogi.Board) -> str:
    """Board, side to move and hands: the SFEN without its move number."""
    return board.sfen().rsplit(" ", 1)[0]


@dataclass
class Outcome:
    winner: int | None  # BLACK, WHITE or None for a draw
    reason: str  # a short category: "checkmate", "illegal move", "repetition", ...
    detail: str = ""  # what exactly, for messages (the illegal move, the engine's error)

    def score_for(self, colour: int) -> int:
        """+1 win, 0 draw, -1 loss for `colour`."""
        if self.winner is None:
            return 0
        return 1 if self.winner == colour else -1


class Game:
    """The game record and its rules, without engines (the tests drive it directly)."""

    def __init__(self, opening: Opening, max_plies: int):
        self.opening = opening
        self.max_plies = max_plies
        self.board = cshogi.Board() if opening.sfen is None else cshogi.Board(opening.sfen)
        self.moves: list[str] = []
        # One entry per position reached, the start included: its key and whether the move that
        # reached it gave check (False for the start).
        self.keys: list[str] = [position_key(self.board)]
        self.checks: list[bool] = [False]
        self.outcome: Outcome | None = None
        for m in opening.moves:
            # Openings were checked on loading; the rules still run so that the record and
            # repetition history are complete (an opening that ends the game ends it).
            self.play(m)
            if self.outcome:
                break
        if not self.outcome:
            self.outcome = self._no_legal_move() or self._max_plies()

    def side_to_move(self) -> int:
        return BLACK if self.board.turn == cshogi.BLACK else WHITE

    def plies(self) -> int:
        return len(self.moves)

    def position_command(self) -> str:
        if not self.moves:
            return self.opening.base_command()
        return f"{self.opening.base_command()} moves {' '.join(self.moves)}"

    def finish(self, winner: int | None, reason: str, detail: str = "") -> Outcome:
        self.outcome = Outcome(winner, reason, detail)
        return self.outcome

    def play(self, word: str) -> Outcome | None:
        """Applies the side to move's answer (a USI move, `resign` or `win`); the outcome when
        it ends the game."""
        assert self.outcome is None, "the game is over"
        mover = self.side_to_move()
        other = 1 - mover
        if word == "resign":
            return self.finish(other, "resign")
        if word == "win":
            if self.board.is_nyugyoku():
                return self.finish(mover, "declaration win")
            return self.finish(other, "false declaration")
        if word not in legal_usi(self.board):
            return self.finish(other, "illegal move", word or "(no move)")
        self.board.push_usi(word)
        self.moves.append(word)
        self.keys.append(position_key(self.board))
        self.checks.append(bool(self.board.is_check()))
        return self._repetition(mover) or self._no_legal_move() or self._max_plies()

    def _repetition(self, mover: int) -> Outcome | None:
        key = self.keys[-1]
        seen = [i for i, k in enumerate(self.keys) if k == key]
        if len(seen) < 4:
            return None
        first = seen[0]
        last = len(self.keys) - 1
        # Positions first+1 .. last were reached by alternating moves: the mover's at last,
        # last-2, ...; the opponent's at last-1, last-3, ... (a cycle has an even length, so
        # both sides moved in it).
        mover_checked = all(self.checks[i] for i in range(last, first, -2))
        other_checked = all(self.checks[i] for i in range(last - 1, first, -2))
        if mover_checked and not other_checked:
            return self.finish(1 - mover, "perpetual check")
        if other_checked and not mover_checked:
            return self.finish(mover, "perpetual check")
        return self.finish(None, "repetition")

    def _no_legal_move(self) -> Outcome | None:
        if not any(True for _ in self.board.legal_moves):
            side = self.side_to_move()
            return self.finish(1 - side, "checkmate" if self.board.is_check() else "no legal move")
        return None

    def _max_plies(self) -> Outcome | None:
        if self.plies() >= self.max_plies:
            return self.finish(None, "max plies")
        return None


@dataclass
class Limits:
    """How each move is limited: `go nodes N`, or byoyomi in milliseconds."""

    nodes: int | None = 20000
    byoyomi_ms: int | None = None
    move_timeout: float = 30.0  # seconds until a move counts as lost on time

    def go_command(self) -> str:
        if self.byoyomi_ms is not None:
            return f"go btime 0 wtime 0 byoyomi {self.byoyomi_ms}"
        return f"go nodes {self.nodes}"


@dataclass
class GameRecord:
    outcome: Outcome
    moves: list[str] = field(default_factory=list)
    position: str = ""
    # Engines that misbehaved (timeout, crash) and must be restarted before the next game.
    broken: list[UsiEngine] = field(default_factory=list)


def end_game(game: Game, engines, broken: list[UsiEngine]) -> Outcome:
    """The outcome of the finished `game`, told (`gameover`) to each of `engines` (black's,
    white's) that is not in `broken`: both the referee and the clock games end a game so."""
    outcome = game.outcome
    assert outcome is not None
    for colour in (BLACK, WHITE):
        if engines[colour] not in broken:
            s = outcome.score_for(colour)
            engines[colour].game_over("win" if s > 0 else "lose" if s < 0 else "draw")
    return outcome


def play_game(
    engines: tuple[UsiEngine, UsiEngine],
    values: tuple[dict[str, int], dict[str, int]],
    opening: Opening,
    limits: Limits,
    max_plies: int,
) -> GameRecord:
    """One game: engines[0] plays black with values[0], engines[1] white with values[1].

    Engines must be started. One that crashes or times out is returned in `broken` (its game is
    lost); the caller restarts it."""
    game = Game(opening, max_plies)
    record = GameRecord(outcome=game.outcome or Outcome(None, ""))
    for colour in (BLACK, WHITE):
        try:
            engines[colour].new_game(values[colour])
        except EngineError as e:
            record.broken.append(engines[colour])
            game.finish(1 - colour, "crash", f"{COLOUR_NAMES[colour]} could not start the game: {e}")
            break
    while game.outcome is None:
        colour = game.side_to_move()
        engine = engines[colour]
        try:
            word = engine.best_move(game.position_command(), limits.go_command(), limits.move_timeout)
        except EngineTimeout as e:
            record.broken.append(engine)
            game.finish(1 - colour, "timeout", str(e))
            break
        except EngineError as e:
            record.broken.append(engine)
            game.finish(1 - colour, "crash", str(e))
            break
        game.play(word)
    outcome = end_game(game, engines, record.broken)
    record.outcome = outcome
    record.moves = game.moves
    record.position = game.position_command()
    return record
