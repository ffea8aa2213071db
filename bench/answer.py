"""Grounded answers and quizzes with the configured LLM (the embedded model by default), end to end.

Run from the repository root (models provisioned by ``scripts/start.sh`` or ``scripts/test.sh``)::

    .venv/bin/python bench/answer.py                      # 10 JSQuAD + 10 SciFact questions, 2 quizzes
    .venv/bin/python bench/answer.py --questions 4 --quizzes 1 --json

It writes a small corpus from ``../shared/data`` (each question's paragraph plus distractors, one text file per
document, and one long Japanese and one English document for the quizzes) into a temporary storage, indexes it
with the default embedding model, then for every question runs what the QA page runs: search (contextual),
the streamed answer, verified citations. It prints:

- time to first token (from the start of the LLM call to the model's first text) and end-to-end time (search +
  answer + citations), p50;
- of the answers that cite, the share whose every citation shown verifies (its quote found verbatim in its
  chunk's text, re-read from the index), and the strict share that also needs every ``[n]`` the model wrote to
  name a passage (a marker naming none is removed before display, with a note: ``invalid_marker_share``);
  beside them, the shares of answers that cite at all, that say the passages do not hold the answer, and that
  claim something uncited (the page marks those "could not be verified");
- the JSQuAD exact-answer hit rate: the answer contains one of the dataset's answer spans (NFKC, spaces removed);
- quizzes: seconds per 5 items, first-try validity (generation replies that parsed as the schema on the first
  call) and the share of FALSE items.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
import unicodedata
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from golden_sets import DATA, SETS  # noqa: E402

from rag.answers.citations import drop_invalid_markers  # noqa: E402
from rag.answers.faithfulness import says_unknown  # noqa: E402
from rag.answers.prompts import split_followups  # noqa: E402
from rag.errors import LLMOutputError  # noqa: E402
from rag.llm.selection import select_backend  # noqa: E402
from rag.quiz.restatement import parse_reply  # noqa: E402
from rag.service import RagService  # noqa: E402
from rag.settings import Settings  # noqa: E402

DISTRACTORS = 40


def _read_jsonl(path: Path) -> list[dict]:
    with path.open(encoding="utf-8") as handle:
        return [json.loads(line) for line in handle if line.strip()]


def _qrels(path: Path) -> dict[str, list[str]]:
    relevant: dict[str, list[str]] = defaultdict(list)
    for line in path.read_text(encoding="utf-8").splitlines()[1:]:
        query_id, doc_id, score = line.split("\t")
        if int(score) > 0:
            relevant[query_id].append(doc_id)
    return relevant


def _questions(dataset: str, split: str, n: int) -> tuple[list[dict], list[dict]]:
    """``n`` questions spread over the dataset, and the documents to index: theirs plus distractors."""
    folder = DATA / dataset
    corpus = {doc["_id"]: doc for doc in _read_jsonl(folder / "corpus.jsonl")}
    relevant = _qrels(folder / "qrels" / f"{split}.tsv")
    queries = [q for q in _read_jsonl(folder / "queries.jsonl") if relevant.get(q["_id"])]
    chosen = queries[:: max(1, len(queries) // n)][:n] if n > 0 else []
    doc_ids = {doc_id for q in chosen for doc_id in relevant[q["_id"]]}
    doc_ids.update(list(corpus)[:DISTRACTORS])
    return chosen, [corpus[d] for d in sorted(doc_ids) if d in corpus]


def _write_corpus(folder: Path, docs: list[dict]) -> None:
    for doc in docs:
        safe = "".join(c if c.isalnum() else "_" for c in doc["_id"])
        (folder / f"{safe}.txt").write_text(f"{doc['title']}\n\n{doc['text']}\n", encoding="utf-8")


def _quiz_documents(folder: Path) -> list[str]:
    """One long Japanese document (the JSQuAD title with most paragraphs) and one English (SciFact abstracts)."""
    by_title: dict[str, list[str]] = defaultdict(list)
    for doc in _read_jsonl(DATA / "jsquad-ja" / "corpus.jsonl"):
        by_title[doc["title"]].append(doc["text"])
    title, paragraphs = max(by_title.items(), key=lambda item: len(item[1]))
    ja = folder / "quiz-ja.md"
    ja.write_text(f"# {title}\n\n" + "\n\n".join(paragraphs), encoding="utf-8")
    abstracts = _read_jsonl(DATA / "scifact" / "corpus.jsonl")[100:112]
    en = folder / "quiz-en.md"
    en.write_text("\n\n".join(f"## {d['title']}\n\n{d['text']}" for d in abstracts), encoding="utf-8")
    return [ja.name, en.name]


def _compact(text: str) -> str:
    return "".join(unicodedata.normalize("NFKC", text).split()).lower()


class RecordingBackend:
    """Wraps an LLM backend and keeps every structured reply, to measure first-try validity."""

    def __init__(self, inner) -> None:  # type: ignore[no-untyped-def]
        self._inner = inner
        self.structured_replies: list[tuple[int, bool]] = []  # (conversation length, parsed)
        self.structured_calls: list[dict] = []  # seconds, prompt and reply size of each structured call
        self.first_token_s: float | None = None

    def __getattr__(self, name: str):  # type: ignore[no-untyped-def]
        return getattr(self._inner, name)

    def stream_chat(self, messages, *, temperature=0.2):  # type: ignore[no-untyped-def]
        """The inner stream; ``first_token_s`` is set when the model's first text arrives (not when it is shown)."""
        started = time.perf_counter()
        self.first_token_s = None
        for piece in self._inner.stream_chat(messages, temperature=temperature):
            if self.first_token_s is None and piece.strip():
                self.first_token_s = time.perf_counter() - started
            yield piece

    def chat(self, messages, *, schema=None, temperature=0.2):  # type: ignore[no-untyped-def]
        started = time.perf_counter()
        reply = self._inner.chat(messages, schema=schema, temperature=temperature)
        if schema is not None:
            self.structured_calls.append(
                {
                    "seconds": round(time.perf_counter() - started, 1),
                    "prompt_chars": sum(len(m.content) for m in messages),
                    "reply_chars": len(reply),
                }
            )
            try:
                parse_reply(reply)
                parsed = True
            except LLMOutputError:
                parsed = False
            self.structured_replies.append((len(messages), parsed))
        return reply


