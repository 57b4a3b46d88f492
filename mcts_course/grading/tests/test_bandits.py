"""Public checks of exercise 7: bandit policies for primitive Monte Carlo.

The choices are checked against the library's own bandit rules
(:mod:`mcts_course.agents.bandits`), the frequencies by statistical tests, and the scores of a
seeded compare_policies against answers recorded for fixed questions (the grader's tests check
the recording against the reference solution).

PYTEST_DONT_REWRITE: a failed assert reads as its message (the hint follows), not as pytest's
comparison of the grader's variables.
"""

from __future__ import annotations

import copy
import functools
import math
import random

import pytest

from mcts_course.agents.bandits import first_max, ucb1_arm
from mcts_course.games import TicTacToe
from mcts_course.grading.public import greedy_after_5, last_once_then_first, round_robin


def arms(rng: random.Random, unplayed: bool = False) -> tuple[list[int], list[float]]:
    k = rng.randint(2, 9)
    counts = [rng.randint(0 if unplayed else 1, 30) for _ in range(k)]
    sums = [round(rng.uniform(0, n) * 2) / 2 for n in counts]
    return counts, sums


def frequencies(chosen: list, k: int) -> list[float]:
    counts = [0] * k
    for i in chosen:
        assert i in range(k), f"chose {i!r}, not an arm index in 0..{k - 1}"
        counts[i] += 1
    return [c / len(chosen) for c in counts]


def close(freq: list[float], probs: list[float], n: int, what: str) -> None:
    for i, (f, p) in enumerate(zip(freq, probs, strict=True)):
        tolerance = 4.5 * math.sqrt(p * (1 - p) / n) + 1e-9
        assert abs(f - p) <= tolerance, (
            f"{what}: arm {i} was chosen {f:.3f} of the time, expected {p:.3f} "
            f"(all frequencies {[round(x, 3) for x in freq]})"
        )


@pytest.mark.points(
    1,
    exercise="bandits",
    timeout=6,
    hint="an arm never played comes first (the smallest such index); then each policy's rule",
)
def test_unplayed_first(student):
    """all three policies play an unplayed arm first"""
    rng = random.Random(1)
    cases = [arms(rng, unplayed=True) for _ in range(100)]
    cases = [(counts, sums) for counts, sums in cases if 0 in counts]
    wants = [counts.index(0) for counts, _ in cases]
    # each policy gets its own copies: what one does to its lists cannot change the next's
    picks = {
        "ucb1_choice": student.ucb1_choice.many(copy.deepcopy([(c, s, 1.0) for c, s in cases])),
        "epsilon_greedy_choice": student.epsilon_greedy_choice.many(
            copy.deepcopy([(c, s, 0.5, random.Random(0)) for c, s in cases])
        ),
        "softmax_choice": student.softmax_choice.many(
            copy.deepcopy([(c, s, 0.2, random.Random(0)) for c, s in cases])
        ),
    }
    for name, chosen in picks.items():
        for (counts, _), want, got in zip(cases, wants, chosen, strict=True):
            assert got == want, f"{name} with counts {counts} chose {got}, expected {want}"
    # once every arm is played, each policy's own rule decides (a policy that only knows the
    # unplayed-first rule, or one rule for all three, earns nothing here)
    played = [arms(rng) for _ in range(60)]
    ucb = student.ucb1_choice.many(copy.deepcopy([(c, s, 1.0) for c, s in played]))
    greedy = student.epsilon_greedy_choice.many(
        copy.deepcopy([(c, s, 0.0, random.Random(0)) for c, s in played])
    )
    for (counts, sums), got_ucb, got_greedy in zip(played, ucb, greedy, strict=True):
        want = ucb1_arm(sums, counts, 1.0)
        assert got_ucb == want, f"ucb1_choice({counts}, {sums}, c=1) chose {got_ucb}, not {want}"
        want = first_max([x / n for n, x in zip(counts, sums, strict=True)])
        assert got_greedy == want, (
            f"epsilon_greedy_choice({counts}, {sums}, epsilon=0) chose {got_greedy}, not {want}"
        )
    hot = student.softmax_choice.repeat(4000, [5, 5, 5, 5], [5.0, 0.0, 2.0, 1.0], 1000.0, rng)
    close(frequencies(hot, 4), [0.25] * 4, 4000, "softmax with temperature 1000 (near uniform)")


