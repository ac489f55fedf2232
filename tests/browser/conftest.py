"""Browser tests: the real server (uvicorn, in a subprocess) driven by headless Chromium.

Chromium is Debian's ``/usr/bin/chromium`` (installed by ``make sysdeps``),
driven through Playwright for Python; ``playwright install`` is never run.
Without that binary the tests skip with the reason.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request
import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

CHROMIUM = Path(os.environ.get("CANOPY_CHROMIUM", "/usr/bin/chromium"))
REPO = Path(__file__).resolve().parents[2]
ARGS = [
    "--headless=new",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]

pytestmark = pytest.mark.browser


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


#: Each running server's log and process by its base URL (dropped when it stops), so a
#: failure message can quote the log of the server its page was talking to, and ask that
#: server for its threads' stacks first.
_servers: dict[str, tuple[Path, subprocess.Popen[bytes]]] = {}


@contextlib.contextmanager
def run_server(data_dir: Path, log: Path, env: dict[str, str] | None = None) -> Iterator[str]:
    """Base URL of a real Canopy server on a free port (small search budgets), stopped on
    exit; ``env`` adds or overrides environment variables (e.g. ``CANOPY_LEARNED_WEIGHTS``)."""
    if not CHROMIUM.exists():
        pytest.skip(f"{CHROMIUM} not found: install Debian's chromium (make sysdeps)")
    port = _free_port()
    full_env = {
        **os.environ,
        "CANOPY_DATA_DIR": str(data_dir),
        "CANOPY_THINK_MS": "150",
        "CANOPY_MIN_THINK_MS": "10",
        "CANOPY_ITERATIONS": "200",
        "CANOPY_MAX_SEARCHES": "4",
        "CANOPY_STATS_HZ": "10",
        **(env or {}),
    }
    with log.open("w") as out:
        proc = subprocess.Popen(
            [sys.executable, "-c", f"from app.server import serve; serve(port={port})"],
            cwd=REPO,
            env=full_env,
            stdout=out,
            stderr=subprocess.STDOUT,
        )
    base = f"http://127.0.0.1:{port}"
    _servers[base] = (log, proc)
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                with urllib.request.urlopen(base + "/api/health", timeout=1) as r:
                    if json.load(r)["status"] == "ok":
                        break
            except OSError:
                pass
            if proc.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"the server did not start:\n{log.read_text()}")
            time.sleep(0.1)
        # Let the kernels warm up so the first game does not wait for a compile: on a
        # fresh clone of a loaded machine that takes minutes, and a test that went on
        # meanwhile would time out waiting for its first step (seen in CI).
        warm_deadline = time.monotonic() + 600
        while True:
            with urllib.request.urlopen(base + "/api/server", timeout=5) as r:
                if json.load(r)["warm"]:
                    break
            if proc.poll() is not None or time.monotonic() > warm_deadline:
                raise RuntimeError(f"the kernels did not warm up:\n{log.read_text()}")
            time.sleep(0.2)
        yield base
    finally:
        del _servers[base]
        proc.terminate()
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()


@pytest.fixture(scope="session")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """Base URL of a real Canopy server on a free port (small search budgets)."""
    data = tmp_path_factory.mktemp("data")
    with run_server(data, tmp_path_factory.mktemp("log") / "server.log") as base:
        yield base


@pytest.fixture(scope="package")
def browser(server: str) -> Iterator[Any]:
    """One Chromium for the browser tests, closed when they are done: Playwright's sync API
    keeps an event loop running while it is open, which would stop later tests from using
    ``asyncio.run``."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=str(CHROMIUM), args=ARGS)
        yield b
        b.close()


@pytest.fixture
def page(browser: Any) -> Iterator[Any]:
    """A fresh page (1280×800); fails the test on any JavaScript error."""
    context = browser.new_context(viewport={"width": 1280, "height": 800}, accept_downloads=True)
    pg = context.new_page()
    errors: list[str] = []
    pg.on("pageerror", lambda exc: errors.append(str(exc)))
    pg.on(
        "console",
        lambda msg: errors.append(msg.text) if msg.type == "error" else None,
    )
    pg.set_default_timeout(20_000)
    yield pg
    context.close()
    assert not errors, f"JavaScript errors on the page: {errors}"


def api_create(base: str, **body: Any) -> dict[str, Any]:
    req = urllib.request.Request(
        base + "/api/games",
        data=json.dumps(body).encode(),
        headers={"Content-Type": "application/json"},
    )
    with urllib.request.urlopen(req) as r:
        return dict(json.load(r))


