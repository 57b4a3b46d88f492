"""What the explorer draws, as HTML and SVG text: one renderer for the page, the widget and print.

The book's explorer page inserts these strings as they come from its Pyodide worker, the Jupyter
widget (:mod:`mcts_course.explorer_widget`) shows them in its HTML output, and the step-by-step
chapter prints the same tables: a table drawn in the chapter is the table the page shows for the
same run.  Every function reads one *view*, the dict :meth:`mcts_course.explorer.Session.view`
answers (its ``nodes``, ``table``, ``step`` ...), and returns text; none runs a search.

Styles are inline where they carry meaning (the shaded path, the marked next child), so that a
table keeps them in a notebook or a chapter without the page's stylesheet; the classes
(``mx-next``, ``mx-path``, ``mx-node`` ...) are for the page's CSS and its tests.
"""

from __future__ import annotations

import html
import math
from typing import Any

SVG_NS = "http://www.w3.org/2000/svg"
LABEL_LIMIT = 150  # above this many drawn nodes, the tree drops its text labels
EXACT = {1: "win", 0: "draw", -1: "loss"}
PATH_COLOUR, NEW_COLOUR = "#f57c00", "#2e7d32"
NEXT_STYLE = "font-weight:bold;background:rgba(245,124,0,0.2)"
PATH_STYLE = "background:rgba(245,124,0,0.09)"


def fmt(value: float | str, digits: int = 3) -> str:
    """A term of the UCB value: 3 decimals, or ∞ (JSON carries infinity as the text "inf")."""
    return "∞" if isinstance(value, str) or math.isinf(value) else f"{value:.{digits}f}"


def _abbr(short: str, title: str) -> str:
    """A short column head with its full meaning on hover (and for screen readers)."""
    return f'<abbr title="{_esc(title)}">{_esc(short)}</abbr>'


def _precision(
    view: dict[str, Any], node: dict[str, Any], by_key: dict[str, dict[str, Any]]
) -> tuple[int, str]:
    """The decimals that show a row's UCB sum apart from its parent's next child (3, or 6 when
    they round alike, so that the ◀ next mark is never contradicted by equal numbers), and, for
    the next child, the moves that tie with it exactly (selection takes the first in order)."""
    parent = by_key.get(node["parent"] or "")
    best = by_key.get(parent["next"]) if parent and parent["next"] else None
    if best is None or best["ucb"] == "inf" or node["ucb"] == "inf":
        return 3, ""
    siblings = [n for n in view["nodes"] if n["parent"] == node["parent"] and n["ucb"] != "inf"]
    close = [n for n in siblings if fmt(n["ucb"]) == fmt(best["ucb"])]
    digits = 6 if node in close and len(close) > 1 else 3
    tied = ""
    if node is best:
        tied = ", ".join(n["move"] for n in siblings if n is not best and n["ucb"] == best["ucb"])
    return digits, tied


def wins_text(value: float) -> str:
    return f"{value:g}"


def _esc(value: Any) -> str:
    return html.escape(str(value))


# -- the table of a node's children ---------------------------------------------------------------
def _on_path(view: dict[str, Any]) -> tuple[set[str], str | None]:
    """The keys lit as this iteration's path, and the node it added (from expansion on)."""
    step = view.get("step")
    if not step:
        return set(), None
    added = step.get("expanded") if view["phase"] >= 2 else None
    return set(step["path"]) | ({added} if added else set()), added


def _count(n: int, noun: str) -> str:
    """``n`` and the noun, singular for one ("1 visit", "2 visits")."""
    return f"{n} {noun}" if n == 1 else f"{n} {noun}s"


def _children_cell(node: dict[str, Any], threshold: int) -> str:
    """How far the node has grown: "k of m" moves with a child, a leaf waiting for its
    threshold's visits, or the end of the game."""
    if node["terminal"]:
        return "game over"
    if node["children"] == 0 and node["visits"] < threshold:
        return f"leaf ({node['visits']}/{threshold})"
    return f"{node['children']} of {node['legal']}"


def _subtree(view: dict[str, Any], key: str, nested: bool) -> list[tuple[dict[str, Any], int]]:
    """The drawn descendants of ``key`` in depth-first action order with their depth below it:
    its children only, or (``nested``) every drawn node under it."""
    kids: dict[str | None, list[dict[str, Any]]] = {}
    for node in view["nodes"]:
        kids.setdefault(node["parent"], []).append(node)
    rows: list[tuple[dict[str, Any], int]] = []

    def walk(parent: str, depth: int) -> None:
        for child in sorted(kids.get(parent, []), key=lambda n: int(n["node"].rsplit(".", 1)[-1])):
            rows.append((child, depth))
            if nested:
                walk(child["node"], depth + 1)

    walk(key, 0)
    return rows


