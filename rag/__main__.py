"""``python -m rag``: the headless command line (see rag.cli)."""

from __future__ import annotations

import sys

from rag.cli import main

if __name__ == "__main__":
    sys.exit(main())
