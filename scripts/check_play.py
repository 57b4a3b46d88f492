"""Play the book's play page like a reader, by clicking: part of ``make check-book``.

Used by ``scripts/check_book.py``.  On ``book/16_play.html`` it checks the page contract (see
``book/_static/play/play.js``): ``select#play-game``, ``select#play-opponent`` (agent specs),
``button#play-new``, board cells with ``data-action`` and ``data-legal="true"``, Othello's pass
button (``data-action="64"``), ``#play-status`` saying who is "to move", and at the end who
"wins" or that it is a "draw".  It plays one full game of each game against MCTS, choosing among
the cells marked legal with a seeded random generator, and fails on a JavaScript error, a
request to another host, a legal click that is refused, an illegal click that is accepted, a
game that does not finish, or a step-through mode that does not step.  It then plays one game of
tic-tac-toe and one of Connect Four against the learned network (``puct:prior=net``): after each
of the network's moves the board must show its prior of every move as a percentage (summing to
100, up to rounding) and the line of its value; Othello, which has no network, must not offer it.
Last, one game of Othello against MCTS handing over to exact play at 10 empty squares
(``mcts:endgame=10``): once it solves, the board shows each move's exact final margin.

It also prints the figures of the page: the time until the board is playable (cold cache, then
warm), MCTS iterations per second in the page against this machine's CPython, and the bytes the
page adds to the book.
"""

from __future__ import annotations

import json
import random
import re
import time
from pathlib import Path

PLAY_PAGE = "book/16_play.html"
GAMES = ("tictactoe", "connect4", "othello")
OPPONENT = "mcts:iterations=200"
LEARNED = "puct:prior=net,iterations=200"  # the learned network: tic-tac-toe and Connect Four
LEARNED_GAMES = ("tictactoe", "connect4")
HYBRID = "mcts:iterations=200,endgame=10"  # Othello: MCTS, then exact play at 10 empty squares
MAX_MOVES = 100  # the reader's moves in one game: Othello needs at most 32, plus passes
READY_TIMEOUT_MS = 120_000
BENCH_ITERATIONS = 2000

_BOARDS_SETTLED = """
() => Array.from(document.querySelectorAll('.mcts-play, .mcts-step'))
    .every(b => b.dataset.state && b.dataset.state !== 'loading' && b.dataset.busy !== 'true')
"""
_MOVES = "() => document.querySelector('.mcts-play').mctsActions().length"
_BOARD_IDLE = """
() => { const b = document.querySelector('.mcts-play');
        return b.dataset.busy !== 'true' && ['your-turn', 'over'].includes(b.dataset.state); }
"""


def wait_for_boards(page, timeout_ms: int = READY_TIMEOUT_MS) -> list[str]:
    """Wait until every play board of ``page`` has started; problems if one does not."""
    if page.locator(".mcts-play, .mcts-step").count() == 0:
        return []
    try:
        page.wait_for_function(_BOARDS_SETTLED, timeout=timeout_ms)
    except Exception as error:  # Playwright's TimeoutError, or the page went away
        return [f"a play board did not start: {type(error).__name__}"]
    note = page.locator(".mp-error")
    if note.count():
        return [f"a play board shows an error: {note.first.text_content()}"]
    return []


def _time_to_playable(context, url: str) -> tuple[float, object]:
    page = context.new_page()
    start = time.perf_counter()
    page.goto(url, wait_until="commit")
    page.wait_for_function(
        "() => (document.querySelector('#play-status') || {}).textContent?.includes('to move')",
        timeout=READY_TIMEOUT_MS,
        polling=50,
    )
    return time.perf_counter() - start, page


def _status(page) -> str:
    return page.text_content("#play-status") or ""


