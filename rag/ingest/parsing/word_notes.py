"""The text a DOCX keeps outside its body's paragraphs: text boxes, headers and footers, footnotes and endnotes.

python-docx reads a paragraph's runs, not what they anchor: a speech bubble or a callout drawn as a text box
(``w:txbxContent``), the note a footnote reference points to (``footnotes.xml``), and the running header and footer
parts are all out of ``Paragraph.text``. A pamphlet said its licence only in its first page's footer and gave the
case where someone else holds the copyright only in a footnote; neither was in the index.

Word writes a text box twice, as a DrawingML shape and as a VML fallback for old readers (``mc:Fallback``): only the
first is read.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from lxml import etree

_W = "http://schemas.openxmlformats.org/wordprocessingml/2006/main"
_NS = {"w": _W, "mc": "http://schemas.openxmlformats.org/markup-compatibility/2006"}
_REL = "http://schemas.openxmlformats.org/officeDocument/2006/relationships/"
_ID = f"{{{_W}}}id"
_TYPE = f"{{{_W}}}type"

_BOXES = etree.XPath(".//w:txbxContent[not(ancestor::mc:Fallback)]", namespaces=_NS)
_PARAGRAPHS = etree.XPath(".//w:p[not(ancestor::mc:Fallback)]", namespaces=_NS)
_TEXTS = etree.XPath(".//w:t[not(ancestor::mc:Fallback)]", namespaces=_NS)
_OWNER = etree.XPath("ancestor::w:p[1]", namespaces=_NS)
_NOTE_REFERENCES = etree.XPath(
    ".//w:footnoteReference[not(ancestor::mc:Fallback)] | .//w:endnoteReference[not(ancestor::mc:Fallback)]",
    namespaces=_NS,
)


def box_texts(paragraph: Any) -> list[str]:
    """The paragraphs of the text boxes drawn in ``paragraph`` (a python-docx ``Paragraph``), in order; a box inside
    a box is read once, as its own paragraphs."""
    texts: list[str] = []
    for box in _BOXES(paragraph._element):
        texts += [text for p in box.iterchildren(f"{{{_W}}}p") if (text := _own_text(p))]
    return texts


class WordNotes:
    """A document's footnotes and endnotes by reference, and its headers and footers."""

    def __init__(self, document: Any) -> None:
        """Read the notes and the header and footer parts of ``document`` (a python-docx ``Document``)."""
        self._notes: dict[tuple[str, str], list[str]] = {}
        self.headers: list[str] = []
        self.footers: list[str] = []
        for rel in document.part.rels.values():
            if rel.is_external:
                continue
            kind = rel.reltype.removeprefix(_REL)
            if kind in ("footnotes", "endnotes"):
                self._read_notes(kind[:-1], _element(rel.target_part))
            elif kind in ("header", "footer"):
                texts = self.headers if kind == "header" else self.footers
                texts += [t for t in _paragraph_texts(_element(rel.target_part)) if t not in texts]

    def referenced_in(self, paragraph: Any) -> list[str]:
        """The text of each footnote and endnote ``paragraph`` refers to, in the order it refers to them."""
        texts: list[str] = []
        for reference in _NOTE_REFERENCES(paragraph._element):
            kind = etree.QName(reference).localname.removesuffix("Reference")
            texts += self._notes.get((kind, reference.get(_ID, "")), [])
        return texts

    def _read_notes(self, kind: str, root: Any) -> None:
        for note in root.iterchildren(f"{{{_W}}}{kind}"):
            if note.get(_TYPE) in ("separator", "continuationSeparator", "continuationNotice"):
                continue  # the rule Word draws above the notes
            self._notes[(kind, note.get(_ID, ""))] = list(_paragraph_texts(note))


def _element(part: Any) -> Any:
    """A package part's XML root: python-docx parses header and footer parts; notes parts it keeps as bytes."""
    element = getattr(part, "element", None)
    return element if element is not None else etree.fromstring(part.blob)


def _paragraph_texts(root: Any) -> Iterator[str]:
    """Each non-empty paragraph's text under ``root``, text boxes' paragraphs included, in document order."""
    for p in _PARAGRAPHS(root):
        if text := _own_text(p):
            yield text


def _own_text(p: Any) -> str:
    """A paragraph's text without that of the text boxes it anchors (their paragraphs are read on their own)."""
    return "".join(t.text or "" for t in _TEXTS(p) if _OWNER(t)[0] is p).strip()
