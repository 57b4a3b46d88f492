"""Keep the chapters' Colab install cell and their .ipynb twins in step with the .md sources.

The chapters are MyST Markdown notebooks (``book/NN_name.md``, jupytext ``md:myst``).  Google
Colab opens only real notebooks, so every chapter has a generated twin ``book/NN_name.ipynb``
(without outputs) that the book's Colab button points at.  This script

1. writes the first code cell of every chapter: it installs the course package from the
   repository named in ``_config.yml`` (``repository.url`` and ``repository.branch``) when the
   notebook runs in Colab, and does nothing anywhere else;
2. regenerates the ``.ipynb`` twin with jupytext, with deterministic cell ids so that an
   unchanged chapter gives a byte-identical notebook;
3. checks that every other GitHub address in the project's text (README, chapters, packages,
   configuration) is that same repository, or a third-party one the book cites
   (:data:`THIRD_PARTY`): prose that names the repository (``git clone ...``) cannot be
   generated, so a fork that changes ``_config.yml`` is told where else to write it.

Usage: ``python scripts/sync_notebooks.py`` (what ``make notebooks`` runs) or ``--check``, which
changes nothing and exits with status 1 when a file is out of date.
"""

from __future__ import annotations

import argparse
import hashlib
import re
import sys
from pathlib import Path

import jupytext
import yaml

ROOT = Path(__file__).resolve().parent.parent
BOOK = ROOT / "book"
MARKER = "# Colab only: install the course package"

# The first ```{code-cell} block of a MyST notebook, fence to fence.
CODE_CELL = re.compile(r"^```\{code-cell\}[^\n]*\n.*?^```[ \t]*\n", re.MULTILINE | re.DOTALL)


def repository(config_path: Path = ROOT / "_config.yml") -> tuple[str, str]:
    """(url, branch) of the repository, read from the book's ``_config.yml``."""
    config = yaml.safe_load(config_path.read_text(encoding="utf-8"))
    repo = config["repository"]
    return repo["url"].rstrip("/"), repo.get("branch") or "main"


# Repositories the book cites that are not the course's; any other GitHub address must be the
# one of _config.yml.
THIRD_PARTY = ("google-deepmind/open_spiel",)
ADDRESS = re.compile(r"github\.com[/:]([\w.-]+/[\w.-]+)")
SCANNED = (
    "README.md",
    "CONTRIBUTING.md",
    "CHANGELOG.md",
    "_config.yml",
    "pyproject.toml",
    "*/pyproject.toml",
    "book/*.md",
    "book/*.ipynb",
    "book/engine/*.md",
    "book/engine/*.ipynb",
    "mcts_course/**/*.py",
    "lab/**/*.py",
    "grader/**/*.py",
    "exercises/*.py",
    "scripts/*.py",
)


def owner_name(url: str) -> str:
    """``owner/name`` of a GitHub address (https or ssh, with ``.git`` or without)."""
    match = ADDRESS.search(url)
    if match is None:
        raise ValueError(f"not a GitHub address: {url}")
    return match.group(1).rstrip(".").removesuffix(".git")


def repository_mentions(root: Path = ROOT) -> list[tuple[Path, int, str]]:
    """Every GitHub repository named in the project's text: ``(file, line, owner/name)``."""
    found = []
    files = sorted({p for pattern in SCANNED for p in root.glob(pattern) if p.is_file()})
    for path in files:
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            found += [(path, number, owner_name(m.group(0))) for m in ADDRESS.finditer(line)]
    return found


def stray_addresses(url: str, root: Path = ROOT) -> list[str]:
    """``file:line: owner/name`` of each GitHub address that is neither the configured
    repository (``url``) nor a third-party one."""
    own = owner_name(url)
    return [
        f"{path.relative_to(root)}:{number}: {name}"
        for path, number, name in repository_mentions(root)
        if name != own and name not in THIRD_PARTY
    ]


