"""What dlarray's Array API namespace costs, next to NumPy and array-api-strict.

Every row is one operation written once and run by three libraries:

- *numpy*: the operation on ``ndarray`` objects with :mod:`numpy` functions;
- *dlarray*: the same on ``DLArray`` objects with ``import dlarray as xp``;
- *strict*: the same with :mod:`array_api_strict` (the reference
  implementation of the standard, itself built on NumPy), when installed.

The three compute on the very same memory: NumPy and array-api-strict import
dlarray's input arrays through DLPack (zero-copy), so no library is helped
or hindered by where its operands happen to lie (for large arrays, alignment
and page placement alone move a memory-bound kernel by tens of percent).

dlarray computes with NumPy's kernels on zero-copy views, so a row's
dlarray/NumPy ratio is the price of its layer: checking arguments by the
standard's rules, viewing the inputs, wrapping the result.

Each row carries its own target, a limit on that ratio (median over median,
same run), and for some an aspirational goal.  Issue 20 sets the targets:

- *small*, 4x4 float64, where the kernel does almost nothing and the time
  is the library's per-call overhead: the elementwise ``x + y`` (the
  operator), ``add(x, y)`` and ``sin(x)`` <= 1.6x (goal 1.3x);
  ``matmul(x, y)`` and ``x[mask]`` (boolean mask) <= 1.5x; the scalar
  forms ``x + 1.0`` and ``x * 2`` (a Python scalar operand) <= 1.8x;
- *large*, where the kernel's time dominates: on 1M float32, ``x + y``,
  ``exp(x)``, the reductions ``sum``, ``prod``, ``mean``, ``var`` and the
  scan ``cumulative_sum``; ``matmul`` of two 1000x1000 float32 matrices;
  the in-place ``x += y`` on 1M float32 and on 3000x800 float64 (which
  writes into ``x``'s memory, as NumPy's does): all <= 1.05x (within 5%).

The other small rows, ``sum(x)``, ``max(x, axis=0)``, ``x[1]``,
``x[1, ...]`` (the form array-api-strict accepts), ``x[1, 2]`` and ``x.T``,
keep a reference limit of 2x: not one of the namespace targets, and not
counted in the summary.  (array-api-strict is ~10x NumPy on small rows.)

NumPy spells a few standard functions its own way: :data:`SPELLINGS` maps
a standard name to the names tried in order (``cumulative_sum``, else
``cumsum``); ``prod`` runs on values near 1, whose product of a million
stays finite.

``x[1, 2]`` gives dlarray and array-api-strict a 0-d array, NumPy a NumPy
scalar: the same operation, as each library defines it.

Method (as :mod:`timeit`, but interleaved):

1. Check: each library's callable runs once; a library that lacks the
   function or fails shows ``n/a`` for that row (the benchmark goes on).
   Results are compared with NumPy's (shape, dtype and values, within a
   tolerance scaled to the operation: a sum or scan of float32 may differ
   by rounding, relative to the sum of ``|x|``; see :data:`SCALES`); a
   difference is reported, since the row would then not time the same
   operation.
2. Calibrate: for each callable find a batch size N so that N calls take
   about the target batch time (2 ms for small rows, 1 ms for large ones,
   where every library runs NumPy's N after an untimed warm-up call; see
   :class:`Method`).
3. Measure: R rounds; each round times one batch of every callable of every
   row in turn, rotating which library goes first, so drift in the machine
   (frequency, other load) touches all three alike.
4. Report: per callable, the median over the rounds of (batch time / N).

Calls are ``functools.partial`` objects around the library functions (or
``operator.add`` / ``operator.getitem`` / ``getattr`` for operators, indexing
and attributes), so the harness adds the same small cost of one C-level call
to every library; the garbage collector is off while timing.

Reading the output: the table gives per-call times for the three libraries,
then ``dl/np`` and ``strict/np`` (how many times NumPy's time each takes;
1.00x is parity) and ``target`` (the row's limit, its goal if it has one,
and ``yes`` when dl/np meets the limit, ``NO`` when not; ``*`` marks the
reference limits that are not targets).  Below the table, one line
counts the targets met and names the rows that miss theirs.  A row that
cannot be measured counts as a miss.  On a loaded machine ratios of large
rows move by several percent from run to run; repeat a full run before
trusting a miss that small.  A line under the table names the rows whose
medians the machine's load inflated (a median well above the row's fastest
batch); the JSON's ``*_fastest`` ratios, which compare fastest batches, are
then the better estimate.

Usage::

    python benchmarks/bench_namespace.py [--quick] [--output PATH] [--check-targets]

``--quick`` (for CI) takes a few seconds and gives rough numbers; the full
run takes about a minute.  The JSON written to ``--output`` holds the
machine, the versions, the commit and date of the run, the method, every
row's medians, ratios, ``target``, ``goal`` and ``meets_target``, and
``all_targets_met``.  ``--check-targets`` makes the exit status 1 when a
target is missed (a busy machine misses by noise: not for CI).
"""

