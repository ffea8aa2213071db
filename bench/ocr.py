"""OCR figures: pages/s of Tesseract (via PyMuPDF) on real scans, and character accuracy on the scanned brochure.

Run: .venv/bin/python bench/ocr.py [--dpi 300] [--language jpn+eng] [--survey-pages 5]
Accuracy is 1 - (edit operations / transcript characters), whitespace collapsed, from difflib's alignment of
the OCR reading against ``../shared/realdocs/en_scan_linn_sequencer_brochure.transcript.txt``. Readings are not
cached here (each run reads every page afresh); no thresholds are asserted.
"""

from __future__ import annotations

import argparse
import difflib
import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import pymupdf  # noqa: E402

from rag.ingest.parsing.ocr import ocr_page  # noqa: E402

REALDOCS = ROOT.parent / "shared" / "realdocs"
BROCHURE = REALDOCS / "docs" / "en_scan_linn_sequencer_brochure.pdf"
TRANSCRIPT = REALDOCS / "en_scan_linn_sequencer_brochure.transcript.txt"
SURVEY = REALDOCS / "docs" / "ja_openchain_industry_survey_2023_imagetext.pdf"


def character_accuracy(reference: str, reading: str) -> float:
    """1 - edit operations / reference length, whitespace collapsed on both sides."""
    ref, hyp = " ".join(reference.split()), " ".join(reading.split())
    matcher = difflib.SequenceMatcher(None, ref, hyp, autojunk=False)
    errors = sum(max(i2 - i1, j2 - j1) for op, i1, i2, j1, j2 in matcher.get_opcodes() if op != "equal")
    return 1 - errors / len(ref)


def read_pages(path: Path, numbers: list[int], language: str, dpi: int) -> tuple[str, float]:
    """The OCR text of the given 0-based pages and the seconds it took."""
    with pymupdf.open(path) as doc:
        started = time.perf_counter()
        lines = [line.text for n in numbers for line in ocr_page(doc[n], language=language, dpi=dpi, cache_dir=None)]
        return "\n".join(lines), time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dpi", type=int, default=300)
    parser.add_argument("--language", default="jpn+eng")
    parser.add_argument("--survey-pages", type=int, default=5, help="image-only slides to time (0: none)")
    args = parser.parse_args()
    print(f"cores: {os.cpu_count()}, dpi {args.dpi}, languages {args.language}")
    reading, seconds = read_pages(BROCHURE, [0], args.language, args.dpi)
    accuracy = character_accuracy(TRANSCRIPT.read_text(encoding="utf-8"), reading)
    print(f"brochure (1 scanned letter page): {seconds:.1f} s, character accuracy {accuracy:.3f}")
    print(f"  '32' read: {'32' in reading}, '110,000' read: {'110,000' in reading}")
    if args.language != "eng":
        english, seconds_en = read_pages(BROCHURE, [0], "eng", args.dpi)
        accuracy_en = character_accuracy(TRANSCRIPT.read_text(encoding="utf-8"), english)
        print(f"  same page with eng only: {seconds_en:.1f} s, character accuracy {accuracy_en:.3f}")
    if args.survey_pages:
        pages = list(range(1, 1 + args.survey_pages))
        _, seconds = read_pages(SURVEY, pages, args.language, args.dpi)
        print(f"survey slides (image-only, 720x405 pt): {len(pages)} pages in {seconds:.1f} s, "
              f"{len(pages) / seconds:.3f} pages/s")  # fmt: skip


if __name__ == "__main__":
    main()
