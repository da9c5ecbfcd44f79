"""DLPack exchange latency of dlarray and its peers: NumPy, PyTorch, TVM FFI and JAX.

A matrix: one column per library X (dlarray, numpy, torch, tvm_ffi, jax), one
row per operation, for a 1-element and a 1M-element float32 array; ``x`` is
an array of library X, and every cell is timed in the same process:

- ``X.from_dlpack(torch)``, ``X.from_dlpack(numpy)``, ``X.from_dlpack(dlarray)``:
  X imports a torch tensor, a NumPy array, a dlarray array;
- ``x.__dlpack__()`` and ``x.__dlpack__(max_version=(1, 3))``: X exports a
  capsule (dropped unconsumed, so its destructor's cost is included);
- ``torch.from_dlpack(x)``, ``numpy.from_dlpack(x)``: torch and NumPy import
  X's array;
- ``round trip x -> torch -> X``: ``X.from_dlpack(torch.from_dlpack(x))``,
  X's array out to a fixed partner and back, so every library pays for one
  export and one import with the same partner (the two halves are the rows
  ``torch.from_dlpack(x)`` and ``X.from_dlpack(torch)``);
- ``round trip x -> dlarray -> X``: ``X.from_dlpack(dlarray.from_dlpack(x))``,
  the same with dlarray as the partner: what handing X's arrays through
  dlarray costs X.

``X.from_dlpack`` is ``dlarray.from_dlpack``, ``numpy.from_dlpack``,
``torch.from_dlpack``, ``tvm_ffi.from_dlpack`` and ``jax.numpy.from_dlpack``.
The libraries are rows of ``dlarray._peers.PEERS``; each array is made by
its row's CPU maker from NumPy zeros, in the library's own memory
(``dlarray.zeros`` for dlarray).  TVM FFI has no allocator in Python; its
array is ``tvm_ffi.from_dlpack`` of a dlarray array.

Memory alignment: JAX copies CPU buffers that are not 64-byte aligned
instead of sharing them, and NumPy's allocator gives no such guarantee
(here a 1-element array lies 32 bytes past a 64-byte boundary, a 1M-element
one 16 bytes past: glibc's header of an mmap-ed block).  So the NumPy arrays
here are cut from a larger NumPy buffer at a 256-byte boundary, as
dlarray's own memory (and so TVM FFI's) is; torch's allocator aligns to 64
bytes and JAX's to at least 64.  The JSON records each source array's
alignment.

Copies: an exchange should share memory.  Each cell runs once before timing
and compares the data address of what it returns (for a capsule, the
``DLTensor`` inside) with the source array's; a cell that copied is timed
anyway and shown with ``copy``.  For JAX, whose copies run asynchronously,
a copying cell also waits for the copy (``block_until_ready``), so that its
cost is counted and no copy is left running.  A capsule that is not
versioned although ``max_version=(1, 3)`` was asked for is shown with
``legacy``.  A cell a library cannot do shows ``n/a``; its reason is listed
under the tables and kept in the JSON.

Exchanges from C: the example extension ``examples/c_extension`` (built
here with the C compiler Python was built with) has
``time_exchanges(x, n, how)``, which makes n exchanges of x in a C loop and
returns the mean ns: ``borrow`` (dlarray's C API, borrow + release),
``managed`` (type(x)'s DLPack C exchange table,
``managed_tensor_from_py_object_no_sync`` + the tensor's deleter),
``dltensor`` (the table's ``dltensor_from_py_object_no_sync``) and
``capsule`` (``x.__dlpack__(max_version=(1, 3))`` called from C, the capsule
taken and its tensor deleted).  It is timed for a dlarray array and a torch
tensor.  Without a compiler (or the example) these rows are n/a.

Targets (issue 7), judged at both sizes on the medians of this run:

1. ``dlarray.from_dlpack(torch_tensor) <= 0.8 x tvm_ffi.from_dlpack(torch_tensor)``;
2. ``dlarray.from_dlpack(numpy_array) <= numpy.from_dlpack(numpy_array)``;
3. ``dlarray_array.__dlpack__() <= numpy_array.__dlpack__()`` (no arguments);
4. an exchange through the table from C in <= 80 ns: ``managed`` on a
   dlarray array (the owning exchange a consumer such as
   ``dlarray.from_dlpack`` makes through a peer's table, deleter included).

A target that cannot be measured (a peer not installed, no compiler) is
not met.

Method, as :mod:`timeit` does it but interleaved (``_harness``):

1. Calibrate: for each cell find a batch size N, a power of two, so that N
   calls take at least the target batch time.
2. Measure: R rounds; each round times one batch of every cell in turn
   (round-robin), so drift in the machine touches all cells alike.
3. Report: per cell, the median over the R rounds of (batch time / N), in ns.

Calls are ``functools.partial`` objects, so the harness adds the same small
cost of one C-level call to every cell; an export with keywords is a small
Python function with the keywords in its call (a partial's keyword dict
would cost more than the export), and a round trip a partial of a small
Python function: one Python call more, in every column of the row alike.  The
garbage collector is off while timing.  Both sizes should cost the same (an
exchange touches no data); cells whose 1M time is more than 1.5x their
1-element time are listed.

Usage::

    python benchmarks/bench_peers.py [--quick] [--output PATH] [--check-targets]

``--quick`` (CI) takes a few seconds and gives rough numbers; the full run
takes about 35 s.  ``--check-targets`` makes the exit
status 1 when a target is not met (shared machines are noisy: CI does not
use it).  A peer that is not installed gets an n/a column.
"""

