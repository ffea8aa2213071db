"""SmartArt in a slide or a Word document, read as the text of its nodes.

A SmartArt graphic (a process flow, an org chart, a cycle) keeps its text in its own data part
(``dgm:dataModel``), which the shape or the paragraph only points to (``dgm:relIds``): its steps were read as
nothing. Each node ("申請" → "審査" → "承認") becomes a line, in the order the data model lists them.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from lxml import etree

from rag.ingest.parsing.package_xml import NS, part_xml
from rag.ingest.text_cleanup import normalize_text

_DATA_IDS = etree.XPath(".//dgm:relIds/@r:dm", namespaces=NS)
_NODES = etree.XPath("dgm:ptLst/dgm:pt[not(@type) or @type = 'node']", namespaces=NS)
_PARAGRAPHS = etree.XPath("dgm:t/a:p", namespaces=NS)
_RUNS = etree.XPath(".//a:t", namespaces=NS)


def diagram_texts(element: Any, data_part: Callable[[str], bytes | None]) -> list[str]:
    """The text of each SmartArt graphic drawn in ``element`` (a slide's shape, a Word paragraph), its nodes one per
    line; ``data_part`` gives the bytes of the part a relationship id names (None when there is none)."""
    texts = []
    for rid in _DATA_IDS(element):
        blob = data_part(str(rid))
        if blob and (text := _nodes_text(blob)):
            texts.append(text)
    return texts


def _nodes_text(blob: bytes) -> str:
    model = part_xml(blob)
    if model is None:
        return ""  # a damaged part loses the graphic, not the document
    lines = []
    for node in _NODES(model):
        text = " ".join("".join(t.text or "" for t in _RUNS(p)).strip() for p in _PARAGRAPHS(node)).strip()
        if text := normalize_text(text):
            lines.append(text)
    return "\n".join(lines)
