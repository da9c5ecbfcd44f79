"""The diagrams of the tutorial and the design page, drawn at build time.

A local Sphinx extension beside ``dlarray_docs_figures`` (whose drawing
helpers it uses).  On ``builder-inited`` it writes into ``docs/_generated/``:

- ``one_exchange.svg``: the opening chapter's picture, one exchange from
  producer to deleter;
- ``ownership_chain.svg``: chapter 2's chain of references from a view down
  to the memory;
- ``export_lifetime.svg``, ``import_lifetime.svg``: chapter 2's lifetimes of
  an exported and an imported tensor;
- ``layers.svg``: the design page's layers of dlarray.

These figures are drawn at the width the page shows them (7.4 inches is
furo's content column), so that their text appears at its own size: 10 to
11 points, never scaled down.
"""

from __future__ import annotations

import itertools
from pathlib import Path
from typing import Any

from dlarray_docs_figures import (
    EDGE,
    FILL,
    RC,
    _canvas,
    arrow,
    box,
    overlapping_labels,
    svg,
    write_if_changed,
)

# The content column of the theme, in inches at 96 px per inch: a figure this
# wide is shown at 1:1, so a 10 pt label is 13 px on screen.
PAGE_WIDTH = 7.4
TEXT = 10.5
SMALL = 9.5


def setup(app: Any) -> dict[str, Any]:
    app.connect("builder-inited", generate)
    return {"version": "1.0", "parallel_read_safe": True, "parallel_write_safe": True}


def generate(app: Any) -> None:
    """Draw every diagram into ``<srcdir>/_generated``; warn (an error under
    ``-W``) for each pair of labels that overlap."""
    import matplotlib
    from sphinx.util import logging

    log = logging.getLogger(__name__)
    out = Path(app.srcdir) / "_generated"
    out.mkdir(exist_ok=True)
    with matplotlib.rc_context(RC):
        figures = {
            "one_exchange.svg": draw_one_exchange(),
            "ownership_chain.svg": draw_ownership_chain(),
            "export_lifetime.svg": draw_export_lifetime(),
            "import_lifetime.svg": draw_import_lifetime(),
            "layers.svg": draw_layers(),
        }
        for name, fig in figures.items():
            for pair in overlapping_labels(fig):
                log.warning(f"dlarray_diagrams: labels overlap in {name}: {pair}")
            write_if_changed(out / name, svg(fig))


def _label(ax: Any, x: float, y: float, text: str, **kwargs: Any) -> None:
    options = {"ha": "left", "va": "center", "fontsize": TEXT, "linespacing": 1.3, "zorder": 6}
    options.update(kwargs)
    ax.text(x, y, text, **options)


def _step(ax: Any, x: float, y: float, number: int) -> None:
    ax.text(
        x,
        y,
        str(number),
        ha="center",
        va="center",
        fontsize=TEXT,
        color="white",
        fontweight="bold",
        zorder=7,
        bbox={"boxstyle": "circle,pad=0.3", "facecolor": "#444444", "edgecolor": "none"},
    )


def _memory(ax: Any, x: float, y: float, values: list[str], cell: float = 4.2) -> None:
    """A strip of memory cells, the elements of the exchanged array."""
    from matplotlib.patches import Rectangle

    for i, value in enumerate(values):
        ax.add_patch(
            Rectangle(
                (x + i * cell, y),
                cell,
                4,
                facecolor=FILL["storage"],
                edgecolor=EDGE["storage"],
                linewidth=1.2,
                zorder=3,
            )
        )
        _label(ax, x + (i + 0.5) * cell, y + 2, value, ha="center", fontsize=SMALL)


def _path(ax: Any, points: list[tuple[float, float]], colour: str) -> None:
    """A right-angled arrow through ``points``: lines, then a head on the last leg."""
    xs, ys = zip(*points[:-1], strict=True)
    ax.plot(xs, ys, color=colour, linewidth=1.4, zorder=4, solid_capstyle="butt")
    arrow(ax, points[-2], points[-1], colour=colour)


