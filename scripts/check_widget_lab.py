"""Play ``PlayWidget`` in a real JupyterLab, in headless Chromium, by clicking: part of
``make check-book``.

Starts JupyterLab on localhost (a free port, a random token, a temporary folder holding one
notebook), opens the notebook in Chromium with every request to another host blocked, runs its
cell, and plays a whole game of tic-tac-toe against the random agent by clicking the widget's
buttons: the cells the widget marks playable ("·").  Fails (exit status 1) when the widget does
not appear, a click on a playable cell does not play it, the game does not finish, or the page
raises a JavaScript error.

Needs the ``browser`` extra (Playwright and JupyterLab) and Debian's Chromium.
"""

from __future__ import annotations

import argparse
import json
import os
import secrets
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

from playwright.sync_api import sync_playwright

CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
]
NOTEBOOK = {
    "cells": [
        {
            "cell_type": "code",
            "execution_count": None,
            "id": "play",
            "metadata": {},
            "outputs": [],
            "source": "from mcts_course.widgets import PlayWidget\n\n"
            'PlayWidget("tictactoe", "random:seed=3")',
        }
    ],
    "metadata": {
        "kernelspec": {"display_name": "Python 3", "language": "python", "name": "python3"}
    },
    "nbformat": 4,
    "nbformat_minor": 5,
}
WIDGET_CELLS = ".jp-OutputArea .widget-gridbox button"
STATUS = ".jp-OutputArea .widget-html-content"


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def start_lab(folder: Path, port: int, token: str) -> subprocess.Popen:
    env = {**os.environ, "JUPYTER_PREFER_ENV_PATH": "1", "MCTS_COURSE_PROGRESS": "0"}
    command = [
        sys.executable, "-m", "jupyterlab", "--no-browser", "--ip=127.0.0.1", f"--port={port}",
        f"--IdentityProvider.token={token}", f"--ServerApp.root_dir={folder}",
        "--LabApp.news_url=", "--LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate",
        "--LabApp.extension_manager=readonly",  # no PyPI look-ups from the server
        "--allow-root",  # containers and CI run as root; the server listens on localhost only
    ]  # fmt: skip
    log = open(folder / "lab.log", "w")  # closed with the process
    return subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT, env=env, cwd=folder)


def wait_for_server(url: str, timeout: float = 120) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            with urllib.request.urlopen(url, timeout=2):
                return
        except OSError:
            time.sleep(0.5)
    raise TimeoutError(f"JupyterLab did not answer at {url}")


def play(origin: str, token: str, chromium: str, screenshot: Path | None) -> list[str]:
    problems: list[str] = []
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=chromium, args=CHROMIUM_ARGS)
        context = browser.new_context(viewport={"width": 1280, "height": 900})
        context.route(
            "**/*",
            lambda route: (
                route.continue_() if route.request.url.startswith(origin) else route.abort()
            ),
        )
        page = context.new_page()
        page.on("pageerror", lambda error: problems.append(f"JS error: {error}"))
        page.goto(f"{origin}/lab/tree/play.ipynb?token={token}")
        page.wait_for_selector(".jp-Notebook .jp-Cell .cm-content", timeout=120_000)
        # JupyterLab may ask which kernel to start: the notebook's own (python3) is preselected.
        try:
            page.click(".jp-Dialog .jp-mod-accept", timeout=15_000)
        except Exception:
            pass  # no dialog: the kernel starts by itself
        page.get_by_text("Python 3 (ipykernel) | Idle").wait_for(timeout=120_000)
        page.click(".jp-Notebook .jp-Cell .cm-content")
        page.keyboard.press("Shift+Enter")
        try:
            page.wait_for_selector(WIDGET_CELLS, timeout=120_000)
        except Exception:
            if screenshot is not None:
                page.screenshot(path=str(screenshot))
            return problems + ["the PlayWidget did not appear in JupyterLab"]
        cells = page.locator(WIDGET_CELLS)
        if cells.count() != 9:
            problems.append(f"tic-tac-toe widget with {cells.count()} cells, not 9")
        for _ in range(9):
            status = page.locator(STATUS).last.text_content() or ""
            if "wins" in status or "Draw" in status:
                break
            playable = [i for i in range(cells.count()) if cells.nth(i).text_content() == "·"]
            if not playable:
                problems.append(f"no playable cell while the game goes on: {status!r}")
                break
            before = [cells.nth(i).text_content() for i in range(cells.count())]
            cells.nth(playable[0]).click()  # a real click, through the browser
            try:
                # The kernel sends the cells and the status line as separate updates: wait
                # until the move is on the board and the widget has settled after it (the
                # opponent has replied, or the status line says the game is over).
                page.wait_for_function(
                    """([selector, status, index]) => {
                        const cells = [...document.querySelectorAll(selector)];
                        const marks = cells.map((cell) => cell.textContent);
                        const lines = document.querySelectorAll(status);
                        const said = lines.length ? lines[lines.length - 1].textContent : '';
                        const over = said.includes('wins') || said.includes('Draw');
                        const count = (mark) => marks.filter((m) => m === mark).length;
                        return marks[index] === 'X' && (over || count('O') === count('X'));
                    }""",
                    arg=[WIDGET_CELLS, STATUS, playable[0]],
                    timeout=30_000,
                )
            except Exception:
                problems.append(f"clicking cell {playable[0]} did not play there ({before})")
                break
        else:
            status = page.locator(STATUS).last.text_content() or ""
        status = page.locator(STATUS).last.text_content() or ""
        if not ("wins" in status or "Draw" in status):
            problems.append(f"the game did not finish: {status!r}")
        if screenshot is not None:
            page.screenshot(path=str(screenshot))
        print(f"JupyterLab widget: {status.strip()}")
        browser.close()
    return problems


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--chromium", default="/usr/bin/chromium")
    parser.add_argument("--screenshot", type=Path, default=None)
    args = parser.parse_args(argv)
    token = secrets.token_hex(16)
    port = free_port()
    origin = f"http://127.0.0.1:{port}"
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        (folder / "play.ipynb").write_text(json.dumps(NOTEBOOK))
        lab = start_lab(folder, port, token)
        try:
            wait_for_server(f"{origin}/api/status?token={token}")
            problems = play(origin, token, args.chromium, args.screenshot)
        except Exception:
            print((folder / "lab.log").read_text()[-3000:], file=sys.stderr)
            raise
        finally:
            lab.terminate()
            try:
                lab.wait(timeout=20)
            except subprocess.TimeoutExpired:
                lab.kill()
    for problem in problems:
        print(problem)
    print("JupyterLab widget check:", "FAILED" if problems else "clean")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
