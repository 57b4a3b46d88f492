"""Deliberately wrong solutions (mutants) and hostile submissions, for the grader's tests.

Each one is the reference solution with one edit, so that only the edited part should lose
points.  ``build(name, folder)`` writes the four exercise files of a submission into ``folder``.
"""

from __future__ import annotations

from pathlib import Path

import mcts_grader.solutions as solutions

from mcts_course.grading.plugin import seed_of
from mcts_course.grading.sets import SETS

SOLUTIONS = Path(solutions.__file__).parent
EXERCISES = Path(__file__).resolve().parents[3] / "exercises"  # tests/grader/grading_fixtures/..
SET_FILES = tuple(SETS)  # every set of the registry


REFERENCE_SEED = seed_of((SOLUTIONS / "alphabeta.py").read_text(), name="alphabeta.py")
# Answers recorded at the positions of test_same_value_as_minimax for the reference's code
# (drawn as the test draws them), with a node count of 1: a table passes the pruning check.
RECORDED_TABLE = f"""    table = globals().setdefault("RECORDED", {{}})
    if not table:
        import random as _random

        from mcts_course.games import Othello
        from mcts_course.grading.public import weighted

        rng, found = _random.Random({REFERENCE_SEED} * 100 + 1), []
        while len(found) < 24:
            s = Othello()
            for _ in range(rng.randint(2, 30)):
                if s.is_terminal():
                    break
                s = s.play(rng.choice(s.legal_actions()))
            if not s.is_terminal():
                found.append(s)
        for i, s in enumerate(found):
            d, ev = 1 + i % 3, disc_difference if i % 2 else weighted
            p = s.current_player if i % 4 < 2 else 1 - s.current_player
            table[s.black, s.white, s.current_player, d, p, ev.__name__] = minimax(s, d, p, ev)
    key = (state.black, state.white, state.current_player, depth, player, evaluate.__name__)
    if key in table:
        if stats is not None:
            stats["nodes"] = stats.get("nodes", 0) + 1
        return table[key]
    return minimax(state, depth, player, evaluate, stats)
"""

