# Two commands do all the set-up: `make test` and `make book`.
PYTHON ?= python3
VENV   ?= .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed

.PHONY: test test-slow lint bench clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip "setuptools>=77"

# The three homes, each its own distribution: the library (.), the book's laboratory (lab/) and
# the grader (grader/).  The tests need all three.
$(STAMP): pyproject.toml lab/pyproject.toml grader/pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet -e ".[test,dask]" -e ./lab -e ./grader
	touch $(STAMP)

# The tests run in TEST_JOBS processes (pytest-xdist), each test file whole in one of them (its
# module fixtures, a graded reference's, are built once): the suite is mostly one core's work
# (graders waiting on a sandbox), and one process took the CI's 2 cores past its time.  The
# files marked `alone` (tests/conftest.py) then run in one process.
TEST_JOBS ?= 2
XDIST := -n $(TEST_JOBS) --dist loadfile

# The explorer's browser test needs Debian's Chromium and npm (Pyodide's core), installed here.
test: lint
	command -v chromium >/dev/null || (apt-get update && apt-get install -y chromium)
	command -v npm >/dev/null || (apt-get update && apt-get install -y npm)
	$(BIN)/python -m pytest -q $(XDIST) -m "not slow and not alone"
	$(BIN)/python -m pytest -q -m "alone and not slow"

test-slow: $(STAMP)
	$(BIN)/python -m pytest -q -m slow $(XDIST)

# ruff (format and lint) over the whole tree, mypy (strict) over the library.
lint: $(STAMP)
	$(BIN)/ruff format --check .
	$(BIN)/ruff check .
	$(BIN)/mypy

bench: $(STAMP)
	$(BIN)/python -m pip install --quiet -e ".[bench]"
	$(BIN)/mcts-course bench

clean:
	rm -rf $(VENV) _build

# -- the book (Jupyter Book 1): `make book`, then `make check-book` ----------------------------
BOOK_STAMP := $(VENV)/.installed-book

.PHONY: book notebooks check-book play-assets mathjax-assets

$(BOOK_STAMP): pyproject.toml lab/pyproject.toml grader/pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet -e ".[book]" -e ./lab -e ./grader
	touch $(BOOK_STAMP)

# Write the chapters' Colab install cell (from _config.yml) and their .ipynb twins (jupytext).
notebooks: $(BOOK_STAMP)
	$(BIN)/python scripts/sync_notebooks.py

# The HTML book in _build/html, every chapter executed (cached in _build/.jupyter_cache).
# A Sphinx warning, a failing cell or anything a cell prints to stderr fails the build.
# JUPYTER_PREFER_ENV_PATH: run the chapters with this venv's kernel, whatever ~/.local has.
book: notebooks play-assets mathjax-assets
	MPLBACKEND=agg $(BIN)/python -c "import matplotlib.pyplot"  # font cache, outside the notebooks
	rm -rf _build/html/reports
	MCTS_COURSE_PROGRESS=0 JUPYTER_PREFER_ENV_PATH=1 $(BIN)/jupyter-book build . -W -n --keep-going \
	  || { $(MAKE) --no-print-directory book-failures; exit 1; }

# The end of each failed chapter's traceback (a claim's words, an error), last in the log, where a
# CI page that shows only the log's tail still shows it.
.PHONY: book-failures
book-failures:
	@for log in $$(find _build/html/reports -name '*.err.log' 2>/dev/null); do \
	  echo "== failed: $$log"; tail -n 3 "$$log"; done

# The play page's Python: Pyodide's core (npm, pinned version and SHA-256, cached in .cache/) and
# this package's wheel, into book/_static/play (copied into the book by Sphinx).
play-assets: $(BOOK_STAMP)
	command -v npm >/dev/null || (apt-get update && apt-get install -y npm)
	$(BIN)/python scripts/play_assets.py

# MathJax (npm, pinned version and SHA-256, cached in .cache/) into book/_static/mathjax: the book
# typesets its formulas offline, with no CDN (_config.yml's mathjax_path).
mathjax-assets: $(BOOK_STAMP)
	command -v npm >/dev/null || (apt-get update && apt-get install -y npm)
	$(BIN)/python scripts/mathjax_assets.py

# Read the built book in headless Chromium (Debian's package, installed here when missing).
check-book: $(BOOK_STAMP)
	command -v chromium >/dev/null || (apt-get update && apt-get install -y chromium)
	$(BIN)/python -m pip install --quiet -e ".[browser]"
	$(BIN)/python scripts/check_standard.py _build/html
	$(BIN)/python scripts/check_book.py _build/html --screenshots _build/screenshots
	$(BIN)/python scripts/check_widget_lab.py

# The Gradescope autograder (setup.sh, run_autograder, this package's wheel) in dist/.
# Hidden tests: make gradescope GRADESCOPE_TESTS=path/to/tests  (see mcts-course grade --help).
GRADESCOPE_TESTS ?=
.PHONY: gradescope
gradescope: $(STAMP)
	$(BIN)/python -m mcts_grader.gradescope dist/gradescope_autograder.zip \
		$(if $(GRADESCOPE_TESTS),--tests $(GRADESCOPE_TESTS))
