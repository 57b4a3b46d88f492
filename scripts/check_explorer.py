"""Drive the book's MCTS explorer like a reader: part of ``make check-book``.

Used by ``scripts/check_book.py``; also runs alone against any folder laid out like the built
book (``book/16b_explorer.html`` beside ``_static/``)::

    python scripts/check_explorer.py [_build/html] [--chromium PATH] [--screenshots DIR]

On ``book/16b_explorer.html`` it checks the page contract (see
``book/_static/explorer/explorer.js``) and that the page and the package agree:

- the page gets ready, offers the three games, says ``iteration 0`` and draws the root;
- one tic-tac-toe iteration stepped phase by phase (the status names each phase; the
  selection path and the new node are lit), then 99 more run with ``#explorer-count``: the root's
  children are drawn by default, and with the whole tree drawn, every node's ``data-visits`` and
  ``data-wins`` equal the tree ``MCTSAgent`` builds in this Python with the same settings and
  seed (computed here, not read from the page);
- clicking a node fills ``table#explorer-table`` with one row per child, with the package's
  visits, and exactly one row marked as selection's next child where the node is fully expanded;
- the page's link, opened in a new tab, restores the same screen (status, nodes, table);
- the same agreement for Connect Four with expansion threshold 10 and for Othello;
- the keyboard steps a phase, and again (the focus survives the redraw, on a node and on a
  button); at 1280 px the children table fits, the share chart draws every root move, the page
  says which move MCTS would play; the tree exports as an SVG file; at a phone's width (390 px)
  the explorer does not overflow the page and a table that scrolls shows a hint that it does;
- no JavaScript error, no console error and no request to another host throughout.
"""

from __future__ import annotations

import argparse
import math
import sys
from pathlib import Path

EXPLORER_PAGE = "book/16b_explorer.html"
READY_TIMEOUT_MS = 120_000
_IDLE = """
() => { const e = document.querySelector('.mcts-explorer');
        return e && e.dataset.state === 'ready' && e.dataset.busy !== 'true'; }
"""
_DRAWN = """
() => Array.from(document.querySelectorAll('#explorer-tree [data-node]'))
    .map(e => [e.dataset.node, Number(e.dataset.visits), Number(e.dataset.wins)])
"""


def package_tree(game: str, iterations: int, threshold: int = 1, seed: int = 0, moves=()):
    """{dotted key: (visits, wins)} of the tree MCTSAgent builds in this Python."""
    from mcts_course.agents import MCTSAgent
    from mcts_course.games import game_class

    state = game_class(game)()
    for action in moves:
        state = state.play(action)
    agent = MCTSAgent(iterations=iterations, expand_threshold=threshold, c=math.sqrt(2), seed=seed)
    found, stack = {}, [((), agent.search(state))]
    while stack:
        actions, node = stack.pop()
        found[".".join(map(str, actions))] = (node.visits, node.wins)
        stack += [((*actions, a), child) for a, child in node.children.items()]
    return found


def wait_idle(page) -> None:
    page.wait_for_function(_IDLE, timeout=READY_TIMEOUT_MS, polling=50)


def wait_for_explorer(page, timeout_ms: int = READY_TIMEOUT_MS) -> list[str]:
    """Wait until an explorer on ``page`` has started (so that no download of Python is cut
    short by closing the page); problems if it does not."""
    if page.locator(".mcts-explorer").count() == 0:
        return []
    try:
        page.wait_for_function(
            "() => ['ready', 'failed']"
            ".includes(document.querySelector('.mcts-explorer').dataset.state)",
            timeout=timeout_ms,
        )
    except Exception as error:  # Playwright's TimeoutError, or the page went away
        return [f"the explorer did not start: {type(error).__name__}"]
    if page.get_attribute(".mcts-explorer", "data-state") != "ready":
        return [f"the explorer failed: {page.text_content('#explorer-status')}"]
    return []


def _status(page) -> str:
    return page.text_content("#explorer-status") or ""


def drawn(page) -> dict[str, tuple[int, float]]:
    return {key: (visits, wins) for key, visits, wins in page.evaluate(_DRAWN)}


