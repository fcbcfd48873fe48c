"""Run the data stages of scripts/core/registry.py all-or-nothing, judged by content hashes.

    python3 -m scripts.core.stage check NAME     # exit 0 up to date, 1 stale (with the reason), 2 error
    python3 -m scripts.core.stage check --restore NAME  # the same, first restoring committed copies of outputs
    python3 -m scripts.core.stage stale          # the names of the stale data stages, one line
    python3 -m scripts.core.stage run NAME...    # run the stages' steps in a staging folder, then swap in
    python3 -m scripts.core.stage stamp NAME F   # write F (make's stamp) only when NAME's outputs changed
    python3 -m scripts.core.stage makefile       # the stage rules the Makefile includes
    python3 -m scripts.core.stage table          # the stage table of site_data/README.md
    python3 -m scripts.core.stage contract       # its data-contract table
    python3 -m scripts.core.stage readme         # the whole of site_data/README.md

File times cannot tell staleness: a fresh clone gives every file the same arbitrary time. A stage is
fresh when its inputs and its outputs hash to what site_data/manifest.json recorded, so a changed
input, or a missing or damaged output, makes it run again, unless (`check --restore`) the inputs are
unchanged and git holds the recorded bytes of every bad output: then they are restored from there, as
retraining on another CPU would give other numbers.

A run never edits site_data/ in place. Its steps work on a copy (build/staging/NAME/), its outputs are
checked against their schemas, and then outputs and the new manifest are moved in together: the list
of moves is written first (build/staging/commit.json), so if the process dies halfway the next
invocation finishes them before doing anything else. A failure or Ctrl-C before that point leaves the
committed data untouched. Standard library only, apart from the schema check of a finished run.

Exit status 1 means stale and nothing else: any other failure, expected or not, is one line and 2.
"""
from __future__ import annotations

import argparse
import datetime as dt
import hashlib
import json
import os
import platform
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

from scripts.core.io import package_versions, rel, sha256_file
from scripts.core.registry import BY_NAME, DATA, GENERATORS, ROOT, Stage, contract_table, readme, table

MANIFEST = ROOT / "site_data" / "manifest.json"
STAGING = ROOT / "build" / "staging"
JOURNAL = STAGING / "commit.json"
SCHEMA_VERSION = 1


class Stale(Exception):
    """The stage must run; the message says why."""


class StageFailure(Exception):
    """The stage cannot be checked or run; one line says what to fix."""


def sha256(path: Path) -> str:
    return sha256_file(path)


# ---- committing: a journal of moves, finished by whoever comes next --------------------------------
def _finish(moves: list[list[str]]) -> None:
    for src, dst in moves:
        if (ROOT / src).exists():  # moved already by the run that was cut short
            (ROOT / dst).parent.mkdir(parents=True, exist_ok=True)  # a stage's first output in a new folder
            os.replace(ROOT / src, ROOT / dst)
    JOURNAL.unlink()


def recover() -> None:
    """Finish a commit that a killed run left halfway (its moves are listed in the journal)."""
    if not JOURNAL.exists():
        return
    try:
        moves = json.loads(JOURNAL.read_text(encoding="utf-8"))["moves"]
    except (ValueError, KeyError, TypeError):
        # The journal is written atomically before any move: a bad one means no move was made.
        JOURNAL.unlink()
        return
    _finish(moves)
    print(f"stage: finished a commit that was cut short ({len(moves)} files)", file=sys.stderr)


def _write_atomic(path: Path, data: str | bytes, durable: bool = False) -> None:
    """Write beside `path` and rename; `durable` also flushes file and folder to disk (the journal must
    be on disk before the first move it lists, or a power cut could leave half a commit unlisted)."""
    tmp = path.with_name(f".{path.name}.tmp")
    with open(tmp, "wb") as fh:
        fh.write(data.encode("utf-8") if isinstance(data, str) else data)
        if durable:
            fh.flush()
            os.fsync(fh.fileno())
    os.replace(tmp, path)
    if durable:
        folder = os.open(path.parent, os.O_RDONLY)
        try:
            os.fsync(folder)
        finally:
            os.close(folder)


def commit(moves: list[tuple[Path, Path]]) -> None:
    """Move staged files over the committed ones: all of them, even if this process is killed midway."""
    # A Ctrl-C, hang-up or TERM now would only delay the same moves.
    old = {sig: signal.signal(sig, signal.SIG_IGN) for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)}
    try:
        listed = [[rel(s), rel(d)] for s, d in moves]
        _write_atomic(JOURNAL, json.dumps({"moves": listed}), durable=True)
        _finish(listed)
    finally:
        for sig, handler in old.items():
            signal.signal(sig, handler)


