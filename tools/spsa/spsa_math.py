"""The SPSA arithmetic: gain schedules, perturbations and the update of theta.

This follows the form fishtest publishes for its SPSA tunes. For a run of N iterations
(game pairs), iteration k = 0 .. N-1 uses

    c_k = c / (k + 1) ** gamma               the perturbation (step) size
    a_k = a / (A + k + 1) ** alpha           the gain
    theta_plus  = theta + c_k * flip         flip: +1 or -1 per parameter, drawn at random
    theta_minus = theta - c_k * flip
    theta      += a_k / c_k * result * flip  result: wins minus losses of theta_plus over the pair

with alpha = 0.602, gamma = 0.101 and A = N / 10. Each parameter has its own c and a, set from
what the user gives per parameter: c_end, the step at the last iteration, and r_end, the
learning rate at the last iteration, where fishtest defines a_end = r_end * c_end ** 2. Solving
the two schedules for k = N - 1 gives

    c = c_end * N ** gamma
    a = a_end * (A + N) ** alpha

Nothing here needs cshogi or an engine, so the tests can check it anywhere.
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass

ALPHA = 0.602
GAMMA = 0.101
# A as a fraction of the number of iterations (fishtest's usual choice).
A_FRACTION = 0.1
# The learning rate at the end when the configuration gives none (fishtest's usual default).
DEFAULT_R_END = 0.002
# c_end, when the configuration gives none: this fraction of the parameter's range, at least 1
# (integer parameters: a smaller step would often round plus and minus to the same value).
DEFAULT_C_END_FRACTION = 1 / 20


@dataclass
class ParamSpec:
    """One tuned parameter: the engine's range and default, and its SPSA constants."""

    name: str
    default: int
    min: int
    max: int
    c_end: float
    r_end: float
    # Derived from c_end, r_end and the run length by `schedule_constants`.
    c: float = 0.0
    a: float = 0.0

    def to_json(self) -> dict:
        return {
            "name": self.name,
            "default": self.default,
            "min": self.min,
            "max": self.max,
            "c_end": self.c_end,
            "r_end": self.r_end,
            "c": self.c,
            "a": self.a,
        }

    @staticmethod
    def from_json(d: dict) -> ParamSpec:
        return ParamSpec(
            name=d["name"],
            default=int(d["default"]),
            min=int(d["min"]),
            max=int(d["max"]),
            c_end=float(d["c_end"]),
            r_end=float(d["r_end"]),
            c=float(d.get("c", 0.0)),
            a=float(d.get("a", 0.0)),
        )


def default_c_end(lo: int, hi: int) -> float:
    """c_end when none is configured: a twentieth of the range, at least 1."""
    return max(1.0, (hi - lo) * DEFAULT_C_END_FRACTION)


def big_a(iterations: int) -> float:
    """The stability constant A for a run of `iterations` game pairs."""
    return A_FRACTION * iterations


def schedule_constants(c_end: float, r_end: float, iterations: int) -> tuple[float, float]:
    """(c, a) such that c_k and a_k reach c_end and r_end * c_end^2 at the last iteration."""
    if iterations < 1:
        raise ValueError("the number of iterations must be at least 1")
    if c_end <= 0 or r_end <= 0:
        raise ValueError("c_end and r_end must be positive")
    n = float(iterations)
    c = c_end * n**GAMMA
    a_end = r_end * c_end * c_end
    a = a_end * (big_a(iterations) + n) ** ALPHA
    return c, a


def c_k(c: float, k: int) -> float:
    """The perturbation size at iteration k (0-based)."""
    return c / (k + 1) ** GAMMA


def a_k(a: float, k: int, iterations: int) -> float:
    """The gain at iteration k (0-based) of a run of `iterations`."""
    return a / (big_a(iterations) + k + 1) ** ALPHA


def clamp(x: float, lo: float, hi: float) -> float:
    return lo if x < lo else min(x, hi)


def round_half_up(x: float) -> int:
    """Rounds to the nearest integer, halves upwards (Python's round() rounds halves to even,
    which would favour even values)."""
    return math.floor(x + 0.5)


def engine_value(x: float, spec: ParamSpec) -> int:
    """The integer sent to the engine for a real parameter value: rounded, within the range."""
    return int(clamp(round_half_up(x), spec.min, spec.max))


def iteration_rng(seed: int, k: int) -> random.Random:
    """A generator for iteration k alone, so an iteration's flips and opening depend only on the
    seed and k (the same after a resume, and whichever worker plays it)."""
    return random.Random(f"hayate-spsa:{seed}:{k}")


def draw_flips(rng: random.Random, count: int) -> list[int]:
    """One +1 / -1 per parameter (a Rademacher vector)."""
    return [1 if rng.random() < 0.5 else -1 for _ in range(count)]


@dataclass
class Perturbation:
    """What iteration k plays: the two parameter vectors and what the update needs."""

    k: int
    flips: list[int]
    steps: list[float]  # c_k per parameter
    gains: list[float]  # a_k per parameter
    plus: list[int]  # engine values of theta + c_k * flip
    minus: list[int]  # engine values of theta - c_k * flip


def perturb(
    specs: list[ParamSpec], theta: list[float], k: int, iterations: int, flips: list[int]
) -> Perturbation:
    """The plus and minus parameter vectors of iteration k around theta."""
    steps = [c_k(s.c, k) for s in specs]
    gains = [a_k(s.a, k, iterations) for s in specs]
    plus = [engine_value(clamp(t + st * f, s.min, s.max), s) for s, t, st, f in zip(specs, theta, steps, flips)]
    minus = [engine_value(clamp(t - st * f, s.min, s.max), s) for s, t, st, f in zip(specs, theta, steps, flips)]
    return Perturbation(k=k, flips=flips, steps=steps, gains=gains, plus=plus, minus=minus)


def update(specs: list[ParamSpec], theta: list[float], p: Perturbation, result: int) -> list[float]:
    """theta after iteration p.k scored `result` (wins minus losses of the plus side, -2 .. 2):
    theta += a_k / c_k * result * flip, clamped to each range."""
    out = []
    for s, t, step, gain, f in zip(specs, theta, p.steps, p.gains, p.flips):
        out.append(clamp(t + gain / step * result * f, s.min, s.max))
    return out
