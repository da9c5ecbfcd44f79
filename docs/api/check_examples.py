"""Every public name of dlarray, and whether its docstring has an example and says what it raises.

The issue asks for an API reference where every public name is documented,
with an example.  This script is the list of those names and the check:

* :func:`public_names` walks ``dlarray.__all__``, the ``__all__`` of
  ``dlarray.linalg``, ``dlarray.fft``, ``dlarray.storage`` and ``dlarray.abi``, the functions
  of ``dlarray.subbyte``, the classes of what public functions return
  (``finfo``/``iinfo`` objects, the ``unique_*`` named tuples, the
  inspection object of ``__array_namespace_info__()``), and the public
  members of every public class (with the DLPack and Array API special
  methods of ``DLArray``).
* Names with a docstring of their own (modules, classes, functions, methods,
  properties) must have a numpydoc ``Examples`` section.
* Public callables with a docstring of their own (functions, methods, and
  classes, for their constructor) must also have a numpydoc ``Raises``
  section: which exception, and when.  Properties and modules need none,
  nor classes whose constructor is not dlarray's (exceptions, named tuples,
  ctypes structs) or that only dlarray instantiates (``finfo`` objects...).  The others (data:
  dtypes, constants, enum members, named-tuple fields, operator methods) have
  no docstring of their own; their API page documents them with examples.
* :func:`missing_from` compares the names with what Sphinx documented:
  docs/conf.py calls it during the build and warns (an error under ``-W``)
  for each name missing from docs/api/.

Run on its own it reports the names whose docstring lacks an ``Examples``
section, then the callables whose docstring lacks a ``Raises`` section, each
grouped by the file to edit::

    python docs/api/check_examples.py            # report, exit status 0
    python docs/api/check_examples.py --strict   # exit status 1 if any lacks either
    python docs/api/check_examples.py --inventory docs/_build/html/objects.inv
                                                 # also: names missing from a built site
"""

from __future__ import annotations

import argparse
import ctypes
import enum
import inspect
import os
import re
import sys
import types
from dataclasses import dataclass
from typing import Any

import dlarray

#: The special methods of DLArray that are part of its public API: DLPack's,
#: the Array API's and Python's protocols.  Those without a docstring of their
#: own (the operators) are documented on docs/api/array.md.
ARRAY_DUNDERS = frozenset(
    {
        "__dlpack__",
        "__dlpack_device__",
        "__dlpack_c_exchange_api__",
        "__c_dlpack_exchange_api__",
        "__array_namespace__",
        "__getitem__",
        "__setitem__",
        "__iter__",
        "__bool__",
        "__int__",
        "__float__",
        "__complex__",
        "__index__",
        "__neg__",
        "__pos__",
        "__abs__",
        "__invert__",
        "__lt__",
        "__le__",
        "__gt__",
        "__ge__",
        "__eq__",
        "__ne__",
    }
    | {
        f"__{prefix}{op}__"
        for op in "add sub mul truediv floordiv mod pow matmul and or xor lshift rshift".split()
        for prefix in ("", "r", "i")
    }
)

#: Classes of objects that public functions return, documented where they
#: are defined (the namespace does not export them).
RETURN_TYPES = (
    "dlarray._api.dtype_functions.finfo_object",
    "dlarray._api.dtype_functions.iinfo_object",
    "dlarray._api.sets.UniqueAllResult",
    "dlarray._api.sets.UniqueCountsResult",
    "dlarray._api.sets.UniqueInverseResult",
)

#: Classes whose instances only dlarray makes (returned by public
#: functions): their constructors are not public API, so need no Raises.
_NOT_CONSTRUCTED = frozenset({*RETURN_TYPES, "dlarray._api.info.Info"})

#: Those of them with a docstring of their own, which needs an example.
OWN_DOC_DUNDERS = frozenset({"__dlpack__", "__dlpack_device__", "__array_namespace__", "__iter__"})

_EXAMPLES = re.compile(r"^\s*Examples\s*\n\s*-{3,}\s*$", re.MULTILINE)
_RAISES = re.compile(r"^\s*Raises\s*\n\s*-{3,}\s*$", re.MULTILINE)


