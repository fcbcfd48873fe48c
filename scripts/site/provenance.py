"""The site's version and date, for links, downloads and "Cite this": from site_data/manifest.json.

The version is the build's content hash of site_data: sha256 over every stage's output files and their
recorded hashes (sorted), first 12 hex digits, so two builds from the same data carry the same version.
The date is the newest stage's build date (not the clock's: a rebuild stays byte-identical). The author
and the address come from mkdocs.yml (site_author; site_url, else repo_url), which the Pages workflow fills:
a local build without them cites no address.
"""
from __future__ import annotations

import hashlib
import json
from pathlib import Path

TITLE = "nexttoken: how a language model picks its next token"


AUTHOR = "the nexttoken contributors"  # when no site_author is given


def provenance(site_data: Path, author: str | None = None, url: str | None = None) -> dict:
    manifest = json.loads((site_data / "manifest.json").read_text(encoding="utf-8"))
    outputs = sorted((path, digest) for stage in manifest["stages"].values() for path, digest in stage["outputs"].items())
    version = hashlib.sha256("\n".join(f"{p} {d}" for p, d in outputs).encode("utf-8")).hexdigest()[:12]
    built = max(stage["built"] for stage in manifest["stages"].values())[:10]
    author = author or AUTHOR
    return {"title": TITLE, "version": version, "date": built, "year": built[:4], "author": author, "url": url,
            "bibtex": bibtex(version, built, author, url), "plain": plain(version, built, author, url)}


def bibtex(version: str, date: str, author: str = AUTHOR, url: str | None = None) -> str:
    return (f"@misc{{nexttoken_{version},\n"
            f"  title        = {{{{{TITLE}}}}},\n"
            f"  author       = {{{{{author}}}}},\n"
            f"  year         = {{{date[:4]}}},\n"
            f"  version      = {{{version}}},\n"
            f"  date         = {{{date}}},\n"
            + (f"  url          = {{{url}}},\n" if url else "")
            + f"  howpublished = {{Interactive explainer; every number computed from real weights}},\n"
            f"  note         = {{Site version {version} (content hash of its data), built {date}}}\n"
            f"}}")


def plain(version: str, date: str, author: str = AUTHOR, url: str | None = None) -> str:
    where = f" {url}" if url else ""
    return (f"{author[:1].upper() + author[1:]}. {TITLE}. Interactive explainer, site version {version} "
            f"(content hash of its data), built {date}.{where}")
