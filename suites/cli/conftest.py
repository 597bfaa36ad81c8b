"""The page's browser tests share one headless browser (harness/tools/browser.py) per worker session:
suites/cli/test_page_browser.py and test_page_groups.py ask for ``driver``, a page reset for each test on the one
browser ``browser_session`` opens. Being a session fixture of the suites, suites/conftest.py puts its users in one
worker group under ``--dist loadgroup``, so a run opens the browser once, not once per module.

Without a browser the tests skip, saying how to install one; ``PARITY_REQUIRE_BROWSER=1`` (set by .ci/run) makes
that a failure.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from typing import Any

import pytest

from harness.tools import browser as browsers

BLANK = "about:blank"
WINDOW = (1400, 1000)  # the browser's window as opened (width, height)


@pytest.fixture(scope="session")
def browser_session() -> Iterator[Any]:
    """One WebDriver on Debian's headless Chromium for the worker, quit when the session ends."""
    found = browsers.find()
    if found is None:
        why = f"no headless browser: missing {', '.join(browsers.missing())}; {browsers.remedy()}"
        if os.environ.get(browsers.REQUIRE_ENV) == "1":
            pytest.fail(f"{why} ({browsers.REQUIRE_ENV}=1: the page's browser tests must run)", pytrace=False)
        pytest.skip(why)
    opened = browsers.open_driver(found, *WINDOW)
    try:
        yield opened
    finally:
        opened.quit()


def reset(driver: Any) -> None:
    """The browser as a test finds it: one window, a blank page, its window size as opened, no cookies, and the
    console and network logs of earlier pages read and dropped (``console_errors``, ``requests`` see only what
    the test's own pages log)."""
    handles = driver.window_handles
    for handle in handles[1:]:
        driver.switch_to.window(handle)
        driver.close()
    driver.switch_to.window(handles[0])
    driver.get(BLANK)
    driver.delete_all_cookies()
    if driver.get_window_size() != {"width": WINDOW[0], "height": WINDOW[1]}:
        driver.set_window_size(*WINDOW)
    browsers.requests(driver), browsers.console_errors(driver)


@pytest.fixture
def driver(browser_session: Any) -> Iterator[Any]:
    """The worker's browser, reset before the test and again after it (a test's page never outlives it)."""
    reset(browser_session)
    yield browser_session
    reset(browser_session)