def draw_one_exchange() -> Any:
    """Producer -> capsule -> consumer -> deleter, on one block of memory."""
    fig, ax = _canvas(PAGE_WIDTH, 10.0, 74, 100)
    memory_colour = EDGE["storage"]

    # The memory, top right, that everything points at.
    _label(ax, 52.5, 96, "the memory", fontweight="bold", color=memory_colour)
    _memory(ax, 52.5, 89, ["0.", "1.", "2.", "3.", "4.", "5."], cell=3.4)

    # 1. The producer.
    box(
        ax,
        4,
        86,
        37,
        12,
        "peer",
        "producer: a NumPy array",
        "a = np.arange(6.0).reshape(2, 3)",
        title_size=TEXT,
        body_size=SMALL,
    )
    _step(ax, 1.8, 92, 1)
    arrow(ax, (41, 91), (52.5, 91), colour=memory_colour)

    # 2. The capsule and the struct it holds.
    arrow(ax, (22.5, 86), (22.5, 81))
    _label(ax, 24, 83.5, "a.__dlpack__(max_version=(1, 3))", family="monospace", fontsize=SMALL)
    box(
        ax,
        4,
        30,
        64,
        51,
        "core",
        'the capsule, named "dltensor_versioned"',
        align="top",
        title_size=TEXT,
    )
    _step(ax, 1.8, 77.5, 2)
    _label(ax, 6, 75, "holds a pointer to the producer's struct:", fontsize=SMALL, color="#333333")
    box(ax, 6, 32, 60, 40.5, "note", "DLManagedTensorVersioned", align="top", title_size=TEXT)
    header = [
        ("version", "1.0  (the producer's DLPack version)"),
        ("manager_ctx", "the producer's handle: here, a"),
        ("deleter", "the function to call when done"),
        ("flags", "0  (not READ_ONLY, not IS_COPIED)"),
    ]
    tensor = [
        ("data", "the address of the memory"),
        ("device", "(kDLCPU, 0)"),
        ("ndim, dtype", "2, (kDLFloat, 64 bits, 1 lane)"),
        ("shape", "[2, 3]"),
        ("strides", "[3, 1]  (in elements)"),
        ("byte_offset", "0"),
    ]
    y = 66.5
    for name, meaning in header:
        _label(ax, 8, y, name, family="monospace", fontsize=SMALL, fontweight="bold")
        _label(ax, 25, y, meaning, fontsize=SMALL)
        y -= 3.3
    _label(ax, 8, y, "dl_tensor", family="monospace", fontsize=SMALL, fontweight="bold")
    data_y = y - 3.2
    y = data_y
    for name, meaning in tensor:
        _label(ax, 11, y, name, family="monospace", fontsize=SMALL)
        _label(ax, 25, y, meaning, fontsize=SMALL)
        y -= 3.0
    # data points at the first element.
    _path(ax, [(47, data_y), (54.2, data_y), (54.2, 89)], memory_colour)

    # 3. The consumer.
    arrow(ax, (22.5, 30), (22.5, 23))
    _label(
        ax,
        24,
        26.5,
        "x = dlarray.from_dlpack(a) checks every field, then\n"
        'renames the capsule "used_dltensor_versioned"',
        fontsize=SMALL,
    )
    box(
        ax,
        4,
        12,
        37,
        11,
        "array",
        "consumer: x, a DLArray",
        "its owner holds the struct now",
        title_size=TEXT,
        body_size=SMALL,
    )
    _step(ax, 1.8, 17.5, 3)
    _path(ax, [(41, 17.5), (71, 17.5), (71, 89)], memory_colour)
    _label(
        ax,
        70,
        24,
        "x views the\nsame memory",
        ha="right",
        fontsize=SMALL,
        color=memory_colour,
        fontweight="bold",
    )

    # 4. The deleter.
    arrow(ax, (22.5, 12), (22.5, 9))
    box(
        ax,
        4,
        0.5,
        64,
        8.5,
        "peer",
        "",
        "when x and its views are gone: deleter(struct), exactly once;\n"
        "the producer drops its reference to a and frees the struct",
        body_size=SMALL,
    )
    _step(ax, 1.8, 4.75, 4)
    return fig


