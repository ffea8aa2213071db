"""Word's automatic list numbers, written out as the page shows them: "（３）", "2.1", "a)", "①", "・".

A DOCX keeps the number of a numbered paragraph out of its text: the paragraph names a list (``w:numPr``: a
``numId`` and a level), and the numbering part says how each level counts and what it prints (``w:lvlText`` such as
"%1." or "（%1）", ``w:numFmt`` such as ``decimalFullWidth``). Without them an 8-item checklist reads as 8 loose
sentences, and a reference to "(3)" points at nothing.

The counting follows Word: lists that share an abstract definition continue one another unless a list restarts a
level (``w:startOverride``); a level counts from ``w:start``; a deeper level restarts when a shallower one advances.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from docx.opc.constants import RELATIONSHIP_TYPE as RT
from docx.text.paragraph import Paragraph

_W = "http://schemas.openxmlformats.org/wordprocessingml/2006/main"
_NS = {"w": _W}
_VAL = f"{{{_W}}}val"

_BULLET = "・"
"""What a bullet prints as when Word's bullet is a symbol-font character (Wingdings' arrows and checkboxes live in
the private use area and mean nothing as text)."""

_IROHA = "イロハニホヘトチリヌルヲワカヨタレソツネナラムウヰノオクヤマケフコエテアサキユメミシヱヒモセス"
_AIUEO = "アイウエオカキクケコサシスセソタチツテトナニヌネノハヒフヘホマミムメモヤユヨラリルレロワヲン"
_KANJI_DIGITS = "〇一二三四五六七八九"


def _roman(n: int) -> str:
    out = []
    for value, letters in ((1000, "M"), (900, "CM"), (500, "D"), (400, "CD"), (100, "C"), (90, "XC"),
                           (50, "L"), (40, "XL"), (10, "X"), (9, "IX"), (5, "V"), (4, "IV"), (1, "I")):  # fmt: skip
        count, n = divmod(n, value)
        out.append(letters * count)
    return "".join(out)


def _letters(n: int) -> str:
    """a, b, … z, aa, bb … (Word repeats the letter)."""
    return chr(ord("a") + (n - 1) % 26) * ((n - 1) // 26 + 1)


def _kanji(n: int) -> str:
    if n < 10:
        return _KANJI_DIGITS[n]
    tens, ones = divmod(n, 10)
    return ("" if tens == 1 else _kanji(tens)) + "十" + (_KANJI_DIGITS[ones] if ones else "")


def format_number(n: int, fmt: str) -> str:
    """The counter ``n`` in Word's number format ``fmt`` (an unknown format prints decimal)."""
    if fmt == "none":
        return ""
    if fmt in ("upperRoman", "lowerRoman"):
        return _roman(n) if fmt == "upperRoman" else _roman(n).lower()
    if fmt in ("upperLetter", "lowerLetter"):
        return _letters(n).upper() if fmt == "upperLetter" else _letters(n)
    if fmt == "decimalZero":
        return f"{n:02d}"
    if fmt == "decimalEnclosedCircle" and 1 <= n <= 20:
        return chr(0x2460 + n - 1)
    if fmt.startswith("aiueo"):
        return _AIUEO[(n - 1) % len(_AIUEO)]
    if fmt.startswith("iroha"):
        return _IROHA[(n - 1) % len(_IROHA)]
    if fmt in ("ideographDigital", "japaneseCounting", "chineseCounting", "chineseCountingThousand"):
        return _kanji(n) if n < 100 else str(n)
    return str(n)  # decimal, decimalFullWidth, decimalHalfWidth (NFKC makes them one) and the rest


@dataclass(frozen=True, slots=True)
class _Level:
    start: int
    fmt: str
    text: str
    restart_after: int | None  # w:lvlRestart: restart when this (1-based) level advances; None: any shallower one


def _val(element: Any, path: str) -> str | None:
    found = element.find(path, _NS)
    return None if found is None else found.get(_VAL)


def _levels(abstract: Any) -> dict[int, _Level]:
    levels = {}
    for lvl in abstract.findall("w:lvl", _NS):
        ilvl = int(lvl.get(f"{{{_W}}}ilvl", "0"))
        restart = _val(lvl, "w:lvlRestart")
        levels[ilvl] = _Level(
            start=int(_val(lvl, "w:start") or 1),
            fmt=_val(lvl, "w:numFmt") or "decimal",
            text=_val(lvl, "w:lvlText") or "",
            restart_after=int(restart) if restart is not None and restart.isdigit() else None,
        )
    return levels


