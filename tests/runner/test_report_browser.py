"""The report in a real browser: headless Chromium driven over the DevTools protocol.

Chromium is started with `--remote-debugging-pipe` (commands on its fd 3, answers on its fd 4,
each message JSON ended by a NUL byte), so no port, no websocket and no extra package is needed.
The checks: the page loads with no console error (a CSP hash that did not match would show here),
the "failures only" toggle hides passing cases, an implementation's `<script>` stays text (also
in a case whose details are filled in from its data block when unfolded), and at 375 px the page
neither scrolls sideways nor keeps the diff's two columns, and rule texts start folded.

    python -m tests.runner.test_report_browser DIR  # writes DIR/report-1280.png, DIR/report-375.png
"""

from __future__ import annotations

import base64
import json
import os
import select
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from ctxconf.runner import report
from ctxconf.runner.report import write_html
from tests.runner.test_report import SCRIPT, build_results

CHROMIUM = Path("/usr/bin/chromium")
FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--remote-debugging-pipe",
]
TIMEOUT = 30.0

pytestmark = [
    pytest.mark.skipif(
        not CHROMIUM.exists(),
        reason="needs Debian's chromium at /usr/bin/chromium (apt-get install chromium)",
    ),
    pytest.mark.slow,  # starts a browser
]


class Browser:
    """One headless Chromium and one page in it, driven by DevTools protocol commands."""

    def __init__(self, profile: Path) -> None:
        to_browser_r, self._to_browser = os.pipe()
        self._from_browser, from_browser_w = os.pipe()

        def wire_pipes() -> None:  # in the child: the protocol's fixed fds 3 and 4
            os.dup2(to_browser_r, 3)
            os.dup2(from_browser_w, 4)

        self.process = subprocess.Popen(
            [str(CHROMIUM), *FLAGS, f"--user-data-dir={profile}", "about:blank"],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            pass_fds=(3, 4),
            preexec_fn=wire_pipes,
        )
        os.close(to_browser_r)
        os.close(from_browser_w)
        self._buffer = b""
        self._next_id = 0
        self.events: list[dict[str, Any]] = []
        self.session = ""
        target = self.send("Target.createTarget", url="about:blank")["targetId"]
        self.session = self.send("Target.attachToTarget", targetId=target, flatten=True)[
            "sessionId"
        ]
        for domain in ("Page", "Runtime", "Log"):
            self.send(f"{domain}.enable")

    def send(self, method: str, **params: Any) -> dict[str, Any]:
        self._next_id += 1
        message: dict[str, Any] = {"id": self._next_id, "method": method, "params": params}
        if self.session:
            message["sessionId"] = self.session
        os.write(self._to_browser, json.dumps(message).encode() + b"\0")
        while True:
            answer = self._receive()
            if answer.get("id") == self._next_id:
                if "error" in answer:
                    raise RuntimeError(f"{method}: {answer['error']}")
                result: dict[str, Any] = answer.get("result", {})
                return result
            self.events.append(answer)

    def _receive(self, timeout: float = TIMEOUT) -> dict[str, Any]:
        deadline = time.monotonic() + timeout
        while b"\0" not in self._buffer:
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([self._from_browser], [], [], left)[0]:
                raise TimeoutError("no answer from chromium")
            chunk = os.read(self._from_browser, 1 << 20)
            if not chunk:
                raise EOFError("chromium closed the pipe")
            self._buffer += chunk
        raw, self._buffer = self._buffer.split(b"\0", 1)
        message: dict[str, Any] = json.loads(raw)
        return message

    def wait_for(self, method: str) -> dict[str, Any]:
        for index, event in enumerate(self.events):
            if event.get("method") == method:
                return self.events.pop(index)
        while True:
            event = self._receive()
            if event.get("method") == method:
                return event
            self.events.append(event)

    def open(self, url: str, width: int, height: int = 900, mobile: bool = False) -> None:
        self.resize(width, height, mobile)
        self.send("Page.navigate", url=url)
        self.wait_for("Page.loadEventFired")

    def resize(self, width: int, height: int, mobile: bool = False) -> None:
        self.send(
            "Emulation.setDeviceMetricsOverride",
            width=width, height=height, deviceScaleFactor=1, mobile=mobile,
        )  # fmt: skip

    def evaluate(self, expression: str) -> Any:
        answer = self.send("Runtime.evaluate", expression=expression, returnByValue=True)
        if "exceptionDetails" in answer:
            raise RuntimeError(f"{expression}: {answer['exceptionDetails']}")
        return answer["result"].get("value")

    def click(self, selector: str, seconds: float = 5.0) -> None:
        """A real mouse click in the middle of `selector`, sent once the page is still with the
        element there: Chromium drops a click that comes in the frames right after a scroll, so
        the element is scrolled into view, and aimed at again, until aiming moves nothing."""
        deadline = time.monotonic() + seconds
        while True:
            x, y, still = self.evaluate(f"({AIM})({json.dumps(selector)})")
            if still or time.monotonic() > deadline:
                break
            self.next_frame()
        for kind in ("mousePressed", "mouseReleased"):
            self.send("Input.dispatchMouseEvent", type=kind, x=x, y=y, button="left", clickCount=1)
        self.next_frame()

    def next_frame(self) -> None:
        """Returns once the page has drawn two more frames: what came before is on the screen."""
        self.send(
            "Runtime.evaluate",
            expression="new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)))",
            awaitPromise=True,
        )

    def screenshot(self, path: Path) -> None:
        data = self.send("Page.captureScreenshot", format="png")["data"]
        path.write_bytes(base64.b64decode(data))

    def errors(self) -> list[str]:
        self._drain()
        found = []
        for event in self.events:
            method, params = event.get("method"), event.get("params", {})
            if method == "Runtime.exceptionThrown":
                found.append(json.dumps(params["exceptionDetails"])[:500])
            elif method == "Runtime.consoleAPICalled" and params.get("type") in ("error", "assert"):
                found.append(json.dumps(params.get("args"))[:500])
            elif method == "Log.entryAdded" and params["entry"].get("level") == "error":
                found.append(params["entry"].get("text", ""))
            elif method == "Page.javascriptDialogOpening":
                found.append(f"a dialog opened: {params.get('message')}")
        return found

    def _drain(self) -> None:
        while b"\0" in self._buffer or select.select([self._from_browser], [], [], 0.2)[0]:
            self.events.append(self._receive())

    def close(self) -> None:
        try:
            self.send("Browser.close")
        except (OSError, EOFError, TimeoutError, RuntimeError):
            pass
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        os.close(self._to_browser)
        os.close(self._from_browser)


