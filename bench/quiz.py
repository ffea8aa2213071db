"""Quiz quality over real documents (Japanese and English) and the three levels, with the configured LLM.

Run from the repository root (models provisioned by ``scripts/start.sh`` or ``scripts/test.sh``)::

    RAG_MODEL_DIR=storage/models .venv/bin/python bench/quiz.py            # 4 documents x 3 levels, 5 items each
    .venv/bin/python bench/quiz.py --backend extractive --json             # no LLM: the document's sentences
    .venv/bin/python bench/quiz.py --docs en_latex_usrguide.pdf --levels advanced --count 5

Each document of ``../shared/realdocs/docs`` is parsed and chunked exactly as indexing does (no embeddings: a
quiz reads chunks, not vectors) and serves as the quiz catalog. Every item is then judged by the same checks the
generator uses, re-run on what the quiz shows (its statement and its citations' quotes), and it prints:

- ``malformed``: statements with a time, date, era or number that cannot exist (and their cited sentences lack);
- ``verbatim_true_share_int_adv``: of TRUE statements at intermediate and advanced, the share that copy their
  cited sentence (``rag.quiz.validation.is_verbatim``, the generator's own test: 60 % or more of the statement
  in runs of three words or six Japanese characters found in the citation, in any order), and the same for
  beginner;
- ``false_contradicted_share``: of FALSE statements, the share whose cited sentences contradict them in exactly
  one fact (a fact of another value, the opposite polarity or a comparison turned round);
- ``true_supported_share``: of TRUE statements, the share the claim check finds supported by the citations, and
  ``true_adds_restriction``: how many bring in "only", "every", "never", のみ ... that their citations lack;
- ``false_share``, ``duplicates`` (pairs in one quiz with near-identical content or one citation),
  ``two_citation_share_advanced`` and seconds per 5 items (p50, and the slowest).
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from rag.answers.faithfulness import similarity  # noqa: E402
from rag.ingest.chunking import chunk_document  # noqa: E402
from rag.ingest.metadata import classify_doc_type  # noqa: E402
from rag.ingest.parsing import parse_file  # noqa: E402
from rag.llm.selection import build_backend, select_backend  # noqa: E402
from rag.quiz import QuizShortfallError, generate_quiz  # noqa: E402
from rag.quiz.models import Quiz  # noqa: E402
from rag.quiz.validation import (  # noqa: E402
    DUPLICATE_SIMILARITY,
    added_restriction,
    contradiction,
    is_verbatim,
    supports,
)
from rag.quiz.wellformed import malformed_parts  # noqa: E402
from rag.records import QUIZ_LEVELS, Chunk  # noqa: E402
from rag.settings import Settings  # noqa: E402

DOCS = ROOT.parent / "shared" / "realdocs" / "docs"
DEFAULT_DOCS = (
    "ja_openchain_spec_kaisetsu.pdf",
    "ja_oss_license_misunderstandings_faq.pdf",
    "en_latex_usrguide.pdf",
    "en_us_bill_hr815_2024.pdf",
)


class FileCatalog:
    """The ChunkCatalog of a few files, chunked as indexing chunks them."""

    def __init__(self, paths: list[Path], settings: Settings) -> None:
        self._chunks: dict[str, list[Chunk]] = {}
        for path in paths:
            doc_type = classify_doc_type(path.name, settings)
            doc = parse_file(path, settings)
            self._chunks[path.name] = chunk_document(
                doc, source=path.name, rel_path=path.name, doc_type=doc_type, settings=settings
            )

    def sources(self) -> list[str]:
        return list(self._chunks)

    def chunks_of(self, source: str) -> list[Chunk]:
        return self._chunks.get(source, [])

    def version(self) -> str:
        return "fixed"  # never written to


def judge(quiz: Quiz) -> list[dict]:
    """Each item of ``quiz`` judged on what it shows: its statement and its citations' quotes."""
    rows = []
    for item in quiz.items:
        evidence = " ".join(c.quote for c in item.citations)
        rows.append(
            {
                "level": quiz.level,
                "answer": item.answer_bool,
                "statement": item.statement,
                "evidence": evidence,
                "citations": len(item.citations),
                "malformed": malformed_parts(item.statement, evidence),
                "verbatim": is_verbatim(item.statement, evidence),
                "supported": supports(item.statement, evidence) if item.answer_bool else None,
                "restricted": bool(added_restriction(item.statement, evidence)) if item.answer_bool else None,
                "contradicted": None if item.answer_bool else contradiction(item.statement, evidence) is not None,
            }
        )
    return rows