from __future__ import annotations

import datetime
import gc
import importlib
import json
import operator
import os
import platform
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from types import ModuleType
from typing import Any

import numpy as np
from _harness import parse_args, time_batch

import dlarray

# The namespace functions are installed in dlarray at import time, out of mypy's sight.
xp: Any = dlarray

DEFAULT_OUTPUT = Path(__file__).resolve().parent / "results" / "namespace.json"

# Issue 20's limits on dlarray/NumPy (medians, same run), and its goal.
SMALL_ELEMENTWISE, SMALL_ELEMENTWISE_GOAL = 1.6, 1.3
SMALL_MATMUL_MASK = 1.5
SMALL_SCALAR = 1.8
LARGE = 1.05
# The limit kept for the small rows with no target of their own (reference only).
SMALL_REFERENCE = 2.0


@dataclass(frozen=True)
class Method:
    """How many rounds, and how long one batch should take, for a group.

    ``warm``: every library of a row runs NumPy's batch size, and one
    untimed call precedes each batch.  Large rows need it: the rows timed
    in between evict their operands (12 MB for ``x + y``) from the
    last-level cache, so the first call after them is slower, by more than
    the 5% the target allows; unwarmed, that miss would land on whichever
    library a round times first, and weigh most on short batches.  Small
    rows fit in L1 whatever the order; there each library gets its own
    batch size, so the slow ones do not stretch the run.

    Batches are short (a few ms at most) on purpose: on a shared machine
    another process takes the core for a slice of several ms now and then,
    and the shorter a batch, the fewer batches such a slice lands in, which
    the median then ignores.
    """

    rounds: int
    target_batch_s: float
    warm: bool


# A full run takes under a minute on an idle 2-core machine, --quick several seconds.
FULL = {"small": Method(201, 2e-3, False), "large": Method(101, 1e-3, True)}
QUICK = {"small": Method(31, 5e-4, False), "large": Method(21, 5e-4, True)}


# ---- the libraries ----


@dataclass(frozen=True)
class Library:
    """A namespace, and how it sees one of dlarray's arrays (zero-copy)."""

    name: str
    ns: ModuleType
    view: Callable[[Any], Any]
    version: str


def _strict() -> ModuleType | None:
    try:
        return importlib.import_module("array_api_strict")
    except ImportError:
        return None


def libraries() -> list[Library]:
    """NumPy, dlarray and (when installed) array-api-strict."""
    libs = [
        Library("numpy", np, np.from_dlpack, np.__version__),
        Library("dlarray", dlarray, _same, dlarray.__version__),
    ]
    strict: Any = _strict()
    if strict is not None:
        libs.append(Library("strict", strict, strict.from_dlpack, strict.__version__))
    return libs


def _same(x: Any) -> Any:
    return x


# ---- the rows ----


@dataclass(frozen=True)
class Operands:
    """One library's inputs for a row: two arrays and a boolean mask."""

    x: Any
    y: Any
    mask: Any