@pytest.mark.points(
    2,
    exercise="bandits",
    hint="score = mean + c * sqrt(ln(total playouts) / count); ties: smallest index",
)
def test_ucb1_choice(student):
    """ucb1_choice picks the arm of highest UCB1 score on 300 random bandits"""
    rng = random.Random(2)
    cases = [(*arms(rng), rng.choice([0.0, 0.5, math.sqrt(2), 3.0])) for _ in range(300)]
    cases += [([3, 3, 3, 3], [1.5, 2.0, 1.0, 2.0], 0.0), ([2, 2], [1.0, 1.0], 1.0)]  # ties
    wants = [ucb1_arm(sums, counts, c) for counts, sums, c in cases]  # the library's UCB1
    results = student.ucb1_choice.many(copy.deepcopy(cases))
    for (counts, sums, c), want, got in zip(cases, wants, results, strict=True):
        assert got == want, f"counts {counts}, sums {sums}, c={c:.2f}: chose {got}, expected {want}"


@pytest.mark.points(
    1,
    exercise="bandits",
    timeout=6,
    hint="with epsilon = 0 always exploit: the best mean, smallest index; with epsilon = 1 "
    "always explore (a uniformly random arm)",
)
def test_greedy(student):
    """epsilon-greedy with epsilon 0 is greedy, with epsilon 1 uniform"""
    rng = random.Random(3)
    cases = [arms(rng) for _ in range(300)] + [([4, 2, 4], [2.0, 1.0, 2.0])]
    wants = [first_max([x / n for n, x in zip(c, s, strict=True)]) for c, s in cases]
    chosen = student.epsilon_greedy_choice.many(
        copy.deepcopy([(c, s, 0.0, random.Random(0)) for c, s in cases])
    )
    for (counts, sums), want, got in zip(cases, wants, chosen, strict=True):
        assert got == want, f"counts {counts}, sums {sums}: chose {got}, the greedy arm is {want}"
    # and epsilon is not ignored: with epsilon 1 every choice is a uniformly random arm
    n = 4000
    spread = student.epsilon_greedy_choice.repeat(n, [5, 5, 5], [5.0, 0.0, 1.0], 1.0, rng)
    close(frequencies(spread, 3), [1 / 3] * 3, n, "epsilon-greedy, epsilon 1 (always explores)")


@pytest.mark.points(
    2,
    exercise="bandits",
    timeout=4,
    hint="explore with probability epsilon: a uniformly random arm (which may be the greedy one)",
)
def test_epsilon_greedy_statistics(student):
    """epsilon-greedy explores with the right frequency"""
    counts, sums = [10, 10, 10, 10, 10], [2.0, 7.0, 5.0, 1.0, 3.0]
    rng, n = random.Random(4), 20000
    chosen = student.epsilon_greedy_choice.repeat(n, counts, sums, 0.3, rng)
    close(frequencies(chosen, 5), [0.06, 0.76, 0.06, 0.06, 0.06], n, "epsilon-greedy, epsilon 0.3")


@pytest.mark.points(
    2,
    exercise="bandits",
    timeout=4,
    hint="P(i) = exp(mean_i / temperature) / sum_j exp(mean_j / temperature)",
)
def test_softmax_statistics(student):
    """softmax chooses each arm with probability proportional to exp(mean / temperature)"""
    counts, sums = [4, 10, 5, 8], [1.0, 6.0, 4.0, 2.0]
    means = [s / n for n, s in zip(counts, sums, strict=True)]
    for temperature in (0.1, 0.5):
        weights = [math.exp(m / temperature) for m in means]
        probs = [w / sum(weights) for w in weights]
        rng, n = random.Random(5), 20000
        chosen = student.softmax_choice.repeat(n, counts, sums, temperature, rng)
        close(frequencies(chosen, 4), probs, n, f"softmax with temperature {temperature}")


