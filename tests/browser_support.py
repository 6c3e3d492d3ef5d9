"""Support for the real-browser tests of ``panda-core serve`` (tests/test_web_browser.py).

* :class:`LiveServer` runs the real web application (``panda_core.web.create_app``) under
  uvicorn on 127.0.0.1 and a free port, in a thread, recording everything it sends to pages in
  ``traffic``; it stops when the test module is done.
* :func:`chromium` starts Debian's headless Chromium through Debian's chromedriver (never a
  downloaded one). A missing browser is a test *failure* that says what to install: CI installs
  both (``.ci/run``), and a skipped browser test would hide a broken page.
* :class:`Page` wraps a driver with explicit waits (``WebDriverWait``; no sleeps), lookups by
  the page's ``data-testid`` attributes (listed at the top of ``static/app.js``) and screenshots
  kept as test artefacts under ``$PANDA_ARTIFACTS`` (default ``test-artifacts/`` at the repo
  root).
"""

from __future__ import annotations

import json
import os
import socket
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs

import pytest

CHROMIUM = "/usr/bin/chromium"
CHROMEDRIVER = "/usr/bin/chromedriver"
WAIT = 20.0
"""Seconds any single wait for the page may take before the test fails."""

REPO = Path(__file__).resolve().parent.parent


def artifacts_dir() -> Path:
    """Where screenshots are kept (``$PANDA_ARTIFACTS``, default ``test-artifacts/``)."""
    root = Path(os.environ.get("PANDA_ARTIFACTS") or REPO / "test-artifacts")
    path = root / "web"
    path.mkdir(parents=True, exist_ok=True)
    return path


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


class LiveServer:
    """The real app under uvicorn in a thread; ``traffic`` holds what it sent to clients."""

    def __init__(self, **options: Any) -> None:
        import uvicorn

        from panda_core.web import create_app

        self.traffic: list[tuple[str, str, Any]] = []
        app = create_app(traffic=self.traffic, **options)
        self.port = _free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        config = uvicorn.Config(
            app, host="127.0.0.1", port=self.port, log_level="warning", lifespan="on"
        )
        self._server = uvicorn.Server(config)
        self._thread = threading.Thread(target=self._server.run, daemon=True, name="web-test")

    def start(self) -> LiveServer:
        self._thread.start()
        deadline = time.monotonic() + WAIT
        while not self._server.started:
            if not self._thread.is_alive() or time.monotonic() > deadline:
                raise RuntimeError(f"the web server did not start on {self.url}")
            time.sleep(0.02)  # polling a thread's flag, not synchronising with the page
        return self

    def stop(self) -> None:
        self._server.should_exit = True
        self._thread.join(timeout=10)

    def get(self, path: str) -> Any:
        """A JSON answer of the server (outside the browser, for checking what the page shows)."""
        import httpx

        response = httpx.get(self.url + path, timeout=WAIT)
        response.raise_for_status()
        return response.json()

    def get_text(self, path: str) -> str:
        import httpx

        response = httpx.get(self.url + path, timeout=WAIT)
        response.raise_for_status()
        return response.text

    def messages(self) -> Iterator[tuple[str, str, Any]]:
        """Everything sent so far, parsed: ``(channel, path, JSON value)`` (non-JSON bodies —
        the page and its scripts — are left out)."""
        for channel, path, body in list(self.traffic):
            text = body.decode("utf-8", "replace") if isinstance(body, bytes) else str(body)
            try:
                value = json.loads(text)
            except ValueError:
                continue
            yield channel, path, value


def chromium() -> Any:
    """Headless Debian Chromium, driven through Debian's chromedriver."""
    missing = [p for p in (CHROMIUM, CHROMEDRIVER) if not Path(p).exists()]
    if missing:
        pytest.fail(
            f"the browser tests need Debian's Chromium: {', '.join(missing)} missing "
            "(apt-get install chromium chromium-driver; .ci/run installs them)",
            pytrace=False,
        )
    from selenium import webdriver
    from selenium.webdriver.chrome.options import Options
    from selenium.webdriver.chrome.service import Service

    options = Options()
    options.binary_location = CHROMIUM
    for arg in (
        "--headless=new",
        "--no-sandbox",
        "--disable-dev-shm-usage",
        "--window-size=1280,900",
        "--disable-gpu",
        "--no-first-run",
        "--disable-extensions",
    ):
        options.add_argument(arg)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    service = Service(CHROMEDRIVER)
    driver = webdriver.Chrome(service=service, options=options)
    driver.set_page_load_timeout(WAIT)
    driver.set_script_timeout(WAIT)
    return driver


def tid(name: str) -> str:
    """The CSS selector of a ``data-testid``."""
    return f'[data-testid="{name}"]'


