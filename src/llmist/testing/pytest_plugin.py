"""A pytest plugin that keeps every test offline.

Enable it in ``conftest.py`` with ``pytest_plugins = ["llmist.testing.pytest_plugin"]``: each test
then runs inside :func:`~llmist.testing.block_real_models`, so an agent that would reach a real
model fails with ``RealModelRequestBlocked`` instead of spending money.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from llmist.testing.guard import block_real_models

__all__ = ["llmist_offline"]


@pytest.fixture(autouse=True)
def llmist_offline() -> Iterator[None]:
    """Autouse fixture: real model requests fail inside every test."""
    with block_real_models():
        yield
