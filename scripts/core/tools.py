"""The system tools the build and the tests need (node, chromium): found, or installed from Debian.

    python3 -m scripts.core.tools node --for site        # exit 0 when node and npm run
    python3 -m scripts.core.tools chromium CMD --for test  # prints chromium's path on stdout

When a tool is missing and Debian packages can be installed here (root, apt-get), it installs
them, saying so in one line; otherwise it names the command to run, in one line, and exits 1.
Standard library only: it runs before anything else is installed.
"""
from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
from dataclasses import dataclass

# What Debian 12 calls each tool's package, and where the package puts the program.
PACKAGES = {"node": ("nodejs", "npm"), "chromium": ("chromium",)}
DEBIAN_PATH = {"chromium": "/usr/bin/chromium", "node": "/usr/bin/node"}
ADVICE = {"chromium": "or run 'make test BROWSER=skip' to skip the browser tests",
          "node": "Node 20 or later also works from nodejs.org"}


@dataclass(frozen=True)
class Plan:
    action: str          # "found", "install" or "missing"
    path: str | None     # the program, when found
    message: str | None  # the one line to print


def find(cmd: str) -> str | None:
    """A command name looked up on PATH, or a path that must be executable."""
    if os.sep in cmd:
        return cmd if os.path.isfile(cmd) and os.access(cmd, os.X_OK) else None
    return shutil.which(cmd)


def plan(tool: str, cmd: str, found: str | None, can_install: bool, who: str) -> Plan:
    """What to do about `tool` (run as `cmd`): use it, install its Debian packages, or say how to."""
    if found:
        return Plan("found", found, None)
    packages = " ".join(PACKAGES[tool])
    if can_install:
        return Plan("install", None, f"{who}: {cmd} not found; installing Debian's {packages} (apt-get install {packages})")
    return Plan("missing", None, f"{who}: {cmd} not found; install it with 'sudo apt-get install {packages}', "
                                 f"{ADVICE[tool]}")


def can_install() -> bool:
    return hasattr(os, "geteuid") and os.geteuid() == 0 and shutil.which("apt-get") is not None


def install(tool: str) -> str | None:
    """apt-get install the tool's packages quietly; None on success, else the one-line reason."""
    env = os.environ | {"DEBIAN_FRONTEND": "noninteractive"}
    for args in (["update", "-qq"], ["install", "-y", "-qq", "--no-install-recommends", *PACKAGES[tool]]):
        proc = subprocess.run(["apt-get", *args], env=env, capture_output=True, text=True)
        if proc.returncode != 0:
            last = (proc.stderr.strip() or proc.stdout.strip() or "no output").splitlines()[-1]
            return f"apt-get {' '.join(args[:1])} failed (exit status {proc.returncode}): {last}"
    return None


def ensure(tool: str, cmd: str, who: str) -> str:
    """The program's path, installing it first when it is missing and that is possible; SystemExit(1) else."""
    p = plan(tool, cmd, find(cmd), can_install(), who)
    if p.action == "found":
        return p.path
    print(p.message, file=sys.stderr)
    if p.action == "missing":
        raise SystemExit(1)
    why = install(tool)
    if why:
        print(f"{who}: {why}", file=sys.stderr)
        raise SystemExit(1)
    # The package puts the program in /usr/bin, which may be off this PATH (or cmd named another place).
    path = find(tool) or find(DEBIAN_PATH[tool])
    if path is None:
        print(f"{who}: apt-get installed {' '.join(PACKAGES[tool])}, but {tool} is still not found", file=sys.stderr)
        raise SystemExit(1)
    return path


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("tool", choices=sorted(PACKAGES))
    ap.add_argument("cmd", nargs="?", help="the command or path to use (default: the tool's name)")
    ap.add_argument("--for", dest="who", default="make", help="the target asking, for the messages")
    args = ap.parse_args(argv)
    try:
        path = ensure(args.tool, args.cmd or args.tool, args.who)
        if args.tool == "node":
            ensure("node", "npm", args.who)
    except KeyboardInterrupt:
        print(f"{args.who}: interrupted while installing {args.tool}", file=sys.stderr)
        return 130
    print(path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
