"""Read the built book like a reader does: open every page in headless Chromium.

Fails (exit status 1) when a page has a broken image, raises a JavaScript error, logs a
console error about a local resource, makes a local request that fails, asks another host for
anything (a script, a stylesheet, a font: the book must read offline, MathJax included), or
shows formulas MathJax did not typeset; it also checks that every Colab launch button opens a
notebook (``.ipynb``) that exists in the repository, and that no page gives two elements one
``id`` (read from the HTML files, before any script runs) and that no page shows a percentage
above 100% (a value scaled twice).  The pages are served over HTTP from
``_build/html`` on localhost; requests to other hosts are blocked, so the check runs offline.

The play page (``book/16_play.html``, see :mod:`check_play`) is then played like a reader: one full
game of each game against MCTS by clicking, plus the step-through mode; the page must load
nothing from another host, refuse an illegal click and finish every game.  The MCTS explorer
(``book/16b_explorer.html``, see :mod:`check_explorer`) is driven the same way: its tree must equal
the package's ``MCTSAgent`` tree and its link must restore the screen.

Usage::

    python scripts/check_book.py [_build/html] [--screenshots DIR] [--chromium PATH]

Needs the ``browser`` extra (Playwright's Python package) and a system Chromium
(``apt-get install chromium``); Playwright's own browser downloads are never used.
"""

from __future__ import annotations

import argparse
import functools
import http.server
import re
import sys
import threading
from pathlib import Path
from urllib.parse import unquote, urlparse

from playwright.sync_api import sync_playwright

sys.path.insert(0, str(Path(__file__).resolve().parent))
from check_explorer import EXPLORER_PAGE, check_explorer, wait_for_explorer
from check_play import PLAY_PAGE, check_play, wait_for_boards

ROOT = Path(__file__).resolve().parent.parent
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
# Pages worth a screenshot for a human to look at.
SCREENSHOT_PAGES = ["book/01_introduction.html", "book/08_mcts.html"]
COLAB = re.compile(r"^https://colab\.research\.google\.com/github/[^/]+/[^/]+/blob/[^/]+/(.+)$")

# Formulas (Sphinx marks them with the class "math") must have been typeset: MathJax, served by
# the book itself, turns each into an <mjx-container>.  At most 10 s, so a hung page still reports.
MATHJAX_JS = """
async () => {
    const formulas = document.querySelectorAll('.math').length;
    if (formulas === 0) return null;
    if (!window.MathJax || !MathJax.startup || !MathJax.startup.promise)
        return `${formulas} formulas, but MathJax did not load`;
    const late = new Promise(resolve => setTimeout(() => resolve('late'), 10000));
    if (await Promise.race([MathJax.startup.promise.then(() => 'done'), late]) === 'late')
        return 'MathJax did not finish within 10 s';
    const typeset = document.querySelectorAll('mjx-container').length;
    return typeset ? null : `${formulas} formulas, none typeset by MathJax`;
}
"""

BROKEN_IMAGES_JS = """
() => Array.from(document.images)
    .filter(img => img.src.startsWith(location.origin))
    .filter(img => !img.complete || img.naturalWidth === 0)
    .map(img => img.src)
"""


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: object) -> None:
        pass


class _Server(http.server.ThreadingHTTPServer):
    def handle_error(self, request, client_address) -> None:
        # The browser may drop a connection when a page closes (a cancelled download): the
        # check judges pages by what the browser reports, not by the server's broken pipes.
        if not isinstance(sys.exc_info()[1], ConnectionError):
            super().handle_error(request, client_address)


