"""Embedded LLM speed: load time, time to first token and decode rate on a RAG-sized prompt.

Run from the repository root (the GGUF must be assembled: ``python -m rag.llm.gguf_assembly``)::

    .venv/bin/python bench/llm.py                                 # qwen2.5-coder-1.5b, English and Japanese
    .venv/bin/python bench/llm.py --variant qwen2.5-coder-0.5b --runs 3

The prompt is a grounded-answer prompt of about 1,500 characters of context: SciFact abstracts (English)
or JSQuAD paragraphs (Japanese) from ``shared/data``, then a question. Time to first token covers prompt
evaluation; the decode rate is (tokens after the first) / (time after the first), tokens counted with the
model's tokenizer. Figures are medians over ``--runs`` (the first run also loads the model, reported apart).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from golden_sets import DATA  # noqa: E402

from rag.llm.base import Message  # noqa: E402
from rag.llm.embedded_backend import EmbeddedBackend  # noqa: E402
from rag.llm.gguf_assembly import DEFAULT_VARIANT, VARIANTS  # noqa: E402

CONTEXT_CHARS = 1500


def _context(dataset: str) -> str:
    passages: list[str] = []
    with (DATA / dataset / "corpus.jsonl").open(encoding="utf-8") as handle:
        for line in handle:
            doc = json.loads(line)
            passages.append(f"[{len(passages) + 1}] {doc['title']}: {doc['text']}")
            if sum(map(len, passages)) >= CONTEXT_CHARS:
                break
    return "\n".join(passages)[:CONTEXT_CHARS]


def _messages(dataset: str) -> list[Message]:
    question = (
        "What do these passages report? Answer in three sentences, citing passages as [n]."
        if dataset == "scifact"
        else "これらの文章は何について述べていますか。[n] の形で出典を示し、三文で答えてください。"
    )
    return [
        Message("system", "Answer only from the passages. Cite them as [n]."),
        Message("user", f"Passages:\n{_context(dataset)}\n\nQuestion: {question}"),
    ]


def _one_run(backend: EmbeddedBackend, messages: list[Message]) -> tuple[float, float, int]:
    started = time.perf_counter()
    first = 0.0
    pieces: list[str] = []
    for piece in backend.stream_chat(messages, temperature=0.0):
        if not pieces:
            first = time.perf_counter()
        pieces.append(piece)
    ended = time.perf_counter()
    tokens = len(backend.load().tokenize("".join(pieces).encode(), add_bos=False, special=False))
    rate = (tokens - 1) / (ended - first) if tokens > 1 and ended > first else 0.0
    return first - started, rate, tokens


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--variant", default=DEFAULT_VARIANT, choices=sorted(VARIANTS))
    parser.add_argument("--runs", type=int, default=2)
    parser.add_argument("--max-tokens", type=int, default=128)
    parser.add_argument(
        "--models-dir", type=Path, default=Path(os.environ.get("RAG_MODEL_DIR") or ROOT / "storage/models")
    )
    args = parser.parse_args()

    backend = EmbeddedBackend(args.variant, args.models_dir, max_tokens=args.max_tokens)
    started = time.perf_counter()
    llama = backend.load()
    print(f"{args.variant}: loaded in {time.perf_counter() - started:.2f} s, {backend.n_threads} threads")
    for dataset in ("scifact", "jsquad-ja"):
        messages = _messages(dataset)
        prompt_tokens = len(llama.tokenize("\n".join(m.content for m in messages).encode(), special=False))
        runs = [_one_run(backend, messages) for _ in range(args.runs)]
        ttft = statistics.median(r[0] for r in runs)
        rate = statistics.median(r[1] for r in runs)
        print(
            f"  {dataset:9s} prompt {sum(len(m.content) for m in messages)} chars / ~{prompt_tokens} tokens: "
            f"time to first token {ttft:.2f} s, decode {rate:.1f} tokens/s "
            f"({statistics.median(r[2] for r in runs):.0f} tokens out, median of {args.runs})"
        )


if __name__ == "__main__":
    main()