@pytest.mark.points(
    1, exercise="bandits", hint="subtract the largest mean before exp() so it cannot overflow"
)
def test_softmax_small_temperature(student, submission_seed):
    """softmax with a tiny temperature picks the best arm (no overflow), not at 0.2"""
    rng = random.Random(submission_seed)  # where the best arm is: not a constant
    for _ in range(3):
        means = [2.0, 9.0, 5.0, 0.5]
        rng.shuffle(means)
        counts, best = [10] * 4, means.index(9.0)
        sums = [10 * m for m in means]
        for got in student.softmax_choice.repeat(100, counts, sums, 0.001, rng):
            assert got == best, (
                f"with counts {counts}, sums {sums} and temperature 0.001 softmax must pick the "
                f"best arm {best}, chose {got}"
            )
    # the same rule at a moderate temperature still draws the other arms (not an argmax)
    n, means = 4000, [0.2, 0.6, 0.4]
    weights = [math.exp(m / 0.2) for m in means]
    chosen = student.softmax_choice.repeat(n, [10] * 3, [10 * m for m in means], 0.2, rng)
    close(
        frequencies(chosen, 3), [w / sum(weights) for w in weights], n, "softmax, temperature 0.2"
    )


WIN_AT_A3 = "a1 b1 a2 b2"  # X to move wins at a3 (6)


@pytest.mark.points(
    2,
    exercise="bandits",
    timeout=4,
    hint="policy(counts, sums, rng) gives the index of the move to play out",
)
def test_monte_carlo_move(student):
    """monte_carlo_move finds the winning move with each policy and calls it once a playout"""
    state = TicTacToe.from_moves(WIN_AT_A3)
    for name, policy in (("round robin", round_robin), ("greedy after 5 each", greedy_after_5)):
        for seed in range(3):
            got = student.monte_carlo_move(state, 300, policy, random.Random(seed))
            assert got == 6, f"policy {name}, seed {seed}: chose {got}, the winning move is 6 (a3)"
    calls = []

    def counting(counts, sums, rng):
        calls.append(list(counts))
        return len(calls) % len(counts)

    student.monte_carlo_move(TicTacToe(), 50, counting, random.Random(0))
    assert len(calls) == 50, f"the policy was called {len(calls)} times for 50 playouts"
    assert sum(calls[-1]) == 49, "counts must be updated after every playout"


@pytest.mark.points(
    1,
    exercise="bandits",
    timeout=3,
    hint="the move returned is the one of best MEAN reward among the moves played, "
    "not the most played one",
)
def test_monte_carlo_move_best_mean(student):
    """monte_carlo_move returns the move of best mean reward (not the most played)"""
    state = TicTacToe.from_moves("a1 b1 b2 c1")  # X to move wins at c3 (8), the last move
    actions = state.legal_actions()
    assert actions[-1] == 8 and state.play(8).returns() == (1, -1)
    calls = []

    def counted(counts, sums, rng):  # the policy is the grader's: it counts its calls
        calls.append(1)
        return last_once_then_first(counts, sums, rng)

    for seed in range(3):
        calls.clear()
        got = student.monte_carlo_move(state, 40, counted, random.Random(seed))
        assert len(calls) == 40, f"the policy was called {len(calls)} times for 40 playouts"
        assert got == 8, (
            f"in\n{state}\nthe winning move c3 (8) was played out once (mean 1), move "
            f"{actions[0]} 39 times: the best mean is c3 (8), you returned {got!r}"
        )


@functools.cache
def one_move_win() -> TicTacToe:
    """A tic-tac-toe position with one empty cell whose player to move wins by filling it."""

    def search(state: TicTacToe):
        actions = state.legal_actions()
        if len(actions) == 1:
            after = state.play(actions[0])
            return state if after.returns()[state.current_player] == 1 else None
        for a in actions:
            found = search(state.play(a))
            if found is not None:
                return found
        return None

    return search(TicTacToe())


@pytest.mark.points(
    2,
    exercise="bandits",
    timeout=12,
    hint="each policy's player against random play; return {policy name: score}",
)
def test_compare_policies(student):
    """compare_policies returns a score per policy; UCB1 beats random play"""
    scores = student.compare_policies(
        ("ucb1", "uniform"), TicTacToe, playouts=100, games=20, seed=1
    )
    assert isinstance(scores, dict), f"compare_policies returned {scores!r}, not a dict"
    assert set(scores) == {"ucb1", "uniform"}, f"keys should be the policy names: {scores}"
    assert all(0 <= v <= 1 for v in scores.values()), f"scores must lie in [0, 1]: {scores}"
    assert scores["ucb1"] >= 0.7, f"UCB1 Monte Carlo should beat random play: {scores}"


