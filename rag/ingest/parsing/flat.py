"""JSON values written out as ``key: value`` lines, so every field of a record can be searched and quoted."""

from __future__ import annotations

import json
from typing import Any

_FLAT_DEPTH = 12  # deeper values are written as compact JSON on their key's line


def flatten_record(value: Any, key: str = "", depth: int = 0, *, joiner: str = ".") -> list[str]:
    """A JSON value as ``key: value`` lines; nested objects as ``a.b: value`` (``joiner`` between the keys), one line
    per list item."""
    if isinstance(value, dict) and depth < _FLAT_DEPTH:
        return [
            line
            for k, v in value.items()
            for line in flatten_record(v, f"{key}{joiner}{k}" if key else str(k), depth + 1, joiner=joiner)
        ]
    if isinstance(value, list) and depth < _FLAT_DEPTH:
        return [line for v in value for line in flatten_record(v, key, depth + 1, joiner=joiner)]
    if value is None or value == "":
        return []
    if isinstance(value, float):
        shown = f"{value:.4g}"
    elif isinstance(value, str | bool | int):
        shown = str(value)
    else:
        shown = json.dumps(value, ensure_ascii=False)
    return [f"{key}: {shown}" if key else shown]
