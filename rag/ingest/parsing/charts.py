"""A chart drawn in a slide or a Word document, read as the table of figures it plots.

An Office chart keeps its figures in its own part (DrawingML ``c:chartSpace``): each series' name, its categories
and the values last shown (``c:numCache``, with the number format they are shown in). A survey deck's chart of
answers ("上場していますか": はい 17, いいえ 20) was read as nothing at all; it is now a markdown table whose
first header cell is the chart's title, one row per category and one column per series, values as the chart shows
them ("45.9%" for 0.459 in a "0.0%" format).
"""

from __future__ import annotations

from decimal import Decimal, InvalidOperation
from typing import Any

from lxml import etree

from rag.ingest.parsing.package_xml import NS, part_xml
from rag.ingest.parsing.tabular import render_markdown_table
from rag.ingest.text_cleanup import normalize_text

_C = NS["c"]
_TITLE = etree.XPath("c:chart/c:title//a:t", namespaces=NS)
_PLOTS = etree.XPath("c:chart/c:plotArea/*[substring(local-name(), string-length(local-name()) - 4) = 'Chart']",
                     namespaces=NS)  # fmt: skip
_AXIS_TITLE = etree.XPath("c:chart/c:plotArea/c:catAx/c:title//a:t", namespaces=NS)
_SERIES_NAME = etree.XPath("c:tx//c:v | c:tx//a:t", namespaces=NS)
_CATEGORIES = etree.XPath("c:cat | c:xVal", namespaces=NS)
_VALUES = etree.XPath("c:val | c:yVal", namespaces=NS)
_POINTS = etree.XPath(".//c:pt", namespaces=NS)
_FORMAT = etree.XPath(".//c:formatCode", namespaces=NS)


def chart_table(chart_xml: bytes) -> str:
    """The figures of the chart whose part is ``chart_xml`` as a markdown table ("" when it plots none): the title
    (else the category axis's) heads the category column, each series names a column. A chart part that is not
    XML gives "": the rest of the document is still read."""
    root = part_xml(chart_xml)
    if root is None:
        return ""
    title = _joined(_TITLE(root)) or _joined(_AXIS_TITLE(root))
    columns: list[tuple[str, dict[int, str]]] = []
    categories: dict[int, str] = {}
    for plot in _PLOTS(root):
        for series in plot.iterchildren(f"{{{_C}}}ser"):
            for axis in _CATEGORIES(series):
                for index, label in _points(axis, numbers=False).items():
                    categories.setdefault(index, label)
            values = next(iter(_VALUES(series)), None)
            if values is not None:
                columns.append((_joined(_SERIES_NAME(series)), _points(values, numbers=True)))
    indices = sorted({i for _name, points in columns for i in points} | set(categories))
    if not columns or not indices:
        return ""
    header = [title, *(name or f"series {n}" for n, (name, _p) in enumerate(columns, start=1))]
    rows = [[categories.get(i, str(i + 1)), *(points.get(i, "") for _name, points in columns)] for i in indices]
    return render_markdown_table([normalize_text(cell) for cell in header],
                                 [[normalize_text(cell) for cell in row] for row in rows])  # fmt: skip


def _joined(nodes: list[Any]) -> str:
    return "".join(node.text or "" for node in nodes).strip()


def _points(data: Any, *, numbers: bool) -> dict[int, str]:
    """A series' cached points by index, numbers written in their format ("0.0%": 0.459 is 45.9%)."""
    shown = next((f.text or "" for f in _FORMAT(data)), "General")
    points: dict[int, str] = {}
    for point in _POINTS(data):
        value = point.findtext(f"{{{_C}}}v") or ""
        index = point.get("idx", "")
        points[int(index) if index.isdigit() else len(points)] = (
            _formatted(value, point.get("formatCode") or shown) if numbers else value
        )
    return points


def _formatted(value: str, number_format: str) -> str:
    """``value`` as a chart shows it in ``number_format``: a percentage with the format's decimals, else the number
    without a trailing ".0" (binary fractions rounded to 10 significant digits)."""
    try:
        number = Decimal(value)
    except InvalidOperation:
        return value
    if "%" in number_format:
        decimals = len(number_format.split("%")[0].partition(".")[2].rstrip("#;)\"' "))
        return f"{number * 100:.{decimals}f}%"
    rounded = Decimal(f"{number:.10g}")
    return f"{rounded:f}".rstrip("0").rstrip(".") if "." in f"{rounded:f}" else f"{rounded:f}"
