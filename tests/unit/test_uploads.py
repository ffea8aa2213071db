"""Uploaded names a hostile or careless client sends end up as plain names inside storage/uploads, or as a clear
failed outcome; no ``.part`` file is ever left behind."""

from __future__ import annotations

from pathlib import Path

import pytest

from rag.errors import UploadNameError
from rag.ingest.uploads import MAX_NAME_BYTES, safe_upload_name, save_upload
from rag.service import RagService

TEXT = b"TEEC_OpenSession opens a session between a client application and a trusted application.\n"


@pytest.mark.parametrize(
    ("sent", "stored"),
    [
        ("../../evil.txt", "evil.txt"),
        ("/etc/passwd.txt", "passwd.txt"),
        ("C:\\Users\\me\\notes.txt", "notes.txt"),
        ("repo\x00rt.txt", "report.txt"),
        ("two\nlines.txt", "twolines.txt"),
        ("..hidden.txt", "hidden.txt"),
        ("🎉🎉.txt", "🎉🎉.txt"),
        ("🎉", "🎉"),
        ("ｶﾞ.txt", "ｶﾞ.txt"),  # kept as sent apart from NFC (half-width kana are not folded)
    ],
)
def test_names_are_reduced_to_one_plain_file_name(sent: str, stored: str) -> None:
    assert safe_upload_name(sent) == stored


def test_a_long_name_is_cut_to_fit_and_keeps_its_extension() -> None:
    name = safe_upload_name("議" * 300 + ".pdf")
    assert name.endswith(".pdf") and len(name.encode()) <= MAX_NAME_BYTES and name.startswith("議")


@pytest.mark.parametrize("sent", ["..", ".", "/", "\x00", "\n", " . ", "a/.."])
def test_names_with_nothing_usable_are_a_typed_error(sent: str) -> None:
    with pytest.raises(UploadNameError, match="rename the file"):
        safe_upload_name(sent)


def test_a_write_that_fails_leaves_no_part_file(tmp_path: Path) -> None:
    (tmp_path / "report.txt").mkdir()  # the target is a folder with something in it: the final rename fails
    (tmp_path / "report.txt" / "keep").write_text("x")

    with pytest.raises(OSError):
        save_upload(tmp_path, "report.txt", TEXT)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["report.txt"]


def test_hostile_upload_names_through_the_service(settings, minilm_embedder) -> None:
    service = RagService(settings, embedder=minilm_embedder)
    sent = ["..", "/abs/olute.txt", "nul\x00.txt", "new\nline.txt", "x" * 300 + ".txt", "🎉.txt"]

    report = service.index_uploads([(name, TEXT) for name in sent])

    uploads = settings.storage / "uploads"
    stored = sorted(p.name for p in uploads.iterdir())
    assert not any(name.endswith(".part") for name in stored)
    assert all(p.resolve().parent == uploads.resolve() for p in uploads.iterdir())
    outcomes = {f.source: f for f in report.files}
    assert outcomes[".."].status == "failed" and "rename the file" in outcomes[".."].error
    assert {"olute.txt", "nul.txt", "newline.txt", "🎉.txt"} <= {
        s for s, f in outcomes.items() if f.status == "indexed"
    }
    long_name = next(s for s in outcomes if s.startswith("xxx"))
    assert outcomes[long_name].status == "indexed" and long_name.endswith(".txt")
    assert len(stored) == 5