from __future__ import annotations

import ctypes
import json
import os
import platform
import sys
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from types import ModuleType
from typing import Any

import numpy
from _harness import (
    Case,
    calibrate,
    format_table,
    load_c_extension,
    measure,
    parse_args,
    self_timed_case,
)

import dlarray
from dlarray import _peers as peers

DEFAULT_OUTPUT = Path(__file__).resolve().parent / "results" / "peers.json"
SIZES = {"1": 1, "1M": 1_000_000}
LIBRARIES = ("dlarray", "numpy", "torch", "tvm_ffi", "jax")
# (rounds, target seconds per batch): a full run takes ~35 s, --quick ~4 s (imports included).
FULL = (101, 2e-3)
QUICK = (15, 2e-4)
ALIGNMENT = 256  # bytes; dlarray's own (dlarray._core.HOST_ALIGNMENT)
MAX_VERSION = (1, 3)
C_HOWS = ("borrow", "managed", "dltensor", "capsule")
C_PRODUCERS = ("dlarray", "torch")
C_LIMIT_NS = 80.0
# A cell whose 1M-element time exceeds this multiple of its 1-element time
# is listed as size-dependent.
SIZE_DEPENDENCE = 1.5


def _progress(message: str) -> None:
    print(f"[bench_peers] {message}", file=sys.stderr, flush=True)


# ---- the libraries ----


@dataclass(frozen=True)
class Column:
    """One column's library as the benchmark drives it: its consumer function
    bound, and its zeros maker.  The facts come from ``dlarray._peers``; what
    this adds is the imported module's functions and :func:`aligned_numpy`."""

    name: str
    version: str
    from_dlpack: Callable[[Any], Any]
    from_dlpack_name: str
    make: Callable[[int], Any]  # n float32 zeros in its own memory
    address: Callable[[Any], int]  # data address of one of its arrays


class NotApplicable(Exception):
    """A cell that cannot be timed; the message says why."""


@dataclass
class Libraries:
    """The libraries that import here, and why the others do not."""

    peers: dict[str, Column]
    missing: dict[str, str]

    def get(self, name: str) -> Column:
        """The library ``name``; :class:`NotApplicable` when it is missing."""
        if name in self.missing:
            raise NotApplicable(self.missing[name])
        return self.peers[name]


def aligned_numpy(n: int) -> numpy.ndarray:
    """``n`` float32 zeros in a NumPy buffer, starting at an ``ALIGNMENT`` boundary."""
    raw = numpy.zeros(n * 4 + ALIGNMENT, dtype=numpy.uint8)
    start = -raw.ctypes.data % ALIGNMENT
    return raw[start : start + n * 4].view(numpy.float32)


