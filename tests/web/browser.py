"""Debian's Chromium driven through chromium-driver (Selenium), headless, for the page's tests.

Without the browser the tests skip, naming the command that installs it.
"""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, TypeVar

import pytest

INSTALL = "apt-get install -y chromium chromium-driver"
CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
DRIVER = shutil.which("chromedriver") or "/usr/bin/chromedriver"
T = TypeVar("T")


def browser_missing() -> str | None:
    """Why the browser tests cannot run here, or ``None``."""
    missing = [p for p in (CHROMIUM, DRIVER) if not Path(p).exists()]
    if missing:
        return f"no Chromium here ({', '.join(missing)} missing): install it with `{INSTALL}`"
    return None


def start_browser() -> Iterator[Any]:
    """A headless Chromium with a fresh profile; quit (and its profile removed) afterwards."""
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    profile = tempfile.mkdtemp(prefix="llmist-chromium-")
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for arg in (
        "--headless=new",
        "--no-sandbox",  # the tests run as root, where Chromium's sandbox cannot start
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--disable-dev-shm-usage",
        "--window-size=1280,900",
        f"--user-data-dir={profile}",
    ):
        options.add_argument(arg)
    driver = webdriver.Chrome(options=options, service=Service(executable_path=DRIVER))
    try:
        yield driver
    finally:
        driver.quit()
        shutil.rmtree(profile, ignore_errors=True)


def wait_for(driver: Any, condition: Callable[[Any], T], *, timeout: float = 20.0, what: str = "") -> T:
    """Poll ``condition(driver)`` (every 20 ms) until it returns something truthy; that value."""
    from selenium.webdriver.support.ui import WebDriverWait

    try:
        return WebDriverWait(driver, timeout, poll_frequency=0.02).until(condition)  # type: ignore[no-any-return]
    except Exception as exc:
        raise AssertionError(f"timed out waiting for {what or condition}: {exc}") from None


@pytest.fixture(scope="session")
def browser_session() -> Iterator[Any]:
    why = browser_missing()
    if why is not None:
        pytest.skip(why)
    yield from start_browser()


def send(browser: Any, text: str) -> None:
    """Type ``text`` in the page's message box and send it."""
    browser.find_element("id", "prompt").send_keys(text)
    browser.find_element("id", "send").click()


def status(browser: Any, invocation_id: str) -> str:
    """The status a call's card shows ("" while there is no card)."""
    cards = browser.find_elements("css selector", f'.card[data-call-id="{invocation_id}"]')
    return (cards[0].get_attribute("data-status") or "") if cards else ""


def run_ended(browser: Any) -> bool:
    """Whether the page shows the end of a run."""
    return bool(browser.find_elements("css selector", ".run-end"))
