from __future__ import annotations

from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
CONF_DIR = REPO / "conf"
