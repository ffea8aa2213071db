"""Plain text and Markdown: byte decoding (UTF-8/16, Shift_JIS, EUC-JP), paragraphs, headings, tables.

A plain-text chat export (LINE, Slack, WhatsApp-style ``date time name: text`` lines) is read as turns.
"""

from __future__ import annotations

import re
from dataclasses import replace

from rag.errors import DocumentReadError
from rag.ingest.parsing.dialogue import Dialogue, dialogue_document, parse_chat_lines
from rag.ingest.parsing.tabular import render_markdown_table, split_markdown_row
from rag.ingest.text_cleanup import GARBAGE_PAGE_THRESHOLD, garbage_ratio, looks_double_encoded, normalize_text
from rag.records import Block, ParsedDocument

_BOMS = ((b"\xef\xbb\xbf", "utf-8-sig"), (b"\xff\xfe", "utf-16"), (b"\xfe\xff", "utf-16"))
_HIRAGANA = re.compile(r"[\u3041-\u309f]")
_ATX = re.compile(r"^(#{1,6})\s+(.+?)\s*#*\s*$")
_FENCE = re.compile(r"^(```|~~~)")
_TABLE_SEPARATOR = re.compile(r"^\|?\s*:?-{2,}:?\s*(\|\s*:?-{2,}:?\s*)*\|?$")
_SETEXT = re.compile(r"^(=+|-+)\s*$")


def decode_text(data: bytes, name: str) -> str:
    """Decode a text file's bytes, guessing the encoding; refuse binary data.

    Tries a BOM, then UTF-8, then the Japanese legacy encodings (cp932 / EUC-JP, whichever reads
    as more natural Japanese), then cp1252.

    Args:
        data: the file's bytes.
        name: the file name, for messages.

    Returns:
        The decoded text (not yet normalized).

    Raises:
        DocumentReadError: the bytes are binary data or no known encoding reads them.
    """
    text = _decode(data)
    if text is not None and garbage_ratio(text[:20000]) > GARBAGE_PAGE_THRESHOLD and looks_double_encoded(text[:20000]):
        raise DocumentReadError(
            f"{name} is garbled text (mojibake such as 'ã‚¤'): it was converted to UTF-8 twice, once from text that "
            "already was UTF-8. Saving it again as UTF-8 does not help: take the original file, or open this one "
            "as Western (Windows-1252) text and save it as UTF-8, then try again."
        )
    if text is None or garbage_ratio(text[:20000]) > GARBAGE_PAGE_THRESHOLD:
        raise DocumentReadError(
            f"{name} does not contain readable text (binary data or an unknown encoding). "
            "Check that it is really a text file, or save it as UTF-8 and try again."
        )
    return text


def _decode(data: bytes) -> str | None:
    encoding = text_encoding(data)
    return None if encoding is None else data.decode(encoding, errors="replace")


def text_encoding(data: bytes) -> str | None:
    """The codec ``decode_text`` reads these bytes with (``None``: binary data); strict where it names one that
    decoded them without a fault, so decoding with ``errors="replace"`` changes nothing but for the BOM kinds."""
    for bom, encoding in _BOMS:
        if data.startswith(bom):
            return encoding
    head = data[:8192]
    if b"\x00" in head:
        # UTF-16 without a BOM puts a zero byte beside every ASCII character; anything else is binary
        if head[1::2].count(0) > len(head) * 0.4:
            return "utf-16-le"
        if head[0::2].count(0) > len(head) * 0.4:
            return "utf-16-be"
        return None
    try:
        data.decode("utf-8")
        return "utf-8"
    except UnicodeDecodeError:
        pass
    candidates: list[tuple[int, int, str]] = []
    for encoding in ("cp932", "euc_jp"):
        try:
            candidates.append((len(_HIRAGANA.findall(data.decode(encoding)[:20000])), -len(candidates), encoding))
        except UnicodeDecodeError:
            continue
    if candidates:
        return max(candidates)[2]
    try:
        data.decode("cp1252")  # Western legacy text
        return "cp1252"
    except UnicodeDecodeError:
        return "utf-8"  # with replacement characters


