"""The referee's clock: time controls, what each move costs, and losses on time.

Everything here is plain arithmetic on integer milliseconds, without engines or cshogi, so that
the unit tests can check it exactly (tests/test_clock_math.py).

Time controls (`TimeControl.parse`):

- `fischer:MAIN+INC`: MAIN seconds, INC seconds added after every move. As USI's `binc`/`winc`
  define it, the increment of a move is available during that move: the engine is sent its clock
  without the increment (`btime`) and the increment apart (`binc`), and may use up to
  btime + binc; after the move the clock is btime + binc - (time used).
- `byoyomi:MAIN+BYO`: MAIN seconds of main time, then BYO seconds for every move. A move may use
  what is left of the main time plus the byoyomi; the main time is used first, and once it is gone
  a move within the byoyomi costs nothing (the clock stays at 0). `byoyomi:0+10` is 10 s a move.
- `sudden:MAIN`: MAIN seconds for the whole game, nothing added (sent as `byoyomi 0`).

Counting (`Clock.charge`):

- exact (the default): a move costs the time measured from sending `position`/`go` to reading
  `bestmove`, rounded up to the next millisecond (never less than it took). It loses on time when
  that time exceeds what the move may use (the allowance) by more than the grace.
- whole seconds (`whole_seconds=True`), as shogi-server (floodgate and the CSA servers) counts
  since the CSA rule of November 2014 ("Least_Time_Per_Move 0", shogi-server's
  ChessClockWithLeastZero): a move costs its time floored to whole seconds (0.9 s costs 0 s,
  1.99 s costs 1 s; there is no minimum of one second), and it loses on time when
  clock - floor(time) + byoyomi + increment <= 0, i.e. when the time reaches the allowance
  (a move of exactly the allowance loses, one a millisecond shorter does not). The clock can then
  only hold whole seconds, so the time control must be given in whole seconds.

The grace (ms, default 0) is added to the allowance for the time-loss decision only: a move a
little late, within the grace, is not lost, and its clock is left at 0 (as shogi-server clamps it).
"""

from __future__ import annotations

from dataclasses import dataclass

FISCHER, BYOYOMI, SUDDEN = "fischer", "byoyomi", "sudden"


def _seconds_to_ms(text: str, what: str) -> int:
    """`10`, `0.5` -> milliseconds; ValueError for anything else or negative values."""
    try:
        seconds = float(text)
    except ValueError:
        raise ValueError(f"{what}: not a number of seconds: {text!r}") from None
    if not seconds >= 0 or seconds == float("inf"):
        raise ValueError(f"{what}: must be a non-negative number of seconds, got {text!r}")
    ms = round(seconds * 1000)
    if abs(ms - seconds * 1000) > 1e-6:
        raise ValueError(f"{what}: {text!r} is not a whole number of milliseconds")
    return ms


@dataclass(frozen=True)
class TimeControl:
    kind: str  # FISCHER, BYOYOMI or SUDDEN
    main_ms: int  # the main time at the start of the game
    increment_ms: int = 0  # Fischer: added after every move (and usable during it)
    byoyomi_ms: int = 0  # byoyomi: the time of every move once the main time is gone

    @staticmethod
    def parse(text: str) -> TimeControl:
        """`fischer:300+10`, `byoyomi:0+10`, `byoyomi:60+10`, `sudden:600` (seconds)."""
        kind, sep, rest = text.partition(":")
        kind = kind.strip().lower()
        if not sep:
            raise ValueError(f"time control {text!r}: expected fischer:MAIN+INC, byoyomi:MAIN+BYO or sudden:MAIN")
        if kind in (FISCHER, BYOYOMI):
            main, plus, extra = rest.partition("+")
            if not plus:
                raise ValueError(f"time control {text!r}: {kind} needs MAIN+{'INC' if kind == FISCHER else 'BYO'}")
            main_ms = _seconds_to_ms(main.strip(), "main time")
            extra_ms = _seconds_to_ms(extra.strip(), "increment" if kind == FISCHER else "byoyomi")
            if kind == FISCHER:
                if main_ms + extra_ms == 0:
                    raise ValueError(f"time control {text!r}: no time at all")
                return TimeControl(FISCHER, main_ms, increment_ms=extra_ms)
            if extra_ms == 0:
                raise ValueError(f"time control {text!r}: byoyomi 0; use sudden:MAIN for sudden death")
            return TimeControl(BYOYOMI, main_ms, byoyomi_ms=extra_ms)
        if kind == SUDDEN:
            main_ms = _seconds_to_ms(rest.strip(), "main time")
            if main_ms == 0:
                raise ValueError(f"time control {text!r}: no time at all")
            return TimeControl(SUDDEN, main_ms)
        raise ValueError(f"time control {text!r}: unknown kind {kind!r} (fischer, byoyomi or sudden)")

    def whole_seconds_only(self) -> bool:
        """Whether every amount is a whole number of seconds (needed for whole-second counting)."""
        return all(v % 1000 == 0 for v in (self.main_ms, self.increment_ms, self.byoyomi_ms))

    def describe(self) -> str:
        s = lambda ms: f"{ms / 1000:g}"
        if self.kind == FISCHER:
            return f"fischer {s(self.main_ms)} s + {s(self.increment_ms)} s per move"
        if self.kind == BYOYOMI:
            return f"byoyomi {s(self.main_ms)} s main + {s(self.byoyomi_ms)} s per move"
        return f"sudden death {s(self.main_ms)} s"

    def go_command(self, black_ms: int, white_ms: int) -> str:
        """The `go` for the side to move, given both clocks (what the referee's clocks say)."""
        if self.kind == FISCHER:
            inc = self.increment_ms
            return f"go btime {black_ms} wtime {white_ms} binc {inc} winc {inc}"
        # Sudden death is byoyomi 0: the form GUIs send and every USI engine understands.
        return f"go btime {black_ms} wtime {white_ms} byoyomi {self.byoyomi_ms}"


