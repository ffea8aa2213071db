"""``quiz``: a true/false quiz generated from one source and saved."""

from __future__ import annotations

import sys
from typing import Any

from rag.cli.commands import SOURCE_HELP, add_command, emit
from rag.records import QUIZ_LEVELS


def add_quiz_command(sub: Any) -> None:
    """``quiz SOURCE``: generate and save a quiz."""
    p = add_command(sub, "quiz", "generate a true/false quiz from one source and save it", """
quiz orion_manual.pdf
quiz docs/orion_manual.pdf --count 10 --level advanced --json""", _quiz)  # fmt: skip
    p.add_argument("source", metavar="SOURCE", help=SOURCE_HELP)
    p.add_argument("--count", type=int, default=5, metavar="N", help="how many statements (default 5), e.g. 10")
    p.add_argument("--level", choices=QUIZ_LEVELS, default="beginner", help="difficulty (default beginner)")


def _quiz(service, args) -> int:  # type: ignore[no-untyped-def]
    quiz = service.generate_quiz(service.resolve_source(args.source), count=args.count, level=args.level,
                                 progress=lambda msg: print(msg, file=sys.stderr))  # fmt: skip
    data = quiz.model_dump(mode="json")
    if args.json:
        keys = ("id", "statement", "answer_bool", "explanation", "citations")
        emit({"quiz_id": data["id"], "items": [{k: item[k] for k in keys} for item in data["items"]]})
        return 0
    for i, item in enumerate(data["items"], 1):
        print(f"{i}. {item['statement']}  [{'○' if item['answer_bool'] else '×'}]")
    print(f"saved as {data['id']}")
    return 0