def draw_ownership_chain() -> Any:
    """view -> ImportedTensor -> export block -> x -> storage -> memory."""
    fig, ax = _canvas(PAGE_WIDTH, 3.6, 74, 36)
    width, height, gap = 19.5, 10, 6.5
    columns = [1, 1 + width + gap, 1 + 2 * (width + gap)]
    top_row, bottom_row = 22, 3
    consumer = [
        ("view = y[1:]", "a view of the\nimported array y", "array"),
        ("ImportedTensor", "y's owner: it holds\nthe managed tensor", "storage"),
        ("export block", "DLManagedTensor-\nVersioned", "core"),
    ]
    producer = [
        ("x", "the exported DLArray", "array"),
        ("HostStorage", "x's owner", "storage"),
        ("the memory", "six float64", "storage"),
    ]
    for column, (title, body, kind) in zip(columns, consumer, strict=True):
        box(ax, column, top_row, width, height, kind, title, body, title_size=TEXT, body_size=SMALL)
    for column, (title, body, kind) in zip(reversed(columns), producer, strict=True):
        box(
            ax,
            column,
            bottom_row,
            width,
            height,
            kind,
            title,
            body,
            title_size=TEXT,
            body_size=SMALL,
        )
    middle_top, middle_bottom = top_row + height / 2, bottom_row + height / 2
    for left, right in itertools.pairwise(columns):
        arrow(ax, (left + width, middle_top), (right, middle_top))
        arrow(ax, (right, middle_bottom), (left + width, middle_bottom))
    last = columns[2] + width / 2
    arrow(ax, (last, top_row), (last, bottom_row + height))
    _label(
        ax,
        last - 1,
        (top_row + bottom_row + height) / 2,
        "manager_ctx",
        ha="right",
        family="monospace",
        fontsize=SMALL,
        color=EDGE["core"],
    )
    _label(
        ax,
        1,
        34.5,
        "y = dlarray.from_dlpack(x);  view = y[1:];  del x, y",
        family="monospace",
        fontsize=SMALL,
        color="#444444",
    )
    _label(
        ax,
        1,
        17,
        "each arrow is a strong reference: the memory\nlives as long as any view does",
        fontsize=SMALL,
        color="#444444",
    )
    return fig


# ---------------------------------------------------------------- sequence diagrams


def _lanes(
    ax: Any, lanes: list[tuple[str, str, str, float]], top: float, bottom: float
) -> dict[str, float]:
    """Participant boxes (key, label, kind, x) with dashed lifelines down to ``bottom``."""
    for _key, label, kind, x in lanes:
        box(ax, x - 8, top - 6, 16, 6, kind, label, title_size=SMALL)
        ax.plot(
            [x, x], [bottom, top - 6], color="#9a9a9a", linewidth=1, linestyle=(0, (4, 3)), zorder=1
        )
    return {key: x for key, _label_, _kind, x in lanes}


def _message(
    ax: Any,
    xs: dict[str, float],
    y: float,
    frm: str,
    to: str,
    label: str,
    *,
    step: int,
    dashed: bool = False,
    colour: str = "#222222",
    label_x: float | None = None,
) -> None:
    """A numbered horizontal message at height ``y``, its label above it."""
    from matplotlib.patches import FancyArrowPatch

    x0, x1 = xs[frm], xs[to]
    inset = 0.9 if x1 > x0 else -0.9
    ax.add_patch(
        FancyArrowPatch(
            (x0 + inset, y),
            (x1 - inset, y),
            arrowstyle="-|>",
            mutation_scale=12,
            linewidth=1.3,
            color=colour,
            linestyle="--" if dashed else "-",
            shrinkA=0,
            shrinkB=0,
            zorder=4,
        )
    )
    _label(
        ax,
        (x0 + x1) / 2 if label_x is None else label_x,
        y + 0.6,
        label,
        ha="center",
        va="bottom",
        fontsize=SMALL,
        color=colour,
        linespacing=1.2,
        bbox={
            "boxstyle": "round,pad=0.15",
            "facecolor": "white",
            "edgecolor": "none",
            "alpha": 0.85,
        },
    )
    _step(ax, 1.6, y, step)


def _bar(ax: Any, x: float, y_top: float, y_bottom: float, kind: str) -> None:
    """An activation bar: the participant holds something meanwhile."""
    from matplotlib.patches import Rectangle

    ax.add_patch(
        Rectangle(
            (x - 0.8, y_bottom),
            1.6,
            y_top - y_bottom,
            facecolor=FILL[kind],
            edgecolor=EDGE[kind],
            linewidth=1.2,
            zorder=3,
        )
    )