def _dlarray_address(x: Any) -> int:
    return int(x._data + x._byte_offset)


def _dlarray_peer() -> Column:
    return Column(
        "dlarray",
        dlarray.__version__,
        from_dlpack=dlarray.from_dlpack,
        from_dlpack_name="dlarray.from_dlpack",
        make=lambda n: dlarray.zeros(n, dtype=dlarray.float32),
        address=_dlarray_address,
    )


def _zeros_maker(row: peers.Peer, module: ModuleType) -> Callable[[int], Any]:
    """``make(n)``: n float32 zeros made by the row's CPU maker."""
    if row.name == "numpy":
        return aligned_numpy  # NumPy's allocator gives no 256-byte alignment
    cpu = dlarray.Device("cpu")
    return lambda n: row.make["cpu"](module, numpy.zeros(n, dtype=numpy.float32), cpu)


def _column(name: str) -> Column:
    """The library ``name`` of ``dlarray._peers``, imported; raises ImportError."""
    row = peers.peer_named(name)
    if name == "jax":
        # A CPU benchmark: on a machine with a GPU, JAX's arrays would go there.
        os.environ.setdefault("JAX_PLATFORMS", "cpu")
    module = row.import_module()
    return Column(
        name,
        str(row.version()),
        from_dlpack=row.from_dlpack(module),
        from_dlpack_name=row.consumer_name,
        make=_zeros_maker(row, module),
        address=row.pointer,
    )


def load_libraries() -> Libraries:
    """Every library of :data:`LIBRARIES`; one that fails to import is
    missing (its column is n/a)."""
    libs = Libraries({}, {})
    for name in LIBRARIES:
        try:
            libs.peers[name] = _dlarray_peer() if name == "dlarray" else _column(name)
        except ImportError as exc:
            libs.missing[name] = f"{name} is not installed ({exc})"
    return libs


# ---- where an exchange's data lies ----

_capsule_name = ctypes.pythonapi.PyCapsule_GetName
_capsule_name.restype = ctypes.c_char_p
_capsule_name.argtypes = [ctypes.py_object]
_capsule_pointer = ctypes.pythonapi.PyCapsule_GetPointer
_capsule_pointer.restype = ctypes.c_void_p
_capsule_pointer.argtypes = [ctypes.py_object, ctypes.c_char_p]

# Offsets (64-bit ABI, dlpack.h): DLManagedTensorVersioned's dl_tensor
# follows version (8 bytes), manager_ctx, deleter and flags (8 each);
# DLManagedTensor starts with its DLTensor.  In DLTensor, data is at 0 and
# byte_offset at 40.
_VERSIONED_TENSOR_OFFSET = 32
_BYTE_OFFSET_OFFSET = 40


def capsule_address(capsule: Any) -> int:
    """The data address (data + byte_offset) of the tensor in an unused
    DLPack capsule, read without taking the tensor."""
    name = _capsule_name(capsule)
    if name not in (b"dltensor", b"dltensor_versioned"):
        raise TypeError(f"not an unused DLPack capsule: {name!r}")
    tensor = _capsule_pointer(capsule, name)
    if name == b"dltensor_versioned":
        tensor += _VERSIONED_TENSOR_OFFSET
    data = ctypes.c_void_p.from_address(tensor).value or 0
    return data + ctypes.c_uint64.from_address(tensor + _BYTE_OFFSET_OFFSET).value


def alignment_of(address: int) -> int:
    """The largest power of two up to :data:`ALIGNMENT` dividing ``address``."""
    align = 1
    while align < ALIGNMENT and address % (align * 2) == 0:
        align *= 2
    return align


# ---- the operations (rows) ----


@dataclass
class Probe:
    """What one cell times, and how to tell whether it shared memory."""

    call: Callable[[], Any]
    label: str  # the code it times
    source_address: int
    result_address: Callable[[Any], int]