# A row's operation: given a namespace and its operands, the call to time.
Op = Callable[[Any, Operands], Callable[[], Any]]


# Where a library spells a standard function its own way: the standard name
# -> the names to try, in order (the standard's first).  NumPy before 2.1 has
# only ``cumsum``; array-api-strict and dlarray have ``cumulative_sum``.
SPELLINGS: dict[str, tuple[str, ...]] = {"cumulative_sum": ("cumulative_sum", "cumsum")}


def lookup(ns: Any, name: str) -> Any:
    """``ns``'s function for the standard's ``name`` (see :data:`SPELLINGS`)."""
    for spelling in SPELLINGS.get(name, (name,)):
        function = getattr(ns, spelling, None)
        if function is not None:
            return function
    raise AttributeError(f"{getattr(ns, '__name__', ns)} has no {name}")


def named(name: str, *, axis: int | None = None) -> Op:
    """The row operation ``ns.<name>(x)``, or ``ns.<name>(x, axis=axis)``."""
    kwargs = {} if axis is None else {"axis": axis}
    return lambda ns, o: partial(lookup(ns, name), o.x, **kwargs)


@dataclass(frozen=True)
class Spec:
    """One row: an operation on inputs of one shape and dtype, and its limit.

    ``target`` bounds dlarray's median time over NumPy's; ``goal``, when
    set, is the lower ratio aimed at.  ``judged`` is False for a reference
    limit that is not one of the namespace targets (shown, not counted).
    ``scale`` names how far the result may lie from NumPy's (:data:`SCALES`);
    ``values`` the kind of inputs (:func:`make_inputs`).
    """

    name: str
    group: str  # "small" or "large"
    shape: tuple[int, ...]
    dtype: str
    op: Op
    target: float
    goal: float | None = None
    judged: bool = True
    scale: str = "elementwise"
    values: str = "normal"

    @property
    def inputs(self) -> str:
        return f"{'x'.join(map(str, self.shape))} {self.dtype}"

    @property
    def label(self) -> str:
        return f"{self.group} {self.name}" + (f" ({self.inputs})" if self.name == "x += y" else "")


SMALL = ((4, 4), "float64")
VECTOR_1M = ((1_000_000,), "float32")
MATRIX_1K = ((1000, 1000), "float32")
MATRIX_3K = ((3000, 800), "float64")


def elementwise(name: str, op: Op) -> Spec:
    """A small elementwise row, with its target and goal."""
    return Spec(name, "small", *SMALL, op, SMALL_ELEMENTWISE, SMALL_ELEMENTWISE_GOAL)


def reference(name: str, op: Op, scale: str = "elementwise") -> Spec:
    """A small row with a reference limit, not one of the namespace targets."""
    return Spec(name, "small", *SMALL, op, SMALL_REFERENCE, judged=False, scale=scale)


