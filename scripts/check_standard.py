"""The book's teaching standard, measured on the built HTML as a reader meets it.

- Every main chapter (1-15) shows a reader at most ``MAX_CODE_LINES`` non-empty lines of
  highlighted code (cell inputs and listings; outputs and plain text do not count).  The
  exercise pages and the appendices are exempt: students fill in code there, and the engine
  appendix is where engine code belongs.
- The book has at least ``MIN_ALGORITHMS`` numbered pseudocode blocks (elements of class
  ``algorithm`` or ``pseudocode``).
- Every main chapter's last section is headed "Exercises".
- The earlier course material is named on one page only: the instructors' appendix.

Usage::

    python scripts/check_standard.py [_build/html]

Prints one line per page and exits with status 1 when the book falls short of the standard.
"""

from __future__ import annotations

import argparse
import re
import sys
from dataclasses import dataclass, field
from html.parser import HTMLParser
from pathlib import Path

MAX_CODE_LINES = 60
MIN_ALGORITHMS = 12
MAIN_CHAPTER = re.compile(r"^(0[1-9]|1[0-5])_[a-z0-9_]+\.html$")
INSTRUCTOR_APPENDIX = "20_appendix.html"
EARLIER = re.compile(r"earlier (course|page|lecture)", re.I)
# Highlighted blocks that are not code a reader has to read: text outputs and ANSI streams.
NOT_CODE = {"highlight-text", "highlight-none", "highlight-myst-ansi", "highlight-default"}
SECTION_NUMBER = re.compile(r"^\d+(\.\d+)*\.?\s+")  # "4.5. Exercises" is headed "Exercises"
VOID = {"br", "img", "hr", "input", "meta", "link", "wbr", "source", "col", "area", "base"}


@dataclass
class Page:
    """What the standard looks at on one page."""

    code_lines: int = 0
    algorithms: int = 0
    headings: list[str] = field(default_factory=list)
    text: str = ""


class _Reader(HTMLParser):
    """Collects a page's code lines, algorithm blocks, section headings (h2) and text."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.page = Page()
        self.stack: list[str] = []
        self.code_depth: int | None = None  # depth of the highlighted <div> we are inside
        self.heading: list[str] | None = None
        self.code: list[str] = []
        self.words: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in VOID:
            return
        classes = set((dict(attrs).get("class") or "").split())
        self.stack.append(tag)
        if {"algorithm", "pseudocode"} & classes:
            self.page.algorithms += 1
        highlighted = {c for c in classes if c.startswith("highlight-")}
        if self.code_depth is None and highlighted and not highlighted & NOT_CODE:
            self.code_depth = len(self.stack)
        if tag == "h2":
            self.heading = []

    def handle_endtag(self, tag: str) -> None:
        if tag in VOID or not self.stack:
            return
        if self.code_depth is not None and len(self.stack) == self.code_depth:
            self.page.code_lines += sum(
                1 for line in "".join(self.code).splitlines() if line.strip()
            )
            self.code, self.code_depth = [], None
        if tag == "h2" and self.heading is not None:
            title = "".join(self.heading).strip().rstrip("#¶ ").strip()
            self.page.headings.append(SECTION_NUMBER.sub("", title))
            self.heading = None
        self.stack.pop()

    def handle_data(self, data: str) -> None:
        if self.code_depth is not None:
            self.code.append(data)
        if self.heading is not None:
            self.heading.append(data)
        self.words.append(data)


def read_page(html: str) -> Page:
    """The page as the standard sees it: only the article, not the navigation around it."""
    article = re.search(r"<article[^>]*>(.*)</article>", html, re.S)
    reader = _Reader()
    reader.feed(article.group(1) if article else html)
    reader.close()
    reader.page.text = " ".join(" ".join(reader.words).split())
    return reader.page


def problems(pages: dict[str, Page]) -> list[str]:
    """Every way the built book falls short of the standard, one line each."""
    found = []
    for name, page in sorted(pages.items()):
        if MAIN_CHAPTER.match(name):
            if page.code_lines > MAX_CODE_LINES:
                found.append(f"{name}: {page.code_lines} lines of code (at most {MAX_CODE_LINES})")
            if not page.headings or page.headings[-1] != "Exercises":
                last = page.headings[-1] if page.headings else "none"
                found.append(f"{name}: last section is {last!r}, not 'Exercises'")
        if name != INSTRUCTOR_APPENDIX and EARLIER.search(page.text):
            found.append(f"{name}: names the earlier course ({EARLIER.search(page.text)[0]!r})")
    algorithms = sum(page.algorithms for page in pages.values())
    if algorithms < MIN_ALGORITHMS:
        found.append(f"the book has {algorithms} pseudocode blocks (at least {MIN_ALGORITHMS})")
    return found


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("html", nargs="?", default="_build/html", type=Path)
    args = parser.parse_args(argv)
    files = sorted((args.html / "book").glob("*.html"))
    if not files:
        print(f"no pages in {args.html / 'book'}: build the book first (make book)")
        return 1
    pages = {path.name: read_page(path.read_text(encoding="utf-8")) for path in files}
    for name, page in pages.items():
        if MAIN_CHAPTER.match(name):
            print(f"{name}: {page.code_lines} code lines, {page.algorithms} algorithm blocks")
    print(f"pseudocode blocks in the book: {sum(p.algorithms for p in pages.values())}")
    found = problems(pages)
    for line in found:
        print("standard:", line)
    print("book standard: clean" if not found else f"book standard: {len(found)} problem(s)")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
