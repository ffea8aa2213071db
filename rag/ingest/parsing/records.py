"""JSON and JSONL records: chosen fields become text, others flat metadata, text compacted by settings.

``settings.json_text_fields`` (``a.b`` reaches into nested objects) are joined into the record's text;
``settings.json_metadata_fields`` become flat block metadata. A field named like a chunk metadata key
(``date``, ``source``, ``page`` ...) is stored as ``record_<name>`` so it cannot overwrite that key.

Without configuration: a chat log (a list of turns with speakers, see ``rag.ingest.parsing.dialogue``) is read as
turns, and when no record has a text field, each record is flattened to ``key: value`` lines (nested
objects as ``a.b: value``). Text fields set explicitly (``RAG_JSON_TEXT_FIELDS``) still win.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from typing import Any

from rag.errors import DocumentReadError
from rag.ingest.parsing.dialogue import dialogue_document, find_dialogues
from rag.ingest.parsing.flat import flatten_record
from rag.ingest.text_cleanup import normalize_text
from rag.records import Block, ParsedDocument, Scalar
from rag.settings import Settings

RECORD_NO = "record_no"
"""Block/Chunk metadata key marking a record block: its 1-based number (JSONL: its line number)."""
RECORD_LABEL = "record_label"
"""Block/Chunk metadata key: the ``key: value`` line that says which record a flattened record's text is
(``interlocutor_id: AB``); the chunker repeats it at the top of every later chunk of a record too long for one."""
RECORD_SHOWN = "record_shown"
"""Block/Chunk metadata key holding a record's ``settings.json_shown_fields`` whole, as a JSON object (what
``similar`` returns to build a prompt from; not compacted, not embedded unless also a text field)."""

# Chunk.metadata() keys a record field must not overwrite; such fields are stored as "record_<name>".
_RESERVED = frozenset(
    {"source", "rel_path", "doc_type", "section", "page", "total_pages", "date", "content_hash",
     "chunk_index", "chunk_type", "language", "chunk_id", "doc_title", RECORD_NO, RECORD_SHOWN, RECORD_LABEL}
)  # fmt: skip


def stored_metadata_key(field: str) -> str:
    """The chunk metadata key a metadata field is stored under: its name, or ``record_<name>`` when reserved."""
    return f"record_{field}" if field in _RESERVED else field


def _lookup(record: dict[str, Any], field: str) -> Any:
    """A field's value; ``a.b`` reaches into nested objects."""
    if field in record:
        return record[field]
    value: Any = record
    for part in field.split("."):
        if not isinstance(value, dict) or part not in value:
            return None
        value = value[part]
    return value


_NAMING_KEY = re.compile(r"(?:^|[._\-\s])(?:id|identifier|name|title|key|code|no|number)$", re.IGNORECASE)


def record_label(lines: list[str]) -> str:
    """The line naming a flattened record: its first field called like an id or a name (``interlocutor_id``,
    ``user.name``, ``title``), else its first line."""
    for line in lines:
        key = line.split(": ", 1)[0]
        if ": " in line and _NAMING_KEY.search(key):
            return line
    return lines[0] if lines else ""


def _as_text(value: Any) -> str:
    if isinstance(value, str):
        return value
    if isinstance(value, bool | int | float):
        return str(value)
    if isinstance(value, list):
        return "\n".join(_as_text(v) for v in value if v is not None)
    return ""


def shown_fields(record: Any, fields: tuple[str, ...]) -> str:
    """The record's ``fields`` that it has, as a JSON object (a record that is a bare string shows as ``text``)."""
    if not isinstance(record, dict):
        return json.dumps({"text": record} if isinstance(record, str) else {}, ensure_ascii=False)
    found = {field: value for field in fields if (value := _lookup(record, field)) is not None}
    return json.dumps(found, ensure_ascii=False)


def _as_scalar(value: Any) -> Scalar | None:
    if isinstance(value, str | bool | int | float):
        return value
    if isinstance(value, list) and all(isinstance(v, str | bool | int | float) for v in value):
        return ",".join(str(v) for v in value)
    return None


def compact(text: str, settings: Settings) -> str:
    """Cut ``text`` at ``settings.json_cut_marker`` (if set), keep only its lines matching ``json_keep_lines`` (if
    set), and cap it at ``json_max_chars`` (if > 0)."""
    if settings.json_cut_marker and (cut := text.find(settings.json_cut_marker)) >= 0:
        text = text[:cut]
    if settings.json_keep_lines:
        keep = re.compile(settings.json_keep_lines)
        text = "\n".join(line for line in text.split("\n") if keep.search(line))
    if settings.json_max_chars > 0 and len(text) > settings.json_max_chars:
        text = text[: settings.json_max_chars]
    return text.strip()