def compare(label: str, shown: dict, expected: dict) -> list[str]:
    """Problems where the page's tree differs from the package's."""
    if shown == expected:
        return []
    missing = sorted(set(expected) - set(shown))[:5]
    extra = sorted(set(shown) - set(expected))[:5]
    wrong = [k for k in sorted(set(shown) & set(expected)) if shown[k] != expected[k]][:5]
    return [
        f"{label}: the page's tree differs from MCTSAgent's: {len(shown)} nodes drawn, "
        f"{len(expected)} in Python; missing {missing}, extra {extra}, "
        f"different {[(k, shown[k], expected[k]) for k in wrong]}"
    ]


def screen(page) -> dict:
    """What a reader sees, for comparing two tabs."""
    return {
        "status": _status(page).split(" · answered")[0],
        "nodes": drawn(page),
        "table": page.eval_on_selector_all(
            "#explorer-table tr", "rows => rows.map(r => r.textContent)"
        ),
    }


def run_to(page, total_from_now: int) -> None:
    page.fill("#explorer-count", str(total_from_now))
    page.click("#explorer-run")
    wait_idle(page)


def check_tictactoe(page) -> list[str]:
    problems: list[str] = []
    options = page.eval_on_selector_all("#explorer-game option", "os => os.map(o => o.value)")
    if sorted(options) != ["connect4", "othello", "tictactoe"]:
        problems.append(f"select#explorer-game offers {options}")
    if "iteration 0" not in _status(page):
        problems.append(f"the status does not say iteration 0 at first: {_status(page)!r}")
    if set(drawn(page)) != {""}:
        problems.append(f"before any iteration the tree is not the root alone: {drawn(page)}")
    # One iteration, phase by phase.
    for phase, name in enumerate(("selection", "expansion", "simulation", "backpropagation"), 1):
        page.click("#explorer-step")
        wait_idle(page)
        status = _status(page)
        expected = (
            "iteration 1 (done)" if phase == 4 else f"iteration 1 (phase {phase} of 4: {name})"
        )
        if expected not in status:
            problems.append(f"after {phase} phase steps the status is {status!r}")
        if phase == 2 and page.locator("#explorer-phase li").count() != 2:
            problems.append("the expansion phase does not list selection and expansion")
        if phase == 3 and page.locator("#explorer-phase .mx-board").count() != 1:
            problems.append("the simulation phase draws no playout board")
    if drawn(page).get("", (0, 0))[0] != 1:
        problems.append(f"after one iteration the root has not one visit: {drawn(page)}")
    run_to(page, 99)
    if "iteration 100 " not in _status(page) and "iteration 100 (" not in _status(page):
        problems.append(f"after running 99 more the status is {_status(page)!r}")
    expected = package_tree("tictactoe", 100)
    root_and_children = {k: v for k, v in expected.items() if "." not in k}
    problems += compare("tic-tac-toe, default depth", drawn(page), root_and_children)
    page.select_option("#explorer-depth", "99")
    wait_idle(page)
    problems += compare("tic-tac-toe, 100 iterations, whole tree", drawn(page), expected)
    # Click the most visited child of the root: the table lists its children.
    best = max((k for k in expected if k and "." not in k), key=lambda k: expected[k][0])
    page.locator(f"#explorer-tree [data-node='{best}']").click()
    wait_idle(page)
    children = {k: v for k, v in expected.items() if k.rpartition(".")[0] == best and k != best}
    rows = page.eval_on_selector_all(
        "#explorer-table tbody tr",
        "rows => rows.map(r => [r.dataset.node, Number(r.cells[2].textContent)])",
    )
    if {k: n for k, n in rows} != {k: v[0] for k, v in children.items()}:
        problems.append(f"clicking {best!r}: table rows {rows}, package children {children}")
    marked = page.locator("#explorer-table tr.mx-next").count()
    if marked > 1:
        problems.append(f"clicking {best!r}: {marked} rows marked as selection's next child")
    return problems


