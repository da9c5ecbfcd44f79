"""Figures and result tables for dlarray's documentation, made at build time.

A local Sphinx extension (``extensions = ["dlarray_docs_figures"]`` with
``docs/_ext`` on ``sys.path``).  On ``builder-inited`` it writes into
``docs/_generated/`` (not under version control):

- (the diagrams of the tutorial and the design page are drawn by
  ``dlarray_diagrams``, with the drawing helpers here;)
- ``peers.svg``, ``memory.svg``, ``namespace.svg``, ``conformance.svg``:
  plots of the latest benchmark and conformance results;
- ``benchmarks_*.md`` and ``conformance_*.md``: Markdown tables and "data
  source" lines, which ``benchmarks.md`` and ``conformance.md`` include
  with MyST's ``{include}`` directive;
- ``probe_*.md``: the tables of ``python -m dlarray probe`` in
  ``interop.md``, always from the committed run ``docs/_data/probe.json``
  (the pinned peer versions; never a local run, so the page cannot drift
  from what the tests pin).

Each result is read from ``benchmarks/results/<name>.json`` (the latest
local run of ``nox -s bench``; ``conformance.json`` there when a
conformance run was written there) when that file exists, else from
``docs/_data/<name>.json`` (the committed snapshot, described in
``docs/_data/snapshots.json``).  ``DLARRAY_DOCS_RESULTS=snapshot`` makes
the build use the snapshots even where local results exist.

Output is deterministic: SVG ids come from a fixed ``svg.hashsalt``, the
date and creator metadata are left out, and a file is rewritten only when
its content changed (so Sphinx does not re-read pages for nothing).
Everything is drawn on ``matplotlib.figure.Figure`` objects with the Agg
canvas; ``pyplot`` and its global state are not touched.
"""

from __future__ import annotations

import datetime
import io
import json
import math
import os
import re
import time
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

__version__ = "1.0"

#: Names of the result files (``<name>.json``), local or snapshot.
RESULTS = ("peers", "memory", "exchange", "namespace", "conformance")
SNAPSHOT_MANIFEST = "snapshots.json"
ENV_CHOICE = "DLARRAY_DOCS_RESULTS"  # "auto" (default) or "snapshot"

# Colours (Okabe-Ito, lightened for fills), one per layer.
FILL = {
    "namespace": "#d6e9f8",
    "engine": "#fde8c4",
    "array": "#e3d7ef",
    "storage": "#d4efe4",
    "core": "#f9dcd0",
    "peer": "#eeeeee",
    "error": "#fbe3e3",
    "note": "#fffbe6",
}
EDGE = {
    "namespace": "#0072b2",
    "engine": "#e69f00",
    "array": "#7b4ea3",
    "storage": "#009e73",
    "core": "#d55e00",
    "peer": "#666666",
    "error": "#c0392b",
    "note": "#b8a000",
}
LIBRARY_COLOURS = {
    "dlarray": "#0072b2",
    "numpy": "#e69f00",
    "torch": "#d55e00",
    "tvm_ffi": "#009e73",
    "jax": "#cc79a7",
}

RC = {
    "svg.hashsalt": "dlarray-docs",
    "svg.fonttype": "path",  # glyphs as paths: the boxes fit their text in any browser
    "font.family": "DejaVu Sans",
    "font.size": 10,
    "axes.titlesize": 11,
    "figure.facecolor": "white",  # readable on furo's dark theme too
    "savefig.facecolor": "white",
    "path.simplify": False,
}
SVG_METADATA = {"Date": None, "Creator": None}


# ---------------------------------------------------------------- the hook


def setup(app: Any) -> dict[str, Any]:
    """Register the extension with Sphinx."""
    app.connect("config-inited", _exclude_inputs)
    app.connect("builder-inited", generate)
    return {"version": __version__, "parallel_read_safe": True, "parallel_write_safe": True}


def _exclude_inputs(app: Any, config: Any) -> None:
    """The generated fragments and the data are included by pages, not pages
    themselves: keep Sphinx from reading them as documents."""
    patterns = list(config.exclude_patterns)
    for pattern in ("_generated", "_data"):
        if pattern not in patterns:
            patterns.append(pattern)
    config.exclude_patterns = patterns


def generate(app: Any) -> None:
    """Write every figure and fragment into ``<srcdir>/_generated``; warn (an
    error under ``-W``) for each pair of labels that overlap in a chart."""
    from sphinx.util import logging

    start = time.perf_counter()
    srcdir = Path(app.srcdir)
    written, overlaps = build_all(srcdir, srcdir.parent)
    elapsed = time.perf_counter() - start
    log = logging.getLogger(__name__)
    for overlap in overlaps:
        log.warning(f"dlarray_docs_figures: labels overlap in {overlap}")
    log.info(f"dlarray_docs_figures: {written} file(s) updated in _generated/ ({elapsed:.1f} s)")


def build_all(srcdir: Path, root: Path) -> tuple[int, list[str]]:
    """Generate everything; return how many files changed, and the labels
    that overlap in the charts ("peers.svg: '55' and 'target ...'")."""
    import matplotlib

    out = srcdir / "_generated"
    out.mkdir(exist_ok=True)
    sources = {name: load_result(name, srcdir, root) for name in RESULTS}
    threads = _read_json(srcdir / "_data" / "threads.json")
    outputs: dict[str, bytes] = {}
    overlaps = []
    with matplotlib.rc_context(RC):
        charts = {
            "peers.svg": plot_peers(sources["peers"]),
            "memory.svg": plot_memory(sources["memory"]),
            "namespace.svg": plot_namespace(sources["namespace"]),
            "conformance.svg": plot_conformance(sources["conformance"]),
            "threads.svg": plot_threads(threads),
        }
        for name, fig in charts.items():
            overlaps += [f"{name}: {pair}" for pair in overlapping_labels(fig)]
            outputs[name] = svg(fig)
    for name, text in benchmark_fragments(sources).items():
        outputs[name] = text.encode()
    for name, text in conformance_fragments(sources["conformance"]).items():
        outputs[name] = text.encode()
    for name, text in probe_fragments(srcdir).items():
        outputs[name] = text.encode()
    outputs["benchmarks_threads.md"] = threads_table(threads).encode()
    budgets = _read_json(root / "benchmarks" / "instruction_budgets.json")
    outputs["benchmarks_instructions.md"] = instructions_table(budgets).encode()
    changed = sum(write_if_changed(out / name, data) for name, data in sorted(outputs.items()))
    return changed, overlaps


def overlapping_labels(fig: Any) -> list[str]:
    """Each pair of texts of ``fig`` whose drawn boxes overlap (by more than
    half a pixel each way), as "'55' and 'target: managed <= 80 ns'".

    Every text counts: titles, axis labels, drawn tick labels, legends, the
    labels on bars.  A tick label of a tick outside its axis's view is not
    drawn, and is left out."""
    from matplotlib.text import Text

    fig.canvas.draw()  # the final layout: the extents below are the drawn ones
    renderer = fig.canvas.get_renderer()
    hidden = set()
    for ax in fig.axes:
        for axis in (ax.xaxis, ax.yaxis):
            low, high = sorted(axis.get_view_interval())
            slack = (high - low) * 1e-10
            for tick in axis.get_major_ticks() + axis.get_minor_ticks():
                if not low - slack <= tick.get_loc() <= high + slack:
                    hidden.update((id(tick.label1), id(tick.label2)))
    texts = [
        (text, text.get_window_extent(renderer))
        for text in fig.findobj(Text)
        if text.get_visible() and text.get_text().strip() and id(text) not in hidden
    ]
    pairs = []
    for i, (a, box_a) in enumerate(texts):
        for b, box_b in texts[i + 1 :]:
            width = min(box_a.x1, box_b.x1) - max(box_a.x0, box_b.x0)
            height = min(box_a.y1, box_b.y1) - max(box_a.y0, box_b.y0)
            if width > 0.5 and height > 0.5:
                pairs.append(f"{a.get_text()[:40]!r} and {b.get_text()[:40]!r}")
    return pairs


def write_if_changed(path: Path, data: bytes) -> bool:
    """Write ``data`` unless ``path`` already holds exactly that."""
    if path.exists() and path.read_bytes() == data:
        return False
    path.write_bytes(data)
    return True