SPECS = [
    elementwise("x + y", lambda ns, o: partial(operator.add, o.x, o.y)),
    elementwise("add(x, y)", lambda ns, o: partial(ns.add, o.x, o.y)),
    elementwise("sin(x)", named("sin")),
    Spec("x + 1.0", "small", *SMALL, lambda ns, o: partial(operator.add, o.x, 1.0), SMALL_SCALAR),
    Spec("x * 2", "small", *SMALL, lambda ns, o: partial(operator.mul, o.x, 2), SMALL_SCALAR),
    reference("sum(x)", named("sum"), scale="sum"),
    reference("max(x, axis=0)", named("max", axis=0)),
    reference("x[1]", lambda ns, o: partial(operator.getitem, o.x, 1)),
    # array-api-strict refuses x[1] on a 2-d array (it wants x[1, ...]): both rows.
    reference("x[1, ...]", lambda ns, o: partial(operator.getitem, o.x, (1, ...))),
    reference("x[1, 2]", lambda ns, o: partial(operator.getitem, o.x, (1, 2))),
    Spec(
        "x[mask]",
        "small",
        *SMALL,
        lambda ns, o: partial(operator.getitem, o.x, o.mask),
        SMALL_MATMUL_MASK,
    ),
    reference("x.T", lambda ns, o: partial(getattr, o.x, "T")),
    Spec(
        "matmul(x, y)",
        "small",
        *SMALL,
        lambda ns, o: partial(ns.matmul, o.x, o.y),
        SMALL_MATMUL_MASK,
    ),
    Spec("x + y", "large", *VECTOR_1M, lambda ns, o: partial(operator.add, o.x, o.y), LARGE),
    Spec("exp(x)", "large", *VECTOR_1M, named("exp"), LARGE),
    Spec("sum(x)", "large", *VECTOR_1M, named("sum"), LARGE, scale="sum"),
    Spec("prod(x)", "large", *VECTOR_1M, named("prod"), LARGE, values="near_one"),
    Spec("mean(x)", "large", *VECTOR_1M, named("mean"), LARGE, scale="mean"),
    Spec("var(x)", "large", *VECTOR_1M, named("var"), LARGE),
    Spec("cumulative_sum(x)", "large", *VECTOR_1M, named("cumulative_sum"), LARGE, scale="scan"),
    Spec("matmul(x, y)", "large", *MATRIX_1K, lambda ns, o: partial(ns.matmul, o.x, o.y), LARGE),
    # In place: each call adds y into x again (x is shared by the three
    # libraries, and stays finite: it grows by y per call).
    Spec("x += y", "large", *VECTOR_1M, lambda ns, o: partial(operator.iadd, o.x, o.y), LARGE),
    Spec("x += y", "large", *MATRIX_3K, lambda ns, o: partial(operator.iadd, o.x, o.y), LARGE),
]


def make_inputs(shape: tuple[int, ...], dtype: str, values: str = "normal") -> tuple[Any, ...]:
    """dlarray arrays ``x``, ``y`` and ``mask``, which every library views.

    ``values``: ``"normal"``, standard normal; ``"near_one"``, ``exp`` of a
    normal with standard deviation 1e-3, so that a product of a million of
    them stays near 1 (a standard normal's underflows to 0).

    All three libraries compute on the same memory (NumPy and
    array-api-strict import dlarray's arrays through DLPack), so a
    difference in time is the library's and not where its operands happen
    to lie: for large arrays, alignment and page placement alone can move
    a memory-bound kernel by tens of percent.
    """
    rng = np.random.default_rng(20251201)
    x = rng.standard_normal(shape)
    y = rng.standard_normal(shape)
    if values == "near_one":
        x, y = np.exp(x * 1e-3), np.exp(y * 1e-3)
    x, y = x.astype(dtype), y.astype(dtype)
    return tuple(xp.asarray(v, copy=True) for v in (x, y, x > 0))


# ---- timing ----


@dataclass
class Timing:
    """One library's callable for one row, and its per-call times (ns)."""

    call: Callable[[], Any] | None
    error: str | None = None  # why the row is n/a for this library
    mismatch: str | None = None  # how the result differs from NumPy's
    batch: int = 1
    per_call_ns: list[float] = field(default_factory=list)

    @property
    def median_ns(self) -> float | None:
        return statistics.median(self.per_call_ns) if self.per_call_ns else None


@dataclass
class Row:
    """A row's spec and the timing of each library, by library name."""

    spec: Spec
    timings: dict[str, Timing]

    def ratio(self, library: str) -> float | None:
        """``library``'s median time over NumPy's, or None when either is missing."""
        base = self.timings["numpy"].median_ns
        timing = self.timings.get(library)
        mine = None if timing is None else timing.median_ns
        return None if mine is None or base is None else mine / base

    def ratio_of_fastest(self, library: str) -> float | None:
        """As :meth:`ratio`, with each library's fastest batch: on a busy
        machine, closer to what the operations cost without interference."""
        base, timing = self.timings["numpy"], self.timings.get(library)
        if timing is None or not timing.per_call_ns or not base.per_call_ns:
            return None
        return min(timing.per_call_ns) / min(base.per_call_ns)

    def meets_target(self) -> bool | None:
        """dl/np within the row's target; None when it could not be measured."""
        ratio = self.ratio("dlarray")
        return None if ratio is None else ratio <= self.spec.target

    def meets_goal(self) -> bool | None:
        """dl/np within the row's goal; None without a goal or a measurement."""
        ratio = self.ratio("dlarray")
        return None if ratio is None or self.spec.goal is None else ratio <= self.spec.goal


