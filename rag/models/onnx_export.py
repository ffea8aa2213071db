"""Convert a local sentence-transformers folder to ONNX (fp32 or int8), offline, once.

sentence-transformers' own ONNX back end needs ``optimum-onnx``, whose only release (0.1.0) requires
transformers < 4.58 (this project pins 5.23), so it cannot be installed here. The conversion uses the two
libraries that back end wraps: torch's ONNX exporter for the graph, and ONNX Runtime's quantizer with the
settings of Optimum's ``AutoQuantizationConfig`` for this CPU (``avx512_vnni``, ``avx512``, ``avx2`` or ``arm64``,
chosen from the CPU's flags at build time and recorded). Dynamic int8: weights quantized per channel (symmetric),
activations per batch (asymmetric uint8), no calibration needed. Static int8 (``--quantization static``,
``rag.models.static_quantization``): activation ranges calibrated once on the shipped sample or on the chunks of
an index (``--calibrate-from STORAGE``).

Run ``python -m rag.models.onnx_export [--models-dir DIR] [--model NAME] --precision int8 [--quantization static]``
once; the folder it writes (``<models>/<model folder>-onnx-<precision>[-static]``) is what
``RAG_EMBEDDING_BACKEND=onnx`` (with ``RAG_EMBEDDING_QUANTIZATION=static`` for the static one) loads.
"""

from __future__ import annotations

import argparse
import json
import platform
import shutil
import tempfile
import time
from pathlib import Path

from rag.errors import ModelUnavailableError
from rag.models.e5_rebuild import file_sha256

ONNX_PRECISIONS = ("fp32", "int8")
ONNX_QUANTIZATIONS = ("dynamic", "static")
INFO_FILE = "onnx_info.json"
_TOKENIZER_FILES = ("tokenizer.json", "tokenizer_config.json", "special_tokens_map.json", "config.json")
_WEIGHT_FILES = ("model.safetensors", "pytorch_model.bin")


def converted_folder(models_dir: Path, source: Path, precision: str, quantization: str = "dynamic") -> Path:
    """Where the ONNX conversion of ``source`` at ``precision`` lives (static int8 beside the dynamic one)."""
    suffix = "-static" if precision == "int8" and quantization == "static" else ""
    return models_dir / f"{source.name}-onnx-{precision}{suffix}"


def build_command(models_dir: Path, model: str, precision: str, quantization: str = "dynamic") -> str:
    """The command line that builds the converted model (quoted in error messages)."""
    command = f"python -m rag.models.onnx_export --models-dir {models_dir} --model {model} --precision {precision}"
    return command + (" --quantization static" if precision == "int8" and quantization == "static" else "")


def cpu_quantization_target(cpuinfo: str | None = None) -> str:
    """The Optimum quantization preset that suits this CPU: ``avx512_vnni``, ``avx512``, ``avx2`` or ``arm64``."""
    if platform.machine().lower() in ("aarch64", "arm64"):
        return "arm64"
    if cpuinfo is None:
        try:
            cpuinfo = Path("/proc/cpuinfo").read_text(encoding="utf-8", errors="replace")
        except OSError:
            cpuinfo = ""
    flags = set(next((line for line in cpuinfo.splitlines() if line.startswith("flags")), "").split())
    if "avx512_vnni" in flags or "avx_vnni" in flags:
        return "avx512_vnni"
    if "avx512f" in flags and "avx512bw" in flags:
        return "avx512"
    return "avx2"


def source_digest(source: Path) -> str:
    """sha256 of the weights file of a sentence-transformers folder (what a conversion was made from)."""
    for name in _WEIGHT_FILES:
        if (source / name).is_file():
            return file_sha256(source / name)
    raise ModelUnavailableError(f"{source} holds no model.safetensors or pytorch_model.bin to convert.")


def _export_fp32(source: Path, onnx_path: Path) -> None:
    import torch
    from transformers import AutoModel

    model = AutoModel.from_pretrained(str(source), local_files_only=True).eval()

    class _HiddenStates(torch.nn.Module):  # keyword arguments: transformers 5 moved positional ones
        def __init__(self) -> None:
            super().__init__()
            self.model = model

        def forward(self, input_ids: torch.Tensor, attention_mask: torch.Tensor) -> torch.Tensor:
            return self.model(input_ids=input_ids, attention_mask=attention_mask).last_hidden_state

    example = torch.ones(2, 16, dtype=torch.long)
    axes = {0: "batch", 1: "tokens"}
    with torch.no_grad():
        torch.onnx.export(
            _HiddenStates(),
            (example, example),
            str(onnx_path),
            input_names=["input_ids", "attention_mask"],
            output_names=["last_hidden_state"],
            dynamic_axes={"input_ids": axes, "attention_mask": axes, "last_hidden_state": axes},
            opset_version=17,
            dynamo=False,
        )


def _quantize_dynamic(fp32_path: Path, int8_path: Path, target: str) -> None:
    from onnxruntime.quantization import QuantType, quantize_dynamic

    # Optimum's AutoQuantizationConfig presets: AVX2 lacks the u8 x s8 instruction without saturation, so its
    # weights are uint8; the AVX-512 and ARM presets use int8 weights.
    quantize_dynamic(
        str(fp32_path),
        str(int8_path),
        per_channel=True,
        reduce_range=False,
        weight_type=QuantType.QUInt8 if target == "avx2" else QuantType.QInt8,
        extra_options={"WeightSymmetric": True, "ActivationSymmetric": False},
    )


