"""The end-of-chapter exercises of chapters 1-15: their shape, and every number their answers state.

Each numeric answer is recomputed here with the package and looked up, as the chapter prints
it, in that chapter's "Exercises" section: a wrong number in an answer fails a test.
"""

from __future__ import annotations

import math
import random
import re
from collections import Counter
from fractions import Fraction
from functools import cache
from pathlib import Path

import numpy as np
import pytest
from mcts_lab.textbook.bandit import ucb1_bandit

from mcts_course.agents import MCTSAgent, MonteCarloAgent, RandomAgent, ucb1
from mcts_course.agents.bandits import ucb1_arm
from mcts_course.agents.cellscore import CellScoreAgent
from mcts_course.agents.evaluation import CELL_WEIGHTS, cell_score
from mcts_course.agents.exact import exact_value, move_values
from mcts_course.agents.mcts import Node
from mcts_course.agents.minimax import SearchStats, alphabeta_value, minimax_value
from mcts_course.agents.rave import RAVEAgent, rave_beta
from mcts_course.agents.solver import MCTSSolverAgent
from mcts_course.arena import match, wilson_interval
from mcts_course.games import ConnectFour, Othello, TicTacToe
from mcts_course.trees import ExplicitTree, depth_profile, search_trace

BOOK = Path(__file__).resolve().parents[2] / "book"
MAIN = sorted(p for p in BOOK.glob("[0-9][0-9]_*.md") if 1 <= int(p.name[:2]) <= 15)
EXERCISE = re.compile(r"^\*\*(\d+)\.(\d+) \(([^)]*)\)", re.M)


def section(number: int) -> str:
    """The text of chapter ``number``'s Exercises section."""
    (path,) = [p for p in MAIN if int(p.name[:2]) == number]
    return path.read_text().split("\n## Exercises\n", 1)[1]


def states(number: int, *texts: str) -> None:
    """Every text is written in chapter ``number``'s exercises (as the answer prints it)."""
    found = " ".join(section(number).split())  # line breaks fall anywhere in the prose
    for text in texts:
        assert text in found, f"chapter {number}: {text!r} not in its exercises"


def pct(x: float, digits: int = 1) -> str:
    return f"{100 * x:.{digits}f}%"


def tic(moves: str = "") -> TicTacToe:
    return TicTacToe.from_moves(moves) if moves else TicTacToe()


# -- shape -------------------------------------------------------------------------------------


def test_fifteen_main_chapters():
    assert [int(p.name[:2]) for p in MAIN] == list(range(1, 16))


@pytest.mark.parametrize("chapter", MAIN, ids=lambda p: p.stem)
def test_each_chapter_ends_with_three_to_eight_answered_exercises(chapter: Path):
    text = chapter.read_text()
    headings = re.findall(r"^## (.+)$", text, re.M)
    assert headings[-1] == "Exercises", f"{chapter.name}: the last section is {headings[-1]!r}"
    body = text.split("\n## Exercises\n", 1)[1]
    found = EXERCISE.findall(body)
    # a week's homework: at least three questions, and not a problem set of a dozen (chapter 15,
    # the longest, asks seven)
    assert 3 <= len(found) <= 8
    number = int(chapter.name[:2])
    assert [(int(c), int(e)) for c, e, _ in found] == [(number, i + 1) for i in range(len(found))]
    assert body.count(":::{dropdown} Answer") == len(found), "one answer per exercise"
    assert body.count(":::{dropdown}") == body.count("\n:::\n"), "every dropdown is closed"
    kinds = " ".join(kind for _, _, kind in found)
    assert "pen and paper" in kinds or "predict" in kinds


def test_no_main_chapter_names_the_earlier_course_or_a_lecture_numbering():
    for path in [*MAIN, BOOK / "index.md", *BOOK.glob("1[6-9]_*.md")]:
        text = path.read_text()
        assert not re.search(r"earlier (course|page)|lecture notes", text, re.I), path.name
        assert not re.search(r"\b(lecture|week|assignment)s? \d", text, re.I), path.name
    appendix = (BOOK / "20_appendix.md").read_text()
    assert "## For instructors: the earlier course" in appendix


# -- chapters 1 to 3 ---------------------------------------------------------------------------


def sequences(state, n: int | None) -> int:
    if n == 0 or state.is_terminal():
        return 1
    return sum(
        sequences(state.play(a), None if n is None else n - 1) for a in state.legal_actions()
    )


