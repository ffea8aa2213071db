"""E-mail saved as a file (``.eml``, RFC 5322): its subject, who wrote it to whom and when, its text, and the names
of its attachments.

Mail clients save messages as MIME: the subject may be encoded (``=?ISO-2022-JP?B?…?=``), the body may be plain
text in a legacy Japanese charset, HTML, or both (``multipart/alternative``). The plain text is read when there is
one, else the HTML as a page is (``rag.ingest.parsing.web``). The subject is the title and the section, the
``Date`` header the document's date.
"""

from __future__ import annotations

from email import policy
from email.message import EmailMessage
from email.parser import BytesParser
from email.utils import parsedate_to_datetime

from rag.errors import DocumentReadError
from rag.ingest.metadata import iso_date
from rag.ingest.parsing.plain import text_blocks
from rag.ingest.parsing.web import parse_html
from rag.ingest.text_cleanup import normalize_text
from rag.records import Block, ParsedDocument

_HEADERS = ("From", "To", "Cc", "Date")
"""The header fields shown above the text, as a mail client shows them."""


def parse_eml(data: bytes, name: str, date: str) -> ParsedDocument:
    """Read a saved e-mail.

    Args:
        data: the file's bytes.
        name: the file name, for messages.
        date: fallback date (file mtime) when the message has no readable ``Date``.

    Raises:
        DocumentReadError: the file has no mail headers, or neither a subject nor any text.
    """
    message = BytesParser(policy=policy.default).parsebytes(data)
    if not isinstance(message, EmailMessage) or not any(message.get(field) for field in ("From", "Subject", "Date")):
        raise DocumentReadError(
            f"{name} is not an e-mail (it has no From, Subject or Date header). Save the message again from the "
            "mail program (as .eml), or rename the file if it is something else."
        )
    subject = normalize_text(str(message.get("Subject", "")))
    shown = [f"{field}: {normalize_text(str(message[field]))}" for field in _HEADERS if message.get(field)]
    blocks = [Block(text=subject, kind="heading", section=subject)] if subject else []
    blocks.append(Block(text="\n".join(shown), section=subject))
    blocks += [Block(text=b.text, kind=b.kind, section=subject) for b in _body_blocks(message, name)]
    attached = [normalize_text(part.get_filename() or "") for part in message.iter_attachments()]
    if attached := [n for n in attached if n]:
        blocks.append(Block(text="Attachments: " + ", ".join(attached), section=subject))
    if not subject and len(blocks) == 1:  # its header lines alone
        raise DocumentReadError(f"{name} is an e-mail with neither a subject nor any text. Check the file.")
    return ParsedDocument(blocks=tuple(blocks), title=subject, date=_sent_on(message) or date)


def _body_blocks(message: EmailMessage, name: str) -> list[Block]:
    body = message.get_body(preferencelist=("plain", "html"))
    if body is None:
        return []
    try:
        content = body.get_content()
    except (LookupError, UnicodeError):  # a charset Python does not know: read the bytes as UTF-8
        payload = body.get_payload(decode=True)
        content = payload.decode("utf-8", errors="replace") if isinstance(payload, bytes) else ""
    if not isinstance(content, str) or not content.strip():
        return []
    if body.get_content_subtype() == "html":
        try:
            return list(parse_html(content, name, "").blocks)
        except DocumentReadError:  # markup with no text
            return []
    return text_blocks(normalize_text(content, keep_indent=True))


def _sent_on(message: EmailMessage) -> str:
    try:
        return iso_date(parsedate_to_datetime(str(message.get("Date", ""))))
    except (TypeError, ValueError):
        return ""
