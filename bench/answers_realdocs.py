"""Answer accuracy on the real documents: the golden set over ``../shared/realdocs/docs``, per context size.

Run from the repository root (models provisioned by ``scripts/start.sh`` or ``scripts/test.sh``)::

    .venv/bin/python bench/answers_realdocs.py                       # default settings, embedded model
    .venv/bin/python bench/answers_realdocs.py --context 400 800 1200 --every 2  # accuracy against context size
    .venv/bin/python bench/answers_realdocs.py --backend extractive

The documents are indexed once into ``storage/bench/realdocs`` (kept: later runs embed nothing). Each run answers
every question of ``golden/realdocs_qa.jsonl`` through ``rag.evaluation.answers`` (the QA page's draft: evidence,
stream, claim checks) and prints one row per setting: accuracy, no-answer refusals, the share of answer sentences
supported, answers shown as verified with a fact or polarity not in the cited sentence (must be 0), answers
replaced by the evidence, and time to evidence, to the first answer token and to the whole answer (p50).
"""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import replace
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from rag.service import RagService  # noqa: E402
from rag.settings import Settings  # noqa: E402

DOCS = ROOT.parent / "shared" / "realdocs" / "docs"
GOLDEN = ROOT / "golden" / "realdocs_qa.jsonl"
COLUMNS = (
    "accuracy",
    "no_answer_accuracy",
    "supported_sentence_share",
    "verified_with_unsupported_fact",
    "replaced_by_evidence",
    "evidence_seconds_p50",
    "first_token_seconds_p50",
    "seconds_p50",
    "seconds_p95",
)


def indexed_service(settings: Settings) -> RagService:
    """A service over ``storage/bench/realdocs`` holding the real documents (indexed on first use)."""
    service = RagService(settings)
    report = service.index_paths([DOCS])
    failed = [f"{f.source}: {f.error}" for f in report.files if f.status == "failed"]
    if failed:
        print("not indexed: " + "; ".join(failed), file=sys.stderr)
    return service


def run(settings: Settings, label: str, golden: Path, limit: int | None) -> dict[str, Any]:
    service = indexed_service(settings)
    result = service.evaluate_answers(golden, limit=limit, progress=lambda line: print(line, file=sys.stderr))
    result["summary"]["setting"] = label
    result["summary"]["backend"] = service.llm.name  # "auto" resolved: a replay must size the context the same way
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--context", type=int, nargs="*", default=[], help="context caps (estimated tokens) to sweep")
    parser.add_argument("--backend", default="", help="LLM backend (default: the settings' own)")
    parser.add_argument("--limit", type=int, default=None, help="first N questions only")
    parser.add_argument("--every", type=int, default=1, help="every Kth question only (a spread-out subset)")
    parser.add_argument("--json", type=Path, default=None, help="also write every answer to this file")
    parser.add_argument("--golden", type=Path, default=GOLDEN, help="the questions (default: the realdocs golden set)")
    args = parser.parse_args()

    base = Settings.from_env(storage_dir=ROOT / "storage" / "bench" / "realdocs", model_dir=ROOT / "storage" / "models")
    if args.backend:
        base = replace(base, llm_backend=args.backend)
    settings = [(f"context {n}", replace(base, context_budget_tokens=n)) for n in args.context] or [("default", base)]
    golden = args.golden
    if args.every > 1:
        lines = args.golden.read_text(encoding="utf-8").splitlines()[:: args.every]
        golden = base.storage / f"golden-every-{args.every}.jsonl"
        golden.write_text("\n".join(lines) + "\n", encoding="utf-8")
    results = [run(s, label, golden, args.limit) for label, s in settings]
    print("setting | " + " | ".join(COLUMNS))
    for result in results:
        summary = result["summary"]
        print(f"{summary['setting']} | " + " | ".join(str(summary.get(c)) for c in COLUMNS))
    if args.json:
        args.json.write_text(json.dumps(results, ensure_ascii=False, indent=1), encoding="utf-8")


if __name__ == "__main__":
    main()