def build_onnx_model(
    source: Path,
    target: Path,
    precision: str,
    quantization: str = "dynamic",
    calibration_texts: list[str] | None = None,
    calibration_origin: str = "",
) -> Path:
    """Convert the sentence-transformers folder ``source`` into ``target`` (replaced if it exists).

    Args:
        source: a local sentence-transformers folder (a BERT-like transformer, then pooling).
        target: the folder to write: ``model.onnx``, the tokenizer, and ``onnx_info.json``.
        precision: ``fp32`` or ``int8`` (quantized for this CPU).
        quantization: int8 only: ``dynamic`` (activation ranges per batch) or ``static`` (calibrated here).
        calibration_texts: static only: the texts to calibrate on (default: the shipped sample).
        calibration_origin: static only: where the texts came from, recorded in ``onnx_info.json``.

    Returns:
        ``target``.

    Raises:
        ValueError: ``precision`` or ``quantization`` is not an allowed value.
        ModelUnavailableError: ``source`` is not a convertible folder.
    """
    if precision not in ONNX_PRECISIONS:
        raise ValueError(f"precision={precision!r}; allowed: {', '.join(ONNX_PRECISIONS)}")
    if quantization not in ONNX_QUANTIZATIONS:
        raise ValueError(f"quantization={quantization!r}; allowed: {', '.join(ONNX_QUANTIZATIONS)}")
    if not (source / "config.json").is_file():
        raise ModelUnavailableError(f"{source} is not a model folder (no config.json); build or choose another.")
    started = time.perf_counter()
    digest = source_digest(source)
    target.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=target.parent, prefix=f".{target.name}-") as scratch:
        work = Path(scratch)
        fp32_path = work / "fp32.onnx"
        _export_fp32(source, fp32_path)
        target_cpu = cpu_quantization_target()
        how, calibration = "", ""
        if precision == "int8" and quantization == "static":
            from rag.models.static_quantization import quantize_static_int8, shipped_calibration_texts

            texts = calibration_texts or shipped_calibration_texts()
            calibration = f"{len(texts)} texts from {calibration_origin or 'the shipped sample'}"
            quantize_static_int8(fp32_path, work / "model.onnx", source, texts, target_cpu, _prompts(source))
            how = f"static-{target_cpu}"
            fp32_path.unlink()
        elif precision == "int8":
            how = f"dynamic-{target_cpu}"
            _quantize_dynamic(fp32_path, work / "model.onnx", target_cpu)
            fp32_path.unlink()
        else:
            fp32_path.rename(work / "model.onnx")
        for name in _TOKENIZER_FILES:
            if (source / name).is_file():
                shutil.copy2(source / name, work / name)
        info = {
            "source": source.name,
            "source_sha256": digest,
            "precision": precision,
            "quantization": how,
            "calibration": calibration,
            "pooling": _pooling(source),
            "prompts": _prompts(source),
            "max_seq_length": _max_seq_length(source),
            "built_by": "rag.models.onnx_export",
            "build_seconds": round(time.perf_counter() - started, 1),
        }
        (work / INFO_FILE).write_text(json.dumps(info, indent=2), encoding="utf-8")
        if target.exists():
            shutil.rmtree(target)
        work.rename(target)
        work.mkdir()  # TemporaryDirectory removes the path it made; give it one to remove
    return target


def _read_json(path: Path) -> dict:
    return json.loads(path.read_text(encoding="utf-8")) if path.is_file() else {}


def _pooling(source: Path) -> str:
    config = _read_json(source / "1_Pooling" / "config.json")
    if config.get("pooling_mode_cls_token"):
        return "cls"
    if config and not config.get("pooling_mode_mean_tokens"):
        raise ModelUnavailableError(f"{source} pools tokens in a way the ONNX back end does not: {config}.")
    return "mean"


def _prompts(source: Path) -> dict[str, str]:
    return dict(_read_json(source / "config_sentence_transformers.json").get("prompts") or {})


def _max_seq_length(source: Path) -> int:
    return int(_read_json(source / "sentence_bert_config.json").get("max_seq_length") or 512)


def main(argv: list[str] | None = None) -> int:
    from rag.models.sources import resolve_local_folder
    from rag.settings import DEFAULT_EMBEDDING_MODEL, Settings

    parser = argparse.ArgumentParser(prog="python -m rag.models.onnx_export", description=__doc__.splitlines()[0])
    parser.add_argument("--models-dir", type=Path, default=None, help="models folder (default: settings' models)")
    parser.add_argument("--model", default=DEFAULT_EMBEDDING_MODEL, help="embedding model name or local folder")
    parser.add_argument("--precision", choices=ONNX_PRECISIONS, default="int8")
    parser.add_argument("--quantization", choices=ONNX_QUANTIZATIONS, default="dynamic", help="int8 only")
    parser.add_argument("--calibrate-from", type=Path, help="static: calibrate on chunks of the index in this storage")
    parser.add_argument("--calibration-chunks", type=int, default=256, help="static: chunks sampled from the index")
    parser.add_argument("--if-missing", action="store_true", help="do nothing when the converted model exists")
    args = parser.parse_args(argv)
    settings = Settings.from_env(**({"model_dir": args.models_dir} if args.models_dir else {}))
    source = resolve_local_folder(args.model, settings.models)
    folder = converted_folder(settings.models, source, args.precision, args.quantization)
    if args.if_missing and (folder / INFO_FILE).is_file():
        return 0
    texts, origin = None, ""
    if args.calibrate_from is not None:
        from rag.models.static_quantization import indexed_calibration_texts

        texts = indexed_calibration_texts(args.calibrate_from, args.calibration_chunks)
        origin = f"the index in {args.calibrate_from}"
    target = build_onnx_model(source, folder, args.precision, args.quantization, texts, origin)
    info = _read_json(target / INFO_FILE)
    how = info.get("quantization") or "not quantized"
    print(f"built {target} ({args.precision}, {how}) in {info['build_seconds']} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