def _ask_one(service: RagService, question: str) -> dict:
    started = time.perf_counter()
    draft = service.prepare_answer(question)
    if not draft.basis:
        return {
            "no_basis": True,
            "dropped_markers": [],
            "e2e_s": time.perf_counter() - started,
            "ttft_s": None,
            "answer": None,
        }
    for _piece in draft.stream():
        pass
    ttft = service.llm.first_token_s  # the RecordingBackend's: the page holds a few characters back while streaming
    answer = draft.finish()
    body, _followups = split_followups(draft.reply)
    _kept, dropped = drop_invalid_markers(body, len(draft.passages))
    return {
        "dropped_markers": dropped,
        "no_basis": answer.no_basis,
        "e2e_s": time.perf_counter() - started,
        "ttft_s": ttft,
        "answer": answer,
    }


def _quotes_verified(service: RagService, result: dict) -> bool | None:
    """Every citation shown has a quote verbatim in its chunk's indexed text, re-read (None: nothing cited)."""
    answer = result["answer"]
    if answer is None or not answer.citations:
        return None
    chunks = service.index.manifest.chunks_by_id([c.chunk_id for c in answer.citations])
    return all(c.quote and c.chunk_id in chunks and c.quote in chunks[c.chunk_id].text for c in answer.citations)


def _verified(service: RagService, result: dict) -> bool | None:
    """Strict: every quote verified and every [n] the model wrote named a passage (None: nothing cited)."""
    shown = _quotes_verified(service, result)
    return shown and not result["dropped_markers"] if shown is not None else None


