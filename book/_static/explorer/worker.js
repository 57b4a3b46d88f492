// The explorer's Web Worker (a module worker: Pyodide refuses classic workers).  It loads the same
// files as the play page's worker, from ../play/ (Pyodide's core and the mcts_course wheel that
// scripts/play_assets.py puts there), and answers requests with mcts_course.explorer.handle.
// Messages in: {id, request} (JSON text).  Out: {type: "ready", ms, version} or
// {type: "failed", error} once, then {id, answer, ms} or {id, error} for each request.
"use strict";

const assets = new URL("../play/", self.location.href);
const started = performance.now();

const ready = (async () => {
  const manifest = await (await fetch(new URL("manifest.json", assets))).json();
  const indexURL = new URL(manifest.pyodide_dir + "/", assets).href;
  const { loadPyodide } = await import(indexURL + "pyodide.mjs");
  const pyodide = await loadPyodide({ indexURL });
  const wheel = await (await fetch(new URL(manifest.wheel, assets))).arrayBuffer();
  // A wheel is a zip laid out for site-packages: unpacked there, no pip needed (as play's worker).
  const site = pyodide.runPython("import sysconfig; sysconfig.get_paths()['purelib']");
  pyodide.unpackArchive(wheel, "wheel", { extractDir: site });
  const handle = pyodide.pyimport("mcts_course.explorer").handle;
  return { handle, version: pyodide.version };
})();

ready.then(
  ({ version }) => self.postMessage({ type: "ready", ms: performance.now() - started, version }),
  (error) => self.postMessage({ type: "failed", error: String((error && error.stack) || error) }),
);

self.onmessage = async (event) => {
  const { id, request } = event.data;
  try {
    const { handle } = await ready;
    const t0 = performance.now();
    const answer = handle(request);
    self.postMessage({ id, answer, ms: performance.now() - t0 });
  } catch (error) {
    self.postMessage({ id, error: String((error && error.message) || error) });
  }
};
