"""``python -m rag index|stats|check|remove|search|ask|quiz|evaluate|export|import|sync|similar|collections``.

The command names, flags and JSON keys here are a contract other tools rely on: keep them stable.
Human-readable output goes to stdout; progress and errors to stderr. Exit codes: 0 success, 1 some files
failed (index) or the command failed with a known error, 2 bad usage, 3 the LLM failed (``ask``: the evidence
found is still printed, with the cause and fix on stderr, or as ``llm_error`` in the JSON).

The commands live by area: ``indexing`` (index, check, remove, sync), ``searching`` (search, ask, similar,
evaluate), ``quizzes`` (quiz), ``storage`` (stats, export, import, collections); ``commands`` holds what they share.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from rag import __version__
from rag.cli import commands, indexing, quizzes, searching, storage
from rag.cli.commands import EXIT_LLM_FAILED
from rag.cli.searching import hit_json
from rag.errors import RagError

__all__ = ["EXIT_LLM_FAILED", "hit_json", "main"]

_ADD_COMMANDS = (
    indexing.add_index_command,
    storage.add_stats_command,
    indexing.add_check_command,
    indexing.add_remove_command,
    searching.add_search_command,
    searching.add_ask_command,
    quizzes.add_quiz_command,
    searching.add_evaluate_command,
    storage.add_export_command,
    storage.add_import_command,
    indexing.add_sync_command,
    searching.add_similar_command,
    storage.add_collections_command,
)
"""Every subcommand, in the order ``--help`` lists them."""


def main(argv: Sequence[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    from rag.service import RagService

    try:
        service = RagService()
        if isinstance(getattr(args, "collection", None), str):  # the one knowledge base the command works on
            service = service.base(args.collection)
        return int(args.run(service, args) or 0)
    except RagError as err:
        print(f"error: {err}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("interrupted; the index keeps its last complete state", file=sys.stderr)
        return 130


def _parser() -> argparse.ArgumentParser:
    prog = commands.prog()
    parser = argparse.ArgumentParser(
        prog=prog,
        description="Local, private RAG over your documents: index, search, ask with citations, quiz, evaluate.",
        epilog=(
            f"Run `{prog} COMMAND --help` for a command's arguments and examples.\n"
            "The index lives in ./storage under the folder you run from; set RAG_STORAGE_DIR (an absolute path)\n"
            "to use one index from anywhere. Other settings: RAG_* variables or a RAG_CONFIG TOML file.\n"
            "Exit codes: 0 success, 1 failed files or a known error, 2 bad usage or refused deletion, 3 the LLM failed."
        ),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for add_command in _ADD_COMMANDS:
        add_command(sub)
    return parser
