"""The quiz store: JSON files written atomically; list, judge, scores, export, delete; safe under threads."""

from __future__ import annotations

import json
import threading
from pathlib import Path

import pytest

from rag.quiz.models import CitationRef, Quiz, QuizItem
from rag.quiz.store import QuizNotFoundError, QuizStore
from rag.service import RagService
from rag.settings import Settings


def make_quiz(quiz_id: str = "abc123", created_at: str = "2026-01-01T00:00:00+00:00") -> Quiz:
    cite = CitationRef(source="返品.pdf", page=1, quote="返品は購入後30日以内であれば受け付けます。", chunk_id="c1")
    return Quiz(
        id=quiz_id,
        source="返品.pdf",
        level="beginner",
        created_at=created_at,
        backend="extractive",
        items=[
            QuizItem(
                id="q1",
                statement="返品は購入後30日以内であれば受け付けます。",
                answer_bool=True,
                explanation="正しい。",
                citations=[cite],
            ),
            QuizItem(
                id="q2",
                statement="返品は購入後45日以内であれば受け付けます。",
                answer_bool=False,
                explanation="誤り。文書には「返品は購入後30日以内であれば受け付けます。」とあります。",
                citations=[cite],
            ),
        ],
    )


def test_round_trip_list_judge_scores_export_delete(tmp_path: Path) -> None:
    store = QuizStore(tmp_path / "quizzes")
    assert store.list() == []
    store.save(make_quiz("old", "2026-01-01T00:00:00+00:00"))
    store.save(make_quiz("new", "2026-02-01T00:00:00+00:00"))
    assert store.get("new") == make_quiz("new", "2026-02-01T00:00:00+00:00")
    assert [s.id for s in store.list()] == ["new", "old"]
    assert store.list()[0].count == 2 and store.list()[0].best_score is None

    right = store.judge("new", "q2", False)
    wrong = store.judge("new", "q1", False)
    assert right.correct and not wrong.correct
    assert "30日以内" in right.explanation and right.citations[0].chunk_id == "c1"

    store.record_score("new", 1, 2)
    store.record_score("new", 2, 2)
    assert [(s.correct, s.total) for s in store.scores("new")] == [(1, 2), (2, 2)]
    assert next(s for s in store.list() if s.id == "new").best_score == 1.0

    exported = json.loads(store.export("new"))
    assert exported["items"][1]["answer_bool"] is False and "返品" in store.export("new")  # not \u-escaped

    store.delete("old")
    assert [s.id for s in store.list()] == ["new"]
    with pytest.raises(QuizNotFoundError):
        store.get("old")
    with pytest.raises(QuizNotFoundError):
        store.delete("old")
    assert not list((tmp_path / "quizzes").glob("*.tmp"))


def test_bad_ids_scores_and_items_are_refused(tmp_path: Path) -> None:
    store = QuizStore(tmp_path)
    store.save(make_quiz())
    with pytest.raises(ValueError, match="allowed"):
        store.get("../etc/passwd")
    with pytest.raises(ValueError, match="allowed"):
        store.record_score("abc123", 3, 2)
    with pytest.raises(QuizNotFoundError, match="q9"):
        store.judge("abc123", "q9", True)


def test_damaged_file_is_reported_and_skipped_in_the_list(tmp_path: Path) -> None:
    store = QuizStore(tmp_path)
    store.save(make_quiz())
    (tmp_path / "broken.json").write_text("{not json", encoding="utf-8")
    assert [s.id for s in store.list()] == ["abc123"]
    with pytest.raises(Exception, match="damaged"):
        store.get("broken")


def test_concurrent_score_writes_from_threads_are_all_kept(tmp_path: Path) -> None:
    QuizStore(tmp_path).save(make_quiz())
    errors: list[BaseException] = []

    def attempt(worker: int) -> None:
        store = QuizStore(tmp_path)  # separate objects on one directory share the lock
        try:
            for i in range(10):
                store.record_score("abc123", (worker + i) % 3, 2)
                store.list()
        except BaseException as err:  # noqa: BLE001 - collected and asserted below
            errors.append(err)

    threads = [threading.Thread(target=attempt, args=(w,)) for w in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []
    assert len(QuizStore(tmp_path).scores("abc123")) == 80
    json.loads((tmp_path / "abc123.json").read_text(encoding="utf-8"))


def test_a_write_by_another_process_reaches_the_quiz_pool_without_being_told(
    tmp_path: Path, settings: Settings, minilm_embedder: object
) -> None:
    folder = tmp_path / "docs"
    folder.mkdir()
    note = folder / "note.md"
    note.write_text("# Backups\n\nSnapshots older than 45 days are pruned automatically every night.\n", "utf-8")
    dashboard = RagService(settings, embedder=minilm_embedder)  # type: ignore[arg-type]
    dashboard.index_paths([folder])
    assert "45 days" in dashboard.quiz_pool.chunks("docs/note.md")[0].text
    # the CLI, another process: its own service over the same storage
    note.write_text("# Backups\n\nSnapshots older than 90 days are pruned automatically every night.\n", "utf-8")
    RagService(settings, embedder=minilm_embedder).index_paths([folder])  # type: ignore[arg-type]
    assert "90 days" in dashboard.quiz_pool.chunks("docs/note.md")[0].text
