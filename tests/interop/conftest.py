"""Interop tests: each ``test_<peer>.py`` runs the shared suite of
``peer_suite.py`` against one peer library (see that module)."""

from peer_suite import pytest_generate_tests

__all__ = ["pytest_generate_tests"]