def record_blocks(
    records: Iterable[tuple[int, Any]], settings: Settings, *, flatten: bool = False
) -> tuple[list[Block], int]:
    """Blocks from ``(record number, record)`` pairs.

    Every block carries ``record_no`` and every configured metadata field that occurs anywhere in
    the file (``""`` where a record lacks it), so metadata keys are the same on every record.
    With ``flatten`` a record's text is all its fields as ``key: value`` lines instead of its text fields.

    Returns:
        The blocks (records without any text field are left out) and how many were left out.
    """
    rows: list[tuple[str, dict[str, Scalar]]] = []
    seen_keys: dict[str, None] = {}
    missing = 0
    for number, record in records:
        lines: list[str] = []  # a flattened record's key: value lines
        if isinstance(record, str):
            text, meta = record, dict[str, Scalar]()
        elif isinstance(record, dict):
            if flatten:
                lines = flatten_record(record)
                text = "\n".join(lines)
            else:
                text = "\n\n".join(t for f in settings.json_text_fields if (t := _as_text(_lookup(record, f)).strip()))
            meta = {}
            for field in settings.json_metadata_fields:
                value = _as_scalar(_lookup(record, field))
                if value is not None:
                    key = stored_metadata_key(field)
                    meta[key] = value
                    seen_keys[key] = None
        else:
            text, meta = "", {}
        text = normalize_text(compact(text, settings))
        if not text:
            missing += 1
            continue
        if settings.json_shown_fields:
            meta[RECORD_SHOWN] = shown_fields(record, settings.json_shown_fields)
        if label := normalize_text(record_label(lines)):
            meta[RECORD_LABEL] = label
        meta[RECORD_NO] = number
        rows.append((text, meta))
    blocks = []
    for text, meta in rows:
        full: dict[str, Scalar] = {key: meta.get(key, "") for key in seen_keys}
        full[RECORD_NO] = meta[RECORD_NO]
        for kept in (RECORD_SHOWN, RECORD_LABEL):
            if kept in meta:
                full[kept] = meta[kept]
        section = str(full.get("title", ""))
        blocks.append(Block(text=text, section=section, metadata=full))
    return blocks, missing


def _no_text_error(name: str, sample: Any, settings: Settings) -> DocumentReadError:
    fields = sorted(sample) if isinstance(sample, dict) else []
    return DocumentReadError(
        f"{name}: no record has any text (text fields {', '.join(settings.json_text_fields)}); "
        f"the records have fields {fields}. Add content, or set RAG_JSON_TEXT_FIELDS to the field(s) holding the text."
    )


def _configured_fields_found(records: list[Any], settings: Settings) -> bool:
    """True when text fields were set explicitly and some record has them (they then win over chat detection)."""
    explicit = settings.json_text_fields != Settings().json_text_fields
    return explicit and any(isinstance(r, dict) and _has_text(r, settings) for r in records)


def _read_records(
    name: str, whole: Any, numbered: list[tuple[int, Any]], date: str, settings: Settings, notes: list[str]
) -> ParsedDocument:
    """Records as a chat log (looked for in ``whole``), as configured text fields, or flattened."""
    values = [record for _, record in numbered]
    if not _configured_fields_found(values, settings) and (dialogues := find_dialogues(whole)):
        return dialogue_document(dialogues, date, notes)
    blocks, missing = record_blocks(numbered, settings)
    if not blocks:
        blocks, missing = record_blocks(numbered, settings, flatten=True)
        if blocks:
            notes.append(f"no record has a text field ({', '.join(settings.json_text_fields)}); "
                         "each record was read as key: value lines")  # fmt: skip
    return _finish(name, blocks, missing, values[0] if values else None, notes, date, settings)


def _finish(
    name: str, blocks: list[Block], missing: int, sample: Any, notes: list[str], date: str, settings: Settings
) -> ParsedDocument:
    if not blocks:
        raise _no_text_error(name, sample, settings)
    if missing:
        notes.append(f"{missing} record(s) without text in {', '.join(settings.json_text_fields)} skipped")
    return ParsedDocument(blocks=tuple(blocks), date=date, warnings=tuple(notes))


def _records_of(data: Any, settings: Settings) -> list[Any]:
    if isinstance(data, list):
        return data
    if isinstance(data, dict) and not _has_text(data, settings):
        # {"items": [...]}: an object without text whose one list of objects holds the records
        lists = [v for v in data.values() if isinstance(v, list) and v and all(isinstance(x, dict) for x in v)]
        if len(lists) == 1:
            return lists[0]
    return [data]


def _has_text(record: dict[str, Any], settings: Settings) -> bool:
    return any(_as_text(_lookup(record, f)).strip() for f in settings.json_text_fields)


def parse_json(text: str, name: str, date: str, settings: Settings) -> ParsedDocument:
    """Read a JSON file holding a list of records, one record object, or ``{"key": [records]}``.

    Raises:
        DocumentReadError: not valid JSON, or no record has a text field.
    """
    try:
        data = json.loads(text)
    except json.JSONDecodeError as err:
        raise DocumentReadError(
            f"{name} is not valid JSON (line {err.lineno}, column {err.colno}: {err.msg}). Fix the file and try again."
        ) from err
    except RecursionError as err:
        raise _too_deep(name) from err
    return _read_records(name, data, list(enumerate(_records_of(data, settings), start=1)), date, settings, [])


def _too_deep(name: str) -> DocumentReadError:
    return DocumentReadError(
        f"{name} is nested too deeply to read (hundreds of levels of [ or {{). "
        "Check that it is the intended file, or flatten its structure and try again."
    )


def parse_jsonl(text: str, name: str, date: str, settings: Settings) -> ParsedDocument:
    """Read JSON Lines: one record per line; lines that are not JSON are skipped with a warning.

    Raises:
        DocumentReadError: no line is valid JSON, or no record has a text field.
    """
    bad: list[int] = []
    numbered: list[tuple[int, Any]] = []
    # split("\n"), not splitlines(): JSON strings may hold U+2028 and other line separators
    for number, line in enumerate(text.split("\n"), start=1):
        if not line.strip():
            continue
        try:
            numbered.append((number, json.loads(line)))
        except json.JSONDecodeError:
            bad.append(number)
        except RecursionError as err:
            raise _too_deep(name) from err
    if bad and not numbered:
        raise DocumentReadError(f"{name} is not JSON Lines: no line is a valid JSON value. Fix the file and try again.")
    notes = []
    if bad:
        shown = ", ".join(str(n) for n in bad[:5]) + (" ..." if len(bad) > 5 else "")
        notes.append(f"{len(bad)} line(s) are not valid JSON and were skipped (line {shown})")
    return _read_records(name, [record for _, record in numbered], numbered, date, settings, notes)
