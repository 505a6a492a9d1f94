"""A USI engine in a child process, driven line by line with time limits.

A reader thread moves the engine's output into a queue, so every wait has a deadline: an engine
that hangs or dies is reported as an `EngineError` (the referee scores it as a loss) instead of
blocking the driver.
"""

from __future__ import annotations

import queue
import subprocess
import threading
import time
from dataclasses import dataclass


class EngineError(Exception):
    """The engine died, closed its output or did not answer in time."""


class EngineTimeout(EngineError):
    """The engine did not answer in time (it may still be running)."""


@dataclass
class SpinOption:
    name: str
    default: int
    min: int
    max: int


def parse_spin(line: str) -> SpinOption | None:
    """`option name X type spin default D min A max B` -> SpinOption; anything else -> None.

    Option names may in principle hold spaces, so the name is everything between `name` and
    `type`; the numbers are read by keyword, in any order."""
    tokens = line.split()
    if len(tokens) < 5 or tokens[0] != "option" or tokens[1] != "name" or "type" not in tokens:
        return None
    t = tokens.index("type")
    name = " ".join(tokens[2:t])
    if not name or t + 1 >= len(tokens) or tokens[t + 1] != "spin":
        return None
    fields: dict[str, int] = {}
    rest = tokens[t + 2 :]
    for key, value in zip(rest[::2], rest[1::2]):
        if key in ("default", "min", "max"):
            try:
                fields[key] = int(value)
            except ValueError:
                return None
    if set(fields) != {"default", "min", "max"}:
        return None
    return SpinOption(name, fields["default"], fields["min"], fields["max"])


