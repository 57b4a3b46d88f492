"""The grader's tests of exercise 7 that work out the contracts of monte_carlo_move and
compare_policies at grading time, on generators, positions and parameters drawn from
``submission_seed`` (tests/grader checks this working against the reference solution).  They
were public checks until red team 32 (03) pasted their working into a submission for 10 of the
set's 17 points: what works a contract out is an answer, and a student's install holds none.

The public checks of the set are in ``mcts_course.grading.tests.test_bandits``.

PYTEST_DONT_REWRITE: a failed assert reads as its message (the hint follows), not as pytest's
comparison of the grader's variables.
"""

from __future__ import annotations

import functools
import math
import random

import pytest

from mcts_course.games import TicTacToe
from mcts_course.grading.public import greedy_after_5, last_once_then_first, round_robin
from mcts_grader.solutions import bandits as ref  # noqa: F401  (a module only the grader has)

WIN_AT_A3 = "a1 b1 a2 b2"  # X to move wins at a3 (6)


# What the contracts make of a question, computed by the grader at grading time (the contracts
# in the exercise's docstrings fix every draw, so these are public facts of each question): the
# parameters are drawn from `submission_seed`, so no table of recorded answers fits them, and a
# search that plays no playout (red-team 3 attack 05: a negamax fed the policy made-up rewards)
# or no game (attack 02: the public test's recorded scores) shows in the rewards, the generator
# and the scores.
def contract_move(state, playouts: int, policy, rng: random.Random) -> tuple[int, list]:
    """monte_carlo_move's contract: the move and the (counts, sums) shown to the policy."""
    actions, player = state.legal_actions(), state.current_player
    counts, sums, shown = [0] * len(actions), [0.0] * len(actions), []
    for _ in range(playouts):
        shown.append((list(counts), list(sums)))
        i = policy(counts, sums, rng)
        counts[i] += 1
        sums[i] += (state.play(actions[i]).rollout(rng)[player] + 1) / 2
    played = [i for i in range(len(actions)) if counts[i]]
    return actions[max(played, key=lambda i: sums[i] / counts[i])], shown


def contract_ucb1(counts, sums, rng) -> int:
    """UCB1 (c = sqrt 2) as the exercise defines it: the first unplayed arm, else the best."""
    if 0 in counts:
        return counts.index(0)
    t = sum(counts)
    scores = [
        s / n + math.sqrt(2) * math.sqrt(math.log(t) / n) for n, s in zip(counts, sums, strict=True)
    ]
    return max(range(len(scores)), key=lambda i: scores[i])


CONTRACT_POLICIES = {"uniform": round_robin, "ucb1": contract_ucb1}


def contract_scores(
    policies, playouts: int, games: int, seed: int, game=TicTacToe, opponent=None
) -> dict[str, float]:
    """compare_policies' contract (for policies that draw nothing themselves: uniform and
    UCB1) against ``opponent`` (None: the random opponent of the shared generator)."""
    rng, scores = random.Random(seed), {}
    for name in policies:
        mine, total = random.Random(rng.randrange(2**31)), 0.0
        for g in range(games):
            state = game()
            while not state.is_terminal():
                if state.current_player == g % 2:
                    action = contract_move(state, playouts, CONTRACT_POLICIES[name], mine)[0]
                elif opponent is None:
                    action = rng.choice(state.legal_actions())
                else:
                    action = opponent.select_action(state)
                state = state.play(action)
            total += (state.returns()[g % 2] + 1) / 2
        scores[name] = total / games
    return scores


def assert_contract_scores(student, policies, playouts: int, games: int, seed: int) -> dict:
    """The student's compare_policies against the random opponent gives the contract's scores."""
    call = (
        f"compare_policies({policies}, TicTacToe, playouts={playouts}, games={games}, seed={seed})"
    )
    got = student.compare_policies(policies, TicTacToe, playouts=playouts, games=games, seed=seed)
    want = contract_scores(policies, playouts, games, seed)
    assert isinstance(got, dict) and set(got) == set(want), (
        f"{call} returned {got!r}; the keys should be the policy names {sorted(want)}"
    )
    assert all(isinstance(got[k], float | int) and math.isclose(got[k], want[k]) for k in want), (
        f"{call} gave {got}; played and seeded as its contract says, it gives {want}"
    )
    return got