def api_get(base: str, path: str) -> Any:
    with urllib.request.urlopen(base + path) as r:
        body = r.read().decode()
        return json.loads(body) if r.headers.get_content_type() == "application/json" else body


def open_game(page: Any, base: str, game: dict[str, Any], *, token: bool = True) -> None:
    url = base + game["url"] + (f"#token={game['token']}" if token else "")
    page.goto(url)
    page.wait_for_selector("body[data-conn=open][data-version]")


def page_state(page: Any) -> dict[str, Any]:
    """The latest ``state`` frame the page holds (what its board shows)."""
    return dict(page.evaluate("window.canopy.state.game"))


def square_center(page: Any, square: str) -> tuple[float, float]:
    box = page.locator("cg-board").bounding_box()
    flipped = page.locator(".cg-wrap.orientation-black").count() > 0
    file, rank = ord(square[0]) - 97, int(square[1]) - 1
    if flipped:
        file, rank = 7 - file, 7 - rank
    size = box["width"] / 8
    return box["x"] + (file + 0.5) * size, box["y"] + (7 - rank + 0.5) * size


def click_move(page: Any, uci: str) -> None:
    """Play ``uci`` by clicking its two squares (and the promotion piece if asked)."""
    page.mouse.click(*square_center(page, uci[:2]))
    page.mouse.click(*square_center(page, uci[2:4]))
    if len(uci) == 5:
        page.locator(f"#promotion button[data-piece={uci[4]}]").click()


def selected_info(node_id: int) -> str:
    """A JS predicate: the node card shows the server's details of node ``node_id``.

    The page's state holds a node frame one animation frame before the card is drawn
    from it, so waiting on the state alone let a test read an empty card.
    """
    return (
        f"() => (window.canopy.state.inside.nodeInfo || {{}}).id === {node_id}"
        f" && document.querySelector('#node-card').dataset.info === '{node_id}'"
    )


def tab(page: Any, name: str) -> None:
    page.click(f"#tab-{name}")
    page.wait_for_function(f"() => document.body.dataset.tab === '{name}'")
    # The keys pressed next (Space) would give the clicked tab a focus ring in the pictures.
    page.evaluate("document.activeElement.blur()")


def analyse(page: Any, *, at_least: int) -> None:
    """Start an analysis, wait for ``at_least`` iterations, stop, wait until idle."""
    page.keyboard.press("Space")
    page.wait_for_function(
        f"() => Number(document.body.dataset.iterations) >= {at_least}", timeout=30_000
    )
    page.keyboard.press("Space")
    page.wait_for_function(
        "() => window.canopy.state.game.search.status === 'idle'"
        " && window.canopy.state.stats && !window.canopy.state.stats.running"
    )


#: How long one step may take to be drawn: generous, for a loaded CI machine.
STEP_TIMEOUT_MS = 60_000


def step_times(page: Any, times: int) -> dict[str, Any]:
    """Press Step (in the Step tab) ``times`` times, each once the page has drawn the
    previous step's phases; the last step frame. (The page rebuilds the phases for each
    step, so a phase without the mark set here is the new step's.)

    Each click waits for an open socket first (a click while the page reconnects sends
    nothing), is made again if its press missed the button (:func:`click_step`), and a step that
    draws nothing fails with what the page and the server said, not with a bare timeout.
    """
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    watch_step_clicks(page)
    for i in range(times):
        page.wait_for_selector("body[data-conn=open]", timeout=STEP_TIMEOUT_MS)
        page.evaluate(
            "document.querySelectorAll('#phases .phase').forEach((e) => (e.dataset.seen = 1))"
        )
        click_step(page)
        try:
            page.wait_for_function(
                "() => { const p = document.querySelector('#phases .phase');"
                " return !!p && !p.dataset.seen; }",
                timeout=STEP_TIMEOUT_MS,
            )
        except PlaywrightTimeout as exc:
            raise AssertionError(
                f"step {i + 1} of {times} drew no phases in {STEP_TIMEOUT_MS // 1000} s; "
                + page_diagnostics(page)
            ) from exc
    return dict(page.evaluate("window.canopy.state.inside.step"))