class UsiEngine:
    """One engine process. Not thread-safe: each worker owns its engines."""

    def __init__(self, path: str, label: str, fixed_options: list[tuple[str, str]], init_timeout: float = 30.0):
        self.path = path
        self.label = label
        # Options sent once after every start (Threads, USI_Hash, the user's extra options).
        self.fixed_options = fixed_options
        self.init_timeout = init_timeout
        self.proc: subprocess.Popen | None = None
        self.lines: queue.Queue = queue.Queue()
        self.spin_options: dict[str, SpinOption] = {}
        self.option_names: set[str] = set()
        self.name = label

    # Process life.

    def start(self) -> None:
        """Starts the process, reads its options (`usi`), sends the fixed options and waits for
        `readyok`."""
        self.close()
        self.lines = queue.Queue()
        self.proc = subprocess.Popen(
            [self.path],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
            bufsize=1,
            # Its own session: a Ctrl-C at the terminal reaches the driver only, which then ends
            # the engines itself (an engine killed by the signal would read as a lost game).
            start_new_session=True,
        )
        threading.Thread(target=self._read, args=(self.proc, self.lines), daemon=True).start()
        self.send("usi")
        deadline = time.monotonic() + self.init_timeout
        self.spin_options = {}
        self.option_names = set()
        while True:
            line = self.read_line(deadline)
            if line.startswith("id name "):
                self.name = line[len("id name ") :].strip()
            elif line.startswith("option name "):
                tokens = line.split()
                t = tokens.index("type") if "type" in tokens else len(tokens)
                self.option_names.add(" ".join(tokens[2:t]))
                spin = parse_spin(line)
                if spin:
                    self.spin_options[spin.name] = spin
            elif line == "usiok":
                break
        for name, value in self.fixed_options:
            self.set_option(name, value)
        self.sync()

    @staticmethod
    def _read(proc: subprocess.Popen, lines: queue.Queue) -> None:
        assert proc.stdout is not None
        try:
            for line in proc.stdout:
                # Each line with the moment it was read: a clock that times an answer must not
                # count the time the line then waits in the queue (tools/clock).
                lines.put((time.monotonic(), line.rstrip("\r\n")))
        except (OSError, ValueError):
            pass
        lines.put((time.monotonic(), None))  # end of output

    def alive(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    def close(self) -> None:
        """Asks the engine to quit, then kills it if it has not within a second."""
        proc, self.proc = self.proc, None
        if proc is None:
            return
        try:
            if proc.poll() is None:
                assert proc.stdin is not None
                proc.stdin.write("quit\n")
                proc.stdin.flush()
                proc.wait(timeout=1.0)
        except (OSError, ValueError, subprocess.TimeoutExpired):
            pass
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        for f in (proc.stdin, proc.stdout):
            try:
                if f:
                    f.close()
            except OSError:
                pass

    # Talking.

    def send(self, line: str) -> None:
        if self.proc is None or self.proc.poll() is not None:
            raise EngineError(f"{self.label}: engine is not running")
        try:
            assert self.proc.stdin is not None
            self.proc.stdin.write(line + "\n")
            self.proc.stdin.flush()
        except (OSError, ValueError) as e:
            raise EngineError(f"{self.label}: cannot write to the engine ({e})") from e

    def read_line(self, deadline: float) -> str:
        """The next output line, or EngineError when the output ends or the deadline passes."""
        return self.read_line_timed(deadline)[1]

    def read_line_timed(self, deadline: float) -> tuple[float, str]:
        """The next output line and the time.monotonic() at which the reader thread got it from
        the pipe; EngineError when the output ends or the deadline passes."""
        timeout = deadline - time.monotonic()
        if timeout <= 0:
            raise EngineTimeout(f"{self.label}: no answer in time")
        try:
            item = self.lines.get(timeout=timeout)
        except queue.Empty:
            raise EngineTimeout(f"{self.label}: no answer in time") from None
        if item[1] is None:
            self.lines.put(item)  # keep reporting the end
            raise EngineError(f"{self.label}: engine exited")
        return item

    def set_option(self, name: str, value) -> None:
        self.send(f"setoption name {name} value {value}")

    def sync(self, timeout: float | None = None) -> None:
        """isready -> readyok."""
        self.send("isready")
        deadline = time.monotonic() + (self.init_timeout if timeout is None else timeout)
        while self.read_line(deadline) != "readyok":
            pass

    def new_game(self, values: dict[str, int]) -> None:
        """Sets the tuned parameters, synchronises and starts a game (USI order: options,
        isready/readyok, usinewgame)."""
        for name, value in values.items():
            self.set_option(name, value)
        self.sync()
        self.send("usinewgame")

    def fresh_search(self, position: str, go: str, timeout: float) -> list[str]:
        """Searches `position` (a `position ...` command) from empty tables (`isready`, then
        `usinewgame`) with `go`; returns the lines it printed, `bestmove` last. EngineTimeout if
        that does not come within `timeout` seconds."""
        return self.fresh_search_timed(position, go, timeout)[0]

    def fresh_search_timed(self, position: str, go: str, timeout: float) -> tuple[list[str], float]:
        """[`fresh_search`], and the seconds from `go` to `bestmove` (as the reader thread got it
        from the pipe)."""
        self.sync()
        self.send("usinewgame")
        self.send(position)
        self.send(go)
        sent = time.monotonic()
        deadline = sent + timeout
        lines = []
        while True:
            at, line = self.read_line_timed(deadline)
            lines.append(line)
            if line.startswith("bestmove"):
                return lines, at - sent

    def best_move(self, position: str, go: str, timeout: float) -> str:
        """Sends `position ...` and `go ...`; returns the move word after `bestmove` (a USI move,
        `resign` or `win`). EngineTimeout if it does not come within `timeout` seconds."""
        self.send(position)
        self.send(go)
        deadline = time.monotonic() + timeout
        while True:
            line = self.read_line(deadline)
            if line.startswith("bestmove"):
                parts = line.split()
                return parts[1] if len(parts) > 1 else ""

    def game_over(self, word: str) -> None:
        """`gameover win|lose|draw`; errors are ignored (the game is already decided)."""
        try:
            self.send(f"gameover {word}")
        except EngineError:
            pass
