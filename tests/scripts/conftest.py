"""Test setup for the RFC gates in scripts/: makes the gate scripts importable as modules.

scripts/ is not a package (each gate runs as ``python scripts/<gate>.py``), so the tests put
that folder on ``sys.path`` and import ``rfc_walker``, ``verify_rfc_format`` and friends the
same way the scripts import each other.
"""

from __future__ import annotations

import sys
from pathlib import Path

SCRIPTS_DIR = Path(__file__).resolve().parents[2] / "scripts"
if str(SCRIPTS_DIR) not in sys.path:
    sys.path.insert(0, str(SCRIPTS_DIR))
