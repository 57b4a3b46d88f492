"""The explorer's recorder (mcts_course.explorer): its tree is MCTSAgent's tree, its phases are
what the agent did, and its JSON answers follow the page contract."""

from __future__ import annotations

import json
import math

import pytest
from helpers import run_without_numpy

from mcts_course.agents import MCTSAgent
from mcts_course.agents.bandits import SQRT2, ucb1
from mcts_course.explorer import Recorder, handle, key_of, replay_playout, ucb_parts
from mcts_course.games import ConnectFour, Othello, TicTacToe

POSITIONS = {
    "tictactoe": TicTacToe.from_moves("b2 a1 c3 a3"),
    "connect4": ConnectFour.from_moves("4 4 3"),
    "othello": Othello.from_moves("f5 d6 c3 d3 c4 f4 c5 b3 c2"),
}


def agent_tree(root) -> dict[str, tuple[int, float]]:
    """Visits and wins of every node of an agent's tree, by the explorer's dotted keys."""
    found, stack = {}, [((), root)]
    while stack:
        actions, node = stack.pop()
        found[key_of(actions)] = (node.visits, node.wins)
        stack += [((*actions, a), child) for a, child in node.children.items()]
    return found


@pytest.mark.parametrize("game", sorted(POSITIONS))
@pytest.mark.parametrize("threshold", [1, 10])
def test_the_recorded_tree_is_the_agents_tree_after_every_k(game, threshold):
    state = POSITIONS[game]
    iterations = {"tictactoe": 150, "connect4": 150, "othello": 60}[game]
    recorder = Recorder(state, expand_threshold=threshold, seed=3)
    recorder.run(iterations)
    for k in (1, 7, iterations // 2, iterations):
        agent = MCTSAgent(iterations=k, expand_threshold=threshold, seed=3)
        expected = agent_tree(agent.search(state))
        # stats(k) before the end is rebuilt from the recorded phases, at the end read live.
        assert recorder.stats(k) == expected, (game, threshold, k)
        nodes = recorder.tree(k)["nodes"]
        assert {n["node"]: (n["visits"], n["wins"]) for n in nodes} == expected


def test_a_different_seed_or_c_gives_a_different_tree():
    state = POSITIONS["tictactoe"]
    base = Recorder(state, seed=1)
    base.run(80)
    for other in (Recorder(state, seed=2), Recorder(state, seed=1, c=0.3)):
        other.run(80)
        assert other.stats(80) != base.stats(80)


@pytest.mark.parametrize("game", sorted(POSITIONS))
def test_next_child_is_where_the_next_iteration_goes(game):
    """Wherever a node on an iteration's path was fully expanded before it, the recorder's
    predicted next child (the UCB1 maximum at that moment) is the child the agent took."""
    recorder = Recorder(POSITIONS[game], expand_threshold=2, seed=5, c=0.8)
    recorder.run(120)
    checked = 0
    for before, it in enumerate(recorder.iterations):
        stats = recorder.stats(before)
        for parent, child in zip(it.path, it.path[1:], strict=False):
            if child == it.expanded:
                assert recorder.next_child(parent, stats) is None  # it had untried moves
            else:
                assert recorder.next_child(parent, stats) == child
                checked += 1
    assert checked > 100


def test_ucb_parts_split_the_agents_ucb1():
    for wins, visits, parent in [(3.0, 4, 10), (0.5, 1, 2), (7.5, 9, 50)]:
        mean, explore, total = ucb_parts((visits, wins), parent, 0.9)
        assert mean == wins / visits
        assert math.isclose(total, ucb1(wins, visits, parent, 0.9))
        assert math.isclose(mean + explore, total)
    assert ucb_parts((0, 0.0), 5, 1.4)[2] == math.inf


@pytest.mark.parametrize("game", sorted(POSITIONS))
@pytest.mark.parametrize("playout_depth", [None, 3])
def test_the_playouts_moves_replay_to_the_recorded_result(game, playout_depth):
    recorder = Recorder(POSITIONS[game], seed=9, playout_depth=playout_depth)
    recorder.run(40)  # a long run: the moves are found afterwards, by running again
    stepped = Recorder(POSITIONS[game], seed=9, playout_depth=playout_depth)
    for _ in range(40):
        stepped.run(1)  # one at a time: each playout's moves kept at once
    for it in recorder.iterations:
        assert it.moves is None
        moves = recorder.playout_moves(it.number)
        assert moves is not None and moves == stepped.iterations[it.number - 1].moves
    for it in recorder.iterations:
        state = recorder.nodes[it.path[-1]].state
        for action in it.moves:
            state = state.play(action)
        if playout_depth is None:
            assert state.is_terminal()
        else:
            assert len(it.moves) <= playout_depth
        assert tuple(state.cutoff_returns()) == it.returns
        # What backpropagation added: 1 / 0.5 / 0 for the player who moved into each node.
        players = [recorder.nodes[key].player for key in it.path]
        assert it.rewards == tuple((it.returns[p] + 1) / 2 for p in players)


def test_a_replay_that_draws_otherwise_is_not_taken_for_the_playout(monkeypatch):
    """The recorder keeps replayed moves only if the replay drew exactly the numbers the real
    playout drew: a replay drawing one number more is refused (moves unknown), and the tree
    stays the agent's."""
    import mcts_course.explorer as explorer

    def one_more_draw(state, rng, max_plies=None):
        moves, end = replay_playout(state, rng, max_plies)
        rng.random()
        return moves, end

    monkeypatch.setattr(explorer, "replay_playout", one_more_draw)
    recorder = Recorder(POSITIONS["connect4"], seed=2)
    recorder.run(5)
    recorder.run(15)
    assert all(recorder.playout_moves(it.number) is None for it in recorder.iterations)
    expected = agent_tree(MCTSAgent(iterations=20, seed=2).search(POSITIONS["connect4"]))
    assert recorder.stats(20) == expected


def test_handle_answers_the_page_contract():
    ask = lambda **args: json.loads(handle(json.dumps(args)))  # noqa: E731
    start = ask(cmd="new", id="t", game="tictactoe", moves=[4, 0, 8, 6], threshold=3, seed=6)
    assert start["ok"]
    view = start["view"]
    assert view["iteration"] == 0 and view["move_names"] == ["b2", "a1", "c3", "a3"]
    assert [n["node"] for n in view["nodes"]] == [""]  # no child before the first iteration
    view = ask(cmd="view", id="t", iteration=16, phase=4)["view"]
    root_children = [n for n in view["nodes"] if n["parent"] == ""]
    assert len(root_children) == 5 and all("." not in n["node"] for n in root_children)
    assert sum(n["visits"] for n in root_children) == 16 == view["nodes"][0]["visits"]
    assert [row["node"] for row in view["table"]] == [n["node"] for n in root_children]
    assert sum(row["selected_next"] for row in view["table"]) == 1
    # Phase by phase: the expanded node appears at expansion with no visit yet.
    mid = ask(cmd="view", id="t", iteration=16, phase=2, depth=3)["view"]
    expanded = mid["step"]["expanded"]
    if expanded is not None:
        drawn = {n["node"]: n for n in mid["nodes"]}
        assert drawn[expanded]["visits"] == 0
    tree = ask(cmd="tree", id="t", iteration=16)["view"]
    assert {n["node"]: n["visits"] for n in tree["nodes"]} == {
        key: visits
        for key, (visits, _) in agent_tree(
            MCTSAgent(iterations=16, expand_threshold=3, seed=6).search(POSITIONS["tictactoe"])
        ).items()
    }
    assert len(view["exact"]) == 5  # tic-tac-toe: the solver's value of every root move
    assert not ask(cmd="view", id="missing")["ok"]
    assert not ask(cmd="new", id="t2", game="tictactoe", moves=[0, 0])["ok"]


def test_the_explorer_runs_without_numpy():
    done = run_without_numpy(
        """
        import json
        from mcts_course.explorer import handle
        for game, moves in (("tictactoe", []), ("connect4", [3]), ("othello", [19])):
            answer = json.loads(handle(json.dumps({"cmd": "new", "game": game, "moves": moves})))
            assert answer["ok"], answer
            answer = json.loads(handle(json.dumps({"cmd": "view", "iteration": 20})))
            assert answer["ok"] and answer["view"]["nodes"][0]["visits"] == 20, answer
        print("ok")
        """
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.split()[-1] == "ok"


def test_every_preset_is_a_position_to_search_and_the_late_ones_are_solved():
    from mcts_course.explorer import PRESETS, Session

    for game, presets in PRESETS.items():
        for preset in presets:
            session = Session(game, preset["moves"], 1.4, preset.get("threshold", 1), 0, None)
            view = session.view(3, 4, [], 1, "")
            assert view["presets"] == presets and view["nodes"][0]["visits"] == 3
            late = "exact" in preset["name"]
            assert (view["exact"] is not None) == (late or game == "tictactoe"), preset["name"]
            if view["exact"]:
                values = [row["value"] for row in view["exact"]]
                assert set(values) <= {-1, 0, 1} and len(values) == len(view["position"]["legal"])


def test_a_phase_shows_the_tree_before_its_iteration_and_back_steps_rebuild_it():
    from mcts_course.explorer import Session

    session = Session("tictactoe", [4, 0, 8, 6], 1.4, 3, 6, None)
    done = {n["node"]: n["visits"] for n in session.view(30, 4, [], 9, "")["nodes"]}
    for phase in (1, 2, 3):
        view = session.view(30, phase, [], 9, "")  # iteration 30 under way: 29 counted
        assert view["nodes"][0]["visits"] == 29 and view["step"]["number"] == 30
        assert ("backup" in view["step"]) is False
    before = {n["node"]: n["visits"] for n in session.view(29, 4, [], 9, "")["nodes"]}
    path = session.recorder.iterations[29].path
    assert all(done[key] == before.get(key, 0) + 1 for key in path)
    assert all(done[key] == before[key] for key in before if key not in path)


def test_a_subclass_of_the_agent_is_recorded_as_it_searches():
    """agent_class: an MCTSAgent subclass with its own selection (here: the most visited child,
    no exploration) is recorded with its own tree, not UCT's."""

    class Greedy(MCTSAgent):
        def select_child(self, node):
            return max(node.children.values(), key=lambda ch: (ch.visits, -ch.action))

    state = POSITIONS["tictactoe"]
    recorder = Recorder(state, expand_threshold=2, seed=4, agent_class=Greedy)
    recorder.run(60)
    expected = agent_tree(Greedy(iterations=60, expand_threshold=2, seed=4).search(state))
    assert recorder.stats(60) == expected
    assert expected != agent_tree(
        MCTSAgent(iterations=60, expand_threshold=2, seed=4).search(state)
    )
    assert recorder.playout_moves(30) is not None


def test_the_widget_steps_runs_scrubs_and_shows_the_pages_numbers():
    pytest.importorskip("ipywidgets")
    from mcts_course.explorer import Session
    from mcts_course.explorer_widget import ExplorerWidget

    widget = ExplorerWidget("tictactoe", "b2 a1 c3 a3", threshold=3, seed=6)
    assert "iteration 0" in widget.status.value
    for _ in range(3):
        widget.step.click()
    assert "iteration 1</b> (phase 3 of 4: simulation)" in widget.status.value
    assert "Simulation" in widget.screen.value and "Backpropagation" not in widget.screen.value
    widget.count.value = 15
    widget.run.click()  # from iteration 0 done: 15 more
    assert widget.view["iteration"] == 15 and widget.slider.value == 15
    widget.slider.value = 9
    assert widget.view["iteration"] == 9 and widget.view["phase"] == 4
    page = Session("tictactoe", [4, 0, 8, 6], SQRT2, 3, 6, None).view(9, 4, [], 1, "")
    assert widget.view["table"] == page["table"] and widget.view["nodes"] == page["nodes"]
    widget.node.value = page["table"][0]["node"]
    assert widget.view["selected"] == page["table"][0]["node"]
    assert "<table" in widget.screen.value


def test_chapter_8s_explorer_link_opens_the_search_it_reads_off():
    """The link in the MCTS chapter opens the explorer on the chapter's position, seed and
    budget, so the page's root table after that many iterations is the chapter's table."""
    import re
    from pathlib import Path
    from urllib.parse import parse_qs

    text = (Path(__file__).resolve().parents[2] / "book" / "08_mcts.md").read_text()
    (hash_,) = re.findall(r'href="16b_explorer\.html#([^"]+)"', text)
    link = {k: v[0] for k, v in parse_qs(hash_, keep_blank_values=True).items()}
    moves, budget, seed = re.search(
        r'position = Othello\.from_moves\("([^"]+)"\)\n'
        r"readout = (?:\w+\.)?read_off\(position, (\d+), seed=(\d+)\)",
        text,
    ).groups()
    assert link["game"] == "othello" and link["t"] == "1" and link["playout"] == ""
    actions = [int(a) for a in link["moves"].split(".")]
    assert Othello.from_moves(actions) == Othello.from_moves(moves)
    assert (link["it"], link["seed"]) == (budget, seed)
    assert abs(float(link["c"]) - SQRT2) < 5e-5  # the page reads 1.4142 as sqrt(2) itself