@dataclass(frozen=True)
class Name:
    """One public name: its documented (dotted) name and the object."""

    name: str
    obj: Any
    #: True when the object carries its own docstring, which must then have
    #: an ``Examples`` section; False for data documented by its page.
    has_own_doc: bool

    @property
    def doc(self) -> str:
        if not self.has_own_doc:
            return ""
        target = self.obj.fget if isinstance(self.obj, property) else self.obj
        return inspect.getdoc(target) or ""

    @property
    def has_example(self) -> bool:
        return bool(_EXAMPLES.search(self.doc))

    @property
    def needs_raises(self) -> bool:
        """A callable with a docstring of its own: a function, a method or
        a class (its constructor); not a property nor a module."""
        target = self.obj
        if not self.has_own_doc or isinstance(target, (property, types.ModuleType)):
            return False
        if type(target).__name__ in ("getset_descriptor", "member_descriptor"):
            return False
        if isinstance(target, type) and (
            issubclass(target, (BaseException, tuple, ctypes.Structure))
            or self.name in _NOT_CONSTRUCTED
        ):
            # Python's or ctypes' constructor, not dlarray's: exceptions,
            # named tuples and ctypes structs raise what those raise; and
            # the classes only dlarray makes (what functions return).
            return False
        return callable(target)

    @property
    def has_raises(self) -> bool:
        return bool(_RAISES.search(self.doc))

    @property
    def source(self) -> str:
        """The file that holds the docstring (relative to the repository)."""
        target = self.obj.fget if isinstance(self.obj, property) else self.obj
        if inspect.ismethoddescriptor(target) or inspect.isbuiltin(target):
            return "dlarray/_core/*.c (C core)"
        if type(target).__name__ == "getset_descriptor":
            return "dlarray/_core/*.c (C core)"
        if isinstance(target, type):
            module = sys.modules.get(_defining_module(target))
            path = getattr(module, "__file__", None)
            if path:
                return self._relative(path)
        try:
            path = inspect.getsourcefile(target)
        except TypeError:
            path = None
        if path is None:
            return "dlarray/_core/*.c (C core)"
        return self._relative(path)

    @staticmethod
    def _relative(path: str) -> str:
        root = os.path.dirname(os.path.dirname(os.path.abspath(dlarray.__file__)))
        return os.path.relpath(path, root)


def _defining_module(cls: type) -> str:
    """The module whose source defines ``cls`` (by its methods' code)."""
    package = os.path.dirname(os.path.abspath(dlarray.__file__))
    for value in vars(cls).values():
        if isinstance(value, property):
            value = value.fget
        code = getattr(value, "__code__", None)
        if code is not None and code.co_filename.startswith(package):
            for module in list(sys.modules.values()):
                if getattr(module, "__file__", None) == code.co_filename:
                    return module.__name__
    return cls.__module__


def _is_dlarray(cls: type) -> bool:
    return cls.__module__.split(".")[0] == "dlarray"


def _class_members(prefix: str, cls: type) -> list[Name]:
    """The public members a class defines itself or inherits from another
    dlarray class (not those of object, int, tuple, Exception, Enum or
    Protocol): methods and properties; enum members and named-tuple fields
    as data.  ``__slots__`` fields are described by the class's Attributes
    section and class-level constants by the class docstring."""
    if issubclass(cls, enum.Enum):
        return [Name(f"{prefix}.{m}", cls[m], False) for m in cls.__members__]
    fields = getattr(cls, "_fields", None) if issubclass(cls, tuple) else None
    if fields:
        return [Name(f"{prefix}.{f}", getattr(cls, f), False) for f in fields]
    out: list[Name] = []
    for attr in sorted(dir(cls)):
        is_dunder = attr.startswith("__") and attr.endswith("__")
        if is_dunder and not (cls is dlarray.DLArray and attr in ARRAY_DUNDERS):
            continue
        if attr.startswith("_") and not is_dunder:
            continue
        owner = next((k for k in cls.__mro__ if attr in k.__dict__), None)
        if owner is None or not _is_dlarray(owner):
            continue
        raw = owner.__dict__[attr]
        if isinstance(raw, (classmethod, staticmethod)):
            raw = raw.__func__
        if is_dunder:
            out.append(Name(f"{prefix}.{attr}", raw, attr in OWN_DOC_DUNDERS))
        elif isinstance(raw, property) or callable(raw):
            out.append(Name(f"{prefix}.{attr}", raw, True))
        elif type(raw).__name__ == "getset_descriptor":  # a property of the C core
            out.append(Name(f"{prefix}.{attr}", raw, True))
    return out


def _entry(name: str, obj: Any) -> list[Name]:
    if isinstance(obj, types.ModuleType):
        return [Name(name, obj, True)]
    if isinstance(obj, type):
        return [Name(name, obj, True), *_class_members(name, obj)]
    if callable(obj):
        return [Name(name, obj, True)]
    return [Name(name, obj, False)]


