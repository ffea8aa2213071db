"""Re-check a recorded run's model replies with the current answer checks, without running the LLM.

``bench/answers_realdocs.py --json RUN.json`` keeps every question's reply as the model wrote it (``reply``). This
script answers the same golden questions again through the same draft (search, passages, evidence, claim checks),
with a backend that replays those replies word for word, and prints the run's figures next to the replayed ones.
A change to the claim checks or to the evidence is then measured on real model output in a minute instead of the
half hour a CPU model takes, and each question whose outcome changed is listed::

    .venv/bin/python bench/answers_realdocs.py --json /tmp/run.json        # once: the model's replies
    .venv/bin/python bench/answers_replay.py /tmp/run.json                  # after each change to the checks

The replies were written from the passages of the recorded run; a change to retrieval or to the context makes the
replay meaningless for the questions whose passages changed (they are counted as ``passages changed``).
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections.abc import Iterator, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from bench.answers_realdocs import COLUMNS, GOLDEN  # noqa: E402
from rag.evaluation.answers import evaluate_answers  # noqa: E402
from rag.llm.base import Message  # noqa: E402
from rag.records import BackendStatus  # noqa: E402
from rag.service import RagService  # noqa: E402
from rag.settings import Settings  # noqa: E402

RECORDED_BEFORE_BACKEND_WAS_KEPT = "embedded"


class ReplayBackend:
    """An LLM backend that answers each question with the reply recorded for it (the question is in the prompt)."""

    def __init__(self, name: str, replies: dict[str, str]) -> None:
        self.name = name
        self.model = "replay"
        self._replies = replies
        self.missing = 0

    def status(self) -> BackendStatus:
        return BackendStatus(self.name, True, self.model, "replaying recorded replies")

    def stream_chat(self, messages: Sequence[Message], *, temperature: float = 0.2) -> Iterator[str]:
        yield self.chat(messages)

    def chat(self, messages: Sequence[Message], **_options: Any) -> str:
        prompt = messages[-1].content
        found = [reply for question, reply in self._replies.items() if question in prompt]
        if not found:
            self.missing += 1
            return ""
        return max(found, key=len)


def recorded_run(path: Path) -> tuple[dict[str, Any], dict[str, str]]:
    """A recorded run (its ``summary`` and ``per_query`` rows) and each question's reply as the model wrote it."""
    data = json.loads(path.read_text(encoding="utf-8"))
    recorded = data[0] if isinstance(data, list) else data
    replies = {
        row["question"]: row.get("reply") or row.get("model_answer") or row["answer"] for row in recorded["per_query"]
    }
    return recorded, replies


def recorded_settings(settings: Settings, summary: dict[str, Any]) -> Settings:
    """``settings`` as the recorded run answered with: its backend's name and its context cap.

    The context a backend is given depends on its name (the embedded model's is capped in tokens, others' are not),
    so a replay under the settings' ``"auto"`` would hand the checks other passages than the model read. A run
    recorded before the backend was written down was the bench's default, the embedded model.
    """
    backend = str(summary.get("backend") or RECORDED_BEFORE_BACKEND_WAS_KEPT)
    setting = re.fullmatch(r"context (\d+)", str(summary.get("setting", "")))
    cap = int(setting.group(1)) if setting else settings.context_budget_tokens
    return replace(settings, llm_backend=backend, context_budget_tokens=cap)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "run", type=Path, help="a JSON file of bench/answers_realdocs.py --json or of `python -m rag evaluate --json`"
    )
    parser.add_argument("--golden", type=Path, default=GOLDEN, help="the golden file the run answered")
    parser.add_argument("--json", type=Path, default=None, help="also write the replayed answers to this file")
    args = parser.parse_args()

    recorded, replies = recorded_run(args.run)
    before = {row["id"]: row for row in recorded["per_query"]}
    storage, models = ROOT / "storage" / "bench" / "realdocs", ROOT / "storage" / "models"
    settings = recorded_settings(Settings.from_env(storage_dir=storage, model_dir=models), recorded["summary"])
    backend = ReplayBackend(settings.llm_backend, replies)
    service = RagService(settings, llm=backend)
    ids = {row["question"]: row["id"] for row in before.values()}
    golden = settings.storage / "golden-replayed.jsonl"
    golden.write_text(
        "\n".join(
            line for line in args.golden.read_text(encoding="utf-8").splitlines() if json.loads(line)["id"] in before
        )
        + "\n",
        encoding="utf-8",
    )
    after = evaluate_answers(service, golden)
    changed_sources = 0

    def verdict(row: dict[str, Any]) -> str:
        return ("ok" if row["correct"] else "WRONG") + (" (evidence)" if row["replaced_by_evidence"] else "")

    print("id | before | after | answer now")
    for row in after["per_query"]:
        old = before[row["id"]]
        if old.get("top_sources") != row["top_sources"]:
            changed_sources += 1
        if old["correct"] != row["correct"] or old["replaced_by_evidence"] != row["replaced_by_evidence"]:
            print(f"{ids[row['question']]} | {verdict(old)} | {verdict(row)} | {' '.join(row['answer'].split())[:110]}")
    print(f"passages changed: {changed_sources}; replies not found: {backend.missing}")
    print("run | " + " | ".join(COLUMNS[:5]))
    for label, summary in (("recorded", recorded["summary"]), ("replayed", after["summary"])):
        print(f"{label} | " + " | ".join(str(summary.get(c)) for c in COLUMNS[:5]))
    if args.json:
        args.json.write_text(json.dumps([after], ensure_ascii=False, indent=1), encoding="utf-8")


if __name__ == "__main__":
    main()
