"""Reading one XML part of an Office package (a chart, a SmartArt data model, a sheet's drawing, Word's notes).

Entities are not resolved and nothing is fetched: a part naming an outside file (``<!ENTITY x SYSTEM
"file:///…">``) cannot pull that file's text into the index. A part that is not XML reads as None, so what it holds
is lost and the rest of the document is still read.
"""

from __future__ import annotations

from typing import Any

from lxml import etree

NS = {
    "w": "http://schemas.openxmlformats.org/wordprocessingml/2006/main",
    "mc": "http://schemas.openxmlformats.org/markup-compatibility/2006",
    "a": "http://schemas.openxmlformats.org/drawingml/2006/main",
    "c": "http://schemas.openxmlformats.org/drawingml/2006/chart",
    "dgm": "http://schemas.openxmlformats.org/drawingml/2006/diagram",
    "xdr": "http://schemas.openxmlformats.org/drawingml/2006/spreadsheetDrawing",
    "main": "http://schemas.openxmlformats.org/spreadsheetml/2006/main",
    "r": "http://schemas.openxmlformats.org/officeDocument/2006/relationships",
    "rel": "http://schemas.openxmlformats.org/package/2006/relationships",
}
"""The Office XML namespaces the parsers' paths use, by the prefix they use."""

_PARSER = etree.XMLParser(resolve_entities=False, no_network=True, load_dtd=False)


def part_xml(blob: bytes) -> Any:
    """The root element of the XML part ``blob``; None when it is empty or not XML."""
    if not blob:
        return None
    try:
        return etree.fromstring(blob, _PARSER)
    except etree.XMLSyntaxError:
        return None