def public_names() -> list[Name]:
    """Every public name of dlarray, in a stable order."""
    names: list[Name] = []
    for attr in dlarray.__all__:
        names += _entry(f"dlarray.{attr}", getattr(dlarray, attr))
    for attr in ("__dlpack_version__", "__version__"):
        names.append(Name(f"dlarray.{attr}", getattr(dlarray, attr), False))
    for module in (dlarray.linalg, dlarray.fft, dlarray.storage, dlarray.abi):
        for attr in module.__all__:
            names += _entry(f"{module.__name__}.{attr}", getattr(module, attr))
    sub = dlarray.subbyte
    for attr, obj in vars(sub).items():
        if not attr.startswith("_") and inspect.isfunction(obj) and obj.__module__ == sub.__name__:
            names += _entry(f"{sub.__name__}.{attr}", obj)
    # Classes that public functions return, not exported themselves.
    for path in RETURN_TYPES:
        module_name, _, attr = path.rpartition(".")
        names += _entry(path, getattr(sys.modules[module_name], attr))
    # The inspection object's class is not exported; it is documented where
    # it is defined (its __module__ says "dlarray", which has no such name).
    info = type(dlarray.__array_namespace_info__())
    names += _entry(f"{_defining_module(info)}.{info.__qualname__}", info)
    seen: set[str] = set()
    unique = []
    for n in names:
        if n.name not in seen:
            seen.add(n.name)
            unique.append(n)
    return unique


def missing_examples() -> list[Name]:
    """Public names whose own docstring has no ``Examples`` section."""
    return [n for n in public_names() if n.has_own_doc and not n.has_example]


def missing_raises() -> list[Name]:
    """Public callables whose own docstring has no ``Raises`` section."""
    return [n for n in public_names() if n.needs_raises and not n.has_raises]


def missing_from(documented: set[str]) -> list[str]:
    """Public names that are not among ``documented`` (Sphinx's Python
    objects: full dotted names)."""
    return [n.name for n in public_names() if n.name not in documented]


def _inventory_names(path: str) -> set[str]:
    from sphinx.util.inventory import InventoryFile

    with open(path, "rb") as f:
        inv = InventoryFile.load(f, "", os.path.join)
    names: set[str] = set()
    for role, entries in inv.items():
        if role.startswith("py:"):
            names.update(entries)
    return names


def _report(lacking: list[Name], what: str) -> None:
    """Print the names lacking ``what``, one line per docstring, by file."""
    n_doc = len({id(n.obj.fget if isinstance(n.obj, property) else n.obj) for n in lacking})
    print(f"{len(lacking)} of them lack {what} ({n_doc} docstrings to edit)")
    # One line per docstring: an inherited method shows every name it has.
    by_file: dict[str, dict[int, list[str]]] = {}
    for n in lacking:
        target = n.obj.fget if isinstance(n.obj, property) else n.obj
        by_file.setdefault(n.source, {}).setdefault(id(target), []).append(n.name)
    for source in sorted(by_file):
        docstrings = by_file[source].values()
        print(f"\n{source} ({len(docstrings)} docstrings):")
        for shown_as in docstrings:
            also = f"  (also {', '.join(shown_as[1:])})" if len(shown_as) > 1 else ""
            print(f"    {shown_as[0]}{also}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--strict", action="store_true", help="exit 1 if a name lacks an example or Raises"
    )
    parser.add_argument(
        "--inventory", help="objects.inv of a built site: also list undocumented names"
    )
    args = parser.parse_args(argv)

    names = public_names()
    own = [n for n in names if n.has_own_doc]
    lacking = [n for n in own if not n.has_example]
    print(
        f"{len(names)} public names: {len(own)} with a docstring of their own, "
        f"{len(names) - len(own)} data or operators documented on their API page"
    )
    _report(lacking, "an Examples section")
    callables = [n for n in own if n.needs_raises]
    no_raises = [n for n in callables if not n.has_raises]
    print(f"\n{len(callables)} of them are callables (functions, methods, classes)")
    _report(no_raises, "a Raises section")
    status = 1 if args.strict and (lacking or no_raises) else 0
    if args.inventory:
        absent = missing_from(_inventory_names(args.inventory))
        print(f"\n{len(absent)} public names missing from the built API reference")
        for name in absent:
            print(f"    {name}")
        status = status or (1 if absent else 0)
    return status


if __name__ == "__main__":
    sys.exit(main())
