"""How a sheet's cells make a table: merged cells filled, a title above the table, header rows under a merged group.

A sheet is rarely a clean table whose first row names its columns. A title sits in A1 ("各社の教育体系の整理") and
notes under it; a merged cell spans the columns of one group ("A Consumer Electronics Company" over five courses) and
the row under it names each column of the group ("OSS基礎研修"); a merged cell runs down the rows of one category.
openpyxl (read-only, as the workbook is read) gives a merged cell's value in its top-left cell only, so the rest of the
range reads empty, and the first row read as the header names every column "colN".

``sheet_table`` reads the layout back: the value of a merged cell fills its whole range; leading rows holding one
value are the table's caption; the first row with two values starts the header, and a header row whose cells merge
across columns (a group) takes the row under it as well, so each column is named "group / column". The merged ranges
come from the sheet's part of the package (``merged_ranges``): read-only openpyxl does not give them.
"""

from __future__ import annotations

import zipfile
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from lxml import etree
from openpyxl.utils.cell import range_boundaries

from rag.ingest.parsing.package_xml import NS
from rag.ingest.parsing.sheet_overlays import sheet_parts
from rag.ingest.parsing.tabular import format_cell
from rag.ingest.text_cleanup import normalize_text

MAX_HEADER_ROWS = 3
"""Most rows a header spans (a group row over a column row, at most one more group above)."""
MAX_FILLED_CELLS = 1_000_000
"""Most cells merged ranges may fill in one sheet: a range spanning whole rows or columns is cut to the used grid
anyway; this bounds the work of a sheet with many such ranges."""

Range = tuple[int, int, int, int]
"""A merged range as 0-based (first row, first column, last row, last column), both ends included."""


@dataclass(frozen=True)
class SheetTable:
    """A sheet's table: ``caption`` lines above it, one ``header`` name per column, and the data ``rows`` with the
    sheet's 1-based ``row_numbers`` (what a reader finds in Excel's margin)."""

    caption: tuple[str, ...]
    header: tuple[str, ...]
    rows: tuple[tuple[Any, ...], ...]
    row_numbers: tuple[int, ...]


def merged_ranges(package: zipfile.ZipFile) -> dict[str, tuple[Range, ...]]:
    """The merged cell ranges of each sheet of the workbook ``package``, by sheet name (sheets without any left out).

    The sheet's part is streamed for its ``mergeCell`` elements, not parsed whole: a sheet's part may be large. A
    part that is missing or not XML has none.
    """
    found: dict[str, tuple[Range, ...]] = {}
    for name, path in sheet_parts(package):
        ranges = _ranges_in(package, path)
        if ranges:
            found[name] = ranges
    return found


def sheet_table(grid: Sequence[Sequence[Any]], merged: Sequence[Range] = ()) -> SheetTable | None:
    """The table the cells of a sheet make (``grid``: its rows of cell values from row 1), or None when every cell is
    empty.

    Args:
        grid: cell values, row by row (rows may differ in length).
        merged: the sheet's merged ranges (``merged_ranges``).
    """
    cells = _filled(grid, merged)
    used = [(number, row) for number, row in enumerate(cells, start=1) if any(format_cell(v) for v in row)]
    if not used:
        return None
    across = {row for first_row, first_col, last_row, last_col in merged if last_col > first_col
              for row in range(first_row + 1, last_row + 2)}  # fmt: skip
    start = next((i for i, (_, row) in enumerate(used) if len(_values(row)) > 1), 0)
    caption = tuple(" ".join(_values(row)) for _, row in used[:start])
    end = start + 1
    while end < len(used) and end - start < MAX_HEADER_ROWS and used[end - 1][0] in across:
        end += 1
    header_rows = [row for _, row in used[start:end]]
    width = max(len(row) for _, row in used)
    header = tuple(_column_name([row[j] if j < len(row) else None for row in header_rows]) for j in range(width))
    body = used[end:]
    return SheetTable(caption, header, tuple(tuple(row) for _, row in body), tuple(number for number, _ in body))


def _filled(grid: Sequence[Sequence[Any]], merged: Sequence[Range]) -> list[list[Any]]:
    """The grid with each merged range's top-left value in every cell of the range (within the used grid)."""
    cells = [list(row) for row in grid]
    budget = MAX_FILLED_CELLS
    for first_row, first_col, last_row, last_col in merged:
        if first_row >= len(cells) or first_col >= len(cells[first_row]):
            continue
        value = cells[first_row][first_col]
        if value is None:
            continue
        for r in range(first_row, min(last_row, len(cells) - 1) + 1):
            row = cells[r]
            stop = min(last_col + 1, max(len(row), first_col + 1))
            row.extend([None] * (stop - len(row)))
            for c in range(first_col, stop):
                if budget <= 0:
                    return cells
                budget -= 1
                if row[c] is None:
                    row[c] = value
    return cells


def _values(row: Sequence[Any]) -> list[str]:
    """The distinct non-empty cell texts of a row, in order (a merged title repeated across its range counts once)."""
    return list(dict.fromkeys(text for v in row if (text := format_cell(v))))


def _column_name(stack: Sequence[Any]) -> str:
    """One column's name from its header cells, top to bottom: "group / column", a repeat said once."""
    return " / ".join(_values(stack))


def _ranges_in(package: zipfile.ZipFile, path: str) -> tuple[Range, ...]:
    if not path:
        return ()
    try:
        stream = package.open(path)
    except KeyError:
        return ()
    ranges: list[Range] = []
    tag = f"{{{NS['main']}}}mergeCell"
    try:
        with stream:
            for _, element in etree.iterparse(stream, tag=tag, resolve_entities=False, no_network=True):
                try:
                    first_col, first_row, last_col, last_row = range_boundaries(normalize_text(element.get("ref", "")))
                except (ValueError, TypeError):
                    continue
                if None not in (first_col, first_row, last_col, last_row):
                    ranges.append((first_row - 1, first_col - 1, last_row - 1, last_col - 1))  # type: ignore[operator]
                element.clear()
    except (etree.XMLSyntaxError, OSError, zipfile.BadZipFile):
        return tuple(ranges)
    return tuple(ranges)