def watch_step_clicks(page: Any) -> None:
    """Count the presses the Step button acts on, a primary mouse button's ``pointerdown``
    on it while it is enabled (seen in the capture phase, before its own handler runs; the
    page steps on that press, not on the click), and keep the page's last pointer events
    with where the page was scrolled, so a test can tell a press that missed the button
    from a request the app did not answer."""
    page.evaluate(
        """() => { if (window.__stepPresses !== undefined) return;
        window.__stepPresses = 0; window.__pointer = [];
        for (const type of ['pointerdown', 'pointerup', 'click']) {
          document.addEventListener(type, (e) => {
            const step = document.querySelector('#step-once');
            const onStep = !!e.target.closest('#step-once');
            if (type === 'pointerdown' && onStep && e.pointerType === 'mouse'
                && e.button === 0 && !step.disabled) window.__stepPresses += 1;
            const b = step.getBoundingClientRect();
            window.__pointer.push(`${type} ${e.target.tagName.toLowerCase()}`
              + `${e.target.id ? '#' + e.target.id : ''} at (${e.clientX}, ${e.clientY});`
              + ` Step at (${Math.round(b.x)}, ${Math.round(b.y)}),`
              + ` scrollY ${Math.round(scrollY)}`);
            window.__pointer.splice(0, window.__pointer.length - 9);
          }, true);
        } }"""
    )


#: Times a click at the Step button may miss it before the test fails.
STEP_CLICK_TRIES = 3


def click_step(page: Any) -> None:
    """Click Step until the button itself gets the press.

    The page scrolls itself (smoothly) to follow a step's phases, and the Step bar sticks to
    the window's top once the page scrolls past it, so the button moves. In CI a click was
    seen to lose its step that way: the mouse went down on the button at scrollY 0, the page
    scrolled to 17 before the mouse came up, the button moved from y 291 to 274, and the
    mouseup and so the click landed on a div (no click on the button, no step). The page now
    steps on the mouse's press (``pointerdown``), so a press on the button is one step
    wherever the release lands, and that press is what is counted here. A press that missed
    the button altogether (the page moved it between Playwright's aim and the press) never
    asked the app for anything, so it is made again, with a warning that quotes the pointer
    events; a press that misses every time fails the test.
    """
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    before = int(page.evaluate("window.__stepPresses"))
    for attempt in range(1, STEP_CLICK_TRIES + 1):
        page.click("#step-once")
        try:
            page.wait_for_function(f"() => window.__stepPresses > {before}", timeout=10_000)
            return
        except PlaywrightTimeout:
            events = page.evaluate("window.__pointer.join('; ')")
            if attempt == STEP_CLICK_TRIES:
                raise AssertionError(
                    f"{attempt} clicks at Step all missed it; pointer events: {events}"
                ) from None
            warnings.warn(f"a click at Step missed it; clicked again: {events}", stacklevel=2)


def page_diagnostics(page: Any) -> str:
    """What a stuck page shows and got (connection, search status, toasts, the frames and
    steps it received, whether it is visible) and the tail of its server's log, after
    asking that server for its threads' stacks (SIGUSR1, see ``app.server``), for a failure
    message; never raises, so the failure it describes stays the one reported."""
    try:
        seen = json.dumps(
            page.evaluate(
                """() => { const s = window.canopy.state, i = s.inside || {};
                return {conn: document.body.dataset.conn,
                  status: (s.game || {search: {}}).search.status,
                  toasts: [...document.querySelectorAll('#toasts .toast')]
                    .map((t) => t.textContent),
                  frames: s.received.frames, last_frame: s.received.type,
                  last_frame_ms_ago: Date.now() - s.received.at,
                  step_presses: window.__stepPresses, pointer: window.__pointer,
                  steps_received: (i.steps || []).length,
                  step_iteration: i.step ? i.step.iteration : null,
                  tab: document.body.dataset.tab,
                  step_disabled: (document.querySelector('#step-once') || {}).disabled,
                  visibility: document.visibilityState}; }"""
            )
        )
    except Exception as exc:  # a crashed page is itself the diagnosis
        seen = f"the page did not answer ({exc})"
    server = next((v for base, v in _servers.items() if page.url.startswith(base)), None)
    if server is None or not server[0].exists():
        return f"page: {seen}; no server log for {page.url}"
    log, proc = server
    with contextlib.suppress(Exception):
        if proc.poll() is None and hasattr(signal, "SIGUSR1"):
            proc.send_signal(signal.SIGUSR1)
            time.sleep(1.0)  # faulthandler writes at once; let it reach the file
    tail = "".join(log.read_text(errors="replace").splitlines(keepends=True)[-150:])
    return f"page: {seen}; server log tail with its threads' stacks ({log}):\n{tail}"
