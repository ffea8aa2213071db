"""Text cleanup shared by every parser, with Japanese treated as a first-class language.

* ``normalize_text``: NFKC (full-width ASCII → ASCII, half-width kana → full-width, ligatures expanded),
  control and zero-width characters removed, whitespace tidied.
* ``join_wrapped_lines``: undo a PDF's visual line wraps (no space inside Japanese, a space between
  English words, hyphenated wraps de-hyphenated).
* ``strip_repeated_margins``: drop page numbers and running headers and footers found across pages (one that repeats
  unchanged is kept once, on the first page it is on).
* ``garbage_ratio``: the share of characters that look like a broken font encoding or mojibake.
"""

from __future__ import annotations

import math
import re
import unicodedata
from collections import Counter
from collections.abc import Sequence

CJK_CLASS = (
    "\u3000-\u303f"  # CJK punctuation (、。「」)
    "\u3040-\u30ff"  # hiragana, katakana
    "\u31f0-\u31ff"  # katakana extensions
    "\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"  # kanji
    "\uff01-\uff0f\uff1a-\uff20\uff5b-\uff65"  # full-width punctuation left after NFKC
)
"""Character-class body (no brackets) of characters that join without spaces."""

GARBAGE_PAGE_THRESHOLD = 0.4
"""A page whose ``garbage_ratio`` exceeds this is skipped as unreadable."""

_CJK = re.compile(f"[{CJK_CLASS}]")
_REMOVE = re.compile("[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f\u00ad\u200b-\u200d\u2060\ufeff]")
_SPACES = re.compile(r"[ \t\u00a0\u2000-\u200a\u202f\u205f]+")
_MANY_NEWLINES = re.compile(r"\n{3,}")
_SENTENCE_END = re.compile(r"[。．！？!?:：]$|(?<![A-Z])[.]$")
_LIST_START = re.compile(r"^(?:[・•●○■□◆◇▪▶►※]|[-*+]\s|\d{1,3}[.)．]\s?|[(（]\d{1,3}[)）]|[①-⑳]|[a-z][.)]\s)")
_HYPHEN_WRAP = re.compile(r"[A-Za-z]-$")

# UTF-8 read as cp1252/latin-1: a lead byte (Â..ô) followed by one to three continuation bytes, which
# cp1252 shows as C1 controls, typographic punctuation or Latin-1 symbols.
_CONT = (
    "\u0080-\u00bf\u0152\u0153\u0160\u0161\u0178\u017d\u017e\u0192\u02c6\u02dc"
    "\u2013\u2014\u2018-\u201e\u2020-\u2022\u2026\u2030\u2039\u203a\u20ac\u2122\ufffd"
)
_MOJIBAKE = re.compile(f"[\u00c2-\u00f4][{_CONT}]{{1,3}}")
_BAD_CHARS = re.compile(
    "[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f\ue000-\uf8ff\ufffd\ufffe\uffff"
    "\U000f0000-\U0010ffff\ud800-\udfff]"
)
_UNREADABLE = re.compile("[\ue000-\uf8ff\ufffd\U000f0000-\U0010ffff]")
_NON_SPACE = re.compile(r"\S")
_DIGITS = re.compile(r"\d+")

_PAGE_NUMBER = re.compile(
    r"^(?:"
    r"[-–—~\s]*\d{1,4}[-–—~\s]*"  # 3, - 3 -, ~3~
    r"|\d{1,4}\s*/\s*\d{1,4}"  # 3 / 10
    r"|(?:page|p\.?)\s*\d{1,4}(?:\s*(?:of|/)\s*\d{1,4})?"  # Page 3, p. 3, Page 3 of 10
    r"|第?\s*\d{1,4}\s*(?:ページ|頁|page)(?:\s*/\s*\d{1,4})?"  # 3ページ, 第3頁
    r"|\d{1,4}\s*(?:of|/)\s*\d{1,4}\s*(?:ページ|頁)?"
    r")$",
    re.IGNORECASE,
)


def normalize_text(text: str, *, keep_indent: bool = False) -> str:
    """Normalize text for indexing: NFKC, no control/zero-width characters, tidy whitespace.

    Line breaks are kept (``\\r\\n`` and ``\\r`` become ``\\n``); runs of spaces collapse to one,
    trailing spaces go, and more than one blank line collapses to one.

    Args:
        text: raw text from any parser.
        keep_indent: keep each line's leading spaces (code in text and Markdown files).

    Returns:
        The normalized text, stripped of blank lines at both ends.
    """
    if not text:
        return ""
    text = unicodedata.normalize("NFKC", text.replace("\r\n", "\n").replace("\r", "\n"))
    text = _REMOVE.sub("", text)
    lines = []
    for line in text.split("\n"):
        body = line.lstrip(" \t")
        indent = line[: len(line) - len(body)].replace("\t", "    ") if keep_indent else ""
        body = _SPACES.sub(" ", body).rstrip()
        lines.append(indent + body if body else "")
    return _MANY_NEWLINES.sub("\n\n", "\n".join(lines)).strip("\n")