#: Each library's array for one size, by library name.
Arrays = dict[str, Any]
Operation = Callable[[Column, Arrays, Libraries], Probe]


def _import_from(producer: str) -> Operation:
    """``X.from_dlpack(a)``, ``a`` the array of ``producer``."""

    def probe(peer: Column, arrays: Arrays, libs: Libraries) -> Probe:
        source = libs.get(producer)
        a = arrays[producer]
        return Probe(
            partial(peer.from_dlpack, a),
            f"{peer.from_dlpack_name}({producer})",
            source.address(a),
            peer.address,
        )

    return probe


def _keyword_call(method: Callable[..., Any], kwargs: dict[str, Any]) -> Callable[[], Any]:
    """``method(**kwargs)`` as a function with the keywords written in its
    call.  A ``functools.partial`` with keywords copies its dict on every
    call, which costs more than an export does (~150 ns) and would hide
    most of the difference between two exports; this costs one Python call
    instead, the same in every column."""
    arguments = ", ".join(f"{name}=_{name}" for name in kwargs)
    scope = {"_method": method, **{f"_{name}": value for name, value in kwargs.items()}}
    exec(compile(f"def call():\n    return _method({arguments})\n", "<export>", "exec"), scope)
    return scope["call"]  # type: ignore[no-any-return]


def _export(**kwargs: Any) -> Operation:
    """``x.__dlpack__(**kwargs)``."""
    arguments = ", ".join(f"{k}={v!r}" for k, v in kwargs.items())

    def probe(peer: Column, arrays: Arrays, libs: Libraries) -> Probe:
        x = arrays[peer.name]
        call = _keyword_call(x.__dlpack__, kwargs) if kwargs else x.__dlpack__
        return Probe(call, f"{peer.name}.__dlpack__({arguments})", peer.address(x), capsule_address)

    return probe


def _export_to(consumer: str) -> Operation:
    """``consumer.from_dlpack(x)``."""

    def probe(peer: Column, arrays: Arrays, libs: Libraries) -> Probe:
        target = libs.get(consumer)
        x = arrays[peer.name]
        return Probe(
            partial(target.from_dlpack, x),
            f"{target.from_dlpack_name}({peer.name})",
            peer.address(x),
            target.address,
        )

    return probe


def _there_and_back(there: Callable[[Any], Any], back: Callable[[Any], Any], x: Any) -> Any:
    return back(there(x))


def _round_trip(partner: str) -> Operation:
    """``X.from_dlpack(partner.from_dlpack(x))``."""

    def probe(peer: Column, arrays: Arrays, libs: Libraries) -> Probe:
        middle = libs.get(partner)
        x = arrays[peer.name]
        return Probe(
            partial(_there_and_back, middle.from_dlpack, peer.from_dlpack, x),
            f"{peer.from_dlpack_name}({middle.from_dlpack_name}({peer.name}))",
            peer.address(x),
            peer.address,
        )

    return probe


OPERATIONS: dict[str, Operation] = {
    "X.from_dlpack(torch)": _import_from("torch"),
    "X.from_dlpack(numpy)": _import_from("numpy"),
    "X.from_dlpack(dlarray)": _import_from("dlarray"),
    "x.__dlpack__()": _export(),
    "x.__dlpack__(max_version=(1, 3))": _export(max_version=MAX_VERSION),
    "torch.from_dlpack(x)": _export_to("torch"),
    "numpy.from_dlpack(x)": _export_to("numpy"),
    "round trip x -> torch -> X": _round_trip("torch"),
    "round trip x -> dlarray -> X": _round_trip("dlarray"),
}


# ---- the cells ----


@dataclass
class Cell:
    """One operation by one library at one size: its case, or why none."""

    operation: str
    library: str
    size: str
    case: Case | None = None
    na: str | None = None
    exchange: str | None = None  # "zero-copy" or "copy"
    capsule: str | None = None  # the capsule's name, for __dlpack__ rows


def _reason(exc: BaseException) -> str:
    lines = str(exc).strip().splitlines()
    return f"{type(exc).__name__}: {lines[0] if lines else ''}"