def _cross(ax: Any, x: float, y: float) -> None:
    for dy in (0.9, -0.9):
        ax.plot([x - 0.9, x + 0.9], [y - dy, y + dy], color="#444444", linewidth=1.6, zorder=5)


def draw_export_lifetime() -> Any:
    """x.__dlpack__(): the export block holds x until the consumer calls the deleter."""
    fig, ax = _canvas(PAGE_WIDTH, 9.6, 74, 96)
    xs = _lanes(
        ax,
        [
            ("consumer", "consumer\n(np.from_dlpack, ...)", "peer", 12),
            ("x", "x: DLArray\nand its memory", "array", 31),
            ("block", "export block\n(the struct)", "core", 48.5),
            ("capsule", "capsule", "core", 65),
        ],
        top=95,
        bottom=15,
    )
    y = [82, 74, 66.5, 58.5, 52, 43.5, 36.5, 26, 19.5]
    _message(ax, xs, y[0], "consumer", "x", "x.__dlpack__(\nmax_version=(1, 3))", step=1)
    _bar(ax, xs["block"], y[1], y[8], "core")
    _message(ax, xs, y[1], "x", "block", "export_block: the\nstruct, shape, strides", step=2)
    _bar(ax, xs["x"], y[2], y[8], "array")
    _message(
        ax, xs, y[2], "block", "x", "manager_ctx = x\n(Py_INCREF)", colour=EDGE["array"], step=3
    )
    _message(
        ax,
        xs,
        y[3],
        "x",
        "capsule",
        'PyCapsule_New(struct,\n"dltensor_versioned")',
        step=4,
        label_x=56,
    )
    _message(ax, xs, y[4], "x", "consumer", "returns the capsule", dashed=True, step=5)
    _message(
        ax,
        xs,
        y[5],
        "consumer",
        "capsule",
        'takes the struct and renames the\ncapsule "used_dltensor_versioned"',
        step=6,
        label_x=29,
    )
    _cross(ax, xs["capsule"], y[6])
    _label(
        ax,
        xs["capsule"],
        y[6] - 2,
        "capsule freed:\nits destructor\nsees used_ and\ndoes nothing",
        ha="center",
        va="top",
        fontsize=8.8,
        color="#444444",
    )
    _step(ax, 1.6, y[6], 7)
    _label(
        ax,
        4.5,
        y[6],
        "the consumer's array views\nx's memory: no copy",
        fontsize=SMALL,
        color=EDGE["storage"],
        va="center",
    )
    _label(
        ax,
        xs["x"] + 1.6,
        31.5,
        "the block's\nreference keeps\nx alive",
        fontsize=8.8,
        color=EDGE["array"],
    )
    _message(
        ax,
        xs,
        y[7],
        "consumer",
        "block",
        "later, when its array dies:\ndeleter(struct), any thread",
        step=8,
        label_x=22,
    )
    _message(
        ax,
        xs,
        y[8],
        "block",
        "x",
        "release_export:\nPy_DECREF(x), free",
        colour=EDGE["array"],
        step=9,
    )
    _cross(ax, xs["block"], y[8] - 2)
    box(
        ax,
        1,
        0.5,
        72,
        12,
        "note",
        body=(
            'Not consumed?  The capsule still has the name "dltensor_versioned"\n'
            "when it dies, so its destructor (destroy_capsule, export.c) calls the\n"
            "deleter itself: steps 8 and 9 happen then.  A deleter called from a\n"
            "thread without the GIL takes it; after interpreter shutdown it leaks\n"
            'instead of crashing.  Legacy "dltensor" capsules work the same way.'
        ),
        body_size=SMALL,
    )
    return fig


