"""Worker threads that play games with engines of their own, for the tools that play many games
at once (tools.clock, tools.spsa): what the workers share, a worker's life, and the main thread's
wait for them with a clean stop on Ctrl-C.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence

from tools.usi.engine import UsiEngine


class Workers:
    """What the workers share: a lock, the event that stops them, the first error one of them
    hit, and every engine they started (so that an interrupted run can end them). A tool's run
    says what a worker plays (`play_next`)."""

    def __init__(self):
        self.lock = threading.Lock()
        self.stop = threading.Event()
        self.error: BaseException | None = None
        self.engines: list[UsiEngine] = []

    def play_next(self, engines: Sequence[UsiEngine]) -> bool:
        """Plays the next piece of the run (a game, a game pair) with a worker's `engines`; False
        when none is left, or when the run stopped meanwhile (what was played does not count)."""
        raise NotImplementedError

    def work(self, engines: Sequence[UsiEngine]) -> None:
        """A worker's life: starts its `engines`, then plays with them until nothing is left or the
        run stops. An exception is kept (the first one of the run) and stops every worker; the
        engines are closed at the end."""
        with self.lock:
            self.engines.extend(engines)
        try:
            for e in engines:
                e.start()
            while not self.stop.is_set() and self.play_next(engines):
                pass
        except BaseException as e:  # noqa: BLE001 - reported by the main thread
            with self.lock:
                if self.error is None:
                    self.error = e
            self.stop.set()
        finally:
            for e in engines:
                e.close()

    def run(self, targets: Sequence[Callable[[], None]], interrupted: Callable[[], None]) -> bool:
        """Runs each target in a thread of its own and waits for them all; False when a Ctrl-C
        (KeyboardInterrupt) came first. Then `interrupted` is called (to say so), the run stops,
        every engine is ended (its worker stops without counting what it was playing) and the
        threads get 5 s more to end."""
        threads = [threading.Thread(target=t, daemon=True) for t in targets]
        for t in threads:
            t.start()
        try:
            while any(t.is_alive() for t in threads):
                for t in threads:
                    t.join(timeout=0.5)
        except KeyboardInterrupt:
            interrupted()
            self.stop.set()
            with self.lock:
                engines = list(self.engines)
            for e in engines:
                e.close()
            for t in threads:
                t.join(timeout=5.0)
            return False
        return True
