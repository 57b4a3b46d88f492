"""Plain data on the wire between the grader and the student's process.

The grader asks questions ("call ``select_child`` on this tree"), the student's process answers;
both sides turn their Python values into JSON and back with this module.  Only data crosses:

* ``None``, booleans, numbers, strings, lists; tuples ``{"$t": [...]}``; dicts ``{"$d": [[k,
  v], ...]}``;
* game states ``{"$s": "tictactoe", "v": [...]}`` (the values of the class's slots);
* random generators ``{"$r": [version, [ints], gauss]}`` (their state, synced back after a call);
* search-tree nodes ``{"$n": i}``, an index into the message's node table (every node reachable
  from one in the message, by children and parent links, is in the table once);
* the public helper functions of :mod:`mcts_course.grading.public` ``{"$f": name}``;
* handles to an object that stays on its side: ``{"$o": id}`` for the student's objects (a
  player), ``{"$c": id}`` for the grader's (a scripted opponent, a fake ``input``).

A value the student's process sends is never trusted: the grader decodes it with the checks
below and never evaluates anything from it.  Nothing here imports the reference solutions or
the grading tests: the student's process imports this module.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable
from typing import Any

MAX_NODES = 300_000  # nodes in one message (a 2000-iteration tree has about 2000)
MAX_DEPTH = 200  # nesting of plain containers
# Size of one decoded message, in units of about 8 characters of its printed form: a value is
# one unit, a long string or number one more per 8 characters or 64 bits, and a shared list
# counts again at each reference.  A message of a few kilobytes could otherwise describe 2**200
# elements by sharing ({"$same": k}), or a thousand references to a megabyte string, and the
# grader would grow by gigabytes printing it in a failure (issue 24).  The largest honest
# message (a search tree compared with the reference's) has about 6 * 10**4 units.
MAX_VALUES = 1_000_000
NODE_FIELDS = ("state", "action", "player", "visits", "wins", "untried", "children", "parent")


class ProtocolError(ValueError):
    """A message that does not follow the protocol (from a confused or hostile process)."""


def _is_int(x: Any) -> bool:
    return isinstance(x, int) and not isinstance(x, bool)


class Encoder:
    """Turns one side's values into JSON data; collects the nodes it meets into a table."""

    def __init__(
        self,
        is_node: Callable[[Any], bool],
        lend: Callable[[Any], dict[Any, Any]],
        public: dict[int, str] | None = None,
    ):
        self.is_node, self.lend = is_node, lend
        self.public = public or {}  # id(function) -> name, for mcts_course.grading.public
        self.nodes: list[Any] = []
        self.index: dict[int, int] = {}
        self.rngs: dict[int, int] = {}  # id(generator) -> key: each is sent once per message
        # A list or dict met again is sent as {"$same": k} (k counts the containers in the order
        # they are first met, which the decoder follows): the same object on the other side,
        # and a batch of 20000 calls with the same arguments stays small.
        self.containers: dict[int, int] = {}
        self.kept: list[Any] = []  # keeps ids from being reused while encoding
        self.memo = True

    def node(self, node: Any) -> int:
        key = id(node)
        if key not in self.index:
            if len(self.nodes) >= MAX_NODES:
                raise ProtocolError(f"more than {MAX_NODES} tree nodes in one message")
            self.index[key] = len(self.nodes)
            self.nodes.append(node)
        return self.index[key]

    def value(self, x: Any, depth: int = 0) -> Any:
        if depth > MAX_DEPTH:
            raise ProtocolError("a value nested too deeply")
        if x is None or isinstance(x, (bool, str)):
            return x
        if isinstance(x, int):
            return int(x)
        if isinstance(x, float):
            return float(x)
        if isinstance(x, (list, dict)) and self.memo:
            if id(x) in self.containers:
                return {"$same": self.containers[id(x)]}
            self.containers[id(x)] = len(self.containers)
            self.kept.append(x)
        if isinstance(x, list):
            return [self.value(v, depth + 1) for v in x]
        if isinstance(x, tuple):
            return {"$t": [self.value(v, depth + 1) for v in x]}
        if isinstance(x, dict):
            return {
                "$d": [[self.value(k, depth + 1), self.value(v, depth + 1)] for k, v in x.items()]
            }
        if isinstance(x, random.Random):
            if id(x) in self.rngs:
                return {"$rk": self.rngs[id(x)]}
            self.rngs[id(x)] = key = len(self.rngs)
            version, internal, gauss = x.getstate()
            return {"$r": [version, list(internal), gauss], "k": key}
        from mcts_course.games.base import GameState

        if isinstance(x, GameState):
            slots = _slots(type(x))
            return {"$s": x.NAME, "v": [self.value(getattr(x, s, None), depth + 1) for s in slots]}
        if self.is_node(x):
            return {"$n": self.node(x)}
        if id(x) in self.public:
            return {"$f": self.public[id(x)]}
        # numpy scalars: plain numbers
        if type(x).__module__ == "numpy" and getattr(x, "shape", None) == ():
            return self.value(x.item(), depth)
        return self.lend(x)

    def table(self) -> list[dict[Any, Any]]:
        """The node table: every node met so far and every node reachable from them."""
        self.memo = False  # the table's lists are its own (the decoder reads it first)
        entries: list[dict[Any, Any]] = []
        i = 0
        while i < len(self.nodes):
            node = self.nodes[i]
            fields = {}
            for name in NODE_FIELDS:
                if not hasattr(node, name):
                    raise AttributeError(f"a Node object has no attribute `{name}`")
                fields[name] = getattr(node, name)
            children = fields["children"]
            if not isinstance(children, dict):
                raise TypeError("node.children must be a dict {action: Node}")
            parent = fields["parent"]
            entries.append(
                {
                    "s": self.value(fields["state"]),
                    "a": self.value(fields["action"]),
                    "p": self.value(fields["player"]),
                    "v": self.value(fields["visits"]),
                    "w": self.value(fields["wins"]),
                    "u": self.value(list(fields["untried"])),
                    "c": [[self.value(a), self.node(ch)] for a, ch in children.items()],
                    "up": None if parent is None else self.node(parent),
                }
            )
            i += 1
        return entries