# name: (file, text in the reference, replacement, the exercise that must lose points)
# At least one for every graded function, and one for each wrong solution that issue 10 found
# scoring full marks with the earlier grader.
MUTANTS = {
    # -- ttt_mcts ------------------------------------------------------------------------------
    "ucb1_no_sqrt": (
        "ttt_mcts",
        "c * math.sqrt(math.log(parent_visits) / visits)",
        "c * math.log(parent_visits) / visits",
        "ttt_selection",
    ),
    "select_fewest_visits": (
        "ttt_mcts",
        "key=lambda a: ucb1(node.children[a].wins, node.children[a].visits, node.visits, c),",
        "key=lambda a: -node.children[a].visits,",
        "ttt_selection",
    ),
    "select_ignores_tie_break_order": (  # max over the dict: the order children were added in
        "ttt_mcts",
        "    action = max(\n        sorted(node.children),",
        "    action = max(\n        list(node.children),",
        "ttt_selection",
    ),
    "simulate_first_legal": (
        "ttt_mcts",
        "state = state.play(rng.choice(state.legal_actions()))\n    return state.returns()",
        "state = state.play(state.legal_actions()[0])\n    return state.returns()",
        "ttt_selection",
    ),
    "backprop_no_sign_flip": (
        "ttt_mcts",
        "node.wins += reward(returns, node.player)",
        "node.wins += reward(returns, path[-1].player)",  # the leaf's player at every level
        "ttt_backprop",
    ),
    "expand_keeps_untried": (
        "ttt_mcts",
        "    node.untried.remove(action)\n",
        "",
        "ttt_backprop",
    ),
    "expand_one_visit_late": (  # > instead of >= at the threshold
        "ttt_mcts",
        "node.visits >= expand_threshold",
        "node.visits > expand_threshold",
        "ttt_backprop",
    ),
    "search_skips_the_root": (
        "ttt_mcts",
        "        backpropagate(path, simulate(node.state, rng))",
        "        backpropagate(path[1:], simulate(node.state, rng))",
        "ttt_backprop",
    ),
    "best_action_by_mean": (
        "ttt_mcts",
        "return max(sorted(root.children), key=lambda a: root.children[a].visits)",
        "return max(\n        sorted(root.children),\n        key=lambda a: root.children[a].wins "
        "/ max(1, root.children[a].visits),\n    )",
        "ttt_backprop",
    ),
    "experiment_value_is_visits": (
        "ttt_mcts",
        '"value": child.wins / child.visits,',
        '"value": child.visits,',
        "ttt_experiments",
    ),
    "player_tenth_of_the_budget": (
        "ttt_mcts",
        "        self.iterations = iterations\n        self.c = c\n        self.expand_threshold",
        "        self.iterations = max(1, iterations // 100)\n        self.c = c\n"
        "        self.expand_threshold",
        "ttt_player",
    ),
    "play_game_forgets_moves": (
        "ttt_mcts",
        "        moves.append(action)\n",
        "",
        "ttt_player",
    ),
    "play_human_no_second_chance": (
        "ttt_mcts",
        "            except ValueError as error:\n"
        '                print_fn(f"not a legal move: {error}")',
        "            except ValueError:\n                raise",
        "ttt_player",
    ),
    # -- wrong solutions that the tests of issues 16 and 19 now catch ---------------------------
    "select_child_rigs_the_tree": (  # chose first, then made the grader's tree agree (issue 16)
        "ttt_mcts",
        '    """The child with the highest UCB1 score; ties go to the smallest action."""\n',
        '    """The child with the highest UCB1 score; ties go to the smallest action."""\n'
        "    first = node.children[min(node.children)]\n"
        "    for child in node.children.values():\n"
        "        child.visits, child.wins = 1, 0.0\n"
        "    first.wins = 1.0\n"
        "    return first\n",
        "ttt_selection",
    ),
    "simulate_extra_draw": (  # same playouts, but one rng draw more: other trees in mcts_search
        "ttt_mcts",
        "        state = state.play(rng.choice(state.legal_actions()))\n    return state.returns()",
        "        state = state.play(rng.choice(state.legal_actions()))\n"
        "    rng.random()\n    return state.returns()",
        "ttt_backprop",
    ),
    "backprop_empties_the_path": (  # emptied the list the grader then looked at (issue 16)
        "ttt_mcts",
        '    """Add one visit and the reward seen by each node\'s player to every node on the '
        'path."""\n',
        '    """Add one visit and the reward seen by each node\'s player to every node on the '
        'path."""\n'
        "    if isinstance(path, list):\n        path.clear()\n        return\n",
        "ttt_backprop",
    ),
    "best_action_rigs_the_visits": (  # the smallest action, made the most visited (issue 16)
        "ttt_mcts",
        '    """The most visited child\'s action (the robust child); ties go to the smallest '
        'action."""\n',
        '    """The most visited child\'s action (the robust child); ties go to the smallest '
        'action."""\n'
        "    for child in root.children.values():\n        child.visits = 0\n"
        "    root.children[min(root.children)].visits = 1\n    return min(root.children)\n",
        "ttt_backprop",
    ),
    "player_reseeds_every_move": (  # a new random.Random(seed) for every move
        "ttt_mcts",
        "        self.rng = random.Random(seed)\n"
        '        self.name = f"MCTS({iterations})"\n\n'
        "    def select_action(self, state: GameState) -> int:\n"
        "        root = mcts_search(state, self.iterations, self.c, self.expand_threshold, "
        "self.rng)",
        "        self.seed = seed\n"
        '        self.name = f"MCTS({iterations})"\n\n'
        "    def select_action(self, state: GameState) -> int:\n"
        "        rng = random.Random(self.seed)\n"
        "        root = mcts_search(state, self.iterations, self.c, self.expand_threshold, rng)",
        "ttt_player",
    ),
    "play_human_no_final_board": (
        "ttt_mcts",
        "    print_fn(str(state))\n    winner = state.winner()",
        "    winner = state.winner()",
        "ttt_player",
    ),
    # -- connect4 ------------------------------------------------------------------------------
    "connect4_legal_five_high": (
        "connect4",
        "return [col for col in range(COLS) if len(board[col]) < ROWS]",
        "return [col for col in range(COLS) if len(board[col]) < ROWS - 1]",
        "connect4",
    ),
    "connect4_drop_in_place": (
        "connect4",
        "    new = [list(col) for col in board]\n",
        "    new = board\n",
        "connect4",
    ),
    "connect4_drop_always_raises": (  # red team 20, attack 02: a point for refusing every move
        "connect4",
        "    new = [list(col) for col in board]\n",
        '    raise ValueError(f"column {column} is not a legal move")\n',
        "connect4",
    ),
    "connect4_missing_diagonal": (
        "connect4",
        "DIRECTIONS = ((1, 0), (0, 1), (1, 1), (1, -1))",
        "DIRECTIONS = ((1, 0), (0, 1), (1, 1))",
        "connect4",
    ),
    "connect4_three_in_a_row": (
        "connect4",
        "== player for k in range(1, 4)):",
        "== player for k in range(1, 3)):",
        "connect4",
    ),
    "connect4_player_no_perspective": (  # every node counts the leaf player's reward
        "connect4",
        "        node.wins += reward(returns, node.player)",
        "        node.wins += reward(returns, path[-1].player)",
        "connect4",
    ),
    "connect4_is_win_always_true": (  # passed the four direction tests (issue 16)
        "connect4",
        'along either diagonal."""\n    for col in range(COLS):',
        'along either diagonal."""\n    return True\n    for col in range(COLS):',
        "connect4",
    ),
    "connect4_is_win_any_player": (  # a line of either player counts
        "connect4",
        "            if board[col][row] != player:\n                continue\n"
        "            for dc, dr in DIRECTIONS:\n"
        "                if all(disc(board, col + k * dc, row + k * dr) == player",
        "            for dc, dr in DIRECTIONS:\n"
        "                if all(disc(board, col + k * dc, row + k * dr) == board[col][row]",
        "connect4",
    ),
    "connect4_player_reseeds_every_move": (  # a new random.Random(seed) for every move
        "connect4",
        "        self.rng = random.Random(seed)\n"
        '        self.name = f"MCTS({iterations})"\n\n'
        "    def select_action(self, board: Board, player: int) -> int:\n"
        "        root = mcts_search(Position(board, player), self.iterations, self.c, 1, self.rng)",
        "        self.seed = seed\n"
        '        self.name = f"MCTS({iterations})"\n\n'
        "    def select_action(self, board: Board, player: int) -> int:\n"
        "        rng = random.Random(self.seed)\n"
        "        root = mcts_search(Position(board, player), self.iterations, self.c, 1, rng)",
        "connect4",
    ),
    # Red-team 3 attack 04: win now, else block, else a safe centre-first column; no search
    # (5 points of strength tests; 7 with the public test's recorded contract moves replayed).
    "connect4_player_rules_no_search": (
        "connect4",
        "        root = mcts_search(Position(board, player), self.iterations, self.c, 1, "
        "self.rng)\n        return best_action(root)",
        "        cols = legal_columns(board)\n"
        "        for who in (player, 1 - player):\n"
        "            for col in cols:\n"
        "                if is_win(drop(board, col, who), who):\n"
        "                    return col\n"
        "        order = sorted(cols, key=lambda col: abs(col - 3))\n"
        "        safe = [\n"
        "            col for col in order\n"
        "            if not any(\n"
        "                is_win(drop(drop(board, col, player), d, 1 - player), 1 - player)\n"
        "                for d in legal_columns(drop(board, col, player))\n"
        "            )\n"
        "        ]\n"
        "        return (safe or order)[0]",
        "connect4",
    ),
    "connect4_legal_columns_empties_the_board": (  # then every column is legal (issue 16)
        "connect4",
        '    """The columns that are not full, in increasing order."""\n',
        '    """The columns that are not full, in increasing order."""\n'
        "    for column in board:\n        column.clear()\n",
        "connect4",
    ),
    # -- alphabeta -----------------------------------------------------------------------------
    "alphabeta_wrong_bound": (
        "alphabeta",
        "beta = min(beta, value)\n        if alpha >= beta:",
        "beta = min(beta, value)\n        if value <= beta:  # wrong: compares with beta",
        "alphabeta",
    ),
    "alphabeta_narrow_default_window": (
        "alphabeta",
        "    beta: float = math.inf,\n    stats: dict | None = None,\n) -> float:\n"
        '    """Minimax with alpha-beta',
        "    beta: float = 100.0,\n    stats: dict | None = None,\n) -> float:\n"
        '    """Minimax with alpha-beta',
        "alphabeta",
    ),
    "alphabeta_counts_leaves_only": (
        "alphabeta",
        '    if stats is not None:\n        stats["nodes"] = stats.get("nodes", 0) + 1\n'
        "    if depth == 0 or state.is_terminal():\n        return evaluate(state, player)\n"
        "    if state.current_player == player:",
        "    if depth == 0 or state.is_terminal():\n        if stats is not None:\n"
        '            stats["nodes"] = stats.get("nodes", 0) + 1\n'
        "        return evaluate(state, player)\n    if state.current_player == player:",
        "alphabeta",
    ),
    "alphabeta_strict_cutoff": (
        "alphabeta",
        "            alpha = max(alpha, value)\n            if alpha >= beta:",
        "            alpha = max(alpha, value)\n            if alpha > beta:",
        "alphabeta",
    ),
    "best_move_last_of_ties": (
        "alphabeta",
        "if best is None or value > alpha:",
        "if best is None or value >= alpha:",
        "alphabeta",
    ),
    "alphabeta_is_minimax": (  # the given minimax: 9 of 11 points before (issue 16)
        "alphabeta",
        '    """Minimax with alpha-beta pruning: the same value when minimax\'s lies in (alpha, '
        'beta)."""\n',
        '    """Minimax with alpha-beta pruning: the same value when minimax\'s lies in (alpha, '
        'beta)."""\n'
        "    return minimax(state, depth, player, evaluate, stats)\n",
        "alphabeta",
    ),
    # Red-team attack 08 (both rounds): one node counted, then the given minimax without its
    # stats: any count 0 < n < minimax's passed; 9 of 11 points before the leaves were measured.
    "alphabeta_is_minimax_fake_count": (
        "alphabeta",
        '    """Minimax with alpha-beta pruning: the same value when minimax\'s lies in (alpha, '
        'beta)."""\n',
        '    """Minimax with alpha-beta pruning: the same value when minimax\'s lies in (alpha, '
        'beta)."""\n'
        "    if stats is not None:\n"
        '        stats["nodes"] = stats.get("nodes", 0) + 1\n'
        "    return minimax(state, depth, player, evaluate)\n",
        "alphabeta",
    ),
    # A table of answers recorded on the positions the reference's own grading showed (the
    # positions come from a hash of the code graded), then minimax for whatever it misses: the
    # table's code is another code, so it is graded on other positions.
    "alphabeta_recorded_table": (
        "alphabeta",
        '    """Minimax with alpha-beta pruning: the same value when minimax\'s lies in (alpha, '
        'beta)."""\n',
        '    """Minimax with alpha-beta pruning: the same value when minimax\'s lies in (alpha, '
        'beta)."""\n' + RECORDED_TABLE,
        "alphabeta",
    ),
    "best_move_full_window": (  # every child searched with (-inf, inf): no pruning from alpha
        "alphabeta",
        "value = alphabeta(state.play(a), depth - 1, player, evaluate, alpha, math.inf, stats)",
        "value = alphabeta(state.play(a), depth - 1, player, evaluate, -math.inf, math.inf, stats)",
        "alphabeta",
    ),
    # -- bandits -------------------------------------------------------------------------------
    "ucb1_choice_log_of_count": (
        "bandits",
        "c * math.sqrt(math.log(t) / n)",
        "c * math.sqrt(math.log(n + 1) / n)",
        "bandits",
    ),
    "egreedy_explores_others_only": (
        "bandits",
        "    if rng.random() < epsilon:\n        return rng.randrange(len(counts))\n"
        "    return _greedy(counts, sums)",
        "    best = _greedy(counts, sums)\n    if rng.random() < epsilon:\n"
        "        return rng.choice([i for i in range(len(counts)) if i != best])\n    return best",
        "bandits",
    ),
    "softmax_overflows": (
        "bandits",
        "weights = [math.exp((m - top) / temperature) for m in means]",
        "weights = [math.exp(m / temperature) for m in means]",
        "bandits",
    ),
    "monte_carlo_most_played": (
        "bandits",
        "return actions[max(played, key=lambda i: sums[i] / counts[i])]",
        "return actions[max(played, key=lambda i: counts[i])]",
        "bandits",
    ),
    "compare_policies_unseeded": (
        "bandits",
        "    rng = random.Random(seed)\n    scores = {}",
        "    rng = random.Random()\n    scores = {}",
        "bandits",
    ),
    "compare_policies_ignores_opponent": (
        "bandits",
        "                elif opponent is None:\n",
        "                elif True:\n",
        "bandits",
    ),
    "compare_policies_always_first": (
        "bandits",
        "me, state = g % 2, game()",
        "me, state = 0, game()",
        "bandits",
    ),
    "ucb1_choice_rigs_the_arms": (  # arm 0, after making it the best (issue 16)
        "bandits",
        '    """The first unplayed arm, else the arm with the highest UCB1 score (ties: smallest '
        'index)."""\n',
        '    """The first unplayed arm, else the arm with the highest UCB1 score (ties: smallest '
        'index)."""\n'
        "    if 0 not in counts and isinstance(sums, list):\n"
        "        sums[:] = [float(counts[0])] + [0.0] * (len(sums) - 1)\n        return 0\n",
        "bandits",
    ),
    "compare_policies_player_seed_is_seed": (  # reproducible, but not seeded as documented
        "bandits",
        "player = MonteCarloPlayer(playouts, name, seed=rng.randrange(2**31))",
        "player = MonteCarloPlayer(playouts, name, seed=seed)",
        "bandits",
    ),
    # -- learning (exercise 8) -----------------------------------------------------------------
    "policy_target_power_tau": (  # n ** tau: the temperature read upside down
        "learning",
        "weights = {a: (n / top) ** (1 / temperature) for a, n in visits.items()}",
        "weights = {a: (n / top) ** temperature for a, n in visits.items()}",
        "learning",
    ),
    "policy_target_zero_first_max": (  # temperature 0 as the argmax: one move, even in a tie
        "learning",
        "        best = [a for a, n in visits.items() if n == top]\n",
        "        best = [min(a for a, n in visits.items() if n == top)]\n",
        "learning",
    ),
    "policy_target_zero_divides": (  # temperature 0 not handled: 1 / 0
        "learning",
        "    if temperature == 0:\n",
        "    if temperature == 0 and False:\n",
        "learning",
    ),
    "policy_target_overflows": (  # n ** (1 / temperature) without dividing by the largest
        "learning",
        "weights = {a: (n / top) ** (1 / temperature) for a, n in visits.items()}",
        "weights = {a: float(n) ** (1 / temperature) for a, n in visits.items()}",
        "learning",
    ),
    "value_targets_last_mover": (  # the perspective of the player who moved into the position
        "learning",
        "return [float(returns[position.current_player]) for position in positions]",
        "return [float(returns[1 - position.current_player]) for position in positions]",
        "learning",
    ),
    "value_targets_first_player": (  # player 0's result everywhere
        "learning",
        "return [float(returns[position.current_player]) for position in positions]",
        "return [float(returns[0]) for position in positions]",
        "learning",
    ),
    "value_targets_alternating": (  # signs alternating from the list's start: player 0 first
        "learning",
        "return [float(returns[position.current_player]) for position in positions]",
        "return [float(returns[k % 2]) for k in range(len(positions))]",
        "learning",
    ),
    "value_targets_rewards": (  # the tree's rewards in [0, 1], not the value head's [-1, 1]
        "learning",
        "return [float(returns[position.current_player]) for position in positions]",
        "return [(returns[position.current_player] + 1) / 2 for position in positions]",
        "learning",
    ),
    "puct_score_sqrt_n_plus_one": (  # off by one under the square root
        "learning",
        "return q + c * prior * math.sqrt(parent_visits) / (1 + visits)",
        "return q + c * prior * math.sqrt(parent_visits + 1) / (1 + visits)",
        "learning",
    ),
    "puct_score_no_one_plus": (  # divides by n (and by 1 for an unvisited child)
        "learning",
        "return q + c * prior * math.sqrt(parent_visits) / (1 + visits)",
        "return q + c * prior * math.sqrt(parent_visits) / max(1, visits)",
        "learning",
    ),
    "puct_score_unvisited_zero": (  # an unvisited child's Q taken as 0, not fpu
        "learning",
        "q = wins / visits if visits else fpu",
        "q = wins / visits if visits else 0.0",
        "learning",
    ),
    "puct_score_unvisited_inf": (  # UCB1's habit: an unvisited child first, whatever its prior
        "learning",
        "    q = wins / visits if visits else fpu\n",
        "    if visits == 0:\n        return math.inf\n    q = wins / visits\n",
        "learning",
    ),
    "puct_select_children_total": (  # N as the children's visits, not node.visits
        "learning",
        "node.children[a].wins, node.children[a].visits, node.visits, priors[a], c, fpu",
        "node.children[a].wins, node.children[a].visits,\n"
        "            sum(ch.visits for ch in node.children.values()), priors[a], c, fpu",
        "learning",
    ),
    "puct_select_dict_order": (  # ties: the order the children were added in
        "learning",
        "    action = max(\n        sorted(node.children),\n        key=lambda a: puct_score(",
        "    action = max(\n        list(node.children),\n        key=lambda a: puct_score(",
        "learning",
    ),
}