def _waiting(call: Callable[[], Any]) -> Any:
    return call().block_until_ready()


def make_cell(operation: str, library: str, size: str, arrays: Arrays, libs: Libraries) -> Cell:
    """Build ``operation``'s cell for ``library``, run it once, and see
    whether it shared memory; n/a with the reason when it cannot run."""
    cell = Cell(operation, library, size)
    try:
        probe = OPERATIONS[operation](libs.get(library), arrays, libs)
        result = probe.call()
        shared = probe.result_address(result) == probe.source_address
    except NotApplicable as exc:
        cell.na = str(exc)
        return cell
    except Exception as exc:  # the library cannot do it: say what it raised
        cell.na = _reason(exc)
        return cell
    cell.exchange = "zero-copy" if shared else "copy"
    if operation.startswith("x.__dlpack__"):
        cell.capsule = (_capsule_name(result) or b"").decode()
    call = probe.call
    if not shared and hasattr(result, "block_until_ready"):
        call = partial(_waiting, probe.call)  # JAX: count the copy, leave none running
    cell.case = Case(probe.label, call)
    return cell


def make_arrays(libs: Libraries, n: int) -> Arrays:
    """Each usable library's array of ``n`` float32 zeros."""
    return {name: peer.make(n) for name, peer in libs.peers.items()}


@dataclass
class CCell:
    """Exchanges timed in C for one producer, size and ``how``."""

    producer: str
    size: str
    how: str
    case: Case | None = None
    na: str | None = None


def _c_timer(ext: Any, x: Any, how: str) -> Callable[[int], float]:
    """``timer(n)``: the mean ns of ``n`` exchanges of ``x`` made in C."""
    return lambda n: float(ext.time_exchanges(x, n, how))


def make_c_cells(
    ext: Any, why_not: str | None, arrays: Arrays, libs: Libraries, size: str
) -> list[CCell]:
    """The C-level cells for one size (n/a with ``why_not`` without the extension)."""
    cells = []
    for producer in C_PRODUCERS:
        for how in C_HOWS:
            cell = CCell(producer, size, how)
            cells.append(cell)
            if ext is None:
                cell.na = why_not
                continue
            if producer in libs.missing:
                cell.na = libs.missing[producer]
                continue
            timer = _c_timer(ext, arrays[producer], how)
            try:
                ext.time_exchanges(arrays[producer], 1, how)
            except Exception as exc:  # e.g. a table without that function
                cell.na = _reason(exc)
                continue
            cell.case = self_timed_case(f"time_exchanges({producer}, n, {how!r})", timer)
    return cells


# ---- running ----


@dataclass
class Run:
    """Everything one run produced."""

    libs: Libraries
    cells: list[Cell]
    c_cells: list[CCell]
    c_missing: str | None
    alignments: dict[str, dict[str, int]]  # size -> library -> source array alignment
    quick: bool


def run(quick: bool) -> Run:
    """Build, check, calibrate and measure every cell; see the module docstring."""
    rounds, target_s = QUICK if quick else FULL
    libs = load_libraries()
    missing = f" (missing: {', '.join(libs.missing)})" if libs.missing else ""
    _progress(f"libraries: {', '.join(libs.peers)}{missing}")
    ext, c_missing = load_c_extension()
    _progress("C extension built" if ext is not None else f"no C rows: {c_missing}")
    cells: list[Cell] = []
    c_cells: list[CCell] = []
    alignments: dict[str, dict[str, int]] = {}
    for size, n in SIZES.items():
        arrays = make_arrays(libs, n)
        alignments[size] = {
            name: alignment_of(libs.peers[name].address(a)) for name, a in arrays.items()
        }
        for operation in OPERATIONS:
            cells += [make_cell(operation, name, size, arrays, libs) for name in LIBRARIES]
        c_cells += make_c_cells(ext, c_missing, arrays, libs, size)
    cases = [c.case for c in cells if c.case is not None]
    cases += [c.case for c in c_cells if c.case is not None]
    _progress(f"{len(cases)} cases; calibrating")
    for case in cases:
        calibrate(case, target_s)
    _progress(f"measuring {rounds} rounds, batches of >= {target_s * 1e3:g} ms")
    measure(cases, rounds, _progress)
    return Run(libs, cells, c_cells, c_missing, alignments, quick)


