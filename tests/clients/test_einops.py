"""einops through its Array API route (``einops.array_api``), which finds
the namespace with ``x.__array_namespace__()`` and uses only the standard."""

from __future__ import annotations

from typing import Any

import numpy as np

from .client_calls import SPEC, Call, Deviation, call, check, import_client, parametrize

einops_xp = import_client("einops.array_api", "einops")

IMAGES = np.arange(2 * 3 * 4 * 6, dtype=np.float32).reshape(2, 3, 4, 6)
FLAGS = np.arange(24).reshape(2, 3, 4) % 3 == 0
COUNTS = np.arange(12, dtype=np.int64).reshape(3, 4)
rearrange, reduce, repeat = einops_xp.rearrange, einops_xp.reduce, einops_xp.repeat

# Every pattern that splits or merges axes goes through xp.reshape(x, shape)
# with shape a list; the standard's shape is a tuple, and array-api-strict
# refuses anything else (dlarray, like NumPy, takes any sequence of ints).
LIST_SHAPE = Deviation(
    TypeError,
    "einops 0.8.2: calls xp.reshape with a list shape; the standard asks for a tuple "
    f"({SPEC}/generated/array_api.reshape.html), enforced by array-api-strict since "
    "https://github.com/data-apis/array-api-strict/issues/152",
    backends=("array_api_strict",),
)


def _pack_unpack(xp: Any, a: Any, b: Any) -> Any:
    packed, shapes = einops_xp.pack([a, b], "b * w")
    return packed, einops_xp.unpack(packed, shapes, "b * w")


def _from_list(xp: Any, a: Any) -> Any:
    # A list of arrays is stacked along a new first axis.
    return rearrange([a[0, ...], a[1, ...]], "n c h w -> c n (h w)")


def _custom_reduction(xp: Any, a: Any) -> Any:
    return reduce(a, "b c h w -> b c", lambda t, axes: xp.sum(t * t, axis=axes))


def reshaping(name: str, function: Any, *args: Any, **kwargs: Any) -> Call:
    """A call whose pattern splits, merges, adds or drops axes: einops then
    reshapes with a list (LIST_SHAPE)."""
    return call(name, function, *args, call_deviations=(LIST_SHAPE,), **kwargs)


CALLS: list[Call] = [
    call("rearrange-transpose", rearrange, IMAGES, "b c h w -> b h w c"),
    call("rearrange-ellipsis", rearrange, IMAGES, "b ... w -> w ... b"),
    reshaping("rearrange-flatten", rearrange, IMAGES, "b c h w -> b (c h w)"),
    reshaping("rearrange-split", rearrange, IMAGES, "b c h (w two) -> b c h w two", two=2),
    reshaping("rearrange-space-to-depth", rearrange, IMAGES,
              "b c (h h2) (w w2) -> b (c h2 w2) h w", h2=2, w2=3),
    reshaping("rearrange-new-axis", rearrange, COUNTS, "h w -> h 1 w 1"),
    reshaping("rearrange-squeeze", rearrange, IMAGES[:1], "1 c h w -> c h w"),
    reshaping("rearrange-bool", rearrange, FLAGS, "a b c -> (c a) b"),
    call("reduce-sum", reduce, IMAGES, "b c h w -> b c", "sum"),
    call("reduce-mean", reduce, IMAGES, "b c h w -> c", "mean"),
    call("reduce-min", reduce, IMAGES, "b c h w -> h w", "min"),
    call("reduce-prod", reduce, COUNTS + 1, "h w -> w", "prod"),
    call("reduce-sum-ints", reduce, COUNTS, "h w -> h", "sum"),
    call("reduce-any", reduce, FLAGS, "a b c -> a", "any"),
    call("reduce-all", reduce, FLAGS, "a b c -> b c", "all"),
    reshaping("reduce-max-pool", reduce, IMAGES, "b c (h 2) (w 3) -> b c h w", "max"),
    reshaping("reduce-keepdims", reduce, IMAGES, "b c h w -> b c () ()", "mean"),
    call("repeat-new-axis", repeat, COUNTS, "h w -> h w k", k=3),
    reshaping("repeat-upsample", repeat, IMAGES, "b c h w -> b c (h 2) (w 2)"),
    reshaping("repeat-tile", repeat, COUNTS, "h w -> (r h) w", r=2),
    Call("pack-unpack", _pack_unpack, (IMAGES[:, 0], IMAGES[:, 1, 0])),
    Call("rearrange-list", _from_list, (IMAGES,), deviations=(LIST_SHAPE,)),
    Call("reduce-callable", _custom_reduction, (IMAGES,)),
    call("asnumpy", einops_xp.asnumpy, COUNTS, call_native=False),
]


@parametrize(CALLS)
def test_call_matches_numpy(call: Call, backend: str) -> None:
    check(call, backend)
