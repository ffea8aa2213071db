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
from rag.ingest.text_cleanup import join_wrapped_lines, normalize_text
from rag.records import Block, ParsedDocument

if TYPE_CHECKING:
    import pandas as pd

ROWS_PER_BLOCK = 30
"""Data rows per table block for CSV/XLSX; the header is repeated in each block."""

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
) -> list[Block]:
    """Split a table into markdown table blocks of at most ``rows_per_block`` rows, header repeated."""
    if rows_per_block < 1:
        raise ValueError(f"rows_per_block={rows_per_block}; allowed: an integer >= 1")
    blocks = []
    for start in range(0, max(len(rows), 1), rows_per_block):
        text = render_markdown_table(header, rows[start : start + rows_per_block])
        if text and (rows or start == 0):
            blocks.append(Block(text=text, kind="table", page=page, section=section))
    return blocks


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
