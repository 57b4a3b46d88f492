"""Sphinx extension: author-year citations of two works that share first author and year.

``Chaslot et al. [2008]`` named two papers.  Their entries in ``references.bib`` carry the
year as ``2008a`` and ``2008b``, which sphinxcontrib-bibtex's author-year citations print as
they are.  pybtex's ``alpha`` labels of the reference list take the year's last two
characters, which would give ``[CWvdH8b]``; this style keeps two digits and the letter,
``[CWvdH08b]``.  Selected in ``_config.yml`` by ``bibtex_default_style: alpha_year_suffix``.
"""

from __future__ import annotations

from typing import Any

from pybtex.plugin import register_plugin
from pybtex.style.formatting.alpha import Style as AlphaStyle
from pybtex.style.labels.alpha import LabelStyle as AlphaLabelStyle


class LabelStyle(AlphaLabelStyle):  # type: ignore[misc]
    def format_label(self, entry: Any) -> str:
        label: str = super().format_label(entry)
        year = entry.fields.get("year", "")
        suffix = year.lstrip("0123456789")
        if not suffix or suffix == year:
            return label
        # the parent appended year[-2:], e.g. "8a": put back two digits before the letter
        return label[:-2] + year[: -len(suffix)][-2:] + suffix


class Style(AlphaStyle):  # type: ignore[misc]
    default_label_style = LabelStyle


def setup(app: Any) -> dict[str, Any]:
    register_plugin("pybtex.style.formatting", "alpha_year_suffix", Style)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