def text_blocks(text: str) -> list[Block]:
    """Paragraphs (split at blank lines) of already-normalized text as text blocks."""
    return [Block(text=p.strip("\n")) for p in text.split("\n\n") if p.strip()]


def parse_text(data: bytes, name: str, date: str) -> ParsedDocument:
    """Read a plain-text file: normalized paragraphs, or the turns of a chat export.

    Raises:
        DocumentReadError: binary data, or nothing but whitespace.
    """
    raw = decode_text(data, name)
    # before normalizing: LINE exports separate time, name and text with tabs
    if (chat := parse_chat_lines(raw.replace("\r\n", "\n").replace("\r", "\n"))) is not None:
        preamble, turns = chat
        doc = dialogue_document([Dialogue("", tuple(turns))], date)
        return replace(doc, blocks=(Block(text=preamble), *doc.blocks)) if preamble else doc
    text = normalize_text(raw, keep_indent=True)
    blocks = text_blocks(text)
    if not blocks:
        raise DocumentReadError(f"{name} contains no text. Add content to the file and try again.")
    return ParsedDocument(blocks=tuple(blocks), date=date)


def parse_markdown(data: bytes, name: str, date: str) -> ParsedDocument:
    """Read Markdown: ``#`` / setext headings become sections, pipe tables become table blocks.

    Raises:
        DocumentReadError: binary data, or nothing but whitespace.
    """
    lines = _without_front_matter(normalize_text(decode_text(data, name), keep_indent=True).split("\n"))
    blocks: list[Block] = []
    section, title = "", ""
    para: list[str] = []
    in_fence = False

    def flush() -> None:
        if para and "".join(para).strip():
            blocks.append(Block(text="\n".join(para).strip("\n"), section=section))
        para.clear()

    i = 0
    while i < len(lines):
        line = lines[i]
        if _FENCE.match(line):
            in_fence = not in_fence
            para.append(line)
        elif in_fence:
            para.append(line)
        elif (heading := _heading(lines, i)) is not None:
            flush()
            section = heading
            title = title or heading
            blocks.append(Block(text=heading, kind="heading", section=section))
            i += 0 if _ATX.match(line) else 1  # a setext heading also consumes its underline
        elif line.startswith("|") and i + 1 < len(lines) and _TABLE_SEPARATOR.match(lines[i + 1]):
            flush()
            end = i + 2
            while end < len(lines) and lines[end].startswith("|"):
                end += 1
            rows = [split_markdown_row(row) for row in [lines[i], *lines[i + 2 : end]]]
            blocks.append(Block(text=render_markdown_table(rows[0], rows[1:]), kind="table", section=section))
            i = end - 1
        elif not line.strip():
            flush()
        else:
            para.append(line)
        i += 1
    flush()
    if not blocks:
        raise DocumentReadError(f"{name} contains no text. Add content to the file and try again.")
    return ParsedDocument(blocks=tuple(blocks), title=title, date=date)


def _without_front_matter(lines: list[str]) -> list[str]:
    """Lines after a leading YAML front-matter block (``---`` ... ``---``), if there is one."""
    if lines and lines[0].strip() == "---" and "---" in (rest := [line.strip() for line in lines[1:]]):
        return lines[rest.index("---") + 2 :]
    return lines


def _heading(lines: list[str], i: int) -> str | None:
    if match := _ATX.match(lines[i]):
        return match.group(2).strip()
    nxt = lines[i + 1] if i + 1 < len(lines) else ""
    if lines[i].strip() and not lines[i].startswith(("|", "-", "*", "+", ">")) and _SETEXT.match(nxt):
        if nxt.startswith("=") or len(nxt.strip()) >= 3:
            return lines[i].strip()
    return None
