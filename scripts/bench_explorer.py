"""Benchmark (not a test) of the book's MCTS explorer: speed in the browser against native Python.

Prints, for each game from its start position, iterations per second of the explorer's recorder
(``mcts_course.explorer``) in the page's Pyodide worker and in this CPython, beside the plain
``MCTSAgent.search`` in this CPython; then the time to draw a tic-tac-toe tree of about 2,000
nodes (whole tree shown): Python's answer in the worker, the page's drawing, and the wall time
from the click to an idle page.  Serves a built book (or any folder laid out like it)::

    python scripts/bench_explorer.py [_build/html] [--chromium /usr/bin/chromium]
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from check_book import CHROMIUM_ARGS, ROOT, serve
from check_explorer import EXPLORER_PAGE, wait_idle

RUNS = {"tictactoe": 3000, "connect4": 2000, "othello": 300}
TREE_ITERATIONS = 2050  # tic-tac-toe from the start, threshold 1: about one node per iteration


def native_rates(game: str, iterations: int) -> tuple[float, float]:
    """(recorder, plain MCTSAgent) iterations per second in this CPython."""
    from mcts_course.agents import MCTSAgent
    from mcts_course.explorer import Recorder
    from mcts_course.games import game_class

    state = game_class(game)()
    start = time.perf_counter()
    Recorder(state, seed=0).run(iterations)
    recorder = iterations / (time.perf_counter() - start)
    start = time.perf_counter()
    MCTSAgent(iterations=iterations, seed=0).search(state)
    return recorder, iterations / (time.perf_counter() - start)


def browser_rate(page, game: str, iterations: int) -> float:
    seconds = page.evaluate(
        """async ([game, count]) => {
            await window.mctsExplorer.call({cmd: 'new', id: 'bench', game, moves: [], seed: 0});
            const done = await window.mctsExplorer.call({cmd: 'bench', id: 'bench', count});
            return done.view.seconds;
        }""",
        [game, iterations],
    )
    return iterations / seconds


def draw_big_tree(page) -> dict:
    page.select_option("#explorer-game", "tictactoe")
    wait_idle(page)
    page.fill("#explorer-count", str(TREE_ITERATIONS))
    page.click("#explorer-run")
    wait_idle(page)
    start = time.perf_counter()
    page.select_option("#explorer-depth", "99")
    wait_idle(page)
    wall = time.perf_counter() - start
    data = page.evaluate(
        "() => { const e = document.querySelector('.mcts-explorer');"
        " return [e.dataset.pythonMs, e.dataset.drawMs,"
        " document.querySelectorAll('#explorer-tree [data-node]').length]; }"
    )
    return {"python_ms": float(data[0]), "draw_ms": float(data[1]), "nodes": data[2], "wall": wall}


def main(argv: list[str] | None = None) -> int:
    from playwright.sync_api import sync_playwright

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("html", nargs="?", default=str(ROOT / "_build" / "html"))
    parser.add_argument("--chromium", default="/usr/bin/chromium")
    args = parser.parse_args(argv)
    server = serve(Path(args.html))
    origin = f"http://127.0.0.1:{server.server_address[1]}"
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=args.chromium, args=CHROMIUM_ARGS)
        page = browser.new_page(viewport={"width": 1280, "height": 1000})
        page.goto(f"{origin}/{EXPLORER_PAGE}", wait_until="load")
        wait_idle(page)
        for game, iterations in RUNS.items():
            in_page = browser_rate(page, game, iterations)
            recorder, agent = native_rates(game, iterations)
            print(
                f"{game:9} {iterations:5} iterations from the start: "
                f"{in_page:8,.0f}/s in the browser, {recorder:8,.0f}/s native recorder "
                f"({in_page / recorder:.2f}x), {agent:8,.0f}/s native MCTSAgent.search"
            )
        tree = draw_big_tree(page)
        print(
            f"whole tree of {tree['nodes']:,} nodes: Python's answer {tree['python_ms']:.0f} ms, "
            f"drawing {tree['draw_ms']:.0f} ms, click to idle page {tree['wall'] * 1e3:.0f} ms"
        )
        browser.close()
    server.shutdown()
    return 0


if __name__ == "__main__":
    sys.exit(main())
