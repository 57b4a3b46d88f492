// Pyodide in a Web Worker, for the book's pages that run the package (the play page's and the
// explorer's module workers import this; Pyodide refuses classic workers).  Everything comes from
// the book's own static files, this folder (manifest.json, the Pyodide core and the mcts_course
// wheel that scripts/play_assets.py puts here); nothing from another host.
// serve(module) answers each message {id, request} (JSON text) with module.handle(request):
// out once {type: "ready", ms, version, phases} or {type: "failed", error}, then for each request
// {id, answer, ms} or {id, error}.  phases: milliseconds since the worker started, for the pages'
// measurements (Python loaded, package installed).
export function serve(module) {
  const assets = new URL("./", import.meta.url);
  const started = performance.now();
  const phases = {};

  const ready = (async () => {
    const manifest = await (await fetch(new URL("manifest.json", assets))).json();
    const indexURL = new URL(manifest.pyodide_dir + "/", assets).href;
    const { loadPyodide } = await import(indexURL + "pyodide.mjs");
    const pyodide = await loadPyodide({ indexURL });
    phases.python = performance.now() - started;
    const wheel = await (await fetch(new URL(manifest.wheel, assets))).arrayBuffer();
    // Install the wheel without pip or micropip (neither is in the core): a wheel is a zip laid
    // out for site-packages, and the package needs nothing beyond the standard library here.
    const site = pyodide.runPython("import sysconfig; sysconfig.get_paths()['purelib']");
    pyodide.unpackArchive(wheel, "wheel", { extractDir: site });
    const handle = pyodide.pyimport(module).handle;
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
}
