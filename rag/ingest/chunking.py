"""Turn a ``ParsedDocument`` into retrievable ``Chunk``s.

Structure first, then size: a heading starts a new chunk and paragraphs of one section and page are
packed together up to ``settings.chunk_size_for(doc_type)`` characters, split at paragraph, line and
sentence ends (``。．！？.!?``) where possible, with up to ``settings.chunk_overlap`` characters repeated
from the previous chunk. Tables are their own chunks (split by rows, header repeated); JSON records
are one chunk each unless too long (then every piece names its record); chat turns are packed, whole, into chunks of
one conversation.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field, replace

from rag.ingest.lists import LEAD_IN_KEY, is_list_item, open_lead_in
from rag.ingest.metadata import detect_language, extract_entities
from rag.ingest.parsing.dialogue import DIALOGUE_ID, TURN_SPEAKER, chat_metadata
from rag.ingest.parsing.records import RECORD_LABEL, RECORD_NO
from rag.records import OCR, Block, Chunk, ChunkType, ParsedDocument, Scalar
from rag.settings import Settings

DOC_TITLE = "doc_title"
"""Chunk metadata: the title the document gives itself (an HTML page's <title>, a PDF's or office file's title
property), when it has one: a question may name the document by it ("W3Cの「簡便な行組版ルール（案）」では…")."""


def document_title(chunk: Chunk) -> str:
    """The title of the document ``chunk`` is from ("" when it has none, or was read before titles were kept)."""
    return str(chunk.extra.get(DOC_TITLE, ""))


_LETTER = re.compile(r"[^\W\d_]")
_SENTENCE_END = re.compile(r"[。．！？!?]|\.(?=\s)|\n")
_WHITESPACE = re.compile(r"\s")


@dataclass(slots=True)
class _Piece:
    text: str
    chunk_type: ChunkType
    page: int | None
    section: str
    metadata: dict[str, Scalar] = field(default_factory=dict)


def embedded_text(chunk: Chunk) -> str:
    """What the chunk's vector is made from: its document's title and its section's heading, a line each, then its
    text (a contextual header).

    A passage seldom repeats the name of the document it is in, and a question often gives it: "In the 2023 OpenChain
    industry survey, what share of respondents said their company is publicly listed?" The survey's title page held
    the name and came first by meaning; the slide that answers ("あなたの組織(会社) は上場していますか … はい 45.9%")
    was not among the 60 nearest. Under its title it is third. On the realdocs golden set (``python -m rag evaluate
    golden/realdocs_qa.jsonl``) text alone gave nDCG@10 0.874, recall@5 0.898, MRR@10 0.870; title above it 0.882,
    0.949, 0.872; title and heading 0.883, 0.949, 0.876, and with the exceptions below 0.886, 0.949, 0.880 (title
    and file name instead: 0.874, 0.949, 0.861). The live golden run now answers that survey question (45.9%).

    A title without a letter (a PDF whose title property is "1499085913496939777-00223898") names nothing and is left
    out; so is the heading of a page read by OCR, which is a guess from the picture's largest letters ("J ore LM
    TAAL!"), and a heading that is the title again."""
    title = document_title(chunk)
    header = [title] if _LETTER.search(title) else []
    if chunk.section and not chunk.extra.get(OCR) and chunk.section not in header:
        header.append(chunk.section)
    return "\n".join([*header, chunk.text])


def chunk_id(chunk: Chunk) -> str:
    """Stable id: sha256 of the chunk's source, page, ordinal and what its vector is made from (``embedded_text``;
    hex, first 32 characters). A vector is reused for a chunk of the same id, so an id that changes with the title
    or heading has its vector made again."""
    page = chunk.page if chunk.page is not None else 0
    key = f"{chunk.source}\x1f{page}\x1f{chunk.chunk_index}\x1f{embedded_text(chunk)}"
    return hashlib.sha256(key.encode("utf-8")).hexdigest()[:32]


def _best_cut(text: str, lo: int, hi: int) -> int:
    """End index of the best split point in ``text[lo:hi]``: paragraph > line > sentence > space > hard."""
    window = text[lo:hi]
    for sep in ("\n\n", "\n"):
        at = window.rfind(sep)
        if at >= 0:
            return lo + at + len(sep)
    ends = [m.end() for m in _SENTENCE_END.finditer(window)]
    if ends:
        return lo + ends[-1]
    spaces = [m.end() for m in _WHITESPACE.finditer(window)]
    return lo + spaces[-1] if spaces else hi


def _overlap_start(text: str, cut: int, overlap: int) -> int:
    """Where the next chunk starts: within ``overlap`` characters before ``cut``, at a sentence or word start."""
    if overlap <= 0:
        return cut
    begin = cut - overlap
    region = text[begin:cut]
    for pattern in (_SENTENCE_END, _WHITESPACE):
        match = pattern.search(region)
        if match and begin + match.end() < cut:
            return begin + match.end()
    return begin


