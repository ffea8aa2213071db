"""What every command shares: how a subcommand is declared (help, examples, ``--json``, ``--collection``), its
JSON and progress output, and the exit code of a failed LLM."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from rag.records import IndexProgress

EXIT_LLM_FAILED = 3

JSON_HELP = "print one JSON object on stdout instead of text (progress and errors stay on stderr)"
SOURCE_HELP = (
    "a source as `stats` prints it (docs/manual.pdf), its file name if no other source has it (manual.pdf), "
    "or the path you indexed, absolute or relative to this folder (~/docs/manual.pdf)"
)
_COLLECTION_HELP = "the knowledge base to work on (default: default); `collections list` shows them"
_COLLECTIONS_HELP = (
    "a knowledge base to search (repeatable; default: default); results are merged, each naming its base"
)
_SEVERAL_COLLECTIONS = ("search", "ask")


def prog() -> str:
    """``rag`` when run as the installed console script, else ``python -m rag``."""
    return "rag" if Path(sys.argv[0]).name == "rag" else "python -m rag"


def add_command(sub: Any, name: str, summary: str, examples: str, run: Callable[..., int], *, json: bool = True) -> Any:
    """A subcommand with its summary as description, ``examples`` as the epilog and (by default) ``--json``."""
    program = prog()
    lines = "\n".join(f"  {program} {line}" for line in examples.strip().splitlines())
    p = sub.add_parser(
        name,
        help=summary,
        description=summary[0].upper() + summary[1:] + ".",
        epilog=f"examples:\n{lines}",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    if json:
        p.add_argument("--json", action="store_true", help=JSON_HELP)
    if name in _SEVERAL_COLLECTIONS:
        p.add_argument("--collection", action="append", default=[], metavar="NAME", help=_COLLECTIONS_HELP)
    elif name != "collections":
        p.add_argument("--collection", default="default", metavar="NAME", help=_COLLECTION_HELP)
    p.set_defaults(run=run)
    return p


def emit(data: Any) -> None:
    print(json.dumps(data, ensure_ascii=False, indent=2))


def print_progress(event: IndexProgress) -> None:
    eta = f", ~{event.eta_s:.0f}s left" if event.eta_s is not None else ""
    counts = f"[{event.done_files}/{event.total_files}]"
    line = f"\r{counts} {event.stage} {event.current[:50]:<50} {event.elapsed_s:.0f}s{eta}"
    print(line, end="", file=sys.stderr, flush=True)


class ProgressLines:
    """Progress for a log or a pipe (``--json``, cron): whole lines on stderr, one per step but at most one a second
    (the last step always), so stdout keeps only the report."""

    def __init__(self, every_s: float = 1.0) -> None:
        self._every_s = every_s
        self._last_at = float("-inf")
        self._last_step = ""

    def __call__(self, event: IndexProgress) -> None:
        step = f"[{event.done_files}/{event.total_files}] {event.stage} {event.current}".rstrip()
        due = event.elapsed_s - self._last_at >= self._every_s or event.stage == "finishing"
        if step == self._last_step or not due:
            return
        self._last_at, self._last_step = event.elapsed_s, step
        eta = f", ~{event.eta_s:.0f}s left" if event.eta_s is not None else ""
        print(f"{step} ({event.elapsed_s:.0f}s{eta}, {event.embedded} chunks embedded)", file=sys.stderr, flush=True)
