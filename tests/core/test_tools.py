"""node and chromium: found, installed from Debian where this machine can, or one line naming the command."""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from scripts.core import tools
from scripts.core.io import ROOT


def test_a_found_tool_is_used():
    p = tools.plan("chromium", "chromium", "/usr/bin/chromium", can_install=False, who="test")
    assert p.action == "found" and p.path == "/usr/bin/chromium" and p.message is None


def test_a_missing_tool_is_installed_where_debian_packages_can_be():
    p = tools.plan("chromium", "chromium", None, can_install=True, who="test")
    assert p.action == "install"
    assert p.message == "test: chromium not found; installing Debian's chromium (apt-get install chromium)"


@pytest.mark.parametrize("tool, command", [("chromium", "sudo apt-get install chromium"),
                                           ("node", "sudo apt-get install nodejs npm")])
def test_otherwise_one_line_names_the_command(tool, command):
    p = tools.plan(tool, tool, None, can_install=False, who="test")
    assert p.action == "missing" and "\n" not in p.message and command in p.message


def test_chromium_skip_is_named_when_it_cannot_be_installed():
    assert "make test BROWSER=skip" in tools.plan("chromium", "chromium", None, False, "test").message


def _fake_bin(folder: Path, apt_body: str) -> Path:
    """A PATH of its own: python3 and a fake apt-get, nothing else (so no chromium)."""
    folder.mkdir()
    (folder / "python3").symlink_to(sys.executable)
    apt = folder / "apt-get"
    apt.write_text("#!/bin/sh\n" + apt_body)
    apt.chmod(0o755)
    return folder


@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() != 0, reason="installing needs root")
def test_a_missing_chromium_is_installed_saying_so_in_one_line(tmp_path):
    log = tmp_path / "apt.log"
    body = (f'echo "$@" >> {log}\n'
            f'case "$1" in install) printf "#!/bin/sh\\n" > {tmp_path}/bin/chromium; {shutil.which("chmod")} +x {tmp_path}/bin/chromium;; esac\n')
    path = _fake_bin(tmp_path / "bin", body)
    proc = subprocess.run(["python3", "-m", "scripts.core.tools", "chromium", "--for", "test"], cwd=ROOT,
                          env=os.environ | {"PATH": str(path), "PYTHONPATH": str(ROOT)}, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr == "test: chromium not found; installing Debian's chromium (apt-get install chromium)\n"
    assert proc.stdout.strip() == str(path / "chromium")
    calls = log.read_text().splitlines()
    assert calls[0] == "update -qq" and calls[1].startswith("install -y") and calls[1].endswith("chromium")


@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() != 0, reason="installing needs root")
def test_a_failed_install_is_one_line(tmp_path):
    path = _fake_bin(tmp_path / "bin", 'echo "E: Unable to locate package chromium" >&2; exit 100\n')
    proc = subprocess.run(["python3", "-m", "scripts.core.tools", "chromium", "--for", "test"], cwd=ROOT,
                          env=os.environ | {"PATH": str(path), "PYTHONPATH": str(ROOT)}, capture_output=True, text=True)
    assert proc.returncode == 1
    lines = proc.stderr.splitlines()
    assert lines[0].startswith("test: chromium not found; installing")
    assert lines[1:] == ["test: apt-get update failed (exit status 100): E: Unable to locate package chromium"]