def split_text(text: str, size: int, overlap: int) -> list[str]:
    """Split text into pieces of at most ``size`` characters with up to ``overlap`` repeated.

    Args:
        text: the text.
        size: maximum characters per piece (>= 1).
        overlap: characters of the previous piece to repeat (< size).

    Returns:
        Stripped, non-empty pieces in order.

    Raises:
        ValueError: ``size`` < 1 or ``overlap`` not in [0, size).
    """
    splitter = TextSplitter(size, overlap)
    return splitter.feed(text) + splitter.finish()


class TextSplitter:
    """``split_text`` over text that arrives in parts: the same pieces, each given out as soon as the text after it
    no longer changes where it ends (``size`` characters of lookahead), so a 150 MB paragraph run is never one string.
    """

    def __init__(self, size: int, overlap: int) -> None:
        """Raises:
        ValueError: ``size`` < 1 or ``overlap`` not in [0, size).
        """
        if size < 1 or not 0 <= overlap < size:
            raise ValueError(f"size={size}, overlap={overlap}; allowed: size >= 1 and 0 <= overlap < size")
        self.size = size
        self.overlap = overlap
        self._text = ""  # not yet given out; empty or starting with a non-space character

    def feed(self, text: str) -> list[str]:
        """Add text; return the pieces that are now final."""
        self._text = self._text + text if self._text else text.lstrip()
        return self._split(final=False) if len(self._text) > 2 * self.size else []

    def finish(self) -> list[str]:
        """The remaining pieces (the text ended)."""
        self._text = self._text.rstrip()
        pieces = self._split(final=True)
        self._text = ""
        return pieces

    def _split(self, *, final: bool) -> list[str]:
        text, size, overlap = self._text, self.size, self.overlap
        # before the end, only cut where the whole text would be cut: the window must lie before the last
        # non-space character seen (trailing spaces may be stripped, or followed by more text)
        end = len(text) if final else len(text.rstrip())
        pieces: list[str] = []
        start = 0
        while start < len(text):
            if end - start <= size:
                if final:
                    pieces.append(text[start:])
                    start = len(text)
                break
            lo = start + min(max(size // 2, overlap + 1), size)
            cut = _best_cut(text, lo, start + size)
            pieces.append(text[start:cut])
            start = _overlap_start(text, cut, overlap)
            while start < len(text) and text[start].isspace():
                start += 1
        self._text = text[start:]
        return [p.strip() for p in pieces if p.strip()]


def split_table(markdown: str, size: int) -> list[str]:
    """Split a markdown table by rows into pieces of at most ``size`` characters, header repeated.

    A single row longer than ``size`` stays whole in its own piece.
    """
    if len(markdown) <= size:
        return [markdown]
    lines = markdown.split("\n")
    head, rows = lines[:2], lines[2:]
    pieces: list[str] = []
    current: list[str] = []
    length = sum(len(line) + 1 for line in head)
    for row in rows:
        if current and length + len(row) + 1 > size:
            pieces.append("\n".join(head + current))
            current, length = [], sum(len(line) + 1 for line in head)
        current.append(row)
        length += len(row) + 1
    if current:
        pieces.append("\n".join(head + current))
    return pieces


def _chat_pieces(turns: list[Block], size: int) -> list[_Piece]:
    """Consecutive turns of one conversation packed up to ``size`` characters; only a turn longer than
    ``size`` on its own is split."""
    pieces: list[_Piece] = []
    packed: list[Block] = []

    def flush() -> None:
        if packed:
            pieces.append(_Piece("\n".join(b.text for b in packed), "chat", None, "", chat_metadata(packed)))
        packed.clear()

    for turn in turns:
        length = sum(len(b.text) + 1 for b in packed)
        if packed and (
            length + len(turn.text) > size or turn.metadata.get(DIALOGUE_ID) != packed[0].metadata.get(DIALOGUE_ID)
        ):
            flush()
        if len(turn.text) > size:
            pieces.extend(
                _Piece(part, "chat", None, "", chat_metadata([turn])) for part in split_text(turn.text, size, 0)
            )
            continue
        packed.append(turn)
    flush()
    return pieces


def _pieces(blocks: Iterable[Block], size: int, overlap: int) -> Iterator[_Piece]:
    """Pieces in reading order, given out as they are made: the blocks may be a stream (a big text file)."""
    splitter = TextSplitter(size, overlap)
    waiting: list[str] = []  # a group's heading(s), held until the group turns out to have a body
    turns: list[Block] = []
    has_body = False
    key: tuple[int | None, str] | None = None
    group_meta: dict[str, Scalar] = {}  # a page's flags (ocr), the same on all its blocks
    started = False  # text of the current group went to the splitter (joined with blank lines, as one text)

    def text_pieces(parts: list[str]) -> Iterator[_Piece]:
        assert key is not None
        for part in parts:
            yield _Piece(part, "text", key[0], key[1], dict(group_meta))

    def flush() -> Iterator[_Piece]:
        nonlocal has_body, started
        if started:
            yield from text_pieces(splitter.finish())
        waiting.clear()
        has_body = started = False
        yield from _chat_pieces(turns, size)
        turns.clear()

    for block in blocks:
        if TURN_SPEAKER in block.metadata:
            if started or waiting:
                yield from flush()
            turns.append(block)
        elif block.kind == "table":
            yield from flush()
            for part in split_table(block.text, size):
                yield _Piece(part, "table", block.page, block.section, dict(block.metadata))
        elif RECORD_NO in block.metadata:
            yield from flush()
            yield from _record_pieces(block, size, overlap)
        else:
            if turns or (block.page, block.section) != key or block.kind == "heading":
                yield from flush()
                key = (block.page, block.section)
                group_meta = block.metadata
            waiting.append(block.text)
            has_body = has_body or block.kind != "heading"
            if has_body:
                text = "\n\n".join(waiting)
                yield from text_pieces(splitter.feed("\n\n" + text if started else text))
                waiting.clear()
                started = True
    yield from flush()


def _record_pieces(block: Block, size: int, overlap: int) -> Iterator[_Piece]:
    """A record in pieces of at most ``size``; a piece after the first starts with the line naming the record
    (``RECORD_LABEL``), so a piece holding only "demographic_information.region_of_residence: Hyogo" still says whose
    it is."""
    label = str(block.metadata.get(RECORD_LABEL, ""))
    parts = split_text(block.text, size, overlap)
    if label and len(parts) > 1 and len(label) < size // 4:
        first, *rest = split_text(block.text, size - len(label) - 1, overlap)
        parts = [first] + [part if part.startswith(label + "\n") else f"{label}\n{part}" for part in rest]
    for part in parts:
        yield _Piece(part, "record", block.page, block.section, dict(block.metadata))


def _starts_with_item(text: str) -> bool:
    first = next((line for line in text.splitlines() if line.strip()), "")
    return is_list_item(first)


def chunk_document(
    doc: ParsedDocument, *, source: str, rel_path: str, doc_type: str, settings: Settings
) -> list[Chunk]:
    """Chunks of one document in reading order, with every field filled (``iter_chunks`` over its blocks)."""
    return list(iter_chunks(doc, doc.blocks, source=source, rel_path=rel_path, doc_type=doc_type, settings=settings))


def iter_chunks(
    doc: ParsedDocument,
    blocks: Iterable[Block],
    *,
    source: str,
    rel_path: str,
    doc_type: str,
    settings: Settings,
    skip: int = 0,
) -> Iterator[Chunk]:
    """Chunks of one document in reading order, made as ``blocks`` arrive (memory stays flat for a stream).

    Chunks shorter than ``settings.chunk_min_chars`` are dropped; a chunk whose text (whitespace
    collapsed) already occurred in this document is stored once (remembered by an 8-byte digest, not its text).
    A chunk that starts at a list item whose introducing sentence ("Nothing in this division may be construed—")
    went to an earlier chunk keeps that sentence in its metadata (``rag.ingest.lists.LEAD_IN_KEY``).

    Args:
        doc: the parsed document (its pages, date; its blocks unless ``blocks`` streams them).
        blocks: the document's blocks, ``doc.blocks`` or a stream of them.
        source: the source name stored on each chunk (and part of its id).
        rel_path: the file's path relative to its source root.
        doc_type: the document type (selects the chunk size).
        settings: engine settings.
        skip: leave out the first ``skip`` chunks (a resumed file: they were stored by an earlier run); they are
            still read, so the ones after get the same ids and indexes as in a run from the start.

    Returns:
        Chunks with ``chunk_index`` skip..n-1; ids are stable across runs for the same input.

    Raises:
        ValueError: the configured chunk size for ``doc_type`` is below 1.
    """
    size = settings.chunk_size_for(doc_type)
    if size < 1:
        raise ValueError(f"chunk size for doc_type={doc_type!r} is {size}; allowed: an integer >= 1")
    overlap = min(settings.chunk_overlap, size // 2)
    seen: set[bytes] = set()
    index = 0
    lead_in = ""  # the sentence introducing the list the text has reached ("… may be construed—"), if any
    for piece in _pieces(blocks, size, overlap):
        opening = lead_in if piece.chunk_type == "text" and _starts_with_item(piece.text) else ""
        lead_in = open_lead_in(piece.text, lead_in) if piece.chunk_type == "text" else ""
        norm = " ".join(piece.text.split())
        digest = hashlib.blake2b(norm.encode("utf-8"), digest_size=8).digest()
        if len(norm) < settings.chunk_min_chars or digest in seen:
            continue
        seen.add(digest)
        index += 1
        if index <= skip:
            continue
        extra: dict[str, Scalar] = {**piece.metadata, **extract_entities(piece.text, settings)}
        if opening:
            extra[LEAD_IN_KEY] = opening
        if doc.title:
            extra[DOC_TITLE] = doc.title
        chunk = Chunk(
            chunk_id="",
            text=piece.text,
            source=source,
            rel_path=rel_path,
            doc_type=doc_type,
            section=piece.section,
            page=piece.page,
            total_pages=doc.total_pages,
            date=doc.date,
            content_hash=hashlib.sha256(piece.text.encode("utf-8")).hexdigest(),
            chunk_index=index - 1,
            chunk_type=piece.chunk_type,
            language=detect_language(piece.text),
            extra=extra,
        )
        yield replace(chunk, chunk_id=chunk_id(chunk))