# ---- freshness ---------------------------------------------------------------------------------------
def _hashes(value) -> bool:
    return isinstance(value, dict) and all(isinstance(k, str) and isinstance(v, str) for k, v in value.items())


def _shape(data) -> None:
    """Raise ValueError naming the first part of the manifest that is not what a run writes."""
    if not isinstance(data, dict) or not isinstance(data.get("stages"), dict):
        raise ValueError("no 'stages' object")
    for name, rec in data["stages"].items():
        if not isinstance(rec, dict):
            raise ValueError(f"stages.{name} is {type(rec).__name__}, not an object")
        for key in ("inputs", "outputs"):
            if not _hashes(rec.get(key)):
                raise ValueError(f"stages.{name}.{key} is not an object of file hashes")


def load_manifest() -> dict:
    if not MANIFEST.exists():
        return {"schema_version": SCHEMA_VERSION, "stages": {}}
    try:
        data = json.loads(MANIFEST.read_text(encoding="utf-8"))
        _shape(data)
        return data
    except (ValueError, UnicodeDecodeError) as exc:
        raise StageFailure(f"{rel(MANIFEST)} is corrupt ({exc}); restore it with "
                           f"`git checkout -- {rel(MANIFEST)}`, or delete it to rebuild every stage") from None


def input_hashes(stage: Stage) -> dict[str, str]:
    out = {}
    for name in stage.inputs:
        path = ROOT / name
        if not path.is_file():
            raise StageFailure(f"stage {stage.name}: input {name} is missing")
        out[name] = sha256(path)
    return out


def _bad_outputs(stage: Stage, outs: dict[str, str]) -> list[tuple[str, str]]:
    """(path, why) for each output that is missing or differs from the recorded hash."""
    bad = []
    for path in stage.outputs:
        if not (ROOT / path).is_file():
            bad.append((path, f"output missing: {path}"))
        elif sha256(ROOT / path) != outs[path]:
            bad.append((path, f"output differs from the recorded one: {path}"))
    return bad


def committed_copy(path: str) -> bytes | None:
    """The file as the repository's last commit holds it, or None (no git, not a checkout, not committed)."""
    try:
        proc = subprocess.run(["git", "-C", str(ROOT), "cat-file", "blob", f"HEAD:{path}"],
                              capture_output=True, timeout=60)
    except (OSError, subprocess.SubprocessError):
        return None
    return proc.stdout if proc.returncode == 0 else None


def _restore(name: str, bad: list[tuple[str, str]], outs: dict[str, str]) -> bool:
    """Put back every bad output from git when each committed copy has the recorded hash; else touch nothing."""
    copies = {}
    for path, _ in bad:
        data = committed_copy(path)
        if data is None or hashlib.sha256(data).hexdigest() != outs[path]:
            return False
        copies[path] = data
    for path, data in copies.items():
        (ROOT / path).parent.mkdir(parents=True, exist_ok=True)
        _write_atomic(ROOT / path, data)
    print(f"{name}: restored {', '.join(copies)} from the repository's committed copy "
          "(its inputs are unchanged, so the recorded bytes are the right ones)", file=sys.stderr)
    return True


def check(name: str, restore: bool = False) -> None:
    """Raise Stale with the reason unless inputs and outputs hash to what the manifest recorded.

    With `restore`, missing or damaged outputs of a stage whose inputs are unchanged are first put back
    from git when its copy has the recorded hash (the stage is then fresh without running)."""
    stage = BY_NAME[name]
    recover()
    rec = load_manifest()["stages"].get(name)
    if rec is None:
        raise Stale("never built")
    now = input_hashes(stage)
    recorded = rec["inputs"]
    changed = sorted(k for k in set(now) | set(recorded) if now.get(k) != recorded.get(k))
    if changed:
        raise Stale("inputs changed: " + ", ".join(changed))
    outs = rec["outputs"]
    for path in stage.outputs:
        if path not in outs:
            raise Stale(f"output never recorded: {path}")
    bad = _bad_outputs(stage, outs)
    if bad and not (restore and _restore(name, bad, outs)):
        raise Stale(bad[0][1])


def stale() -> list[str]:
    out = []
    for stage in DATA:
        try:
            check(stage.name)
        except Stale:
            out.append(stage.name)
    return out