@dataclass(frozen=True)
class Charge:
    """What one move did to its side's clock."""

    elapsed_ms: int  # the measured time, rounded up to whole ms
    charged_ms: int  # what the clock counted (floored to whole seconds with whole_seconds)
    clock_before_ms: int  # the clock when `go` was sent
    allowance_ms: int  # the most the move could use: clock + increment + byoyomi
    clock_after_ms: int  # the clock after the move (the increment added), never below 0
    margin_ms: int  # allowance - elapsed: how far from a loss on time (negative when late)
    lost_on_time: bool


class Clock:
    """One side's clock through a game."""

    def __init__(self, tc: TimeControl, whole_seconds: bool = False, grace_ms: int = 0):
        if whole_seconds and not tc.whole_seconds_only():
            raise ValueError("whole-second counting needs a time control in whole seconds")
        if grace_ms < 0:
            raise ValueError("the grace must not be negative")
        self.tc = tc
        self.whole_seconds = whole_seconds
        self.grace_ms = grace_ms
        self.remaining_ms = tc.main_ms

    def allowance_ms(self) -> int:
        """The most the next move may use: the clock, the increment that comes with the move
        (Fischer) and the byoyomi."""
        return self.remaining_ms + self.tc.increment_ms + self.tc.byoyomi_ms

    def deadline_ms(self) -> int:
        """Measured from `go`, the time after which the move is certainly lost on time (the
        referee stops waiting a little after it)."""
        return self.allowance_ms() + self.grace_ms

    def is_late(self, elapsed_ms: int) -> bool:
        """Whether a move that took `elapsed_ms` loses on time (see the module's text)."""
        if self.whole_seconds:
            # shogi-server: lost when clock - floor(t) + byoyomi + increment <= 0. With an
            # allowance in whole seconds that is floor(t) >= allowance, i.e. t >= allowance.
            return elapsed_ms >= self.allowance_ms() + self.grace_ms
        return elapsed_ms > self.allowance_ms() + self.grace_ms

    def charge(self, elapsed_ms: int) -> Charge:
        """Counts a move that took `elapsed_ms` (measured, whole ms) and moves the clock on."""
        if elapsed_ms < 0:
            raise ValueError("a move cannot take negative time")
        before = self.remaining_ms
        allowance = self.allowance_ms()
        charged = (elapsed_ms // 1000) * 1000 if self.whole_seconds else elapsed_ms
        lost = self.is_late(elapsed_ms)
        # Fischer: the increment comes with the move. Byoyomi: the main time is used first and a
        # move within the byoyomi costs nothing of it. Both: never below 0 (a move within the
        # grace, or the losing move itself).
        after = max(0, before + self.tc.increment_ms - charged)
        self.remaining_ms = after
        return Charge(
            elapsed_ms=elapsed_ms,
            charged_ms=charged,
            clock_before_ms=before,
            allowance_ms=allowance,
            clock_after_ms=after,
            margin_ms=allowance - elapsed_ms,
            lost_on_time=lost,
        )


def elapsed_ms_from_seconds(seconds: float) -> int:
    """A measured duration in seconds -> whole milliseconds, rounded up (a move is never counted
    shorter than it was; at most 1 ms longer). Float noise of a few nanoseconds is ignored."""
    ms = seconds * 1000.0
    whole = int(ms)
    return whole if ms - whole < 1e-6 else whole + 1
