"""The fault suite in one line: bad inputs, SIGKILLed index runs, concurrent writers and readers, LLM faults.

Run: .venv/bin/python bench/faults.py [--kills 20] [--seconds 20] [--llm-timeout 2] [--models DIR]
Prints one summary line (and the details above it on stderr): bad inputs tried (``bench/fault_inputs.py``: through
the upload path and a folder scan) and how many got the outcome and message a user should see,
crash points, concurrent operations, lost and orphaned chunks (both must be 0), and each LLM fault with the time
until its message. Uses the small MiniLM model; the index runs are ``rag.cli.main`` in forked processes.
"""

from __future__ import annotations

import argparse
import os
import random
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.fault_inputs import folder_inputs, meets, uploads  # noqa: E402
from rag.errors import LLMError, UploadNameError  # noqa: E402
from rag.ingest.uploads import printable_name, safe_upload_name  # noqa: E402
from rag.llm.base import Message  # noqa: E402
from rag.llm.ollama_backend import OllamaBackend  # noqa: E402
from rag.models.embedding import MINILM_OFFLINE  # noqa: E402
from rag.service import RagService  # noqa: E402
from rag.settings import Settings  # noqa: E402
from tests.crash_driver import IndexRunner, cli_env, edit, make_docs, store_ids  # noqa: E402
from tests.ollama_api_server import LLMTestServer, Reply, SilentServer  # noqa: E402

MODEL = "qwen2.5:7b-instruct"


def say(text: str) -> None:
    print(text, file=sys.stderr, flush=True)


def clear_messages(work: Path, models: Path) -> tuple[int, int, list[str]]:
    """Send every bad input through the upload path, then the folder-only ones through a folder scan.

    Returns:
        Inputs tried, how many got the outcome a user should see (with its message), and the kinds that did not.
    """
    settings = Settings(storage_dir=work / "store", model_dir=models, embedding_model=MINILM_OFFLINE, max_file_mb=5)
    service = RagService(settings)
    sent = uploads(work / "made", settings.max_file_mb)
    report = service.index_uploads([(i.name, i.data) for i in sent])
    by_name = {o.source: o for o in report.files}
    stored = {i.kind: _stored_name(i.name) for i in sent}
    checks = [(i.kind, by_name.get(stored[i.kind]), i.expect) for i in sent]
    in_folder = folder_inputs(work / "folder")
    folder_report = {o.source: o for o in service.index_paths([work / "folder"]).files}
    checks += [(kind, folder_report.get(source), expect) for kind, source, expect in in_folder]
    missed = []
    for kind, outcome, expect in checks:
        ok = meets(outcome, expect)
        missed += [] if ok else [kind]
        shown = f"{outcome.status}: {(outcome.error or '; '.join(outcome.warnings))[:110]}" if outcome else "NO OUTCOME"
        say(f"  {'ok  ' if ok else 'MISS'} {kind} (expected {expect}) -> {shown}")
    return len(checks), len(checks) - len(missed), missed


def _stored_name(name: str) -> str:
    try:
        return safe_upload_name(name)
    except UploadNameError:
        return printable_name(name)


def crash_points(runner: IndexRunner, work: Path, models: Path, kills: int) -> tuple[int, int, int]:
    """Random SIGKILLs and the two exact ones, then one full run; lost and orphaned ids against a clean build."""
    docs = make_docs(work / "docs")
    span_s = runner.timed_run([docs], cli_env(work / "timing", models, MINILM_OFFLINE))
    env = cli_env(work / "crashed", models, MINILM_OFFLINE)
    rng = random.Random(2026)
    points = 0
    for n in range(kills):
        edit(docs, n)
        points += runner.kill_at_random([docs], env, rng, span_s)
    for n, point in enumerate(("chroma", "manifest"), kills):
        edit(docs, n)
        points += runner.run([docs], env, crash_at=point) == -9
    if runner.run([docs], env) != 0:
        raise RuntimeError("the run after the crashes failed")
    if runner.run([docs], cli_env(work / "clean", models, MINILM_OFFLINE)) != 0:
        raise RuntimeError("the clean build failed")
    clean, after = store_ids(work / "clean").manifest, store_ids(work / "crashed")
    lost = len(clean - after.manifest) + len(clean - after.chroma) + len(clean - after.bm25)
    orphaned = len(after.manifest - clean) + len(after.chroma - clean) + len(after.bm25 - clean)
    return points, lost, orphaned


