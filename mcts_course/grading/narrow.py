"""What one exercise set's graded process keeps of the package copy (red team 3: 08, 12, 15).

The copy (:mod:`mcts_course.grading.studentview`) keeps the games and the MCTS skeleton that
some sets' given code needs.  Reached by a name built at run time, they would answer other sets'
exercises: ``simulate`` as ``state.rollout(rng)``, Connect Four's ``is_win`` by the engine's
``four_in_a_row``, ``backpropagate`` as ``MCTSAgent.backpropagate``.  What a set may not use is
listed once, here (:func:`cuts`), and taken away twice:

* from the text of the set's own copy (:func:`narrow_source`, when the grader writes it): the
  files a graded run can read hold what the set may use and nothing more, so a submission that
  finds a stripped class and reads its file (``inspect.getsourcefile``, then ``exec``) gets the
  stripped text back (red team 10's attack 03);
* from the live modules, by the student's process once confined and before the student's code
  runs (:func:`narrow`): a second line, should a copy ever hold more than its set may use.

The functions are deleted, not wrapped: nothing is left to reach them by.  A module cut whole
loses its private data too (the rules' tables), all but what the definitions it keeps read.
"""

from __future__ import annotations

import ast
import importlib
import types
from typing import Any, NamedTuple

# The one set whose given code plays the library's playouts (MCTSAgent with RandomRollout).
PLAYOUT_SETS = frozenset({"bandits"})
# The sets whose graded functions receive Connect Four boards, never ConnectFour states.
NO_CONNECT_FOUR = frozenset({"connect4"})
PLAYOUTS = ("rollout", "_cut_rollout", "_playout", "rollouts")
GAMES = tuple(f"mcts_course.games.{name}" for name in ("base", "tictactoe", "connect4", "othello"))
SKELETON = "mcts_course.agents.mcts"  # exercise 7's MCTSAgent: its search steps are answers
CONNECT_FOUR = "mcts_course.games.connect4"
EVERY_CLASS = "*"


class Cut(NamedTuple):
    """What goes from ``module``: in ``owner`` (a class's name, :data:`EVERY_CLASS` for every
    class the module defines, None for the module itself) the attributes ``names`` (None: every
    function, static and class method)."""

    module: str
    owner: str | None
    names: tuple[str, ...] | None


# A module's cut with names None also takes its private data (``_LANES``, ``_LEGAL``: the
# rules' tables, which answer is_win and legal_columns for any board, red team 52's 06), all
# but what the definitions it keeps read as they run (``_HEIGHT`` in ``ROWS = _HEIGHT``).


def cuts(set_name: str | None) -> list[Cut]:
    """What the set ``set_name`` may not use (nothing for None or "")."""
    if not set_name:
        return []
    found: list[Cut] = []
    if set_name not in PLAYOUT_SETS:
        found += [Cut(module, EVERY_CLASS, PLAYOUTS) for module in GAMES]
        # the skeleton's methods, and its module's functions: argmax and most_visited_child
        # answer select_child and best_action (red team 52's 07)
        found += [Cut(SKELETON, "MCTSAgent", None), Cut(SKELETON, None, None)]
    if set_name in NO_CONNECT_FOUR:
        found += [Cut(CONNECT_FOUR, EVERY_CLASS, None), Cut(CONNECT_FOUR, None, None)]
    return found


# -- in the student's process: the live modules ------------------------------------------------
def _strip(owner: Any, names: tuple[str, ...] | None) -> None:
    """Delete ``names`` (None: every function, static and class method; of a module, every
    function it defines, not those it imports) from ``owner``'s own namespace."""
    for name, value in list(vars(owner).items()):
        if names is None:
            if isinstance(value, staticmethod | classmethod) or (
                isinstance(value, types.FunctionType)
                and (isinstance(owner, type) or value.__module__ == owner.__name__)
            ):
                delattr(owner, name)
        elif name in names:
            delattr(owner, name)


def _classes(module: Any) -> list[type]:
    return [
        v for v in vars(module).values() if isinstance(v, type) and v.__module__ == module.__name__
    ]


def _strip_data(module: Any, set_name: str) -> None:
    """Delete the private names of ``module`` that the text of its file, cut for ``set_name``
    (:func:`narrow_source`), no longer binds: the one rule lives there, the live module agrees."""
    with open(module.__file__, encoding="utf-8") as file:
        text = narrow_source(module.__name__, file.read(), set_name)
    kept = _bound(ast.parse(text).body)
    for name in list(vars(module)):
        if _private(name) and name not in kept:
            delattr(module, name)


