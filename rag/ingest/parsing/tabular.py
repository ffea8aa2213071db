"""Tables: one markdown rendering for every table source (PDF, DOCX, XLSX, HTML, Markdown, CSV) and CSV files."""

from __future__ import annotations

import csv
import io
import math
import re
import warnings
from collections.abc import Sequence
from datetime import date, datetime, time
from typing import TYPE_CHECKING

from rag.errors import DocumentReadError
from rag.ingest.parsing.records import RECORD_LABEL, RECORD_NO
from rag.ingest.text_cleanup import join_wrapped_lines, normalize_text
from rag.records import Block, ParsedDocument

if TYPE_CHECKING:
    import pandas as pd

ROWS_PER_BLOCK = 30
"""Data rows per table block for CSV/XLSX; the header is repeated in each block."""
WIDE_TABLE_COLUMNS = 8
"""A CSV or sheet with more columns than this is read as one record per row (``record_blocks``): a small model
reading a markdown row of twenty cells takes a value from the wrong column."""

_PIPE_SPLIT = re.compile(r"(?<!\\)\|")


def format_cell(value: object) -> str:
    """One table cell as a single line of normalized text (``|`` escaped, wraps joined)."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return ""
    if isinstance(value, float) and value.is_integer() and abs(value) < 1e15:
        return str(int(value))
    if isinstance(value, datetime):
        return value.date().isoformat() if value.time() == time(0) else value.isoformat(sep=" ")
    if isinstance(value, date | time):
        return value.isoformat()
    text = join_wrapped_lines(normalize_text(str(value)))
    return text.replace("\n", " ").replace("|", "\\|")


def render_markdown_table(header: Sequence[object], rows: Sequence[Sequence[object]]) -> str:
    """Render a table as GitHub-flavoured markdown.

    Rows are padded or cut to the header's width; columns empty in the header and in every row are
    dropped; an empty header cell becomes ``colN``.

    Args:
        header: column names.
        rows: data rows.

    Returns:
        ``| a | b |\\n| --- | --- |\\n| 1 | 2 |`` (empty string when nothing is left).
    """
    width = max([len(header), *(len(r) for r in rows)], default=0)
    head = [format_cell(c) for c in header] + [""] * (width - len(header))
    body = [[format_cell(c) for c in r] + [""] * (width - len(r)) for r in rows]
    body = [r for r in body if any(r)]
    keep = [j for j in range(width) if head[j] or any(r[j] for r in body)]
    if not keep:
        return ""
    head = [head[j] or f"col{n}" for n, j in enumerate(keep, start=1)]
    lines = ["| " + " | ".join(head) + " |", "| " + " | ".join("---" for _ in keep) + " |"]
    lines += ["| " + " | ".join(r[j] for j in keep) + " |" for r in body]
    return "\n".join(lines)


def split_markdown_row(line: str) -> list[str]:
    """Cells of one markdown table row (``| a | b |`` -> ``["a", "b"]``), escaped pipes kept."""
    inner = line.strip()
    inner = inner[1:] if inner.startswith("|") else inner
    inner = inner[:-1] if inner.endswith("|") and not inner.endswith("\\|") else inner
    return [cell.strip().replace("\\|", "|") for cell in _PIPE_SPLIT.split(inner)]


def table_blocks(
    header: Sequence[object],
    rows: Sequence[Sequence[object]],
    *,
    section: str = "",
    page: int | None = None,
    rows_per_block: int = ROWS_PER_BLOCK,
    row_numbers: Sequence[int] = (),
) -> list[Block]:
    """A data table (CSV, a sheet) as blocks: markdown tables of at most ``rows_per_block`` rows, header repeated;
    a table wider than ``WIDE_TABLE_COLUMNS`` as one record per row (``record_blocks``).

    ``row_numbers``: each row's number where the reader finds it (a sheet's row), for records; by default the
    position after the header (the header is row 1).
    """
    if rows_per_block < 1:
        raise ValueError(f"rows_per_block={rows_per_block}; allowed: an integer >= 1")
    if len(_kept_columns(header, rows)) > WIDE_TABLE_COLUMNS:
        return record_blocks(header, rows, section=section, page=page, row_numbers=row_numbers)
    blocks = []
    for start in range(0, max(len(rows), 1), rows_per_block):
        text = render_markdown_table(header, rows[start : start + rows_per_block])
        if text and (rows or start == 0):
            blocks.append(Block(text=text, kind="table", page=page, section=section))
    return blocks


def record_blocks(
    header: Sequence[object],
    rows: Sequence[Sequence[object]],
    *,
    section: str = "",
    page: int | None = None,
    row_numbers: Sequence[int] = (),
) -> list[Block]:
    """Each row of a wide table as a record: the line naming the row, then one ``column: value`` line per filled cell.

    A markdown row of twenty cells asks the reader to count columns to know what "新人" is; a record says it
    ("A Consumer Electronics Company / OSS基礎研修: 新人") under the row's name ("Company / 教育: 対象者"). The row is
    named by its leading cells, up to the first column with a name (a row label, or an ID column), as
    ``name: value``; a row that names nothing (its category written once, above) goes on with the record right above
    it (no empty row between). Every block is a record (``RECORD_NO`` its row number, ``RECORD_LABEL`` its naming
    line), so a row too long for one chunk repeats its name in the next (``rag.ingest.chunking``).
    """
    names = [format_cell(c) for c in header]
    keep = _kept_columns(header, rows)
    first_named = next((j for j in keep if j < len(names) and names[j]), keep[0] if keep else 0)
    leading_columns = [j for j in keep if j <= first_named]
    records: list[tuple[int, str, list[str]]] = []  # (row number, naming line, field lines)
    above = dict.fromkeys(leading_columns, "")
    last_number = 0
    for i, row in enumerate(rows):
        cell = {j: format_cell(row[j]) if j < len(row) else "" for j in keep}
        number = row_numbers[i] if i < len(row_numbers) else i + 2
        fields = [
            f"{(names[j] if j < len(names) else '') or f'col{n}'}: {cell[j]}"
            for n, j in enumerate(keep, start=1)
            if j > first_named and cell[j]
        ]
        follows = records and number == last_number + 1  # no empty row between: the same block of the sheet
        last_number = number
        if follows and fields and all(cell[j] in ("", above[j]) for j in leading_columns):
            records[-1][2].extend(fields)  # a row that names nothing new goes on with the record above it
            continue
        if not follows:
            above = dict.fromkeys(leading_columns, "")
        changed = False
        for j in leading_columns:  # a name left empty under an unchanged one above it is the name above (a group)
            changed = changed or (cell[j] != "" and cell[j] != above[j])
            above[j] = cell[j] if cell[j] or changed else above[j]
        named = [(names[j] if j < len(names) else "", above[j]) for j in leading_columns if above[j]]
        label = " — ".join(f"{name}: {value}" if name else value for name, value in named) or f"row {number}"
        if fields or named:
            records.append((number, label, fields))
    return [
        Block(
            text="\n".join([label, *fields]),
            page=page,
            section=section,
            metadata={RECORD_NO: number, RECORD_LABEL: label},
        )
        for number, label, fields in records
    ]


def _kept_columns(header: Sequence[object], rows: Sequence[Sequence[object]]) -> list[int]:
    """The columns with a name or a value in some row (``render_markdown_table`` drops the others too)."""
    width = max([len(header), *(len(r) for r in rows)], default=0)
    return [
        j
        for j in range(width)
        if (j < len(header) and format_cell(header[j])) or any(j < len(r) and format_cell(r[j]) for r in rows)
    ]


def _delimiter(sample: str, name: str) -> str:
    if name.lower().endswith(".tsv"):
        return "\t"
    try:
        return csv.Sniffer().sniff(sample, delimiters=",\t;|").delimiter
    except csv.Error:  # ragged rows confuse the sniffer; the header line still tells
        header = sample.split("\n", 1)[0]
        return max(",\t;|", key=header.count) if any(d in header for d in ",\t;|") else ","


def parse_csv(text: str, name: str, date: str) -> ParsedDocument:
    """Read CSV/TSV text with pandas into table blocks of at most ``ROWS_PER_BLOCK`` rows.

    Malformed rows are skipped with a warning on the document; a quote opened and never closed (which would
    swallow every row after it) makes the whole text read again with quote characters as plain text, with a warning.

    Raises:
        DocumentReadError: the text is not a table pandas can read, or has no rows.
    """
    import pandas as pd  # imported on first use: pandas takes about a second to import

    notes: list[str] = []
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            frame = _read_frame(text, name)
        except pd.errors.EmptyDataError as err:
            raise DocumentReadError(f"{name} has no rows. Add data to the CSV and try again.") from err
        except (pd.errors.ParserError, ValueError) as err:
            # a quote opened and never closed swallows the rest of the file: read quotes as plain characters instead
            try:
                frame = _read_frame(text, name, quoting=csv.QUOTE_NONE)
            except (pd.errors.ParserError, ValueError):
                raise DocumentReadError(
                    f"{name} is not a readable CSV table ({err}). Open it in a spreadsheet program, check its "
                    "delimiters and quotes, save it as CSV again and retry."
                ) from err
            notes.append(f"broken quoting ({err}); read with quote characters kept as text, so check those rows")
    skipped = [str(w.message).strip() for w in caught if issubclass(w.category, pd.errors.ParserWarning)]
    header = ["" if str(c).startswith("Unnamed: ") else str(c) for c in frame.columns]
    rows = frame.to_numpy().tolist()
    blocks = table_blocks(header, rows)
    if not blocks or frame.empty:
        raise DocumentReadError(f"{name} has a header but no data rows. Add data to the CSV and try again.")
    if skipped:
        notes.append(f"malformed CSV rows skipped: {'; '.join(skipped)[:300]}")
    return ParsedDocument(blocks=tuple(blocks), date=date, warnings=tuple(notes))


def _read_frame(text: str, name: str, quoting: int = csv.QUOTE_MINIMAL) -> pd.DataFrame:
    import pandas as pd  # noqa: F811 - the run-time import of the name the annotations use

    return pd.read_csv(
        io.StringIO(text),
        sep=_delimiter(text[:20000], name),
        dtype=str,
        keep_default_na=False,
        skip_blank_lines=True,
        on_bad_lines="warn",
        quoting=quoting,
    )