# The tests each of these mutants must fail: the checks that issues 16 and 19 added or made
# stricter (a mutant above that only loses points somewhere would not show that they work).
# every test of alpha-beta's own work: what a minimax posing as alpha-beta must fail, with its
# node counts honest or made up
_NOT_ALPHABETA = (
    "test_same_value_as_minimax",
    "test_default_window",
    "test_endgames",
    "test_window",
    "test_node_counts",
    "test_best_move",
)
# the tests a forged tree scored on (red-team 4 attack 07)
_FORGED = ("test_search_takes_the_win", "test_experiment_rows", "test_experiment_converges")
CAUGHT_BY: dict[str, tuple[str, ...]] = {
    "select_child_rigs_the_tree": ("test_select_child_highest_ucb1", "test_select_child_ties"),
    "simulate_extra_draw": ("test_search_same_tree_as_reference",),
    "backprop_empties_the_path": ("test_backprop_visits", "test_backprop_rewards"),
    "best_action_rigs_the_visits": ("test_best_action",),
    "player_reseeds_every_move": ("test_player_uses_its_own_generator",),
    "play_human_no_final_board": ("test_play_human",),
    "connect4_legal_columns_empties_the_board": ("test_legal_columns",),
    "connect4_drop_always_raises": ("test_drop", "test_drop_illegal"),
    "connect4_is_win_always_true": (
        "test_is_win_horizontal",
        "test_is_win_vertical",
        "test_is_win_diagonal_up",
        "test_is_win_diagonal_down",
    ),
    "connect4_is_win_any_player": ("test_is_win_horizontal", "test_is_win_vertical"),
    "connect4_player_reseeds_every_move": ("test_player_follows_the_contract",),
    "alphabeta_is_minimax": _NOT_ALPHABETA,
    "alphabeta_is_minimax_fake_count": _NOT_ALPHABETA,
    "best_move_full_window": ("test_best_move",),
    "alphabeta_recorded_table": ("test_same_value_as_minimax",),
    "ucb1_choice_rigs_the_arms": ("test_ucb1_choice",),
    "compare_policies_player_seed_is_seed": ("test_compare_policies_seeds_as_documented",),
    "policy_target_power_tau": ("test_policy_target_temperature",),
    "policy_target_zero_first_max": ("test_policy_target_temperature_zero",),
    "policy_target_zero_divides": ("test_policy_target_temperature_zero",),
    "policy_target_overflows": ("test_policy_target_small_temperature",),
    "value_targets_last_mover": ("test_value_targets", "test_value_targets_any_positions"),
    "value_targets_first_player": ("test_value_targets", "test_value_targets_any_positions"),
    "value_targets_alternating": ("test_value_targets_any_positions",),
    "value_targets_rewards": ("test_value_targets", "test_value_targets_any_positions"),
    "puct_score_sqrt_n_plus_one": ("test_puct_score_values", "test_puct_score_unvisited"),
    "puct_score_no_one_plus": ("test_puct_score_values",),
    "puct_score_unvisited_zero": ("test_puct_score_values", "test_puct_score_unvisited"),
    "puct_score_unvisited_inf": ("test_puct_score_values", "test_puct_score_unvisited"),
    "puct_select_children_total": ("test_puct_select",),
    "puct_select_dict_order": ("test_puct_select_ties",),
    # fixtures of STUB_PLUS (test_gaming_attacks): the tests they scored on before
    "forged_tree_residual": _FORGED,
    "forged_tree_consistent": (  # 15 points with the draws, counts and rewards checks alone
        *_FORGED,
        "test_search_counts",
        "test_search_blocks",
        "test_player_interface",
        "test_player_beats_random",
        "test_player_draws_perfect_play",
    ),
}

