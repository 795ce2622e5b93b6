"""Code run in a fresh interpreter started as the hook launcher starts it (``-SP``).

The hooks' import paths are the point of some tests: what a process started
without the site module loads, and what it answers. :func:`run_fresh` runs
``code`` in such a process with memdir's sources on the path; the code leaves
a JSON-able dict in ``result``, which comes back.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

SRC = Path(__file__).resolve().parents[1] / "src"


def run_fresh(code: str) -> dict[str, Any]:
    """``code`` (which sets ``result``) in ``python -SP``; ``result``, read back as JSON."""
    script = f"import os, sys\nsys.path.append({str(SRC)!r})\n{code}\n"
    script += "import json\nprint(json.dumps(result))\n"
    done = subprocess.run(
        [sys.executable, "-SP", "-c", script],
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": ""},
        check=True,
    )
    assert done.stderr == "", done.stderr
    found: dict[str, Any] = json.loads(done.stdout)
    return found