def duplicates(quiz: Quiz) -> int:
    """Pairs of items with near-identical statements or one citation."""
    pairs = 0
    for a, b in itertools.combinations(quiz.items, 2):
        same_quote = {c.quote for c in a.citations} & {c.quote for c in b.citations}
        pairs += bool(same_quote or similarity(a.statement, b.statement) >= DUPLICATE_SIMILARITY)
    return pairs


def _share(rows: list[dict], key: str) -> float | None:
    return round(sum(bool(r[key]) for r in rows) / len(rows), 3) if rows else None


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--docs", nargs="+", default=list(DEFAULT_DOCS), help="file names in ../shared/realdocs/docs")
    parser.add_argument("--levels", nargs="+", default=list(QUIZ_LEVELS), choices=QUIZ_LEVELS)
    parser.add_argument("--count", type=int, default=5, help="items per quiz")
    parser.add_argument("--backend", default="", help="ollama, openai, embedded or extractive (default: auto)")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--json", action="store_true", help="print every item too")
    args = parser.parse_args()

    settings = Settings.from_env(dict(os.environ))
    backend = build_backend(args.backend, settings) if args.backend else select_backend(settings)
    started = time.perf_counter()
    catalog = FileCatalog([DOCS / name for name in args.docs], settings)
    print(
        f"chunked {len(args.docs)} documents in {time.perf_counter() - started:.1f} s; LLM: {backend.name}",
        file=sys.stderr,
    )

    rows: list[dict] = []
    quizzes: list[dict] = []
    for name, level in itertools.product(args.docs, args.levels):
        started = time.perf_counter()
        try:
            quiz = generate_quiz(
                backend, catalog, name, count=args.count, level=level, settings=settings, seed=args.seed
            )
        except QuizShortfallError as err:
            quizzes.append({"source": name, "level": level, "error": str(err)})
            print(f"{name} {level}: {err}", file=sys.stderr)
            continue
        seconds = time.perf_counter() - started
        judged = judge(quiz)
        rows += [{"source": name, **row} for row in judged]
        quizzes.append(
            {
                "source": name,
                "level": level,
                "seconds": round(seconds, 1),
                "items": len(quiz.items),
                "duplicates": duplicates(quiz),
            }
        )
        print(f"{name} {level}: {len(quiz.items)} items in {seconds:.1f} s", file=sys.stderr)

    made = [q for q in quizzes if "seconds" in q]
    trues = [r for r in rows if r["answer"]]
    falses = [r for r in rows if not r["answer"]]
    per_5 = [q["seconds"] * 5 / q["items"] for q in made]
    figures = {
        "llm": f"{backend.name} {getattr(backend, 'model', '')}".strip(),
        "quizzes_made": f"{len(made)}/{len(quizzes)}",
        "items": len(rows),
        "documents": len({r["source"] for r in rows}),
        "malformed": sum(bool(r["malformed"]) for r in rows),
        "verbatim_true_share_int_adv": _share([r for r in trues if r["level"] != "beginner"], "verbatim"),
        "verbatim_true_share_beginner": _share([r for r in trues if r["level"] == "beginner"], "verbatim"),
        "false_contradicted_share": _share(falses, "contradicted"),
        "true_supported_share": _share(trues, "supported"),
        "true_adds_restriction": sum(bool(r["restricted"]) for r in trues),
        "false_share": round(len(falses) / len(rows), 3) if rows else None,
        "duplicates": sum(q["duplicates"] for q in made),
        "two_citation_share_advanced": _share(
            [dict(r, two=r["citations"] >= 2) for r in rows if r["level"] == "advanced"], "two"
        ),
        "s_per_5_items_p50": round(statistics.median(per_5), 1) if per_5 else None,
        "s_per_5_items_max": round(max(per_5), 1) if per_5 else None,
    }
    if args.json:
        print(json.dumps({"figures": figures, "quizzes": quizzes, "items": rows}, ensure_ascii=False, indent=1))
        return
    for key, value in figures.items():
        print(f"{key:30s} {value}")
    for q in quizzes:
        if "error" in q:
            print(f"quiz {q['source']} {q['level']} failed: {q['error']}")


if __name__ == "__main__":
    main()