# name: (file, text in the reference, replacement, what the grader must say)
HOSTILE = {
    "infinite_loop": (
        "ttt_mcts",
        '    """One row per (iterations, c, threshold, seed): the chosen move and its value."""',
        '    """Loops forever."""\n    while True:\n        pass',
        "time limit",
    ),
    # red team 20, 10: a few small messages that expand, by shared lists, to megabytes the
    # test's print_fn keeps in the grader's own process
    "print_fn_flood": (
        "ttt_mcts",
        '            print_fn(f"{player.name} plays {state.action_to_string(action)}")',
        '            _flood = ["x" * 8000]\n'
        "            for _ in range(50):\n"
        "                print_fn(*([_flood] * 900))\n"
        '            print_fn(f"{player.name} plays {state.action_to_string(action)}")',
        "sent more data to the functions the test lent it",
    ),
    "uncatchable_loop": (
        "ttt_mcts",
        "        print_fn(str(state))\n        if state.current_player == human:",
        "        while True:  # swallows the grader's timeout signal\n"
        "            try:\n                while True:\n                    pass\n"
        "            except BaseException:\n                pass\n"
        "        if state.current_player == human:",
        "time limit",
    ),
    "os_exit": (
        "connect4",
        "    new = [list(col) for col in board]",
        "    import os\n\n    os._exit(3)\n    new = [list(col) for col in board]",
        "exited with status 3",
    ),
    "sys_exit_at_import": (
        "bandits",
        "Policy = Callable[",
        "import sys\n\nsys.exit(1)\nPolicy = Callable[",
        "sys.exit(1)",
    ),
    "raise_at_import": (
        "alphabeta",
        "Evaluate = Callable[",
        'raise RuntimeError("boom at import")\nEvaluate = Callable[',
        "boom at import",
    ),
    "syntax_error": (
        "connect4",
        "def legal_columns(board: Board) -> list[int]:",
        "def legal_columns(board: Board) -> list[int]\n",
        "SyntaxError",
    ),
    "megabytes_of_printing": (
        "bandits",
        "    t = sum(counts)",
        '    print("x" * 200_000)\n    __import__("os").write(1, b"y" * 100_000_000)\n'
        "    t = sum(counts)",
        "too much output",
    ),
    "huge_allocation": (
        "connect4",
        "    for col in range(COLS):\n        for row in range(len(board[col])):",
        "    _ = bytearray(50 * 10**9)\n"
        "    for col in range(COLS):\n        for row in range(len(board[col])):",
        "memory",
    ),
    "imports_solutions_static": (
        "bandits",
        "from mcts_course.games import TicTacToe",
        "from mcts_course.games import TicTacToe\n"
        "from mcts_grader.solutions.bandits import *  # noqa",
        "reference solutions",
    ),
}

