// The play page's Web Worker (a module worker: Pyodide refuses classic workers).  Pyodide runs
// the mcts_course wheel here, off the page's thread.  Everything comes from the book's own static
// files (this folder and the Pyodide core copied beside it); nothing from another host.
// Messages in: {id, request}, where request is JSON for mcts_course.webplay.handle.
// Messages out: {type: "ready", ms, version, phases} or {type: "failed", error} once, then for each
// request {id, answer, ms} or {id, error}.
"use strict";

const base = new URL("./", self.location.href);
const started = performance.now();

const phases = {}; // milliseconds since the worker started, for the page's measurements

const ready = (async () => {
  const manifest = await (await fetch(new URL("manifest.json", base))).json();
  const indexURL = new URL(manifest.pyodide_dir + "/", base).href;
  const { loadPyodide } = await import(indexURL + "pyodide.mjs");
  const pyodide = await loadPyodide({ indexURL });
  phases.python = performance.now() - started;
  const wheel = await (await fetch(new URL(manifest.wheel, base))).arrayBuffer();
  // Install the wheel without pip or micropip (neither is in the core): a wheel is a zip laid
  // out for site-packages, and the package needs nothing beyond the standard library here.
  const site = pyodide.runPython("import sysconfig; sysconfig.get_paths()['purelib']");
  pyodide.unpackArchive(wheel, "wheel", { extractDir: site });
  const handle = pyodide.pyimport("mcts_course.webplay").handle;
  phases.package = performance.now() - started;
  return { handle, version: pyodide.version };
})();

ready.then(
  ({ version }) =>
    self.postMessage({ type: "ready", ms: performance.now() - started, version, phases }),
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
