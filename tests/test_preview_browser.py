"""Drive the preview page in a real headless Chromium (Debian's /usr/bin/chromium via Playwright).

Nothing is downloaded: Playwright's own browser builds are never used (`playwright install` is not
run); the test launches the system Chromium, which the set-up installs with
`apt-get install -y chromium`. Without it the test skips, except when the environment variable CI
is set (CI=true in .ci/run), where it fails.

The page is opened from file:// with every http(s) request aborted and recorded, so it must work
with no server and no network.
"""
from __future__ import annotations

import os
import shutil
from collections import Counter
from pathlib import Path

import pytest

from tests.generated import attrs, find_relay, find_truncated_turn, write_dataset

PAGES = ("interruption_discard", "delegation", "proactive_timer", "backchannel")

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync"]


def _in_ci() -> bool:
    """CI is set (to anything): a missing browser is then a set-up bug, not a reason to skip."""
    return bool(os.environ.get("CI", "").strip())


def _require_browser() -> None:
    if not Path(CHROMIUM).exists():
        why = (f"{CHROMIUM} is absent: install Debian's browser with `apt-get install -y chromium` "
               "(never `playwright install`)")
        if _in_ci():
            pytest.fail(f"CI is set and {why}")
        pytest.skip(why)
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError as err:
        if _in_ci():
            pytest.fail(f"CI is set and Playwright for Python is missing ({err}): pip install playwright")
        pytest.skip(f"Playwright for Python is not installed ({err})")


@pytest.fixture(scope="module")
def browser():
    _require_browser()
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, timeout=30_000)
        yield b
        b.close()


@pytest.fixture(scope="module")
def pages(tmp_path_factory, generated):
    """Generated rows rendered through the CLI: {scenario: (row, page path)}."""
    from jobs.cli import main

    tmp = tmp_path_factory.mktemp("preview_browser")
    rows = [generated.situation(name, row_id=f"s0-00000-{i:07d}") for i, name in enumerate(PAGES)]
    data = write_dataset(tmp / "data", rows)
    out = {}
    for row in rows:
        page = tmp / f"{row.scenario}.html"
        assert main(["preview", str(data), "--id", row.id, "--out", str(page)]) == 0
        out[row.scenario] = (row, page)
    return out


class _Session:
    """A page opened from file:// with console errors, page errors and network attempts recorded."""

    def __init__(self, browser, path: Path):
        self.context = browser.new_context(viewport={"width": 1500, "height": 950})
        self.network: list[str] = []
        self.errors: list[str] = []

        def block(route):
            self.network.append(route.request.url)
            route.abort()

        self.context.route("http://**/*", block)
        self.context.route("https://**/*", block)
        self.page = self.context.new_page()
        self.page.on("console", lambda m: self.errors.append(f"console.{m.type}: {m.text}")
                     if m.type == "error" else None)
        self.page.on("pageerror", lambda e: self.errors.append(f"pageerror: {e}"))
        self.page.on("requestfailed", lambda r: self.errors.append(f"requestfailed: {r.url}"))
        self.page.goto(path.as_uri())
        self.page.wait_for_function("window.preview !== undefined")

    def t(self) -> float:
        """The playhead position (s), as the page shows it."""
        return float(self.page.get_attribute("#playhead", "data-t"))

    def playhead_x(self) -> float:
        return self.page.locator("#playhead").bounding_box()["x"]

    def audio_t(self) -> float:
        return self.page.evaluate("window.preview.active().currentTime")

    def close(self) -> None:
        self.context.close()


@pytest.fixture
def session(browser):
    opened: list[_Session] = []

    def open_(path: Path) -> _Session:
        s = _Session(browser, path)
        opened.append(s)
        return s

    yield open_
    for s in opened:
        s.close()


@pytest.mark.parametrize("scenario", PAGES)
def test_lanes_render_one_per_event_kind(session, pages, scenario):
    row, path = pages[scenario]
    s = session(path)
    page = s.page
    kinds = Counter(e.kind for e in row.events)
    lanes = page.eval_on_selector_all(".lane[data-kind]", "els => els.map(e => e.dataset.kind)")
    assert Counter(lanes) == Counter(set(kinds)), "exactly one lane element per event kind present"
    for kind, n in kinds.items():
        lane = page.locator(f'.lane[data-kind="{kind}"]')
        box = lane.bounding_box()
        assert box and box["width"] > 500 and box["height"] >= 20, kind
        assert lane.locator(".item").count() == n, kind
        assert lane.locator(".item").first.is_visible(), kind
    # word-level text is on screen for every voiced word
    words = page.eval_on_selector_all(".word", "els => els.map(e => e.textContent)")
    assert Counter(words) == Counter(w.word for w in row.words)
    # the unit strip: one input cell and one output cell per unit, output drawn one unit later
    assert page.locator(".unit").count() == len(row.units)
    for u in row.units[:4]:
        cell_in = page.locator(f'.unit[data-index="{u.index}"]').bounding_box()
        cell_out = page.locator(f'.unit-out[data-index="{u.index}"]').bounding_box()
        assert cell_out["x"] - cell_in["x"] == pytest.approx(cell_in["width"], abs=2)
        assert u.decision.upper() in page.locator(f'.unit-out[data-index="{u.index}"]').inner_text()
    if "delegate" in kinds:
        arrows = page.locator("svg.arrows g.arrow")
        assert arrows.count() == kinds["backend"]
        b = attrs(find_relay(row)[0])
        assert arrows.first.get_attribute("data-task") == b["task_id"]
        assert arrows.first.locator("text").text_content() == \
            f"{b['task_id']} · {b['tool']} · {b['ready_s'] - b['issued_s']:.2f} s"
    assert s.errors == [] and s.network == []


