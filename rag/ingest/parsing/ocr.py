"""OCR of PDF pages with Tesseract through PyMuPDF, in reading order, cached by the rendered page's content.

A page is rendered, Tesseract reads it (``Pixmap.pdfocr_tobytes``), and its words are put back in reading
order by recursive XY cuts (columns before rows), then grouped into lines and paragraphs. Results are kept
under ``<storage>/ocr_cache`` keyed by a hash of the rendered pixels, the languages and the resolution, so
re-reading a file (a changed setting, a renamed copy) never runs Tesseract twice on the same page.

``which_pages_need_ocr`` in ``rag.ingest.parsing.pdf`` decides when a page is OCR'd; this module only reads.
"""

from __future__ import annotations

import functools
import hashlib
import json
import re
import shutil
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pymupdf

from rag.errors import DocumentReadError
from rag.ingest.text_cleanup import is_cjk, normalize_text

OCR_PACKAGES = "tesseract-ocr tesseract-ocr-jpn tesseract-ocr-eng"
"""The Debian packages OCR needs (scripts/setup.sh installs them)."""
_SPECK = re.compile(r"^[\W_]{0,2}$")
_MIN_CHARS = 4
SAUVOLA_K = 0.2
"""How far below its neighbourhood's mean a pixel must be to count as ink (Sauvola's k; 0.2 to 0.5 is usual)."""
_COARSE = 4
"""Reduction of the page for Sauvola's neighbourhood statistics (``_sauvola``)."""
NARROW_GUTTER = 0.1
"""Width of a gap between columns, in line heights, that parts two long columns (``LONG_COLUMN``): a scan's gutter
narrowed by justified lines and skew (5 pixels of the Edison patent's, at 300 dpi). No such gap runs down a column
of running text, whose word spaces never line up over many lines; a gutter between short columns must be wider
than a word space (1.2 line heights)."""
LONG_COLUMN = 8
"""Lines of running text (``_running_lines``) each side of a narrow gutter must hold for the gutter to part them:
a slide's or a chart's scattered labels never do."""
_WORDS_OF_A_SENTENCE_LINE = 3
"""Words on a line Tesseract read for it to count as a line of running text (``_running_lines``)."""
_CACHE_VERSION = "5"  # bump when the reading-order or line building changes: cached readings are then redone


@dataclass(frozen=True, slots=True)
class OcrLine:
    """One line of OCR text with its box in page coordinates and the paragraph it belongs to."""

    text: str
    rect: tuple[float, float, float, float]
    paragraph: int


@dataclass(frozen=True, slots=True)
class _Word:
    text: str
    x0: float
    y0: float
    x1: float
    y1: float
    line: tuple[int, int]
    """The line Tesseract put the word on (its block and line numbers)."""


@functools.cache
def tessdata_dir() -> str:
    """Tesseract's language folder (``TESSDATA_PREFIX``, else found by asking ``tesseract``).

    Raises:
        DocumentReadError: Tesseract is not installed (the message names the apt packages).
    """
    if shutil.which("tesseract") is None and not __import__("os").environ.get("TESSDATA_PREFIX"):
        raise DocumentReadError(_missing_message())
    try:
        return str(pymupdf.get_tessdata())
    except RuntimeError as err:
        raise DocumentReadError(_missing_message()) from err


def _missing_message() -> str:
    return (
        "this PDF has pages that need OCR (scanned images or image-only slides), but Tesseract is not installed. "
        f"Install it with `apt-get install {OCR_PACKAGES}` (scripts/start.sh does), then index the file again."
    )


def check_languages(language: str) -> None:
    """Raise when a language in ``language`` (``jpn+eng``) has no traineddata file."""
    folder = Path(tessdata_dir())
    missing = [lang for lang in language.split("+") if not (folder / f"{lang}.traineddata").exists()]
    if missing:
        raise DocumentReadError(
            f"OCR language(s) {', '.join(missing)} are not installed in {folder}. Install "
            f"{' '.join('tesseract-ocr-' + m for m in missing)} with apt-get, or change RAG_OCR_LANGUAGE."
        )


