"""The suite does not depend on the user's model environment (issue 17)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]


def test_exported_model_variables_are_hidden_from_tests() -> None:
    assert "DEEPSEEK_API_KEY" not in os.environ
    assert "DEEPSEEK_BASE_URL" not in os.environ


def test_a_key_alone_does_not_run_the_live_tests() -> None:
    env = {k: v for k, v in os.environ.items() if k != "DSH_LIVE_TESTS"}
    env |= {"DEEPSEEK_API_KEY": "sk-dummy", "DEEPSEEK_BASE_URL": "http://127.0.0.1:9"}
    result = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-rs", "tests/llm/deepseek/test_real_api.py"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert "2 skipped" in result.stdout
    assert "DSH_LIVE_TESTS=1" in result.stdout
