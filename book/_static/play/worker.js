// The play page's Web Worker (a module worker): Pyodide runs the mcts_course wheel here, off the
// page's thread, and answers each request with mcts_course.webplay.handle.  The boot and the
// messages are boot.js's, shared with the explorer's worker.
import { serve } from "./boot.js";

serve("mcts_course.webplay");