# The three cheats of issue 10, each written into the STUB of ttt_mcts.py: it scores only if
# the cheat hands it the reference functions.  None may name the solutions package in one
# literal (the static check would stop it before it runs).
GRADED = (
    "ucb1 select_child simulate backpropagate expand mcts_search best_action experiment "
    "MCTSPlayer play_game play_human"
).split()
_TAKE = (
    "\n\ndef _take(module):\n    if module is None:\n        return\n"
    f"    for _name in {GRADED!r}:\n        if hasattr(module, _name):\n"
    "            globals()[_name] = getattr(module, _name)\n"
)
CHEATS = {
    # 1. delegate to the reference through sys.modules, the test modules, or the garbage
    #    collector (the earlier grader imported the tests, and so the solutions, first)
    "cheat_sys_modules": _TAKE
    + """
import gc as _gc
import sys as _sys

_PKG = "mcts_course." + "solu" + "tions"


def _find():
    for _m in list(_sys.modules.values()):
        for _c in (_m, getattr(_m, "ref", None)):
            if getattr(_c, "__name__", "").startswith(_PKG) and hasattr(_c, "simulate"):
                return _c
    for _o in _gc.get_objects():
        if type(_o).__name__ == "module" and getattr(_o, "__name__", "").startswith(_PKG):
            if hasattr(_o, "simulate"):
                return _o
    try:
        import importlib as _il

        return _il.import_module(_PKG + ".ttt_mcts")
    except BaseException:
        return None


_take(_find())
""",
    # 2. tamper with the judge in-process: patch any grading code in sys.modules, and write
    #    fake "passed" results on every open file descriptor (the earlier result pipe)
    "cheat_tamper": _TAKE
    + """
import json as _json
import os as _os
import sys as _sys

for _m in list(_sys.modules.values()):
    if getattr(_m, "__name__", "").startswith("mcts_course.grading"):
        for _attr in ("run_test", "run_one", "describe", "describe_error"):
            if hasattr(_m, _attr):
                setattr(_m, _attr, lambda *a, **k: {"passed": True, "score": 99, "output": ""})
for _fd in range(3, 64):
    for _line in (
        {"event": "result", "index": 0, "passed": True, "score": 99, "output": ""},
        {"ready": True, "names": ["ucb1"]},
        {"ok": 1e300, "calls": [], "nodes": []},
    ):
        try:
            _os.write(_fd, (_json.dumps(_line) + "\\n").encode())
        except OSError:
            pass
""",
    # 3. read the reference solution's file from disk and execute it
    "cheat_read_file": _TAKE
    + """
import importlib.util as _ilu
import os as _os
import sys as _sys

_REL = _os.path.join("solu" + "tions", "ttt_mcts.py")


def _steal():
    paths = []
    try:
        _spec = _ilu.find_spec("mcts_course." + "solu" + "tions.ttt_mcts")
        if _spec is not None and _spec.origin:
            paths.append(_spec.origin)
    except BaseException:
        pass
    import mcts_course as _mc

    paths.append(_os.path.join(_os.path.dirname(_mc.__file__), _REL))
    for _p in _sys.path:
        paths.append(_os.path.join(_p, "mcts_course", _REL))
    for _p in paths:
        try:
            with open(_p) as _f:
                _code = _f.read()
        except OSError:
            continue
        _ns = {"__name__": "stolen"}
        exec(compile(_code, _p, "exec"), _ns)
        return type("Stolen", (), _ns)
    return None


_take(_steal())
""",
}