def _slots(cls: type) -> list[str]:
    names: list[str] = []
    for klass in reversed(cls.__mro__):
        for s in getattr(klass, "__slots__", ()):
            if s not in names:
                names.append(s)
    return names


def _state_value(x: Any, depth: int = 0) -> Any:
    """A slot value of a game state: None, bool, int (a 64-bit board at most: a huge number
    would make every move of the grader's engine slow), or tuples of them."""
    if x is None or isinstance(x, bool):
        return x
    if _is_int(x):
        if not -(2**64) < x < 2**64:
            raise ProtocolError("a game state holds a number too large for a board")
        return x
    if isinstance(x, dict) and set(x) == {"$t"} and isinstance(x["$t"], list) and depth < 4:
        return tuple(_state_value(v, depth + 1) for v in x["$t"])
    raise ProtocolError("a game state holds something other than numbers")


class Decoder:
    """Turns JSON data back into values.  ``make_node()`` makes an empty node object;
    ``borrow(data)`` turns a handle of the other side into a proxy (or a lent object back).

    Everything it builds is bounded and walkable: at most :data:`MAX_VALUES` values (shared
    containers counted at each reference), :data:`MAX_DEPTH` levels, no container inside itself,
    and node tables that are forests (each node the child of at most one node, no cycle through
    children or parents).  Any malformed input raises :class:`ProtocolError`, never another
    exception: the grader catches that one and gives the student 0 for the test."""

    def __init__(
        self,
        make_node: Callable[[], Any],
        borrow: Callable[[dict[Any, Any]], Any],
        public: dict[str, Any] | None = None,
        nodes: list[Any] | None = None,
        keep: bool = True,
    ):
        self.make_node, self.borrow = make_node, borrow
        self.public = public or {}
        # existing objects: the answer's references to them are these very objects, and their
        # fields are updated in place only with ``keep`` (otherwise read, checked, and dropped)
        self.nodes: list[Any] = list(nodes or [])
        self.frozen = 0 if keep else len(self.nodes)
        self.rngs: dict[Any, random.Random] = {}
        self.containers: list[Any] = []
        self.sizes: list[int | None] = []  # per container: values in it, None while being filled
        self.count = 0  # values decoded so far
        self.memo = True

    def table(self, entries: Any) -> None:
        if not isinstance(entries, list) or len(entries) > MAX_NODES:
            raise ProtocolError("bad node table")
        self.memo = False
        try:
            self._table(entries)
        except ProtocolError:
            raise
        except (Exception, RecursionError) as error:  # e.g. an unhashable child key
            raise ProtocolError(f"bad node table ({type(error).__name__})") from None
        finally:
            self.memo = True

    def _table(self, entries: list[Any]) -> None:
        if not entries:
            return  # no change to any node (e.g. a reply that is an error)
        if len(entries) < len(self.nodes):
            raise ProtocolError("a node table without all the nodes it was sent")
        # Check the shape first, on indices: the grader's own nodes are changed in place below,
        # and must never become a cycle that a test would walk forever.
        total = len(entries)
        links: list[tuple[list[Any], Any]] = []
        has_parent = [False] * total
        for e in entries:
            if not isinstance(e, dict):
                raise ProtocolError("bad node entry")
            pairs = e.get("c", [])
            if not isinstance(pairs, list):
                raise ProtocolError("bad child list")
            kids = []
            for pair in pairs:
                if not (isinstance(pair, list) and len(pair) == 2):
                    raise ProtocolError("bad child entry")
                i = pair[1]
                if not _is_int(i) or not 0 <= i < total:
                    raise ProtocolError("a node reference out of range")
                if has_parent[i]:
                    raise ProtocolError("a node that is the child of two nodes (or twice)")
                has_parent[i] = True
                kids.append(i)
            up = e.get("up")
            if up is not None and (not _is_int(up) or not 0 <= up < total):
                raise ProtocolError("a node reference out of range")
            links.append((kids, up))
        _check_forest(links)
        while len(self.nodes) < len(entries):
            self.nodes.append(self.make_node())
        for i, (node, e) in enumerate(zip(self.nodes, entries, strict=False)):
            children = {}
            for pair in e.get("c", []):
                key = self.value(pair[0])
                if key in children:
                    raise ProtocolError("two children with the same action")
                children[key] = self.nodes[pair[1]]
            up = e.get("up")
            fields = [self.value(e.get(k)) for k in ("s", "a", "p", "v", "w", "u")]
            if i < self.frozen:
                continue  # one of the test's own nodes, lent without keep: left as it was
            node.state, node.action, node.player, node.visits, node.wins, untried = fields
            node.untried = untried if isinstance(untried, list) else []
            node.children = children
            node.parent = None if up is None else self.nodes[up]

    def _node(self, i: Any) -> Any:
        if not _is_int(i) or not 0 <= i < len(self.nodes):
            raise ProtocolError("a node reference out of range")
        return self.nodes[i]

    def value(self, x: Any, depth: int = 0) -> Any:
        """The value that ``x`` (JSON data) stands for; ProtocolError for anything else."""
        try:
            return self._value(x, depth)
        except ProtocolError:
            raise
        except (Exception, RecursionError) as error:  # never let a reply crash the grader
            raise ProtocolError(f"unreadable data ({type(error).__name__})") from None

    def _tick(self, n: int = 1) -> None:
        self.count += n
        if self.count > MAX_VALUES:
            raise ProtocolError("an answer too large to grade (more than a few megabytes of data)")

    def _value(self, x: Any, depth: int = 0) -> Any:
        if depth > MAX_DEPTH:
            raise ProtocolError("a value nested too deeply")
        if isinstance(x, str):
            self._tick(1 + len(x) // 8)
            return x
        if _is_int(x):
            self._tick(1 + x.bit_length() // 64)
            return x
        self._tick()
        if x is None or isinstance(x, bool):
            return x
        if isinstance(x, float):
            return x
        if isinstance(x, list):
            out: list[Any] = []
            k = self._open(out)
            before = self.count
            out.extend(self._value(v, depth + 1) for v in x)
            self._close(k, before)
            return out
        if not isinstance(x, dict) or len(x) == 0:
            raise ProtocolError(f"unexpected data {str(x)[:80]}")
        if "$same" in x:
            k = x["$same"]
            if not _is_int(k) or not 0 <= k < len(self.containers):
                raise ProtocolError("a reference to an unknown list or dict")
            size = self.sizes[k]
            if size is None:  # a list inside itself: printing or comparing it never ends
                raise ProtocolError("a list or dict that contains itself")
            self._tick(size)
            return self.containers[k]
        if "$t" in x:
            return tuple(self._value(v, depth + 1) for v in _list(x["$t"]))
        if "$d" in x:
            table: dict[Any, Any] = {}
            k = self._open(table)
            before = self.count
            for pair in _list(x["$d"]):
                if not (isinstance(pair, list) and len(pair) == 2):
                    raise ProtocolError("bad dict entry")
                key = self._value(pair[0], depth + 1)
                try:
                    table[key] = self._value(pair[1], depth + 1)
                except TypeError:
                    raise ProtocolError("an unhashable dict key") from None
            self._close(k, before)
            return table
        if "$r" in x:
            rng = make_rng(x["$r"])
            self.rngs[x.get("k")] = rng
            return rng
        if "$rk" in x:
            try:
                return self.rngs[x["$rk"]]
            except (KeyError, TypeError):
                raise ProtocolError("a reference to an unknown generator") from None
        if "$s" in x:
            return make_state(x["$s"], x.get("v"))
        if "$n" in x:
            return self._node(x["$n"])
        if "$f" in x:
            name = x["$f"]
            if not isinstance(name, str) or name not in self.public:
                raise ProtocolError(f"unknown public function {str(name)[:40]!r}")
            return self.public[name]
        if "$o" in x or "$c" in x:
            return self.borrow(x)
        raise ProtocolError(f"unexpected data {str(x)[:80]}")

    def _open(self, container: Any) -> int:
        if not self.memo:
            return -1
        self.containers.append(container)
        self.sizes.append(None)
        return len(self.containers) - 1

    def _close(self, k: int, before: int) -> None:
        if k >= 0:
            self.sizes[k] = self.count - before + 1


def _check_forest(links: list[tuple[list[Any], Any]]) -> None:
    """Refuse a node table whose children or parent links go round in a circle."""
    n = len(links)
    # children: every node has at most one parent (checked by the caller), so the links form a
    # forest exactly when every node is reached from a node that is nobody's child.
    has_parent = [False] * n
    for kids, _ in links:
        for i in kids:
            has_parent[i] = True
    seen = [False] * n
    for root in range(n):
        if has_parent[root]:
            continue
        todo = [root]
        while todo:
            i = todo.pop()
            seen[i] = True
            todo.extend(links[i][0])
    if not all(seen):
        raise ProtocolError("the tree's children links go round in a circle")
    # parents: following `parent` from any node must end
    state = [0] * n  # 0 unknown, 1 on the current path, 2 ends
    for start in range(n):
        path, i = [], start
        while i is not None and state[i] == 0:
            state[i] = 1
            path.append(i)
            i = links[i][1]
        if i is not None and state[i] == 1:
            raise ProtocolError("the tree's parent links go round in a circle")
        for j in path:
            state[j] = 2


def _list(x: Any) -> list[Any]:
    if not isinstance(x, list):
        raise ProtocolError("expected a list")
    return x


def rng_state(data: Any) -> tuple[Any, ...]:
    """A random.Random state from its JSON form (checked: a forged one could crash setstate)."""
    try:
        version, internal, gauss = data
    except (TypeError, ValueError):
        raise ProtocolError("bad random generator state") from None
    if version != 3 or not isinstance(internal, list) or len(internal) != 625:
        raise ProtocolError("bad random generator state")
    if not all(_is_int(v) and 0 <= v < 2**32 for v in internal[:624]):
        raise ProtocolError("bad random generator state")
    if not (_is_int(internal[624]) and 0 <= internal[624] <= 624):
        raise ProtocolError("bad random generator state")
    if gauss is not None and not isinstance(gauss, int | float):
        raise ProtocolError("bad random generator state")
    return (3, tuple(internal), gauss)


def make_rng(data: Any) -> random.Random:
    rng = random.Random()
    rng.setstate(rng_state(data))
    return rng


def make_state(name: Any, values: Any) -> Any:
    from mcts_course.games import GAMES

    if name not in GAMES or not isinstance(values, list):
        raise ProtocolError(f"unknown game {str(name)[:40]!r}")
    cls = GAMES[name]
    slots = _slots(cls)
    if len(values) != len(slots):
        raise ProtocolError(f"a {name} state with {len(values)} values")
    state = object.__new__(cls)
    for slot, value in zip(slots, values, strict=True):
        object.__setattr__(state, slot, _state_value(value))
    # the outcome and cached moves come from the board, never from the other side: a child
    # marked finished with returns (0, 0), or an Othello move mask of -1, forged a tree the
    # grader's checks and engine believed (red team 27, 01-03)
    try:
        state._rederive()
    except (AttributeError, ValueError, TypeError) as error:
        raise ProtocolError(f"a {name} state that no game reaches: {error}") from None
    return state


def describe_number(x: Any) -> str:
    """A short text for a number that may be inf or nan (for messages)."""
    if isinstance(x, float) and (math.isinf(x) or math.isnan(x)):
        return repr(x)
    return f"{x!r}"


def sync(originals: list[Any], news: Any, seen: set[int] | None = None) -> None:
    """Give each of ``originals`` the value of the matching decoded ``news``, in place: the
    other side's changes to the lists, dicts and random generators it was given (an object
    passed twice is updated once)."""
    seen = seen if seen is not None else set()
    if not isinstance(news, list | tuple):
        return
    for original, new in zip(originals, news, strict=False):
        if id(new) in seen or new is original:
            continue
        seen.add(id(new))
        if isinstance(original, random.Random) and isinstance(new, random.Random):
            original.setstate(new.getstate())
        elif isinstance(original, list) and isinstance(new, list):
            original[:] = new
        elif isinstance(original, dict) and isinstance(new, dict):
            original.clear()
            original.update(new)