def _p50(values: list[float]) -> float | None:
    return round(statistics.median(values), 2) if values else None


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--questions", type=int, default=10, help="questions per dataset")
    parser.add_argument("--quizzes", type=int, default=2, help="quizzes of 5 items (alternating ja/en)")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()

    work = Path(tempfile.mkdtemp(prefix="bench-answer-"))
    docs_dir = work / "docs"
    docs_dir.mkdir()
    datasets = {name: SETS[name] for name in ("jsquad-ja", "scifact")}  # Japanese questions first
    questions: dict[str, list[dict]] = {}
    for dataset, split in datasets.items():
        chosen, docs = _questions(dataset, split, args.questions)
        questions[dataset] = chosen
        _write_corpus(docs_dir, docs)
    quiz_sources = _quiz_documents(docs_dir)

    env = dict(os.environ)
    env.setdefault("RAG_MODEL_DIR", str(ROOT / "storage" / "models"))
    env["RAG_STORAGE_DIR"] = str(work / "storage")
    settings = Settings.from_env(env)
    backend = RecordingBackend(select_backend(settings))  # the backend the app would pick, recording replies
    service = RagService(settings, llm=backend)  # type: ignore[arg-type]  # same interface, by delegation
    started = time.perf_counter()
    report = service.index_paths([docs_dir])
    index_s = time.perf_counter() - started
    print(
        f"indexed {len(report.files)} files, {report.embedded} chunks in {index_s:.1f} s; LLM: {backend.name}",
        file=sys.stderr,
    )

    rows: list[dict] = []
    for dataset, chosen in questions.items():
        for query in chosen:
            result = _ask_one(service, query["text"])
            answer = result["answer"]
            spans = (query.get("metadata") or {}).get("answers") or []
            if isinstance(spans, dict):
                spans = spans.get("text", [])
            hit = None
            if dataset == "jsquad-ja" and answer is not None:
                hit = any(_compact(span) in _compact(answer.answer) for span in spans if span)
            rows.append(
                {
                    "dataset": dataset,
                    "question": query["text"],
                    "ttft_s": result["ttft_s"],
                    "e2e_s": result["e2e_s"],
                    "no_basis": result["no_basis"],
                    "citations": len(answer.citations) if answer else 0,
                    "verified": _verified(service, result),
                    "quotes_verified": _quotes_verified(service, result),
                    "invalid_markers": result["dropped_markers"],
                    "said_unknown": bool(answer and not answer.citations and says_unknown(answer.answer)),
                    "exact_hit": hit,
                    "answer": answer.answer if answer else "",
                }
            )
            print(
                f"{dataset}: ttft {result['ttft_s'] or 0:.1f} s, e2e {result['e2e_s']:.1f} s, "
                f"verified={rows[-1]['verified']} hit={hit}",
                file=sys.stderr,
            )

    quiz_rows: list[dict] = []
    indexed = service.sources()
    for i in range(args.quizzes):
        name = quiz_sources[i % len(quiz_sources)]
        source = next((s for s in indexed if s.rsplit("/", 1)[-1] == name), name)  # sources keep the folder
        before = len(backend.structured_replies)
        started = time.perf_counter()
        try:
            quiz = service.generate_quiz(source, count=5, level="beginner")
            items, false_items, error = len(quiz.items), sum(not it.answer_bool for it in quiz.items), ""
            statements = [f"{'TRUE ' if it.answer_bool else 'FALSE'} {it.statement}" for it in quiz.items]
        except Exception as err:  # noqa: BLE001  # a shortfall is a figure here, not a crash
            items, false_items, error, statements = 0, 0, str(err), []
        replies = backend.structured_replies[before:]
        calls = backend.structured_calls[before:]
        first_calls = [parsed for length, parsed in replies if length <= 2]
        quiz_rows.append(
            {
                "source": source,
                "seconds": round(time.perf_counter() - started, 1),
                "items": items,
                "false_items": false_items,
                "first_try_valid": sum(first_calls),
                "first_try_calls": len(first_calls),
                "error": error,
                "statements": statements,
                "calls": calls,
            }
        )
        summary = {k: v for k, v in quiz_rows[-1].items() if k not in ("statements", "calls")}
        print(f"quiz {source}: {summary}", file=sys.stderr)

    answered = [r for r in rows if not r["no_basis"]]
    cited = [r for r in answered if r["verified"] is not None]
    jsquad = [r for r in rows if r["dataset"] == "jsquad-ja" and r["exact_hit"] is not None]
    made = [q for q in quiz_rows if q["items"]]
    first_calls = sum(q["first_try_calls"] for q in quiz_rows)
    figures = {
        "llm": backend.name,
        "model": getattr(backend, "model", ""),
        "questions": len(rows),
        "answered": len(answered),
        "ttft_s_p50": _p50([r["ttft_s"] for r in answered if r["ttft_s"] is not None]),
        "e2e_s_p50": _p50([r["e2e_s"] for r in rows]),
        "all_citations_verified_share": round(sum(r["verified"] is True for r in cited) / max(1, len(cited)), 3),
        "shown_citations_verified_share": round(
            sum(r["quotes_verified"] is True for r in cited) / max(1, len(cited)), 3
        ),
        "invalid_marker_share": round(sum(bool(r["invalid_markers"]) for r in answered) / max(1, len(answered)), 3),
        "cited_answer_share": round(len(cited) / max(1, len(answered)), 3),
        "said_unknown_share": round(sum(r["said_unknown"] for r in answered) / max(1, len(answered)), 3),
        "uncited_claim_share": round(
            sum(r["verified"] is None and not r["said_unknown"] for r in answered) / max(1, len(answered)), 3
        ),
        "jsquad_exact_answer_hit_rate": round(sum(r["exact_hit"] for r in jsquad) / max(1, len(jsquad)), 3),
        "quiz_s_per_5_items_p50": _p50([q["seconds"] * 5 / q["items"] for q in made]),
        "quiz_first_try_valid_share": round(sum(q["first_try_valid"] for q in quiz_rows) / max(1, first_calls), 3),
        "quiz_false_share": round(sum(q["false_items"] for q in made) / max(1, sum(q["items"] for q in made)), 3),
        "quizzes_made": f"{len(made)}/{len(quiz_rows)}",
        "index_s": round(index_s, 1),
    }
    if args.json:
        print(json.dumps({"figures": figures, "questions": rows, "quizzes": quiz_rows}, ensure_ascii=False, indent=1))
    else:
        for name, value in figures.items():
            print(f"{name:32s} {value}")
        for q in quiz_rows:
            if q["error"]:
                print(f"quiz {q['source']} failed: {q['error']}")


if __name__ == "__main__":
    main()