def play_one_game(
    page, game: str, rng: random.Random, opponent: str = OPPONENT, after_answer=None
) -> list[str]:
    """One game of ``game`` against ``opponent`` (MCTS), by clicking; the problems found.
    ``after_answer(page)``, if given, looks at the board after each of the agent's answers and
    returns its problems."""
    problems: list[str] = []
    page.select_option("#play-game", game)
    page.select_option("#play-opponent", opponent)
    page.click("#play-new")
    page.wait_for_function(_BOARD_IDLE, timeout=READY_TIMEOUT_MS)
    for _ in range(MAX_MOVES):
        page.wait_for_function(_BOARD_IDLE, timeout=READY_TIMEOUT_MS)
        status = _status(page)
        if " wins" in status or "draw" in status:
            return problems
        if "to move" not in status:
            return problems + [f"{game}: the status does not say who is to move: {status!r}"]
        legal = page.locator("[data-legal='true']")
        count = legal.count()
        if count == 0:
            return problems + [f"{game}: the reader is to move but no cell is marked legal"]
        target = legal.nth(rng.randrange(count))
        action = target.get_attribute("data-action")
        if game == "othello" and count == 1 and action == "64":
            if target.evaluate("e => e.tagName") != "BUTTON":
                problems.append("othello: the pass is not a button")
        moves_before = page.evaluate(
            "() => document.querySelector('.mcts-play').mctsActions().length"
        )
        target.click()
        page.wait_for_function(_BOARD_IDLE, timeout=READY_TIMEOUT_MS)
        message = page.text_content(".mcts-play .mp-message") or ""
        moves_after = page.evaluate(
            "() => document.querySelector('.mcts-play').mctsActions().length"
        )
        if message or moves_after <= moves_before:
            return problems + [f"{game}: a legal click on action {action} was refused: {message!r}"]
        if after_answer is not None:
            problems += after_answer(page)
    return problems + [f"{game}: the game did not finish after {MAX_MOVES} moves of the reader"]


_THOUGHTS = ".mcts-play .mp-thoughts"


def learned_thoughts(page, game: str, seen: list[int]) -> list[str]:
    """After the learned network moved (not a forced move): its prior of each move on the
    board, as percentages that sum to 100 up to rounding, and its value line."""
    summary = page.locator(f"{_THOUGHTS} .mp-summary")
    if summary.count() == 0 or "guided by the network" not in (summary.text_content() or ""):
        return []  # the reader's move ended the game, or the agent's move was forced
    seen.append(1)
    problems = []
    labels = page.locator(f"{_THOUGHTS} .mp-label").all_text_contents()
    if not labels or not all(re.fullmatch(r"\d+%", text) for text in labels):
        problems.append(f"{game}: the network's priors are not shown as percentages: {labels}")
    elif abs(sum(int(text[:-1]) for text in labels) - 100) > len(labels) / 2:
        problems.append(f"{game}: the network's priors do not sum to 100%: {labels}")
    rows = page.locator(f"{_THOUGHTS} .mp-table tbody tr").count()
    if rows != len(labels):
        problems.append(f"{game}: {len(labels)} priors on the board, {rows} rows in the table")
    value = page.locator(f"{_THOUGHTS} .mp-net-value")
    text = value.text_content() if value.count() else ""
    if not re.search(r"[+−]?\d\.\d\d for \S+ \(the agent\) before its move", text or ""):
        problems.append(f"{game}: no value line after the network's move: {text!r}")
    return problems


def play_learned(page, rng: random.Random) -> list[str]:
    """A game of tic-tac-toe and one of Connect Four against the learned network, its priors
    and value checked after each of its moves; Othello must not offer it."""
    problems: list[str] = []
    option = f"#play-opponent option[value='{LEARNED}']"
    if page.locator(option).count() != 1:
        return [f"select#play-opponent has no {LEARNED!r}"]
    for game in LEARNED_GAMES:
        seen: list[int] = []
        problems += play_one_game(
            page, game, rng, LEARNED, lambda p, g=game, s=seen: learned_thoughts(p, g, s)
        )
        if not seen:
            problems.append(f"{game}: the learned network never showed its priors")
    page.select_option("#play-game", "othello")
    if not page.eval_on_selector(option, "o => o.disabled"):
        problems.append("othello: the learned network is offered, but no network plays Othello")
    page.wait_for_function(_BOARD_IDLE, timeout=READY_TIMEOUT_MS)
    return problems