def serve(directory: Path) -> http.server.ThreadingHTTPServer:
    """Serve ``directory`` on a free localhost port, in a daemon thread."""
    handler = functools.partial(_QuietHandler, directory=str(directory))
    server = _Server(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


def book_pages(html: Path) -> list[str]:
    """Every HTML page of the book, relative to ``html`` (static assets excluded)."""
    skip = {"_static", "_sources", "_images", "_panels_static", ".doctrees"}
    return sorted(
        str(p.relative_to(html))
        for p in html.rglob("*.html")
        if not skip & set(p.relative_to(html).parts)
        and not any(part.startswith(".") for part in p.relative_to(html).parts)
    )


# An id attribute in the HTML as written (double or single quotes); the page's scripts add none.
ID_ATTRIBUTE = re.compile(r"""<[^>]*?\sid\s*=\s*(?:"([^"]*)"|'([^']*)')""")


def duplicate_ids(text: str) -> list[str]:
    """The ids that more than one element of the HTML ``text`` carries, in page order.

    HTML allows an id once per page; a second copy breaks links to it and any script that looks
    it up (sphinx-proof once gave every algorithm's content ``id="proof-content"``)."""
    seen: set[str] = set()
    twice: list[str] = []
    for match in ID_ATTRIBUTE.finditer(text):
        value = match.group(1) if match.group(1) is not None else match.group(2)
        if value in seen and value not in twice:
            twice.append(value)
        seen.add(value)
    return twice


def id_problems(html: Path) -> list[str]:
    """One line per page of the built book at ``html`` that repeats an id."""
    problems = []
    for name in book_pages(html):
        twice = duplicate_ids((html / name).read_text(encoding="utf-8"))
        if twice:
            problems.append(f"{name}: duplicate HTML ids: {', '.join(twice)}")
    return problems


# A percentage as a page shows it ("21.9%", "−3.1 %", "2,190.0%").
PERCENT = re.compile(r"(\d[\d,]*(?:\.\d+)?)\s?%")
HIDDEN_TEXT = re.compile(r"<(script|style)\b.*?</\1>|<[^>]+>", re.S)


def overscaled_percentages(text: str) -> list[str]:
    """The percentages above 100% in the visible text of the HTML ``text``: no share, win rate,
    mistake rate or difference of two in this book exceeds 100%, and a value shown that way
    was scaled twice (a number of points formatted with ``%``: "2190.0%" for 21.9 points, as
    a teacher found in the appendix on measures)."""
    import html as html_module

    visible = html_module.unescape(HIDDEN_TEXT.sub(" ", text))
    return [
        m.group(0) for m in PERCENT.finditer(visible) if float(m.group(1).replace(",", "")) > 100
    ]


def percent_problems(html: Path) -> list[str]:
    """One line per page of the built book at ``html`` that shows a percentage above 100%."""
    problems = []
    for name in book_pages(html):
        found = overscaled_percentages((html / name).read_text(encoding="utf-8"))
        if found:
            problems.append(
                f"{name}: percentages above 100% (scaled twice?): {', '.join(found[:5])}"
            )
    return problems


def colab_problems(page: str, hrefs: list[str]) -> list[str]:
    """Colab links of a page that do not open an existing .ipynb of the repository."""
    problems = []
    for href in hrefs:
        match = COLAB.match(href)
        if match is None:
            problems.append(f"{page}: Colab link of an unexpected form: {href}")
        elif not match.group(1).endswith(".ipynb"):
            problems.append(f"{page}: Colab link does not open a notebook: {href}")
        elif not (ROOT / unquote(match.group(1))).is_file():
            problems.append(f"{page}: Colab link to a missing notebook: {match.group(1)}")
    return problems


def check(html: Path, chromium: str, screenshots: Path | None) -> list[str]:
    """All problems found in the book at ``html`` (empty when it reads cleanly)."""
    server = serve(html)
    origin = f"http://127.0.0.1:{server.server_address[1]}"
    problems: list[str] = []
    colab_pages = 0
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=chromium, args=CHROMIUM_ARGS)
        context = browser.new_context(viewport={"width": 1280, "height": 900})
        # Only our own server is reachable; a page that asks another host is reported below.
        context.route(
            "**/*",
            lambda route: (
                route.continue_() if route.request.url.startswith(origin) else route.abort()
            ),
        )
        for name in book_pages(html):
            page = context.new_page()
            found: list[str] = []
            page.on("pageerror", lambda error, found=found: found.append(f"JS error: {error}"))
            page.on("console", lambda msg, found=found: _console(msg, origin, found))
            page.on("requestfailed", lambda req, found=found: _failed(req, origin, found))
            page.on("response", lambda resp, found=found: _response(resp, origin, found))
            page.on("request", lambda req, found=found: _foreign(req, origin, found))
            page.goto(f"{origin}/{name}", wait_until="load")
            page.wait_for_timeout(300)  # let async scripts run and report
            # A page with a play board loads Python in the background: wait until it is ready,
            # so that a failure shows here and no download is cut short by closing the page.
            found += wait_for_boards(page)
            found += wait_for_explorer(page)
            found += [f"broken image: {src}" for src in page.evaluate(BROKEN_IMAGES_JS)]
            mathjax = page.evaluate(MATHJAX_JS)
            found += [mathjax] if mathjax else []
            hrefs = page.eval_on_selector_all(
                "a[href*='colab.research.google.com']", "links => links.map(a => a.href)"
            )
            colab_pages += bool(hrefs)
            problems += colab_problems(name, hrefs)
            problems += [f"{name}: {problem}" for problem in found]
            if screenshots is not None and name in SCREENSHOT_PAGES:
                screenshots.mkdir(parents=True, exist_ok=True)
                target = screenshots / (Path(name).stem + ".png")
                page.screenshot(path=str(target), full_page=False)
            page.close()
        if (html / PLAY_PAGE).is_file():
            # A fresh context: an empty cache, for the cold-start time.
            play_context = browser.new_context(viewport={"width": 1280, "height": 1000})
            play_context.route(
                "**/*",
                lambda route: (
                    route.continue_() if route.request.url.startswith(origin) else route.abort()
                ),
            )
            problems += check_play(play_context, origin, html, screenshots)
            play_context.close()
        else:
            problems.append(f"{PLAY_PAGE} is missing from the built book")
        if (html / EXPLORER_PAGE).is_file():
            explorer_context = browser.new_context(
                viewport={"width": 1280, "height": 1000}, accept_downloads=True
            )
            explorer_context.route(
                "**/*",
                lambda route: (
                    route.continue_() if route.request.url.startswith(origin) else route.abort()
                ),
            )
            problems += check_explorer(explorer_context, origin, screenshots)
            explorer_context.close()
        else:
            problems.append(f"{EXPLORER_PAGE} is missing from the built book")
        browser.close()
    server.shutdown()
    print(f"checked {len(book_pages(html))} pages, {colab_pages} with a Colab button")
    return problems


