"""Real Array API consumers driven with dlarray arrays (nox -s clients).

A package, unlike tests/interop and tests/fuzz: its conftest is then the
module ``clients.conftest`` rather than one more top-level ``conftest``.
This folder sorts before tests/conftest.py, and a top-level conftest loaded
here would stand in sys.modules for that one when ``--doctest-modules``
(nox -s tests) imports it.
"""
