"""Crash safety, proven by killing: ``python -m rag index`` gets SIGKILL at random points and inside the Chroma
write and the manifest transaction; after the next run the manifest, Chroma and BM25 hold exactly the ids a clean
build holds (0 lost, 0 orphaned). ``python -m rag check`` reports agreement, and ``--repair`` restores it.

Real processes (forked from a forkserver that preloaded the engine, see ``tests/crash_driver.py``), real Chroma,
the real (small) model. ``bench/faults.py`` runs the same with 20 random points.
"""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
from pathlib import Path

import pytest

from rag.service import RagService
from tests.crash_driver import REPO, IndexRunner, cli_env, edit, make_docs, store_ids

RANDOM_KILLS = 3  # bench/faults.py does 20


@pytest.mark.slow
def test_sigkill_at_random_points_and_inside_each_write_loses_nothing_and_orphans_nothing(
    settings, minilm_embedder, tmp_path: Path
) -> None:
    docs = make_docs(tmp_path / "docs", files=4)
    runner = IndexRunner()
    span_s = runner.timed_run([docs], cli_env(tmp_path / "timing", settings.models, settings.embedding_model))
    env = cli_env(tmp_path / "crashed", settings.models, settings.embedding_model)
    rng = random.Random(12)

    killed = []
    for n in range(RANDOM_KILLS):
        edit(docs, n)
        killed.append(runner.kill_at_random([docs], env, rng, span_s))
    edit(docs, RANDOM_KILLS)
    died_in_chroma = runner.run([docs], env, crash_at="chroma")
    edit(docs, RANDOM_KILLS + 1)
    died_in_manifest = runner.run([docs], env, crash_at="manifest")
    finished = runner.run([docs], env)
    RagService(settings, embedder=minilm_embedder).index_paths([docs])  # a clean build of the final files
    expected = store_ids(settings.storage).manifest

    assert [died_in_chroma, died_in_manifest, finished] == [-9, -9, 0], killed
    after = store_ids(tmp_path / "crashed")
    assert expected and after.manifest == expected  # 0 lost
    assert after.chroma == expected and after.bm25 == expected  # 0 orphaned, BM25 current


def test_check_reports_agreement_and_repair_restores_it(settings, minilm_embedder, tmp_path: Path) -> None:
    docs = make_docs(tmp_path / "docs", files=2)
    service = RagService(settings, embedder=minilm_embedder)
    service.index_paths([docs])
    some = sorted(service.index.manifest.all_chunk_ids())[:3]
    service.index.vectors.delete(some)  # chunks Chroma lost (a disk restored from an older copy)
    env = {**os.environ, **cli_env(settings.storage, settings.models, settings.embedding_model)}

    def check(*flags: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, "-m", "rag", "check", *flags, "--json"], env=env, cwd=REPO,
                              capture_output=True, text=True, timeout=240)  # fmt: skip

    broken, repaired, again = check(), check("--repair"), check()

    assert broken.returncode == 1 and json.loads(broken.stdout)["missing_in_vectors"] == some
    assert "check --repair" in json.loads(broken.stdout)["message"]
    assert repaired.returncode == 0 and json.loads(repaired.stdout)["ok"] is True
    assert again.returncode == 0
    ids = store_ids(settings.storage)
    assert ids.manifest == ids.chroma == ids.bm25