# ---- targets ----


@dataclass(frozen=True)
class Target:
    """One of issue 7's targets: subject <= limit x baseline, or subject <= limit ns."""

    text: str
    subject: tuple[str, str]  # (operation, library), or (producer, how) for C
    baseline: tuple[str, str] | None  # None: ``limit`` is in ns
    limit: float


TARGETS = (
    Target(
        "dlarray.from_dlpack(torch_tensor) <= 0.8x tvm_ffi.from_dlpack(torch_tensor)",
        ("X.from_dlpack(torch)", "dlarray"),
        ("X.from_dlpack(torch)", "tvm_ffi"),
        0.8,
    ),
    Target(
        "dlarray.from_dlpack(numpy_array) <= numpy.from_dlpack(numpy_array)",
        ("X.from_dlpack(numpy)", "dlarray"),
        ("X.from_dlpack(numpy)", "numpy"),
        1.0,
    ),
    Target(
        "dlarray_array.__dlpack__() <= numpy_array.__dlpack__()",
        ("x.__dlpack__()", "dlarray"),
        ("x.__dlpack__()", "numpy"),
        1.0,
    ),
    Target(
        f"an exchange through the table from C <= {C_LIMIT_NS:g} ns "
        "(dlarray array, managed_tensor_from_py_object_no_sync + deleter)",
        ("dlarray", "managed"),
        None,
        C_LIMIT_NS,
    ),
)


@dataclass
class Verdict:
    """A target judged at one size."""

    target: Target
    size: str
    subject_ns: float | None
    baseline_ns: float | None
    ratio: float | None  # subject/baseline, or subject/limit for an ns limit
    met: bool
    reason: str | None = None  # why it could not be measured


def _lookup(r: Run, key: tuple[str, str], size: str, c_level: bool) -> tuple[float | None, str]:
    """A cell's median ns, or None and why."""
    if c_level:
        c_cell = next(c for c in r.c_cells if (c.producer, c.how) == key and c.size == size)
        case, na = c_cell.case, c_cell.na
    else:
        cell = next(c for c in r.cells if (c.operation, c.library) == key and c.size == size)
        case, na = cell.case, cell.na
    if case is None:
        where = f"C {key[1]} of {key[0]}" if c_level else f"{key[1]}, {key[0]}"
        return None, f"{where}: {na}"
    return case.median_ns, ""


def judge(r: Run) -> list[Verdict]:
    """Every target at every size."""
    verdicts = []
    for target in TARGETS:
        for size in SIZES:
            c_level = target.baseline is None
            subject, why = _lookup(r, target.subject, size, c_level)
            baseline: float | None = None
            if target.baseline is not None:
                baseline, why_baseline = _lookup(r, target.baseline, size, False)
                why = why or why_baseline
            if subject is None or (baseline is None and not c_level):
                verdicts.append(Verdict(target, size, subject, baseline, None, False, why))
                continue
            # An ns limit: the ratio is to the limit itself, met at <= 1.
            ratio = subject / (target.limit if baseline is None else baseline)
            met = ratio <= (1.0 if c_level else target.limit)
            verdicts.append(Verdict(target, size, subject, baseline, ratio, met))
    return verdicts


# ---- reporting ----


def _cell_text(cell: Cell, dlarray_ns: float | None) -> str:
    if cell.case is None:
        return "n/a"
    ns = cell.case.median_ns
    text = f"{ns:.0f}"
    if cell.library != "dlarray" and dlarray_ns is not None:
        text += f" ({dlarray_ns / ns:.2f})"
    if cell.exchange == "copy":
        text += " copy"
    if cell.capsule == "dltensor" and "max_version" in cell.operation:
        text += " legacy"
    return text


