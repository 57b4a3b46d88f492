"""Trivial and gaming submissions (issue 24, part E): each must score 0 on every test.

* trivial: every function of the stubs returns one constant (None, 0, 1, [], {}, math.inf) or
  its first argument;
* gaming: functions that return the literal values the visible tests expect, a root with one
  leaf child, or answers read off the tests' inputs (a one-move lookahead in place of a search,
  a depth-0 "alpha-beta"), without implementing the exercise.

``build_trivial(variant, folder)`` and ``build_gaming(folder)`` write every exercise file.
"""

from __future__ import annotations

import re
from pathlib import Path

from grading_fixtures.mutants import EXERCISES

TRIVIAL = {
    "none": "None",
    "zero": "0",
    "one": "1",
    "empty_list": "[]",
    "empty_dict": "{}",
    "infinity": "__import__('math').inf",
    "first_argument": "FIRST",
}


def _first_argument(lines: list[str], i: int) -> str:
    """The first parameter (after self) of the function whose body holds line ``i``."""
    j = i
    while not re.match(r"\s*def ", lines[j]):
        j -= 1
    head = " ".join(lines[j : j + 6])
    found = re.findall(r"def \w+\(\s*(?:self\s*,\s*)?(\w+)", head)
    return found[0] if found and found[0] != "self" else "None"


def build_trivial(variant: str, folder: Path) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    for stub in sorted(EXERCISES.glob("*.py")):
        lines = stub.read_text().splitlines()
        out = []
        for i, line in enumerate(lines):
            match = re.match(r"(\s*)raise NotImplementedError\s*$", line)
            if match:
                value = TRIVIAL[variant].replace("FIRST", _first_argument(lines, i))
                line = f"{match.group(1)}return {value}"
            out.append(line)
        (folder / stub.name).write_text("\n".join(out) + "\n")
    return folder


# Appended to each stub: later definitions replace the stub's.
GAMING = {
    "ttt_mcts": '''

def ucb1(wins, visits, parent_visits, c=math.sqrt(2)):
    return math.inf if visits == 0 else 0.5  # the literal of the unvisited test


def select_child(node, c=math.sqrt(2)):
    return next(iter(node.children.values()))


def simulate(state, rng):
    return state.returns() if state.is_terminal() else (1, -1)  # X wins most playouts


def expand(node, rng):
    action = node.untried.pop()
    child = Node(node.state.play(action), parent=node, action=action)
    node.children[action] = child
    return child


def _winning_move(state):
    """The tests' inputs read: a move that wins at once, else the first legal one."""
    for action in state.legal_actions():
        if state.play(action).returns()[state.current_player] == 1:
            return action
    return state.legal_actions()[0]


def mcts_search(state, iterations, c=math.sqrt(2), expand_threshold=1, rng=None):
    root = Node(state)  # a root with one leaf child holding every visit
    action = _winning_move(state)
    root.untried.remove(action)
    child = Node(state.play(action), parent=root, action=action)
    root.children[action] = child
    root.visits = child.visits = iterations
    child.wins = float(iterations)
    return root


def best_action(root):
    return 4 if 4 in root.children else next(iter(root.children))


def experiment(state, iterations=(10,), cs=(1.4,), thresholds=(1,), seeds=(0,)):
    action = _winning_move(state)
    return [
        {"iterations": n, "c": c, "expand_threshold": t, "seed": s, "action": action,
         "value": 1.0, "visits": n}
        for n in iterations for c in cs for t in thresholds for s in seeds
    ]


class MCTSPlayer:
    def __init__(self, iterations=1000, c=math.sqrt(2), expand_threshold=1, seed=None):
        self.name = f"MCTS({iterations})"
        self.rng = random.Random(seed)

    def select_action(self, state):
        return _winning_move(state)


def play_game(player0, player1, state=None):
    return []


def play_human(state, human, ask=input, print_fn=print):
    return None
''',
    "connect4": """

def legal_columns(board):
    return [0, 1, 2, 3, 4, 5, 6]  # the literal of an empty board


def drop(board, column, player):
    return [list(col) for col in board]


def is_win(board, player):
    return False


class MCTSPlayer:
    def __init__(self, iterations=1000, c=math.sqrt(2), seed=None):
        self.name = f"MCTS({iterations})"

    def select_action(self, board, player):
        return 3  # the centre column
""",
    "alphabeta": """

def alphabeta(state, depth, player, evaluate=disc_difference, alpha=-math.inf,
              beta=math.inf, stats=None):
    if stats is not None:
        stats["nodes"] = stats.get("nodes", 0) + 1  # "pruned": one node
    return evaluate(state, player)  # depth 0 whatever the depth asked


def best_move(state, depth, evaluate=disc_difference, stats=None):
    action = state.legal_actions()[0]
    return action, evaluate(state.play(action), state.current_player)
""",
    "bandits": """

def ucb1_choice(counts, sums, c=math.sqrt(2)):
    return 0


def epsilon_greedy_choice(counts, sums, epsilon, rng):
    return rng.randrange(len(counts))


def softmax_choice(counts, sums, temperature, rng):
    return 1  # the best arm of the visible test


def monte_carlo_move(state, playouts, policy, rng):
    for action in state.legal_actions():  # the tests' inputs read: a move that wins at once
        if state.play(action).returns()[state.current_player] == 1:
            return action
    return state.legal_actions()[0]


def compare_policies(*args, **kwargs):
    return {}
""",
}


def build_gaming(folder: Path, sets: tuple[str, ...] = tuple(GAMING)) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    for name in sets:
        stub = (
            (EXERCISES / f"{name}.py")
            .read_text()
            .replace('if __name__ == "__main__":', "if False:")
        )
        (folder / f"{name}.py").write_text(stub + GAMING[name])
    return folder
