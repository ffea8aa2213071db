"""How many wrong answers the claim checks would show as supported, on hand-written cases over the real documents.

``golden/realdocs_claims.jsonl`` holds, per case, a question, the real passage it is about (the first chunk of a file
in ``../shared/realdocs/docs`` holding ``needle``), one right answer and three wrong ones a careless model would write
from that passage (a neighbouring row's value, a flipped negation, a changed number, another person or place, the
other speaker), each with why it is wrong; a third are asked across languages (an English answer on a Japanese
passage or the reverse). Every answer is checked against the passage as the engine checks one (``check_answer``
with the embedding model's cosines). A wrong answer shown as supported (verified or reattributed, its main claim
standing) is the figure to drive to zero; a right one refused is replaced by the evidence, which costs less::

    .venv/bin/python bench/claim_cases.py [--show-refused]

It prints both figures by language pair, then every wrong answer shown as supported with the quote it was shown
with. Written by a reader who had not seen the checks; the documents stay in ``../shared``.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections import Counter
from functools import cache
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from rag.answers.citations import Passage  # noqa: E402
from rag.answers.verification import CheckedAnswer, check_answer  # noqa: E402
from rag.ingest.chunking import chunk_document  # noqa: E402
from rag.ingest.parsing import parse_file  # noqa: E402
from rag.models.embedding import load_embedder  # noqa: E402
from rag.records import Chunk  # noqa: E402
from rag.settings import Settings  # noqa: E402

CASES = ROOT / "golden" / "realdocs_claims.jsonl"
REALDOCS = ROOT.parent / "shared" / "realdocs" / "docs"


@cache
def _chunks(name: str) -> tuple[Chunk, ...]:
    settings = Settings()
    doc = parse_file(REALDOCS / name, settings)
    return tuple(chunk_document(doc, source=name, rel_path=name, doc_type="general", settings=settings))


def _chunk_with(name: str, needle: str) -> Chunk:
    for chunk in _chunks(name):
        if needle in chunk.text:
            return chunk
    raise SystemExit(f"no chunk of {name} holds {needle!r}: has the document or the chunking changed?")


def _shown(checked: CheckedAnswer) -> bool:
    """Whether the answer is shown as supported: a claim verified or reattributed, its main claim standing."""
    return not checked.main_claim_failed and any(c.status in ("verified", "reattributed") for c in checked.claims)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", type=Path, default=CASES, help=f"a JSONL file of cases (default {CASES.name})")
    parser.add_argument("--show-refused", action="store_true", help="also list the right answers refused")
    args = parser.parse_args()
    if not REALDOCS.is_dir():
        raise SystemExit(f"{REALDOCS} is missing: the cases are about the shared real documents")
    settings = Settings.from_env(model_dir=ROOT / "storage" / "models")
    embedder = load_embedder(settings)

    def relevance(question: str, sentences: list[str]) -> list[float]:
        return [float(c) for c in embedder.embed_passages(list(sentences)) @ embedder.embed_queries([question])[0]]

    started = time.perf_counter()
    right: Counter[str] = Counter()
    right_shown: Counter[str] = Counter()
    wrong: Counter[str] = Counter()
    wrong_shown: Counter[str] = Counter()
    survivors: list[str] = []
    refused: list[str] = []
    for line in args.cases.read_text(encoding="utf-8").splitlines():
        case = json.loads(line)
        chunk = _chunk_with(case["source"], case["needle"])
        passages = [Passage(1, chunk, chunk.text)]
        pair = case["languages"]
        checked = check_answer(case["right"], case["question"], passages, relevance)
        right[pair] += 1
        if _shown(checked):
            right_shown[pair] += 1
        else:
            reason = next((c.reason for c in checked.claims if c.reason), "")
            refused.append(f"{case['id']} [{pair}] {case['right']}\n    refused: {reason}")
        for item in case["wrong"]:
            checked = check_answer(item["answer"], case["question"], passages, relevance)
            wrong[pair] += 1
            if _shown(checked):
                wrong_shown[pair] += 1
                quote = next((c.quote for c in checked.citations), "")
                shown = " / ".join(" ".join(line.split()) for line in quote.splitlines() if line.strip())
                survivors.append(
                    f"{case['id']} [{pair}] Q: {case['question']}\n    A: {item['answer']}\n"
                    f"    wrong because: {item['why']}\n    shown with: {shown[:200]}"
                )
    seconds = time.perf_counter() - started
    print("languages (question+answer/passage) | cases | right shown as supported | wrong shown as supported")
    for pair in sorted(right):
        print(f"{pair} | {right[pair]} | {right_shown[pair]}/{right[pair]} | {wrong_shown[pair]}/{wrong[pair]}")
    total, total_wrong = sum(right.values()), sum(wrong.values())
    print(
        f"all | {total} | {sum(right_shown.values())}/{total} | {sum(wrong_shown.values())}/{total_wrong}"
        f"   ({seconds:.0f} s)"
    )
    print(f"\nwrong answers shown as supported ({len(survivors)}):")
    print("\n".join(survivors) or "none")
    if args.show_refused:
        print(f"\nright answers refused ({len(refused)}):")
        print("\n".join(refused) or "none")


if __name__ == "__main__":
    main()
