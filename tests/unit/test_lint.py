"""The code base passes ruff (settings in pyproject.toml)."""

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).parents[2]


def test_ruff_check_and_format():
    for args in (["check"], ["format", "--check"]):
        result = subprocess.run([sys.executable, "-m", "ruff", *args, str(ROOT)], capture_output=True, text=True)
        assert result.returncode == 0, result.stdout + result.stderr
