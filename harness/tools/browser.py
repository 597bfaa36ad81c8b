"""The headless browser the page's tests drive (suites/cli/test_page_browser.py): Debian's ``chromium`` and its
``chromium-driver``, nothing downloaded from anywhere else (selenium is told to stay offline).

    python -m harness.tools.browser            find both; when missing, install them with apt-get if allowed
    python -m harness.tools.browser --check    only say what is there (installs nothing)

Installs follow the project's one rule (harness/tools/parity_plan.install_env, as the WASM build's): only as root,
only with PARITY_INSTALL_TOOLCHAIN=1 (the nox sessions set it as root or in CI), never with
PARITY_INSTALL_TOOLCHAIN=0; the packages are named with the reason before apt-get runs. Exit statuses:
0 the browser is there, 3 it is not (each missing piece named, with both remedies), 2 bad arguments.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from harness.model.status import AGREE, UNAVAILABLE

PACKAGES = ("chromium", "chromium-driver")  # Debian's; chromium-driver's chromedriver matches its chromium
BROWSERS = ("chromium", "chromium-browser")
DRIVERS = ("chromedriver",)
APT_SECONDS = 900  # one apt-get command at the most
REQUIRE_ENV = "PARITY_REQUIRE_BROWSER"  # .ci/run sets it: a missing browser fails the page's tests
# Flags for a headless Chromium run as root in a container: no sandbox (it refuses root), no GPU, /tmp for
# shared memory (a container's /dev/shm is small), and no network service reaching out on its own.
FLAGS = ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-default-apps",
         "--disable-sync", "--metrics-recording-only", "--no-default-browser-check", "--hide-scrollbars")


@dataclass(frozen=True)
class Browser:
    chromium: str
    driver: str


def _which(names: tuple[str, ...]) -> str | None:
    for name in names:
        found = shutil.which(name) or (f"/usr/bin/{name}" if Path(f"/usr/bin/{name}").is_file() else None)
        if found:
            return found
    return None


def find() -> Browser | None:
    """Chromium and its driver where Debian puts them (or on PATH); None when either is missing."""
    chromium, driver = _which(BROWSERS), _which(DRIVERS)
    return Browser(chromium, driver) if chromium and driver else None


def missing() -> list[str]:
    return [what for what, names in (("chromium", BROWSERS), ("chromedriver (chromium-driver)", DRIVERS))
            if _which(names) is None]


def may_install() -> tuple[bool, str]:
    """Whether this process may apt-get the packages, and if not, why."""
    if os.environ.get("PARITY_INSTALL_TOOLCHAIN") == "0":
        return False, "PARITY_INSTALL_TOOLCHAIN=0: installs are off"
    if not (hasattr(os, "geteuid") and os.geteuid() == 0):
        return False, "not root"
    if os.environ.get("PARITY_INSTALL_TOOLCHAIN") != "1" and os.environ.get("CI", "").lower() != "true":
        return False, "neither PARITY_INSTALL_TOOLCHAIN=1 nor CI=true (the nox sessions set it as root)"
    if shutil.which("apt-get") is None:
        return False, "no apt-get on this machine"
    return True, ""


def install(log: Callable[[str], object] = print) -> float:
    """apt-get install the packages; the seconds it took (CalledProcessError when apt-get fails)."""
    log(f"installing Debian packages with apt-get, as root: {' '.join(PACKAGES)}; why: the page's browser tests "
        "(suites/cli/test_page_browser.py) drive a headless Chromium through its driver, and nothing may download "
        "a browser from elsewhere; PARITY_INSTALL_TOOLCHAIN=0 turns installs off")
    started = time.monotonic()
    env = dict(os.environ, DEBIAN_FRONTEND="noninteractive")
    waits = ["-o", "Acquire::http::Timeout=30", "-o", "DPkg::Lock::Timeout=120"]  # a stalled mirror or lock ends
    subprocess.run(["apt-get", *waits, "update", "-q"], env=env, check=True, stdout=subprocess.DEVNULL,
                   timeout=APT_SECONDS)
    subprocess.run(["apt-get", *waits, "install", "-y", "-q", "--no-install-recommends", *PACKAGES], env=env,
                   check=True, stdout=subprocess.DEVNULL, timeout=APT_SECONDS)
    return time.monotonic() - started


def remedy() -> str:
    return (f"install them: apt-get install -y --no-install-recommends {' '.join(PACKAGES)} (as root), or run "
            "`python -m harness.tools.browser` as root with PARITY_INSTALL_TOOLCHAIN=1")


def open_driver(browser: Browser, width: int = 1400, height: int = 1000) -> Any:
    """A selenium WebDriver on Debian's headless Chromium, through its chromedriver, keeping the browser's
    console and network logs (``console_errors``, ``requests``). Selenium Manager is kept offline: the driver
    and the browser are given, nothing is looked up or downloaded."""
    os.environ.setdefault("SE_OFFLINE", "true")
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = browser.chromium
    for flag in (*FLAGS, f"--window-size={width},{height}"):
        options.add_argument(flag)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL", "performance": "ALL"})
    return webdriver.Chrome(service=Service(executable_path=browser.driver), options=options)


def requests(driver: Any) -> list[str]:
    """Every URL the page asked for since the last call (the performance log's Network.requestWillBeSent)."""
    urls = []
    for entry in driver.get_log("performance"):
        message = json.loads(entry["message"]).get("message", {})
        if message.get("method") == "Network.requestWillBeSent":
            urls.append(message["params"]["request"]["url"])
    return urls


def console_errors(driver: Any) -> list[str]:
    """The console's errors since the last call (script errors, blocked requests, failed loads)."""
    return [entry["message"] for entry in driver.get_log("browser") if entry.get("level") == "SEVERE"]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m harness.tools.browser", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--check", action="store_true", help="only say what is there; install nothing")
    args = parser.parse_args(argv)
    found = find()
    if found is None and not args.check:
        allowed, why = may_install()
        if allowed:
            try:
                seconds = install()
                print(f"browser: installed {' '.join(PACKAGES)} in {seconds:.0f} s")
            except (OSError, subprocess.CalledProcessError, subprocess.TimeoutExpired) as exc:
                print(f"browser: apt-get failed: {exc}", file=sys.stderr)
            found = find()
        else:
            print(f"browser: not installing ({why})")
    if found is None:
        print(f"browser: missing {', '.join(missing())}; {remedy()}", file=sys.stderr)
        return UNAVAILABLE
    try:
        version = subprocess.run([found.chromium, "--version"], capture_output=True, text=True, check=False,
                                 timeout=60).stdout.strip()
    except (OSError, subprocess.TimeoutExpired) as exc:
        print(f"browser: {found.chromium} does not start: {exc}; {remedy()}", file=sys.stderr)
        return UNAVAILABLE
    print(f"browser: {version or found.chromium} at {found.chromium}, driver {found.driver}")
    return AGREE


if __name__ == "__main__":
    from harness.model.status import exit_with

    exit_with(main)