def draw_import_lifetime() -> Any:
    """from_dlpack(t): validate, build, commit, share with views, delete once."""
    fig, ax = _canvas(PAGE_WIDTH, 10.4, 74, 104)
    box(
        ax,
        0.5,
        84,
        35.5,
        19,
        "peer",
        "the capsule route",
        "t.__dlpack__(max_version=(1, 3))\n"
        'gives a capsule "dltensor_versioned"\n'
        '(or "dltensor"); a used_ name\nraises ValueError',
        title_size=TEXT,
        body_size=SMALL,
    )
    box(
        ax,
        38,
        84,
        35.5,
        19,
        "peer",
        "the C exchange table route",
        "type(t).__dlpack_c_exchange_api__\n"
        "managed_tensor_from_py_object_\nno_sync(t, &struct): no Python\ncall, no capsule",
        title_size=TEXT,
        body_size=SMALL,
    )
    main_x, main_w = 0.5, 44
    centre = main_x + main_w / 2
    steps = [
        (
            66,
            "core",
            "1. validate (import.c)",
            "major version 1 (else: deleter,\nBufferError); ndim, shape, dtype,\ndevice, "
            "data pointer, byte size",
        ),
        (
            48,
            "storage",
            "2. build the owner and the array",
            "an ImportedTensor holding nothing\nyet, and a DLArray over the data;\n"
            "the struct is still the capsule's",
        ),
        (
            30,
            "storage",
            "3. commit: nothing can fail now",
            'rename the capsule "used_..."; the\nowner takes the struct (table route:\n'
            "via_table is True)",
        ),
        (
            14.5,
            "array",
            "views share the owner",
            "a = from_dlpack(t); b = a[1:]; c = a.T\nall hold the same ImportedTensor",
        ),
        (0.5, "core", "the last view dies", "the owner calls deleter(struct), once"),
    ]
    heights = [14, 14, 14, 12, 10]
    for (y, kind, title, body), h in zip(steps, heights, strict=True):
        box(ax, main_x, y, main_w, h, kind, title, body, title_size=TEXT, body_size=SMALL)
    arrow(ax, (18, 84), (centre - 4, 80))
    arrow(ax, (55.5, 84), (centre + 4, 80))
    for (y, *_), (next_y, *_rest), h in zip(steps, steps[1:], heights[1:], strict=False):
        arrow(ax, (centre, y), (centre, next_y + h))
    box(
        ax,
        49,
        30,
        24.5,
        50,
        "error",
        "a failure before\nthe commit",
        "nothing was taken:\n\nthe capsule route:\nthe capsule still\nowns the struct; its\n"
        "destructor calls\nthe deleter\n\nthe table route:\ndla_adopt_versioned\ncalls the "
        "deleter\n\nexactly once,\neither way",
        title_size=TEXT,
        body_size=SMALL,
    )
    arrow(ax, (main_x + main_w, 73), (49, 70), colour=EDGE["error"], dashed=True)
    arrow(ax, (main_x + main_w, 55), (49, 55), colour=EDGE["error"], dashed=True)
    box(
        ax,
        49,
        0.5,
        24.5,
        26,
        "note",
        body="one owner per import:\nviews copy the layout\nand share the owner,\nso the "
        "producer's\nmemory lives as long\nas the last view, and\nslicing never copies",
        body_size=SMALL,
    )
    return fig


# ---------------------------------------------------------------- the layers (design page)