def format_matrix(r: Run, size: str) -> str:
    """The ns of every operation and library at one size, with dlarray/X ratios."""
    lines: list[tuple[str, ...]] = [("operation", *LIBRARIES)]
    for operation in OPERATIONS:
        row = {c.library: c for c in r.cells if c.operation == operation and c.size == size}
        dl = row["dlarray"].case
        dlarray_ns = dl.median_ns if dl is not None else None
        lines.append((operation, *(_cell_text(row[name], dlarray_ns) for name in LIBRARIES)))
    return format_table(lines)


def format_c_table(r: Run) -> str:
    """ns per exchange made in C, by producer, how and size."""
    lines: list[tuple[str, ...]] = [("producer", "size", *C_HOWS)]
    for producer in C_PRODUCERS:
        for size in SIZES:
            row = {c.how: c.case for c in r.c_cells if c.producer == producer and c.size == size}
            ns = [f"{case.median_ns:.0f}" if (case := row[how]) else "n/a" for how in C_HOWS]
            lines.append((producer, size, *ns))
    return format_table(lines)


def format_verdicts(verdicts: list[Verdict]) -> str:
    lines = []
    for target in TARGETS:
        lines.append(f"  {target.text}")
        for v in (v for v in verdicts if v.target is target):
            if v.ratio is None:
                lines.append(f"    size {v.size:>2}: NOT MEASURED ({v.reason})")
            elif v.baseline_ns is None:
                lines.append(
                    f"    size {v.size:>2}: {v.subject_ns:.0f} ns vs limit {target.limit:g} ns"
                    f" = {v.ratio:.2f}x the limit  {'MET' if v.met else 'NOT MET'}"
                )
            else:
                lines.append(
                    f"    size {v.size:>2}: {v.subject_ns:.0f} ns vs {v.baseline_ns:.0f} ns"
                    f" = {v.ratio:.2f}x (limit {target.limit:g}x)  {'MET' if v.met else 'NOT MET'}"
                )
    return "\n".join(lines)


def size_dependent(r: Run) -> list[tuple[str, str, float]]:
    """(operation, library, 1M/1 ratio) of the cells slower for 1M elements."""
    small, large = SIZES
    found = []
    for cell in r.cells:
        if cell.size != large or cell.case is None:
            continue
        twin = next(
            c
            for c in r.cells
            if (c.operation, c.library, c.size) == (cell.operation, cell.library, small)
        )
        if twin.case is not None:
            ratio = cell.case.median_ns / twin.case.median_ns
            if ratio > SIZE_DEPENDENCE:
                found.append((cell.operation, cell.library, ratio))
    return found


def format_notes(r: Run) -> str:
    """Why cells are n/a, and capsules that are not what was asked for; a
    library that is not installed is named once, not in every cell."""
    missing = set(r.libs.missing.values())
    lines = [
        f"  {name}: {why}; its column and every cell needing it are n/a"
        for name, why in r.libs.missing.items()
    ]
    cells = sorted(
        {
            (c.library, c.operation, c.na)
            for c in r.cells
            if c.na is not None and c.na not in missing
        }
        | {
            (c.library, c.operation, "returns a legacy 'dltensor' capsule")
            for c in r.cells
            if c.capsule == "dltensor" and "max_version" in c.operation
        }
    )
    lines += [f"  {library}, {operation}: {why}" for library, operation, why in cells]
    return "\n".join(lines)


def report(r: Run, verdicts: list[Verdict]) -> str:
    """The whole printed report."""
    parts = []
    for size, n in SIZES.items():
        parts.append(
            f"float32[{n}]: ns per call (median); (r) = dlarray's ns / this library's"
            " (below 1: dlarray faster)\n" + format_matrix(r, size)
        )
    notes = format_notes(r)
    if notes:
        parts.append("n/a and notes:\n" + notes)
    dependent = size_dependent(r)
    parts.append(
        "size dependence (1M vs 1 element, > {:g}x): {}".format(
            SIZE_DEPENDENCE,
            ", ".join(f"{lib} {op} {ratio:.2f}x" for op, lib, ratio in dependent) or "none",
        )
    )
    c_text = "exchanges from C (time_exchanges), ns per exchange (median):\n"
    if r.c_missing is not None:
        c_text += f"  n/a: {r.c_missing}"
    else:
        c_text += format_c_table(r)
        missing = set(r.libs.missing.values())
        c_notes = {(c.producer, c.how, c.na) for c in r.c_cells if c.na and c.na not in missing}
        c_text += "".join(f"\n  n/a: {p} {how}: {why}" for p, how, why in sorted(c_notes))
    parts.append(c_text)
    parts.append("targets:\n" + format_verdicts(verdicts))
    return "\n\n".join(parts)