def install_cell_code(url: str, branch: str) -> str:
    """The Python code of the install cell (a no-op outside Colab)."""
    return (
        f"{MARKER} (generated from _config.yml by `make notebooks`).\n"
        "import sys\n"
        "\n"
        'if "google.colab" in sys.modules:\n'
        "    import subprocess\n"
        "\n"
        f'    source = "git+{url}@{branch}"\n'
        "    # the library with what the chapters use, and the book's laboratory (lab/)\n"
        '    packages = [f"mcts-course[notebook,check] @ {source}",\n'
        '                f"mcts-course-lab @ {source}#subdirectory=lab"]\n'
        '    subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", *packages],\n'
        "                   check=True)"
    )


def install_cell_block(url: str, branch: str) -> str:
    """The install cell as a MyST code-cell block, hidden from the HTML book."""
    code = install_cell_code(url, branch)
    return f"```{{code-cell}} ipython3\n:tags: [remove-cell]\n\n{code}\n```\n"


def is_notebook_source(path: Path) -> bool:
    """True for a MyST Markdown notebook (a jupytext header naming the myst format)."""
    head = path.read_text(encoding="utf-8")[:1000]
    return head.startswith("---") and "format_name: myst" in head


def chapter_sources(book: Path = BOOK) -> list[Path]:
    """The chapters that are notebooks, in file-name order, then the appendix's sections that
    are (``book/engine/*.md``: a page with a Colab button needs its .ipynb twin too)."""
    chapters = sorted(p for p in book.glob("*.md") if is_notebook_source(p))
    return chapters + sorted(p for p in book.glob("engine/*.md") if is_notebook_source(p))


def with_install_cell(text: str, url: str, branch: str) -> str:
    """``text`` (a MyST notebook) with its first code cell set to the install cell."""
    block = install_cell_block(url, branch)
    first = CODE_CELL.search(text)
    if first is None:
        return text.rstrip("\n") + "\n\n" + block
    if MARKER in first.group(0):
        return text[: first.start()] + block + text[first.end() :]
    return text[: first.start()] + block + "\n" + text[first.start() :]


def notebook_json(md_text: str) -> str:
    """The .ipynb twin of a MyST notebook: no outputs, deterministic cell ids."""
    notebook = jupytext.reads(md_text, fmt="md:myst")
    for index, cell in enumerate(notebook.cells):
        digest = hashlib.sha1(f"{index}\n{cell.source}".encode()).hexdigest()[:8]
        cell["id"] = f"c{index:03d}-{digest}"
    notebook.metadata.pop("jupytext", None)
    notebook.metadata["colab"] = {"provenance": []}
    return jupytext.writes(notebook, fmt="ipynb")


def sync(check: bool = False) -> list[Path]:
    """Bring every chapter and twin up to date; return the files that were (or would be) changed."""
    url, branch = repository()
    stale: list[Path] = []
    for md in chapter_sources():
        text = md.read_text(encoding="utf-8")
        new_text = with_install_cell(text, url, branch)
        twin = md.with_suffix(".ipynb")
        new_twin = notebook_json(new_text)
        for path, old, new in ((md, text, new_text), (twin, _read(twin), new_twin)):
            if old != new:
                stale.append(path)
                if not check:
                    path.write_text(new, encoding="utf-8")
    return stale


def _read(path: Path) -> str | None:
    return path.read_text(encoding="utf-8") if path.exists() else None


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="change nothing; fail if stale")
    args = parser.parse_args(argv)
    stale = sync(check=args.check)
    for path in stale:
        verb = "out of date" if args.check else "updated"
        print(f"{path.relative_to(ROOT)}: {verb}")
    if args.check and stale:
        print("run `make notebooks` to regenerate them", file=sys.stderr)
    stray = stray_addresses(repository()[0])
    for where in stray:  # prose is not generated: said, to be written by hand
        print(f"{where}: not the repository of _config.yml", file=sys.stderr)
    return 1 if (args.check and stale) or stray else 0


if __name__ == "__main__":
    sys.exit(main())