def concurrency(runner: IndexRunner, work: Path, models: Path, seconds: float) -> tuple[int, int, int]:
    """Two writer processes (one run after another while time lasts) and eight reader threads."""
    env = cli_env(work / "shared", models, MINILM_OFFLINE)
    if runner.run([make_docs(work / "base", files=2)], env) != 0:
        raise RuntimeError("the base build failed")
    for name, value in env.items():
        os.environ[name] = value
    reader = RagService()
    folders = [make_docs(work / name, files=3) for name in ("alpha", "beta")]
    stop = threading.Event()
    counts = {"searches": 0, "errors": 0, "writes": 0}
    lock = threading.Lock()

    def read(n: int) -> None:
        while not stop.is_set():
            try:
                reader.search(f"device {n % 3} status code", top_k=5)
                outcome = "searches"
            except Exception as err:  # counted and shown: any failure is what this measures
                say(f"  reader error: {type(err).__name__}: {err}")
                outcome = "errors"
            with lock:
                counts[outcome] += 1

    def write(folder: Path) -> None:
        n = 0
        while not stop.is_set():
            edit(folder, n)
            n += 1
            code = runner.run([folder], env)
            with lock:
                counts["writes" if code == 0 else "errors"] += 1

    threads = [threading.Thread(target=read, args=(n,)) for n in range(8)]
    threads += [threading.Thread(target=write, args=(f,)) for f in folders]
    for thread in threads:
        thread.start()
    time.sleep(seconds)
    stop.set()
    for thread in threads:
        thread.join(300)
    return counts["searches"], counts["writes"], counts["errors"]


def llm_faults(timeout_s: float) -> list[tuple[str, float, str]]:
    """Each fault, the seconds until the engine's message, and the message's start."""
    ask = [Message("user", "What does TEEC_OpenSession do?")]
    cases: list[tuple[str, Callable[[LLMTestServer], Reply | None], str]] = [
        ("missing model", lambda s: None, "gemma3:4b"),
        ("server error", lambda s: Reply(status=500, error="model requires more system memory"), MODEL),
        ("slow past the timeout", lambda s: Reply("late", delay_s=timeout_s * 5), MODEL),
        ("trickle", lambda s: Reply("It opens a session between two parties.", trickle_s=0.1), MODEL),
        ("truncated stream", lambda s: Reply(pieces=["It ", "opens"], cut_after=1), MODEL),
        ("invalid JSON", lambda s: Reply(raw="{not json"), MODEL),
    ]
    results = []
    with LLMTestServer(models=[MODEL]) as server:
        for name, reply, model in cases:
            scripted = reply(server)
            if scripted is not None:
                server.script(scripted)
            results.append((name, *_time_to_message(OllamaBackend(server.host, model, timeout_s=timeout_s), ask)))
    with SilentServer() as silent:
        hung = OllamaBackend(silent.host, MODEL, timeout_s=timeout_s)
        results.append(("accepts, never answers", *_time_to_message(hung, ask)))
    down = OllamaBackend("http://127.0.0.1:9", MODEL, timeout_s=timeout_s)
    results.append(("down", *_time_to_message(down, ask)))
    return results


def _time_to_message(backend: OllamaBackend, ask: list[Message]) -> tuple[float, str]:
    started = time.perf_counter()
    try:
        "".join(backend.stream_chat(ask))
    except LLMError as err:
        return time.perf_counter() - started, str(err)
    return time.perf_counter() - started, "NO MESSAGE: the fault was not reported"


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--kills", type=int, default=20)
    parser.add_argument("--seconds", type=float, default=20.0, help="how long writers and readers run together")
    parser.add_argument("--llm-timeout", type=float, default=2.0)
    default_models = Path(os.environ.get("RAG_MODEL_DIR", ROOT / "storage" / "models"))
    parser.add_argument("--models", type=Path, default=default_models, help="where the built models are")
    args = parser.parse_args()
    models = args.models.resolve()
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        tried, clear, missed = clear_messages(work / "inputs", models)
        runner = IndexRunner()
        points, lost, orphaned = crash_points(runner, work / "crash", models, args.kills)
        searches, writes, errors = concurrency(runner, work / "concurrency", models, args.seconds)
    faults = llm_faults(args.llm_timeout)
    for name, seconds, message in faults:
        say(f"  LLM {name}: {seconds:.2f} s: {message[:140]}")
    llm = ", ".join(f"{name} {seconds:.2f} s" for name, seconds, _ in faults)
    print(
        f"faults: {tried} bad inputs tried, {clear} with the outcome and message a user should see"
        f"{' (missed: ' + ', '.join(missed) + ')' if missed else ''}; {points} SIGKILLs that landed "
        f"mid-run (of {args.kills} at random moments + 2 inside the Chroma write / manifest transaction); "
        f"{searches} searches and {writes} index runs concurrently (2 writer processes, 8 reader threads, "
        f"{args.seconds:g} s), {errors} errors; "
        f"lost chunks {lost}, orphaned chunks {orphaned}; LLM faults (timeout {args.llm_timeout:g} s): {llm}"
    )


if __name__ == "__main__":
    main()
