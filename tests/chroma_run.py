"""A real ``chroma run`` server for tests: started on a free port over a folder, stopped, started again.

The server is the ``chroma`` command chromadb installs beside the Python that runs the tests (the same binary a
team starts); its log goes to ``<path>.log`` so a failure to start shows why.
"""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx

STARTUP_TIMEOUT_S = 60.0


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def chroma_command() -> str:
    beside_python = Path(sys.executable).with_name("chroma")
    found = str(beside_python) if beside_python.exists() else shutil.which("chroma")
    if not found:
        raise RuntimeError("No `chroma` command beside the test Python or on PATH: install the pinned chromadb")
    return found


class ChromaRun:
    """``chroma run --path PATH --host 127.0.0.1 --port PORT`` as a child process."""

    def __init__(self, path: Path, port: int | None = None) -> None:
        self.path = path
        self.port = port or free_port()
        self.host = "127.0.0.1"
        self._process: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"http://{self.host}:{self.port}"

    @property
    def pid(self) -> int:
        if self._process is None:
            raise RuntimeError("the server is not running")
        return self._process.pid

    def start(self) -> ChromaRun:
        """Start the server and return once its heartbeat answers."""
        self.path.mkdir(parents=True, exist_ok=True)
        command = [chroma_command(), "run", "--path", str(self.path), "--host", self.host, "--port", str(self.port)]
        log = self.path.with_suffix(".log").open("ab")
        env = {**os.environ, "ANONYMIZED_TELEMETRY": "False"}
        self._process = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT, env=env)
        deadline = time.monotonic() + STARTUP_TIMEOUT_S
        while time.monotonic() < deadline:
            if self._process.poll() is not None:
                raise RuntimeError(f"`chroma run` exited with {self._process.returncode}: see {log.name}")
            try:
                if httpx.get(self.url + "/api/v2/heartbeat", timeout=1.0).status_code == 200:
                    return self
            except httpx.TransportError:
                pass
            time.sleep(0.1)
        self.stop()
        raise RuntimeError(f"`chroma run` did not answer within {STARTUP_TIMEOUT_S:.0f} s: see {log.name}")

    def stop(self) -> None:
        """Stop the server (as an operator would) and wait until its port is closed."""
        if self._process is None:
            return
        self._process.terminate()
        try:
            self._process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            self._process.kill()
            self._process.wait()
        self._process = None

    def pause(self) -> None:
        """Freeze the server: connections are accepted by the kernel but nothing answers (a hung server)."""
        os.kill(self.pid, signal.SIGSTOP)

    def resume(self) -> None:
        os.kill(self.pid, signal.SIGCONT)
