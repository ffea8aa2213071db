#!/usr/bin/env bash
# Starts the dashboard on http://127.0.0.1:8501 with the embedded defaults (no Ollama needed).
# Everything it needs is set up on the first run; data lives in ./storage (RAG_STORAGE_DIR moves it).
source "$(dirname "${BASH_SOURCE[0]}")/setup.sh"
apt_install tesseract-ocr tesseract-ocr-jpn tesseract-ocr-eng  # OCR of scanned PDFs and image-only slides
ensure_venv
export RAG_STORAGE_DIR=${RAG_STORAGE_DIR:-$ROOT/storage}
provision_models "${RAG_MODEL_DIR:-$RAG_STORAGE_DIR/models}"
say "starting the dashboard on http://${RAG_ADDRESS:-127.0.0.1}:${RAG_PORT:-8501}"
exec .venv/bin/python -m streamlit run streamlit_app.py \
  --server.address "${RAG_ADDRESS:-127.0.0.1}" --server.port "${RAG_PORT:-8501}" \
  --server.headless true --browser.gatherUsageStats false --server.maxUploadSize "${RAG_MAX_FILE_MB:-200}" "$@"
