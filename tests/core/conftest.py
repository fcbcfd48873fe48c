"""The scratch repository the make and stage tests work on (tests/helpers/scratch.py)."""
from __future__ import annotations

from pathlib import Path

import pytest

from tests.helpers.scratch import scratch_repo


@pytest.fixture
def repo(tmp_path) -> Path:
    return scratch_repo(tmp_path / "repo")
