"""An author's adapter file, read as a row of the probe's peer table.

A library that is not in :data:`dlarray._peers.PEERS` is probed through a
small Python file its author writes (docs/guide/test-your-dlpack.md): the
file imports the library and says, at module level,

``from_dlpack(obj)``
    The library's DLPack consumer (leave it out: a producer only).
``to_numpy(array)``
    One of the library's arrays, read back as a NumPy array.
``make(host)``
    One of the library's arrays in host memory holding the NumPy array
    ``host``'s values (leave it out: a consumer only).
``name``
    What the report calls the library, a string literal (default: the
    file's name without ``.py``).
``__version__``
    The library's version, which the report shows (optional).
``dtypes``
    The dtype names it exchanges (default: the Array API standard's).
``mark_read_only(array)``, ``write_first(array)``, ``pointer(array)``
    Optional: the same array made read-only; a write into its first
    element through the library's API; the address of its first element
    (default: what its DLPack export says).

The probe's parent keeps only :func:`adapter_row`, made without running
the file (``name`` is read from its source); the child imports it, as it imports any library
(:meth:`AdapterPeer.import_module`, which also checks what it defines),
and :meth:`AdapterPeer.loaded` makes the full row, whose module is the
adapter, so that every probe case runs on it unchanged.  An adapter that
breaks, or whose library aborts or hangs on import, is then reported
like any library that does: "does not import", never fatal.
"""

from __future__ import annotations

import ast
import importlib.util
import pathlib
from dataclasses import dataclass, replace
from types import ModuleType
from typing import Any

import numpy as np

from dlarray import abi
from dlarray._dtypes import dtypes as all_dtypes
from dlarray._peers import STANDARD_DTYPES, Peer

#: What an adapter must define: at least one side of the exchange.
SIDES = ("from_dlpack", "make")


def is_adapter_path(name: str) -> bool:
    """Whether ``--dlpack-library NAME`` names an adapter file (a path
    ending in ``.py``) rather than an importable library."""
    return name.endswith(".py")


@dataclass(frozen=True)
class AdapterPeer(Peer):
    """A :class:`Peer` row whose module is an adapter file, not a library."""

    path: str = ""

    def installed(self) -> bool:
        return pathlib.Path(self.path).is_file()

    def import_module(self) -> ModuleType:
        """The adapter, imported (in the probe's child); raises what its
        import raises, and :func:`check_adapter`'s errors."""
        module = _import_file(pathlib.Path(self.path))
        check_adapter(module, self.path)
        return module

    def loaded(self, adapter: ModuleType) -> AdapterPeer:
        """This row with what the imported ``adapter`` defines."""
        make = getattr(adapter, "make", None)
        consumes = getattr(adapter, "from_dlpack", None) is not None
        return replace(
            self,
            make={} if make is None else {"cpu": lambda _module, host, _device: make(host)},
            consumes=("cpu",) if consumes else (),
            from_dlpack=lambda module: module.from_dlpack,
            pointer=getattr(adapter, "pointer", None) or abi.data_pointer,
            to_numpy=getattr(adapter, "to_numpy", None) or np.asarray,
            dtypes=tuple(getattr(adapter, "dtypes", STANDARD_DTYPES)),
            mark_read_only=getattr(adapter, "mark_read_only", None),
            write_first=getattr(adapter, "write_first", None),
        )


def _in_the_child(*_args: Any) -> Any:
    raise RuntimeError("an adapter's functions run in the probe's child process only")


def adapter_row(path: str | pathlib.Path) -> AdapterPeer:
    """The row of the adapter file at ``path``, made without running it:
    its name and path (the child process fills in the rest,
    :meth:`AdapterPeer.loaded`).

    Raises
    ------
    FileNotFoundError
        If there is no such file.
    """
    path = pathlib.Path(path).resolve()
    if not path.is_file():
        raise FileNotFoundError(f"no adapter file at {path}")
    name = _declared_name(path) or path.stem
    return AdapterPeer(
        name=name,
        pip=str(path),
        make={"cpu": _in_the_child},
        consumes=("cpu",),
        from_dlpack=_in_the_child,
        consumer_name=f"{name}.from_dlpack",
        pointer=_in_the_child,
        to_numpy=_in_the_child,
        path=str(path),
    )


def _declared_name(path: pathlib.Path) -> str | None:
    """The string literal a module-level ``name = "..."`` of the file
    assigns, read from its source without running it; None where there is
    none (or the file does not parse: its import, in the child, says why)."""
    try:
        tree = ast.parse(path.read_bytes())
    except (SyntaxError, ValueError):
        return None
    for node in tree.body:
        if (
            isinstance(node, ast.Assign)
            and [getattr(t, "id", None) for t in node.targets] == ["name"]
            and isinstance(node.value, ast.Constant)
            and isinstance(node.value.value, str)
        ):
            return node.value.value
    return None


def _import_file(path: pathlib.Path) -> ModuleType:
    spec = importlib.util.spec_from_file_location(f"dlpack_adapter_{path.stem}", path)
    if spec is None or spec.loader is None:
        raise ImportError(f"cannot load {path} as a Python module")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def check_adapter(adapter: ModuleType, path: str) -> None:
    """Raise where the imported ``adapter`` (the file at ``path``) breaks
    the contract of this module's docstring.

    Raises
    ------
    TypeError
        If it defines neither ``from_dlpack`` nor ``make``, ``from_dlpack``
        without ``to_numpy``, or one of the names as something not callable.
    ValueError
        If ``dtypes`` names a dtype dlarray does not know.
    """
    for name in (*SIDES, "to_numpy", "mark_read_only", "write_first", "pointer"):
        value = getattr(adapter, name, None)
        if value is not None and not callable(value):
            raise TypeError(
                f"{path}: {name} must be a function, got {type(value).__name__} "
                "(docs/guide/test-your-dlpack.md)"
            )
    if all(getattr(adapter, name, None) is None for name in SIDES):
        raise TypeError(
            f"{path} defines neither from_dlpack (the library as a consumer) nor make "
            "(as a producer); define at least one (docs/guide/test-your-dlpack.md)"
        )
    if (
        getattr(adapter, "from_dlpack", None) is not None
        and getattr(adapter, "to_numpy", None) is None
    ):
        raise TypeError(
            f"{path} defines from_dlpack but not to_numpy: the probe reads each import back "
            "through to_numpy(array) -> numpy.ndarray"
        )
    known = {d.name for d in all_dtypes()}
    unknown = [d for d in getattr(adapter, "dtypes", ()) if d not in known]
    if unknown:
        raise ValueError(
            f"{path}: dtypes names {unknown}, which are no dtypes of DLPack's here; "
            f"the names are {sorted(known)}"
        )