def _error(exc: BaseException) -> str:
    message = f"{type(exc).__name__}: {exc}".splitlines()[0]
    return message if len(message) <= 120 else message[:117] + "..."


def _as_numpy(result: Any) -> np.ndarray[Any, Any]:
    if isinstance(result, np.ndarray | np.generic):
        return np.asarray(result)
    return np.from_dlpack(result)


def _abs64(x: Any) -> Any:
    return np.abs(np.asarray(x, dtype=np.float64))


# How far a result may lie from NumPy's: RTOL[dtype] times a scale, given
# NumPy's result and the input x.  A sum or scan in another order (pairwise,
# blocked, or accumulated in double: each library may round differently,
# and a more accurate one differs from NumPy's float32 the most) errs
# relative to the sum of |x|, not to the result, which may be near 0.
SCALES: dict[str, Callable[[Any, Any], Any]] = {
    "elementwise": lambda want, x: _abs64(want),
    "sum": lambda want, x: np.sum(_abs64(x)),
    "mean": lambda want, x: np.mean(_abs64(x)),
    "scan": lambda want, x: np.cumsum(_abs64(x)),
}
RTOL = {"float32": 1e-4, "float64": 1e-10}


def _compare(result: Any, expected: Any, spec: Spec, x: Any) -> str | None:
    """How ``result`` differs from NumPy's ``expected`` for input ``x``, or
    None when it agrees within the row's tolerance (see :data:`SCALES`)."""
    try:
        got, want = _as_numpy(result), np.asarray(expected)
    except Exception as exc:
        return f"result not readable by NumPy ({_error(exc)})"
    if got.shape != want.shape:
        return f"shape {got.shape}, NumPy's is {want.shape}"
    if got.dtype != want.dtype:
        return f"dtype {got.dtype}, NumPy's is {want.dtype}"
    error = np.abs(got.astype(np.float64) - want.astype(np.float64))
    allowed = RTOL[spec.dtype] * SCALES[spec.scale](want, np.asarray(x))
    both_nan = np.isnan(got) & np.isnan(want)
    if not np.all((error <= allowed) | both_nan):
        worst = float(np.max(np.where(both_nan, 0, error / np.maximum(allowed, 1e-300))))
        return f"values differ from NumPy's ({worst:.3g}x the {spec.scale} tolerance)"
    return None


def prepare(spec: Spec, libs: list[Library]) -> Row:
    """Build and run once each library's callable for ``spec``."""
    values = make_inputs(spec.shape, spec.dtype, spec.values)
    x = np.from_dlpack(values[0]).copy()  # before an in-place row changes it
    timings: dict[str, Timing] = {}
    expected: Any = None
    for lib in libs:
        try:
            call = spec.op(lib.ns, Operands(*(lib.view(v) for v in values)))
            result = call()
        except Exception as exc:  # a missing or unfinished function: n/a, not a crash
            timings[lib.name] = Timing(None, error=_error(exc))
            continue
        timing = Timing(call)
        if lib.name == "numpy":
            expected = result
        elif expected is not None:
            timing.mismatch = _compare(result, expected, spec, x)
        timings[lib.name] = timing
    return Row(spec, timings)