def iteration_caption(view: dict[str, Any]) -> str:
    """What the iteration shown did, in one line (for a printed table)."""
    step = view.get("step")
    root_visits = view["nodes"][0]["visits"]
    if not step:
        return f"Before the first iteration (N = {root_visits})"
    path = " → ".join(["root", *step["path_names"]])
    if view["phase"] >= 2 and step.get("expanded_name"):
        path += f" → {step['expanded_name']} ✚"
    text = f"<b>Iteration {step['number']}</b>: {_esc(path)}"
    if view["phase"] >= 3:
        text += f"; playout: {_esc(step['result'])}"
    return f"{text}; N = {root_visits}"


def table_html(view: dict[str, Any], *, nested: bool = False, caption: str | None = None) -> str:
    """The children of the view's selected node as an HTML table (the page's
    ``table#explorer-table``): visits, wins, mean, the exploration term, the UCB value as mean +
    exploration, selection's next child, how far each child has grown and, at the root of a
    solved position, each move's exact value.  ``nested``: every drawn node below the selected
    one, indented under its parent (the printed chapter's whole-tree tables), each marked as
    its parent's next child or not; this iteration's path is shaded and the node it added
    marked ✚.  ``caption``: instead of the page's caption."""
    key = view["selected"]
    by_key = {n["node"]: n for n in view["nodes"]}
    parent = by_key.get(key, {"visits": 0})
    threshold = view["settings"]["threshold"]
    path, added = _on_path(view)
    exact = (
        {row["node"]: row["value"] for row in view["exact"]}
        if key == "" and view.get("exact")
        else None
    )
    head = [
        "move",
        "by",
        _abbr("n", "visits of this child"),
        _abbr("w", "wins of the player who made the move (a draw counts ½)"),
        _abbr("mean", "w / n, the mean reward"),
        _abbr(
            "UCB",
            "UCB value = mean + exploration term c·√(ln N / n), N the parent's visits; "
            "shown as mean + exploration, and below it their sum",
        ),
        _abbr("next", "the child selection takes next: the highest UCB, ties to the first"),
        _abbr(
            "kids",
            "children: k of m = moves tried of the legal moves; leaf (v/t) = v visits of the "
            "t the expansion threshold asks before it grows",
        ),
    ] + ([_abbr("exact", "exact minimax value of the move (perfect play)")] if exact else [])
    rows = []
    rows_of = _subtree(view, key, nested)
    for node, depth in rows_of:
        nk = node["node"]
        is_next = by_key[node["parent"]]["next"] == nk
        mark = " ✚" if nk == added else ""
        visited = node["visits"] > 0
        digits, tied = _precision(view, node, by_key)
        ucb = (
            "∞"
            if node["ucb"] == "inf"
            else f'<span class="mx-parts">{fmt(node["mean"])} + {fmt(node["explore"])}</span>'
            f'<br/><span class="mx-sum" title="{node["ucb"]!r}">= '
            f"{fmt(node['ucb'], digits)}</span>"
        )
        next_text = ""
        if is_next:
            next_text = "◀ next" + (f" (tie with {tied}: first in move order)" if tied else "")
        cells = [
            "\u00a0" * 3 * depth + _esc(node["move"]) + mark,
            _esc(node["by"]),
            str(node["visits"]),
            wins_text(node["wins"]),
            fmt(node["mean"]) if visited else "—",
            ucb,
            next_text,
            _children_cell(node, threshold),
        ]
        if exact is not None:
            cells.append(EXACT.get(exact.get(nk, 2), "") if depth == 0 else "")
        classes = " ".join(c for c, on in (("mx-next", is_next), ("mx-path", nk in path)) if on)
        style = NEXT_STYLE if is_next else PATH_STYLE if nk in path else ""
        attrs = f' data-node="{_esc(nk)}"' + (f' class="{classes}"' if classes else "")
        attrs += f' style="{style}"' if style else ""
        rows.append(
            f"<tr{attrs}>"
            + "".join(
                f'<td style="text-align:{"left" if i < 2 else "right"}">{cell}</td>'
                for i, cell in enumerate(cells)
            )
            + "</tr>"
        )
    if caption is None:
        who = " ".join(view["selected_line"]) or "the root"
        caption = (
            f"Children of {_esc(who)} (N = {_count(parent['visits'], 'visit')}, "
            f"c = {view['settings']['c']:.4g}). "
            + (
                "No child yet."
                if not rows
                else "Selection takes the marked child next."
                if any(r["selected_next"] for r in view["table"])
                else "Selection stops here next: moves are still untried (the next visit "
                "expands one), or it is a leaf."
            )
        )
    return (
        '<table class="mx-table"><caption style="caption-side:top;text-align:left">'
        + caption
        + "</caption><thead><tr>"
        + "".join(f'<th scope="col">{h}</th>' for h in head)
        + "</tr></thead><tbody>"
        + "".join(rows)
        + "</tbody></table>"
    )