def narrow(set_name: str | None) -> None:
    """Remove from this process what the set ``set_name`` may not use (nothing if None)."""
    for cut in cuts(set_name):
        module = importlib.import_module(cut.module)
        if cut.owner is None:
            owners: list[Any] = [module]
            if cut.names is None:
                _strip_data(module, set_name or "")
        elif cut.owner == EVERY_CLASS:
            owners = _classes(module)
        else:
            owners = [getattr(module, cut.owner)]
        for owner in owners:
            _strip(owner, cut.names)


# -- in the grader: the text of a set's copy -----------------------------------------------------
def _defines(node: ast.stmt) -> set[str]:
    """The names a statement of a class or module body binds."""
    if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
        return {node.name}
    targets: list[ast.expr] = []
    if isinstance(node, ast.Assign):
        targets = node.targets
    elif isinstance(node, ast.AnnAssign | ast.AugAssign):
        targets = [node.target]
    return {n.id for t in targets for n in ast.walk(t) if isinstance(n, ast.Name)}


def _private(name: str) -> bool:
    return name.startswith("_") and not name.startswith("__")


def _bound(body: list[ast.stmt]) -> set[str]:
    """The names the statements of a module's ``body`` bind (imports included)."""
    found: set[str] = set()
    for node in body:
        if isinstance(node, ast.Import | ast.ImportFrom):
            found |= {(a.asname or a.name).split(".")[0] for a in node.names}
        else:
            found |= _defines(node)
    return found


def _read_as_defined(node: ast.stmt) -> set[str]:
    """The names ``node`` reads as it runs: not inside the bodies of the functions it defines
    (which run later, if ever)."""
    found: set[str] = set()
    todo: list[ast.AST] = [node]
    while todo:
        item = todo.pop()
        if isinstance(item, ast.Name) and isinstance(item.ctx, ast.Load):
            found.add(item.id)
        if isinstance(item, ast.FunctionDef | ast.AsyncFunctionDef):
            todo += [*item.decorator_list, item.args]
        elif isinstance(item, ast.Lambda):
            todo.append(item.args)
        else:
            todo += ast.iter_child_nodes(item)
    return found


def _without_private_data(body: list[ast.stmt]) -> list[ast.stmt]:
    """``body`` without the assignments that bind only private names (and the private names
    of its imports), all but those the statements it keeps read as they run."""

    def data(node: ast.stmt) -> bool:
        names = _defines(node)
        return (
            isinstance(node, ast.Assign | ast.AnnAssign | ast.AugAssign)
            and bool(names)
            and all(map(_private, names))
        )

    kept = [node for node in body if not data(node)]
    while True:  # what the kept statements read, and what that reads, stays
        needed = set().union(*map(_read_as_defined, kept))
        more = [n for n in body if data(n) and n not in kept and _defines(n) & needed]
        if not more:
            break
        kept += more
    out: list[ast.stmt] = []
    for node in body:
        if node not in kept:
            continue
        if isinstance(node, ast.ImportFrom):
            names = [
                a
                for a in node.names
                if not _private(a.asname or a.name) or (a.asname or a.name) in needed
            ]
            if not names:
                continue
            node.names = names
        out.append(node)
    return out


def _is_function(node: ast.stmt) -> bool:
    """A ``def`` that binds a function, a static or a class method (not a property: the live
    :func:`narrow` keeps those too, as descriptors that are no functions)."""
    if not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
        return False
    for decorator in node.decorator_list:
        text = ast.unparse(decorator)
        if text in ("property", "functools.cached_property", "cached_property") or (
            text.endswith((".setter", ".getter", ".deleter"))
        ):
            return False
    return True


def _cut_body(body: list[ast.stmt], names: tuple[str, ...] | None) -> list[ast.stmt]:
    kept = [
        node
        for node in body
        if not (_is_function(node) if names is None else _defines(node) & set(names))
    ]
    return kept or [ast.Pass()]


def narrow_source(module: str, source: str, set_name: str | None) -> str:
    """The text of ``module`` (a dotted name) as the set ``set_name`` may read it: ``source``
    without what :func:`cuts` takes away (unchanged when nothing is cut).  Comments go with the
    rewrite; docstrings stay, as in the live module."""
    mine = [cut for cut in cuts(set_name) if cut.module == module]
    if not mine:
        return source
    tree = ast.parse(source)
    for cut in mine:
        if cut.owner is None:
            tree.body = _cut_body(tree.body, cut.names)
            if cut.names is None:
                tree.body = _without_private_data(tree.body) or [ast.Pass()]
            continue
        for node in tree.body:
            if isinstance(node, ast.ClassDef) and cut.owner in (EVERY_CLASS, node.name):
                node.body = _cut_body(node.body, cut.names)
    return ast.unparse(ast.fix_missing_locations(tree)) + "\n"