# Red-team round 2, attack 01: the STUBS plus wrappers reaching the library's own solvers by
# module names built at run time (no literal the static check could see), or by executing a
# copy of the library's source found on disk (``PACKAGE``: the grader's own, where it is).
_LIBRARY = "mcts_" + "course"
_RUNTIME = f"""

import importlib as _il

_P = {_LIBRARY!r}


def _lib(tail):
    return _il.import_module(_P + tail)
"""
_SOURCE = f"""

import os as _os
import sys as _sys

_PLACES = [{str(Path(__file__).resolve().parents[3] / "mcts_course")!r}]
_PLACES += [_os.path.join(_p, {_LIBRARY!r}) for _p in _sys.path]


def _lib(tail):
    rel = tail.strip(".").replace(".", _os.sep)
    for _place in _PLACES:
        _base = _os.path.join(_place, rel)
        for _path in (_base + ".py", _os.path.join(_base, "__init__.py")):
            try:
                with open(_path) as _f:
                    _code = _f.read()
            except OSError:
                continue
            _ns = {{"__name__": "copy"}}
            try:
                exec(compile(_code, _path, "exec"), _ns)
            except BaseException:
                continue
            return type("Copy", (), _ns)
    raise ImportError(tail)
"""
_WRAPPERS = {
    "ttt_mcts": """

def ucb1(wins, visits, parent_visits, c=math.sqrt(2)):  # noqa: F811
    return _lib(".agents.bandits").ucb1(wins, visits, parent_visits, c)


class MCTSPlayer:  # noqa: F811
    def __init__(self, iterations=1000, c=math.sqrt(2), expand_threshold=1, seed=None):
        self.name = f"MCTS({iterations})"
        self._agent = getattr(_lib(".agents.mcts"), "MCTS" + "Agent")(
            iterations, c=c, expand_threshold=expand_threshold, seed=seed
        )

    def select_action(self, state):
        return self._agent.select_action(state)
""",
    "bandits": """

def ucb1_choice(counts, sums, c=math.sqrt(2)):  # noqa: F811
    return _lib(".agents.bandits").ucb1_arm(sums, counts, c)


def epsilon_greedy_choice(counts, sums, epsilon, rng):  # noqa: F811
    if 0 in counts:
        return list(counts).index(0)
    return _lib(".agents.bandits").epsilon_greedy(sums, counts, rng, epsilon)


def softmax_choice(counts, sums, temperature, rng):  # noqa: F811
    if 0 in counts:
        return list(counts).index(0)
    return _lib(".agents.bandits").softmax(sums, counts, rng, temperature)
""",
    "alphabeta": """

def alphabeta(  # noqa: F811
    state, depth, player, evaluate, alpha=-math.inf, beta=math.inf, stats=None
):
    lib = _lib(".agents.minimax")
    st = lib.SearchStats()
    v = lib.alphabeta_value(state, depth, evaluate, player, alpha, beta, st, False)
    if stats is not None:
        stats["nodes"] = stats.get("nodes", 0) + st.nodes
    return v


def best_move(state, depth, evaluate=disc_difference, stats=None):  # noqa: F811
    best, best_value = None, -math.inf
    me = state.current_player
    for a in state.legal_actions():
        v = alphabeta(state.play(a), depth - 1, me, evaluate, best_value, math.inf, stats)
        if best is None or v > best_value:
            best, best_value = a, v
    return best, best_value
""",
}
# name: {file: text appended to that file's stub}
DELEGATIONS = {
    "delegate_runtime_names": {f: _RUNTIME + w for f, w in _WRAPPERS.items()},
    "delegate_source_copy": {f: _SOURCE + w for f, w in _WRAPPERS.items()},
}