@cache
def positions() -> dict[TicTacToe, int | None]:
    """Every reachable tic-tac-toe position, with its exact value (None when terminal)."""
    seen: dict[TicTacToe, int | None] = {}

    def walk(state: TicTacToe) -> None:
        if state in seen:
            return
        seen[state] = None if state.is_terminal() else exact_value(state)
        for a in state.legal_actions():
            walk(state.play(a))

    walk(tic())
    return seen


def test_chapter_1():
    start = Othello()
    moves = start.legal_actions()
    assert sorted(start.action_to_string(a) for a in moves) == ["c4", "d3", "e6", "f5"]
    assert all(sum(start.play(a).disc_counts()) == 5 for a in moves)  # one disc placed, one flipped
    assert all(start.play(a).disc_counts()[1 - start.current_player] == 1 for a in moves)
    counts = [sequences(tic(), n) for n in (1, 2, 3, 4)]
    assert counts == [9, 72, 504, 3024]
    states(1, "9, 72 and 504", "3,024", "255,168", "5,478")
    assert sequences(tic(), None) == 255_168
    assert len(positions()) == 5478


@cache
def random_play(state: TicTacToe) -> tuple[Fraction, Fraction]:
    """(P(X wins), P(O wins)) when both sides play uniformly at random from ``state``."""
    if state.is_terminal():
        r = state.returns()
        return Fraction(r[0] == 1), Fraction(r[1] == 1)
    moves = state.legal_actions()
    pairs = [random_play(state.play(a)) for a in moves]
    return sum(p[0] for p in pairs) / len(moves), sum(p[1] for p in pairs) / len(moves)


def test_chapter_2():
    low, high = wilson_interval(0.52, 1000)
    margin = 1.96 * math.sqrt(0.52 * 0.48 / 1000)
    states(2, f"{margin:.3f}", f"{pct(0.52 - margin)} to {pct(0.52 + margin)}")
    states(2, f"Wilson interval is {pct(low)} to {pct(high)}")
    assert low < 0.5 < high
    states(
        2,
        "$n = (1.96 \\cdot 0.5 / 0.01)^2 = "
        + f"{math.ceil((1.96 * 0.5 / 0.01) ** 2):,}".replace(",", "{,}")
        + "$ games",
        f"{math.ceil((1.96 * 0.5 / 0.03) ** 2):,}",
    )
    x, o = random_play(tic())
    assert (x, o, 1 - x - o) == (Fraction(737, 1260), Fraction(121, 420), Fraction(8, 63))
    states(
        2,
        f"737/1260 ≈ {pct(float(x))}",
        f"121/420 ≈ {pct(float(o))}",
        f"8/63 ≈ {pct(float(1 - x - o))}",
    )


