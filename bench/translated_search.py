"""What searching with a translation of the question would add for questions asked in another language than the
documents that answer them: the chunk holding the answer in the top hits, searched as asked, as translated by the
embedded model, and with both rankings fused (reciprocal rank).

Run from the repository root (models provisioned by ``scripts/start.sh`` or ``scripts/test.sh``)::

    .venv/bin/python bench/translated_search.py                      # the golden and fresh realdocs questions
    .venv/bin/python bench/translated_search.py golden/realdocs_qa.jsonl --top 5

The documents are indexed once into ``storage/bench/realdocs`` (as ``bench/answers_realdocs.py`` does). A question
is across languages when every one of its expected sources is in the other language (by the ``en_``/``ja_`` prefix
of the realdocs file names). It prints, for those questions, how many have the answer's chunk in the top hits each
way, which questions the fused ranking gains and loses, and the translation's time (p50, p95).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from answers_realdocs import indexed_service  # noqa: E402

from rag.answers.prompts import detect_language  # noqa: E402
from rag.evaluation.answers import comparable, read_golden  # noqa: E402
from rag.llm.base import Message  # noqa: E402
from rag.llm.embedded_backend import EmbeddedBackend  # noqa: E402
from rag.records import Hit  # noqa: E402
from rag.retrieval.fusion import fuse_rrf  # noqa: E402
from rag.settings import Settings  # noqa: E402

GOLDEN = [ROOT / "golden" / "realdocs_qa.jsonl", ROOT / "golden" / "realdocs_fresh_qa.jsonl"]
LANGUAGE_NAMES = {"en": "Japanese", "ja": "English"}
"""The language a question is translated into, by the language it is asked in."""
RRF_K = 60
TRANSLATION_MAX_TOKENS = 160


def answer_rank(hits: list[Hit], answers: tuple[str, ...]) -> int | None:
    """1-based rank of the first hit whose chunk holds one of ``answers``, compared as answers are judged
    (``rag.evaluation.answers.comparable``); None when no hit does."""
    wanted = [comparable(a) for a in answers]
    for rank, hit in enumerate(hits, start=1):
        text = comparable(hit.chunk.text)
        if any(a in text for a in wanted):
            return rank
    return None


def fused(asked: list[Hit], translated: list[Hit]) -> list[Hit]:
    """Both rankings by reciprocal rank fusion, weighted alike (``rag.retrieval.fusion.fuse_rrf``)."""
    by_id = {hit.chunk.chunk_id: hit for hit in [*translated, *asked]}
    ranking = fuse_rrf(
        [(hit.chunk.chunk_id, hit.score) for hit in asked],
        [(hit.chunk.chunk_id, hit.score) for hit in translated],
        semantic_weight=0.5,
        k=RRF_K,
    )
    return [by_id[f.chunk_id] for f in ranking]


def translate(llm: EmbeddedBackend, question: str, language: str) -> str:
    target = LANGUAGE_NAMES[language]
    instruction = (
        f"Translate the user's question into {target}. Keep names, numbers, codes and commands as they are. "
        "Reply with the translation only."
    )
    messages = [Message("system", instruction), Message("user", question)]
    return llm.chat(messages, temperature=0.0, max_tokens=TRANSLATION_MAX_TOKENS).strip()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("golden", nargs="*", type=Path, default=GOLDEN, help="question files (default: golden, fresh)")
    parser.add_argument("--top", type=int, default=5, help="hits the answer must be among (5: what answers read)")
    args = parser.parse_args()

    storage, models = ROOT / "storage" / "bench" / "realdocs", ROOT / "storage" / "models"
    settings = Settings.from_env(storage_dir=storage, model_dir=models)
    service = indexed_service(settings)
    llm = EmbeddedBackend.from_settings(settings)
    found = {"as asked": 0, "translated": 0, "both, fused": 0}
    gained, lost, seconds = [], [], []
    for path in args.golden:
        for item in read_golden(path):
            language = detect_language(item.question)
            sources = item.expected_sources
            if item.no_answer or not sources or any(s.startswith(f"{language}_") for s in sources):
                continue
            asked = service.search(item.question, top_k=args.top * 2)
            started = time.perf_counter()
            translation = translate(llm, item.question, language)
            seconds.append(time.perf_counter() - started)
            translated = service.search(translation, top_k=args.top * 2)
            ranks = [answer_rank(h, item.answer_contains) for h in (asked, translated, fused(asked, translated))]
            within = [rank is not None and rank <= args.top for rank in ranks]
            for key, hit in zip(found, within, strict=True):
                found[key] += hit
            if within[2] != within[0]:
                (gained if within[2] else lost).append(item.id)
            print(f"{item.id}: ranks {ranks} | {translation[:90]!r}", file=sys.stderr)
    count = len(seconds)
    print(f"questions across languages: {count}")
    for key, value in found.items():
        print(f"answer's chunk in the top {args.top}, {key}: {value}")
    print(f"fused gains: {' '.join(gained) or '-'}; loses: {' '.join(lost) or '-'}")
    if seconds:
        p95 = statistics.quantiles(seconds, n=20)[-1] if count > 1 else seconds[0]
        print(f"translation seconds p50 {statistics.median(seconds):.2f}, p95 {p95:.2f}")


if __name__ == "__main__":
    main()
