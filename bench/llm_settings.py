"""Embedded LLM under llama.cpp's batch and attention settings: prompt-read and decode rate against the defaults.

Run from the repository root (the GGUF must be assembled: ``python -m rag.llm.gguf_assembly``)::

    .venv/bin/python bench/llm_settings.py                          # the default 1.5B model, ~900-token prompt

Each setting loads the model afresh with the engine's context size and threads (``EmbeddedBackend``), reads the
same prompt (the realdocs README, ~900 tokens) ``--runs`` times from an empty cache and decodes 32 tokens after it.
It prints the median prompt-read rate, the decode rate and both as a ratio to the defaults of the same run: a
setting earns a place in ``rag/llm/embedded_backend.py`` only by a ratio well above 1 on the machines here.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from rag.llm import gguf_assembly  # noqa: E402
from rag.llm.embedded_backend import EmbeddedBackend  # noqa: E402
from rag.llm.gguf_assembly import DEFAULT_VARIANT, VARIANTS  # noqa: E402

PROMPT = ROOT.parent / "shared" / "realdocs" / "README.md"
PROMPT_TOKENS = 900
DECODE_TOKENS = 32
SETTINGS: tuple[dict[str, Any], ...] = (
    {},
    {"flash_attn": True},
    {"n_ubatch": 128},
    {"n_batch": 1024, "n_ubatch": 1024},
    {"flash_attn": True, "n_ubatch": 256},
)


def _rates(model_path: Path, n_ctx: int, n_threads: int, settings: dict[str, Any], runs: int) -> tuple[float, float]:
    os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")  # as the engine loads it
    from llama_cpp import Llama

    llama = Llama(model_path=str(model_path), n_ctx=n_ctx, n_threads=n_threads, verbose=False, **settings)
    text = PROMPT.read_text(encoding="utf-8") * 3
    tokens = llama.tokenize(text.encode(), add_bos=True)[:PROMPT_TOKENS]
    reads = []
    for _ in range(runs):
        llama.reset()
        started = time.perf_counter()
        llama.eval(tokens)
        reads.append(len(tokens) / (time.perf_counter() - started))
    started, decoded = time.perf_counter(), 0
    for _token in llama.generate(tokens):  # the prompt is in the cache: only new tokens are decoded
        decoded += 1
        if decoded == DECODE_TOKENS:
            break
    return statistics.median(reads), decoded / (time.perf_counter() - started)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--variant", default=DEFAULT_VARIANT, choices=sorted(VARIANTS))
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument(
        "--models-dir", type=Path, default=Path(os.environ.get("RAG_MODEL_DIR") or ROOT / "storage/models")
    )
    args = parser.parse_args()

    backend = EmbeddedBackend(args.variant, args.models_dir)
    path = gguf_assembly.assemble_gguf(args.variant, args.models_dir)
    print(f"{args.variant}: {backend.n_threads} threads, n_ctx {backend.n_ctx}, {PROMPT_TOKENS}-token prompt")
    print("settings | prompt tok/s | decode tok/s | prompt ratio | decode ratio")
    baseline: tuple[float, float] | None = None
    for settings in SETTINGS:
        read, decode = _rates(path, backend.n_ctx, backend.n_threads, settings, args.runs)
        baseline = baseline or (read, decode)
        ratios = f"{read / baseline[0]:.2f} | {decode / baseline[1]:.2f}"
        print(f"{settings or 'defaults'} | {read:.1f} | {decode:.1f} | {ratios}")


if __name__ == "__main__":
    main()