# ---- running -----------------------------------------------------------------------------------------
def _validate(stage: Stage, staged: Path) -> None:
    import jsonschema  # only a run needs it; it is in both lock files

    for path, schema in stage.outputs.items():
        file = staged / path
        if not file.is_file():
            raise StageFailure(f"stage {stage.name}: its steps did not write {path}")
        if schema is None:
            continue
        data = json.loads(file.read_text(encoding="utf-8"))
        spec = json.loads((ROOT / f"site_data/schema/{schema}.schema.json").read_text(encoding="utf-8"))
        try:
            jsonschema.validate(data, spec)
        except jsonschema.ValidationError as exc:
            where = "/".join(str(p) for p in exc.absolute_path)
            raise StageFailure(f"stage {stage.name}: {path} does not match {schema}.schema.json at '{where}': "
                               f"{exc.message}") from None


def _undeclared(stage: Stage, staged: Path) -> None:
    """A step that writes a file the registry does not list would lose it here: say so instead."""
    for file in sorted((staged / "site_data").rglob("*")):
        if not file.is_file():
            continue
        path = f"site_data/{file.relative_to(staged / 'site_data')}"
        committed = ROOT / path
        if path not in stage.outputs and (not committed.is_file() or sha256(committed) != sha256(file)):
            raise StageFailure(f"stage {stage.name}: its steps wrote {path}, which scripts/core/registry.py "
                               "does not list among its outputs")


def _provenance(stage: Stage) -> dict:
    out = {}
    for key, ref in stage.provenance:
        file, dotted = ref.split(":")
        value = json.loads((ROOT / file).read_text(encoding="utf-8"))
        for part in dotted.split("."):
            value = value[part]
        out[key] = value
    return out


