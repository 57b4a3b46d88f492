"""The book's MCTS explorer in Jupyter: step a seeded UCT run phase by phase beside your code.

::

    from mcts_course.explorer_widget import ExplorerWidget
    ExplorerWidget("tictactoe", "b2 a1 c3 a3", threshold=3, seed=6)

The same recorder as the book's explorer page (:mod:`mcts_course.explorer`, over
:meth:`MCTSAgent.step`) answers every click, so the widget shows the same numbers as the page
for the same position, settings and seed, drawn by the same code
(:mod:`mcts_course.explorer_draw`): the phases of the iteration shown, the SVG tree, and the
table of a node's children with the UCB value split into mean and exploration.
``agent_class`` runs a subclass of :class:`MCTSAgent` instead (say, one whose ``select_child``
you rewrote), with the same recording; ``search`` runs a function-style search instead, the
exercises' ``mcts_search(state, iterations, c, expand_threshold, rng)`` (from your own module:
``ExplorerWidget("tictactoe", search=my_module.mcts_search)``), recorded by
:mod:`mcts_course.explorer_functions`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

try:
    import ipywidgets as widgets
except ImportError as error:  # an extra: the library itself needs numpy alone
    raise ImportError("this module needs ipywidgets: pip install 'mcts-course[widgets]'") from error

from mcts_course.agents.bandits import SQRT2
from mcts_course.agents.mcts import MCTSAgent
from mcts_course.explorer import Session
from mcts_course.explorer_draw import phases_html
from mcts_course.explorer_functions import function_session
from mcts_course.games import game_class


class ExplorerWidget:
    """Buttons (back, one phase, one iteration, run), an iteration slider, and the screen."""

    def __init__(
        self,
        game: str = "tictactoe",
        moves: str | Sequence[int] = (),
        *,
        c: float = SQRT2,
        threshold: int = 1,
        seed: int = 0,
        playout_depth: int | None = None,
        depth: int = 1,
        agent_class: type[MCTSAgent] = MCTSAgent,
        search: Callable[..., Any] | None = None,
    ):
        if isinstance(moves, str):
            state, actions = game_class(game)(), list[int]()
            for word in moves.replace(",", " ").split():
                action = state.parse_action(word)
                actions.append(action)
                state = state.play(action)
        else:
            actions = list(moves)
        if search is None:
            self.session = Session(
                game, list(actions), c, threshold, seed, playout_depth, agent_class
            )
        else:  # the exercises' function-style mcts_search (plays its playouts to the end)
            if playout_depth is not None:
                raise ValueError("a function-style search plays its playouts to the end")
            self.session = function_session(game, list(actions), c, threshold, seed, search)
        self.iteration, self.phase, self.depth, self.selected = 0, 4, depth, ""
        button = widgets.Button
        self.back = button(description="◀ back", tooltip="Back one phase")
        self.step = button(description="one phase ▶", tooltip="Step one phase")
        self.one = button(description="one iteration")
        self.count = widgets.BoundedIntText(value=100, min=1, max=20_000, description="iterations")
        self.run = button(description="run")
        self.slider = widgets.IntSlider(value=0, min=0, max=0, description="iteration")
        self.node = widgets.Text(value="", description="node", placeholder='"" root, "4.0" …')
        self.status = widgets.HTML()
        self.screen = widgets.HTML()
        self.back.on_click(lambda _: self.step_back())
        self.step.on_click(lambda _: self.step_phase())
        self.one.on_click(lambda _: self.run_iterations(1))
        self.run.on_click(lambda _: self.run_iterations(self.count.value))
        self.slider.observe(self._scrub, names="value")
        self._drawing = False  # set while show() moves the slider itself
        self.node.observe(lambda change: self.select(change["new"]), names="value")
        controls = widgets.HBox([self.back, self.step, self.one, self.count, self.run])
        self.widget = widgets.VBox([controls, self.slider, self.node, self.status, self.screen])
        self.view: dict[str, Any] = {}
        self.show(0, 4)

    # -- what the buttons do (also callable from code) -------------------------------------------
    def step_phase(self) -> None:
        if self.phase == 4:
            self.show(self.iteration + 1, 1)
        else:
            self.show(self.iteration, self.phase + 1)

    def step_back(self) -> None:
        if self.iteration == 0:
            return
        if self.phase == 1:
            self.show(self.iteration - 1, 4)
        else:
            self.show(self.iteration, self.phase - 1)

    def run_iterations(self, count: int) -> None:
        done = self.iteration if self.phase == 4 else self.iteration - 1
        self.show(done + count, 4)

    def select(self, key: str) -> None:
        self.selected = key.strip()
        self.show(self.iteration, self.phase)

    def show(self, iteration: int, phase: int) -> None:
        view = self.session.view(iteration, phase, [self.selected], self.depth, self.selected)
        self.view, self.iteration, self.phase = view, view["iteration"], view["phase"]
        name = "done" if view["phase"] == 4 else f"phase {view['phase']} of 4: {view['phase_name']}"
        self.status.value = (
            f"<b>iteration {view['iteration']}</b> ({name}) · {view['to_move']} to move · "
            f"{view['recorded']} recorded"
        )
        # The page's own drawing: the same SVG tree and table text (mcts_course.explorer_draw).
        tree = f'<div style="overflow:auto;max-height:32em">{view["tree_svg"]}</div>'
        self.screen.value = phases_html(view) + tree + view["table_html"]
        self._drawing = True
        try:
            self.slider.max = max(self.slider.max, view["recorded"])
            self.slider.value = view["iteration"] if view["phase"] == 4 else view["iteration"] - 1
        finally:
            self._drawing = False

    def _scrub(self, change: dict[str, Any]) -> None:
        if not self._drawing:
            self.show(change["new"], 4)

    def _ipython_display_(self) -> None:
        from IPython.display import display

        display(self.widget)  # type: ignore[no-untyped-call]  # IPython's display is unannotated
