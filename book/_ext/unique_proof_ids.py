"""Sphinx extension: one ``id`` per element on pages with several algorithm blocks.

sphinx-proof (0.4) gives the content section of every ``{prf:algorithm}`` (and every other
proof-type block) the same ``id="proof-content"``, so a page with two algorithms has two
elements with one id, which HTML forbids (a link or a script looking the id up finds only the
first).  This transform renames each such section after its block's own id (its label, e.g.
``alg-pvs-content``), which is unique on the page because the labels are.  Nothing refers to
``#proof-content``: sphinx-proof's stylesheet selects the section by its class.
"""

from __future__ import annotations

from typing import Any

from docutils import nodes

SHARED_ID = "proof-content"


def unique_ids(document: nodes.document) -> int:
    """Rename every section id ``proof-content`` after its parent's first id; the number renamed."""
    renamed = 0
    for section in document.findall(nodes.section):
        if SHARED_ID not in section["ids"] or section.parent is None:
            continue
        owner = section.parent.get("ids") or []
        new = f"{owner[0]}-content" if owner else f"{SHARED_ID}-{renamed + 1}"
        section["ids"] = [new if i == SHARED_ID else i for i in section["ids"]]
        renamed += 1
    return renamed


def _on_doctree_read(app: Any, doctree: nodes.document) -> None:
    unique_ids(doctree)


def setup(app: Any) -> dict[str, Any]:
    app.connect("doctree-read", _on_doctree_read)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
