"""The explorer's one renderer (mcts_course.explorer_draw): the SVG tree and the tables that the
page inserts, the widget shows and the step-by-step chapter prints, read back as XML."""

from __future__ import annotations

import math
import re
import xml.etree.ElementTree as ET

import pytest

from mcts_course.explorer import Session
from mcts_course.explorer_draw import LABEL_LIMIT, iteration_caption, table_html

SVG = "{http://www.w3.org/2000/svg}"


def drawn_nodes(svg_text: str) -> dict[str, ET.Element]:
    tree = ET.fromstring(svg_text)
    return {
        g.get("data-node"): g
        for g in tree.iter(f"{SVG}g")
        if "mx-node" in g.get("class", "").split()
    }


def position(g: ET.Element) -> tuple[float, float]:
    x, y = re.fullmatch(r"translate\(([-\d.e]+), ([-\d.e]+)\)", g.get("transform")).groups()
    return float(x), float(y)


@pytest.fixture(scope="module")
def session():
    return Session("tictactoe", [4, 0, 8, 6], math.sqrt(2), 3, 6, None)


def test_the_svg_draws_every_node_with_its_statistics(session):
    view = session.view(40, 4, [], 99, "")
    nodes = drawn_nodes(view["tree_svg"])
    assert set(nodes) == {n["node"] for n in view["nodes"]}
    for n in view["nodes"]:
        g = nodes[n["node"]]
        assert int(g.get("data-visits")) == n["visits"] and float(g.get("data-wins")) == n["wins"]
        visits = f"{n['visits']} visit{'' if n['visits'] == 1 else 's'},"
        assert g.get("tabindex") == "0" and visits in g.get("aria-label")
    # Depth gives y; a parent sits over the middle of its first and last child.
    for n in view["nodes"]:
        kids = sorted((m for m in view["nodes"] if m["parent"] == n["node"]),
                      key=lambda m: position(nodes[m["node"]])[0])  # fmt: skip
        x, y = position(nodes[n["node"]])
        if kids:
            first, last = position(nodes[kids[0]["node"]]), position(nodes[kids[-1]["node"]])
            assert x == pytest.approx((first[0] + last[0]) / 2) and first[1] > y
    radius = {k: float(g.find(f"{SVG}circle").get("r")) for k, g in nodes.items()}
    most = max(view["nodes"][1:], key=lambda n: n["visits"])
    least = min(view["nodes"][1:], key=lambda n: n["visits"])
    assert radius[most["node"]] > radius[least["node"]]


def test_the_iterations_path_and_the_next_child_are_marked(session):
    view = session.view(41, 2, [], 99, "")  # iteration 41 at expansion: path and new node lit
    step = view["step"]
    nodes = drawn_nodes(view["tree_svg"])
    lit = {k for k, g in nodes.items() if g.find(f"{SVG}circle").get("stroke-width") == "4"}
    assert lit == set(step["path"]) | {step["expanded"]}
    assert nodes[step["expanded"]].find(f"{SVG}circle").get("stroke") == "#2e7d32"
    dashed = ET.fromstring(view["tree_svg"]).findall(f".//{SVG}line[@stroke-dasharray]")
    nexts = {n["next"] for n in view["nodes"]} - {None}
    on_path = {k for k in nexts if k in lit and k.rpartition(".")[0] in lit}
    assert len(dashed) == len(nexts - on_path) > 0


def test_a_big_tree_drops_its_labels(session):
    small = ET.fromstring(session.view(20, 4, [], 99, "")["tree_svg"])
    big_view = Session("tictactoe", [], 1.0, 1, 0, None).view(300, 4, [], 99, "")
    assert len(big_view["nodes"]) > LABEL_LIMIT
    big = ET.fromstring(big_view["tree_svg"])
    assert small.findall(f".//{SVG}text") and not big.findall(f".//{SVG}text")
    assert big.get("data-labels") == "false" and len(drawn_nodes(big_view["tree_svg"])) == len(
        big_view["nodes"]
    )


def test_the_table_splits_ucb_and_nests_for_print(session):
    view = session.view(16, 4, [], 99, "")
    page = ET.fromstring(view["table_html"])
    rows = page.findall("./tbody/tr")
    assert [r.get("data-node") for r in rows] == [r["node"] for r in view["table"]]
    for tr, data in zip(rows, view["table"], strict=True):
        cells = ["".join(td.itertext()) for td in tr.findall("td")]
        assert int(cells[2]) == data["visits"]
        if data["ucb"] != "inf":
            mean, explore, total = (float(x) for x in re.findall(r"[\d.]+", cells[5]))
            assert mean + explore == pytest.approx(total, abs=2e-3)
            assert total == pytest.approx(data["ucb"], abs=1e-3)
        assert ("mx-next" in (tr.get("class") or "")) == data["selected_next"]
    assert len(rows[0].findall("td")) == 9  # tic-tac-toe: the exact value of every root move
    # Short heads, each with its meaning spelt out on hover.
    heads = page.findall("./thead/tr/th")
    assert len(heads) == 9 and all(len("".join(th.itertext())) <= 5 for th in heads)
    assert all(th.find("abbr").get("title") for th in heads[2:])
    printed = ET.fromstring(table_html(view, nested=True, caption=iteration_caption(view)))
    keys = [r.get("data-node") for r in printed.findall("./tbody/tr")]
    assert sorted(keys) == sorted(n["node"] for n in view["nodes"][1:])  # every node once
    assert "Iteration 16" in ET.tostring(printed.find("caption"), encoding="unicode")
    exact = {r["node"]: r["value"] for r in view["exact"]}
    for tr in printed.findall("./tbody/tr"):  # the exact value: a root move's, never a reply's
        last = tr.findall("td")[-1].text or ""
        key = tr.get("data-node")
        assert last == ("" if "." in key else {1: "win", 0: "draw", -1: "loss"}[exact[key]])
    shaded = {
        r.get("data-node")
        for r in printed.findall("./tbody/tr")
        if "mx-path" in (r.get("class") or "")
    }
    assert shaded == set(view["step"]["path"][1:]) | {view["step"]["expanded"]} - {None}


