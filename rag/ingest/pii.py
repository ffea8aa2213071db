"""Optional masking of personal data before a chunk is embedded and stored (``RAG_MASK_PII=true``).

What is masked, each replaced by a bracketed label that search, answers and quotes then show:
e-mail addresses ``[EMAIL]``; phone numbers ``[PHONE]`` (Japanese fixed and mobile formats such as 03-1234-5678,
090-1234-5678, 09012345678, and international +81 90 1234 5678); Japanese postal codes ``[POSTAL]`` (〒100-0001,
100-0001); card numbers ``[CARD]`` (13-19 digits, spaces or hyphens allowed, Luhn-valid only); My Number
``[MY_NUMBER]`` (12 digits whose check digit is right). Numbers that fail the check stay: a 16-digit serial
number is not a card. The original file is not changed (an upload keeps its copy under ``storage/uploads``).
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable
from dataclasses import replace

from rag.records import Chunk

_EMAIL = re.compile(r"[\w.+-]+@[\w-]+(?:\.[\w-]+)+")
_PHONE = re.compile(
    r"(?<![\d+-])(?:"
    r"\+\d{1,3}[-\s]?\d{1,4}[-\s]?\d{1,4}[-\s]?\d{3,4}"  # international
    r"|0\d{1,4}-\d{1,4}-\d{3,4}"  # 03-1234-5678, 090-1234-5678, 0120-123-456
    r"|\(0\d{1,4}\)\s?\d{1,4}-\d{4}"  # (03) 1234-5678
    r"|0[5789]0\d{8}"  # 09012345678
    r")(?![\d-])"
)
_POSTAL = re.compile(r"(?:〒\s?\d{3}-?\d{4}|(?<![\d-])\d{3}-\d{4}(?![\d-]))")
_DIGIT_RUN = re.compile(r"(?<![\d-])\d(?:[ -]?\d){11,18}(?![\d-])")


def mask_pii(text: str) -> str:
    """``text`` with e-mail addresses, phone numbers, postal codes, card numbers and My Numbers replaced."""
    text = _EMAIL.sub("[EMAIL]", text)
    text = _DIGIT_RUN.sub(_number_label, text)
    text = _PHONE.sub("[PHONE]", text)
    return _POSTAL.sub("[POSTAL]", text)


def mask_chunk(chunk: Chunk, make_id: Callable[[Chunk], str]) -> Chunk:
    """The chunk with its text, section and string metadata masked, and its id and hash made from the masked text
    (so nothing stored derives from the personal data)."""
    text = mask_pii(chunk.text)
    extra = {k: mask_pii(v) if isinstance(v, str) else v for k, v in chunk.extra.items()}
    masked = replace(
        chunk,
        text=text,
        section=mask_pii(chunk.section),
        extra=extra,
        content_hash=hashlib.sha256(text.encode("utf-8")).hexdigest(),
    )
    return replace(masked, chunk_id=make_id(masked))


def _number_label(match: re.Match[str]) -> str:
    digits = re.sub(r"\D", "", match.group())
    if len(digits) == 12 and _my_number_ok(digits):
        return "[MY_NUMBER]"
    if 13 <= len(digits) <= 19 and _luhn_ok(digits):
        return "[CARD]"
    return match.group()


def _luhn_ok(digits: str) -> bool:
    total = 0
    for i, d in enumerate(reversed(digits)):
        n = int(d) * (2 if i % 2 else 1)
        total += n - 9 if n > 9 else n
    return total % 10 == 0


def _my_number_ok(digits: str) -> bool:
    """The My Number check digit: weights 2-7 then 2-6 over the first 11 digits read from the right."""
    body = [int(d) for d in digits[:11]]
    weighted = sum(p * (n + 1 if n <= 6 else n - 5) for n, p in enumerate(reversed(body), 1))
    remainder = weighted % 11
    return int(digits[11]) == (0 if remainder <= 1 else 11 - remainder)