def check_link(context, page) -> list[str]:
    """The link restores the same screen in a fresh tab."""
    before = screen(page)
    href = page.get_attribute("#explorer-link", "href") or ""
    other = context.new_page()
    errors: list[str] = []
    _listen(other, errors)
    other.goto(href, wait_until="load")
    wait_idle(other)
    after = screen(other)
    other.close()
    problems = [f"link tab: {e}" for e in errors]
    for part in ("status", "nodes", "table"):
        if before[part] != after[part]:
            problems.append(
                f"the link does not restore the {part}: {before[part]!r} vs {after[part]!r}"
            )
    return problems


def check_other_games(page) -> list[str]:
    problems: list[str] = []
    for game, threshold, iterations in (("connect4", 10, 200), ("othello", 1, 60)):
        page.select_option("#explorer-game", game)
        wait_idle(page)
        page.select_option("#explorer-threshold", str(threshold))
        wait_idle(page)
        run_to(page, iterations)
        problems += compare(
            f"{game}, threshold {threshold}, {iterations} iterations",
            drawn(page),
            package_tree(game, iterations, threshold),
        )
    return problems


_ACTIVE = """
() => { const a = document.activeElement;
        return a ? [a.id || '', a.dataset ? (a.dataset.node ?? null) : null] : ['', null]; }
"""


def check_focus_kept(page) -> list[str]:
    """A redraw keeps the focus where it was: a second → or Enter works, on a tree node and on
    a button (at iteration 1, phase 1: → → phase 2, Enter on the step button twice → done)."""
    problems: list[str] = []
    page.keyboard.press("ArrowRight")
    wait_idle(page)
    if "phase 2 of 4" not in _status(page) or page.evaluate(_ACTIVE)[1] != "":
        problems.append(
            f"a second → on the root: {_status(page)!r}, focus {page.evaluate(_ACTIVE)}"
        )
    page.locator("#explorer-step").focus()
    for _ in range(2):
        page.keyboard.press("Enter")
        wait_idle(page)
    if "iteration 1 (done)" not in _status(page) or page.evaluate(_ACTIVE)[0] != "explorer-step":
        problems.append(f"Enter twice on step: {_status(page)!r}, focus {page.evaluate(_ACTIVE)}")
    page.keyboard.press("ArrowRight")  # a shortcut with the focus on a button
    wait_idle(page)
    if "iteration 2 (phase 1 of 4" not in _status(page):
        problems.append(f"→ after Enter on a button: {_status(page)!r}")
    return problems


def check_table_fits(page) -> list[str]:
    """At 1280 px the children table fits its box; at 390 px it scrolls in its own box with a
    visible hint, and the share chart draws one line per root move."""
    problems: list[str] = []
    page.set_viewport_size({"width": 1280, "height": 900})
    run_to(page, 40)
    page.click("#explorer-tree [data-node='']")
    wait_idle(page)
    box = page.evaluate(
        "() => { const w = document.querySelector('.mx-table-wrap');"
        " return [w.scrollWidth, w.clientWidth]; }"
    )
    if box[0] > box[1] + 1:
        problems.append(f"at 1280 px the children table is cut off: scroll/client {box}")
    lines = page.locator("#explorer-shares polyline").count()
    kids = page.locator("#explorer-table tbody tr").count()
    if lines != kids or kids == 0:
        problems.append(f"the share chart draws {lines} lines for {kids} root moves")
    said = page.evaluate("() => document.querySelector('#explorer-play-now')?.textContent || ''")
    if "would play" not in said:
        problems.append("the page does not say which move MCTS would play now")
    return problems