def draw_layers() -> Any:
    """The layers: the array class, namespace and engines, ArrayBase,
    storage, C core, peers."""
    fig, ax = _canvas(PAGE_WIDTH, 11.4, 74, 114)
    body = 9.0

    # The array class on top: its methods call the namespace directly.
    box(
        ax,
        0.5,
        104.5,
        73,
        9,
        "array",
        "DLArray, the array class  (_array.py, at the top)",
        "x + y, x[key], x.to_device(d), round(x), pickle: call the namespace below;"
        "\nthe C core reads what it calls in Python from this one class, once",
        title_size=SMALL,
        body_size=body,
    )
    arrow(ax, (24, 104.5), (24, 101.5))

    # The namespace: validate, borrow, re-wrap; the engines beside it.
    box(
        ax,
        0.5,
        78,
        47.5,
        23.5,
        "namespace",
        "Namespace: dlarray.*, .linalg, .fft (_api/)",
        align="top",
        title_size=TEXT,
    )
    steps = [
        ("1  validate", "the standard's rules:\ndtypes, promotion,\nscalars, devices\n(_rules.py)"),
        ("2  borrow", "a zero-copy view\nfor the engine,\nthrough DLPack,\ncached in the array"),
        ("3  re-wrap", "engine_call runs\nthe kernel and\ntakes its result\nas a DLArray"),
    ]
    for i, (title, text) in enumerate(steps):
        box(
            ax,
            1.5 + i * 15.5,
            79.5,
            14.5,
            17,
            "namespace",
            title,
            text,
            title_size=SMALL,
            body_size=body,
        )
    for i in range(2):
        arrow(ax, (16 + i * 15.5, 88), (17 + i * 15.5, 88))
    box(
        ax,
        56,
        78,
        17.5,
        23.5,
        "engine",
        "compute\nengines",
        "NumPy: host\nCuPy: CUDA\ndpnp:\nSYCL USM",
        title_size=SMALL,
        body_size=body,
    )
    arrow(ax, (48, 93), (56, 93))
    _label(ax, 52, 95.2, "views", ha="center", fontsize=8.5)
    arrow(ax, (56, 84), (48, 84))
    _label(ax, 52, 86.2, "results", ha="center", fontsize=8.5)

    # The array object and its storage.
    arrow(ax, (10, 78), (10, 71.5))
    _label(ax, 11.5, 74.8, "every result is a DLArray", fontsize=body)
    box(
        ax,
        0.5,
        45,
        24,
        26.5,
        "array",
        "ArrayBase",
        "(_core/array.c), the\nC half of DLArray,\nwhich every layer\ntypes against:\n"
        "data, byte_offset,\ndevice, dtype, shape,\nstrides, flags, owner",
        title_size=TEXT,
        body_size=body,
    )
    arrow(ax, (24.5, 58), (29, 58))
    _label(ax, 26.75, 60, "owner", ha="center", fontsize=body)
    box(
        ax,
        29,
        45,
        44.5,
        26.5,
        "storage",
        "Storage: one class per memory kind  (_storage/)",
        align="top",
        title_size=SMALL,
    )
    kinds = [
        ("imported", "ImportedTensor\n(_core/import.c)"),
        ("host", "HostBuffer, 256-byte\naligned (host_buffer.c)"),
        ("CUDA", "device, managed, pinned\n(cuda-bindings)"),
        ("SYCL USM", "device, shared, host\n(dpctl)"),
    ]
    for i, (title, text) in enumerate(kinds):
        x, y = 30.5 + (i % 2) * 21.5, 56.5 - (i // 2) * 10.5
        box(ax, x, y, 20.5, 9.5, "storage", title, text, title_size=SMALL, body_size=8.5)

    # The C core.
    arrow(ax, (10, 45), (10, 36.5), both=True)
    _label(ax, 11.5, 40.8, "x.__dlpack__(), from_dlpack(y)", fontsize=body, family="monospace")
    box(
        ax,
        0.5,
        13.5,
        73,
        23,
        "core",
        "C core  (dlarray/_core/, dlarray/include/)",
        align="top",
        title_size=TEXT,
    )
    parts = [
        ("ABI structs", "dlpack_abi.h:\nthe six structs"),
        ("export", "export.c: one block,\nthe capsule, the\ndeleter"),
        ("import", "consumer.c, import.c:\nvalidate, then own"),
        ("exchange table", "exchange_producer.c\nexchange_consumer.c"),
    ]
    for i, (title, text) in enumerate(parts):
        box(ax, 1.5 + i * 18, 15, 17, 15.5, "core", title, text, title_size=SMALL, body_size=8.5)
    arrow(ax, (45, 30.5), (45, 45), colour=EDGE["core"])
    _label(ax, 46, 40.8, "owns the\nproducer's tensor", fontsize=8.5, color=EDGE["core"])

    # Other libraries.
    arrow(ax, (37, 13.5), (37, 9), both=True)
    _label(ax, 38.5, 11.2, "capsules and C tables", fontsize=body)
    box(
        ax,
        0.5,
        0.5,
        73,
        8.5,
        "peer",
        "other libraries",
        "NumPy, PyTorch, JAX, CuPy, dpnp, TVM FFI; C extensions (dlarray_capi.h)",
        title_size=SMALL,
        body_size=body,
    )
    return fig
