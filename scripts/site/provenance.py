"""The site's version and date, for links, downloads and "Cite this": from site_data/manifest.json.

The version is the build's content hash of site_data: sha256 over every stage's output files and their
recorded hashes (sorted), first 12 hex digits, so two builds from the same data carry the same version.
The date is the newest stage's build date (not the clock's: a rebuild stays byte-identical).
"""
from __future__ import annotations

import hashlib
import json
from pathlib import Path

TITLE = "nexttoken: how a language model picks its next token"


def provenance(site_data: Path) -> dict:
    manifest = json.loads((site_data / "manifest.json").read_text(encoding="utf-8"))
    outputs = sorted((path, digest) for stage in manifest["stages"].values() for path, digest in stage["outputs"].items())
    version = hashlib.sha256("\n".join(f"{p} {d}" for p, d in outputs).encode("utf-8")).hexdigest()[:12]
    built = max(stage["built"] for stage in manifest["stages"].values())[:10]
    return {"title": TITLE, "version": version, "date": built, "year": built[:4],
            "bibtex": bibtex(version, built), "plain": plain(version, built)}


def bibtex(version: str, date: str) -> str:
    return (f"@misc{{nexttoken_{version},\n"
            f"  title        = {{{{{TITLE}}}}},\n"
            f"  author       = {{{{nexttoken}}}},\n"
            f"  year         = {{{date[:4]}}},\n"
            f"  version      = {{{version}}},\n"
            f"  date         = {{{date}}},\n"
            f"  howpublished = {{Interactive explainer; every number computed by its build from real weights}},\n"
            f"  note         = {{Site version {version} (content hash of its data), built {date}}}\n"
            f"}}")


def plain(version: str, date: str) -> str:
    return f"nexttoken. {TITLE}. Interactive explainer, site version {version} (content hash of its data), built {date}."
