"""Run the import lines of every chapter's code cells, one chapter per process, in seconds.

A chapter fails to build when one of its imports names a module or function that moved; this
finds that without running the chapter (``make book`` takes twenty minutes).  Imports that
continue over several lines (in parentheses) are joined; ``from __future__`` lines go first.

Usage::

    python scripts/check_chapter_imports.py [book]

Prints one line per chapter and exits with the number of chapters whose imports fail.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

CELL = re.compile(r"```\{code-cell\}[^\n]*\n(.*?)```", re.S)
IMPORT = re.compile(r"\s*(from \S+ import |import )")


def import_lines(markdown: str) -> list[str]:
    """The import statements of the code cells of a MyST chapter, each on one line."""
    found = []
    for cell in CELL.findall(markdown):
        lines = iter(cell.splitlines())
        for line in lines:
            if IMPORT.match(line):
                statement = line.strip()
                while statement.count("(") > statement.count(")"):
                    statement += " " + next(lines).strip()
                found.append(statement)
    return sorted(found, key=lambda s: "__future__" not in s)  # a stable sort: order kept


def main(book: Path) -> int:
    failed = 0
    for chapter in sorted(book.glob("*.md")):
        statements = import_lines(chapter.read_text())
        run = subprocess.run(
            [sys.executable, "-c", "\n".join(statements)], capture_output=True, text=True
        )
        error = run.stderr.strip().splitlines()[-1] if run.returncode else ""
        failed += bool(run.returncode)
        print(f"{chapter.name}: {len(statements)} imports {'FAIL ' + error if error else 'ok'}")
    return failed


if __name__ == "__main__":
    sys.exit(main(Path(sys.argv[1] if len(sys.argv) > 1 else "book")))