def is_cjk(char: str) -> bool:
    """True when ``char`` is Japanese/Chinese script or CJK punctuation (joins without spaces)."""
    return bool(char) and _CJK.match(char) is not None


def join_wrapped_lines(text: str) -> str:
    """Join lines that a PDF wrapped visually back into running text.

    Blank lines (paragraph breaks) stay. A wrap between Japanese characters joins without a space,
    between English words with one space, and ``imple-`` + ``mentation`` becomes ``implementation``.
    A line that ends a sentence (``。``, ``.``, ``:`` ...) or a line that starts a list item or a
    markdown table row keeps its line break.

    Args:
        text: text whose single newlines are visual wraps.

    Returns:
        The text with wraps joined.
    """
    paragraphs = []
    for para in text.split("\n\n"):
        lines = [line.strip() for line in para.split("\n") if line.strip()]
        if not lines:
            continue
        out = lines[0]
        for line in lines[1:]:
            out = _join_pair(out, line)
        paragraphs.append(out)
    return "\n\n".join(paragraphs)


def _join_pair(left: str, right: str) -> str:
    if left.startswith("|") or right.startswith("|") or _LIST_START.match(right):
        return f"{left}\n{right}"
    if _SENTENCE_END.search(left):
        return f"{left}\n{right}"
    if _HYPHEN_WRAP.search(left) and right[:1].islower():
        return left[:-1] + right
    if is_cjk(left[-1]) or is_cjk(right[0]):
        return left + right
    return f"{left} {right}"


def garbage_ratio(text: str) -> float:
    """Share of non-space characters that look unreadable.

    Counted as garbage: private-use glyphs (U+E000-F8FF and planes 15-16), replacement characters,
    control characters and mojibake (UTF-8 read as Latin-1/cp1252, e.g. ``ã‚¤``).

    Args:
        text: extracted text.

    Returns:
        A value in [0, 1]; 0.0 for empty text.
    """
    total = len(_NON_SPACE.findall(text))
    if total == 0:
        return 0.0
    bad = len(_BAD_CHARS.findall(text))
    bad += sum(len(m) for m in _MOJIBAKE.findall(text))
    return min(1.0, bad / total)


SCRAMBLED_SHARE = 0.1
"""Stray Latin letters or symbols per Japanese character above which a line is recognition noise
(``is_scrambled``). Over the chunks of the realdocs documents the OCR of a survey chart's photo scored 0.19
("…ゆめド†bャャbヤbウッや>やキRキャャwb{ポ…"); the highest line of readable text 0.06 ("persona: 私は、都内で働いて
いる金融系のOLです。", "• 欧文フォントの場合*42→ファイル名@サイズ")."""
SCRAMBLED_MIN_JAPANESE = 8
"""Japanese characters a line needs before its stray letters are counted (a short label is not judged)."""
_JAPANESE_LETTER = "\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff"
_STRAY = re.compile(
    rf"(?<=[{_JAPANESE_LETTER}])(?:[A-Za-z]{{1,2}}|[†‡{{}}<>&^~`@$%=_\\\[\]*]+)(?=[{_JAPANESE_LETTER}])"
)
"""One or two Latin letters, or symbols, squeezed between Japanese letters ("ドpbvpニ" holds none: "pbvp" is four;
"ニトuuトuド" two). Japanese prose writes a Latin word or a code with spaces or at word length, and separates words
with "#" or "|" ("#特許#侵害", "私は|昨日|友人と"), which are not counted."""
_JAPANESE = re.compile(f"[{_JAPANESE_LETTER}]")


def is_scrambled(line: str) -> bool:
    """Whether ``line`` is recognition noise rather than text: Japanese letters interleaved with stray Latin letters
    and symbols, as OCR makes of a photo or a chart. Such a line states nothing, and a claim quoting it quotes noise
    ("最も多く選ばれた項目は「ライセンスに関する昧念ニニ有uうuts?&2 キラシラ…」です")."""
    japanese = len(_JAPANESE.findall(line))
    if japanese < SCRAMBLED_MIN_JAPANESE:
        return False
    return len(_STRAY.findall(line)) > SCRAMBLED_SHARE * japanese


def looks_double_encoded(text: str) -> bool:
    """True when most unreadable characters are UTF-8 read as Latin-1/cp1252 (``ã‚¤`` for ``イ``)."""
    mojibake = sum(len(m) for m in _MOJIBAKE.findall(text))
    return mojibake > 0 and mojibake >= len(_BAD_CHARS.findall(text))


def strip_unreadable(text: str) -> str:
    """Remove private-use glyphs (symbol-font bullets) and replacement characters left in readable text."""
    return _UNREADABLE.sub("", text)