def exact_thoughts(page, seen: list[int]) -> list[str]:
    """After the hybrid solved the endgame: each move's exact margin, as a signed whole number."""
    summary = page.locator(f"{_THOUGHTS} .mp-summary")
    if summary.count() == 0 or "solved exactly" not in (summary.text_content() or ""):
        return []
    seen.append(1)
    labels = page.locator(f"{_THOUGHTS} .mp-label").all_text_contents()
    if not labels or not all(re.fullmatch(r"-?\d+", text) for text in labels):
        return [f"othello: the exact margins are not shown: {labels}"]
    return []


def play_hybrid(page, rng: random.Random) -> list[str]:
    """A game of Othello against MCTS handing over to exact play; only Othello offers it."""
    option = f"#play-opponent option[value='{HYBRID}']"
    if page.locator(option).count() != 1:
        return [f"select#play-opponent has no {HYBRID!r}"]
    seen: list[int] = []
    problems = play_one_game(page, "othello", rng, HYBRID, lambda p: exact_thoughts(p, seen))
    if not seen:
        problems.append("othello: the hybrid never showed an exact endgame")
    page.select_option("#play-game", "tictactoe")
    if not page.eval_on_selector(option, "o => o.disabled"):
        problems.append("tictactoe: the Othello endgame hybrid is offered")
    page.wait_for_function(_BOARD_IDLE, timeout=READY_TIMEOUT_MS)
    return problems


def illegal_click_is_refused(page) -> list[str]:
    """Clicking a cell not marked legal changes nothing."""
    page.select_option("#play-game", "tictactoe")
    page.click("#play-new")
    page.wait_for_function(_BOARD_IDLE, timeout=READY_TIMEOUT_MS)
    page.locator("[data-legal='true']").first.click()  # occupy one cell
    page.wait_for_function(_BOARD_IDLE, timeout=READY_TIMEOUT_MS)
    before = page.evaluate("() => document.querySelector('.mcts-play').mctsActions()")
    occupied = page.locator(".mcts-play button[data-legal='false']")
    if occupied.count() == 0:
        return ["tictactoe: no cell is marked not legal after two moves"]
    occupied.first.click()
    page.wait_for_timeout(200)
    after = page.evaluate("() => document.querySelector('.mcts-play').mctsActions()")
    return [] if after == before else ["tictactoe: an illegal click was played"]


def check_step_mode(page) -> list[str]:
    page.click("#step-reset")
    page.wait_for_function(_BOARDS_SETTLED, timeout=READY_TIMEOUT_MS)
    for _ in range(3):
        page.click("#step-one")
        page.wait_for_function(_BOARDS_SETTLED, timeout=READY_TIMEOUT_MS)
    info = page.text_content("#step-info") or ""
    problems = [] if info.startswith("3 iterations") else [f"step mode: {info!r}"]
    if page.locator("#step-tree svg").count() != 1:
        problems.append("step mode: no tree is drawn")
    phases = page.locator("#step-phases li").count()
    return problems + ([] if phases == 4 else [f"step mode: {phases} phases shown, not 4"])


def iterations_per_second(page) -> tuple[float, float]:
    """MCTS iterations per second from Othello's start: (in the page, native CPython)."""
    request = {
        "board": "bench",
        "game": "othello",
        "human": 1,
        "seed": 1,
        "opponent": f"mcts:iterations={BENCH_ITERATIONS}",
    }
    thoughts = page.evaluate(
        """async (request) => {
            await window.mctsPlay.call({...request, cmd: 'new_game'});
            return (await window.mctsPlay.call({board: request.board, cmd: 'agent_move'})).thoughts;
        }""",
        request,
    )
    from mcts_course.webplay import Game

    native = Game("othello", request["opponent"], human=1, seed=1)
    native.agent_move()
    ours = native.thoughts
    return thoughts["iterations"] / thoughts["seconds"], ours["iterations"] / ours["seconds"]