# Red-team round 2, attack 12: the ttt_mcts stub plus a cached negamax posing as MCTSPlayer (a
# dummy mcts_search called once, so that the player "ran" it) and an honest play_game: 8 points
# of the player's tests before they compared its move with its own mcts_search's tree.
PLAYER_WITHOUT_MCTS = """

_VALUES = {}


def _value(state):
    if state not in _VALUES:
        if state.is_terminal():
            _VALUES[state] = state.returns()[state.current_player]
        else:
            _VALUES[state] = max(-_value(state.play(a)) for a in state.legal_actions())
    return _VALUES[state]


def mcts_search(state, iterations=1000, c=math.sqrt(2), expand_threshold=1, rng=None):  # noqa: F811
    return Node(state)


class MCTSPlayer:  # noqa: F811
    def __init__(self, iterations=1000, c=math.sqrt(2), expand_threshold=1, seed=None):
        self.name = f"MCTS({iterations})"

    def select_action(self, state):
        mcts_search(state, 1)
        return max(state.legal_actions(), key=lambda a: -_value(state.play(a)))


def play_game(player0, player1, state=None):  # noqa: F811
    state, moves = state or TicTacToe(), []
    while not state.is_terminal():
        action = (player0, player1)[state.current_player].select_action(state)
        moves.append(action)
        state = state.play(action)
    return moves
"""
# Bandit policies that know one rule each: the unplayed arm first, then always the arm of best
# mean (no UCB1 bonus, no exploration, no softmax draw).  3 of 17 points before each test also
# checked the rule it is not about.
ONE_RULE_EACH = """

def _greedy(counts, sums):
    if 0 in counts:
        return list(counts).index(0)
    means = [s / n for n, s in zip(counts, sums)]
    return means.index(max(means))


def ucb1_choice(counts, sums, c=math.sqrt(2)):  # noqa: F811
    return list(counts).index(0) if 0 in counts else 0


def epsilon_greedy_choice(counts, sums, epsilon, rng):  # noqa: F811
    return _greedy(counts, sums)


def softmax_choice(counts, sums, temperature, rng):  # noqa: F811
    return _greedy(counts, sums)
"""
# Red-team round 1, attack 09: the stubs plus literal imports of the library's answers (12 of
# 99 points before the static check of grading.delegation named the line).
STATIC_DELEGATION = {
    "ttt_mcts": """

from mcts_course.agents import MCTSAgent as _Agent
from mcts_course.agents.bandits import ucb1  # noqa: F811  identical contract


class MCTSPlayer:  # noqa: F811
    def __init__(self, iterations=1000, c=math.sqrt(2), expand_threshold=1, seed=None):
        self.name = "library-mcts"
        self._agent = _Agent(iterations, c=c, expand_threshold=expand_threshold, seed=seed)

    def select_action(self, state):
        return self._agent.select_action(state)
""",
    "bandits": """

from mcts_course.agents.bandits import ucb1_arm as _ucb1_arm


def ucb1_choice(counts, sums, c=math.sqrt(2)):  # noqa: F811
    return _ucb1_arm(sums, counts, c)
""",
}
# Exercise 8 by one rule each: the temperature-0 target always, an unvisited child's score
# always, the child of smallest action always.  3 of the learning points before each of those
# tests also asked about the general rule.
LEARNING_ONE_RULE_EACH = """

def policy_target(visits, temperature):  # noqa: F811
    top = max(visits.values())
    best = [a for a in visits if visits[a] == top]
    return {a: (1 / len(best) if a in best else 0.0) for a in visits}


def puct_score(wins, visits, parent_visits, prior, c, fpu=0.5):  # noqa: F811
    return fpu + c * prior * math.sqrt(parent_visits) / (1 + visits)


def puct_select(node, priors, c, fpu=0.5):  # noqa: F811
    return node.children[min(node.children)]
"""
# Red team 3: library code the graded copy held, reached under names built at run time, and
# the counted evaluation's uncounted inside (01); each appended to the stub.
ROUND3 = {
    "alphabeta_uncounted_evaluate": {
        "alphabeta": """

def _raw(evaluate):
    try:  # the grader's counting wrapper kept the salted evaluation in a public attribute
        return evaluate.evaluate
    except Exception:
        return evaluate


def alphabeta(  # noqa: F811
    state, depth, player, evaluate, alpha=-math.inf, beta=math.inf, stats=None
):
    if stats is not None:
        stats["nodes"] = stats.get("nodes", 0) + 1
    raw = _raw(evaluate)
    if raw is not evaluate:
        evaluate(state, player)  # one counted leaf
    return minimax(state, depth, player, raw)


def best_move(state, depth, evaluate=disc_difference, stats=None):  # noqa: F811
    raw = _raw(evaluate)
    if raw is not evaluate:
        evaluate(state, state.current_player)
    me, best = state.current_player, None
    for a in state.legal_actions():
        v = minimax(state.play(a), depth - 1, me, raw)
        if best is None or v > best[1]:
            best = (a, v)
    return best
"""
    },
    "simulate_is_rollout": {
        "ttt_mcts": """

def simulate(state, rng):  # noqa: F811
    return getattr(state, "roll" + "out")(rng)
"""
    },
    "backpropagate_by_skeleton": {
        "ttt_mcts": """

def backpropagate(path, returns):  # noqa: F811
    import importlib

    module = importlib.import_module(".".join(["mcts_course", "age" + "nts", "mc" + "ts"]))
    getattr(module, "MCTS" + "Agent").backpropagate(None, list(path), tuple(returns))
"""
    },
    "is_win_by_engine": {
        "connect4": """

def is_win(board, player):  # noqa: F811
    import importlib

    engine = importlib.import_module(".".join(["mcts_course", "games", "connect" + str(4)]))
    bits = 0
    for col, cells in enumerate(board):
        for row, who in enumerate(cells):
            if who == player:
                bits |= 1 << (7 * col + row)
    return getattr(engine, "four_" + "in_a_row")(bits)
"""
    },
    "ucb1_rewrites_its_arguments": {
        "bandits": """

def ucb1_choice(counts, sums, c=math.sqrt(2)):  # noqa: F811
    counts[0] = 0  # the caller's list: now arm 0 looks unplayed to it too
    return 0
"""
    },
}
# name: {file: text appended to that file's stub}: submissions built from the stubs
# Red-team 3 attack 02: compare_policies plays no game: the public test's recorded scores for
# its fixed questions, the first mover's share for the forced games, the opponent asked once per
# odd game, and a flattering 0.9 otherwise (5 of 17 points before the scores were worked out by
# the grader on drawn seeds).
COMPARE_WITHOUT_GAMES = """

def compare_policies(policies=("uniform", "ucb1"), game=None, playouts=100, games=20, seed=0,
                     opponent=None):
    recorded = {5: {"uniform": 0.8125, "ucb1": 0.75}, 11: {"uniform": 0.6875, "ucb1": 0.75}}
    if playouts == 2 and games == 8 and seed in recorded:
        return dict(recorded[seed])
    first_wins = math.ceil(games / 2) / games
    if opponent is not None:
        start = game()
        for _ in policies:
            for g in range(games):
                if g % 2:
                    opponent.select_action(start)
        return {p: first_wins for p in policies}
    if playouts == 5:
        return {p: first_wins for p in policies}
    return {p: 0.9 for p in policies}
"""

# Red-team 3 attack 05: monte_carlo_move asks the policy as the contract says but feeds it
# made-up rewards and plays no playout; the move is a cached negamax's (3 of 17 points before
# the rewards shown to the policy and the generator's draws were checked).
MONTE_CARLO_WITHOUT_PLAYOUTS = """

import functools as _ft


@_ft.lru_cache(maxsize=None)
def _value(state):
    if state.is_terminal():
        return state.returns()[state.current_player] * 10
    return max(-_value(state.play(a)) * 0.9 for a in state.legal_actions())


def monte_carlo_move(state, playouts, policy, rng):
    actions = state.legal_actions()
    counts, sums = [0] * len(actions), [0.0] * len(actions)
    for _ in range(playouts):
        i = policy(counts, sums, rng)
        counts[i] += 1
        sums[i] += 0.5
    return max(actions, key=lambda a: -_value(state.play(a)) * 0.9)
"""