def assert_played_out(student, state, playouts: int, policy, seed: int) -> int:
    """The student's monte_carlo_move on a generator of the grader's: the policy must be shown
    the rewards of the contract's playouts and the generator must end where they leave it."""
    shown: list = []

    def watched(counts, sums, rng):  # the grader's policy: it sees what it is shown
        shown.append((list(counts), list(sums)))
        return policy(counts, sums, rng)

    rng = random.Random(seed)
    got = student.monte_carlo_move.keeping(state, playouts, watched, rng)
    after = random.Random(seed)
    want, want_shown = contract_move(state, playouts, policy, after)
    assert len(shown) == playouts, (
        f"the policy was called {len(shown)} times for {playouts} playouts"
    )
    for k, (seen, meant) in enumerate(zip(shown, want_shown, strict=True)):
        assert seen[0] == meant[0] and all(
            math.isclose(x, y) for x, y in zip(seen[1], meant[1], strict=True)
        ), (
            f"from\n{state}\nwith random.Random({seed}), call {k + 1} of the policy was shown "
            f"counts {seen[0]} and sums {seen[1]}; the contract's playouts "
            "(state.play(actions[i]).rollout(rng), reward of the player to move) give counts "
            f"{meant[0]} and sums {meant[1]}"
        )
    assert rng.getstate() == after.getstate(), (
        "the generator was not left where the contract's playouts leave it: draw only through "
        "the policy and state.play(actions[i]).rollout(rng)"
    )
    assert got == want, (
        f"from\n{state}\nwith random.Random({seed}) the contract's move is {want}; "
        f"you returned {got!r}"
    )
    return got


def random_state(rng: random.Random) -> TicTacToe:
    """A tic-tac-toe position after 0-4 random moves."""
    state = TicTacToe()
    for _ in range(rng.randint(0, 4)):
        state = state.play(rng.choice(state.legal_actions()))
    return state


@pytest.mark.points(
    2,
    exercise="bandits",
    timeout=8,
    hint="policy(counts, sums, rng) gives the index of the move to play out; then "
    "state.play(actions[i]).rollout(rng) and the reward of the player to move",
)
def test_monte_carlo_move(student, submission_seed):
    """monte_carlo_move finds the winning move with each policy and plays the contract's
    playouts (a policy call, then a random playout, each time)"""
    state = TicTacToe.from_moves(WIN_AT_A3)
    draw = random.Random(submission_seed)
    for name, policy in (("round robin", round_robin), ("greedy after 5 each", greedy_after_5)):
        for _ in range(2):
            seed = draw.randrange(2**31)
            got = assert_played_out(student, state, 300, policy, seed)
            assert got == 6, f"policy {name}, seed {seed}: chose {got}, the winning move is 6 (a3)"
    for _ in range(2):
        start = random_state(draw)
        assert_played_out(student, start, draw.randint(20, 60), round_robin, draw.randrange(2**31))


@pytest.mark.points(
    1,
    exercise="bandits",
    timeout=3,
    hint="the move returned is the one of best MEAN reward among the moves played, "
    "not the most played one",
)
def test_monte_carlo_move_best_mean(student, submission_seed):
    """monte_carlo_move returns the move of best mean reward (not the most played)"""
    state = TicTacToe.from_moves("a1 b1 b2 c1")  # X to move wins at c3 (8), the last move
    actions = state.legal_actions()
    assert actions[-1] == 8 and state.play(8).returns() == (1, -1)
    draw = random.Random(submission_seed + 1)
    for _ in range(3):
        # A generator under which the 39 playouts of the first move all win ties it with c3 at
        # mean 1, and the contract's tie rule then picks the first move: such draws cannot tell
        # "best mean" from "most played", so they are skipped (their chance is a few percent).
        seed = draw.randrange(2**31)
        while contract_move(state, 40, last_once_then_first, random.Random(seed))[0] != 8:
            seed = draw.randrange(2**31)
        # the policy is the grader's: it sees the rewards it is shown
        got = assert_played_out(student, state, 40, last_once_then_first, seed)
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
    timeout=15,
    hint="each policy's player against random play; return {policy name: score}",
)
def test_compare_policies(student, submission_seed):
    """compare_policies returns a score per policy, the contract's: UCB1 against random play"""
    draw = random.Random(submission_seed)
    scores = assert_contract_scores(student, ("ucb1", "uniform"), 100, 20, draw.randrange(2**31))
    assert all(0 <= v <= 1 for v in scores.values()), f"scores must lie in [0, 1]: {scores}"
    # Strong players score alike (0.9 is a likely score of both): weak ones, on drawn sizes,
    # show whether the games were played.
    playouts, games = draw.randint(3, 6), draw.randint(7, 11)
    assert_contract_scores(student, ("ucb1", "uniform"), playouts, games, draw.randrange(2**31))