def test_chapter_3():
    squares = [(r, c) for r in range(8) for c in range(8)]

    def images(r: int, c: int) -> set[tuple[int, int]]:
        out = set()
        for a, b in ((r, c), (c, r)):
            for x, y in ((a, b), (7 - a, b), (a, 7 - b), (7 - a, 7 - b)):
                out.add((x, y))
        return out

    classes = {frozenset(images(r, c)) for r, c in squares}
    weights = {w for row in CELL_WEIGHTS for w in row}
    assert (len(classes), len(weights)) == (10, 9)
    states(3, "Ten classes", "nine different numbers", "weight −5")
    c2, d2 = (1, 2), (1, 3)  # (rank index, file index)
    assert CELL_WEIGHTS[1][2] == CELL_WEIGHTS[1][3] == -5
    assert frozenset(images(*c2)) != frozenset(images(*d2))
    start = Othello()
    assert {CELL_WEIGHTS[a // 8][a % 8] for a in start.legal_actions()} == {3}
    assert start.action_to_string(CellScoreAgent().select_action(start)) == "d3"
    states(3, "squares of weight 3", "d3 (square 19, before c4's 26)")
    assert start.parse_action("d3") == 19 and start.parse_action("c4") == 26


# -- chapters 4 and 5 --------------------------------------------------------------------------


def pruned_leaves(nested) -> list[tuple[int, ...]]:
    tree = ExplicitTree.from_nested(nested)
    trace = search_trace(tree)
    return [p for p in trace.pruned(tree) if _is_leaf(nested, p)]


def _is_leaf(nested, path) -> bool:
    node = nested
    for i in path:
        node = node[i]
    return not isinstance(node, list)


def test_chapter_4():
    tree = [[5, 8, 6], [4, 9, 7], [7, 6, 9]]
    trace = search_trace(ExplicitTree.from_nested(tree))
    assert trace.value == 6
    assert pruned_leaves(tree) == [(1, 1), (1, 2)]
    states(4, "The root's value is 6 and MAX plays C", "Two of the nine leaves are skipped")
    best_first = [tree[2], tree[0], tree[1]]
    assert len(pruned_leaves(best_first)) == 4
    assert (
        max(
            len(pruned_leaves([tree[i] for i in order]))
            for order in ((0, 1, 2), (0, 2, 1), (1, 0, 2), (1, 2, 0), (2, 0, 1), (2, 1, 0))
        )
        == 4
    )
    states(4, "four leaves are skipped")
    for b in (10, 2):  # the shallower iterations cost less than a fraction 1/(b-1) more
        assert sum(b**k for k in range(1, 7)) / b**6 < b / (b - 1)
    states(4, f"add at most {100 / 9:.1f}%", "double the work")
    root10 = math.sqrt(10)  # alpha-beta's effective branching factor for b = 10
    states(
        4,
        f"$\\sqrt{{10}} \\approx {root10:.2f}$",
        f"\\approx {100 / (root10 - 1):.0f}\\%$",
        f"a round 3 would give {100 / (3 - 1):.0f}%",
    )
    position = Othello.from_moves("f5 d6 c3 d3 c4 f4 c5 b3 c2")
    nodes = {}
    for depth in (1, 2):
        full, cut = SearchStats(), SearchStats()
        mover = position.current_player
        minimax_value(position, depth, cell_score, mover, stats=full)
        alphabeta_value(position, depth, cell_score, mover, stats=cut, order=False)
        nodes[depth] = (full.nodes, cut.nodes)
    assert nodes[1][0] == nodes[1][1] and nodes[2][1] < nodes[2][0]


def test_chapter_5():
    nested = [[[3, 5], [6, 9]], [[1, 2], [0, -1]]]
    tree = ExplicitTree.from_nested(nested)
    trace = search_trace(tree)
    assert trace.value == 5
    assert pruned_leaves(nested) == [(0, 1, 1), (1, 1, 0), (1, 1, 1)]
    assert trace.values[(0,)] == 5 and trace.values[(1, 0)] == 2
    states(5, "The value is 5; three of the eight leaves are never evaluated")
    # 5.2: B's value needs all its children (minimax); alpha-beta stopped at the bound B <= 2
    full = search_trace(tree, alpha_beta=False).values
    assert (full[(0,)], full[(1, 0)], full[(1, 1)], full[(1,)]) == (5, 2, 0, 0)
    assert trace.values[(1,)] == 2 >= full[(1,)]
    states(
        5,
        "B1 = 2, B2 = max(0, −1) = 0",
        "A = min(5, 9) = 5 is −5 and B = min(2, 0) = 0 is 0",
        "the root is 5 = max(−(−5), −0)",
        "alpha-beta knows only that B is at most 2",
    )
    zeros = ExplicitTree.from_nested([[[[0] * 3] * 3] * 3] * 3)
    visited = [p for p in search_trace(zeros).visited if len(p) == 4]
    assert len(visited) == 3**2 + 3**2 - 1 == 17
    states(
        5,
        "$3^2 + 3^2 - 1 = 17$ leaves against 81",
        "exactly 17 of its 81 leaves",
        f"minimax evaluates {6**8:,} leaves and alpha-beta with the best ordering "
        f"{6**4 + 6**4 - 1:,}",
    )
    from mcts_course.pictures.search import transpositions

    four = transpositions(tic(), plies=4)
    assert sum(len(p) == 4 for p in four.paths) == 3024 and len(four.layers[4]) == 756
    assert {four.reached(s) for s in four.layers[4][:20]} == {4}
    states(5, "$9 \\cdot 8 \\cdot 7 \\cdot 6 = 3{,}024$ sequences", "$2! \\cdot 2! = 4$ sequences")


# -- chapters 6 and 7 --------------------------------------------------------------------------


def bandit_run(means: list[float], seed: int, pulls: int = 1000) -> list[int]:
    rng = random.Random(seed)
    wins, visits = [0.0] * len(means), [0] * len(means)
    for _ in range(pulls):
        arm = ucb1_arm(wins, visits)
        visits[arm] += 1
        wins[arm] += rng.random() < means[arm]
    return visits


def test_chapter_6():
    arms = [(6, 10), (3, 4), (1, 2)]
    values = [ucb1(w, n, 16) for w, n in arms]
    states(6, f"$\\ln 16 = {math.log(16):.3f}$", *(f"= {v:.3f}$" for v in values))
    assert ucb1_arm([w for w, _ in arms], [n for _, n in arms]) == 2
    states(6, "UCB1 pulls arm 3", "the greedy policy pulls arm 2")
    assert max(range(3), key=lambda i: arms[i][0] / arms[i][1]) == 1
    states(6, f"{0.1 * 0.5 * 0.2:.2f}$, so {0.1 * 0.5 * 0.2 * 10_000:.0f} after 10,000")
    # rewards on [-1, 1] with twice the constant choose as on [0, 1]
    rng = random.Random(0)
    for _ in range(200):
        visits = [rng.randint(1, 30) for _ in range(4)]
        wins = [rng.randint(0, n) for n in visits]
        total = sum(visits)
        on01 = max(range(4), key=lambda i: ucb1(wins[i], visits[i], total))
        pm = [2 * w - n for w, n in zip(wins, visits, strict=True)]
        onpm = max(range(4), key=lambda i: ucb1(pm[i], visits[i], total, 2 * math.sqrt(2)))
        assert on01 == onpm
    states(6, "$c = 2\\sqrt 2 \\approx 2.83$")
    shares = [bandit_run([0.6, 0.5], s)[0] / 1000 for s in range(10)]
    worse = [bandit_run([0.9, 0.1], s)[1] for s in range(10)]
    states(
        6,
        f"between {pct(min(shares), 0)} and {pct(max(shares), 0)} of the pulls",
        f"{pct(sum(shares) / 10, 0)} on average",
        f"only {min(worse)} to {max(worse)} pulls",
    )
    # 6.5: A won 7 of 10, B 0 of 1; optimistic greedy with m = 5, Thompson's chance of B
    optimistic = [(7 + 5) / (10 + 5), (0 + 5) / (1 + 5)]
    assert optimistic[1] > optimistic[0] and 7 / 10 > 0
    states(6, f"$(7 + 5)/(10 + 5) = {optimistic[0]:.1f}$", f"\\approx {optimistic[1]:.2f}$")
    draws = np.random.default_rng(0)
    b_first = np.mean(draws.beta(1, 2, 10**6) > draws.beta(8, 4, 10**6))
    assert abs(b_first - 20 / 156) < 0.002
    states(6, f"= 20/156 \\approx {20 / 156:.3f}$")


def test_chapter_7():
    agent = MonteCarloAgent(playouts=600, seed=0)
    agent.select_action(tic("b2"))
    assert [row["visits"] for row in agent.last_stats] == [75] * 8
    state = tic("b2 a1")
    agent.select_action(state)
    assert [row["visits"] for row in agent.last_stats] == [86] * 5 + [85] * 2
    assert [row["action"] for row in agent.last_stats] == state.legal_actions()
    states(7, "75 each", "86, 86, 86, 86, 86, 85, 85 visits")
    trap = [[1, 1, 1, 0], [0.5] * 4]
    flat_values = [sum(leaves) / len(leaves) for leaves in trap]
    assert flat_values == [0.75, 0.5] and search_trace(ExplicitTree.from_nested(trap)).value == 0.5
    states(7, "tend to ¾ for A and ½ for B", "Minimax values A at 0")

    def score(state):  # X's score under random play, draws counting half
        x, o = random_play(state)
        return float(x + (1 - x - o) / 2)

    first = {tic().action_to_string(a): score(tic().play(a)) for a in range(9)}
    assert max(first, key=first.get) == "b2"
    assert {round(v, 3) for v in first.values()} == {0.75, 0.671, 0.6}
    assert all(v == 0 for v in move_values(tic()).values())
    states(7, "X scores 0.75 after it", "0.671 after a corner and 0.6 after an edge", "9,604")


# -- chapters 8 to 10 --------------------------------------------------------------------------


def test_chapter_8():
    children = [(7, 10), (5, 8), (9, 12)]
    sqrt2 = [ucb1(w, n, 30) for w, n in children]
    half = [ucb1(w, n, 30, 0.5) for w, n in children]
    assert max(range(3), key=sqrt2.__getitem__) == 1 and max(range(3), key=half.__getitem__) == 2
    states(8, f"$\\ln 30 = {math.log(30):.3f}$")
    for (w, n), v, h in zip(children, sqrt2, half, strict=True):
        states(8, f"{w / n:.3f} + {v - w / n:.3f} = {v:.3f}", f"{h:.3f}")
    # the four nodes of the path, after a win for O (returns: X -1, O +1) and after a draw
    for returns, added in (((-1, 1), [1, 0, 1, 0]), ((0, 0), [0.5] * 4)):
        root = Node(tic())  # X to move: the root's player is O
        a = Node(root.state.play(0), 0, 0)
        a1 = Node(a.state.play(1), 1, 1)
        a1x = Node(a1.state.play(2), 2, 0)
        path = [root, a, a1, a1x]
        MCTSAgent().backpropagate(path, returns)
        assert [n.wins for n in path] == added and [n.visits for n in path] == [1] * 4
    states(8, "adds 1 to the wins of the root and of a1", "A draw adds ½ to every node")
    # 8.3: the statistics come from a UCT search of a depth-one tree (the root is a bandit)
    run = ucb1_bandit([0.55, 0.50, 0.30], 1000, seed=2, record=[1000])
    bounds, pulls = run.upper(1000), run.pulls[0]
    means = [w / n for w, n in zip(run.wins[0], pulls, strict=True)]
    assert max(bounds) - min(bounds) < 0.01  # level, as the answer says
    assert pulls.index(max(pulls)) == means.index(max(means)) == 0  # robust child = max child
    # (3): before the last iteration (N = 999), c (50 visits, mean 0.70) stands far above a
    # (599 visits, at most 330 wins), so UCT could not have sent that iteration to a
    assert ucb1(0.70 * 50, 50, 999) > ucb1(330, 599, 999) + 0.4
    assert math.sqrt(2) * math.sqrt(math.log(999) / 350) < 0.2  # any child with 350 visits
    states(8, "whose last iteration went to a", "any child with 350 visits or more")
    states(8, f"$\\ln 1000 = {math.log(1000):.3f}$", "`ucb1_bandit` with seed 2")
    position = tic("a1 b2 c3")
    values = {position.action_to_string(a): v for a, v in move_values(position).items()}
    assert values == {"b1": 0, "a2": 0, "c2": 0, "b3": 0, "c1": -1, "a3": -1}
    states(8, "The edges (b1, a2, c2, b3) draw; the corners (c1, a3) lose")
    chosen = Counter(
        position.action_to_string(MCTSAgent(iterations=1000, seed=s).select_action(position))
        for s in range(20)
    )
    assert all(values[m] == 0 for m in chosen) and len(chosen) == 4
    states(8, "plays an edge in all 20 searches (spread over the four edges)")


def test_chapter_9():
    root_children = {"a": (12, 15), "b": (2, 5)}
    at_root = {k: ucb1(w, n, 20) for k, (w, n) in root_children.items()}
    replies = {"b1": (0, 1), "b2": (2, 3)}  # wins counted for O
    below = {k: ucb1(w, n, 5) for k, (w, n) in replies.items()}
    # the counts fit: b's visits are its own playout and its replies'; X's wins at b are the
    # replies O lost (no draws), so b's own first playout was a win for O
    b_wins, b_visits = root_children["b"]
    assert b_visits == 1 + sum(n for _, n in replies.values())
    assert b_wins == sum(n - w for w, n in replies.values())
    assert sum(n for _, n in root_children.values()) == 20
    assert max(at_root, key=at_root.get) == "b" and max(below, key=below.get) == "b1"
    # ... and UCT can reach them, in the order the answer gives: b's 2nd and 3rd visits add b1
    # (a loss for O) and b2 (a win for O), then UCB1 picks b2 twice (O wins, then X wins)
    grown = {"b1": [0, 1], "b2": [1, 1]}
    for b_visits_so_far, o_won in ((3, 1), (4, 0)):
        scores = {k: ucb1(w, n, b_visits_so_far) for k, (w, n) in grown.items()}
        assert max(scores, key=scores.get) == "b2"
        grown["b2"][0] += o_won
        grown["b2"][1] += 1
    assert {k: tuple(v) for k, v in grown.items()} == replies
    # with b1 at 1/1 instead, b1 would outscore anything b2 could have at b's fifth visit
    assert ucb1(1, 1, 4) > ucb1(2, 2, 4)
    states(9, f"$\\ln 20 = {math.log(20):.3f}$", f"$\\ln 5 = {math.log(5):.3f}$")
    for (w, n), v in zip(
        [*root_children.values(), *replies.values()],
        [*at_root.values(), *below.values()],
        strict=True,
    ):
        states(9, f"{w / n:.3f} + {v - w / n:.3f} = {v:.3f}")
    states(9, "the root 21 visits", "b 3/6", "b1 0/2", "the new node 1/1")
    # the threshold: a node with 4 moves gets its children at visits 4 to 7
    agent = MCTSAgent(expand_threshold=3, seed=0)
    node = Node(tic("a1 b2 c3 a2 c1"))  # O to move, four empty cells
    assert len(node.state.legal_actions()) == 4
    node.visits = 1  # the iteration that added it
    grew = []
    for visit in range(2, 10):
        if agent.expand(node) is not node:
            grew.append(visit)
        node.visits += 1
    assert grew == [4, 5, 6, 7]
    states(9, "the first child at visit 4, the last at visit 7", "the node with 7 visits")
    trees = {}
    for moves in ("", "a1 b2 c3"):
        agent = MCTSAgent(iterations=2000, seed=0)
        agent.select_action(tic(moves))
        root = agent.last_root
        trees[moves] = (depth_profile(root), {a: c.visits for a, c in root.children.items()})
    (empty, empty_visits), (late, late_visits) = trees.values()
    assert empty[:4] == [1, 9, 72, 504] and len(empty) - 1 == 5 and len(late) - 1 == 6
    assert (min(empty_visits.values()), max(empty_visits.values())) == (111, 457)
    assert max(empty_visits, key=empty_visits.get) == 4  # the centre
    late_position = tic("a1 b2 c3")
    edges = [late_visits[late_position.parse_action(m)] for m in ("b1", "a2", "c2", "b3")]
    corners = [late_visits[late_position.parse_action(m)] for m in ("c1", "a3")]
    assert (min(edges), max(edges), set(corners)) == (415, 459, {132})

    # the answer's two measures of evenness rank the roots differently
    def ratio(v: dict[int, int]) -> float:
        return max(v.values()) / min(v.values())

    def evenness(v: dict[int, int]) -> float:
        shares = [n / sum(v.values()) for n in v.values()]
        return -sum(p * math.log(p) for p in shares) / math.log(len(shares))

    assert ratio(late_visits) < ratio(empty_visits) and evenness(late_visits) < evenness(
        empty_visits
    )
    # the answer prints these numbers through glue (computed beside the exercise, with claims)
    states(
        9,
        "{glue:text}`ex93_e_full`",
        "reaches depth {glue:text}`ex93_e_deep`",
        "range from {glue:text}`ex93_e_min` to {glue:text}`ex93_e_max`",
        "reaches depth {glue:text}`ex93_t_deep`",
        "{glue:text}`ex93_t_ratio:.1f` against {glue:text}`ex93_e_ratio:.1f`",
    )


def test_chapter_10():
    low, high = wilson_interval(0.6, 60)
    states(10, f"The interval is {pct(low)} to {pct(high)}")
    n = next(n for n in range(60, 200) if 1.96 * math.sqrt(0.24 / n) < 0.1)
    assert n == 93 and wilson_interval(0.6, 100)[0] > 0.5
    states(10, "from $n = 93$", "about 100 games")
    position = tic("a1 b2 c3")
    values = move_values(position)
    curves = {
        name: [
            sum(values[make(n, k).select_action(position)] == 0 for k in range(20))
            for n in (10, 100, 1000)
        ]
        for name, make in (
            ("mcts", lambda n, k: MCTSAgent(iterations=n, seed=k)),
            ("flat", lambda n, k: MonteCarloAgent(playouts=n, policy="ucb1", seed=k)),
        )
    }
    assert curves == {"mcts": [13, 12, 20], "flat": [11, 12, 7]}
    states(
        10,
        "in 13 of the 20 searches, flat Monte Carlo in 11",
        "12 at 100 and all 20 at 1,000",
        "gets 12 and then only 7",
    )
    random_scores = {}
    for a in position.legal_actions():
        x, o = random_play(position.play(a))
        random_scores[position.action_to_string(a)] = o + (1 - x - o) / 2
    assert {random_scores[m] for m in ("c1", "a3")} == {Fraction(7, 12)}
    assert {random_scores[m] for m in ("b1", "a2", "c2", "b3")} == {Fraction(11, 20)}
    states(10, "7/12 ≈ 0.583 after a (losing) corner and 11/20 = 0.55")
    states(10, f"$1 - 0.95^5 = {100 * (1 - 0.95**5):.1f}\\%$", "$0.05/5 = 0.01$")


# -- chapters 11 to 15 -------------------------------------------------------------------------


def test_chapter_11():
    ttt = match(TicTacToe, MCTSAgent(iterations=200), RandomAgent(), games=20, seed=1)
    c4 = match(ConnectFour, MCTSAgent(iterations=200), RandomAgent(), games=10, seed=1)
    assert ttt.score == c4.score == 1.0
    low_ttt, low_c4 = wilson_interval(ttt.score, 20)[0], wilson_interval(c4.score, 10)[0]
    states(
        11,
        "One agent, two games",
        "all 20 games of tic-tac-toe and all 10 of Connect Four",
        f"95% Wilson intervals from {low_ttt:.0%} and from {low_c4:.0%}",
    )


def test_chapter_12():
    root = math.sqrt(10)
    children = [(0.6, 6, 0.2), (0.5, 3, 0.5), (0.5, 0, 0.3)]  # Q (fpu for the unvisited), n, P
    scores = [q + p * root / (1 + n) for q, n, p in children]
    uniform = [q + root / 3 / (1 + n) for q, n, _ in children]
    assert max(range(3), key=scores.__getitem__) == 2 == max(range(3), key=uniform.__getitem__)
    states(12, f"$\\sqrt{{10}} = {root:.3f}$", *(f"{s:.3f}" for s in scores + uniform))
    position = tic("b2 a2 a1 c3")  # 12.3: no move wins at once; b1 and c1 fork
    assert not any(position.play(a).winner() == 0 for a in position.legal_actions())
    agent = MCTSSolverAgent(iterations=300, seed=0)
    assert position.action_to_string(agent.select_action(position)) == "b1"
    assert agent.root_value() == 1.0 and exact_value(position) == 1
    fork = position.play(position.parse_action("b1"))
    # after the fork, every reply of O leaves X a move that wins at once
    replies = [fork.play(a) for a in fork.legal_actions()]
    assert len(replies) == 4 and all(
        not r.is_terminal() and any(r.play(b).winner() == 0 for b in r.legal_actions())
        for r in replies
    )
    states(12, "X's b1 makes two threats at once, c1 (row 1) and b3 (column b)")


def test_chapter_13():
    states(
        13,
        f"{rave_beta(300, 100):.3f}$ at $N = 100$",
        f"{rave_beta(300, 1000):.3f}$ at $N = 1{{,}}000$",
    )
    assert rave_beta(300, 300) == 0.5
    # the two children scored in 13.1's answer, by the textbook's rave_score and by UCB1
    from mcts_lab.textbook.rave import rave_score

    parent = Node(tic())
    parent.visits = 100
    u1, u2 = Node(tic()), Node(tic())
    u1.visits, u1.wins, u2.visits, u2.wins = 10, 6.0, 10, 7.0
    amaf = {u1: (30.0, 40), u2: (20.0, 40)}
    scores = [rave_score(parent, u, amaf, k=300, c=0.35) for u in (u1, u2)]
    bonus = 0.35 * math.sqrt(math.log(100) / 10)
    beta = rave_beta(300, 100)
    assert scores[0] > scores[1] and 0.6 + bonus < 0.7 + bonus
    states(
        13,
        f"{bonus:.3f}$",
        f"${1 - beta:.3f} \\cdot 0.6 + {beta:.3f} \\cdot 0.75 = {scores[0] - bonus:.3f}$",
        f"its score is ${scores[0]:.3f}$",
        f"${1 - beta:.3f} \\cdot 0.7 + {beta:.3f} \\cdot 0.5 = {scores[1] - bonus:.3f}$",
        f"its score is ${scores[1]:.3f}$",
        f"${0.7 + bonus:.3f}$ against ${0.6 + bonus:.3f}$",
    )
    # the playout of 13.2 is legal and X wins it
    end = tic("b2 a1 c1 b3 a3")
    assert end.is_terminal() and end.returns() == (1, -1)
    agent = RAVEAgent(10, seed=0)
    root = Node(tic())
    for name in ("a1", "b2", "c1", "a3", "c3"):
        action = root.state.parse_action(name)
        root.children[action] = Node(root.state.play(action), action, 0)  # X's moves
    playout = [
        (1 - i % 2, root.state.parse_action(m)) for i, m in enumerate(["a1", "c1", "b3", "a3"])
    ]
    b2 = root.children[root.state.parse_action("b2")]
    agent.backpropagate([root, b2], end.returns(), playout)
    updated = {root.state.action_to_string(a): agent.amaf(c) for a, c in root.children.items()}
    assert {m for m, (_, n) in updated.items() if n} == {"b2", "c1", "a3"}
    assert all(w == n for w, n in updated.values())  # each update counts a win for X
    states(13, "b2, the move played, and c1 and a3", "c3 was not played at all")
    reached = {n: {s for s in _states_after(n)} for n in (3, 4)}
    assert (sequences(tic(), 3), len(reached[3])) == (504, 252)
    assert (
        (sequences(tic(), 4), len(reached[4]))
        == (3024, 756)
        == (3024, math.comb(9, 2) * math.comb(7, 2))
    )
    states(13, "504 sequences", "reach 252 positions", "3,024 sequences reach 756")
    states(13, "a 90, b 110, so b")


def _states_after(n: int) -> list[TicTacToe]:
    layer = [tic()]
    for _ in range(n):
        layer = [s.play(a) for s in layer for a in s.legal_actions()]
    return layer


def _trace(tree, alpha: int, beta: int, pvs: bool, counts: list[int]) -> int:
    """Negamax on a tree of nested lists (leaves: margins for the player to move at the root,
    signed by depth), by PVS or plain alpha-beta; counts = [leaf evaluations, re-searches]."""

    def search(node, a: int, b: int, sign: int) -> int:
        if isinstance(node, int):
            counts[0] += 1
            return sign * node
        value = -99
        for i, child in enumerate(node):
            if i == 0 or not pvs:
                w = -search(child, -b, -a, -sign)
            else:
                w = -search(child, -a - 1, -a, -sign)
                if a < w < b:
                    counts[1] += 1
                    w = -search(child, -b, 1 - w, -sign)
            value, a = max(value, w), max(a, max(value, w))
            if a >= b:
                break
        return value

    return search(tree, alpha, beta, 1)


def test_chapter_14():
    assert math.ceil(math.log2(65)) == 7
    states(14, "$\\lceil \\log_2 65 \\rceil = 7$ tests")
    tree = [[3, 7], [5, 6], [2, 9]]  # exercise 14.2's margins, in search order
    pvs, plain = [0, 0], [0, 0]
    assert _trace(tree, -64, 64, True, pvs) == _trace(tree, -64, 64, False, plain) == 5
    assert (pvs, plain) == ([7, 1], [5, 0])
    states(14, "3 and 7 after $a_1$, 5 and 6 after $a_2$, 2 and 9 after $a_3$")
    states(14, "Seven leaf evaluations, one re-search; the value is 5 with $a_2$", "Five leaf")
    best_first = [tree[1], tree[0], tree[2]]
    pvs, plain = [0, 0], [0, 0]
    _trace(best_first, -64, 64, True, pvs)
    _trace(best_first, -64, 64, False, plain)
    assert pvs == [4, 0] and plain == [4, 0]
    states(14, "With $a_2$ first, both evaluate four leaves and PVS makes no re-search")


def test_chapter_15():
    pi, p = [0.6, 0.3, 0.1], [0.5, 0.25, 0.25]
    ce = -sum(t * math.log(q) for t, q in zip(pi, p, strict=True))
    entropy = -sum(t * math.log(t) for t in pi)
    states(
        15,
        f"{ce:.3f}$; value error $(1 - 0.5)^2 = 0.25$; loss ${ce + 0.25:.3f}$",
        f"entropy of $\\pi$ ({entropy:.3f})",
    )
    logits = [2, 1, 0]
    z = sum(math.exp(v) for v in logits)
    states(15, "(" + ", ".join(f"{math.exp(v) / z:.3f}" for v in logits) + ")")
    squared = [v * v / 46 for v in (6, 3, 1)]
    states(15, "(36, 9, 1)/46 = (" + ", ".join(f"{v:.3f}" for v in squared) + ")")
    noisy = [0.75 * a + 0.25 * b for a, b in zip([0.7, 0.2, 0.1], [0.1, 0.1, 0.8], strict=True)]
    assert [round(v, 3) for v in noisy] == [0.55, 0.175, 0.275]
    states(15, "(0.55, 0.175, 0.275)")
    counts = Counter(v for v in positions().values() if v is not None)
    total = sum(counts.values())
    states(
        15,
        f"{total:,} non-terminal positions",
        *(
            f"{counts[v]:,} {name} ({pct(counts[v] / total)})"
            for v, name in ((1, "wins for the player to move"), (0, "draws"), (-1, "losses"))
        ),
    )
    assert max(counts, key=counts.get) == 1