def check_play(context, origin: str, html: Path, screenshots: Path | None) -> list[str]:
    """Every problem of the play page, played by clicking; prints the page's figures."""
    problems: list[str] = []
    foreign: list[str] = []
    context.on(
        "request",
        lambda request: None if request.url.startswith(origin) else foreign.append(request.url),
    )
    url = f"{origin}/{PLAY_PAGE}"
    cold, page = _time_to_playable(context, url)
    cold_phases = page.evaluate("async () => (await window.mctsPlay.whenReady()).phases")
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(f"JS error: {error}"))
    page.on("console", lambda msg: errors.append(msg.text) if msg.type == "error" else None)
    status = _status(page)
    if "(you) to move" not in status:
        problems.append(f"the reader does not move first by default: {status!r}")
    page.close()
    warm, page = _time_to_playable(context, url)
    warm_phases = page.evaluate("async () => (await window.mctsPlay.whenReady()).phases")
    page.on("pageerror", lambda error: errors.append(f"JS error: {error}"))
    page.on("console", lambda msg: errors.append(msg.text) if msg.type == "error" else None)
    options = page.eval_on_selector_all("#play-game option", "os => os.map(o => o.value)")
    if sorted(options) != sorted(GAMES):
        problems.append(f"select#play-game offers {options}, not {list(GAMES)}")
    specs = page.eval_on_selector_all("#play-opponent option", "os => os.map(o => o.value)")
    if OPPONENT not in specs:
        problems.append(f"select#play-opponent has no {OPPONENT!r}")
    rng = random.Random(12)
    for game in GAMES:
        problems += play_one_game(page, game, rng)
        if screenshots is not None:
            screenshots.mkdir(parents=True, exist_ok=True)
            page.screenshot(path=str(screenshots / f"play_{game}.png"), full_page=True)
    problems += play_learned(page, rng)
    problems += play_hybrid(page, rng)
    if screenshots is not None:
        page.select_option("#play-game", "connect4")
        page.select_option("#play-opponent", LEARNED)
        page.click("#play-new")
        page.wait_for_function(_BOARD_IDLE, timeout=READY_TIMEOUT_MS)
        page.locator("[data-legal='true']").nth(3).click()
        page.wait_for_function(_BOARD_IDLE, timeout=READY_TIMEOUT_MS)
        page.screenshot(path=str(screenshots / "play_learned.png"), full_page=True)
    problems += illegal_click_is_refused(page)
    problems += check_step_mode(page)
    if screenshots is not None:
        page.locator(".mcts-step").screenshot(path=str(screenshots / "play_step.png"))
    in_page, native = iterations_per_second(page)
    page.close()
    problems += [f"{PLAY_PAGE}: {error}" for error in errors]
    problems += [f"{PLAY_PAGE}: request to another host: {u}" for u in sorted(set(foreign))]
    manifest = json.loads((html / "_static" / "play" / "manifest.json").read_text())
    print(
        f"play page: playable {cold:.1f} s after opening (cold cache), {warm:.1f} s (warm); "
        f"in the worker, Python ready after {cold_phases['python'] / 1e3:.1f} s (cold) and "
        f"{warm_phases['python'] / 1e3:.1f} s (warm), mcts_course imported after "
        f"{cold_phases['package'] / 1e3:.1f} s and {warm_phases['package'] / 1e3:.1f} s; "
        f"MCTS from Othello's start: {in_page:,.0f} iterations/s in the page, "
        f"{native:,.0f}/s in this CPython ({in_page / native:.2f}x); "
        f"adds {manifest['total_bytes'] / 1e6:.1f} MB to the book "
        f"(Pyodide {manifest['pyodide_version']}: {manifest['pyodide_bytes'] / 1e6:.1f} MB)"
    )
    return problems
