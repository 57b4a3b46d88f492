// The explorer's Web Worker (a module worker): the play page's Pyodide boot (../play/boot.js,
// which loads Pyodide's core and the mcts_course wheel from ../play/), answering each request
// with mcts_course.explorer.handle.
import { serve } from "../play/boot.js";

serve("mcts_course.explorer");