def is_page_number(line: str) -> bool:
    """True when ``line`` is only a page number ("3", "- 3 -", "3 / 10", "Page 3", "3ページ")."""
    return bool(line.strip()) and _PAGE_NUMBER.match(line.strip()) is not None


def _exact_key(line: str) -> str:
    return " ".join(line.split()).casefold()


def _digit_key(line: str) -> str:
    return _DIGITS.sub("#", _exact_key(line))


def _tracks_page(occurrences: list[tuple[int, str]], needed: int) -> bool:
    """True when a number in the line follows the page index (``Chapter 2 - page 7``) on enough pages."""
    offsets: Counter[int] = Counter()
    for page, line in occurrences:
        offsets.update({int(n) - page for n in _DIGITS.findall(line)})
    return bool(offsets) and offsets.most_common(1)[0][1] >= needed


def find_margin_lines(pages: Sequence[Sequence[str]], depth: int = 3, kept: set[str] | None = None) -> list[set[int]]:
    """Indices of running-header/footer and page-number lines on each page.

    A running header/footer is a line among the first or last ``depth`` non-empty lines of a page
    that recurs there on most pages (at least 2 and at least 60% of them): either the same text, or
    (among the first/last two lines) the same text up to a number that follows the page number.
    One that repeats unchanged is kept once, on the first page it is on: what it says may be said nowhere
    else (a survey's footer "2023/4/3-4/28調査" is the only place its dates are given, a header the
    document's version). One numbered with the page ("H. R. 815—2") is pagination and goes everywhere.
    After those, a page-number-only line among the first/last two remaining lines goes too. When that
    would leave more than half of the pages with text empty, the recurring lines are the pages' content
    (pages that differ only by their number) and only page numbers go.

    Args:
        pages: each page's lines from top to bottom.
        depth: how many lines at the top and bottom count as margin.
        kept: the running lines kept on earlier pages (a long PDF read in windows), updated with those kept here.

    Returns:
        One set of line indices per page, to be dropped.
    """
    needed = max(2, math.ceil(0.6 * len(pages)))
    zones: list[list[int]] = []
    exact: Counter[str] = Counter()
    numbered: dict[str, list[tuple[int, str]]] = {}
    for page_no, lines in enumerate(pages):
        filled = [i for i, line in enumerate(lines) if line.strip()]
        zone = sorted(set(filled[:depth] + filled[-depth:]))
        zones.append(zone)
        exact.update({_exact_key(lines[i]) for i in zone})
        for i in set(filled[:2] + filled[-2:]):
            if _DIGITS.search(lines[i]):
                numbered.setdefault(_digit_key(lines[i]), []).append((page_no, lines[i]))
    repeated = {key for key, n in exact.items() if n >= needed}
    running = {key for key, seen in numbered.items() if len(seen) >= needed and _tracks_page(seen, needed)}
    if len(pages) < 2:
        repeated, running = set(), set()

    kept = set() if kept is None else kept
    before = set(kept)
    drops = _margin_drops(pages, zones, repeated, running, kept)
    emptied = sum(
        1 for lines, drop in zip(pages, drops) if any(line.strip() for line in lines) and _empties(lines, drop)
    )
    if emptied * 2 > sum(1 for lines in pages if any(line.strip() for line in lines)):
        # the "repeated" lines are most pages' whole text (pages that differ only by their number): content
        kept &= before
        drops = _margin_drops(pages, zones, set(), set(), kept)
    return drops


def _empties(lines: Sequence[str], drop: set[int]) -> bool:
    return all(i in drop for i, line in enumerate(lines) if line.strip())


def _margin_drops(
    pages: Sequence[Sequence[str]], zones: list[list[int]], repeated: set[str], running: set[str], kept: set[str]
) -> list[set[int]]:
    drops: list[set[int]] = []
    for lines, zone in zip(pages, zones):
        drop: set[int] = set()
        for i in zone:
            key = _exact_key(lines[i])
            if key in repeated and key not in kept and not is_page_number(lines[i]):
                kept.add(key)  # its first time: what it says may be said nowhere else
            elif key in repeated or _digit_key(lines[i]) in running:
                drop.add(i)  # again, or numbered with the page ("H. R. 815—2": pagination)
        left = [i for i, line in enumerate(lines) if line.strip() and i not in drop]
        drop |= {i for i in left[:2] + left[-2:] if is_page_number(lines[i])}
        drops.append(drop)
    return drops


def strip_repeated_margins(pages: list[str]) -> list[str]:
    """Remove page numbers, and running headers and footers (but on the first page they are on), from each page's
    text.

    Args:
        pages: one string per page, lines separated by ``\\n`` from top to bottom.

    Returns:
        The pages with those lines removed (same length and order as ``pages``).
    """
    split = [page.split("\n") for page in pages]
    drops = find_margin_lines(split)
    return ["\n".join(line for i, line in enumerate(lines) if i not in drop) for lines, drop in zip(split, drops)]
