"""scripts/check_chapter_imports.py reads a chapter's imports as the kernel would run them."""

from __future__ import annotations

import importlib.util
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
spec = importlib.util.spec_from_file_location(
    "check_chapter_imports", ROOT / "scripts" / "check_chapter_imports.py"
)
check = importlib.util.module_from_spec(spec)
spec.loader.exec_module(check)

CHAPTER = """# A chapter

```python
from not_a_cell import nothing
```

```{code-cell} ipython3
import math
x = 1
from mcts_lab.claims import (claim,
    glue)
```

```{code-cell} ipython3
from __future__ import annotations
```
"""


def test_the_imports_of_code_cells_only_joined_and_future_first():
    assert check.import_lines(CHAPTER) == [
        "from __future__ import annotations",
        "import math",
        "from mcts_lab.claims import (claim, glue)",
    ]


def test_a_chapter_whose_import_moved_fails(tmp_path):
    (tmp_path / "01_good.md").write_text(CHAPTER)
    (tmp_path / "02_bad.md").write_text(CHAPTER.replace("claims", "no_such_module"))
    assert check.main(tmp_path) == 1