def new_figure(width: float, height: float) -> Any:
    """A figure on the Agg canvas, outside pyplot."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    fig = Figure(figsize=(width, height))
    FigureCanvasAgg(fig)
    return fig


def svg(fig: Any) -> bytes:
    """The figure as SVG bytes, without a date (rebuilds give the same bytes)."""
    buffer = io.BytesIO()
    fig.savefig(buffer, format="svg", metadata=SVG_METADATA, bbox_inches="tight", pad_inches=0.05)
    return buffer.getvalue()


# ---------------------------------------------------------------- the data


@dataclass
class Result:
    """One result file: its data, and where and when it came from."""

    name: str
    data: dict[str, Any] | None  # None: neither a local result nor a snapshot
    origin: str  # "local" or "snapshot" or "missing"
    path: str  # relative to the repository root
    date: str  # when it was taken, as far as known
    note: str  # the snapshot's description, if any
    commit: str = ""  # the commit whose tree was measured, where recorded


def _label(result: Result) -> str:
    """ "commit f03a002, 2026-11-24 10:14 UTC": what was measured, and when
    (empty when neither is known)."""
    data = result.data or {}
    date = str(data.get("date") or "") or result.date.split(" (")[0]
    commit = result.commit or str(data.get("commit") or "")
    parts = [f"commit {commit}" if commit else "", date if date != "not recorded" else ""]
    return ", ".join(p for p in parts if p)


def load_result(name: str, srcdir: Path, root: Path) -> Result:
    """``benchmarks/results/<name>.json`` when present (and allowed), else
    the snapshot ``docs/_data/<name>.json``."""
    local = root / "benchmarks" / "results" / f"{name}.json"
    snapshot = srcdir / "_data" / f"{name}.json"
    use_local = os.environ.get(ENV_CHOICE, "auto").strip().lower() != "snapshot"
    if use_local and local.is_file():
        data = _read_json(local)
        if data is not None:
            stamp = datetime.datetime.fromtimestamp(local.stat().st_mtime, datetime.UTC)
            return Result(
                name,
                data,
                "local",
                local.relative_to(root).as_posix(),
                stamp.strftime("%Y-%m-%d %H:%M UTC") + " (the file's modification time)",
                "",
                str(data.get("commit") or ""),
            )
    if snapshot.is_file():
        data = _read_json(snapshot)
        manifest = _read_json(srcdir / "_data" / SNAPSHOT_MANIFEST) or {}
        entry = manifest.get(name, {}) if isinstance(manifest, dict) else {}
        return Result(
            name,
            data,
            "snapshot",
            snapshot.relative_to(root).as_posix(),
            str(entry.get("date", "not recorded")),
            str(entry.get("note", "")),
            str(entry.get("commit") or (data or {}).get("commit") or ""),
        )
    return Result(name, None, "missing", f"benchmarks/results/{name}.json", "", "")


def _read_json(path: Path) -> Any:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None


# ---------------------------------------------------------------- drawing helpers


def _canvas(width_in: float, height_in: float, width: float, height: float) -> tuple[Any, Any]:
    """A figure with one axis-less axes in data units 0..width x 0..height."""
    fig = new_figure(width_in, height_in)
    ax = fig.add_axes((0, 0, 1, 1))
    ax.set_xlim(0, width)
    ax.set_ylim(0, height)
    ax.set_axis_off()
    return fig, ax


def box(
    ax: Any,
    x: float,
    y: float,
    w: float,
    h: float,
    kind: str,
    title: str = "",
    body: str = "",
    *,
    title_size: float = 10,
    body_size: float = 8.5,
    align: str = "center",
    dashed: bool = False,
    z: float = 2,
) -> None:
    """A rounded box at (x, y) (lower left) with a bold title and a body.

    ``align="top"`` puts the title at the top left (a container whose
    inside holds other boxes)."""
    from matplotlib.patches import FancyBboxPatch

    ax.add_patch(
        FancyBboxPatch(
            (x, y),
            w,
            h,
            boxstyle="round,pad=0,rounding_size=0.8",
            facecolor=FILL[kind],
            edgecolor=EDGE[kind],
            linewidth=1.3,
            linestyle="--" if dashed else "-",
            zorder=z,
        )
    )
    if align == "top":
        ax.text(
            x + 0.8,
            y + h - 0.7,
            title,
            ha="left",
            va="top",
            fontsize=title_size,
            fontweight="bold",
            color=EDGE[kind],
            zorder=z + 0.1,
        )
        return
    if title and body:
        ax.text(
            x + w / 2,
            y + h / 2 + 0.15,
            title,
            ha="center",
            va="bottom",
            fontsize=title_size,
            fontweight="bold",
            zorder=z + 0.1,
        )
        ax.text(
            x + w / 2,
            y + h / 2 - 0.15,
            body,
            ha="center",
            va="top",
            fontsize=body_size,
            linespacing=1.25,
            zorder=z + 0.1,
        )
    else:
        ax.text(
            x + w / 2,
            y + h / 2,
            title or body,
            ha="center",
            va="center",
            fontsize=title_size if title else body_size,
            fontweight="bold" if title else "normal",
            linespacing=1.25,
            zorder=z + 0.1,
        )


def arrow(
    ax: Any,
    start: tuple[float, float],
    end: tuple[float, float],
    label: str = "",
    *,
    both: bool = False,
    colour: str = "#333333",
    label_at: tuple[float, float] | None = None,
    label_ha: str = "center",
    dashed: bool = False,
    rad: float = 0.0,
    size: float = 8.5,
) -> None:
    """An arrow from ``start`` to ``end``, with an optional label."""
    from matplotlib.patches import FancyArrowPatch

    ax.add_patch(
        FancyArrowPatch(
            start,
            end,
            arrowstyle="<|-|>" if both else "-|>",
            mutation_scale=13,
            linewidth=1.4,
            color=colour,
            linestyle="--" if dashed else "-",
            connectionstyle=f"arc3,rad={rad}",
            shrinkA=0,
            shrinkB=0,
            zorder=4,
        )
    )
    if label:
        lx, ly = label_at or ((start[0] + end[0]) / 2, (start[1] + end[1]) / 2)
        ax.text(
            lx,
            ly,
            label,
            ha=label_ha,
            va="center",
            fontsize=size,
            color=colour,
            zorder=5,
            linespacing=1.2,
            bbox={
                "boxstyle": "round,pad=0.2",
                "facecolor": "white",
                "edgecolor": "none",
                "alpha": 0.9,
            },
        )


# ---------------------------------------------------------------- (d) benchmark plots


def _no_data(title: str, why: str) -> Any:
    fig = new_figure(8, 1.6)
    ax = fig.add_axes((0, 0, 1, 1))
    ax.set_axis_off()
    ax.text(0.5, 0.6, title, ha="center", va="center", fontsize=11, fontweight="bold")
    ax.text(0.5, 0.3, why, ha="center", va="center", fontsize=9.5, color="#666666")
    return fig


def _libraries(data: dict[str, Any]) -> list[str]:
    seen = [c["library"] for c in data.get("cells", [])]
    return list(dict.fromkeys(seen))


def _operations(data: dict[str, Any]) -> list[str]:
    return list(dict.fromkeys(c["operation"] for c in data.get("cells", [])))


def _peer_cell(data: dict[str, Any], operation: str, library: str, size: str) -> dict[str, Any]:
    for cell in data.get("cells", []):
        if (cell["operation"], cell["library"], cell["size"]) == (operation, library, size):
            return dict(cell)
    return {}


def plot_peers(result: Result) -> Any:
    """Grouped bars: ns per operation per library (float32[1], log scale),
    and the exchanges made from C."""
    data = result.data
    if not data or not data.get("cells"):
        return _no_data("Exchange latency against the peers", "no peers.json result")
    libraries = _libraries(data)
    operations = _operations(data)
    size = "1"
    c_cells = [c for c in data.get("c_level", {}).get("cells", []) if c["size"] == size]
    fig = new_figure(7.4, 9.4)  # the page width: text at its own size
    grid = fig.add_gridspec(2, 1, height_ratios=(3.3, 1), hspace=0.32)
    ax = fig.add_subplot(grid[0])
    height = 0.8 / max(len(libraries), 1)
    for j, library in enumerate(libraries):
        ys, values, hatches = [], [], []
        for i, operation in enumerate(operations):
            cell = _peer_cell(data, operation, library, size)
            y = i + (j - (len(libraries) - 1) / 2) * height
            if cell.get("ns_per_call") is None:
                ax.text(1.1, y, "n/a", va="center", fontsize=7, color="#888888")
                continue
            ys.append(y)
            values.append(cell["ns_per_call"])
            hatches.append("//" if cell.get("exchange") == "copy" else "")
        bars = ax.barh(
            ys,
            values,
            height=height * 0.92,
            color=LIBRARY_COLOURS.get(library, "#999999"),
            label=library,
            log=True,
        )
        for bar, hatch in zip(bars, hatches, strict=True):
            bar.set_hatch(hatch)
    ax.set_xscale("log")
    ax.set_yticks(range(len(operations)), operations)
    ax.invert_yaxis()
    ax.set_xlabel("ns per call (median, log scale): shorter is faster")
    label = _label(result)
    ax.set_title(
        f"DLPack exchanges of a float32[{size}] array; X is the library of each bar"
        + (f"\nbench_peers.py, run of {label}" if label else ""),
        pad=30,
    )
    ax.grid(axis="x", which="major", color="#dddddd", linewidth=0.8)
    ax.set_axisbelow(True)
    ax.legend(
        loc="lower center",
        bbox_to_anchor=(0.5, 1.0),
        ncol=len(libraries),
        fontsize=8.5,
        frameon=False,
    )
    ax.set_xlim(left=10)

    ax2 = fig.add_subplot(grid[1])
    if c_cells:
        producers = list(dict.fromkeys(c["producer"] for c in c_cells))
        hows = list(dict.fromkeys(c["how"] for c in c_cells))
        width = 0.8 / max(len(producers), 1)
        bar_at: dict[tuple[str, str], float] = {}  # (producer, how) -> the bar's centre
        for j, producer in enumerate(producers):
            xs_, values = [], []
            for i, how in enumerate(hows):
                cell = next(
                    (c for c in c_cells if (c["producer"], c["how"]) == (producer, how)), {}
                )
                if cell.get("ns_per_call") is None:
                    continue
                xs_.append(i + (j - (len(producers) - 1) / 2) * width)
                values.append(cell["ns_per_call"])
                bar_at[producer, how] = xs_[-1]
            bars = ax2.bar(
                xs_,
                values,
                width=width * 0.92,
                label=f"{producer} array",
                color=LIBRARY_COLOURS.get(producer, "#999999"),
                log=True,
            )
            for bar, value in zip(bars, values, strict=True):
                ax2.text(
                    bar.get_x() + bar.get_width() / 2,
                    value * 1.15,
                    f"{value:.0f}",
                    ha="center",
                    va="bottom",
                    fontsize=7.5,
                )
        ax2.set_xticks(range(len(hows)), hows)
        ax2.set_yscale("log")
        ax2.set_ylim(3, max(c.get("ns_per_call") or 1 for c in c_cells) * 4)
        # The target is one bar's (a dlarray array's managed exchange): its
        # line spans that bar only, and the legend names it, so that no label
        # sits on the line or on another bar's value.
        limit = _c_target_limit(data, size)
        if limit is not None and ("dlarray", "managed") in bar_at:
            middle = bar_at["dlarray", "managed"]
            ax2.plot(
                [middle - width * 0.46, middle + width * 0.46],  # the bar's own width
                [limit, limit],
                color="#c0392b",
                linestyle="--",
                linewidth=1.5,
                label=f"target: managed <= {limit:g} ns",
            )
        ax2.set_ylabel("ns per exchange")
        ax2.set_title("Exchanges made from C (examples/c_extension, time_exchanges)", fontsize=10)
        ax2.legend(loc="upper left", fontsize=8)
        ax2.grid(axis="y", color="#dddddd", linewidth=0.8)
        ax2.set_axisbelow(True)
    else:
        ax2.set_axis_off()
        why = data.get("c_level", {}).get("missing") or "not measured"
        ax2.text(
            0.5,
            0.5,
            f"exchanges from C: n/a ({why})",
            ha="center",
            va="center",
            transform=ax2.transAxes,
            color="#666666",
        )
    return fig


#: The base page size by machine (as named in ``platform.platform()``, which
#: each result records): ``/proc/self/statm`` counts pages of this size, so
#: the RSS readings of a run there are whole multiples of it.
PAGE_BYTES = {"x86_64": 4096}


def _c_target_limit(data: dict[str, Any], size: str) -> float | None:
    """The limit in ns of the exchange target judged from C at ``size`` (the
    one target whose limit is a time, not a ratio), or None."""
    for target in data.get("targets", []):
        if target.get("limit_unit") == "ns" and target.get("size") == size:
            return float(target["limit"])
    return None


def _rss_resolution(data: dict[str, Any]) -> tuple[int, str]:
    """The step of a memory run's RSS readings in bytes (a growth below one
    step reads as 0), and what the step is: ("page" or "step").

    In order: the page size the run recorded (``method.page_bytes``); the
    machine's page size where the RSS came from ``/proc/self/statm``; else the greatest
    common divisor of the readings, which is a whole number of pages and may
    be more than one page (the readings of the 2026-11-28 run happen to be
    multiples of 8 KiB on a machine of 4 KiB pages), so it is called a step."""
    method = data.get("method") or {}
    if isinstance(method.get("page_bytes"), int):
        return method["page_bytes"], "page"
    rss = str(method.get("rss", ""))
    machine = next((m for m in PAGE_BYTES if m in str(data.get("platform", ""))), None)
    if rss.endswith("statm") and machine is not None:
        return PAGE_BYTES[machine], "page"
    step = 0
    for case in data.get("cases") or []:
        for key in ("rss_before_bytes", "rss_after_bytes"):
            value = case.get(key)
            if isinstance(value, int) and value > 0:
                step = math.gcd(step, value)
    return (step if 1024 <= step <= 65536 else 4096), "step"


def _wrap_label(text: str, width: int = 36) -> str:
    """``text`` on two lines when it is longer than ``width``: broken after
    an opening parenthesis or a space, where the longer line is shortest
    (a long case name would otherwise widen the whole figure's left margin)."""
    if len(text) <= width:
        return text
    breaks = [i + 1 for i, ch in enumerate(text[:-1]) if ch in "( "]
    if not breaks:
        return text
    at = min(breaks, key=lambda i: max(i, len(text) - i))
    return text[:at].rstrip() + "\n" + text[at:].lstrip()


def _fit_labels_right(fig: Any, ax: Any, labels: list[Any]) -> bool:
    """Widen a log-scale x axis until every one of ``labels`` (texts placed
    right of their bars) ends inside the axes, not across its right edge;
    return whether it had to."""
    renderer = fig.canvas.get_renderer()
    widened = False
    for _ in range(10):
        box = ax.get_window_extent(renderer)
        over = max(label.get_window_extent(renderer).x1 for label in labels) - box.x1
        if over <= -4:  # a few pixels of room
            return widened
        lo, hi = ax.get_xlim()
        per_pixel = math.log10(hi / lo) / box.width
        ax.set_xlim(lo, hi * 10 ** ((over + 8) * per_pixel * 1.5))
        widened = True
    return widened


def _place_clear_of(fig: Any, ax: Any, label: Any, end: float, marks: list[float]) -> None:
    """Put ``label`` (a text in data coordinates on a log x axis) just right
    of ``end``, its bar's end, and then right of each vertical mark of its
    row (x positions in ``marks``) that it would otherwise cover, with a few
    pixels' room on both sides."""
    renderer = fig.canvas.get_renderer()
    x = end * 1.04
    for _ in range(len(marks) + 1):
        label.set_x(x)
        box = label.get_window_extent(renderer)
        covered = [
            m for m in marks if box.x0 - 3 <= ax.transData.transform((m, 0))[0] <= box.x1 + 3
        ]
        if not covered:
            return
        x = max(covered) * 1.04


def plot_memory(result: Result) -> Any:
    """Per case: how much each exchange could have leaked at most, against
    the limit (both per exchange, log scale), and the time per exchange.

    The RSS is read in whole pages: a case whose RSS did not grow (the usual
    result) leaked less than one page over all its exchanges.  Plotting the
    growth itself against the 1 MB limit drew only empty bars; the bound per
    exchange, (growth + one page) / exchanges, shows how far below the limit
    each case stays, on the same scale as a leak that would fail.

    Layout: long case names go on two lines (one long name would otherwise
    push both panels right and leave the figure's left side empty), and each
    panel's x range is widened until its value labels end inside it."""
    data = result.data
    cases = (data or {}).get("cases") or []
    if not cases:
        return _no_data("Memory over many exchanges", "no memory.json result")
    limit = data.get("method", {}).get("limit_bytes", 1_000_000)
    page, unit = _rss_resolution(data)
    names = [_wrap_label(c["case"]) for c in cases]
    fig = new_figure(7, 0.42 * len(cases) + 1.9)
    left, right = fig.subplots(
        1, 2, sharey=True, gridspec_kw={"width_ratios": (1.2, 0.8), "wspace": 0.06}
    )
    bound = [(max(c["growth_bytes"], 0) + page) / c["exchanges"] for c in cases]
    fail_at = [limit / c["exchanges"] for c in cases]
    colours = ["#009e73" if c["passed"] else "#c0392b" for c in cases]
    left.barh(range(len(cases)), bound, color=colours, height=0.6)
    labels = []
    for i, c in enumerate(cases):
        left.plot([fail_at[i]] * 2, [i - 0.4, i + 0.4], color="#c0392b", linewidth=1.5)
        labels.append(
            left.text(
                bound[i] * 1.15,
                i,
                f"< {bound[i]:.2g} B, refs {c['refcount_delta']:+d}"
                + (f" (RSS {c['growth_bytes']:+,} B)" if c["growth_bytes"] else ""),
                va="center",
                fontsize=8,
            )
        )
    left.set_xscale("log")
    lo, hi = min(bound) / 3, max([*fail_at, *bound]) * 4
    left.set_xlim(lo, hi)
    left.text(
        fail_at[0],
        -0.75,
        f"limit ({limit / 1e6:g} MB in all)",
        ha="center",
        va="bottom",
        fontsize=7.5,
        color="#c0392b",
    )
    left.set_yticks(range(len(cases)), names, fontsize=8.5)
    left.set_ylim(len(cases) - 0.5, -1.1)
    counts = sorted({c["exchanges"] for c in cases})
    over = f"{counts[0]:,}" if len(counts) == 1 else "the"
    left.set_xlabel(
        f"leak per exchange, at most: (RSS growth + one {page / 1024:g} KiB {unit})\n"
        f"/ {over} exchanges (log scale)",
        fontsize=8.5,
    )
    left.set_title("What each exchange can have leaked", fontsize=9.5)
    ns = [c["seconds"] / c["exchanges"] * 1e9 for c in cases]
    right.barh(range(len(cases)), ns, color="#0072b2", height=0.6)
    values = [
        right.text(value * 1.08, i, f"{value:.0f} ns", va="center", fontsize=8)
        for i, value in enumerate(ns)
    ]
    right.set_xscale("log")
    right.set_xlim(min(ns) / 2, max(ns) * 3)
    right.set_xlabel("ns per exchange (log scale;\nincludes the Python loop)", fontsize=8.5)
    right.set_title("Time per exchange in that loop", fontsize=9.5)
    right.tick_params(axis="y", length=0)
    for axis in (left, right):
        axis.grid(axis="x", color="#dddddd", linewidth=0.8)
        axis.set_axisbelow(True)
        axis.xaxis.set_minor_formatter("")
    label = _label(result)
    if label:
        fig.subplots_adjust(top=0.88)
        # Centred over the two panels, not over the figure with the names.
        middle = (left.get_position().x0 + right.get_position().x1) / 2
        fig.suptitle(f"bench_memory.py, run of {label}", fontsize=10, x=middle, y=0.99)
    # The labels' extents depend on the final axes positions: fit them last.
    _fit_labels_right(fig, left, labels)
    _fit_labels_right(fig, right, values)
    for axis, unit in ((left, "B"), (right, "ns")):
        low, high = axis.get_xlim()
        ticks = [10.0**k for k in range(-6, 7) if low <= 10.0**k <= high]
        axis.set_xticks(ticks, [f"{t:g} {unit}" for t in ticks], fontsize=8)
    return fig


def plot_namespace(result: Result) -> Any:
    """dlarray's time over NumPy's, per namespace operation, with each row's
    target (and goal), from one run."""
    data = result.data
    rows = (data or {}).get("rows") or []
    if not rows:
        return _no_data("Namespace overhead", "no namespace.json result")
    assert data is not None
    labels = [f"{r['case']}   ({r['inputs']})" for r in rows]
    ratios = [r.get("ratio_dlarray_numpy") for r in rows]
    fig = new_figure(7.4, 0.36 * len(rows) + 1.7)  # the page width
    ax = fig.add_axes((0.3, 0.12, 0.66, 0.8))
    values: list[tuple[Any, float, list[float]]] = []  # (label, bar end, marks in its row)
    for i, (row, ratio) in enumerate(zip(rows, ratios, strict=True)):
        judged = row.get("judged", True)
        tick = "#c0392b" if judged else "#999999"
        ax.plot([row["target"]] * 2, [i - 0.4, i + 0.4], color=tick, linewidth=1.5)
        if row.get("goal") is not None:
            ax.plot([row["goal"]] * 2, [i - 0.4, i + 0.4], color="#0072b2", linewidth=1.5, ls=":")
        if ratio is None:
            ax.text(0.55, i, "not measured", va="center", fontsize=8)
            continue
        met = row.get("meets_target")
        colour = ("#009e73" if met else "#e69f00") if judged else "#bbbbbb"
        ax.barh(i, ratio, color=colour, height=0.62)
        marks = [1.0, row["target"], *([row["goal"]] if row.get("goal") is not None else [])]
        values.append((ax.text(ratio, i, f"{ratio:.2f}x", va="center", fontsize=8), ratio, marks))
    ax.axvline(1.0, color="#444444", linewidth=0.9)
    ax.set_xscale("log")
    finite = [r for r in ratios if r]
    # Room on the left for the fastest row's bar and its label (rows faster
    # than NumPy, such as the large reductions, reach below 0.5x).
    left = max(t for t in (0.1, 0.2, 0.25, 0.5) if t <= min([*finite, 0.75]) / 1.4)
    ax.set_xlim(left, max([*finite, 2.0]) * 1.6)
    # Each value right of its bar, moved past the marks of its row (the 1x
    # line, the target, the goal) that it would cover; widening the axis for
    # the labels moves them against the marks, so place and fit until both hold.
    for _ in range(5):
        for label, end, marks in values:
            _place_clear_of(fig, ax, label, end, marks)
        if not _fit_labels_right(fig, ax, [label for label, _, _ in values]):
            break
    right = ax.get_xlim()[1]
    ticks = [
        t
        for t in (0.1, 0.2, 0.25, 0.5, 0.75, 1, 1.5, 2, 3, 5, 10, 20, 50, 100)
        if left <= t <= right
    ]
    ax.set_xticks(ticks, [f"{t:g}x" for t in ticks], fontsize=8.5)
    ax.xaxis.set_minor_formatter("")
    ax.set_yticks(range(len(rows)), labels, fontsize=8.5)
    ax.invert_yaxis()
    ax.set_xlabel(
        "dlarray's time / NumPy's (median; log scale)\n"
        "red tick: the row's target (green bar: met, orange: missed);\n"
        "dotted blue: goal; grey: a reference limit, not a target",
        fontsize=8.5,
    )
    judged_rows = [r for r in rows if r.get("judged", True)]
    met_count = sum(1 for r in judged_rows if r.get("meets_target"))
    ax.set_title(
        f"{met_count} of {len(judged_rows)} targets met" + _run_stamp(data, ", run of "),
        fontsize=10,
    )
    ax.grid(axis="x", color="#dddddd", linewidth=0.8, which="both")
    ax.set_axisbelow(True)
    return fig


def _run_stamp(data: dict[str, Any], prefix: str) -> str:
    """``prefix`` + "commit abc1234, 2026-01-02 03:04 UTC", from what the
    result records (empty when it records neither)."""
    parts = []
    if data.get("commit"):
        parts.append(f"commit {data['commit']}")
    if data.get("date"):
        parts.append(str(data["date"]))
    return prefix + ", ".join(parts) if parts else ""


# ---------------------------------------------------------------- (e) conformance plot


#: Outcomes of the conformance suite as plotted: name, colour.
CONFORMANCE_OUTCOMES = (
    ("passed", "#009e73"),
    ("failed", "#c0392b"),
    ("skipped", "#999999"),
    ("xfailed", "#cc79a7"),
    ("xpassed", "#e69f00"),
)


def _suite_area(file_name: str) -> str:
    """``test_linalg.py`` -> ``linalg``."""
    return file_name.removeprefix("test_").removesuffix(".py").replace("_", " ")


def plot_conformance(result: Result) -> Any:
    """The suite's tests per test file (an area of the standard): a bar of
    the file's test count (log scale), green where every test that ran
    passed, red where one failed, labelled with the outcomes.  One bar of
    totals where the result has no per-file counts."""
    data = result.data
    if not data or "passed" not in data:
        return _no_data("Array API conformance", "no conformance.json result")
    by_file = data.get("by_file") or {
        "all tests": {k: data.get(k, 0) for k, _ in CONFORMANCE_OUTCOMES}
    }
    areas = list(by_file)
    fig = new_figure(7.4, 0.27 * len(areas) + 1.9)  # the page width
    ax = fig.add_axes((0.3, 0.15, 0.68, 0.72))
    totals = [sum(by_file[a].values()) for a in areas]
    bad = [bool(by_file[a].get("failed") or by_file[a].get("xpassed")) for a in areas]
    ax.barh(
        range(len(areas)),
        totals,
        color=["#c0392b" if b else "#009e73" for b in bad],
        height=0.66,
    )
    names = [k for k, _ in CONFORMANCE_OUTCOMES]
    for i, area in enumerate(areas):
        parts = [f"{by_file[area][k]:,} {k}" for k in names if by_file[area].get(k)]
        ax.text(totals[i] * 1.12, i, ", ".join(parts), va="center", fontsize=7.5)
    ax.set_xscale("log")
    ax.set_xlim(0.8, max(totals) * 12)
    ticks = [t for t in (1, 10, 100, 1000, 10000) if t <= max(totals) * 12]
    ax.set_xticks(ticks, [f"{t:,}" for t in ticks], fontsize=8)
    ax.xaxis.set_minor_formatter("")
    ax.set_yticks(range(len(areas)), [_suite_area(a) for a in areas], fontsize=8.5)
    ax.invert_yaxis()
    ax.set_xlabel(
        "tests in the suite's file for that area (log scale); "
        "green: all that ran passed, red: some failed",
        fontsize=8.5,
    )
    total = {k: int(data.get(k, 0)) for k in names}
    summary = ", ".join(f"{v:,} {k}" for k, v in total.items() if v or k in ("passed", "failed"))
    label = _label(result)
    ax.set_title(
        f"Array API {data.get('api_version', '?')} conformance of dlarray: {summary}\n"
        f"array-api-tests {str(data.get('suite_commit', ''))[:8]}, "
        f"{data.get('max_examples', '?')} examples per test"
        + (f", run of {label}" if label else ""),
        fontsize=9.5,
    )
    ax.grid(axis="x", color="#dddddd", linewidth=0.8)
    ax.set_axisbelow(True)
    return fig


# ---------------------------------------------------------------- Markdown fragments


def _cell(text: Any) -> str:
    return str(text).replace("|", "\\|").replace("\n", " ")


def md_table(header: Iterable[str], rows: Iterable[Iterable[Any]], align: str = "") -> str:
    """A Markdown table; ``align`` gives one of l/r/c per column."""
    header = list(header)
    marks = {"l": ":---", "r": "---:", "c": ":---:"}
    rule = [marks.get(a, "---") for a in (align or "l" * len(header))]
    lines = ["| " + " | ".join(_cell(h) for h in header) + " |", "| " + " | ".join(rule) + " |"]
    lines += ["| " + " | ".join(_cell(c) for c in row) + " |" for row in rows]
    return "\n".join(lines) + "\n"


def _ns(value: float | None) -> str:
    if value is None:
        return "n/a"
    return f"{value:,.0f}" if value >= 10 else f"{value:.1f}"


def _duration(ns: float | None) -> str:
    """A median time with its unit, three digits: ``302 ns``, ``1.5 µs``, ``2.79 ms``."""
    if ns is None:
        return "n/a"
    for unit, scale in (("ms", 1e6), ("µs", 1e3)):
        if ns >= scale:
            value = ns / scale
            text = f"{value:.3g}" if value < 100 else f"{value:.0f}"
            return f"{text}\u00a0{unit}"  # a no-break space: the unit stays on the line
    return f"{ns:.0f}\u00a0ns"


def _ratio(value: float) -> str:
    """Two decimals, or two significant digits below 0.1 (0.0036, not 0.00)."""
    return f"{value:.2f}" if value >= 0.1 else f"{value:.2g}"


def _versions(data: dict[str, Any]) -> str:
    versions = data.get("versions") or {}
    return ", ".join(f"{k} {v}" for k, v in versions.items() if v) or "versions not recorded"


def _machine(data: dict[str, Any]) -> str:
    machine = data.get("machine") or {}
    platform_ = data.get("platform") or machine.get("platform")
    cpus = data.get("cpu_count") or machine.get("cpu_count")
    parts = [p for p in (platform_, f"{cpus} CPUs" if cpus else None) if p]
    return "; ".join(parts)


def _run_kind(data: dict[str, Any]) -> str:
    method = data.get("method") or {}
    if "quick" not in method:
        return ""
    return "A quick run (`--quick`: rough numbers)" if method["quick"] else "A full run"


def source_line(result: Result, what: str) -> str:
    """One bullet: which file, local run or snapshot, when, versions, machine."""
    if result.data is None:
        return (
            f"- **{what}**: no result: neither `benchmarks/results/{result.name}.json` nor "
            f"`docs/_data/{result.name}.json` exists.\n"
        )
    commit = result.commit or str(result.data.get("commit") or "")
    of = f"commit **{commit}**" if commit else "a commit not recorded"
    if result.origin == "local":
        where = f"`{result.path}`, the latest local run (of {of}), written {result.date}"
    else:
        where = f"`{result.path}`, the committed snapshot of {of}, taken **{result.date}**"
        if result.note:
            where += f" ({result.note})"
    kind = _run_kind(result.data)
    details = [d for d in (_versions(result.data), _machine(result.data)) if d]
    text = f"- **{what}**: {where}. "
    if kind:
        text += f"{kind}; " if details else f"{kind}."
    return text + "; ".join(details) + (".\n" if details else "\n")


def benchmark_fragments(sources: dict[str, Result]) -> dict[str, str]:
    """The benchmark page's tables, one file each."""
    peers, memory = sources["peers"], sources["memory"]
    exchange, namespace = sources["exchange"], sources["namespace"]
    out = {
        "benchmarks_source.md": "".join(
            source_line(r, w)
            for r, w in (
                (peers, "Exchanges against the peers"),
                (memory, "Memory"),
                (exchange, "Exchanges against NumPy"),
                (namespace, "Namespace overhead"),
            )
        )
    }
    out["benchmarks_targets.md"] = _targets_table(peers, namespace)
    out["benchmarks_summary.md"] = _summary(peers, memory, namespace)
    for size in ("1", "1M"):
        out[f"benchmarks_peers_{size}.md"] = _peers_table(peers, size)
    out["benchmarks_peers_c.md"] = _c_table(peers)
    out["benchmarks_memory.md"] = _memory_table(memory)
    out["benchmarks_exchange.md"] = _exchange_table(exchange)
    out["benchmarks_namespace.md"] = _namespace_table(namespace)
    return out


#: The summary's exchanges: the row of bench_peers.py's table, and its name.
SUMMARY_EXCHANGES = (
    ("X.from_dlpack(torch)", "import a torch tensor"),
    ("X.from_dlpack(numpy)", "import a NumPy array"),
    ("x.__dlpack__()", "export a capsule"),
    ("x.__dlpack__(max_version=(1, 3))", "export a versioned capsule"),
)
#: How the summary names the peers (bench_peers.py's library names).
PEER_NAMES = {"numpy": "NumPy", "torch": "torch", "tvm_ffi": "tvm-ffi", "jax": "JAX"}


def _elements(inputs: str) -> int:
    """The element count of a namespace row's inputs: "4x4 float64" -> 16."""
    return math.prod(int(n) for n in inputs.split()[0].split("x"))


def _span(values: list[float], unit: str = "x", digits: int = 2) -> str:
    """ "0.55x to 1.02x", or one value when all are equal as printed."""
    low, high = f"{min(values):.{digits}f}", f"{max(values):.{digits}f}"
    return f"{low}{unit}" if low == high else f"{low}{unit} to {high}{unit}"


def _summary(peers: Result, memory: Result, namespace: Result) -> str:
    """The answer first: what dlarray's exchanges cost and how they compare
    with each peer's, the namespace's cost over NumPy's on small and large
    arrays, the memory verdict and the targets' verdict, all from the same
    runs as the rest of the page."""
    lines = []
    data = peers.data or {}
    if data.get("cells"):
        ns = {
            operation: _peer_cell(data, operation, "dlarray", "1").get("ns_per_call")
            for operation, _ in SUMMARY_EXCHANGES
        }
        c_cell = next(
            (
                c
                for c in data.get("c_level", {}).get("cells", [])
                if (c["producer"], c["how"], c["size"]) == ("dlarray", "managed", "1")
            ),
            {},
        )
        said = ", ".join(
            f"{name} in **{_duration(ns[operation])}**" for operation, name in SUMMARY_EXCHANGES[:3]
        )
        text = (
            f"- **Exchanges.** dlarray's own calls: {said} "
            "(float32, the same at 1 and 1M elements: nothing is copied)"
        )
        if c_cell.get("ns_per_call") is not None:
            text += (
                f"; from C, through dlarray's exchange table, "
                f"**{_duration(c_cell['ns_per_call'])}**"
            )
        lines.append(
            text + ". Against each library making the same exchange, dlarray's time divided "
            "by that library's (below 1: dlarray is faster):"
        )
    namespace_rows = (namespace.data or {}).get("rows") or []
    measured = [r for r in namespace_rows if r.get("ratio_dlarray_numpy") is not None]
    large = [r for r in measured if _elements(r["inputs"]) >= 1_000_000]
    small = [r for r in measured if _elements(r["inputs"]) < 1_000]
    if large and small:
        targets = [r for r in small if r.get("judged", True)]
        others = [r for r in small if not r.get("judged", True)]
        extra = [
            r["libraries"]["dlarray"]["median_ns"] - r["libraries"]["numpy"]["median_ns"]
            for r in targets
        ]
        text = (
            "- **Namespace.** On arrays of a million "
            f"elements and more, dlarray takes {_span([r['ratio_dlarray_numpy'] for r in large])}"
            f" NumPy's time. On {' and '.join(sorted({r['inputs'] for r in small}))} arrays, "
            "where a call is nearly all overhead, "
            f"the {len(targets)} operations with a target take "
            f"{_span([r['ratio_dlarray_numpy'] for r in targets])} "
            f"({_span(extra, '', 0)} ns more per call)"
        )
        if others:
            text += (
                f", the {len(others)} with a reference limit "
                f"{_span([r['ratio_dlarray_numpy'] for r in others])}"
            )
        lines.append(text + "; [the namespace table](#namespace-overhead-against-numpy) has each.")
    cases = (memory.data or {}).get("cases") or []
    if cases:
        counts = sorted({c["exchanges"] for c in cases})
        growth = max(c["growth_bytes"] for c in cases)
        refs = [c["refcount_delta"] for c in cases]
        passed = (memory.data or {}).get("all_passed")
        lines.append(
            f"- **{'No leak' if passed else 'A leak'}.** {len(cases)} kinds of exchange, "
            f"{'/'.join(f'{n:,}' for n in counts)} times each: RSS growth {growth:,} bytes "
            "at most, "
            + (
                "reference counts back in every case."
                if not any(refs)
                else f"a reference left behind in {sum(map(bool, refs))} of them."
            )
        )
    verdict = _targets_table(peers, namespace).split("\n\n", 1)[0]  # its verdict line
    lines.append(f"- **Targets.** {verdict.replace('**', '')} [The verdict](#targets) has each.")
    text = "\n".join(lines[:1]) + "\n"
    if data.get("cells"):
        text += "\n" + _summary_ratios(data) + "\n"
    text += "\n".join(lines[1:]) + "\n"
    runs = [
        f"{what} {_label(result)}"
        for what, result in (("exchanges", peers), ("namespace", namespace), ("memory", memory))
        if result.data is not None and _label(result)
    ]
    if runs:
        text += (
            f"\nRuns: {'; '.join(runs)}; on {_machine(data) or 'a machine not recorded'}. "
            "[Where the numbers come from](#where-the-numbers-come-from) has the versions.\n"
        )
    return text


def _summary_ratios(data: dict[str, Any]) -> str:
    """dlarray's time over each peer's for the summary's exchanges (float32[1])."""
    libraries = [name for name in _libraries(data) if name != "dlarray"]
    rows = []
    for operation, name in SUMMARY_EXCHANGES:
        dl = _peer_cell(data, operation, "dlarray", "1").get("ns_per_call")
        row = [name, _duration(dl)]
        for library in libraries:
            theirs = _peer_cell(data, operation, library, "1").get("ns_per_call")
            row.append("n/a" if dl is None or theirs is None else f"{_ratio(dl / theirs)}x")
        rows.append(row)
    header = ("float32[1]", "dlarray", *(PEER_NAMES.get(n, n) for n in libraries))
    return md_table(header, rows, "lr" + "r" * len(libraries))


def _missing(result: Result) -> str:
    return f"*No `{result.name}.json` result: run `nox -s bench` to make one.*\n"


#: The exchange targets as the page numbers them, by how their wording starts.
EXCHANGE_TARGETS = (
    (
        "dlarray.from_dlpack(torch",
        "`dlarray.from_dlpack(t)` / `tvm_ffi.from_dlpack(t)`, t a torch tensor",
    ),
    (
        "dlarray.from_dlpack(numpy",
        "`dlarray.from_dlpack(a)` / `numpy.from_dlpack(a)`, a a NumPy array",
    ),
    ("dlarray_array.__dlpack__", "`x.__dlpack__()` / `a.__dlpack__()`, x dlarray's, a NumPy's"),
    ("an exchange through the table", "one exchange from C through dlarray's exchange table"),
)


def _ratio_to_limit(ratio: float, limit: float) -> str:
    """Two decimals, or three where two would print the limit itself (0.803x
    against 0.8x, not 0.80x)."""
    text = f"{ratio:.2f}"
    return f"{ratio:.3f}" if text == f"{limit:.2f}" else text


def _exchange_target(text: str) -> tuple[int, str]:
    """The number and a short name of an exchange target, from its wording."""
    for number, (start, name) in enumerate(EXCHANGE_TARGETS, 1):
        if text.startswith(start):
            return number, name
    return len(EXCHANGE_TARGETS) + 1, text


def _cases_by_inputs(rows: list[dict[str, Any]]) -> str:
    """ "`x + y`, `exp(x)` (1M float32); `matmul(x, y)` (1000x1000 float32)"."""
    by_inputs: dict[str, list[str]] = {}
    for r in rows:
        by_inputs.setdefault(r["inputs"].replace("1000000 ", "1M "), []).append(f"`{r['case']}`")
    return "; ".join(f"{', '.join(cases)} ({inputs})" for inputs, cases in by_inputs.items())


def _targets_table(peers: Result, namespace: Result) -> str:
    """Every target of the page with its verdict: the four exchange targets
    (at both sizes, from the peers run) and the namespace rows' targets
    (grouped as the page's table of them, from the namespace run), under one
    summary line that counts them all."""
    counts = []  # (what, met, total, source label)
    missed: list[str] = []
    text = ""
    data = peers.data
    if not data or "targets" not in data:
        exchange = _missing(peers)
        counts.append(("exchange", 0, 0, ""))
        missed.append("the exchange targets (no peers result)")
    else:
        by_target: dict[int, dict[str, Any]] = {}
        for t in data["targets"]:
            number, name = _exchange_target(t["target"])
            entry = by_target.setdefault(number, {"name": name, "limit": "", "sizes": {}})
            if t["limit_unit"] == "ns":
                entry["limit"] = f"<= {t['limit']:g} ns"
                measured = f"{_ns(t['subject_ns'])} ns" if t["ratio"] is not None else "n/a"
            else:
                entry["limit"] = f"<= {t['limit']:g}x"
                measured = (
                    "n/a"
                    if t["ratio"] is None
                    else f"{_ns(t['subject_ns'])} / {_ns(t['baseline_ns'])} ns = "
                    f"**{_ratio_to_limit(t['ratio'], t['limit'])}x**"
                )
            entry["sizes"][t["size"]] = (measured, t["met"])
            if not t["met"]:
                missed.append(
                    f"exchange target {number} at float32[{t['size']}]"
                    + (
                        f" ({_ratio_to_limit(t['ratio'], t['limit'])}x)"
                        if t["ratio"] is not None
                        else " (not measured)"
                    )
                )
        sizes = list(dict.fromkeys(t["size"] for t in data["targets"]))
        rows = []
        for number, entry in sorted(by_target.items()):
            cells = [entry["sizes"].get(size, ("n/a", False)) for size in sizes]
            failed = [size for size, (_, met) in zip(sizes, cells, strict=True) if not met]
            if not failed:
                verdict = "**met**"
            elif len(failed) == len(sizes):
                verdict = "**not met**"
            else:
                verdict = "**not met** at " + ", ".join(f"[{size}]" for size in failed)
            rows.append((number, entry["name"], *(c for c, _ in cells), entry["limit"], verdict))
        met = sum(1 for t in data["targets"] if t["met"])
        counts.append(("exchange", met, len(data["targets"]), _label(peers)))
        exchange = md_table(
            ("#", "exchange target", *(f"float32[{size}]" for size in sizes), "limit", "verdict"),
            rows,
            "ll" + "r" * len(sizes) + "rl",
        )
    rows_ns = [r for r in ((namespace.data or {}).get("rows") or []) if r.get("judged", True)]
    if not rows_ns:
        table_ns = _missing(namespace)
        counts.append(("namespace", 0, 0, ""))
        missed.append("the namespace targets (no namespace result)")
    else:
        groups: dict[str, list[dict[str, Any]]] = {}
        for r in rows_ns:
            groups.setdefault(_namespace_limit(r), []).append(r)
        rows = []
        for limit, members in groups.items():
            ops = _cases_by_inputs(members)
            ratios = [r.get("ratio_dlarray_numpy") for r in members]
            worst = max((x for x in ratios if x is not None), default=None)
            met = sum(1 for r in members if r.get("meets_target"))
            verdict = "**met**" if met == len(members) else f"**not met** ({met} of {len(members)})"
            rows.append((ops, "n/a" if worst is None else f"{worst:.2f}x", limit, verdict))
            missed += [
                f"namespace `{r['case']}` on {r['inputs']}"
                for r in members
                if not r.get("meets_target")
            ]
        met = sum(1 for r in rows_ns if r.get("meets_target"))
        counts.append(("namespace", met, len(rows_ns), _label(namespace)))
        table_ns = md_table(
            ("namespace target: dlarray / NumPy for", "slowest", "limit", "verdict"), rows, "lrrl"
        )
    met_all = sum(c[1] for c in counts)
    total_all = sum(c[2] for c in counts)
    verdict = "yes" if not missed and total_all else "no"
    # The runs' commits and dates are on the page's provenance list (the
    # benchmarks_source.md fragment), further down: the verdict stays short.
    text += (
        f"**All targets met: {verdict}** ({met_all} of {total_all}: "
        + "; ".join(f"{what} {met} of {total}" for what, met, total, _ in counts)
        + ")."
    )
    text += f" Not met: {'; '.join(missed)}.\n\n" if missed else "\n\n"
    text += exchange + "\n" + table_ns
    return text


def _peers_table(result: Result, size: str) -> str:
    data = result.data
    if not data or not data.get("cells"):
        return _missing(result)
    libraries = _libraries(data)
    rows = []
    for operation in _operations(data):
        dl = _peer_cell(data, operation, "dlarray", size).get("ns_per_call")
        row = [f"`{operation}`"]
        for library in libraries:
            cell = _peer_cell(data, operation, library, size)
            ns = cell.get("ns_per_call")
            text = "n/a" if ns is None else _ns(ns)
            if ns is not None and library != "dlarray" and dl is not None:
                text += f" ({_ratio(dl / ns)})"
            if cell.get("exchange") == "copy":
                text += " copy"
            if cell.get("capsule") == "dltensor" and "max_version" in operation:
                text += " legacy"
            row.append(text)
        rows.append(row)
    return md_table(("operation", *libraries), rows, "l" + "r" * len(libraries))


def _c_table(result: Result) -> str:
    data = result.data
    c_level = (data or {}).get("c_level") or {}
    cells = c_level.get("cells") or []
    if not cells:
        why = c_level.get("missing") or "not measured"
        return f"*Exchanges from C: n/a ({why}).*\n"
    hows = list(dict.fromkeys(c["how"] for c in cells))
    keys = list(dict.fromkeys((c["producer"], c["size"]) for c in cells))
    rows = []
    for producer, size in keys:
        row = [producer, size]
        for how in hows:
            cell = next(
                c for c in cells if (c["producer"], c["size"], c["how"]) == (producer, size, how)
            )
            row.append(
                _ns(cell.get("ns_per_call")) if cell.get("ns_per_call") is not None else "n/a"
            )
        rows.append(row)
    return md_table(("array", "size", *hows), rows, "ll" + "r" * len(hows))


def _memory_table(result: Result) -> str:
    data = result.data
    if not data or not data.get("cases"):
        return _missing(result)
    cases = data["cases"]
    counts = {c["exchanges"] for c in cases}
    same = len(counts) == 1  # then one sentence says it, not a column
    rows = [
        (
            f"`{c['case']}`",
            *(() if same else (f"{c['exchanges']:,}",)),
            f"{c['growth_bytes']:,}",
            f"{c['refcount_delta']:+d}",
            _ns(c["seconds"] / c["exchanges"] * 1e9),
            "yes" if c["passed"] else "**no**",
        )
        for c in cases
    ]
    header = (
        "case",
        *(() if same else ("exchanges",)),
        "RSS growth, B",
        "refs",
        "ns each",
        "passed",
    )
    text = md_table(header, rows, "l" + ("" if same else "r") + "rrrl")
    limit = data.get("method", {}).get("limit_bytes", 1_000_000)
    if same:
        text += f"\n{counts.pop():,} exchanges per case. "
    else:
        text += "\n"
    text += (
        f"A case passes with an RSS growth below {limit:,} bytes and no reference left "
        "behind (*refs*: the source array's reference count after the exchanges minus before). "
    )
    text += f"All passed: **{'yes' if data.get('all_passed') else 'no'}**.\n"
    notes = data.get("notes") or []
    text += "".join(f"\n- {note}" for note in notes) + ("\n" if notes else "")
    return text


def _exchange_table(result: Result) -> str:
    """One row per exchange, one column per size (the sides' ns and their
    ratio): narrow enough for the page."""
    data = result.data
    if not data or not data.get("rows"):
        return _missing(result)
    sizes = list(dict.fromkeys(r["size"] for r in data["rows"]))
    exchanges: dict[tuple[str, str, str], dict[str, str]] = {}
    for r in data["rows"]:
        key = (r["exchange"], r["dlarray_side"]["call"], r["numpy_side"]["call"])
        exchanges.setdefault(key, {})[r["size"]] = (
            f"{_ns(r['dlarray_side']['ns_per_call'])} / {_ns(r['numpy_side']['ns_per_call'])} ns"
            f" = **{r['ratio']:.2f}x**"
        )
    rows = [
        (exchange, f"`{dl}` / `{np_}`", *(cells.get(size, "n/a") for size in sizes))
        for (exchange, dl, np_), cells in exchanges.items()
    ]
    return md_table(
        ("exchange", "dlarray side / peer side", *(f"float32[{size}]" for size in sizes)),
        rows,
        "ll" + "r" * len(sizes),
    )


def instructions_table(budgets: Any) -> str:
    """The benchmark gate's file, benchmarks/instruction_budgets.json: per
    row, the instructions per call of dlarray's side and the peer's when the
    budget was set, their ratio, and the budget CI holds dlarray's side to."""
    if not isinstance(budgets, dict) or not budgets.get("rows"):
        return (
            "*No `benchmarks/instruction_budgets.json`: run `nox -s instructions -- --record`.*\n"
        )
    rows = [
        (
            name,
            f"{r['dlarray']:,}",
            f"{r['peer_instructions']:,} ({r['peer']})",
            f"**{r['dlarray'] / r['peer_instructions']:.2f}x**",
            f"{r['budget']:,}",
            r["date"],
        )
        for name, r in budgets["rows"].items()
    ]
    versions = budgets.get("versions", {})
    measured = ", ".join(f"{k} {v}" for k, v in versions.items() if v)
    return (
        md_table(("row", "dlarray", "peer", "ratio", "budget", "measured"), rows, "lrrrrl")
        + f"\nMeasured with {measured}.\n"
    )


def _namespace_limit(row: dict[str, Any]) -> str:
    """``<= 1.6x (goal 1.3x)``, or ``<= 2x (reference)`` for a row that is not a target."""
    text = f"<= {row['target']:g}x"
    if row.get("goal") is not None:
        text += f" (goal {row['goal']:g}x)"
    return text if row.get("judged", True) else text + " (reference)"


def _namespace_verdict(row: dict[str, Any]) -> str:
    met = row.get("meets_target")
    if met is None:
        return "not measured" if row.get("judged", True) else "n/a"
    if not row.get("judged", True):
        return "within" if met else "over"
    return ("**met**" + (", goal too" if row.get("meets_goal") else "")) if met else "**not met**"


def _namespace_table(result: Result) -> str:
    data = result.data
    if not data or not data.get("rows"):
        return _missing(result)
    libraries = list(dict.fromkeys(k for r in data["rows"] for k in r.get("libraries", {})))
    rows = []
    for r in data["rows"]:
        # (The inputs say the group: "small" rows are 4x4, "large" ones 1M.)
        row = [r["inputs"].replace("1000000 ", "1M "), f"`{r['case']}`"]
        for library in libraries:
            entry = r["libraries"].get(library) or {}
            row.append(_duration(entry.get("median_ns")) if entry.get("median_ns") else "n/a")
        ratio = r.get("ratio_dlarray_numpy")
        row.append("n/a" if ratio is None else f"{ratio:.2f}x")
        row.append(_namespace_limit(r))
        row.append(_namespace_verdict(r))
        rows.append(row)
    names = {"numpy": "NumPy", "dlarray": "dlarray", "strict": "strict"}
    header = (
        "inputs",
        "operation",
        *(names.get(n, n) for n in libraries),
        "ratio",
        "target",
        "verdict",
    )
    text = ""
    stamp = _run_stamp(data, "")
    if stamp:
        text += f"From one run of `bench_namespace.py`: {stamp}.\n"
    text += "Median times per call; *ratio*: dlarray's over NumPy's.\n\n"
    text += md_table(header, rows, "ll" + "r" * len(libraries) + "rll")
    judged = [r for r in data["rows"] if r.get("judged", True)]
    missed = [f"`{r['case']}` on {r['inputs']}" for r in judged if not r.get("meets_target")]
    text += f"\nTargets met in this run: **{len(judged) - len(missed)} of {len(judged)}**"
    text += f"; not met: {', '.join(missed)}.\n" if missed else ".\n"
    goals = [r for r in judged if r.get("goal") is not None]
    if goals:
        reached = sum(1 for r in goals if r.get("meets_goal"))
        text += f"Goals reached: {reached} of {len(goals)}.\n"
    if len(judged) < len(data["rows"]):
        text += (
            "\nA limit marked *reference* is not a target: it is shown for comparison "
            "and not counted.\n"
        )
    return text


def _verified(data: dict[str, Any]) -> str:
    """How run.py checked the suite's commits, in words."""
    how = data.get("verified_by")
    if data.get("commits_verified"):
        if how == "content":
            return (
                "yes, by content (the checkout was not a git clone; its files hash as the commits')"
            )
        return "yes, with git (the checkout was a git clone at those commits)"
    if "verified_by" not in data:  # a run.py that could check git clones only
        return "no (the checkout was not a git clone)"
    return "no (the checkout was not a git clone, and its files did not match the commits')"


def conformance_fragments(result: Result) -> dict[str, str]:
    """The conformance page's source line, counts and failures."""
    out = {"conformance_source.md": source_line(result, "Conformance")}
    data = result.data
    if not data or "passed" not in data:
        out["conformance_table.md"] = (
            "*No conformance result: run the suite with "
            "`--output $PWD/benchmarks/results/conformance.json`.*\n"
        )
        out["conformance_run.md"] = ""
        out["conformance_failed.md"] = ""
        return out
    counts = [
        (k, data.get(k, 0))
        for k in (
            "passed",
            "failed",
            "skipped",
            "xfailed",
            "xpassed",
            "errors",
            "collection_errors",
            "total",
        )
    ]
    out["conformance_table.md"] = md_table(
        ("outcome", "tests"), [(k, f"{v:,}") for k, v in counts], "lr"
    )
    run = [
        ("suite", f"data-apis/array-api-tests `{data.get('suite_commit', '?')}`"),
        ("spec submodule", f"data-apis/array-api `{data.get('spec_commit', '?')}`"),
        ("commits verified by run.py", _verified(data)),
        ("run of", _label(result) or "a commit and date not recorded"),
        ("standard version", data.get("api_version", "?")),
        ("module", data.get("module", "?")),
        ("hypothesis examples per test", data.get("max_examples", "?")),
        ("pytest-xdist workers", data.get("workers", "?")),
        ("duration", f"{data.get('duration_s', '?')} s"),
        ("extra pytest arguments", " ".join(data.get("pytest_args") or []) or "none"),
        ("versions", _versions(data)),
    ]
    out["conformance_run.md"] = md_table(("setting", "value"), run, "ll")
    failed = data.get("failed_tests") or []
    out["conformance_failed.md"] = (
        "No test failed.\n" if not failed else "".join(f"- `{t}`\n" for t in failed)
    )
    return out


# ---------------------------------------------------------------- the probe

PROBE = "probe.json"


def probe_fragments(srcdir: Path) -> dict[str, str]:
    """``interop.md``'s probe tables, from ``docs/_data/probe.json``."""
    path = srcdir / "_data" / PROBE
    if not path.exists():
        empty = "*No probe run committed: `docs/_data/probe.json` is missing.*\n"
        names = ("source", "summary", "deviations", "not_supported", "cases")
        return {f"probe_{name}.md": empty for name in names}
    data = _read_json(path)
    about = _read_json(srcdir / "_data" / SNAPSHOT_MANIFEST).get("probe", {})
    libraries = data["libraries"]
    versions = ", ".join(f"{name} {lib.get('version', '?')}" for name, lib in libraries.items())
    source = (
        f"- **Probe run**: `docs/_data/probe.json`, taken {about.get('date', '(not recorded)')}"
        f" at commit {about.get('commit', '?')}: {versions}; {data['python']} on "
        f"{data['platform']}; {data['duration_s']} s. {about.get('note', '')}\n"
    )
    # "needs package" (a case the run could not judge without ml_dtypes) gets
    # a column only when some case has it: the pinned run has ml_dtypes.
    verdicts = [
        v
        for v in _VERDICTS
        if v != "needs package" or any(lib["summary"].get(v) for lib in libraries.values())
    ]
    summary = md_table(
        ("library", "version", *verdicts),
        [
            (
                name,
                lib.get("version") or f"does not import ({lib.get('import_error', '?')})",
                *(lib["summary"].get(v, 0) for v in verdicts),
            )
            for name, lib in libraries.items()
        ],
        "ll" + "r" * len(verdicts),
    )
    deviations = _probe_rows(libraries, "deviation")
    not_supported = _probe_rows(libraries, "not supported")
    cases = md_table(
        ("case", "side", "what it feeds or asks", "what the specification says"),
        [(f"`{c['name']}`", c["role"], c["what"], c["spec"]) for c in data["cases"]],
    )
    return {
        "probe_source.md": source,
        "probe_summary.md": summary,
        "probe_deviations.md": md_table(
            ("library", "cases", "what it does", "the specification", "upstream"), deviations
        ),
        "probe_not_supported.md": md_table(
            ("library", "cases", "what it does"), [row[:3] for row in not_supported]
        ),
        "probe_cases.md": cases,
    }


_VERDICTS = ("ok", "deviation", "not supported", "needs package")


def _probe_rows(libraries: dict[str, Any], verdict: str) -> list[tuple[str, ...]]:
    """One row per library and finding; cases that say the same are one row."""
    rows: list[list[Any]] = []
    for name, lib in libraries.items():
        for r in lib.get("results", []):
            if r["verdict"] != verdict:
                continue
            key = (r["observed"], r["spec"], r["link"])
            if rows and rows[-1][0] == name and rows[-1][-1] == key:
                rows[-1][1].append(r["case"])
            else:
                rows.append([name, [r["case"]], r, key])
    out = []
    for name, cases, r, _ in rows:
        shown = _upstream_link(r["link"]) if r["link"] else ""
        names = ", ".join(f"`{c}`" for c in cases)
        out.append(
            (f"{name} {lib_version(libraries, name)}", names, r["observed"], r["spec"], shown)
        )
    return out


#: A GitHub issue or pull request: owner, repository, kind, number.
GITHUB_THREAD = re.compile(r"https://github\.com/([^/]+)/([^/]+)/(issues|pull)/(\d+)/?")


def _upstream_link(url: str) -> str:
    """A link to an upstream thread, short enough for a table column at
    1366 px: a GitHub issue or pull request as "numpy#30937" (repository and
    number; the link's title says the owner and the kind), any other address
    as it is."""
    thread = GITHUB_THREAD.fullmatch(url)
    if thread is None:
        return f"<{url}>"
    owner, repository, kind, number = thread.groups()
    what = "pull request" if kind == "pull" else "issue"
    return f'[{repository}#{number}]({url} "{owner}/{repository} {what} {number}")'


def lib_version(libraries: dict[str, Any], name: str) -> str:
    return str(libraries[name].get("version", ""))


# ---- threads: exchanges per second, free-threaded against the GIL ----


def plot_threads(data: dict[str, Any]) -> Any:
    """Exchanges per second on 1, 2, ... threads, one group of bars per
    interpreter (``docs/_data/threads.json``, from bench_threads.py)."""
    runs = data.get("runs") or {}
    if not runs:
        return _no_data("Threads", "no threads.json result")
    counts = sorted({row["threads"] for run in runs.values() for row in run["rows"]})
    fig = new_figure(7.4, 2.9)
    ax = fig.add_axes((0.1, 0.18, 0.62, 0.68))
    width = 0.8 / len(runs)
    colours = ("#0072b2", "#e69f00", "#999999")
    for k, (name, run) in enumerate(runs.items()):
        rates = {row["threads"]: row["exchanges_per_second"] / 1e6 for row in run["rows"]}
        xs = [i + (k - (len(runs) - 1) / 2) * width for i, _ in enumerate(counts)]
        heights = [rates.get(n, 0.0) for n in counts]
        ax.bar(xs, heights, width=width * 0.92, color=colours[k % len(colours)], label=name)
        for x, h in zip(xs, heights, strict=True):
            if h:
                ax.text(x, h * 1.02, f"{h / rates[counts[0]]:.2f}x", ha="center", fontsize=7.5)
    # Headroom for the labels above the bars: the tallest one's stays below the frame.
    tallest = max(row["exchanges_per_second"] for run in runs.values() for row in run["rows"])
    ax.set_ylim(0, tallest / 1e6 * 1.15)
    ax.set_xticks(range(len(counts)), [f"{n} thread{'s' if n > 1 else ''}" for n in counts])
    ax.set_ylabel("million exchanges / s", fontsize=8.5)
    ax.set_title("Exchanges per second, all threads together (above each bar: the speed-up "
                 "over one thread)", fontsize=9)  # fmt: skip
    ax.legend(loc="upper left", bbox_to_anchor=(1.02, 1.0), fontsize=8, frameon=False)
    ax.grid(axis="y", color="#dddddd", linewidth=0.8)
    ax.set_axisbelow(True)
    return fig


def threads_table(data: dict[str, Any]) -> str:
    """The numbers behind ``threads.svg``, and where they come from."""
    runs = data.get("runs") or {}
    if not runs:
        return "*No threads run committed: `docs/_data/threads.json` is missing.*\n"
    rows = [
        (name, row["threads"], f"{row['exchanges_per_second']:,.0f}", f"{row['speedup']:.2f}x")
        for name, run in runs.items()
        for row in run["rows"]
    ]
    table = md_table(("interpreter", "threads", "exchanges / s", "speed-up"), rows, "lrrr")
    return table + f"\n{data.get('note', '')}\n"


if __name__ == "__main__":  # python docs/_ext/dlarray_docs_figures.py: generate, no Sphinx
    here = Path(__file__).resolve().parent.parent
    t0 = time.perf_counter()
    changed, overlaps = build_all(here, here.parent)
    print(f"{changed} file(s) updated in {here / '_generated'} ({time.perf_counter() - t0:.1f} s)")
    for overlap in overlaps:
        print(f"labels overlap in {overlap}")
