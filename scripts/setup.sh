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
  local want; want=$( (cat requirements.txt; llama_recipe) | sha256sum | cut -d' ' -f1)
  if [ "$(cat .venv/.requirements.sha256 2>/dev/null)" != "$want" ]; then
    say "installing pinned requirements into .venv (first run: several minutes)"
    pip_quiet install -q --upgrade pip
    local wheels; wheels=$(llama_wheel_dir)
    build_llama_wheel "$wheels"
    pip_quiet install -q --find-links "$wheels" -r requirements.txt
    # a venv made with an earlier recipe already has this version: put this recipe's build in its place
    pip_quiet install -q --no-deps --force-reinstall "$wheels"/llama_cpp_python-*.whl
    echo "$want" > .venv/.requirements.sha256
  fi
  ensure_package
}

ensure_package() {  # this checkout installed editable: .venv/bin/rag and `python -m rag` work from any folder
  if [ -L .venv ]; then  # a venv linked in from another checkout: its rag command stays that checkout's
    say "skipping the editable install: .venv links to $(readlink -f .venv); run .venv/bin/python -m rag from here"
    return 0
  fi
  local want; want=$( (cat pyproject.toml; echo "$ROOT") | sha256sum | cut -d' ' -f1)
  [ -x .venv/bin/rag ] && [ "$(cat .venv/.package.sha256 2>/dev/null)" = "$want" ] && return 0
  say "installing this checkout into .venv, editable (the rag command)"
  # --no-deps: the pinned requirements are installed above. --no-build-isolation builds with the venv's own
  # setuptools (offline); a venv whose setuptools cannot build an editable wheel (< 70.1 without `wheel`) has pip
  # fetch a build backend from PyPI instead.
  pip_quiet install -q --no-deps --no-build-isolation -e . >/dev/null 2>&1 || pip_quiet install -q --no-deps -e .
  echo "$want" > .venv/.package.sha256
}

# How llama-cpp-python is compiled. GGML_NATIVE=ON uses every instruction set this CPU has (AVX2, or AVX-512 where
# the machine offers it; both seen here): prompt evaluation 1.7x faster than the portable build (bench/llm.py,
# JSQuAD prompt: 11.6 s against 19.8 s to first token). AMX is left out: a CPU can list amx_tile in /proc/cpuinfo
# inside a VM that has not enabled its tile state, and the first `ldtilecfg` then kills the process (general
# protection fault in libggml-cpu, seen on a Firecracker VM's Xeon); GCC's explicit -mno-* win over -march=native
# whatever their order.
LLAMA_CMAKE_ARGS=${CMAKE_ARGS:--DGGML_NATIVE=ON}
LLAMA_CFLAGS="-mno-amx-tile -mno-amx-int8 -mno-amx-bf16"

llama_recipe() {  # what a compiled wheel depends on: the pin and the build flags
  echo "$(grep -E '^llama-cpp-python==' requirements.txt) $LLAMA_CMAKE_ARGS $LLAMA_CFLAGS"
}

llama_wheel_dir() {  # one folder per CPU feature set and recipe, outside the repo so every clone on this machine reuses it
  local cpu; cpu=$( ( (grep -m1 '^flags' /proc/cpuinfo 2>/dev/null || uname -m); llama_recipe) | sha256sum | cut -c1-12)
  echo "${XDG_CACHE_HOME:-$HOME/.cache}/rag-dashboard/wheels/cpu-$cpu"
}

build_llama_wheel() {  # build_llama_wheel DIR : llama-cpp-python (an sdist) compiled once for this CPU
  local dir=$1 pin; pin=$(grep -E '^llama-cpp-python==' requirements.txt)
  local version=${pin#*==}
  ls "$dir"/llama_cpp_python-"$version"-*.whl >/dev/null 2>&1 && return 0
  say "compiling $pin for this CPU (6-8 minutes on 2 cores, once per machine; later set-ups reuse $dir)"
  # The folder is keyed by the CPU's feature flags and the recipe, so another CPU builds its own wheel instead of
  # loading one it cannot run.
  mkdir -p "$dir"
  CMAKE_ARGS="$LLAMA_CMAKE_ARGS" CFLAGS="$LLAMA_CFLAGS ${CFLAGS:-}" CXXFLAGS="$LLAMA_CFLAGS ${CXXFLAGS:-}" \
    pip_quiet wheel -q --no-deps --no-cache-dir -w "$dir" "$pin"
}

provision_models() {  # provision_models DIR : offline embedding model + embedded LLM file, built once
  local dir=$1
  mkdir -p "$dir"
  .venv/bin/python -m rag.models.e5_rebuild --models-dir "$dir"
  if [ "${RAG_EMBEDDING_BACKEND:-torch}" = onnx ]; then  # not the default (bench/embed.py): built only when chosen
    .venv/bin/python -m rag.models.onnx_export --models-dir "$dir" --precision "${RAG_EMBEDDING_PRECISION:-fp32}" --if-missing
  fi
  if .venv/bin/python -c "import rag.llm.gguf_assembly" 2>/dev/null; then
    # the default 1.5B model's parts are in requirements.txt; another RAG_EMBEDDED_LLM gets its parts here
    .venv/bin/python -m rag.llm.gguf_assembly --models-dir "$dir" --variant "${RAG_EMBEDDED_LLM:-qwen2.5-coder-1.5b}" --install-parts
  fi
}
