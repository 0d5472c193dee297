"""Fixtures of the web tests: the browser (one per session) and its page state reset per test."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from tests.web.browser import browser_session

__all__ = ["browser_session"]


@pytest.fixture
def browser(browser_session: Any) -> Iterator[Any]:
    """The session's browser, on a blank page, with no token kept from an earlier test."""
    browser_session.get("about:blank")
    yield browser_session
    browser_session.get("about:blank")