@pytest.fixture(scope="module")
def report_url(tmp_path_factory: pytest.TempPathFactory) -> str:
    path = tmp_path_factory.mktemp("report") / "report.html"
    write_html(build_results(), path)
    return path.as_uri()


@pytest.fixture
def browser(tmp_path: Path) -> Iterator[Browser]:
    opened = Browser(tmp_path / "profile")
    try:
        yield opened
    finally:
        opened.close()


# Scrolls `selector` to the middle of the view: its middle point, and whether the page was
# still (nothing scrolled, and that point is the element).
AIM = (
    "(s) => { const e = document.querySelector(s), before = [scrollX, scrollY];"
    " e.scrollIntoView({block: 'center'}); const r = e.getBoundingClientRect();"
    " const x = r.x + r.width / 2, y = r.y + r.height / 2;"
    " return [x, y, before[0] === scrollX && before[1] === scrollY"
    " && e.contains(document.elementFromPoint(x, y))]; }"
)
VISIBLE = (
    "(s) => { const e = document.querySelector(s); return !!e && e.getClientRects().length > 0; }"
)


def visible(browser: Browser, selector: str) -> bool:
    return bool(browser.evaluate(f"({VISIBLE})({json.dumps(selector)})"))


def becomes(browser: Browser, expression: str, expected: Any, seconds: float = 5.0) -> Any:
    """The value of `expression` once it is `expected`, or its last value after `seconds`: the
    assertion then shows what the page had instead."""
    deadline = time.monotonic() + seconds
    while (value := browser.evaluate(expression)) != expected and time.monotonic() <= deadline:
        time.sleep(0.05)
    return value


def becomes_visible(browser: Browser, selector: str, seconds: float = 5.0) -> bool:
    """Whether `selector` is visible within `seconds`: what a click sets off (a `toggle`
    event's handler) runs as a task of its own, after the click has returned."""
    return becomes(browser, f"({VISIBLE})({json.dumps(selector)})", True, seconds) is True


def test_page_loads_without_console_errors(browser: Browser, report_url: str) -> None:
    browser.open(report_url, 1280)
    assert browser.evaluate("document.title").startswith("ctxconf report: fake <impl>")
    assert browser.evaluate("document.querySelectorAll('.case').length") == 7
    assert browser.errors() == []


def test_failures_only_hides_passing_cases(browser: Browser, report_url: str) -> None:
    browser.open(report_url, 1280)
    passing = "#case-context-reread-unchanged-is-stub"
    failing = "#case-context-stub-only-inside-an-earlier-read"
    assert visible(browser, passing) and visible(browser, failing)
    assert visible(browser, "#filter"), "the script shows the toggle"
    browser.click("#only-failures")
    assert browser.evaluate("document.getElementById('only-failures').checked") is True
    assert not visible(browser, passing)
    assert not visible(browser, "#passed") and not visible(browser, "#skipped")
    assert visible(browser, "#rule-totals") and visible(browser, "#spec")
    assert visible(browser, failing) and visible(
        browser, "#case-context-read-after-own-edit-is-full"
    )
    browser.click("#only-failures")
    assert visible(browser, passing)
    assert browser.errors() == []