@pytest.mark.points(
    1,
    exercise="bandits",
    timeout=6,
    hint="seed everything from `seed` (one random.Random(seed)); the player moves first in "
    "games 0, 2, 4, ... and second in games 1, 3, 5, ...",
)
def test_compare_policies_seeded_and_alternating(student):
    """compare_policies is reproducible for a seed and alternates who moves first"""
    first = student.compare_policies(("ucb1", "softmax"), TicTacToe, playouts=20, games=6, seed=3)
    again = student.compare_policies(("ucb1", "softmax"), TicTacToe, playouts=20, games=6, seed=3)
    assert first == again, f"two calls with seed=3 gave {first} and then {again}"
    start = one_move_win()

    def forced(*args, **kwargs):  # the game: whoever moves first wins at once
        return start

    for games in (4, 5):
        scores = student.compare_policies(("uniform",), forced, playouts=5, games=games, seed=0)
        want = math.ceil(games / 2) / games
        assert math.isclose(scores.get("uniform", -1), want), (
            f"in a game won by whoever moves first, {games} games gave the player the score "
            f"{scores.get('uniform')}; moving first in games 0, 2, 4, ... it scores {want:g}"
        )


DOCUMENTED_SEEDS = (5, 11)
# compare_policies(("uniform", "ucb1"), TicTacToe, playouts=2, games=8, seed=seed) of the
# reference, by seed (recorded; tests/grader checks them against the reference).
DOCUMENTED_SCORES = {5: {"uniform": 0.8125, "ucb1": 0.75}, 11: {"uniform": 0.6875, "ucb1": 0.75}}


@pytest.mark.points(
    1,
    exercise="bandits",
    timeout=8,
    hint="one rng = random.Random(seed); each policy's player, in the order of `policies`, gets "
    "seed=rng.randrange(2**31); the random opponent plays rng.choice(state.legal_actions())",
)
def test_compare_policies_seeds_as_documented(student):
    """compare_policies seeds its players and the random opponent as its contract says"""
    # Two playouts a move: weak players, so that the scores depend on every random draw.  Uniform
    # and UCB1 draw nothing themselves: only the playouts and the random opponent do.
    call = "compare_policies(('uniform', 'ucb1'), TicTacToe, playouts=2, games=8, seed={})"
    for seed in DOCUMENTED_SEEDS:
        want = DOCUMENTED_SCORES[seed]
        got = student.compare_policies(
            ("uniform", "ucb1"), TicTacToe, playouts=2, games=8, seed=seed
        )
        assert isinstance(got, dict) and set(got) == set(want), (
            f"{call.format(seed)} returned {got!r}; expected the keys {sorted(want)}"
        )
        assert all(math.isclose(got[k], want[k]) for k in want), (
            f"{call.format(seed)} gave {got}; seeded as its contract says, it gives {want}"
        )


class Scripted:
    """An opponent of the grader's that plays the first legal move and counts its turns."""

    name = "first-legal"

    def __init__(self):
        self.turns = 0

    def select_action(self, state):
        self.turns += 1
        return state.legal_actions()[0]


@pytest.mark.points(
    1,
    exercise="bandits",
    timeout=6,
    hint="let `opponent` choose its moves with select_action(state)",
)
def test_compare_policies_uses_the_opponent(student):
    """compare_policies plays against the opponent it is given"""
    start = one_move_win()
    opponent = Scripted()
    scores = student.compare_policies(
        ("ucb1", "uniform"), lambda: start, playouts=5, games=5, seed=0, opponent=opponent
    )
    # the opponent moves first (and wins at once) in games 1 and 3 of each policy
    assert opponent.turns == 4, (
        f"the opponent was asked for {opponent.turns} moves; moving first in games 1 and 3 of "
        "each of the 2 policies (a game that the first move wins), it should be asked 4 times"
    )
    assert scores == {"ucb1": 0.6, "uniform": 0.6}, scores