class Page:
    """A browser tab on the server, with explicit waits and screenshots."""

    def __init__(self, driver: Any, server: LiveServer) -> None:
        self.driver = driver
        self.server = server
        self.shots = artifacts_dir()

    def open(self, hash_part: str = "") -> None:
        self.driver.get(f"{self.server.url}/{hash_part}")

    def wait(self, condition: Callable[[Any], Any], what: str, timeout: float = WAIT) -> Any:
        from selenium.common.exceptions import StaleElementReferenceException
        from selenium.webdriver.support.ui import WebDriverWait

        def check(driver: Any) -> Any:
            try:
                return condition(driver)
            except StaleElementReferenceException:  # the page redrew under us: look again
                return False

        try:
            return WebDriverWait(self.driver, timeout, poll_frequency=0.05).until(check)
        except Exception as err:
            self.screenshot(f"failed-{what.replace(' ', '-')[:40]}")
            shown = self.js("return document.querySelector('[data-testid=message]').textContent")
            raise AssertionError(
                f"the page did not show {what} within {timeout:g} s (message area: {shown!r}; "
                f"console: {self.console()})"
            ) from err

    def wait_quiet(self) -> None:
        from selenium.webdriver.support.ui import WebDriverWait

        try:
            WebDriverWait(self.driver, 5, poll_frequency=0.05).until(
                lambda d: d.execute_script(
                    "return document.getAnimations().every(a => a.playState !== 'running')"
                )
            )
        except Exception as err:
            raise AssertionError("the page kept animating") from err

    def console(self) -> list[str]:
        """The browser console's messages so far (errors of the page's scripts)."""
        try:
            return [str(e.get("message")) for e in self.driver.get_log("browser")]
        except Exception:  # a driver without the log: nothing to add
            return []

    def find(self, name: str) -> Any:
        from selenium.webdriver.common.by import By

        return self.wait(
            lambda d: next(iter(d.find_elements(By.CSS_SELECTOR, tid(name))), None), name
        )

    def all(self, css: str) -> list[Any]:
        from selenium.webdriver.common.by import By

        return list(self.driver.find_elements(By.CSS_SELECTOR, css))

    def js(self, script: str, *args: Any) -> Any:
        return self.driver.execute_script(script, *args)

    def hash_params(self) -> dict[str, str]:
        raw = self.js("return location.hash").lstrip("#")
        return {k: v[0] for k, v in parse_qs(raw).items()}

    def shown_card_ids(self) -> set[int]:
        """Every card id the page's DOM holds (each card element carries data-card-id, each
        move button data-cards)."""
        ids = self.js(
            """const all = (css) => [...document.querySelectorAll(css)];
            return [
              ...all('[data-card-id]').map(e => e.dataset.cardId),
              ...all('[data-cards]').flatMap(e => e.dataset.cards.split(' ')),
            ].filter(i => i !== '')"""
        )
        # A card face drawn without its id would escape the check: every card element is
        # either an identified card or a face-down back that names nothing.
        anonymous = self.js(
            """return [...document.querySelectorAll('.card')]
              .filter(e => !e.dataset.cardId && !(e.classList.contains('card--back')
                && ['hidden card', null].includes(e.getAttribute('aria-label'))))
              .map(e => e.outerHTML.slice(0, 120))"""
        )
        assert not anonymous, f"card elements without a card id: {anonymous}"
        return {int(i) for i in ids}

    def resize(self, width: int, height: int) -> None:
        """Makes the page's viewport (``innerWidth`` × ``innerHeight``) exactly this size."""
        self.driver.set_window_size(width, height)
        inner = self.js("return [innerWidth, innerHeight]")
        self.driver.set_window_size(width + (width - inner[0]), height + (height - inner[1]))
        self.wait(
            lambda d: self.js("return [innerWidth, innerHeight]") == [width, height],
            f"a {width}x{height} viewport",
        )

    def draw(self, state: dict[str, Any], *, live: bool = True) -> None:
        """Draws ``state`` with the page's own board module (static/board.js) in place of the
        view on screen, as a live table (``live``: moves clickable, nothing sent) or a replay
        does: for checking how the board shows a given state, whatever a server sends now."""
        self.open()
        self.find("lobby")
        error = self.driver.execute_async_script(
            """const [state, live, done] = arguments;
            import('/static/board.js').then((m) => {
              const app = document.getElementById('app');
              const view = document.createElement('section');
              view.className = live ? 'table-view' : 'replay-view';
              view.dataset.testid = 'drawn-view';
              view.dataset.over = String(Boolean(state.is_over));
              window.__played = [];
              const board = new m.Board(live ? (move) => window.__played.push(move) : null);
              view.append(board.root);
              app.replaceChildren(view);
              board.render(state);
              window.__board = board;
              done(null);
            }).catch((err) => done(String(err && err.stack || err)));""",
            state,
            live,
        )
        assert error is None, f"the board did not draw the state: {error}"

    def screenshot(self, name: str) -> Path:
        """Saves the page as ``name.png``, once its arrival animations have finished."""
        try:
            self.wait_quiet()
        except AssertionError:
            pass  # a screenshot of a page still moving is better than none
        path = self.shots / f"{name}.png"
        self.driver.save_screenshot(str(path))
        return path
