"""Play any of the three games against any agent by clicking, in Jupyter or Colab.

::

    from mcts_course.widgets import PlayWidget
    PlayWidget("othello", "mcts:iterations=500")          # you are Black, MCTS is White
    PlayWidget("connect4", MCTSAgent(1000), human=1)       # the agent opens

The board is a grid of buttons: click a cell to play there (in Connect Four, any cell of a
column drops a disc in that column).  After each agent move the widget shows what the agent
thought: for MCTS the visit counts of its root's children (``agent.last_root``), for flat Monte
Carlo the playouts per move, drawn on the position it moved from.  Othello passes are played
for you when you have no move.
"""

from __future__ import annotations

import sys
from typing import Any

try:
    import ipywidgets as widgets
except ImportError as error:  # an extra: the library itself needs numpy alone
    raise ImportError("this module needs ipywidgets: pip install 'mcts-course[widgets]'") from error

from mcts_course.agents import Agent, make_agent
from mcts_course.games import GameState, IllegalActionError, start_state
from mcts_course.render import look_of, state_png


def visit_counts(agent: Any) -> dict[int, float] | None:
    """What the agent's last search spent on each move: MCTS visits, or flat MC playouts."""
    root = getattr(agent, "last_root", None)
    if root is not None and root.children:
        return {action: child.visits for action, child in root.children.items()}
    stats = getattr(agent, "last_stats", None)
    if stats:
        return {row["action"]: row["visits"] for row in stats}
    return None


class PlayWidget:
    """A game between you (``human``: 0 moves first) and ``agent`` (an Agent or a spec)."""

    def __init__(
        self,
        game: str | type[GameState] | GameState = "othello",
        agent: Agent | str = "mcts:iterations=300",
        human: int = 0,
        show_visits: bool = True,
    ):
        if human not in (0, 1):
            raise ValueError(f"human must be 0 (move first) or 1, not {human}")
        self.start = start_state(game)
        self.agent = make_agent(agent) if isinstance(agent, str) else agent
        self.human = human
        self.show_visits = show_visits
        self.state = self.start
        self.history: list[int] = []
        rows, cols = self.start.ROWS, self.start.COLS
        size = look_of(self.start).button
        self.buttons: list[widgets.Button] = []
        for index in range(rows * cols):
            button = widgets.Button(layout=widgets.Layout(width=size, height=size, padding="0"))
            button.on_click(lambda _button, index=index: self.click_cell(*divmod(index, cols)))
            self.buttons.append(button)
        grid = widgets.GridBox(
            self.buttons,
            layout=widgets.Layout(
                grid_template_columns=f"repeat({cols}, {size})", grid_gap="2px", width="max-content"
            ),
        )
        self.status = widgets.HTML()
        self.thinking = widgets.Image(format="png", layout=widgets.Layout(max_width="340px"))
        self.new_game_button = widgets.Button(description="New game", icon="refresh")
        self.new_game_button.on_click(lambda _button: self.new_game())
        self.no_search = widgets.HTML("<i>none yet: it has not had to choose</i>")
        side = widgets.VBox(
            [widgets.HTML("<b>The agent's last search</b>"), self.no_search, self.thinking]
        )
        self.widget = widgets.VBox([widgets.HBox([grid, side]), self.status, self.new_game_button])
        _enable_colab_widgets()
        self.new_game()

    # -- the game ------------------------------------------------------------------------------
    def new_game(self) -> None:
        """Start again from the start position (the agent moves at once if it opens)."""
        self.state, self.history = self.start, []
        self.agent.reset()
        self.thinking.value = b""
        self.thinking.layout.display = "none"  # an empty Image shows as a broken picture
        self.no_search.layout.display = None
        self._advance()

    def click_cell(self, row: int, col: int) -> None:
        """What a click on cell (row, col) does: play there if it is legal and your turn."""
        if self.state.is_terminal() or self.state.current_player != self.human:
            return
        action = self.state.action_at(row, col)
        if action is None:
            return
        if action not in self.state.legal_actions():
            self.status.value = f"{self.state.action_to_string(action)} is not legal here."
            return
        self.play(action)

    def play(self, action: int) -> None:
        """Play the human's ``action``, then let the agent answer."""
        if self.state.current_player != self.human:
            raise IllegalActionError("it is the agent's turn")
        self._move(action)
        self._advance()

    def _move(self, action: int) -> None:
        self.state = self.state.play(action)
        self.history.append(action)

    def _advance(self) -> None:
        """Let the agent move, and pass for the human, until the human can choose or it ends."""
        while not self.state.is_terminal():
            actions = self.state.legal_actions()
            if self.state.current_player == self.human:
                if self.state.must_pass():
                    self._move(actions[0])  # Othello: no move but to pass
                    continue
                break
            before = self.state
            self._move(self.agent.select_action(before))
            counts = visit_counts(self.agent) if len(actions) > 1 else None
            if self.show_visits and counts:
                self._show_thinking(before, counts)
        self._refresh()

    # -- display -------------------------------------------------------------------------------
    def _show_thinking(self, state: GameState, counts: dict[int, float]) -> None:
        title = f"{self.agent.name}: visits per move"
        self.thinking.value = state_png(
            state, overlay=counts, title=title, show_legal=False, fmt="{:.0f}", label="visits"
        )
        self.thinking.layout.display = None
        self.no_search.layout.display = "none"

    def _refresh(self) -> None:
        state = self.state
        looks = look_of(state).buttons
        board = state.board()
        your_turn = not state.is_terminal() and state.current_player == self.human
        legal = set(state.legal_actions()) if your_turn else set()  # none once the game is over
        for index, button in enumerate(self.buttons):
            row, col = divmod(index, state.COLS)
            text, colour, background = looks[board[row][col] + 1]
            action = state.action_at(row, col)
            # In Connect Four only the cell where the disc would land is marked.
            playable = action in legal and state.cell_of(action) == (row, col)
            button.description = "·" if playable and not text else text
            button.style.text_color = colour
            button.style.button_color = background
            button.style.font_weight = "bold"
            button.style.font_size = "22px"
            button.tooltip = "" if action is None else state.action_to_string(action)
        self.status.value = self._status_text()

    def _status_text(self) -> str:
        state = self.state
        names = state.PLAYER_NAMES
        if state.is_terminal():
            winner = state.winner()
            if winner is None:
                return "<b>Draw.</b>"
            who = "you" if winner == self.human else "the agent"
            return f"<b>{names[winner]} wins</b> ({who})."
        last = ""
        if self.history:
            last = f"Last move: {self.start.action_to_string(self.history[-1])}. "
        return f"{last}You play {names[self.human]}: your move."

    def _ipython_display_(self) -> None:
        from IPython.display import display

        display(self.widget)  # type: ignore[no-untyped-call]  # IPython's display() has no hints


def _enable_colab_widgets() -> None:
    """Colab shows ipywidgets 8 only with its custom widget manager switched on."""
    if "google.colab" in sys.modules:
        try:
            from google.colab import output

            output.enable_custom_widget_manager()
        except Exception:  # an older Colab: the built-in manager may still work
            pass
