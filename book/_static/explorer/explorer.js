// The book's MCTS explorer: watch a seeded UCT run phase by phase, its tree, tables and charts.
//
// This script only draws.  The search is the mcts_course package's own MCTSAgent, run by Pyodide
// in a Web Worker (worker.js) from the book's static files; mcts_course/explorer.py records the
// run and answers every view.  The screen is a function of (game, position, c, threshold,
// playout, seed, iteration, phase, open nodes, depth, selected node), all kept in the URL's hash,
// so a link reproduces it.
//
// Page contract (for tests): select#explorer-game, input#explorer-count, button#explorer-run,
// button#explorer-step (one phase), #explorer-status ("iteration N"), tree nodes with data-node
// (dotted actions from the root, "" for the root), data-visits, data-wins; clicking a node fills
// table#explorer-table with one row per child.  The element .mcts-explorer carries
// data-state="loading" | "ready" | "failed" and data-busy="true" while a request runs.
(function () {
  "use strict";

  const BASE = new URL("./", document.currentScript.src);
  const GAMES = [
    ["tictactoe", "Tic-tac-toe"],
    ["connect4", "Connect Four"],
    ["othello", "Othello"],
  ];
  const PHASES = ["selection", "expansion", "simulation", "backpropagation"];
  const SVG = "http://www.w3.org/2000/svg";
  // Ten colours: a root move keeps its colour (by its action number) from iteration to iteration.
  const PALETTE = ["#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#17becf", "#bcbd22", "#7f7f7f"];
  const LIMIT = 20000; // the most iterations the page records (input#explorer-count's max)

  // -- the worker ------------------------------------------------------------------------------
  let worker = null;
  let nextId = 1;
  const waiting = new Map();
  let readyPromise = null;

  function start() {
    if (readyPromise) return readyPromise;
    readyPromise = new Promise((resolve, reject) => {
      if (location.protocol === "file:") {
        reject(new Error("this page must be served over HTTP (python -m http.server), not opened from a file"));
        return;
      }
      worker = new Worker(new URL("worker.js", BASE), { type: "module" });
      worker.onmessage = (event) => {
        const m = event.data;
        if (m.type === "ready") resolve(m);
        else if (m.type === "failed") reject(new Error(m.error));
        else {
          const p = waiting.get(m.id);
          waiting.delete(m.id);
          if (m.error) p.reject(new Error(m.error));
          else p.resolve({ answer: JSON.parse(m.answer), ms: m.ms });
        }
      };
      worker.onerror = (event) => reject(new Error(event.message || "the Web Worker could not start"));
    });
    return readyPromise;
  }

  async function call(args) {
    await start();
    const { answer, ms } = await new Promise((resolve, reject) => {
      const id = nextId++;
      waiting.set(id, { resolve, reject });
      worker.postMessage({ id, request: JSON.stringify(args) });
    });
    if (!answer.ok) throw new Error(answer.error);
    return { view: answer.view, ms };
  }
  window.mctsExplorer = { call, ready: start };

  // -- DOM helpers -----------------------------------------------------------------------------
  function el(tag, attrs, ...children) {
    const node = document.createElement(tag);
    setAttrs(node, attrs);
    for (const child of children.flat()) {
      if (child !== null && child !== undefined && child !== false) {
        node.append(child instanceof Node ? child : document.createTextNode(String(child)));
      }
    }
    return node;
  }
  function svg(tag, attrs, ...children) {
    const node = document.createElementNS(SVG, tag);
    setAttrs(node, attrs);
    for (const child of children.flat()) {
      if (child !== null && child !== undefined) {
        node.append(child instanceof Node ? child : document.createTextNode(String(child)));
      }
    }
    return node;
  }
  function setAttrs(node, attrs) {
    for (const [key, value] of Object.entries(attrs || {})) {
      if (value === null || value === undefined || value === false) continue;
      if (key === "text") node.textContent = value;
      else if (key.startsWith("on")) node.addEventListener(key.slice(2), value);
      else node.setAttribute(key, value === true ? "" : String(value));
    }
  }
  const EXACT = { "1": "win", "0": "draw", "-1": "loss" };
  // The names of the files (columns) and ranks (rows) the moves are named by, row 0 at the top.
  const LABELS = { tictactoe: ["abc", "123"], othello: ["abcdefgh", "12345678"], connect4: ["1234567", ""] };

  // -- the explorer ----------------------------------------------------------------------------
  function Explorer(root) {
    const S = {
      game: "tictactoe",
      moves: [],
      c: Math.SQRT2,
      threshold: 1,
      seed: 0,
      playout: "",
      iteration: 0,
      phase: 4,
      open: new Set(),
      depth: 1,
      selected: "",
    };
    let view = null;
    let fresh = true; // the next request starts a new run
    let notice = ""; // said once in the status after the next answer (a restart, a cap reached)
    let queue = Promise.resolve();
    // The tree is drawn at its natural size when labelled (scroll to see it all), else fitted to
    // the box; the buttons scale it, "fit" fits it, and dragging pans (the box scrolls).
    const zoom = { scale: 1, fit: false };

    // Controls.
    const game = el("select", { id: "explorer-game", "aria-label": "Game" }, GAMES.map(([v, t]) => el("option", { value: v }, t)));
    const preset = el("select", { id: "explorer-position", "aria-label": "Position" });
    const c = el("input", { id: "explorer-c", type: "number", step: "0.05", min: "0", value: "1.414", "aria-label": "Exploration constant c" });
    const threshold = el("select", { id: "explorer-threshold", "aria-label": "Expansion threshold" },
      [1, 2, 3, 5, 10, 20].map((t) => el("option", { value: t }, t)));
    const playout = el("select", { id: "explorer-playout", "aria-label": "Playout policy" },
      el("option", { value: "" }, "random, to the end"),
      el("option", { value: "10" }, "random, cut after 10 plies"),
      el("option", { value: "4" }, "random, cut after 4 plies"));
    const seed = el("input", { id: "explorer-seed", type: "number", min: "0", step: "1", value: "0", "aria-label": "Seed" });
    const restart = el("button", { id: "explorer-new", type: "button", onclick: () => newRun() }, "Start over");
    const back = el("button", { id: "explorer-back", type: "button", "aria-label": "Back one phase", title: "Back one phase (←)", onclick: () => stepBack() }, "◀ back");
    const step = el("button", { id: "explorer-step", type: "button", "aria-label": "Step one phase", title: "Step one phase (→)", onclick: () => stepPhase() }, "step one phase ▶");
    const one = el("button", { id: "explorer-iteration", type: "button", title: "One iteration (i)", onclick: () => runCount(1) }, "one iteration");
    const count = el("input", { id: "explorer-count", type: "number", min: "1", max: "20000", step: "1", value: "100", "aria-label": "Iterations to run" });
    const run = el("button", { id: "explorer-run", type: "button", title: "Run that many iterations (r)", onclick: () => runCount(Math.max(1, parseInt(count.value, 10) || 1)) }, "run");
    const quick = [10, 100, 1000].map((n) => el("button", { type: "button", "aria-label": `Run ${n} iterations`, onclick: () => runCount(n) }, `+${n}`));
    const slider = el("input", { id: "explorer-slider", type: "range", min: "0", max: "0", value: "0", step: "1", "aria-label": "Iteration shown (scrub through the recorded run)" });
    const depth = el("select", { id: "explorer-depth", "aria-label": "Tree depth drawn" },
      [["1", "root's children"], ["2", "2 levels"], ["3", "3 levels"], ["4", "4 levels"], ["99", "whole tree"]].map(([v, t]) => el("option", { value: v }, t)));
    const playNow = el("div", { id: "explorer-play-now", class: "mx-play-now" });
    const status = el("div", { id: "explorer-status", class: "mx-status", role: "status", "aria-live": "polite" }, "Loading Python in your browser…");
    const board = el("div", { class: "mx-board-wrap", id: "explorer-board" });
    const phasePanel = el("div", { id: "explorer-phase", class: "mx-phase", "aria-live": "polite" });
    const treeBox = el("div", { id: "explorer-tree", class: "mx-tree", tabindex: "-1" });
    const tableBox = el("div", { class: "mx-table-wrap" }, el("table", { id: "explorer-table", class: "mx-table" }));
    const bars = el("div", { id: "explorer-bars", class: "mx-bars" });
    const shares = el("div", { id: "explorer-shares", class: "mx-shares" });
    const link = el("a", { id: "explorer-link", href: "#" }, "link to this screen");
    const exportSvg = el("button", { id: "explorer-svg", type: "button", onclick: () => downloadSvg() }, "export tree as SVG");
    const zoomIn = el("button", { type: "button", "aria-label": "Zoom in", onclick: () => zoomBy(1.25) }, "+");
    const zoomOut = el("button", { type: "button", "aria-label": "Zoom out", onclick: () => zoomBy(0.8) }, "−");
    const zoomFit = el("button", { type: "button", "aria-label": "Fit the tree", onclick: () => { zoom.scale = 1; zoom.fit = true; applyZoom(); } }, "fit");
    const undo = el("button", { type: "button", onclick: () => { if (S.moves.length) { S.moves.pop(); newRun(); } } }, "undo a move");

    if (!root.hasAttribute("tabindex")) root.tabIndex = -1; // focus can stay in the explorer
    root.append(
      el("div", { class: "mx-row" },
        el("label", {}, "Game ", game), el("label", {}, " position ", preset), undo),
      el("div", { class: "mx-row" },
        el("label", {}, "c ", c), el("label", {}, " expansion threshold ", threshold),
        el("label", {}, " playout ", playout), el("label", {}, " seed ", seed), restart),
      el("div", { class: "mx-row" }, back, step, one, el("label", {}, " iterations ", count), run, quick),
      el("div", { class: "mx-row" }, el("label", { class: "mx-slider" }, "iteration ", slider)),
      status,
      playNow,
      el("div", { class: "mx-main" },
        el("div", { class: "mx-left" }, board, phasePanel),
        el("div", { class: "mx-right" },
          el("div", { class: "mx-row" }, el("label", {}, "draw ", depth), zoomIn, zoomOut, zoomFit, exportSvg, link),
          treeBox,
          el("p", { class: "mx-note mx-key-legend" },
            "Under a node: wins/visits (wins of the player who made its move; at the root, the wins of the player who moved last, ",
            "i.e. not the player to move: the root's w counts the opponent's results). +k: k children folded (click to open). ",
            "Orange: this iteration's path; green ring: the node it added (✚ in the table); dashed edge: the child selection takes next. ",
            "Table: dark shade = the next child, light shade = on this iteration's path; kids \"3 of 8\" = 3 of the 8 legal moves tried, ",
            "\"leaf (2/3)\" = 2 visits of the 3 the expansion threshold asks before it grows."))),
      el("div", { class: "mx-main" }, tableBox,
        el("div", { class: "mx-charts" }, bars, shares)),
      el("p", { class: "mx-note" },
        "Keys, wherever the focus is in the explorer (except inside a number box, list or the slider, which use the arrows themselves): → or . one phase, ← or , back, i one iteration, r run. " +
          "Click a node (or focus it with Tab and press Enter) to list its children; click it again to fold it."),
    );

    const controls = [game, preset, c, threshold, playout, seed, restart, back, step, one, count, run, ...quick, slider, depth, undo];
    // Disabling the focused control while a request runs sends the focus to the page's body, so
    // the next key press would leave the explorer: remember what had the focus (a control, or a
    // tree node by its data-node, since the tree is redrawn) and give it back afterwards.
    let refocus = null;
    function busy(on) {
      root.dataset.busy = on ? "true" : "false";
      if (on) {
        const active = document.activeElement;
        if (active && active !== document.body && root.contains(active)) {
          const node = active.closest && active.closest(".mx-node");
          refocus = node ? { node: node.dataset.node } : { element: active };
        }
      }
      for (const control of controls) control.disabled = on;
      if (!on && refocus) {
        const target = refocus.node !== undefined
          ? treeBox.querySelector(`.mx-node[data-node="${CSS.escape(refocus.node)}"]`)
          : refocus.element.isConnected ? refocus.element : null;
        refocus = null;
        if (target) target.focus({ preventScroll: true });
        else root.focus({ preventScroll: true });
      }
    }

    game.addEventListener("change", () => { S.game = game.value; S.moves = []; S.selected = ""; S.open.clear(); newRun(); });
    preset.addEventListener("change", () => {
      const p = (view && view.presets[preset.value]) || null;
      if (!p) return;
      S.moves = p.moves.slice();
      notice = "New run: the position changed, so the search starts again from iteration 0.";
      if (p.threshold) threshold.value = String(p.threshold);
      if (p.seed !== undefined) seed.value = String(p.seed);
      newRun();
    });
    for (const [input, name] of [[c, "c"], [threshold, "the expansion threshold"], [playout, "the playout"], [seed, "the seed"]]) {
      input.addEventListener("change", () => {
        if (input === c && !(parseFloat(c.value) >= 0)) {
          status.textContent = `c must be a number ≥ 0 (got "${c.value}"): the run is unchanged, c stays ${+S.c.toFixed(4)}.`;
          status.classList.add("mx-error");
          c.value = String(+S.c.toFixed(4));
          return;
        }
        notice = `New run: ${name} changed, so the search starts again from iteration 0.`;
        newRun();
      });
    }
    slider.addEventListener("input", () => go(parseInt(slider.value, 10), 4));
    depth.addEventListener("change", () => { S.depth = parseInt(depth.value, 10); refresh(); });
    root.addEventListener("keydown", (event) => {
      // Keys work wherever the focus is in the explorer, except in a box that uses them itself
      // (a number box's or a list's arrows, the slider's arrows).
      const tag = (event.target.tagName || "").toLowerCase();
      if (["input", "select", "textarea"].includes(tag) || event.ctrlKey || event.metaKey || event.altKey) return;
      const actions = { ArrowRight: stepPhase, ".": stepPhase, ArrowLeft: stepBack, ",": stepBack, i: () => runCount(1), r: () => run.click() };
      if (actions[event.key] && root.dataset.busy !== "true") {
        event.preventDefault();
        event.stopPropagation(); // not the theme's previous/next page keys
        actions[event.key]();
      }
    });

    // c is shown and linked with 4 decimals: 1.4142 means √2 itself (the package's default), so
    // that a run started from the box or a link is the run MCTSAgent(c=math.sqrt(2)) makes.
    const sqrt2 = (x) => (!Number.isFinite(x) || Math.abs(x - Math.SQRT2) < 5e-5 ? Math.SQRT2 : x);
    function readSettings() {
      S.c = sqrt2(Math.max(0, parseFloat(c.value)));
      S.threshold = parseInt(threshold.value, 10) || 1;
      S.seed = Math.max(0, parseInt(seed.value, 10) || 0);
      S.playout = playout.value;
    }
    function writeSettings() {
      game.value = S.game;
      c.value = String(+S.c.toFixed(4));
      threshold.value = String(S.threshold);
      if (threshold.value !== String(S.threshold)) threshold.append(el("option", { value: S.threshold }, S.threshold)), (threshold.value = String(S.threshold));
      seed.value = String(S.seed);
      playout.value = S.playout;
      depth.value = String(S.depth);
    }

    function newRun() {
      readSettings();
      S.iteration = 0;
      S.phase = 4;
      S.open.clear();
      S.selected = "";
      fresh = true;
      refresh();
    }
    function go(iteration, phase) {
      S.iteration = Math.max(0, iteration);
      S.phase = S.iteration === 0 ? 4 : phase;
      refresh();
    }
    function stepPhase() {
      if (S.phase === 4 && S.iteration >= LIMIT) { notice = `The page records at most ${LIMIT.toLocaleString("en")} iterations.`; go(S.iteration, 4); return; }
      if (S.phase === 4) go(S.iteration + 1, 1);
      else go(S.iteration, S.phase + 1);
    }
    function stepBack() {
      if (S.iteration === 0) return;
      if (S.phase === 1) go(S.iteration - 1, 4);
      else go(S.iteration, S.phase - 1);
    }
    function runCount(n) {
      const done = S.phase === 4 ? S.iteration : S.iteration - 1;
      if (done + n > LIMIT) notice = `The page records at most ${LIMIT.toLocaleString("en")} iterations: it stopped there.`;
      go(Math.min(LIMIT, done + n), 4);
    }

    // Requests run one after another; each answers the whole screen.
    function refresh() {
      const args = {
        cmd: fresh ? "new" : "view",
        id: root.id || "main",
        game: S.game,
        moves: S.moves,
        c: S.c,
        threshold: S.threshold,
        seed: S.seed,
        playout_depth: S.playout === "" ? null : parseInt(S.playout, 10),
        iteration: S.iteration,
        phase: S.phase,
        open: [...S.open],
        depth: S.depth,
        selected: S.selected,
      };
      fresh = false;
      busy(true);
      queue = queue.then(async () => {
        try {
          const { view: answer, ms } = await call(args);
          view = answer;
          S.iteration = view.iteration;
          S.phase = view.phase;
          S.selected = view.selected;
          render(ms);
          root.dataset.state = "ready";
        } catch (error) {
          status.textContent = `Error: ${error.message}`;
          status.classList.add("mx-error");
          root.dataset.state = root.dataset.state === "ready" ? "ready" : "failed";
        } finally {
          busy(false);
        }
      });
      return queue;
    }

    // -- rendering ------------------------------------------------------------------------------
    function render(ms) {
      const t0 = performance.now();
      status.classList.remove("mx-error");
      const phaseText = view.iteration === 0 ? "before the first iteration" : view.phase === 4 ? "done" : `phase ${view.phase} of 4: ${PHASES[view.phase - 1]}`;
      const root0 = view.nodes[0];
      status.textContent = `iteration ${view.iteration} (${phaseText}) · ${view.to_move} to move · root visits ${root0.visits} · ` +
        `${view.recorded} recorded · answered in ${Math.round(ms)} ms`;
      if (notice) status.append(el("div", { class: "mx-notice" }, notice));
      notice = "";
      const kids = view.nodes.filter((n) => n.parent === "");
      const most = kids.reduce((a, b) => (b.visits > a.visits ? b : a), { visits: 0 });
      playNow.textContent = most.visits
        ? `MCTS would play ${most.move} now (the root's most visited move: ${most.visits} of ${root0.visits} visits).`
        : "MCTS would play: nothing yet (no iteration has visited a move).";
      slider.max = String(Math.max(view.recorded, view.iteration));
      slider.value = String(view.phase === 4 ? view.iteration : view.iteration - 1);
      renderPresets();
      writeSettings();
      renderBoard();
      renderPhase();
      renderTree();
      renderTable();
      renderBars();
      renderShares();
      const hash = toHash();
      link.href = location.href.split("#")[0] + "#" + hash;
      if (location.hash.slice(1) !== hash) history.replaceState(null, "", "#" + hash);
      // For the benchmark: Python's time for the answer, and the time to draw it here.
      root.dataset.pythonMs = ms.toFixed(1);
      root.dataset.drawMs = (performance.now() - t0).toFixed(1);
    }

    function renderPresets() {
      preset.replaceChildren();
      const current = JSON.stringify(view.moves);
      let matched = false;
      view.presets.forEach((p, i) => {
        const same = JSON.stringify(p.moves) === current;
        matched = matched || same;
        preset.append(el("option", { value: i, selected: same }, p.name));
      });
      if (!matched) preset.append(el("option", { value: "", selected: true }, "set up by clicking: " + (view.move_names.join(" ") || "start")));
    }

    function boardGrid(position, { clickable, marks, end } = {}) {
      const cells = end || position.cells;
      const legal = new Map((clickable ? position.legal : []).filter((m) => m.cell).map((m) => [m.cell.join(","), m]));
      const order = new Map((marks || []).map((cell, i) => [cell ? cell.join(",") : "", i + 1]));
      const grid = el("div", { class: `mx-board mx-${view.game}`, role: "grid", style: `grid-template-columns: repeat(${position.cols}, var(--mx-cell))` });
      for (let r = 0; r < position.rows; r++) {
        for (let col = 0; col < position.cols; col++) {
          const v = cells[r * position.cols + col];
          const key = `${r},${col}`;
          const m = legal.get(key);
          const label = order.get(key);
          const cls = `mx-cell mx-p${v}` + (m ? " mx-legal" : "") + (label ? " mx-played" : "");
          const content = [el("span", { class: "mx-piece" }), label ? el("span", { class: "mx-num" }, label) : null];
          grid.append(m
            ? el("button", { type: "button", class: cls, "data-action": m.action, "aria-label": `set up: play ${m.move}`, onclick: () => { S.moves.push(m.action); newRun(); } }, content)
            : el("div", { class: cls, role: "gridcell" }, content));
        }
      }
      const [files, ranks] = LABELS[view.game] || ["", ""];
      if (!files) return grid;
      // Labelled like the move names (a-c and 1-3 for tic-tac-toe), so "b2" can be found.
      const cell = "var(--mx-cell)";
      const top = el("div", { class: "mx-files", "aria-hidden": "true", style: `grid-template-columns: ${ranks ? "1.1em " : ""}repeat(${position.cols}, ${cell})` },
        ranks ? el("span", {}) : null, [...files.slice(0, position.cols)].map((f) => el("span", {}, f)));
      const side = ranks ? el("div", { class: "mx-ranks", "aria-hidden": "true", style: `grid-template-rows: repeat(${position.rows}, ${cell})` },
        [...ranks.slice(0, position.rows)].map((r) => el("span", {}, r))) : null;
      return el("div", { class: "mx-labelled" }, top, el("div", { class: "mx-board-row" }, side, grid));
    }

    function renderBoard() {
      const moves = view.move_names.length ? view.move_names.join(" ") : "(start)";
      board.replaceChildren(
        el("div", { class: "mx-caption" }, `Position searched (${view.to_move} to move): ${moves}. Click a dot to play a move and search from there.`),
        boardGrid(view.position, { clickable: true }),
      );
      if (view.position.legal.some((m) => !m.cell)) {
        const pass = view.position.legal.find((m) => !m.cell);
        board.append(el("button", { type: "button", "data-action": pass.action, onclick: () => { S.moves.push(pass.action); newRun(); } }, "pass"));
      }
    }

    function renderPhase() {
      const st = view.step;
      phasePanel.replaceChildren();
      if (!st) {
        phasePanel.append(el("p", {}, "Step one phase, or run iterations: the tree starts as the root alone."));
        return;
      }
      const path = ["root", ...st.path_names].join(" → ");
      const list = el("ol", { class: "mx-phases" });
      list.append(el("li", { class: view.phase === 1 ? "mx-now" : "" },
        el("b", {}, "Selection: "), path,
        " (at each fully expanded node, the child with the highest UCB value; it stops at a node with untried moves, a leaf, or the end of the game)."));
      if (view.phase >= 2) {
        list.append(el("li", { class: view.phase === 2 ? "mx-now" : "" }, el("b", {}, "Expansion: "),
          st.expanded !== null && st.expanded !== undefined
            ? `added ${st.expanded_name} below ${st.path_names.length ? st.path_names[st.path_names.length - 1] : "the root"} (a new node, no visit yet)`
            : "no node added (a leaf below the expansion threshold, or the game is over)"));
      }
      if (view.phase >= 3) {
        const moves = st.playout === null ? "random playout (moves not available)"
          : st.playout.length ? `random playout ${st.playout.map((m, i) => `${i + 1}. ${st.playout_by ? st.playout_by[i] + " " : ""}${m}`).join(" ")}`
          : "no playout: the game is already over at this node, so its result is scored as it stands";
        list.append(el("li", { class: view.phase === 3 ? "mx-now" : "" }, el("b", {}, "Simulation: "), `${moves}; ${st.result}.`,
          el("div", { class: "mx-playout" }, boardGrid(st.playout_board, { marks: st.playout_board.playout || [], end: st.playout_board.end }))));
      }
      if (view.phase >= 4) {
        list.append(el("li", { class: "mx-now" }, el("b", {}, "Backpropagation: "),
          st.backup.map((b) => `${b.move} +${b.reward}`).join(", "),
          " (each node adds 1 / ½ / 0 for a win, draw, loss of the player who made its move)."));
      }
      phasePanel.append(el("div", { class: "mx-caption" }, `Iteration ${st.number}`), list);
    }

    // The tree is drawn by Python (mcts_course/explorer_draw.py, the same code as the Jupyter
    // widget's and the exported picture's): here it is inserted and wired to clicks and keys.
    function renderTree() {
      treeBox.innerHTML = view.tree_svg;
      treeBox.dataset.nodes = String(view.nodes.length);
      applyZoom();
      enablePan(treeBox.querySelector("svg"));
    }
    treeBox.addEventListener("click", (event) => {
      const node = event.target.closest && event.target.closest(".mx-node");
      if (node) clickNode(node.dataset.node);
    });
    treeBox.addEventListener("keydown", (event) => {
      const node = event.target.closest && event.target.closest(".mx-node");
      if (node && (event.key === "Enter" || event.key === " ")) { event.preventDefault(); clickNode(node.dataset.node); }
    });

    function clickNode(key) {
      if (S.selected === key && key !== "" && S.open.has(key)) S.open.delete(key);
      else if (key !== "") S.open.add(key);
      S.selected = key;
      refresh();
    }

    function applyZoom(centre = true) {
      const tree = treeBox.querySelector("svg");
      if (!tree) return;
      const w = +tree.dataset.width, h = +tree.dataset.height;
      const box = treeBox.clientWidth || 600;
      const base = zoom.fit || tree.dataset.labels !== "true" ? Math.min(w, box) : w;
      const shown = Math.max(120, base * zoom.scale);
      tree.setAttribute("width", shown.toFixed(0));
      tree.setAttribute("height", ((h * shown) / w).toFixed(0));
      // Keep the node of interest (the new node, the path's end, or the selection) in view.
      if (centre) treeBox.scrollLeft = Math.max(0, (+tree.dataset.focus * shown) / w - box / 2);
    }
    function zoomBy(f) {
      const tree = treeBox.querySelector("svg");
      if (!tree) return;
      const before = treeBox.scrollLeft + treeBox.clientWidth / 2;
      const old = tree.getBoundingClientRect().width;
      zoom.scale = Math.max(0.1, Math.min(20, zoom.scale * f));
      applyZoom(false);
      const now = tree.getBoundingClientRect().width;
      treeBox.scrollLeft = Math.max(0, (before * now) / old - treeBox.clientWidth / 2);
    }
    function enablePan(tree) {
      let drag = null;
      tree.addEventListener("wheel", (event) => {
        if (!event.ctrlKey) return; // plain scrolling scrolls the page
        event.preventDefault();
        zoomBy(event.deltaY < 0 ? 1.2 : 1 / 1.2);
      }, { passive: false });
      tree.addEventListener("pointerdown", (event) => {
        if (event.pointerType !== "mouse" || event.target.closest(".mx-node")) return; // touch scrolls natively
        drag = { x: event.clientX, y: event.clientY, left: treeBox.scrollLeft, top: treeBox.scrollTop };
        tree.setPointerCapture(event.pointerId);
      });
      tree.addEventListener("pointermove", (event) => {
        if (!drag) return;
        treeBox.scrollLeft = drag.left - (event.clientX - drag.x);
        treeBox.scrollTop = drag.top - (event.clientY - drag.y);
      });
      tree.addEventListener("pointerup", () => (drag = null));
    }

    // The table too is Python's (the step-by-step chapter prints the same tables).
    function renderTable() {
      tableBox.innerHTML = '<div class="mx-scroll-hint">The table scrolls sideways: swipe it for UCB, next and the rest →</div>' + view.table_html;
      tableBox.querySelector("table").id = "explorer-table";
    }

    function renderBars() {
      const rows = view.nodes.filter((n) => n.parent === "");
      const total = Math.max(1, view.nodes[0].visits);
      const exact = view.exact ? new Map(view.exact.map((r) => [r.node, r.value])) : null;
      const best = exact ? Math.max(...exact.values()) : null;
      bars.replaceChildren(el("div", { class: "mx-caption" }, "Root's visits by move" + (exact ? " (★: best by exact minimax)" : "")));
      for (const r of rows) {
        const share = r.visits / total;
        const ex = exact && exact.has(r.node) ? exact.get(r.node) : null;
        bars.append(el("div", { class: "mx-bar-row", "aria-label": `${r.move}: ${r.visits} visits, ${(100 * share).toFixed(0)}%` + (ex !== null ? `, exact ${EXACT[String(ex)]}` : "") },
          el("span", { class: "mx-bar-name" }, (ex !== null && ex === best ? "★ " : "") + r.move),
          el("span", { class: "mx-bar" }, el("span", { class: "mx-bar-fill", style: `width: ${(100 * share).toFixed(1)}%` })),
          el("span", { class: "mx-bar-value" }, `${r.visits} (${(100 * share).toFixed(0)}%)` + (ex !== null ? ` · ${EXACT[String(ex)]}` : ""))));
      }
    }

    function renderShares() {
      const data = view.shares;
      shares.replaceChildren(el("div", { class: "mx-caption" }, "Each root move's share of the visits, over the iterations"));
      if (data.points.length < 2) {
        shares.append(el("p", { class: "mx-note" }, "The chart draws a line from two iterations on: run a few iterations."));
        if (!data.points.length) return;
      }
      const W = 420, H = 180, L = 34, B = 22;
      const last = data.points[data.points.length - 1].iteration;
      const X = (i) => L + ((W - L - 8) * i) / Math.max(1, last);
      const Y = (s) => 6 + (H - B - 6) * (1 - s);
      const chart = svg("svg", { viewBox: `0 0 ${W} ${H}`, width: "100%", role: "img", class: "mx-share-svg",
        "aria-label": "Visit share of each root move over the iterations: " + data.moves.map((m, i) => `${m.move} ${(100 * data.points[data.points.length - 1].shares[i]).toFixed(0)}%`).join(", ") });
      chart.append(svg("line", { x1: L, y1: Y(0), x2: W - 8, y2: Y(0), stroke: "#999" }), svg("line", { x1: L, y1: Y(0), x2: L, y2: Y(1), stroke: "#999" }));
      for (const s of [0, 0.5, 1]) chart.append(svg("text", { x: L - 4, y: Y(s) + 4, "text-anchor": "end", "font-size": 10, fill: "currentColor" }, `${s * 100}%`));
      for (const t of [0, 0.25, 0.5, 0.75, 1]) {
        const it = Math.round(t * last);
        chart.append(svg("line", { x1: X(it), y1: Y(0), x2: X(it), y2: Y(0) + 4, stroke: "#999" }),
          svg("text", { x: X(it), y: H - 6, "text-anchor": t === 1 ? "end" : t === 0 ? "start" : "middle", "font-size": 10, fill: "currentColor" }, t === 1 ? `iteration ${it}` : String(it)));
      }
      const legend = el("div", { class: "mx-legend" });
      const exact = view.exact ? new Map(view.exact.map((r) => [r.node, r.value])) : null;
      data.moves.forEach((m, i) => {
        const colour = PALETTE[m.action % PALETTE.length];
        const pts = data.points.map((p) => `${X(p.iteration).toFixed(1)},${Y(p.shares[i]).toFixed(1)}`).join(" ");
        chart.append(svg("polyline", { points: pts, fill: "none", stroke: colour, "stroke-width": 2, "data-move": m.move }));
        const ex = exact && exact.has(m.node) ? ` (${EXACT[String(exact.get(m.node))]})` : "";
        legend.append(el("span", { class: "mx-key" }, el("span", { class: "mx-swatch", style: `background:${colour}` }), m.move + ex));
      });
      shares.append(chart, legend);
    }

    function downloadSvg() {
      const tree = treeBox.querySelector("svg");
      if (!tree) return;
      const copy = tree.cloneNode(true);
      copy.setAttribute("viewBox", `0 0 ${tree.dataset.width} ${tree.dataset.height}`);
      copy.setAttribute("width", tree.dataset.width);
      copy.setAttribute("height", tree.dataset.height);
      copy.setAttribute("font-family", "sans-serif");
      const text = new XMLSerializer().serializeToString(copy);
      const url = URL.createObjectURL(new Blob([text], { type: "image/svg+xml" }));
      const a = el("a", { href: url, download: `mcts-${view.game}-iteration-${view.iteration}.svg` });
      document.body.append(a);
      a.click();
      a.remove();
      setTimeout(() => URL.revokeObjectURL(url), 1000);
    }
    root.mctsSvg = () => new XMLSerializer().serializeToString(treeBox.querySelector("svg"));

    // -- the link --------------------------------------------------------------------------------
    function toHash() {
      const p = new URLSearchParams();
      p.set("game", S.game);
      p.set("moves", S.moves.join("."));
      p.set("c", String(+S.c.toFixed(4)));
      p.set("t", String(S.threshold));
      p.set("playout", S.playout);
      p.set("seed", String(S.seed));
      p.set("it", String(S.iteration));
      p.set("phase", String(S.phase));
      p.set("depth", String(S.depth));
      p.set("sel", S.selected);
      p.set("open", [...S.open].join("~"));
      return p.toString();
    }
    function fromHash(hash) {
      const p = new URLSearchParams(hash.replace(/^#/, ""));
      if (!p.has("game")) return false;
      S.game = GAMES.some(([g]) => g === p.get("game")) ? p.get("game") : "tictactoe";
      S.moves = (p.get("moves") || "").split(".").filter((x) => x !== "").map(Number);
      S.c = sqrt2(parseFloat(p.get("c")));
      S.threshold = parseInt(p.get("t"), 10) || 1;
      S.playout = p.get("playout") || "";
      S.seed = parseInt(p.get("seed"), 10) || 0;
      S.iteration = parseInt(p.get("it"), 10) || 0;
      S.phase = parseInt(p.get("phase"), 10) || 4;
      S.depth = parseInt(p.get("depth"), 10) || 1;
      S.selected = p.get("sel") || "";
      S.open = new Set((p.get("open") || "").split("~").filter((x) => x !== ""));
      return true;
    }

    // -- start ------------------------------------------------------------------------------------
    root.dataset.state = "loading";
    busy(true);
    const linked = fromHash(location.hash);
    writeSettings();
    // Opened from a link: the reader came for the explorer, not the page's introduction, so
    // scroll to it (now, and again once the first screen is drawn and the page has its height).
    if (linked) root.scrollIntoView({ block: "start" });
    start().then(
      () => { fresh = true; refresh().then(() => { if (linked) root.scrollIntoView({ block: "start" }); }); },
      (error) => {
        status.textContent = `The explorer could not start: ${error.message}`;
        status.classList.add("mx-error");
        root.dataset.state = "failed";
      },
    );
    return { linked };
  }

  function init() {
    document.querySelectorAll(".mcts-explorer").forEach((root) => {
      if (!root.dataset.started) {
        root.dataset.started = "true";
        Explorer(root);
      }
    });
  }
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", init);
  else init();
})();