def ocr_page(
    page: pymupdf.Page, *, language: str, dpi: int, cache_dir: Path | None, clip: pymupdf.Rect | None = None
) -> list[OcrLine]:
    """Read one page (or the ``clip`` part of it) with Tesseract.

    Args:
        page: the PDF page.
        language: Tesseract languages, ``+``-joined (``jpn+eng``).
        dpi: render resolution.
        cache_dir: where readings are cached (None: no cache).
        clip: the area to read (None: the whole page).

    Returns:
        The page's lines in reading order, in the page's coordinates.

    Raises:
        DocumentReadError: Tesseract or a language is missing, or it failed on the page.
    """
    area = pymupdf.Rect(clip) if clip is not None else page.rect
    pixmap = _local_contrast(page.get_pixmap(dpi=dpi, clip=area, colorspace=pymupdf.csGRAY), dpi)
    key = hashlib.sha256(f"{_CACHE_VERSION}|{language}|{dpi}|{pixmap.width}x{pixmap.height}|".encode())
    key.update(pixmap.samples_mv)
    cache_file = cache_dir / key.hexdigest()[:2] / f"{key.hexdigest()}.json" if cache_dir else None
    if cache_file is not None and cache_file.exists():
        try:
            return [
                OcrLine(t, (x0, y0, x1, y1), p) for t, x0, y0, x1, y1, p in json.loads(cache_file.read_text("utf-8"))
            ]
        except (OSError, ValueError, TypeError):
            pass  # an unreadable cache entry is read again below
    check_languages(language)
    try:
        reading = pymupdf.open(stream=pixmap.pdfocr_tobytes(language=language, tessdata=tessdata_dir()))
    except (RuntimeError, ValueError) as err:
        raise DocumentReadError(f"OCR failed on page {page.number + 1} ({err}).") from err
    with reading:
        scale = area.width / reading[0].rect.width
        x, y = area.x0, area.y0
        # specks read as "_", "." or ";" between columns would bridge the gutter: punctuation alone is dropped
        words = [
            _Word(str(w[4]), x + w[0] * scale, y + w[1] * scale, x + w[2] * scale, y + w[3] * scale, (w[5], w[6]))
            for w in reading[0].get_text("words")
            if not _SPECK.match(str(w[4]))
        ]
    # a few letters read from a drawing (a circle as "O") are not text
    lines = _lines(words) if sum(ch.isalnum() for w in words for ch in w.text) >= _MIN_CHARS else []
    if cache_file is not None:
        cache_file.parent.mkdir(parents=True, exist_ok=True)
        tmp = cache_file.with_suffix(".part")
        tmp.write_text(json.dumps([[ln.text, *ln.rect, ln.paragraph] for ln in lines], ensure_ascii=False), "utf-8")
        tmp.replace(cache_file)
    return lines