# -- the tree as SVG ------------------------------------------------------------------------------
def colour(mean: float, visits: int) -> str:
    """The mean reward of the player who made the move: red (0) .. grey (0.5) .. blue (1)."""
    if not visits:
        return "#ffffff"
    t = max(0.0, min(1.0, mean))
    away = abs(t - 0.5)
    return f"hsl({0 if t < 0.5 else 215}, {round(away * 2 * 75)}%, {62 - round(away * 16)}%)"


def _layout(nodes: list[dict[str, Any]]) -> tuple[dict[str, tuple[float, int]], int, int]:
    """(x slot, depth) of every node: leaves take consecutive slots in depth-first action order,
    a parent sits over the middle of its children; and the slots and the depth used."""
    kids: dict[str, list[tuple[int, str]]] = {}
    for node in nodes:
        if node["parent"] is not None:  # (action, key): sorting by action sorts the children
            key = node["node"]
            kids.setdefault(node["parent"], []).append((int(key.rpartition(".")[2]), key))
    place: dict[str, tuple[float, int]] = {}
    slot, deepest = 0, 0
    stack: list[tuple[str, int, bool]] = [("", 0, False)]
    while stack:  # iterative: a deep Connect Four line would overflow Pyodide's recursion
        key, depth, done = stack.pop()
        children = [child for _, child in sorted(kids.get(key, ()))]
        deepest = max(deepest, depth)
        if not children:
            place[key], slot = (slot, depth), slot + 1
        elif done:
            place[key] = ((place[children[0]][0] + place[children[-1]][0]) / 2, depth)
        else:
            stack.append((key, depth, True))
            stack += [(child, depth + 1, False) for child in reversed(children)]
    return place, max(slot, 1), deepest


