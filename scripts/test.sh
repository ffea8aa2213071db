#!/usr/bin/env bash
# Runs every test (unit, app, slow, e2e in a real browser) after setting up all they need on a fresh machine.
# Extra arguments go to pytest, e.g. scripts/test.sh -m "not slow" -x
source "$(dirname "${BASH_SOURCE[0]}")/setup.sh"
apt_install chromium fonts-ipafont-gothic tesseract-ocr tesseract-ocr-jpn tesseract-ocr-eng
ensure_venv
export RAG_TEST_MODELS=${RAG_TEST_MODELS:-$ROOT/storage/models}
provision_models "$RAG_TEST_MODELS"
exec .venv/bin/python -m pytest "$@"
