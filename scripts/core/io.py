"""Shared helpers for the pipeline stages: paths, atomic JSON, hashing, loud failures."""
from __future__ import annotations

import hashlib
import importlib.metadata as md
import json
import math
import os
import platform
import sys
import tempfile
from pathlib import Path
from typing import Any, Callable

ROOT = Path(__file__).resolve().parents[2]
# Overridable so that tests can run a stage against a scratch copy without touching the real data.
SITE_DATA = Path(os.environ.get("NEXTTOKEN_SITE_DATA", ROOT / "site_data"))
BUILD = Path(os.environ.get("NEXTTOKEN_BUILD", ROOT / "build"))
SCHEMAS = ROOT / "site_data" / "schema"
CONFIG = ROOT / "scripts" / "config"
SCHEMA_VERSION = 1


class StageError(Exception):
    """A failure a maintainer can act on; the message names the file or input at fault."""


def rel(path: Path) -> str:
    """Path relative to the repository root, for messages and the manifest."""
    try:
        return str(Path(path).resolve().relative_to(ROOT))
    except ValueError:
        return str(path)


def read_text(path: Path) -> str:
    try:
        return Path(path).read_text(encoding="utf-8")
    except FileNotFoundError:
        raise StageError(f"{rel(path)}: file not found") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise StageError(f"{rel(path)}: cannot read ({exc})") from None


def read_json(path: Path) -> Any:
    text = read_text(path)
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise StageError(f"{rel(path)}: corrupt JSON ({exc})") from None


def round_floats(obj: Any, digits: int = 9) -> Any:
    """Nested lists/tuples/dicts with every float cut to `digits` significant digits.

    Nine digits round-trip a float32 and keep traces well inside the 1e-6 parity budget.
    NaN and infinity have no JSON form: they fail here rather than corrupt a data file.
    """
    if isinstance(obj, float):
        if not math.isfinite(obj):
            raise StageError(f"refusing to write a non-finite float ({obj})")
        return float(f"{obj:.{digits}g}")
    if isinstance(obj, dict):
        return {k: round_floats(v, digits) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [round_floats(v, digits) for v in obj]
    return obj


def dumps(obj: Any) -> str:
    return json.dumps(obj, ensure_ascii=False, separators=(",", ":"), allow_nan=False) + "\n"


def write_text_atomic(path: Path, text: str) -> None:
    """Write to a temporary file beside `path`, then rename: an interrupted run leaves the old file."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as fh:
            fh.write(text)
        os.chmod(tmp, 0o644)  # mkstemp makes 0600 files; data files are for everyone to read
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def write_json_atomic(path: Path, obj: Any) -> None:
    write_text_atomic(path, dumps(obj))


def validate(obj: Any, schema_name: str, what: str) -> None:
    """Check `obj` against site_data/schema/<schema_name>.schema.json before it is written."""
    import jsonschema  # imported here: only the stages that write data need it

    schema = read_json(SCHEMAS / f"{schema_name}.schema.json")
    try:
        jsonschema.validate(obj, schema)
    except jsonschema.ValidationError as exc:
        path = "/".join(str(p) for p in exc.absolute_path)
        raise StageError(f"{what} does not match {schema_name}.schema.json at '{path}': {exc.message}") from None


def sha256_file(path: Path) -> str:
    try:
        return hashlib.sha256(Path(path).read_bytes()).hexdigest()
    except FileNotFoundError:
        raise StageError(f"{rel(path)}: file not found") from None


def package_versions(names) -> dict[str, str]:
    """Installed versions of `names`, and Python's, recorded as provenance."""
    out = {"python": platform.python_version()}
    for n in names:
        try:
            out[n] = md.version(n)
        except md.PackageNotFoundError:
            out[n] = "not installed"
    return out


def run_main(main: Callable[[], None]) -> None:
    """Run a stage's main(); a StageError becomes one clear line on stderr and exit status 1."""
    try:
        main()
    except StageError as exc:
        print(f"error: {exc}", file=sys.stderr)
        sys.exit(1)
    except KeyboardInterrupt:
        print("error: interrupted; earlier outputs are left as they were", file=sys.stderr)
        sys.exit(130)