def tree_svg(view: dict[str, Any], open_keys: set[str] | frozenset[str], depth: int) -> str:
    """The drawn nodes as an SVG tree (the page's, the widget's and the exported picture): a
    circle per node, its area growing with the visits and its colour the mean; labels *move* and
    *wins/visits* (up to :data:`LABEL_LIMIT` nodes); this iteration's path in orange, the node it
    added ringed in green, a dashed edge to each node's next child; every node a ``g.mx-node``
    with ``data-node``, ``data-visits`` and ``data-wins``, focusable, with a spoken label."""
    nodes = view["nodes"]
    place, slots, deepest = _layout(nodes)
    labels = len(nodes) <= LABEL_LIMIT
    dx = 46.0 if labels else max(6.0, min(46.0, 1800 / slots))
    dy = 78 if labels else 60
    width = max(300.0, slots * dx + 40)
    height = (deepest + 1) * dy + 52  # room for the root's label above its largest circle
    offset = (width - (slots * dx + 40)) / 2  # a narrow tree is centred
    root_visits = max(1, nodes[0]["visits"])
    path, added = _on_path(view)
    by_key = {n["node"]: n for n in nodes}
    chosen = {n["next"] for n in nodes if n["next"] is not None}
    selected = view["selected"]

    def xy(key: str) -> tuple[float, float]:
        x, level = place[key]
        return offset + 20 + x * dx + dx / 2, 36 + level * dy

    def radius(node: dict[str, Any]) -> float:
        return 3 + (15 if labels else 8) * math.sqrt(node["visits"] / root_visits)

    edges, dots = [], []
    for node in nodes:
        key = node["node"]
        if node["parent"] is None:
            continue
        (x1, y1), (x2, y2) = xy(node["parent"]), xy(key)
        hot = key in path and node["parent"] in path
        nxt = key in chosen
        stroke = PATH_COLOUR if hot else "#555" if nxt else "#bbb"
        dash = ' stroke-dasharray="4 3"' if nxt and not hot else ""
        edges.append(
            f'<line x1="{x1:g}" y1="{y1:g}" x2="{x2:g}" y2="{y2:g}" stroke="{stroke}" '
            f'stroke-width="{4 if hot else 2 if nxt else 1}"{dash}/>'
        )
    for node in nodes:
        key, hot = node["node"], node["node"] in path
        x, y = xy(key)
        r = radius(node)
        name = "root" if key == "" else f"{node['move']} by {node['by']}"
        aria = f"{name}: {_count(node['visits'], 'visit')}, {wins_text(node['wins'])} "
        aria += "win" if node["wins"] == 1 else "wins"
        if key:
            aria += f", mean {fmt(node['mean'])}, UCB {fmt(node['ucb'])}"
        aria += (", selected" if key == selected else "") + (
            ", on this iteration's path" if hot else ""
        )
        stroke = (
            NEW_COLOUR
            if key == added
            else PATH_COLOUR
            if hot
            else "#111"
            if key == selected
            else "#666"
        )
        thick = 4 if key == added or hot else 3 if key == selected else 1
        fill = "#eeeeee" if key == "" else colour(node["mean"], node["visits"])
        aria = _esc(aria)  # once: a 2,000-node tree spends its time here, in the browser too
        parts = [
            f"<title>{aria}</title>",
            f'<circle r="{r:.1f}" fill="{fill}" stroke="{stroke}" stroke-width="{thick}"/>',
        ]
        if labels:
            text = 'text-anchor="middle" fill="currentColor"'
            parts.append(
                f'<text y="{-r - 4:.1f}" {text} font-size="12" font-weight="bold">'
                f"{_esc('root' if key == '' else node['move'])}</text>"
            )
            parts.append(
                f'<text y="{r + 13:.1f}" {text} font-size="11">'
                f"{wins_text(node['wins'])}/{node['visits']}</text>"
            )
            folded = key != "" and not (key in open_keys or key.count(".") + 1 < depth)
            if node["children"] and folded:
                parts.append(
                    f'<text y="{r + 26:.1f}" text-anchor="middle" font-size="11" fill="#888">'
                    f"+{node['children']}</text>"
                )
        cls = "mx-node" + (" mx-selected" if key == selected else "")
        dots.append(
            f'<g class="{cls}" data-node="{key}" data-visits="{node["visits"]}" '
            f'data-wins="{node["wins"]:.15g}" tabindex="0" role="button" '
            f'aria-label="{aria}" transform="translate({x:g}, {y:g})">' + "".join(parts) + "</g>"
        )
    step = view.get("step") or {}
    candidates = (added, (step.get("path") or [None])[-1], selected)
    focus = next((k for k in candidates if isinstance(k, str) and k in by_key), "")
    summary = (
        f"MCTS tree after iteration {view['iteration']}: {len(nodes)} nodes drawn. Size: visits; "
        "colour: mean reward (red low, blue high); orange: this iteration's path; dashed: the "
        "child selection takes next."
    )
    return (
        f'<svg xmlns="{SVG_NS}" class="mx-svg" role="group" '
        f'data-labels="{"true" if labels else "false"}" data-focus="{xy(focus)[0]:g}" '
        f'aria-label="{_esc(summary)}" viewBox="0 0 {width:g} {height:g}" '
        f'data-width="{width:g}" data-height="{height:g}" width="{width:g}" '
        f'font-family="sans-serif">'
        f'<g class="mx-edges">{"".join(edges)}</g><g class="mx-nodes">{"".join(dots)}</g></svg>'
    )


# -- the phases of the iteration shown ------------------------------------------------------------
def phases_html(view: dict[str, Any]) -> str:
    """What the shown iteration's phases did, as an HTML list (empty before the first)."""
    st = view["step"]
    if st is None:
        return ""
    items = ["<b>Selection</b>: " + _esc(" → ".join(["root", *st["path_names"]]))]
    if view["phase"] >= 2:
        added = st["expanded_name"]
        below = st["path_names"][-1] if st["path_names"] else "the root"
        items.append(
            "<b>Expansion</b>: "
            + (f"added {_esc(added)} below {_esc(below)}" if added else "no node added")
        )
    if view["phase"] >= 3:
        if st["playout"] is None:
            moves = "random playout (moves not available)"
        elif st["playout"]:
            by = st.get("playout_by") or [""] * len(st["playout"])
            moves = "random playout " + " ".join(
                f"{i}. {who} {move}".replace("  ", " ")
                for i, (who, move) in enumerate(zip(by, st["playout"], strict=True), 1)
            )
        else:
            moves = "no playout: the game is already over at this node, so it is scored as it is"
        items.append(f"<b>Simulation</b>: {_esc(moves)}; {st['result']}")
    if view["phase"] >= 4:
        added = ", ".join(f"{b['move']} +{b['reward']:g}" for b in st["backup"])
        items.append(f"<b>Backpropagation</b>: {_esc(added)}")
    return (
        f"<p>Iteration {st['number']}</p><ol>" + "".join(f"<li>{i}</li>" for i in items) + "</ol>"
    )