def _local_contrast(gray: pymupdf.Pixmap, dpi: int) -> pymupdf.Pixmap:
    """The page in black and white, each pixel against its neighbourhood (Sauvola's threshold), as an RGB pixmap.

    Tesseract separates ink from paper with one threshold for the whole page, so dark text on a coloured area
    vanishes with the area: the label "37 (100.0%)" inside a slide's yellow pie chart, "17 (45.9%)" on another. A
    threshold from each pixel's surroundings (a square a quarter of an inch wide) keeps it. A scan that is black
    and white already is passed on as it is.
    """
    pixels = np.frombuffer(gray.samples, dtype=np.uint8).reshape(gray.height, gray.width)
    if len(np.unique(pixels[::8, ::8])) > 2:
        pixels = _sauvola(pixels, window=max(3, dpi // 4) | 1)
    rgb = np.repeat(pixels[:, :, None], 3, axis=2)
    return pymupdf.Pixmap(pymupdf.csRGB, gray.width, gray.height, rgb.tobytes(), False)


def _sauvola(pixels: np.ndarray, window: int, k: float = SAUVOLA_K, dynamic_range: float = 128.0) -> np.ndarray:
    """Pixels darker than ``mean * (1 + k * (std / dynamic_range - 1))`` of their ``window`` become black.

    The neighbourhoods' mean and spread change slowly across a page, so they are taken on a copy reduced by
    ``_COARSE`` in each direction (a sixteenth of the work) and each pixel is compared with its block's threshold.
    """
    h, w = pixels.shape
    rows, cols = -(-h // _COARSE), -(-w // _COARSE)
    padded = np.pad(pixels, ((0, rows * _COARSE - h), (0, cols * _COARSE - w)), mode="edge").astype(np.int64)
    coarse = padded.reshape(rows, _COARSE, cols, _COARSE).mean(axis=(1, 3))
    size = max(3, window // _COARSE) | 1
    half = size // 2
    framed = np.pad(coarse, ((half + 1, half), (half + 1, half)), mode="edge")
    sums, squares = framed.cumsum(0).cumsum(1), (framed * framed).cumsum(0).cumsum(1)

    def box(table: np.ndarray) -> np.ndarray:
        return table[size:, size:] - table[:rows, size:] - table[size:, :cols] + table[:rows, :cols]

    mean = box(sums) / (size * size)
    spread = np.sqrt(np.maximum(box(squares) / (size * size) - mean * mean, 0.0))
    threshold = np.repeat(np.repeat(mean * (1 + k * (spread / dynamic_range - 1)), _COARSE, 0), _COARSE, 1)[:h, :w]
    return np.where(pixels > threshold, 255, 0).astype(np.uint8)


def _median_height(words: Sequence[_Word]) -> float:
    heights = sorted(w.y1 - w.y0 for w in words)
    return heights[len(heights) // 2] if heights else 10.0


def _gaps(spans: list[tuple[float, float]]) -> list[tuple[float, float]]:
    """Empty intervals (start, end) between the union of ``spans``."""
    gaps = []
    spans = sorted(spans)
    reach = spans[0][1]
    for start, end in spans[1:]:
        if start > reach:
            gaps.append((reach, start))
        reach = max(reach, end)
    return gaps


def _reading_order(words: list[_Word], height: float) -> list[list[_Word]]:
    """Regions of words in reading order, by recursive XY cuts: a column gutter (wider than a word space,
    with more than one line on each side; or narrow, between two long columns) first, else the widest gap between
    rows. A region no cut divides is read as the lines Tesseract found in it (``_tesseract_lines``) when it holds two
    lines of running text, else left to right."""
    if len(words) <= 1:
        return [words] if words else []
    gutters = [g for g in _gaps([(w.x0, w.x1) for w in words]) if g[1] - g[0] > NARROW_GUTTER * height]
    for start, end in sorted(gutters, key=lambda g: g[0] - g[1]):
        left = [w for w in words if w.x1 <= start + 0.01]
        right = [w for w in words if w.x1 > start + 0.01]
        if end - start > 1.2 * height:
            parts = _is_column(left, height) and _is_column(right, height)  # a wide space inside a line is no gutter
        else:
            parts = _running_lines(left) >= LONG_COLUMN and _running_lines(right) >= LONG_COLUMN
        if parts:
            return _reading_order(left, height) + _reading_order(right, height)
    rows = [g for g in _gaps([(w.y0 + 0.25 * (w.y1 - w.y0), w.y1 - 0.25 * (w.y1 - w.y0)) for w in words])]
    if rows:
        cut = max(rows, key=lambda g: g[1] - g[0])
        middle = (cut[0] + cut[1]) / 2
        above = [w for w in words if (w.y0 + w.y1) / 2 < middle]
        return _reading_order(above, height) + _reading_order([w for w in words if (w.y0 + w.y1) / 2 >= middle], height)
    if _running_lines(words) >= 2:
        return _tesseract_lines(words)
    # a chart's scattered labels, or a Japanese line Tesseract broke between two characters into pieces whose loose
    # boxes overlap: read left to right
    return [sorted(words, key=lambda w: w.x0)]


def _tesseract_lines(words: list[_Word]) -> list[list[_Word]]:
    """Words no cut divides, as the lines Tesseract put them on: top to bottom, each left to right.

    On a slightly skewed scan with a narrow column gutter, no clean gap parts the columns or the rows, and
    read left to right as one line the region interleaves its lines' words ("A. Bigned D. 1879, by me this lst
    day of November," for "Signed by me this 1st day of November, A. D. 1879,"). Tesseract follows each line
    along its slant. Its lines side by side at one height (the two columns' lines) are read as one row.
    """
    pieces: dict[tuple[int, int], list[_Word]] = {}
    for word in words:
        pieces.setdefault(word.line, []).append(word)
    rows: list[list[_Box]] = []
    for piece in sorted(map(_Box.around, pieces.values()), key=lambda box: box.y0 + box.y1):
        row = next((row for row in rows if _joins(row, piece)), None)
        if row is None:
            rows.append([piece])
        else:
            row.append(piece)
    return [sorted((w for box in row for w in box.words), key=lambda w: w.x0) for row in rows]


def _running_lines(words: Sequence[_Word]) -> int:
    """How many of the lines Tesseract read among ``words`` are running text (several words each)."""
    counts = Counter(word.line for word in words)
    return sum(count >= _WORDS_OF_A_SENTENCE_LINE for count in counts.values())


@dataclass(frozen=True, slots=True)
class _Box:
    """The words of one line Tesseract found, with their bounding box."""

    words: tuple[_Word, ...]
    x0: float
    y0: float
    x1: float
    y1: float

    @classmethod
    def around(cls, words: Sequence[_Word]) -> _Box:
        return cls(
            tuple(words), min(w.x0 for w in words), min(w.y0 for w in words),
            max(w.x1 for w in words), max(w.y1 for w in words),
        )  # fmt: skip


def _joins(row: Sequence[_Box], piece: _Box) -> bool:
    """Whether ``piece`` continues ``row``: beside none of its pieces' width, at most of one's height."""
    if any(box.x0 < piece.x1 and piece.x0 < box.x1 for box in row):
        return False
    return any(
        min(box.y1, piece.y1) - max(box.y0, piece.y0) > 0.5 * min(box.y1 - box.y0, piece.y1 - piece.y0) for box in row
    )


def _is_column(words: Sequence[_Word], height: float) -> bool:
    return max(w.y1 for w in words) - min(w.y0 for w in words) > 2 * height


def _join_words(words: Sequence[_Word]) -> str:
    text = ""
    for word in words:
        if text and not (is_cjk(text[-1]) and is_cjk(word.text[0])):
            text += " "
        text += word.text
    return normalize_text(text)


def _lines(words: list[_Word]) -> list[OcrLine]:
    """Lines in reading order; a new paragraph starts at a new column or after a gap taller than a line."""
    height = _median_height(words)
    lines: list[OcrLine] = []
    paragraph = 0
    for region in _reading_order(words, height):
        text = _join_words(region)
        if not text:
            continue
        rect = (min(w.x0 for w in region), min(w.y0 for w in region),
                max(w.x1 for w in region), max(w.y1 for w in region))  # fmt: skip
        if lines:
            prev = lines[-1].rect
            new_column = rect[1] < prev[1] or rect[0] > prev[2]
            if new_column or rect[1] - prev[3] > 0.9 * height:
                paragraph += 1
        lines.append(OcrLine(text, rect, paragraph))
    return lines