def test_the_widget_shows_the_pages_svg_and_table():
    pytest.importorskip("ipywidgets")
    from mcts_course.explorer_widget import ExplorerWidget

    widget = ExplorerWidget("connect4", "4 4 3", threshold=2, seed=1, depth=2)
    widget.run_iterations(30)
    page = Session("connect4", [3, 3, 2], math.sqrt(2), 2, 1, None).view(30, 4, [""], 2, "")
    assert widget.view["tree_svg"] == page["tree_svg"]
    assert page["tree_svg"] in widget.screen.value and page["table_html"] in widget.screen.value


def test_the_iterations_path_is_drawn_whatever_the_depth():
    """With only the root's children asked for, an iteration that adds a node deeper down still
    draws its path to that node (ringed green), so the reader sees what expansion added."""
    session = Session("tictactoe", [], math.sqrt(2), 1, 3, None)
    deep = 0
    for k in range(12, 60):
        view = session.view(k, 2, [], 1, "")
        added = view["step"]["expanded"]
        if added is None:
            continue
        nodes = drawn_nodes(view["tree_svg"])
        assert added in nodes and set(view["step"]["path"]) <= set(nodes)
        assert nodes[added].find(f"{SVG}circle").get("stroke") == "#2e7d32"
        deep += added.count(".") >= 1
    assert deep > 10  # most iterations here add a node below the root's children
    after = session.view(59, 4, [], 1, "")  # iteration done: the depth asked again
    assert all(n["node"].count(".") == 0 for n in after["nodes"])


def test_ties_on_ucb_say_which_child_is_taken():
    """When children tie on UCB, the next mark says so (the first in move order is taken), and
    sums that round alike are shown with more decimals, so the mark never contradicts them."""
    session = Session("tictactoe", [], math.sqrt(2), 1, 0, None)
    seen_tie = seen_close = False
    for k in range(10, 80):
        view = session.view(k, 4, [], 1, "")
        rows = ET.fromstring(view["table_html"]).findall("./tbody/tr")
        sums = {
            r.get("data-node"): r.find(".//span[@class='mx-sum']").text
            for r in rows
            if r.find(".//span[@class='mx-sum']") is not None
        }
        table = {r["node"]: r for r in view["table"]}
        nxt = next((r for r in view["table"] if r["selected_next"]), None)
        if nxt is None:
            continue
        ties = [r for r in view["table"] if r is not nxt and r["ucb"] == nxt["ucb"]]
        mark = "".join(rows[list(table).index(nxt["node"])].findall("td")[6].itertext())
        assert ("tie" in mark) == bool(ties)
        seen_tie |= bool(ties)
        assert all(int(r["node"]) > int(nxt["node"]) for r in ties)  # the first is taken
        for key, text in sums.items():  # never a larger number shown than the next child's
            if key != nxt["node"]:
                assert float(text.strip("= ")) <= float(sums[nxt["node"]].strip("= "))
                seen_close |= len(text.split(".")[1]) == 6
    assert seen_tie and seen_close


def test_the_share_chart_keeps_every_root_move_in_move_order():
    """Every root move tried is charted (nine at tic-tac-toe's start), always in move order, so a
    move keeps its place and colour from one iteration to the next."""
    session = Session("tictactoe", [], math.sqrt(2), 1, 2, None)
    for k in (5, 9, 30, 200):
        shares = session.view(k, 4, [], 1, "")["shares"]
        actions = [m["action"] for m in shares["moves"]]
        assert actions == sorted(actions) == [int(m["node"]) for m in shares["moves"]]
        assert len(actions) == min(k, 9)
        assert sum(shares["points"][-1]["shares"]) == pytest.approx(1)


def test_the_playouts_moves_say_whose_they_are():
    session = Session("tictactoe", [4], math.sqrt(2), 1, 5, None)
    step = session.view(3, 3, [], 1, "")["step"]
    assert step["playout_by"] and len(step["playout_by"]) == len(step["playout"])
    depth = step["leaf"].count(".") + 1 if step["leaf"] else 0
    first = "O" if depth % 2 == 0 else "X"  # after X's centre, O moves at the root
    assert step["playout_by"][::2] == [first] * len(step["playout_by"][::2])
    assert set(step["playout_by"][1::2]) <= {"X", "O"} - {first}