@pytest.mark.points(
    1,
    exercise="bandits",
    timeout=8,
    hint="seed everything from `seed` (one random.Random(seed)); the player moves first in "
    "games 0, 2, 4, ... and second in games 1, 3, 5, ...",
)
def test_compare_policies_seeded_and_alternating(student, submission_seed):
    """compare_policies is reproducible for a seed and alternates who moves first"""
    draw = random.Random(submission_seed + 2)
    seed, playouts, games = draw.randrange(2**31), draw.randint(10, 20), draw.randint(4, 7)
    first = assert_contract_scores(student, ("ucb1", "uniform"), playouts, games, seed)
    again = student.compare_policies(
        ("ucb1", "uniform"), TicTacToe, playouts=playouts, games=games, seed=seed
    )
    assert first == again, f"two calls with seed={seed} gave {first} and then {again}"
    start = one_move_win()
    made = []

    def forced(*args, **kwargs):  # the game: whoever moves first wins at once
        made.append(1)
        return start

    for games in (draw.randint(2, 5) * 2, draw.randint(2, 5) * 2 + 1):
        made.clear()
        scores = student.compare_policies(
            ("uniform",), forced, playouts=draw.randint(2, 9), games=games, seed=draw.randrange(99)
        )
        assert len(made) == games, f"{games} games started {len(made)} games from game()"
        want = math.ceil(games / 2) / games
        assert math.isclose(scores.get("uniform", -1), want), (
            f"in a game won by whoever moves first, {games} games gave the player the score "
            f"{scores.get('uniform')}; moving first in games 0, 2, 4, ... it scores {want:g}"
        )


@pytest.mark.points(
    1,
    exercise="bandits",
    timeout=10,
    hint="one rng = random.Random(seed); each policy's player, in the order of `policies`, gets "
    "seed=rng.randrange(2**31); the random opponent plays rng.choice(state.legal_actions())",
)
def test_compare_policies_seeds_as_documented(student, submission_seed):
    """compare_policies seeds its players and the random opponent as its contract says"""
    # Two playouts a move: weak players, so that the scores depend on every random draw.  Uniform
    # and UCB1 draw nothing themselves: only the playouts and the random opponent do.
    draw = random.Random(submission_seed + 3)
    for _ in range(2):
        assert_contract_scores(student, ("uniform", "ucb1"), 2, 8, draw.randrange(2**31))


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
    timeout=8,
    hint="let `opponent` choose its moves with select_action(state)",
)
def test_compare_policies_uses_the_opponent(student, submission_seed):
    """compare_policies plays against the opponent it is given"""
    draw = random.Random(submission_seed + 4)
    playouts, games, seed = draw.randint(3, 12), draw.randint(3, 6), draw.randrange(2**31)
    opponent, same = Scripted(), Scripted()
    scores = student.compare_policies(
        ("ucb1", "uniform"), TicTacToe, playouts=playouts, games=games, seed=seed, opponent=opponent
    )
    want = contract_scores(("ucb1", "uniform"), playouts, games, seed, opponent=same)
    assert opponent.turns == same.turns, (
        f"the opponent was asked for {opponent.turns} moves; in the contract's {games} games of "
        f"each policy (playouts={playouts}, seed={seed}) it moves {same.turns} times"
    )
    assert isinstance(scores, dict) and set(scores) == set(want), scores
    assert all(math.isclose(scores[k], want[k]) for k in want), (
        f"against the first-legal-move opponent (playouts={playouts}, games={games}, "
        f"seed={seed}) the scores are {want}; you gave {scores}"
    )