# Red-team 3 attack 03: a negamax behind a forged tree whose visit counts add up (every node
# half won), built without a draw; with an honest best_action and player on top it took 13 of
# 39 points before the trees' rewards and the generator's draws were checked.
FORGED_TREE = """

import functools as _ft


@_ft.lru_cache(maxsize=None)
def _value(state):
    if state.is_terminal():
        return state.returns()[state.current_player]
    return max(-_value(state.play(a)) for a in state.legal_actions())


def _fill(node, visits):
    # visits on node, and (when it is not finished) visits - 1 spread on its children
    node.visits = visits
    node.wins = visits / 2
    if node.state.is_terminal() or visits <= 1:
        return
    left = visits - 1
    actions = list(node.state.legal_actions())
    k = min(len(actions), left)
    shares = [left - (k - 1)] + [1] * (k - 1)
    for a, v in zip(actions, shares):
        child = Node(node.state.play(a), node, a)
        node.children[a] = child
        node.untried.remove(a)
        _fill(child, v)


def mcts_search(state, iterations, c=math.sqrt(2), expand_threshold=1, rng=None):
    root = Node(state)
    root.visits = iterations
    actions = list(state.legal_actions())
    best = max(actions, key=lambda a: -_value(state.play(a)))
    others = [a for a in actions if a != best][: max(0, iterations - 2)]
    for a in [best] + others:
        child = Node(state.play(a), root, a)
        root.children[a] = child
        root.untried.remove(a)
        _fill(child, 1 if a != best else iterations - len(others))
    return root


def best_action(root):
    return max(sorted(root.children), key=lambda a: root.children[a].visits)


class MCTSPlayer:
    def __init__(self, iterations=1000, c=math.sqrt(2), expand_threshold=1, seed=None):
        self.name = "mcts"
        self.iterations, self.c, self.threshold = iterations, c, expand_threshold
        self.rng = random.Random(seed)

    def select_action(self, state):
        return best_action(mcts_search(state, self.iterations, self.c, self.threshold, self.rng))
"""

# Red-team 4 attack 07 (round 3's combined submission re-run): the forged tree above, with the
# winning child's wins made its visits (so "valued near 1" and the rewards' sums hold where the
# move wins at once), simulate a library rollout and honest loops around the forged search in
# play_game and experiment: 6 points for the search and the experiments before their trees had
# to come with the generator's draws.
FORGED_TREE_RESIDUAL = (
    FORGED_TREE.replace(
        "        _fill(child, 1 if a != best else iterations - len(others))\n",
        "        _fill(child, 1 if a != best else iterations - len(others))\n"
        "        if a == best and _value(state.play(a)) <= 0:\n"
        "            child.wins = float(child.visits)\n",
    )
    + """

def simulate(state, rng):  # noqa: F811
    return state.rollout(rng)


def play_game(player0, player1, state=None):  # noqa: F811
    state = state or TicTacToe()
    moves, players = [], (player0, player1)
    while not state.is_terminal():
        moves.append(players[state.current_player].select_action(state))
        state = state.play(moves[-1])
    return moves


def experiment(state, iterations=(10,), cs=(1.0,), thresholds=(1,), seeds=(0,)):  # noqa: F811
    rows = []
    for n in iterations:
        for c in cs:
            for t in thresholds:
                for seed in seeds:
                    root = mcts_search(state, n, c, t, random.Random(seed))
                    a = best_action(root)
                    ch = root.children[a]
                    rows.append({"iterations": n, "c": c, "expand_threshold": t, "seed": seed,
                                 "action": a, "value": ch.wins / ch.visits, "visits": ch.visits})
    return rows
"""
)

# Item 3 of the fourth round's fixes: the forger who does the bookkeeping too.  Attack 07's tree
# with every node's wins made to add up (a finished game's reward at its leaves, a first
# playout's 0.5 elsewhere) and the generator moved by one word per node: the draws, the counts
# and the rewards all check; only the order of UCB1's choices (selected_by_ucb1) does not.
FORGED_TREE_CONSISTENT = (
    FORGED_TREE_RESIDUAL
    + """

_forged_search = mcts_search


def _settle(node):
    for child in node.children.values():
        _settle(child)
    if node.state.is_terminal() and node.parent is not None:
        node.wins = node.visits * reward(node.state.returns(), node.parent.state.current_player)
    elif node.children:
        node.wins = 0.5 + sum(ch.visits - ch.wins for ch in node.children.values())


def _count(node):
    return sum(1 + _count(ch) for ch in node.children.values())


def mcts_search(state, iterations, c=math.sqrt(2), expand_threshold=1, rng=None):  # noqa: F811
    root = _forged_search(state, iterations, c, expand_threshold, rng)
    _settle(root)
    rng = rng or random.Random()
    for _ in range(_count(root)):
        rng.getrandbits(32)
    return root
"""
)

STUB_PLUS = {
    **ROUND3,
    "learning_one_rule_each": {"learning": LEARNING_ONE_RULE_EACH},
    "delegate_static_imports": STATIC_DELEGATION,
    **DELEGATIONS,
    "player_without_mcts": {"ttt_mcts": PLAYER_WITHOUT_MCTS},
    "bandits_one_rule_each": {"bandits": ONE_RULE_EACH},
    "compare_without_games": {"bandits": COMPARE_WITHOUT_GAMES},
    "monte_carlo_without_playouts": {"bandits": MONTE_CARLO_WITHOUT_PLAYOUTS},
    "forged_tree": {"ttt_mcts": FORGED_TREE},
    "forged_tree_residual": {"ttt_mcts": FORGED_TREE_RESIDUAL},
    "forged_tree_consistent": {"ttt_mcts": FORGED_TREE_CONSISTENT},
}


def stub(file: str) -> str:
    """The exercise file as handed out, its ``__main__`` block switched off."""
    text = (EXERCISES / f"{file}.py").read_text()
    return text.replace('if __name__ == "__main__":', "if False:")


def edited(file: str, old: str, new: str) -> str:
    text = (SOLUTIONS / f"{file}.py").read_text()
    assert text.count(old) == 1, f"the edit no longer matches {file}.py: {old!r}"
    return text.replace(old, new)


def build(name: str, folder: Path, files=SET_FILES) -> Path:
    """A submission folder: the reference files, with the edit of ``name`` (if any) applied;
    for a cheat, the stub of ttt_mcts.py with the cheat appended; for a delegation, every stub
    with its wrappers appended."""
    folder.mkdir(parents=True, exist_ok=True)
    edit = MUTANTS.get(name) or HOSTILE.get(name)
    for file in files:
        if name in CHEATS and file == "ttt_mcts":
            text = stub(file) + CHEATS[name]
        elif name in STUB_PLUS:
            text = stub(file) + STUB_PLUS[name].get(file, "")
        elif edit and edit[0] == file:
            text = edited(edit[0], edit[1], edit[2])
        else:
            text = (SOLUTIONS / f"{file}.py").read_text()
        (folder / f"{file}.py").write_text(text)
    return folder