def calibrate(timing: Timing, target_s: float) -> None:
    """Set ``timing.batch`` so that one batch takes about ``target_s``."""
    assert timing.call is not None
    target_ns = target_s * 1e9
    timing.call()  # warm up: the first call may find its operands out of cache
    n, elapsed = 1, time_batch(timing.call, 1)
    # Double until a batch is long enough to time well, then scale to the target.
    while elapsed < target_ns / 8 and n < 1 << 24:
        n *= 2
        elapsed = time_batch(timing.call, n)
    timing.batch = max(1, round(n * target_ns / max(elapsed, 1)))


def _share_batch(row: Row) -> None:
    """Give every library of ``row`` NumPy's batch size (see ``Method.warm``)."""
    timed = [t for t in row.timings.values() if t.call is not None]
    if timed:
        batch = timed[0].batch  # NumPy's, unless NumPy failed
        for timing in timed:
            timing.batch = batch


def measure(rows: list[Row], lib_names: list[str], method: Method, group: str) -> None:
    """Time ``method.rounds`` batches of every callable, round-robin, rotating
    the library that goes first, filling ``per_call_ns``."""
    rounds = method.rounds
    gc_was_enabled = gc.isenabled()
    gc.disable()
    try:
        for r in range(rounds):
            shift = r % len(lib_names)
            order = lib_names[shift:] + lib_names[:shift]
            for row in rows:
                for name in order:
                    timing = row.timings.get(name)
                    if timing is None or timing.call is None:
                        continue
                    if method.warm:
                        timing.call()
                    elapsed = time_batch(timing.call, timing.batch)
                    timing.per_call_ns.append(elapsed / timing.batch)
            if (r + 1) % max(1, rounds // 5) == 0 or r + 1 == rounds:
                _progress(f"{group}: round {r + 1}/{rounds}")
    finally:
        if gc_was_enabled:
            gc.enable()


def _progress(message: str) -> None:
    print(f"[bench_namespace] {message}", file=sys.stderr, flush=True)


def _warn_if_busy() -> None:
    if not hasattr(os, "getloadavg"):
        return
    load, cpus = os.getloadavg()[0], os.cpu_count() or 1
    if load > 0.5 * cpus:
        _progress(
            f"load average {load:.1f} on {cpus} CPUs: other work shares the machine, "
            f"expect noisy numbers (large rows most)"
        )


def run(quick: bool) -> tuple[list[Library], list[Row]]:
    """Prepare, calibrate and measure every row; see the module docstring."""
    methods = QUICK if quick else FULL
    _warn_if_busy()
    libs = libraries()
    names = [lib.name for lib in libs]
    if "strict" not in names:
        _progress("array_api_strict is not installed: its column is left out")
    rows: list[Row] = []
    for group, method in methods.items():
        specs = [s for s in SPECS if s.group == group]
        _progress(f"{group}: preparing and calibrating {len(specs)} rows x {len(libs)} libraries")
        group_rows = [prepare(spec, libs) for spec in specs]
        for row in group_rows:
            for name, timing in row.timings.items():
                if timing.error is not None:
                    _progress(f"  n/a: {name} {row.spec.name} ({timing.error})")
                    continue
                if timing.mismatch is not None:
                    _progress(f"  mismatch: {name} {row.spec.name}: {timing.mismatch}")
                calibrate(timing, method.target_batch_s)
            if method.warm:
                _share_batch(row)
        _progress(
            f"{group}: measuring {method.rounds} rounds, "
            f"batches of ~{method.target_batch_s * 1e3:g} ms"
        )
        measure(group_rows, names, method, group)
        rows += group_rows
    return libs, rows


# ---- output ----


def format_time(ns: float | None) -> str:
    """``ns`` in the unit that keeps it readable (ns, us, ms)."""
    if ns is None:
        return "n/a"
    if ns < 1e4:
        return f"{ns:.0f} ns"
    if ns < 1e6:
        return f"{ns / 1e3:.1f} us"
    return f"{ns / 1e6:.2f} ms"


def _ratio(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.2f}x"


def format_table(rows: list[Row], lib_names: list[str]) -> str:
    """Per-call medians, ratios against NumPy and the target verdict."""
    has_strict = "strict" in lib_names
    header = ["group", "inputs", "case", "numpy", "dlarray"]
    header += ["strict"] if has_strict else []
    header += ["dl/np"] + (["strict/np"] if has_strict else []) + ["target"]
    table = [header]
    for row in rows:
        target = _target_text(row)
        line = [row.spec.group, row.spec.inputs, row.spec.name]
        line += [format_time(row.timings[n].median_ns) for n in lib_names]
        line += [_ratio(row.ratio("dlarray"))]
        line += [_ratio(row.ratio("strict"))] if has_strict else []
        if any(t.mismatch for t in row.timings.values()):
            target += " (result differs)"
        table.append([*line, target])
    widths = [max(len(line[i]) for line in table) for i in range(len(header))]
    numeric = set(range(3, len(header) - 1))  # times and ratios align right
    lines = [
        "  ".join(
            c.rjust(w) if i in numeric else c.ljust(w)
            for i, (c, w) in enumerate(zip(line, widths, strict=True))
        ).rstrip()
        for line in table
    ]
    if not has_strict:
        lines.append("(array_api_strict is not installed: no strict column)")
    noisy = [f"{r.spec.group} {r.spec.name}" for r in rows if _spread(r) > NOISY_SPREAD]
    if noisy:
        lines.append(
            f"noisy (a median > {NOISY_SPREAD:g}x its row's fastest batch, the machine was "
            f"busy): {', '.join(noisy)}; the JSON's ratio_*_fastest compare fastest batches"
        )
    lines.append("* a reference limit, not one of the namespace targets (not counted below)")
    return "\n".join(lines)


def _target_text(row: Row) -> str:
    """``<= 1.6x (goal 1.3x): NO``: the row's limit, goal and verdict."""
    spec, met = row.spec, row.meets_target()
    text = f"<= {spec.target:g}x" + ("" if spec.judged else "*")
    if spec.goal is not None:
        text += f" (goal {spec.goal:g}x)"
    text += ": " + ("n/a" if met is None else "yes" if met else "NO")
    if row.meets_goal():
        text += ", goal met"
    return text


def _miss(row: Row) -> str:
    ratio = row.ratio("dlarray")
    how = "not measured" if ratio is None else f"{ratio:.2f}x > {row.spec.target:g}x"
    return f"{row.spec.label} ({how})"


def summary(rows: list[Row]) -> str:
    """The targets met, the rows that miss theirs, the goals and the reference rows."""
    judged = [r for r in rows if r.spec.judged]
    missed = [r for r in judged if not r.meets_target()]
    lines = [f"namespace targets met: {len(judged) - len(missed)} of {len(judged)}"]
    lines += [f"  missed: {_miss(r)}" for r in missed]
    with_goal = [r for r in judged if r.spec.goal is not None]
    if with_goal:
        reached = [r.spec.label for r in with_goal if r.meets_goal()]
        lines.append(
            f"goals reached: {len(reached)} of {len(with_goal)}"
            + (f" ({', '.join(reached)})" if reached else "")
        )
    reference = [r for r in rows if not r.spec.judged]
    if reference:
        over = [r for r in reference if not r.meets_target()]
        lines.append(
            f"reference rows (not targets) within their limit: "
            f"{len(reference) - len(over)} of {len(reference)}"
        )
        lines += [f"  over: {_miss(r)}" for r in over]
    return "\n".join(lines)


def all_targets_met(rows: list[Row]) -> bool:
    """Every target met (a row that could not be measured misses its target)."""
    return all(r.meets_target() for r in rows if r.spec.judged)


def _commit() -> str | None:
    """The short commit of the dlarray tree imported (``git rev-parse``), or None."""
    try:
        done = subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"],
            cwd=Path(dlarray.__file__).resolve().parent,
            capture_output=True,
            text=True,
            timeout=10,
            check=False,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    return done.stdout.strip() or None if done.returncode == 0 else None


# A median this many times the fastest batch means the machine was busy.
NOISY_SPREAD = 1.25


def _spread(row: Row) -> float:
    """The largest median/min over ``row``'s libraries (1.0 for a quiet machine)."""
    spreads = [
        t.median_ns / min(t.per_call_ns)
        for t in row.timings.values()
        if t.median_ns is not None and min(t.per_call_ns) > 0
    ]
    return max(spreads, default=1.0)


def to_json(libs: list[Library], rows: list[Row], quick: bool) -> dict[str, Any]:
    """The results and the conditions they were taken under."""
    methods = QUICK if quick else FULL

    def timing(t: Timing) -> dict[str, Any]:
        return {
            "median_ns": t.median_ns,
            "batch": t.batch,
            "min_ns": min(t.per_call_ns, default=None),
            "max_ns": max(t.per_call_ns, default=None),
            "error": t.error,
            "mismatch": t.mismatch,
        }

    load = os.getloadavg() if hasattr(os, "getloadavg") else None
    return {
        "benchmark": "namespace",
        "method": {
            "groups": {
                g: {"rounds": m.rounds, "target_batch_s": m.target_batch_s}
                for g, m in methods.items()
            },
            "statistic": "median",
            "interleaved": True,
            "quick": quick,
        },
        "commit": _commit(),
        "date": datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d %H:%M UTC"),
        "all_targets_met": all_targets_met(rows),
        "targets": {
            "met": sum(1 for r in rows if r.spec.judged and r.meets_target()),
            "total": sum(1 for r in rows if r.spec.judged),
            "missed": [r.spec.label for r in rows if r.spec.judged and not r.meets_target()],
        },
        "spellings": {
            lib.name: {
                name: next((s for s in names if hasattr(lib.ns, s)), None)
                for name, names in SPELLINGS.items()
            }
            for lib in libs
        },
        "versions": {
            **{lib.ns.__name__: lib.version for lib in libs},
            "python": platform.python_version(),
        },
        "machine": {
            "platform": platform.platform(),
            "processor": platform.processor() or platform.machine(),
            "cpu_count": os.cpu_count(),
            "load_average": load,
        },
        "rows": [
            {
                "group": r.spec.group,
                "inputs": r.spec.inputs,
                "case": r.spec.name,
                "libraries": {name: timing(t) for name, t in r.timings.items()},
                "ratio_dlarray_numpy": r.ratio("dlarray"),
                "ratio_strict_numpy": r.ratio("strict"),
                "ratio_dlarray_numpy_fastest": r.ratio_of_fastest("dlarray"),
                "ratio_strict_numpy_fastest": r.ratio_of_fastest("strict"),
                "target": r.spec.target,
                "goal": r.spec.goal,
                "judged": r.spec.judged,
                "meets_target": r.meets_target(),
                "meets_goal": r.meets_goal(),
            }
            for r in rows
        ],
    }


def main(argv: list[str] | None = None) -> int:
    """Run the benchmark, print the table and write the JSON results.

    Parameters
    ----------
    argv : list of str, optional
        Command-line arguments; ``sys.argv[1:]`` when omitted.

    Returns
    -------
    int
        The exit status: 1 with ``--check-targets`` when a target is
        missed, else 0 (a missed target is a result, not a failure).
    """
    args = parse_args(__doc__, DEFAULT_OUTPUT, argv, _check_targets_option)
    start = time.perf_counter()
    libs, rows = run(args.quick)
    print(format_table(rows, [lib.name for lib in libs]))
    print(summary(rows))
    args.output.parent.mkdir(parents=True, exist_ok=True)
    args.output.write_text(json.dumps(to_json(libs, rows, args.quick), indent=2) + "\n")
    _progress(f"wrote {args.output} ({time.perf_counter() - start:.0f} s)")
    return 1 if args.check_targets and not all_targets_met(rows) else 0


def _check_targets_option(parser: Any) -> None:
    parser.add_argument(
        "--check-targets",
        action="store_true",
        help="exit with status 1 when a target is missed",
    )


if __name__ == "__main__":
    sys.exit(main())