def _case_json(case: Case | None) -> dict[str, Any]:
    if case is None:
        return {}
    return {
        "call": case.label,
        "ns_per_call": case.median_ns,
        "min_ns": min(case.per_call_ns),
        "max_ns": max(case.per_call_ns),
        "batch": case.batch,
    }


def to_json(r: Run, verdicts: list[Verdict]) -> dict[str, Any]:
    """The results and the conditions they were taken under."""
    rounds, target_s = QUICK if r.quick else FULL
    return {
        "benchmark": "peers",
        "method": {
            "rounds": rounds,
            "target_batch_s": target_s,
            "statistic": "median",
            "interleaved": True,
            "quick": r.quick,
            "sizes": SIZES,
            "dtype": "float32",
            "source_alignment_bytes": r.alignments,
            "round_trips": "X.from_dlpack(partner.from_dlpack(x)), partner torch or dlarray",
            "c_level": "examples/c_extension time_exchanges(x, n, how): mean ns over a C loop",
        },
        "versions": {
            "python": platform.python_version(),
            **{name: None for name in r.libs.missing},
            **{name: peer.version for name, peer in r.libs.peers.items()},
        },
        "platform": platform.platform(),
        "cpu_count": os.cpu_count(),
        "missing_libraries": r.libs.missing,
        "cells": [
            {
                "operation": c.operation,
                "library": c.library,
                "size": c.size,
                "na": c.na,
                "exchange": c.exchange,
                "capsule": c.capsule,
                **_case_json(c.case),
            }
            for c in r.cells
        ],
        "c_level": {
            "missing": r.c_missing,
            "cells": [
                {
                    "producer": c.producer,
                    "size": c.size,
                    "how": c.how,
                    "na": c.na,
                    **_case_json(c.case),
                }
                for c in r.c_cells
            ],
        },
        "size_dependent": [
            {"operation": op, "library": lib, "ratio": ratio}
            for op, lib, ratio in size_dependent(r)
        ],
        "targets": [
            {
                "target": v.target.text,
                "size": v.size,
                "subject_ns": v.subject_ns,
                "baseline_ns": v.baseline_ns,
                "limit": v.target.limit,
                "limit_unit": "ratio" if v.target.baseline is not None else "ns",
                "ratio": v.ratio,
                "met": v.met,
                "reason": v.reason,
            }
            for v in verdicts
        ],
        "all_targets_met": all(v.met for v in verdicts),
    }


def _options(parser: Any) -> None:
    parser.add_argument(
        "--check-targets",
        action="store_true",
        help="exit with status 1 when a target is not met",
    )


def main(argv: list[str] | None = None) -> int:
    """Run the benchmark, print the tables and targets, write the JSON.

    Parameters
    ----------
    argv : list of str, optional
        Command-line arguments; ``sys.argv[1:]`` when omitted.

    Returns
    -------
    int
        The exit status: 1 with ``--check-targets`` when a target is not
        met, else 0.
    """
    args = parse_args(__doc__, DEFAULT_OUTPUT, argv, _options)
    r = run(args.quick)
    verdicts = judge(r)
    print(report(r, verdicts))
    args.output.parent.mkdir(parents=True, exist_ok=True)
    args.output.write_text(json.dumps(to_json(r, verdicts), indent=2) + "\n")
    _progress(f"wrote {args.output}")
    if args.check_targets and not all(v.met for v in verdicts):
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
