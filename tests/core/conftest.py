"""The scratch repository the make and stage tests work on (tests/helpers/scratch.py), and Ctrl-C."""
from __future__ import annotations

import signal
from pathlib import Path

import pytest

from tests.helpers.scratch import scratch_repo


@pytest.fixture
def repo(tmp_path) -> Path:
    return scratch_repo(tmp_path / "repo")


@pytest.fixture
def built_repo(tmp_path) -> Path:
    """A scratch copy with the site's generated files as the real repository has them (for `make site
    MODEL=none`): make then redoes only what the test changes."""
    return scratch_repo(tmp_path / "repo", built=True)


@pytest.fixture
def ctrl_c():
    """Let the children receive Ctrl-C as a terminal's would, even when pytest itself was started with
    SIGINT ignored (in the background, or under nohup): ignored signals stay ignored across exec."""
    old = signal.signal(signal.SIGINT, signal.default_int_handler)
    yield
    signal.signal(signal.SIGINT, old)
