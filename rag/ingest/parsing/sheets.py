"""A worksheet read as the table a person sees: the title and note lines above it as its caption, a header of one
or more rows (a merged group cell spread over the columns it spans, each column named by its group and its own
label), and a merged row label repeated on every row it covers.

A real survey sheet ("各社の教育体系の整理") opens with a title and two note lines, groups its columns under
company names merged across them ("OpenChain" over C4:F4) above one label per column ("Spec. -1.2"), and labels a
block of rows with one cell merged down A7:A46. Read with its first row as the header, every column was "colN" and
"教育対象者への教育完了85%以上" stood in a row no column name could tell apart.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

Cell = object
MergedRange = tuple[int, int, int, int]
"""A merged range's ``(first row, first column, last row, last column)``, 1-based as openpyxl gives them."""

FULL_LOAD_MAX_BYTES = 5 * 2**20
"""Workbooks up to this size are opened whole, which exposes merged cells (openpyxl then holds some 50 times the
file's size in memory); larger ones are streamed (read-only mode: no merged cells, so their first row with two
values is the header)."""
MAX_HEADER_ROWS = 4
"""Rows a header may take at most: a sheet that merges cells across the columns of every row is not all header."""
HEADER_SEPARATOR = " / "


@dataclass(frozen=True, slots=True)
class SheetTable:
    """A worksheet as a caption (title and note lines), the column names and the data rows."""

    caption: tuple[str, ...]
    header: tuple[Cell, ...]
    rows: tuple[tuple[Cell, ...], ...]


def sheet_table(cells: Sequence[Sequence[Cell]], merged: Sequence[MergedRange] = ()) -> SheetTable | None:
    """The table of a worksheet's cells (rows from row 1, as read), with its merged ranges (None: no value).

    - Lines above the table that hold one value each (a title, a note, a title merged across the sheet) are its
      caption, unless every line is like that (a one-column list: its first line is the header).
    - The header is the first line with two values or more, and the line under every header line that groups
      columns (holds a cell merged across several), ``MAX_HEADER_ROWS`` at most: each column is named by its values
      down the header, joined by " / " ("OpenChain / Spec. -1.2").
    - A value merged down several data rows stands in each of them (the row label of a block of rows); a value
      merged across data columns stays in its first column.
    """
    grid = [list(row) for row in cells]
    width = max((len(row) for row in grid), default=0)
    grid = [row + [None] * (width - len(row)) for row in grid]
    grouping = {first_row - 1 for first_row, first_col, _r, last_col in merged if last_col > first_col}
    filled = [i for i, row in enumerate(grid) if any(_value(c) for c in row)]
    if not filled:
        return None
    start = next((i for i in filled if len({_value(c) for c in grid[i]} - {""}) > 1), None)
    caption_rows = [i for i in filled if start is not None and i < start]
    start = filled[0] if start is None else start
    end = start
    while end in grouping and end + 1 < len(grid) and end - start + 1 < MAX_HEADER_ROWS:
        end += 1
    for first_row, first_col, last_row, last_col in merged:
        value = grid[first_row - 1][first_col - 1] if first_row - 1 < len(grid) else None
        for r in range(first_row - 1, min(last_row, len(grid))):
            # across the header's columns; down the first column of data rows
            for c in range(first_col - 1, min(last_col, width)) if r <= end else [first_col - 1]:
                grid[r][c] = value
    caption = tuple(next(_value(c) for c in grid[i] if _value(c)) for i in caption_rows)
    band = grid[start : end + 1]
    names = (dict.fromkeys(v for row in band if (v := _value(row[j]))) for j in range(width))
    header = tuple(band[0]) if len(band) == 1 else tuple(HEADER_SEPARATOR.join(name) for name in names)
    rows = tuple(tuple(row) for row in grid[end + 1 :] if any(_value(c) for c in row))
    return SheetTable(caption, header, rows)


def _value(cell: Cell) -> str:
    return "" if cell is None else " ".join(str(cell).split())