def test_an_implementation_script_stays_text(browser: Browser, report_url: str) -> None:
    browser.open(report_url, 1280)
    assert browser.evaluate("typeof window.pwned") == "undefined"
    assert browser.evaluate("typeof window.pwned2") == "undefined"
    assert browser.evaluate("document.scripts.length") == 1
    assert browser.evaluate("document.querySelectorAll('img').length") == 0
    shown = browser.evaluate("document.body.textContent")
    assert SCRIPT in shown and 'onerror="window.pwned2 = 1"' in shown
    assert browser.errors() == []


def test_diff_columns_side_by_side_wide_and_stacked_narrow(
    browser: Browser, report_url: str
) -> None:
    columns = (
        "getComputedStyle(document.querySelector('.diff')).gridTemplateColumns.split(' ').length"
    )
    browser.open(report_url, 1280)
    assert browser.evaluate(columns) == 2
    browser.open(report_url, 375, 812, mobile=True)
    assert browser.evaluate(columns) == 1
    expected_title, actual_title = browser.evaluate(
        "[...document.querySelector('.diff').querySelectorAll('.side-title')]"
        ".map(e => e.getBoundingClientRect().top)"
    )
    assert actual_title > expected_title, "narrow: actual below expected"
    # On a phone the layout viewport grows to the widest content; clientWidth stays the screen's.
    overflow = browser.evaluate(
        "document.documentElement.scrollWidth - document.documentElement.clientWidth"
    )
    assert overflow <= 0, f"the page scrolls sideways by {overflow}px at 375px"
    assert browser.errors() == []


@pytest.fixture(scope="module")
def many_failures_url(tmp_path_factory: pytest.TempPathFactory) -> str:
    """A page with more failing cases than are rendered eagerly."""
    from tests.runner.test_report_bounds import _many_failing

    path = tmp_path_factory.mktemp("many") / "report.html"
    write_html(_many_failing(report.EAGER_CASES + 5), path)
    return path.as_uri()


def test_a_folded_case_past_the_first_fills_in_when_unfolded(
    browser: Browser, many_failures_url: str
) -> None:
    browser.open(many_failures_url, 1280)
    lazy = "details.lazy"
    assert browser.evaluate(f"document.querySelectorAll('{lazy}').length") == 5
    assert browser.evaluate("document.querySelectorAll('details.case[open]').length") == 0
    assert not visible(browser, f"{lazy} .diff")
    browser.click(f"{lazy} > summary")
    assert browser.evaluate(f"document.querySelector('{lazy}').open") is True
    assert becomes_visible(browser, f"{lazy} .diff"), "the diff is filled in from the data block"
    assert SCRIPT in browser.evaluate(f"document.querySelector('{lazy} .diff').textContent")
    rule_text = browser.evaluate(
        f"document.querySelector('{lazy} .rule-text[data-rule]').textContent.trim().length"
    )
    assert rule_text > 0, "the rule's text is copied from its spec section"
    assert browser.evaluate("typeof window.pwned") == "undefined"
    assert browser.evaluate("document.querySelectorAll('img').length") == 0
    assert browser.errors() == []


def test_a_link_to_a_folded_case_unfolds_it(browser: Browser, many_failures_url: str) -> None:
    last = f"case-context-stub-only-inside-an-earlier-read-{report.EAGER_CASES + 4}"
    browser.open(f"{many_failures_url}#{last}", 1280)
    assert browser.evaluate(f"document.getElementById('{last}').open") is True
    assert becomes_visible(browser, f"#{last} .diff")  # filled in by the toggle it set off
    assert browser.errors() == []


def test_rule_texts_start_folded_on_a_narrow_screen(browser: Browser, report_url: str) -> None:
    opened = "document.querySelectorAll('.rules-panel details[open]').length"
    browser.open(report_url, 1280)
    assert browser.evaluate(opened) > 0
    browser.open(report_url, 375, 812, mobile=True)
    assert browser.evaluate(opened) == 0
    assert browser.evaluate("document.querySelectorAll('.rules-panel details').length") > 0
    assert browser.errors() == []


def take_screenshots(folder: Path, profile: Path) -> list[Path]:
    """A report with failures at 1280 and at 375 px wide, scrolled to its first failing step."""
    page = folder / "report-screenshot.html"
    write_html(build_results(), page)
    opened = Browser(profile)
    shots = []
    try:
        for width, height, mobile in ((1280, 1100, False), (375, 1400, True)):
            opened.open(page.as_uri(), width, height, mobile)
            opened.evaluate("document.querySelector('#failures').scrollIntoView()")
            shot = folder / f"report-{width}.png"
            opened.screenshot(shot)
            shots.append(shot)
    finally:
        opened.close()
    return shots


def test_screenshots_are_taken(tmp_path: Path) -> None:
    shots = take_screenshots(tmp_path, tmp_path / "profile")
    for shot in shots:
        assert shot.read_bytes().startswith(b"\x89PNG\r\n\x1a\n")
        assert shot.stat().st_size > 10_000


if __name__ == "__main__":
    out = Path(sys.argv[1] if len(sys.argv) > 1 else "/tmp")
    import tempfile

    with tempfile.TemporaryDirectory() as profile:
        for shot in take_screenshots(out, Path(profile)):
            print(shot)
