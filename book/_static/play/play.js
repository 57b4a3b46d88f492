// The book's play boards: play against the course's agents, and step through MCTS.
//
// This script only draws and forwards clicks.  The rules and the searches are the mcts_course
// package's own Python code, run by Pyodide in a Web Worker (worker.js) from the book's static
// files: see mcts_course/webplay.py for the requests and the views they answer.
//
// <div class="mcts-play" data-ids="play" data-game="othello"></div>   a game board (ids play-*)
// <div class="mcts-step" data-ids="step"></div>                      step through MCTS (step-*)
(function () {
  "use strict";

  const BASE = new URL("./", document.currentScript.src);
  const OPPONENTS = [
    ["random", "Random"],
    ["cellscore", "Cell score"],
    ["alphabeta:depth=2", "Alpha-beta, depth 2"],
    ["alphabeta:depth=4", "Alpha-beta, depth 4"],
    ["montecarlo:playouts=200", "Flat Monte Carlo, 200 playouts"],
    ["mcts:iterations=200", "MCTS, 200 iterations"],
    ["mcts:iterations=1000", "MCTS, 1000 iterations"],
    ["mcts:time=1", "MCTS, 1 second"],
    // A third element: the games the opponent plays (a network exists for those only).
    ["puct:prior=net,iterations=200", "Learned network (PUCT + net), 200 iterations", ["tictactoe", "connect4"]],
    ["mcts:iterations=200,endgame=10", "MCTS, 200 iterations, exact from 10 empty squares", ["othello"]],
  ];
  const DEFAULT_OPPONENT = "mcts:iterations=200";
  const GAMES = [
    ["tictactoe", "Tic-tac-toe"],
    ["connect4", "Connect Four"],
    ["othello", "Othello"],
  ];

  // -- the worker, shared by every board of the page --------------------------------------------
  const pageStart = performance.now();
  let worker = null;
  let nextId = 1;
  const waiting = new Map();
  const onReady = [];
  let ready = null; // {ms, version} once Python is ready
  let failure = null; // why Python could not start

  function settle() {
    while (onReady.length) onReady.shift()();
  }

  // This page's path inside the built book, for the file:// advice ("book/08_mcts.html"): after
  // `_build/html/` when the book was built in place, else the folder and file of the page.
  function pageInBook() {
    const parts = location.pathname.split("/_build/html/");
    if (parts.length > 1) return parts[parts.length - 1];
    const tail = location.pathname.match(/[^/]+\/[^/]+\.html$/);
    return tail ? tail[0] : "";
  }

  function startWorker() {
    if (worker || failure) return;
    if (location.protocol === "file:") {
      failure = "file";
      settle();
      return;
    }
    try {
      worker = new Worker(new URL("worker.js", BASE), { type: "module" });
    } catch (error) {
      failure = String(error);
      settle();
      return;
    }
    worker.onmessage = (event) => {
      const m = event.data;
      if (m.type === "ready") {
        ready = { ms: performance.now() - pageStart, workerMs: m.ms, version: m.version, phases: m.phases };
        settle();
      } else if (m.type === "failed") {
        failure = m.error;
        settle();
      } else {
        const promise = waiting.get(m.id);
        waiting.delete(m.id);
        if (m.error) promise.reject(new Error(m.error));
        else promise.resolve({ answer: JSON.parse(m.answer), ms: m.ms });
      }
    };
    worker.onerror = (event) => {
      failure = event.message || "the Web Worker could not start";
      settle();
    };
  }

  function whenReady() {
    return new Promise((resolve, reject) => {
      const check = () => (failure ? reject(new Error(failure)) : resolve(ready));
      if (ready || failure) check();
      else onReady.push(check);
    });
  }

  // One request to mcts_course.webplay.handle; resolves to its view.
  async function call(args) {
    await whenReady();
    const { answer } = await new Promise((resolve, reject) => {
      const id = nextId++;
      waiting.set(id, { resolve, reject });
      worker.postMessage({ id, request: JSON.stringify(args) });
    });
    if (!answer.ok) throw new Error(answer.error);
    return answer.view;
  }
  window.mctsPlay = { call, whenReady, base: BASE.href };

  // -- small DOM helpers -------------------------------------------------------------------------
  function el(tag, attrs, ...children) {
    const node = document.createElement(tag);
    for (const [key, value] of Object.entries(attrs || {})) {
      if (value === null || value === undefined || value === false) continue;
      if (key === "class") node.className = value;
      else if (key === "text") node.textContent = value;
      else if (key.startsWith("on")) node.addEventListener(key.slice(2), value);
      else node.setAttribute(key, value === true ? "" : String(value));
    }
    for (const child of children.flat()) {
      if (child !== null && child !== undefined) {
        node.append(child instanceof Node ? child : document.createTextNode(String(child)));
      }
    }
    return node;
  }

  function select(id, options, value) {
    return el(
      "select",
      { id },
      options.map(([v, label]) => el("option", { value: v, selected: v === value }, label)),
    );
  }

  function fmt(x, digits) {
    if (x === "inf") return "∞";
    if (x === null || x === undefined) return "–";
    if (typeof x !== "number") return String(x);
    return Number.isInteger(x) ? String(x) : x.toFixed(digits === undefined ? 2 : digits);
  }

  function loadingNote(note) {
    const timer = setInterval(() => {
      const s = ((performance.now() - pageStart) / 1000).toFixed(1);
      if (!ready && !failure) note.textContent = `Loading Python (Pyodide) in your browser… ${s} s`;
    }, 100);
    whenReady().then(
      (info) => {
        clearInterval(timer);
        note.textContent =
          `Python ${"(Pyodide " + info.version + ")"} ready ` +
          `${(info.ms / 1000).toFixed(1)} s after the page opened.`;
      },
      (error) => {
        clearInterval(timer);
        note.classList.add("mp-error");
        note.textContent =
          error.message === "file"
            ? "This board runs Python in a Web Worker with WebAssembly, which browsers refuse " +
              "to start for a page opened from a file on disk (file://).  Serve the book's HTML " +
              "folder instead (the one that holds index.html, `_build/html` after `make book`): " +
              "`python -m http.server --directory FOLDER`, then open " +
              `http://localhost:8000/${pageInBook()}.`
            : `Python could not start here: ${error.message}`;
      },
    );
  }

  // A board: cells are buttons (clickable board) or spans (pictures of a search).
  function drawBoard(view, options) {
    const { clickable, onClick, overlay, highlight } = options || {};
    const legal = new Map();
    for (const move of view.legal || []) {
      if (move.cell) legal.set(move.cell[0] * view.cols + move.cell[1], move.action);
    }
    const labels = new Map();
    for (const row of overlay || []) {
      if (row.cell) labels.set(row.cell[0] * view.cols + row.cell[1], row);
    }
    const last = view.last && view.last.cell ? view.last.cell[0] * view.cols + view.last.cell[1] : -1;
    const grid = el("div", { class: `mp-board mp-${view.game}` });
    grid.style.gridTemplateColumns = `repeat(${view.cols}, var(--mp-cell))`;
    view.cells.forEach((owner, index) => {
      const col = index % view.cols;
      const action = view.game === "connect4" ? col : index;
      const classes = ["mp-cell"];
      if (owner >= 0) classes.push(`mp-p${owner}`);
      if (index === last) classes.push("mp-last");
      const isLegal = legal.has(index);
      if (isLegal) classes.push("mp-legal");
      const label = labels.get(index);
      if (label && highlight === label.action) classes.push("mp-chosen");
      const attrs = { class: classes.join(" ") };
      if (clickable) {
        attrs["data-action"] = action;
        attrs["data-legal"] = isLegal ? "true" : "false";
        attrs.type = "button";
        attrs.onclick = () => onClick(action);
        attrs["aria-label"] = `cell ${index}`;
      }
      const piece = el("span", { class: "mp-piece" });
      const text = label ? el("span", { class: "mp-label", text: fmt(label.value, 1) }) : null;
      grid.append(el(clickable ? "button" : "span", attrs, piece, text));
    });
    return withCoordinates(grid, view);
  }

  // Column names above the board and row numbers on its left, as the moves are written ("d3").
  function withCoordinates(grid, view) {
    const cols = view.col_labels || [];
    const rows = view.row_labels || [];
    if (!cols.length) return grid;
    const top = el("div", { class: "mp-coords mp-coords-top" }, cols.map((c) => el("span", { text: c })));
    top.style.gridTemplateColumns = `repeat(${view.cols}, var(--mp-cell))`;
    const left = el("div", { class: "mp-coords mp-coords-left" }, rows.map((r) => el("span", { text: r })));
    left.style.gridTemplateRows = `repeat(${view.rows}, var(--mp-cell))`;
    return el("div", { class: `mp-framed mp-${view.game}-frame` }, el("span"), top, rows.length ? left : el("span"), grid);
  }

  function table(thoughts) {
    const names = { move: "move", visits: "visits", wins: "wins", mean: "mean", uct: "UCT", value: "value", prior: "prior", puct: "PUCT" };
    const head = el("tr", {}, thoughts.columns.map((c) => el("th", { text: names[c] || c })));
    const rows = thoughts.rows.slice(0, 12).map((row) =>
      el(
        "tr",
        { class: row.action === thoughts.action ? "mp-chosen-row" : null },
        thoughts.columns.map((c) => el("td", { text: fmt(row[c], c === "mean" || c === "uct" || c === "puct" ? 3 : 1) })),
      ),
    );
    const more = thoughts.rows.length > 12 ? el("caption", { text: `(${thoughts.rows.length - 12} more moves)` }) : null;
    return el("table", { class: "mp-table" }, more, el("thead", {}, head), el("tbody", {}, rows));
  }

  // The network's value (its estimate of the result, from -1 a sure loss to +1 a sure win) of
  // the position the agent moved from, for the agent, and of the position now, for the mover.
  function netValue(view, t) {
    const signed = (v) => (v > 0 ? "+" : v < 0 ? "−" : "") + Math.abs(v).toFixed(2);
    const who = (p) => `${view.players[p]} (${p === view.human ? "you" : "the agent"})`;
    let text = `The network's value (−1 a sure loss, +1 a sure win): ${signed(t.net_value)} for ${who(t.net_player)} before its move`;
    if (t.net_value_after !== undefined && t.net_value_after !== null) {
      text += `; ${signed(t.net_value_after)} for ${who(1 - t.net_player)} now.`;
    } else {
      text += ".";
    }
    return el("p", { class: "mp-net-value", text });
  }

  function thoughtsPanel(view) {
    const t = view.thoughts;
    if (!t) return el("p", { class: "mp-muted", text: "The agent's last search shows here after it moves." });
    let summary = `${t.agent} played ${t.move} in ${t.seconds.toFixed(2)} s`;
    if (t.kind === "visits") {
      const rate = t.seconds > 0 ? Math.round(t.iterations / t.seconds) : null;
      summary += ` after ${t.iterations} iterations${rate ? ` (${rate} per second)` : ""}; numbers: visits of each move.`;
    } else if (t.kind === "net") {
      const rate = t.seconds > 0 ? Math.round(t.iterations / t.seconds) : null;
      summary += ` after ${t.iterations} iterations${rate ? ` (${rate} per second)` : ""} of PUCT guided by the network; numbers: the network's prior of each move.`;
    } else if (t.kind === "exact") {
      summary += `, solved exactly (${t.empties} empty squares); numbers: each move's final disc margin with perfect play, for the mover.`;
    } else if (t.kind === "playouts") {
      summary += "; numbers: playouts of each move.";
    } else if (t.kind === "weights") {
      summary += "; numbers: the weight of each move's cell, the highest played.";
    } else if (t.kind === "values") {
      summary += `; numbers: value of each move at depth ${t.depth} (cell score, for the mover).`;
    } else {
      summary += ".";
    }
    const position = {
      game: view.game, rows: view.rows, cols: view.cols, cells: t.position,
      col_labels: view.col_labels, row_labels: view.row_labels,
    };
    return el(
      "div",
      { class: "mp-thoughts" },
      el("p", { class: "mp-summary", text: summary }),
      t.kind === "net" ? netValue(view, t) : null,
      t.rows.length ? el("div", { class: "mp-side" }, drawBoard(position, { overlay: t.rows, highlight: t.action }), table(t)) : null,
    );
  }

  // -- a game board --------------------------------------------------------------------------------
  let boardCount = 0;

  function gameBoard(root) {
    const prefix = root.dataset.ids; // the page contract's ids (play-game, play-new, ...) if set
    const id = (name) => (prefix ? `${prefix}-${name}` : null);
    const name = `board${boardCount++}`;
    const compact = root.dataset.compact !== undefined;
    const gameSel = select(id("game"), GAMES, root.dataset.game || "tictactoe");
    const opponentSel = select(id("opponent"), OPPONENTS, root.dataset.opponent || DEFAULT_OPPONENT);
    // Opponents that play some games only (the learned networks) are offered for those only.
    function fitOpponents() {
      for (const option of opponentSel.options) {
        const games = (OPPONENTS.find(([spec]) => spec === option.value) || [])[2];
        option.disabled = Boolean(games) && !games.includes(gameSel.value);
      }
      if (opponentSel.selectedOptions[0] && opponentSel.selectedOptions[0].disabled) opponentSel.value = DEFAULT_OPPONENT;
    }
    const firstSel = select(id("first"), [["you", "you"], ["agent", "the agent"]], "you");
    const newButton = el("button", { id: id("new"), type: "button", text: "New game" });
    const undoButton = el("button", { id: id("undo"), type: "button", text: "Undo" });
    const budget = el("input", { id: id("budget"), type: "number", min: "1", value: "500", size: "6" });
    const unit = select(id("unit"), [["iterations", "iterations"], ["time", "seconds"]], "iterations");
    const cInput = el("input", { id: id("c"), type: "number", step: "0.1", min: "0", value: "1.41", size: "4" });
    const depthInput = el("input", { id: id("depth"), type: "number", min: "1", max: "8", value: "3", size: "3" });
    const status = el("p", { id: id("status"), class: "mp-status", role: "status", "aria-live": "polite" });
    const busyNote = el("p", { class: "mp-busy", hidden: true });
    const note = el("p", { class: "mp-note" });
    const boardBox = el("div", { class: "mp-board-box" });
    const passBox = el("div", { class: "mp-pass-box" });
    const thoughtsBox = el("div", { class: "mp-thoughts-box" });
    const message = el("p", { class: "mp-message" });

    function useSpec(spec, label) {
      if (![...opponentSel.options].some((o) => o.value === spec)) opponentSel.append(el("option", { value: spec }, label));
      opponentSel.value = spec;
      newGame();
    }
    const tune = compact
      ? null
      : el(
          "div",
          { class: "mp-row" },
          el("span", {}, "MCTS with ", budget, " ", unit, " c = ", cInput, " "),
          el("button", {
            type: "button",
            text: "Play it",
            onclick: () => {
              const key = unit.value === "time" ? "time" : "iterations";
              const spec = `mcts:${key}=${Number(budget.value)},c=${Number(cInput.value)}`;
              useSpec(spec, `MCTS, ${budget.value} ${unit.value === "time" ? "s" : "iterations"}, c=${cInput.value}`);
            },
          }),
          el("span", { class: "mp-gap" }, " Alpha-beta, depth ", depthInput, " "),
          el("button", {
            type: "button",
            text: "Play it",
            onclick: () => useSpec(`alphabeta:depth=${Number(depthInput.value)}`, `Alpha-beta, depth ${depthInput.value}`),
          }),
        );

    root.append(
      ...[
      el(
        "div",
        { class: "mp-row" },
        el("label", {}, "Game ", gameSel),
        el("label", {}, " Opponent ", opponentSel),
        el("label", {}, " First to move: ", firstSel),
      ),
      tune,
      el("div", { class: "mp-row" }, newButton, " ", undoButton),
      note,
      status,
      busyNote,
      el("div", { class: "mp-main" }, el("div", {}, boardBox, passBox), compact ? null : thoughtsBox),
      message,
      ].filter(Boolean),
    );
    if (compact) root.append(thoughtsBox);

    let view = null;
    let busy = false;
    let games = 0;

    function setBusy(flag, what) {
      busy = flag;
      root.dataset.busy = flag ? "true" : "false";
      for (const b of [newButton, undoButton]) b.disabled = flag;
      busyNote.hidden = !flag;
      clearInterval(setBusy.timer);
      if (flag) {
        const t0 = performance.now();
        const tick = () => (busyNote.textContent = `${what} is thinking… ${((performance.now() - t0) / 1000).toFixed(1)} s`);
        tick();
        setBusy.timer = setInterval(tick, 100);
      }
    }

    function render() {
      status.textContent = view.status;
      root.dataset.state = view.terminal ? "over" : view.your_turn ? "your-turn" : "agent-turn";
      boardBox.replaceChildren(drawBoard(view, { clickable: true, onClick: clickCell }));
      const pass = (view.legal || []).find((m) => !m.cell);
      passBox.replaceChildren(
        pass
          ? el("button", { type: "button", class: "mp-pass", "data-action": pass.action, "data-legal": "true", onclick: () => clickCell(pass.action) }, "Pass (you have no move)")
          : "",
      );
      thoughtsBox.replaceChildren(thoughtsPanel(view));
      undoButton.disabled = busy || !view.can_undo;
    }

    async function run(request) {
      message.textContent = "";
      try {
        view = await call({ board: name, ...request });
        render();
      } catch (error) {
        message.textContent = error.message;
        throw error;
      }
    }

    async function agentTurns() {
      while (view && !view.terminal && !view.your_turn) {
        const who = opponentSel.selectedOptions[0] ? opponentSel.selectedOptions[0].textContent : "The agent";
        setBusy(true, who);
        try {
          await run({ cmd: "agent_move" });
        } finally {
          setBusy(false);
        }
      }
      render();
    }

    async function newGame() {
      if (busy) return;
      setBusy(true, "Python");
      try {
        await run({
          cmd: "new_game",
          game: gameSel.value,
          opponent: opponentSel.value,
          human: firstSel.value === "you" ? 0 : 1,
          seed: games++,
        });
      } finally {
        setBusy(false);
      }
      await agentTurns();
    }

    async function clickCell(action) {
      if (busy || !view || !view.your_turn) return;
      if (!view.legal.some((m) => m.action === action)) {
        message.textContent = "That move is not legal here.";
        return;
      }
      setBusy(true, "Python");
      try {
        await run({ cmd: "human_move", action });
      } finally {
        setBusy(false);
      }
      await agentTurns();
    }

    newButton.addEventListener("click", newGame);
    undoButton.addEventListener("click", async () => {
      if (busy) return;
      await run({ cmd: "undo" });
      await agentTurns();
    });
    gameSel.addEventListener("change", fitOpponents);
    fitOpponents();
    for (const s of [gameSel, opponentSel, firstSel]) s.addEventListener("change", newGame);
    loadingNote(note);
    root.dataset.state = "loading";
    status.textContent = "Loading…";
    whenReady().then(newGame, () => (status.textContent = "The board needs Python, which could not start."));
    root.mctsActions = () => (view ? view.actions : []);
    root.mctsGame = () => gameSel.value;
  }

  // -- step through MCTS ----------------------------------------------------------------------------
  function stepBoard(root) {
    const prefix = root.dataset.ids;
    const id = (name) => (prefix ? `${prefix}-${name}` : null);
    const name = `step${boardCount++}`;
    const gameSel = select(id("game"), GAMES, root.dataset.game || "tictactoe");
    const cInput = el("input", { id: id("c"), type: "number", step: "0.1", min: "0", value: "1.41", size: "4" });
    const one = el("button", { id: id("one"), type: "button", text: "One iteration" });
    const ten = el("button", { id: id("ten"), type: "button", text: "+10" });
    const hundred = el("button", { id: id("hundred"), type: "button", text: "+100" });
    const reset = el("button", { id: id("reset"), type: "button", text: "Start again" });
    const fromGame = el("button", { id: id("from-game"), type: "button", text: "Start from the game above" });
    const note = el("p", { class: "mp-note" });
    const info = el("p", { id: id("info"), class: "mp-status" });
    const phases = el("ol", { id: id("phases"), class: "mp-phases" });
    const tree = el("div", { id: id("tree"), class: "mp-tree" });
    const boardBox = el("div", { class: "mp-board-box" });
    const message = el("p", { class: "mp-message" });
    root.append(
      el("div", { class: "mp-row" }, el("label", {}, "Game ", gameSel), el("label", {}, " c = ", cInput), " ", reset, " ", fromGame),
      el("div", { class: "mp-row" }, one, " ", ten, " ", hundred),
      note,
      info,
      el("div", { class: "mp-main" }, boardBox, phases),
      tree,
      message,
    );
    let view = null;
    let moves = [];
    let busy = false;

    async function run(request) {
      if (busy) return;
      busy = true;
      root.dataset.busy = "true";
      message.textContent = "";
      try {
        view = await call({ board: name, ...request });
        render();
      } catch (error) {
        message.textContent = error.message;
      } finally {
        busy = false;
        root.dataset.busy = "false";
      }
    }

    function restart() {
      return run({ cmd: "step_new", game: gameSel.value, moves, c: Number(cInput.value), seed: 0 });
    }

    function render() {
      const toMove = view.players[view.to_move];
      info.textContent =
        `${view.iterations} iterations so far, ${view.nodes} nodes in the tree; ` +
        `the root is the position drawn here, ${toMove} to move.`;
      boardBox.replaceChildren(drawBoard({ ...view, legal: [], last: null }, {
        overlay: view.root_children.map((ch) => ({ ...ch, value: ch.visits })),
      }));
      phases.replaceChildren(...phaseItems(view));
      tree.replaceChildren(view.last ? treeSvg(view) : el("p", { class: "mp-muted", text: "Press “One iteration”: the tree grows by one node per iteration." }));
      root.dataset.state = "ready";
    }

    for (const [button, count] of [[one, 1], [ten, 10], [hundred, 100]]) {
      button.addEventListener("click", () => run({ cmd: "step", count }));
    }
    reset.addEventListener("click", () => {
      moves = [];
      restart();
    });
    gameSel.addEventListener("change", () => {
      moves = [];
      restart();
    });
    cInput.addEventListener("change", restart);
    fromGame.addEventListener("click", () => {
      const board = document.querySelector(".mcts-play");
      if (!board || !board.mctsActions) return;
      gameSel.value = board.mctsGame();
      moves = board.mctsActions();
      restart();
    });
    loadingNote(note);
    whenReady().then(restart, () => {});
  }

  function outcome(view, returns) {
    if (returns[0] === returns[1]) return "a draw";
    return `${view.players[returns[0] > returns[1] ? 0 : 1]} wins`;
  }

  function phaseItems(view) {
    const last = view.last;
    if (!last) {
      return [
        el("li", {}, el("b", {}, "Selection"), ": from the root, follow the child with the highest UCT value while every move of the node has a child."),
        el("li", {}, el("b", {}, "Expansion"), ": add one child for an untried move."),
        el("li", {}, el("b", {}, "Simulation"), ": play at random from the new node to the end of the game."),
        el("li", {}, el("b", {}, "Backpropagation"), ": every node on the path counts one visit and the reward of its player."),
      ];
    }
    const selected = last.levels.filter((level) => level.by === "uct").map((level) => {
      const chosen = level.children.find((ch) => ch.chosen);
      return `${chosen.move} (UCT ${fmt(chosen.uct, 3)})`;
    });
    const where = last.path.length ? last.path[last.path.length - 1] : "the root";
    let selection;
    if (last.expanded !== null) {
      const at = last.path.length > 1 ? last.path[last.path.length - 2] : "the root";
      selection = selected.length
        ? `UCT chose ${selected.join(", then ")}; ${at} still has untried moves, so selection stops there`
        : "the root still has untried moves, so selection stops at once";
    } else {
      selection = `UCT chose ${selected.join(", then ")}; the game is over at ${where}`;
    }
    const rewardText = view.players.map((p, i) => `${fmt(last.rewards[i], 1)} to ${p}`).join(", ");
    const updates = last.levels.map((level) => level.children.find((ch) => ch.chosen))
      .map((ch) => `${ch.move} ${fmt(ch.before[0], 1)}/${ch.before[1]} → ${fmt(ch.after[0], 1)}/${ch.after[1]}`);
    return [
      el("li", {}, el("b", {}, "Selection"), `: ${selection}.`),
      el("li", {}, el("b", {}, "Expansion"), last.expanded !== null ? `: added the node ${last.expanded} (a random untried move).` : ": no new node (the game is over there)."),
      el("li", {}, el("b", {}, "Simulation"), `: a random playout from ${where} ends in ${outcome(view, last.returns)}.`),
      el("li", {}, el("b", {}, "Backpropagation"), `: reward ${rewardText}; each node adds the reward of the player who moved into it: ${updates.join("; ")}, and the root one more visit.`),
    ];
  }

  const SVG = "http://www.w3.org/2000/svg";
  function svg(tag, attrs, text) {
    const node = document.createElementNS(SVG, tag);
    for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, String(v));
    if (text !== undefined) node.textContent = text;
    return node;
  }

  // The tree along the selected path: the root, then at each depth the children of the node
  // chosen above, with wins/visits after the iteration and the UCT value selection saw.
  function treeSvg(view) {
    const last = view.last;
    const W = 84, H = 58, GAPX = 8, GAPY = 46;
    const widest = Math.max(1, ...last.levels.map((l) => l.children.length));
    const width = Math.max(widest * (W + GAPX) + GAPX, 360);
    const height = (last.levels.length + 1) * (H + GAPY) + 24;
    const root = svg("svg", { width, height, viewBox: `0 0 ${width} ${height}`, class: "mp-svg", role: "img", "aria-label": "the MCTS tree along the selected path" });
    const centers = [];
    const rootX = width / 2;
    let parent = { x: rootX, y: 8 + H };
    const box = (x, y, lines, classes) => {
      const g = svg("g", { class: classes });
      g.append(svg("rect", { x: x - W / 2, y, width: W, height: H, rx: 6 }));
      lines.forEach((line, i) => g.append(svg("text", { x, y: y + 16 + i * 15, "text-anchor": "middle", class: i === 0 ? "mp-move" : "" }, line)));
      root.append(g);
    };
    // The root's wins belong to no move of the search (they count for the player before it).
    box(rootX, 8, ["root", `${view.root.visits} visits`, `${view.players[view.to_move]} to move`], "mp-node mp-on-path");
    last.levels.forEach((level, depth) => {
      const y = 8 + (depth + 1) * (H + GAPY);
      const n = level.children.length;
      const start = width / 2 - (n * (W + GAPX) - GAPX) / 2 + W / 2;
      let next = null;
      level.children.forEach((ch, i) => {
        const x = start + i * (W + GAPX);
        root.insertBefore(svg("line", { x1: parent.x, y1: parent.y, x2: x, y2: y, class: ch.chosen ? "mp-edge mp-on-path" : "mp-edge" }), root.firstChild);
        const classes = ["mp-node", `mp-player${ch.player}`];
        if (ch.chosen) classes.push("mp-on-path");
        if (ch.new) classes.push("mp-new");
        const third = ch.new ? "new node" : `UCT ${fmt(ch.uct, 2)}`;
        // On the path, backpropagation's update: wins/visits before → after the iteration.
        const stats = ch.chosen && !ch.new
          ? `${fmt(ch.before[0], 1)}/${ch.before[1]} → ${fmt(ch.after[0], 1)}/${ch.after[1]}`
          : `${fmt(ch.after[0], 1)}/${ch.after[1]}`;
        box(x, y, [ch.move, stats, third], classes.join(" "));
        if (ch.chosen) next = { x, y: y + H };
      });
      const label = level.by === "uct" ? "UCT picks the highest value" : `expansion (${level.untried} moves still untried)`;
      root.append(svg("text", { x: 4, y: y - 6, class: "mp-level" }, label));
      centers.push(next);
      parent = next || parent;
    });
    root.append(svg("text", { x: parent.x, y: parent.y + 16, "text-anchor": "middle", class: "mp-result" }, `playout: ${outcome(view, last.returns)}`));
    return root;
  }

  // What the play page adds to the built book, from the manifest written by `make book`.
  async function showSizes(node) {
    try {
      const manifest = await (await fetch(new URL("manifest.json", BASE))).json();
      const mb = (bytes) => `${(bytes / 1e6).toFixed(1)} MB`;
      const wheel = manifest.files[manifest.wheel];
      const own = ["play.js", "play.css", "worker.js", "boot.js"].reduce((sum, f) => sum + manifest.files[f], 0);
      node.textContent =
        `${mb(manifest.total_bytes)} in all: the Pyodide ${manifest.pyodide_version} core ` +
        `${mb(manifest.pyodide_bytes)}, the course wheel ${Math.round(wheel / 1e3)} kB and this ` +
        `page's scripts ${Math.round(own / 1e3)} kB`;
    } catch (error) {
      node.textContent = "(the sizes are read from manifest.json, which is missing)";
    }
  }

  function init() {
    document.querySelectorAll(".mcts-size").forEach(showSizes);
    const boards = document.querySelectorAll(".mcts-play, .mcts-step");
    if (!boards.length) return;
    startWorker();
    document.querySelectorAll(".mcts-play").forEach(gameBoard);
    document.querySelectorAll(".mcts-step").forEach(stepBoard);
  }

  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", init);
  else init();
})();