def _local(url: str, origin: str) -> bool:
    return url.startswith(origin)


def _console(msg, origin: str, found: list[str]) -> None:
    if msg.type != "error":
        return
    url = msg.location.get("url", "") if msg.location else ""
    # A blocked CDN request logs "Failed to load resource" against the remote URL: not ours.
    if "Failed to load resource" in msg.text and url and not _local(url, origin):
        return
    found.append(f"console error: {msg.text} ({urlparse(url).path or url})")


def _foreign(request, origin: str, found: list[str]) -> None:
    # A link the reader clicks is a navigation of its own page; anything a page loads by itself
    # (scripts, stylesheets, fonts, images, fetches) must come from the book's own site.
    inline = request.url.startswith(("data:", "blob:"))
    if not inline and not _local(request.url, origin) and not request.is_navigation_request():
        found.append(f"loads from another host: {request.url} ({request.resource_type})")


def _failed(request, origin: str, found: list[str]) -> None:
    if _local(request.url, origin):
        found.append(f"failed request: {request.url} ({request.failure})")


def _response(response, origin: str, found: list[str]) -> None:
    if _local(response.url, origin) and response.status >= 400:
        found.append(f"HTTP {response.status}: {response.url}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("html", nargs="?", default=str(ROOT / "_build" / "html"))
    parser.add_argument("--chromium", default="/usr/bin/chromium")
    parser.add_argument("--screenshots", type=Path, default=None, help="save page pictures here")
    args = parser.parse_args(argv)
    html = Path(args.html)
    if not (html / "index.html").is_file():
        print(f"no built book at {html}: run `make book` first", file=sys.stderr)
        return 1
    problems = id_problems(html) + percent_problems(html)
    problems += check(html, args.chromium, args.screenshots)
    for problem in problems:
        print(problem)
    print("book check:", "FAILED" if problems else "clean")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
