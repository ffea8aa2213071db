"""Big plain-text files read in parts, so a 150 MB log or corpus never sits in memory whole.

A text file over ``STREAM_BYTES`` is decoded ``READ_BYTES`` at a time with the encoding its first part reads as
(the same choice ``decode_text`` makes), cut at the last blank line of what was read, and each part is
normalized and split into paragraphs as ``parse_text`` does for a whole file: the blocks are the same. A part
with no blank line is cut at its last line break (its paragraph becomes two blocks), one with no line break at
all grows to ``4 * READ_BYTES`` before it is cut. Bytes that the chosen encoding cannot read further on become
U+FFFD instead of switching encodings half-way. UTF-16 files and chat exports are read whole (``parse_text``):
a chat's turns are grouped by conversation across the file.
"""

from __future__ import annotations

import codecs
from collections.abc import Iterator
from pathlib import Path

from rag.ingest.parsing.dialogue import parse_chat_lines
from rag.ingest.parsing.plain import decode_text, text_blocks, text_encoding
from rag.ingest.text_cleanup import normalize_text
from rag.records import Block

STREAM_BYTES = 4 * 1024 * 1024
"""Text files larger than this are read in parts."""
READ_BYTES = 256 * 1024
_MAX_PART = 4 * READ_BYTES


class TextStream:
    """The paragraphs of one big text file as blocks, read on demand; iterate once."""

    def __init__(self, path: Path, encoding: str) -> None:
        self.path = path
        self.encoding = encoding
        self._size = max(path.stat().st_size, 1)
        self._read = 0

    def fraction_read(self) -> float:
        """How much of the file the blocks given out so far were read from (0-1), for progress."""
        return min(self._read / self._size, 1.0)

    def __iter__(self) -> Iterator[Block]:
        decoder = codecs.getincrementaldecoder(self.encoding)(errors="replace")
        rest = ""
        with self.path.open("rb") as handle:
            while data := handle.read(READ_BYTES):
                self._read += len(data)
                text = rest + decoder.decode(data)
                held = "\r" if text.endswith("\r") else ""  # may be the first half of a \r\n
                text = text[: len(text) - len(held)].replace("\r\n", "\n").replace("\r", "\n")
                cut = text.rfind("\n\n")
                if cut < 0:
                    cut = text.rfind("\n")
                if cut < 0 and len(text) >= _MAX_PART:
                    cut = len(text)
                if cut <= 0:
                    rest = text + held
                    continue
                yield from text_blocks(normalize_text(text[:cut], keep_indent=True))
                rest = text[cut:] + held
        rest += decoder.decode(b"", final=True)
        yield from text_blocks(normalize_text(rest, keep_indent=True))


def open_text_stream(path: Path) -> TextStream | None:
    """A stream over ``path``'s paragraphs, or ``None`` when it is to be read whole (UTF-16, a chat export).

    Raises:
        DocumentReadError: its first part is binary data, garbled or in no known encoding (``decode_text``'s
            message).
    """
    with path.open("rb") as handle:
        head = handle.read(READ_BYTES)
    sample = head[: head.rfind(b"\n") + 1] or head  # whole lines: a cut multi-byte character reads as a fault
    encoding = text_encoding(sample)
    if encoding is None or encoding.startswith("utf-16"):
        return None  # decode_text on the whole file gives the message (or reads UTF-16's two-byte lines)
    text = decode_text(sample, path.name)
    if parse_chat_lines(text.replace("\r\n", "\n").replace("\r", "\n")) is not None:
        return None
    return TextStream(path, encoding)