@dataclass(slots=True)
class WordListNumbers:
    """The numbers of a document's list paragraphs, given out in reading order (``label`` counts as it goes)."""

    abstract_of: dict[str, str] = field(default_factory=dict)  # numId -> abstractNumId
    levels: dict[str, dict[int, _Level]] = field(default_factory=dict)  # abstractNumId -> its levels
    overrides: dict[str, dict[int, int]] = field(default_factory=dict)  # numId -> level -> start it restarts at
    counters: dict[str, dict[int, int]] = field(default_factory=dict)  # abstractNumId -> level -> last number
    started: set[str] = field(default_factory=set)  # numIds whose start overrides were applied

    @classmethod
    def of(cls, document: Any) -> WordListNumbers:
        """The numbering of a ``docx.Document`` (none when it has no numbering part)."""
        numbers = cls()
        try:
            numbering = document.part.part_related_by(RT.NUMBERING).element
        except (KeyError, AttributeError):
            return numbers
        for abstract in numbering.findall("w:abstractNum", _NS):
            numbers.levels[abstract.get(f"{{{_W}}}abstractNumId", "")] = _levels(abstract)
        for num in numbering.findall("w:num", _NS):
            num_id = num.get(f"{{{_W}}}numId", "")
            numbers.abstract_of[num_id] = _val(num, "w:abstractNumId") or ""
            starts = {}
            for override in num.findall("w:lvlOverride", _NS):
                start = _val(override, "w:startOverride")
                if start is not None and start.lstrip("-").isdigit():
                    starts[int(override.get(f"{{{_W}}}ilvl", "0"))] = int(start)
            numbers.overrides[num_id] = starts
        return numbers

    def label(self, paragraph: Paragraph) -> str:
        """The number Word prints before ``paragraph`` ("(3)", "2.1.", "・"), or "" when it is not a list item.

        Call it for every paragraph in reading order: it advances the list's counter.
        """
        num_id, ilvl = _list_of(paragraph)
        abstract_id = self.abstract_of.get(num_id or "")
        if not num_id or num_id == "0" or abstract_id is None:
            return ""
        levels = self.levels.get(abstract_id, {})
        level = levels.get(ilvl)
        if level is None:
            return ""
        counters = self.counters.setdefault(abstract_id, {})
        if num_id not in self.started:
            self.started.add(num_id)
            for restarted, start in self.overrides.get(num_id, {}).items():
                counters[restarted] = start - 1
        counters[ilvl] = counters.get(ilvl, levels[ilvl].start - 1) + 1
        for deeper in [k for k in counters if k > ilvl]:
            restart_after = levels[deeper].restart_after if deeper in levels else None
            if restart_after is None or restart_after > ilvl:
                del counters[deeper]
        if level.fmt == "bullet":
            return _bullet(level.text)
        text = level.text
        for k in range(ilvl, -1, -1):  # %10 is not a thing: levels run 0..8, written %1..%9
            if f"%{k + 1}" in text:
                shown = levels[k].fmt if k in levels else "decimal"
                value = counters.get(k, levels[k].start if k in levels else 1)
                text = text.replace(f"%{k + 1}", format_number(value, shown))
        return text.strip()


def _bullet(text: str) -> str:
    if not text or any(0xE000 <= ord(c) <= 0xF8FF for c in text):
        return _BULLET
    return text.strip() or _BULLET


def _list_of(paragraph: Paragraph) -> tuple[str | None, int]:
    """The paragraph's list (numId) and level, from its own properties or else from its style's."""
    holders = [paragraph._p.pPr]
    try:
        style = paragraph.style
    except (KeyError, AttributeError):
        style = None
    while style is not None:
        holders.append(style.element.pPr)
        style = style.base_style
    num_id: str | None = None
    ilvl: int | None = None
    for p_pr in holders:
        if p_pr is None:
            continue
        num_pr = p_pr.find("w:numPr", _NS)
        if num_pr is None:
            continue
        if num_id is None:
            num_id = _val(num_pr, "w:numId")
        if ilvl is None and (level := _val(num_pr, "w:ilvl")) is not None and level.isdigit():
            ilvl = int(level)
    return num_id, ilvl or 0
