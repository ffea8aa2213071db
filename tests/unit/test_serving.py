"""Safe serving defaults, as Streamlit itself reads them from ``.streamlit/config.toml``: loopback only, XSRF on,
no tracebacks in browsers, and the upload limit the engine enforces."""

from __future__ import annotations

from pathlib import Path

import pytest
from streamlit import config

from rag.settings import Settings

REPO = Path(__file__).resolve().parents[2]


def test_a_plain_streamlit_run_serves_safely(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(REPO)  # Streamlit reads ./.streamlit/config.toml from the folder it is started in
    config.get_config_options(force_reparse=True)

    assert config.get_option("server.address") == "127.0.0.1"
    assert config.get_option("server.enableXsrfProtection") is True
    assert config.get_option("client.showErrorDetails") == "none"
    assert config.get_option("server.maxUploadSize") == Settings().max_file_mb
    assert config.get_option("browser.gatherUsageStats") is False
