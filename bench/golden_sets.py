"""The golden sets the benches measure on: BEIR folders under ``../shared/data`` and the split each is scored on."""

from __future__ import annotations

from pathlib import Path

DATA = Path(__file__).resolve().parents[2] / "shared" / "data"
SETS = {"scifact": "train", "jsquad-ja": "test"}
