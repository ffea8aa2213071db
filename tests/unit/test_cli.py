"""The command line as people meet it: help with examples on every command, ``--version``, the ``rag`` command."""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tomllib
from importlib import import_module
from pathlib import Path

import pytest

import rag
from rag.cli import _parser, main

REPO = Path(__file__).resolve().parents[2]


def _subcommands() -> dict[str, argparse.ArgumentParser]:
    action = next(a for a in _parser()._actions if isinstance(a, argparse._SubParsersAction))
    return dict(action.choices)


def test_every_command_argument_and_flag_has_help_and_the_command_has_examples() -> None:
    commands = _subcommands()
    assert set(commands) == set(
        "index stats check remove search ask quiz evaluate export import sync similar collections".split()
    )
    for name, command in commands.items():
        assert f"python -m rag {name}" in (command.epilog or ""), f"{name} has no examples"
        for action in command._actions:
            assert action.help and action.help.strip(), f"{name} {action.dest} has no help"


def test_version_prints_the_package_version(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as done:
        main(["--version"])
    assert done.value.code == 0
    assert capsys.readouterr().out.strip() == f"python -m rag {rag.__version__}"


def test_the_console_script_in_pyproject_is_the_cli_entry_point() -> None:
    project = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))
    module, _, function = project["project"]["scripts"]["rag"].partition(":")
    entry = getattr(import_module(module), function)
    assert entry is main and callable(entry)
    assert project["tool"]["setuptools"]["dynamic"]["version"] == {"attr": "rag.__version__"}
    assert project["tool"]["setuptools"]["dynamic"]["dependencies"] == {"file": ["requirements.txt"]}
    assert project["tool"]["setuptools"]["packages"]["find"]["include"] == ["rag*"]  # not tests, app_pages, ui


def test_python_m_rag_answers_help_and_version_from_another_folder(tmp_path: Path) -> None:
    env = {**os.environ, "PYTHONPATH": str(REPO)}  # what the editable install provides; works without it too
    version = subprocess.run([sys.executable, "-m", "rag", "--version"], cwd=tmp_path, env=env,
                             capture_output=True, text=True, timeout=60)  # fmt: skip
    assert version.returncode == 0 and version.stdout.strip().endswith(rag.__version__), version.stderr
    helped = subprocess.run([sys.executable, "-m", "rag", "quiz", "--help"], cwd=tmp_path, env=env,
                            capture_output=True, text=True, timeout=60)  # fmt: skip
    assert helped.returncode == 0 and "orion_manual.pdf" in helped.stdout
    assert list(tmp_path.iterdir()) == []  # asking for help creates no ./storage


def test_the_installed_rag_command_runs_from_another_folder(tmp_path: Path) -> None:
    command = Path(sys.executable).parent / "rag"
    if not command.exists():
        pytest.skip(f"{command} is absent: this venv has no editable install (scripts/setup.sh makes one)")
    done = subprocess.run([str(command), "--version"], cwd=tmp_path, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0 and done.stdout.strip() == f"rag {rag.__version__}", done.stderr
