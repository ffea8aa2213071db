"""A PDF page's text lines made into blocks: paragraphs (lines a writer put in blocks of their own joined), headings
by font size or bold, tables where they stand; page numbers dropped, running headers and footers kept only on the
first page they are on (``strip_margins``).

``rag.ingest.parsing.pdf`` reads each page's lines and tables (or OCRs it); this module knows only the rectangles,
font sizes and text it found.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field

import pymupdf

from rag.ingest.text_cleanup import find_margin_lines, is_page_number, join_wrapped_lines
from rag.records import OCR, Block

_HEADING_SCALE = 1.15
_HEADING_MAX_CHARS = 80
_NOT_A_HEADING = re.compile(r"(?i:はい|いいえ|yes|no|answer|question|q|a|質問|回答|答え|解答)\s*[.。:：]?")
"""What a Q&A layout prints large without titling anything: the answer (はい, No) and the labels (Question, Answer).
As headings they opened sections of their own and parted a FAQ's "はい" from the question it answers."""
_PARAGRAPH_ENDS = ("。", "．", ".", "!", "?", "！", "？", ":", "：", "」", "）", ")")


@dataclass(slots=True)
class Line:
    """One printed line: its text, box, largest font size, whether all bold, the PyMuPDF block it came in, and
    ``words_x0``, where its words begin after a bullet glyph drawn before them (None: at ``rect.x0``)."""

    text: str
    rect: pymupdf.Rect
    size: float
    bold: bool
    block: int
    words_x0: float | None = None


@dataclass(slots=True)
class PageText:
    """One page as read: its lines, its tables (where they stand, as markdown), whether OCR read it, and the review
    comments on it (``Comment (author): text``), which come after its text."""

    number: int
    lines: list[Line] = field(default_factory=list)
    tables: list[tuple[pymupdf.Rect, str]] = field(default_factory=list)
    ocr: bool = False
    comments: list[str] = field(default_factory=list)


def body_font_size(pages: list[PageText]) -> float:
    sizes: Counter[float] = Counter()
    for page in pages:
        for line in page.lines:
            sizes[round(line.size, 1)] += len(line.text)
    return sizes.most_common(1)[0][0] if sizes else 0.0


def _is_heading(lines: list[Line], body_size: float) -> bool:
    text = " ".join(line.text for line in lines)
    if len(lines) > 2 or len(text) > _HEADING_MAX_CHARS or text.endswith(("。", ".", "、", ",")):
        return False
    if is_page_number(text) or not any(ch.isalpha() for ch in text) or _NOT_A_HEADING.fullmatch(text.strip()):
        return False
    size = min(line.size for line in lines)
    return size >= body_size * _HEADING_SCALE or (all(line.bold for line in lines) and size >= body_size)


def _continues(above: list[Line], below: list[Line], right_edge: float) -> bool:
    """Whether block ``below`` goes on with the paragraph of block ``above`` (a writer put each line in a block).

    Word and PowerPoint exports often make every printed line a block of its own, which would cut words and
    sentences in two ("有効期" / "間は"). The paragraph goes on when the line above runs to the column's right
    edge without ending a sentence, and the line below starts where the block above starts its lines (its first
    line; under a bulleted line, where its words start: "\uf075Webサービスの顧客が…配布" / "したことにはなりません。";
    its last line, or one character left of a lone first line indented by one: "…行えたほう" / "が便利なためである."),
    in the same size, one line further down.
    """
    last, first = above[-1], below[0]
    size = max(last.size, 1.0)
    # where the block above starts its lines: its first line, the words after its bullet, its last line (a first
    # line indented by one character, 字下げ, starts right of the others)
    words_x0 = above[0].words_x0 if above[0].words_x0 is not None else above[0].rect.x0
    starts = (above[0].rect.x0, words_x0, last.rect.x0)
    # a one-line block indented by one character goes on one character to the left
    indented = len(above) == 1 and abs(first.rect.x0 - (above[0].rect.x0 - size)) <= size / 2
    return (
        last.rect.x1 >= right_edge - 2 * size
        and not last.text.rstrip().endswith(_PARAGRAPH_ENDS)
        and (indented or any(abs(first.rect.x0 - x0) <= size for x0 in starts))
        and abs(first.size - last.size) < 0.5
        and -0.5 * size <= first.rect.y0 - last.rect.y1 <= size
    )


def _paragraph_groups(lines: list[Line]) -> list[list[Line]]:
    """The page's lines grouped by block, consecutive blocks of one paragraph merged (see ``_continues``)."""
    groups: dict[int, list[Line]] = {}
    for line in lines:
        groups.setdefault(line.block, []).append(line)
    right_edge = max((line.rect.x1 for line in lines), default=0.0)
    merged: list[list[Line]] = []
    for group in groups.values():
        if merged and _continues(merged[-1], group, right_edge):
            merged[-1] = merged[-1] + group
        else:
            merged.append(group)
    return merged


def _page_blocks(page: PageText, body_size: float, section: str) -> tuple[list[Block], str]:
    # text in content-stream order; each table goes before the first text block below its top edge
    items: list[tuple[float, str | None, list[Line]]] = [(g[0].rect.y0, None, g) for g in _paragraph_groups(page.lines)]
    for rect, markdown in sorted(page.tables, key=lambda t: t[0].y0):
        at = next((i for i, item in enumerate(items) if item[1] is None and item[0] >= rect.y0), len(items))
        items.insert(at, (rect.y0, markdown, []))
    blocks = []
    meta: dict[str, str | int | float | bool] = {OCR: True} if page.ocr else {}
    for _, table, lines in items:
        if table is not None:
            blocks.append(Block(text=table, kind="table", page=page.number, section=section, metadata=meta))
        elif _is_heading(lines, body_size):
            section = join_wrapped_lines("\n".join(line.text for line in lines)).replace("\n", " ")
            blocks.append(Block(text=section, kind="heading", page=page.number, section=section, metadata=meta))
        elif text := join_wrapped_lines("\n".join(line.text for line in lines)):
            blocks.append(Block(text=text, page=page.number, section=section, metadata=meta))
    blocks += [Block(text=comment, page=page.number, section=section) for comment in page.comments]
    return blocks, section


def strip_margins(pages: list[PageText], kept: set[str] | None = None) -> None:
    """Drop the pages' page numbers and running headers and footers, each of those kept on the first page it is on
    (``text_cleanup.find_margin_lines``; ``kept``: those kept on the windows of a long PDF read before)."""
    ordered = [sorted(p.lines, key=lambda line: (round(line.rect.y0), line.rect.x0)) for p in pages]
    drops = find_margin_lines([[line.text for line in lines] for lines in ordered], kept=kept)
    for page, lines, drop in zip(pages, ordered, drops):
        gone = {id(lines[i]) for i in drop}
        page.lines = [line for line in page.lines if id(line) not in gone]


def blocks_of(pages: list[PageText], body_size: float, section: str) -> tuple[list[Block], str]:
    """The blocks of ``pages`` (margins already stripped), and the section heading in force after them."""
    blocks: list[Block] = []
    for page in pages:
        page_blocks, section = _page_blocks(page, body_size, section)
        blocks.extend(page_blocks)
    return blocks, section