def test_interrupted_turn_shows_unspoken_text_struck_through(session, pages):
    row, path = pages["interruption_discard"]
    s = session(path)
    turn = find_truncated_turn(row)
    txt = s.page.locator(".unspoken .txt")
    assert txt.text_content() == attrs(turn)["unspoken_text"] != ""
    assert "line-through" in txt.evaluate("e => getComputedStyle(e).textDecorationLine")
    assert s.page.locator(".cut").inner_text().strip() == f"✂ cut {attrs(turn)['cut_s']:.2f} s"


def test_play_seek_click_hover_and_screenshot(session, pages, tmp_path_factory):
    row, path = pages["backchannel"]      # playing, seeking and the backchannel click
    s = session(path)
    page = s.page
    u = row.unit_s
    assert s.t() == 0.0
    x0 = s.playhead_x()

    # playing moves the playhead with the audio clock
    page.click("#play")
    page.wait_for_function("window.preview.active().currentTime > 0.6", timeout=10_000)
    page.wait_for_timeout(100)
    assert s.t() > 0.5 and s.playhead_x() > x0 + 20
    page.click("#play")   # pause
    assert not page.evaluate("window.preview.state.playing")
    assert abs(s.t() - s.audio_t()) < 0.05

    # seeking: click the ruler at 8.5 s
    ruler = page.locator(".ruler").bounding_box()
    pps = page.evaluate("parseFloat(getComputedStyle(document.getElementById('timeline')).getPropertyValue('--pps'))")
    page.mouse.click(ruler["x"] + 8.5 * pps, ruler["y"] + ruler["height"] / 2)
    assert s.t() == pytest.approx(8.5, abs=0.05) and s.audio_t() == pytest.approx(8.5, abs=0.05)
    assert s.playhead_x() == pytest.approx(ruler["x"] + 8.5 * pps, abs=2)

    # clicking a unit seeks every source to that unit's start
    for k in (5, 2):
        cell = page.locator(f'.unit[data-index="{k}"]')
        cell.click()
        times = page.evaluate("Object.values(window.preview.audios).map(a => a.currentTime)")
        assert times == pytest.approx([k * u] * 3, abs=1e-3)
        assert s.t() == pytest.approx(k * u, abs=1e-3)
        assert s.playhead_x() == pytest.approx(cell.bounding_box()["x"], abs=3)

    # clicking an event seeks to its start
    bc = next(e for e in row.events if e.kind == "backchannel")
    page.locator(f'.lane[data-kind="backchannel"] .item[data-id="{bc.id}"]').click()
    assert s.audio_t() == pytest.approx(bc.start_s, abs=1e-3)

    # the source toggles switch the audible channel and keep the clock
    page.click("#tog-user")
    assert page.evaluate("window.preview.active().id") == "audio-user"
    assert page.get_attribute("#tog-user", "aria-pressed") == "true"
    assert page.get_attribute("#tog-mix", "aria-pressed") == "false"
    assert s.audio_t() == pytest.approx(bc.start_s, abs=1e-3)
    page.click("#play")
    page.wait_for_function(f"window.preview.active().currentTime > {bc.start_s + 0.3}", timeout=10_000)
    page.click("#play")
    assert s.t() > bc.start_s + 0.25
    page.click("#tog-mix")

    assert s.errors == [] and s.network == []
    # hovering shows the event's attributes (on the interruption's page)
    s = session(pages["interruption_discard"][1])
    page = s.page
    page.locator('.lane[data-kind="interruption"] .item').hover()
    tip = page.locator("#tip")
    assert tip.is_visible()
    assert "attrs.action" in tip.inner_text() and "discard" in tip.inner_text()
    page.locator('.unit-out[data-index="4"]').hover()
    assert "plays in" in tip.inner_text() and "window 5" in tip.inner_text()

    shots = tmp_path_factory.mktemp("screenshots")
    shot = shots / "preview_interruption_discard.png"
    page.mouse.move(5, 5)
    page.evaluate("window.preview.seek(4.4)")
    page.screenshot(path=str(shot), full_page=True)
    assert shot.stat().st_size > 20_000
    keep = os.environ.get("PREVIEW_SCREENSHOT_DIR")   # optional: keep a copy to look at
    if keep:
        Path(keep).mkdir(parents=True, exist_ok=True)
        shutil.copy(shot, Path(keep) / shot.name)
    print(f"screenshot: {shot}")
    assert s.errors == [] and s.network == []
