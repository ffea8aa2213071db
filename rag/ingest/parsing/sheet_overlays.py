"""What an Excel sheet holds over its cells: text boxes, charts, pictures and cell comments.

openpyxl reads cells (and, read-only, not their comments). A workbook often says as much in what floats over them:
a text box with the notes of a form laid out on a grid (Excel 方眼紙), a chart of the figures, a screenshot pasted
as evidence of each step, a reviewer's comment on a cell ("事前に質問を受け付けており、それに回答する形の講義形式です"
on a training's row). They live in the sheet's drawing part (``xl/drawings/drawingN.xml``) and comments part
(``xl/commentsN.xml``), which this module reads straight from the package: each drawing with the cell its top-left
corner is anchored to, so they are read top to bottom, left to right, and each comment with its cell.
"""

from __future__ import annotations

import posixpath
import zipfile
from dataclasses import dataclass
from typing import Any

from lxml import etree

from rag.ingest.parsing.charts import chart_table
from rag.ingest.parsing.package_xml import NS, part_xml
from rag.ingest.text_cleanup import normalize_text

_R_ID = f"{{{NS['r']}}}id"
_R_EMBED = f"{{{NS['r']}}}embed"
_ANCHORS = etree.XPath("xdr:twoCellAnchor | xdr:oneCellAnchor | xdr:absoluteAnchor", namespaces=NS)
_TEXT_BOXES = etree.XPath(".//xdr:sp[xdr:txBody]", namespaces=NS)
_PARAGRAPHS = etree.XPath("xdr:txBody/a:p", namespaces=NS)
_RUNS = etree.XPath(".//a:t", namespaces=NS)
_CHARTS = etree.XPath(".//xdr:graphicFrame//c:chart", namespaces=NS)
_PICTURES = etree.XPath(".//xdr:pic", namespaces=NS)
_BLIP = etree.XPath(".//a:blip", namespaces=NS)
_EXTENT = etree.XPath("xdr:spPr/a:xfrm/a:ext | ../xdr:ext", namespaces=NS)

A4_EMU_AREA = 7_560_000 * 10_692_000
"""A sheet has no page: a picture is weighed against an A4 page (in EMU²) to tell a screenshot from an icon."""


@dataclass(frozen=True)
class Drawing:
    """One thing a sheet draws: a text box's ``text``, a chart's ``table`` (markdown), or a ``picture`` (its bytes,
    shown at ``area`` EMU²), anchored at ``row`` and ``column`` (0-based)."""

    row: int
    column: int
    text: str = ""
    table: str = ""
    picture: bytes = b""
    area: float = 0.0


@dataclass(frozen=True)
class SheetOverlays:
    """What one sheet holds over its cells: its drawings, top to bottom, left to right, and its cell comments as
    (cell reference, text) in the order the comments part lists them."""

    drawings: tuple[Drawing, ...] = ()
    comments: tuple[tuple[str, str], ...] = ()


def sheet_overlays(package: zipfile.ZipFile) -> dict[str, SheetOverlays]:
    """What each sheet of the workbook ``package`` holds over its cells, by sheet name; a sheet holding nothing is
    left out. A part that is missing or not XML loses what it holds, not the workbook."""
    found: dict[str, SheetOverlays] = {}
    for name, sheet_path in sheet_parts(package):
        drawings = [
            drawing
            for target in _relationships(package, sheet_path, kind="drawing").values()
            for drawing in _drawings(package, target)
        ]
        comments = [
            comment
            for target in _relationships(package, sheet_path, kind="comments").values()
            for comment in _comments(package, target)
        ]
        if drawings or comments:
            found[name] = SheetOverlays(tuple(sorted(drawings, key=lambda d: (d.row, d.column))), tuple(comments))
    return found


def _comments(package: zipfile.ZipFile, path: str) -> list[tuple[str, str]]:
    root = _xml(package, path)
    if root is None:
        return []
    found = []
    for comment in root.iterfind("main:commentList/main:comment", NS):
        if text := normalize_text("".join(t.text or "" for t in comment.iterfind(".//main:t", NS))):
            found.append((comment.get("ref", ""), text))
    return found


def sheet_parts(package: zipfile.ZipFile) -> list[tuple[str, str]]:
    """The workbook's sheets as (name, path of the sheet's part)."""
    workbook = _xml(package, "xl/workbook.xml")
    if workbook is None:
        return []
    targets = _relationships(package, "xl/workbook.xml")
    return [
        (normalize_text(sheet.get("name", "")), targets.get(sheet.get(_R_ID, ""), ""))
        for sheet in workbook.iterfind("main:sheets/main:sheet", NS)
    ]


def _drawings(package: zipfile.ZipFile, path: str) -> list[Drawing]:
    root = _xml(package, path)
    if root is None:
        return []
    parts = _relationships(package, path)
    drawings: list[Drawing] = []
    for anchor in _ANCHORS(root):
        row, column = _anchored_at(anchor)
        for shape in _TEXT_BOXES(anchor):
            lines = ["".join(t.text or "" for t in _RUNS(p)) for p in _PARAGRAPHS(shape)]
            if text := normalize_text("\n".join(lines)):
                drawings.append(Drawing(row, column, text=text))
        for chart in _CHARTS(anchor):
            blob = _read(package, parts.get(chart.get(_R_ID, ""), ""))
            if blob and (table := chart_table(blob)):
                drawings.append(Drawing(row, column, table=table))
        for picture in _PICTURES(anchor):
            blip = next(iter(_BLIP(picture)), None)
            blob = _read(package, parts.get(blip.get(_R_EMBED, ""), "")) if blip is not None else b""
            if blob:
                drawings.append(Drawing(row, column, picture=blob, area=_area(picture)))
    return drawings


def _anchored_at(anchor: Any) -> tuple[int, int]:
    """The cell (row, column) a drawing's top-left corner is anchored to ((0, 0) when it is placed absolutely)."""
    row, column = anchor.findtext("xdr:from/xdr:row", "0", NS), anchor.findtext("xdr:from/xdr:col", "0", NS)
    return (int(row) if row.isdigit() else 0), (int(column) if column.isdigit() else 0)


def _area(picture: Any) -> float:
    for extent in _EXTENT(picture):
        width, height = extent.get("cx", "0"), extent.get("cy", "0")
        if width.isdigit() and height.isdigit():
            return float(int(width) * int(height))
    return 0.0


def _relationships(package: zipfile.ZipFile, source: str, kind: str = "") -> dict[str, str]:
    """The parts ``source`` points to, by relationship id, as paths in the package (``kind``: only relationships
    whose type ends so, e.g. ``drawing``)."""
    if not source:
        return {}
    folder, name = posixpath.split(source)
    rels = _xml(package, posixpath.join(folder, "_rels", f"{name}.rels"))
    if rels is None:
        return {}
    targets = {}
    for rel in rels.iterfind("rel:Relationship", NS):
        target = rel.get("Target", "")
        if rel.get("TargetMode") == "External" or not target or (kind and not rel.get("Type", "").endswith(kind)):
            continue
        path = target.lstrip("/") if target.startswith("/") else posixpath.normpath(posixpath.join(folder, target))
        targets[rel.get("Id", "")] = path
    return targets


def _read(package: zipfile.ZipFile, path: str) -> bytes:
    try:
        return package.read(path) if path else b""
    except KeyError:
        return b""


def _xml(package: zipfile.ZipFile, path: str) -> Any:
    return part_xml(_read(package, path))