def run(name: str) -> None:
    stage = BY_NAME[name]
    if stage.kind != "data":
        raise StageFailure(f"{name} is a generator: make builds it")
    recover()
    manifest = load_manifest()  # fails now, before any work, if the manifest is unreadable
    work = STAGING / name
    shutil.rmtree(work, ignore_errors=True)
    # The steps see a private copy of site_data (and build/ for intermediates such as the checkpoint).
    shutil.copytree(ROOT / "site_data", work / "site_data")
    (work / "build").mkdir()
    env = os.environ | {"NEXTTOKEN_SITE_DATA": str(work / "site_data"), "NEXTTOKEN_BUILD": str(work / "build")}
    before = input_hashes(stage)
    timings = {}
    for step in stage.steps:
        start = time.perf_counter()
        # In a session of its own, a step never sees the terminal's Ctrl-C (which would print a traceback
        # from whatever it is importing): this runner gets it, stops the step and says so in one line.
        proc = subprocess.run([sys.executable, "-m", step], cwd=ROOT, env=env, start_new_session=True)
        if proc.returncode != 0:
            raise StageFailure(f"stage {name}: step {step} failed (exit status {proc.returncode}); "
                               "site_data/ is unchanged")
        timings[step] = round(time.perf_counter() - start, 2)
    _validate(stage, work)
    _undeclared(stage, work)
    if input_hashes(stage) != before:
        raise StageFailure(f"stage {name}: an input changed while it ran; run it again")
    manifest["schema_version"] = SCHEMA_VERSION
    manifest["stages"][name] = {
        "inputs": before,
        "outputs": {p: sha256(work / p) for p in stage.outputs},
        "seconds": timings,
        "packages": package_versions(stage.packages),
        "machine": machine(),
        **_provenance(stage),
        "built": dt.datetime.now(dt.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
    }
    # a stage the registry no longer lists (merged or removed) leaves no record behind
    manifest["stages"] = {k: v for k, v in sorted(manifest["stages"].items()) if k in BY_NAME}
    staged_manifest = work / "manifest.json"
    staged_manifest.write_text(json.dumps(manifest, indent=2) + "\n", encoding="utf-8")
    commit([(work / p, ROOT / p) for p in stage.outputs] + [(staged_manifest, MANIFEST)])
    shutil.rmtree(work, ignore_errors=True)
    print(f"{name}: built in {sum(timings.values()):.1f} s ({', '.join(f'{k} {v} s' for k, v in timings.items())})")


def machine() -> str:
    """The machine a stage ran on, with what decides float rounding: PyTorch and MKL pick kernels by
    the CPU's vector extensions, and 3,000 Adam steps amplify a last-bit difference (see
    ARCHITECTURE.md, "Reproducible on one machine")."""
    model, flags = "unknown CPU", set()
    try:
        for line in Path("/proc/cpuinfo").read_text(encoding="utf-8").splitlines():
            key, _, value = line.partition(":")
            if key.strip() == "model name" and model == "unknown CPU":
                model = value.strip()
            elif key.strip() == "flags" and not flags:
                flags = set(value.split())
    except OSError:
        pass
    vector = [f for f in ("avx512f", "avx2", "fma") if f in flags]
    return f"{platform.machine()}, {os.cpu_count()} cores, {model}" + (f", {' '.join(vector)}" if vector else "")


def stamp(name: str, path: Path) -> None:
    """Make's stamp for a data stage: rewritten only when the outputs' hashes change, so what reads
    the outputs is rebuilt exactly then."""
    rec = load_manifest()["stages"].get(name, {})
    text = json.dumps(rec.get("outputs", {}), indent=1, sort_keys=True) + "\n"
    if path.exists() and path.read_text(encoding="utf-8") == text:
        return
    path.parent.mkdir(parents=True, exist_ok=True)
    _write_atomic(path, text)


def stamp_path(name: str) -> str:
    return f"build/stamps/{name}.outputs"


# ---- the Makefile's stage rules ----------------------------------------------------------------------
def makefile() -> str:
    """Rules for build/make/stages.mk: one FORCE'd stamp per data stage, one file rule per generator."""
    lines = ["# Generated by `python3 -m scripts.core.stage makefile` from scripts/core/registry.py: do not edit.",
             f"DATA_STAGES := {' '.join(s.name for s in DATA)}",
             f"DATA_STAMPS := {' '.join(stamp_path(s.name) for s in DATA)}", ""]
    for s in DATA:
        after = " ".join(stamp_path(r) for r in s.reads)  # a stage that reads another's outputs runs after it
        # The settings check first: a mistyped setting is one line before anything is installed.
        lines += [f"{stamp_path(s.name)}: FORCE {after} | settings $(VENV)/.site-deps".replace("  ", " "),
                  f"\t@$(call data_stage,{s.name})", ""]
    targets = []
    for s in GENERATORS:
        prereqs = [*s.modules, *s.extra, *(stamp_path(r) for r in s.reads)]
        head = " ".join(s.targets)
        sep = " &:" if len(s.targets) > 1 else ":"
        lines += [f"{head}{sep} {' '.join(prereqs)} | $(VENV)/.site-deps",
                  *(f"\t$(PY) -m {m}" for m in s.steps)]
        if s.stamp:
            lines.append(f"\t@touch {s.stamp}")
        lines.append("")
        targets += s.targets
    lines.append(f"GENERATED := {' '.join(targets)}")
    return "\n".join(lines) + "\n"


def _interrupt(signum, frame):
    raise KeyboardInterrupt


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    p = sub.add_parser("check")
    p.add_argument("--restore", action="store_true", help="first restore bad outputs from git where it holds them")
    p.add_argument("name", choices=[s.name for s in DATA])
    sub.add_parser("stale")
    sub.add_parser("run").add_argument("names", nargs="+", choices=[s.name for s in DATA])
    p = sub.add_parser("stamp")
    p.add_argument("name", choices=[s.name for s in DATA])
    p.add_argument("path", type=Path)
    sub.add_parser("makefile")
    sub.add_parser("table")
    sub.add_parser("contract")
    sub.add_parser("readme")
    args = ap.parse_args(argv)
    try:
        if args.cmd == "check":
            try:
                check(args.name, restore=args.restore)
            except Stale as why:
                print(f"{args.name}: stale ({why})")
                return 1
        elif args.cmd == "stale":
            print(" ".join(stale()))
        elif args.cmd == "run":
            # A hang-up or TERM stops the runner as Ctrl-C does, so it also stops the step in its own session.
            for sig in (signal.SIGTERM, signal.SIGHUP):
                signal.signal(sig, _interrupt)
            for name in args.names:
                run(name)
        elif args.cmd == "stamp":
            stamp(args.name, args.path)
        elif args.cmd == "makefile":
            sys.stdout.write(makefile())
        elif args.cmd == "table":
            sys.stdout.write(table())
        elif args.cmd == "contract":
            sys.stdout.write(contract_table())
        elif args.cmd == "readme":
            sys.stdout.write(readme())
    except StageFailure as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("error: interrupted; site_data/ is unchanged", file=sys.stderr)
        return 130
    except Exception as exc:  # noqa: BLE001 - exit 1 must only ever mean "stale"
        print(f"error: stage {args.cmd} failed unexpectedly: {type(exc).__name__}: {exc}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