def check_keys_export_phone(page) -> list[str]:
    problems: list[str] = []
    page.select_option("#explorer-game", "tictactoe")
    wait_idle(page)
    page.locator("#explorer-tree [data-node='']").focus()
    page.keyboard.press("ArrowRight")
    wait_idle(page)
    if "iteration 1 (phase 1 of 4: selection)" not in _status(page):
        problems.append(f"→ does not step a phase: {_status(page)!r}")
    problems += check_focus_kept(page)
    with page.expect_download() as download:
        page.click("#explorer-svg")
    text = Path(download.value.path()).read_text()
    if not text.startswith("<svg") or "data-node" not in text:
        problems.append("the SVG export is not an SVG of the tree")
    page.set_viewport_size({"width": 390, "height": 844})
    page.wait_for_timeout(200)
    overflow = page.evaluate(
        "() => { const e = document.querySelector('.mcts-explorer');"
        " return [e.scrollWidth, e.clientWidth, e.getBoundingClientRect().right]; }"
    )
    if overflow[0] > overflow[1] + 1 or overflow[2] > 391:
        problems.append(f"at 390 px the explorer overflows: scroll/client/right {overflow}")
    hint = page.evaluate(
        "() => { const w = document.querySelector('.mx-table-wrap');"
        " const h = w.querySelector('.mx-scroll-hint');"
        " return [w.scrollWidth > w.clientWidth, !!h && getComputedStyle(h).display !== 'none']; }"
    )
    if hint[0] and not hint[1]:
        problems.append("at 390 px the children table scrolls with no hint that it does")
    return problems


def _listen(page, errors: list[str]) -> None:
    page.on("pageerror", lambda error: errors.append(f"JS error: {error}"))
    page.on("console", lambda msg: _console(msg, page, errors))


def _console(msg, page, errors: list[str]) -> None:
    """A console error is a problem, unless it is the browser saying that a request to another
    host failed (they are blocked; the requests themselves are reported separately)."""
    if msg.type != "error":
        return
    url = (msg.location or {}).get("url", "")
    origin = "/".join(page.url.split("/")[:3])
    if "Failed to load resource" in msg.text and url and not url.startswith(origin):
        return
    errors.append(f"console error: {msg.text} ({url})")


def check_explorer(context, origin: str, screenshots: Path | None = None) -> list[str]:
    """Every problem of the explorer page, driven by clicking."""
    foreign: list[str] = []
    context.on(
        "request",
        lambda request: None if request.url.startswith(origin) else foreign.append(request.url),
    )
    page = context.new_page()
    errors: list[str] = []
    _listen(page, errors)
    page.goto(f"{origin}/{EXPLORER_PAGE}", wait_until="load")
    try:
        wait_idle(page)
    except Exception as error:  # Playwright's TimeoutError
        return [
            f"{EXPLORER_PAGE}: the explorer did not get ready ({type(error).__name__}): {errors}"
        ]
    problems = check_tictactoe(page)
    problems += check_link(context, page)
    if screenshots is not None:
        screenshots.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(screenshots / "explorer.png"), full_page=True)
    problems += check_other_games(page)
    problems += check_table_fits(page)
    problems += check_keys_export_phone(page)
    if screenshots is not None:
        page.screenshot(path=str(screenshots / "explorer_phone.png"), full_page=True)
    page.close()
    problems += errors
    problems += [f"request to another host: {url}" for url in sorted(set(foreign))]
    return [f"{EXPLORER_PAGE}: {problem}" for problem in problems]


def main(argv: list[str] | None = None) -> int:
    from check_book import CHROMIUM_ARGS, ROOT, serve
    from playwright.sync_api import sync_playwright

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("html", nargs="?", default=str(ROOT / "_build" / "html"))
    parser.add_argument("--chromium", default="/usr/bin/chromium")
    parser.add_argument("--screenshots", type=Path, default=None)
    args = parser.parse_args(argv)
    server = serve(Path(args.html))
    origin = f"http://127.0.0.1:{server.server_address[1]}"
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=args.chromium, args=CHROMIUM_ARGS)
        context = browser.new_context(
            viewport={"width": 1280, "height": 1000}, accept_downloads=True
        )
        context.route(
            "**/*",
            lambda route: (
                route.continue_() if route.request.url.startswith(origin) else route.abort()
            ),
        )
        problems = check_explorer(context, origin, args.screenshots)
        browser.close()
    server.shutdown()
    for problem in problems:
        print(problem)
    print("explorer check:", "FAILED" if problems else "clean")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    sys.exit(main())
