"""The demo manifest: which scripts a page loads, in which order, from what each script declares.

Every script under docs/js (runtime, ui, explain, demo, data file) opens with one call

    nexttoken.define("runtime.model", ["runtime.kernels", "later:data.tiny-snapshots"], function (...) {

naming itself (its path under js/ with "/" as ".", no ".js") and what it needs: names of other scripts,
"load" and "store" (docs/js/nexttoken.js, the bootstrap, first on every page with a demo), or
"later:NAME" / "later:PREFIX*" for a script it loads on demand through nexttoken's one loader. A page's
front matter names only its demos (`demos: [one-token]`, each docs/js/demos/<name>.js); `plan` returns
the page's <script> paths: the bootstrap, then every needed script after all it needs. Scripts loaded
later are left out, but what they need is on the page. A demo listed as `later:NAME` (one far down its
page) loads on demand too: the page carries only what the other demos need, plus `ui` (which does the
loading), and the plan names, for its container's data-later, the rest of what it needs, in order.
Anything wrong is a ManifestError naming the page and the script. The MkDocs hook is
scripts/site/hooks/demos.py.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

BOOTSTRAP = "js/nexttoken.js"
BUILT_IN = ("load", "store")            # provided by the bootstrap
LOADER = "ui"                           # loads a `later:` demo's scripts when its container nears the screen
UNDECLARED = ("js/site.js",)            # every page's small fixes (mkdocs.yml extra_javascript), no demo needs it
# The real model's weights: chunks the engine's own checked loader (js/real/loader.js) reads, not demo scripts.
UNDECLARED_DIRS = ("js/data/real/",)
LATER = "later:"
# A script that goes wherever another goes, after it: the page kit's side of a runtime module (the runtime
# runs in node too, so it draws nothing): the bar saying which tiny model the demos use.
COMPANIONS = {"runtime.active": "ui.model-switch"}
DEFINE = re.compile(r'nexttoken\.define\(\s*"([^"]+)"\s*,\s*\[([^\]]*)\]')
NAME = re.compile(r"^[a-z0-9][a-z0-9-]*(\.[a-z0-9][a-z0-9-]*)*$")


class ManifestError(Exception):
    pass


@dataclass(frozen=True)
class Plan:
    scripts: list[str]               # the page's <script> paths, in order
    later: dict[str, list[str]]      # a `later:` demo -> the script names its container loads, in order


@dataclass(frozen=True)
class Script:
    name: str
    path: str            # under docs/, e.g. js/runtime/model.js
    needs: tuple[str, ...]


def name_of(path: str) -> str:
    """js/runtime/model.js -> runtime.model."""
    return path[len("js/"):-len(".js")].replace("/", ".")


def parse(path: str, text: str) -> Script:
    calls = DEFINE.findall(text)
    if len(calls) != 1:
        raise ManifestError(f"{path}: expected one nexttoken.define(\"{name_of(path)}\", [...], ...) call, found {len(calls)}")
    name, raw = calls[0]
    if name != name_of(path):
        raise ManifestError(f"{path}: defines \"{name}\", but its path makes it \"{name_of(path)}\"")
    needs = tuple(n.strip().strip('"') for n in raw.split(",") if n.strip())
    for n in needs:
        bare = n[len(LATER):].rstrip("*") if n.startswith(LATER) else n
        if not NAME.match(bare):
            raise ManifestError(f"{path}: needs \"{n}\", which is not a script name (like runtime.model or later:data.x)")
    return Script(name, path, needs)


def scan(docs: Path) -> dict[str, Script]:
    """Every declared script under docs/js, by name."""
    found = {}
    for file in sorted((docs / "js").rglob("*.js")):
        path = file.relative_to(docs).as_posix()
        if path == BOOTSTRAP or path in UNDECLARED or path.startswith(UNDECLARED_DIRS):
            continue
        s = parse(path, file.read_text(encoding="utf-8"))
        found[s.name] = s
    return found


def _later_targets(need: str, scripts: dict[str, Script]) -> list[str]:
    name = need[len(LATER):]
    if name.endswith("*"):
        return sorted(n for n in scripts if n.startswith(name[:-1]))
    return [name] if name in scripts else []


def demo_name(entry) -> str:
    """A front matter entry's demo: "one-token" or "later:one-token" -> "one-token"."""
    return entry[len(LATER):] if isinstance(entry, str) and entry.startswith(LATER) else entry


def plan(page: str, demos: list[str], scripts: dict[str, Script], extra: tuple[str, ...] = ()) -> Plan:
    """The <script> paths of a page that shows `demos` (and the scripts named in `extra`, such as the
    provenance marks'), in an order where each comes after its needs, and for each `later:` demo the names
    of the scripts it loads on demand (those not on the page already)."""
    order: list[str] = []
    done: set[str] = set()

    def visit(name: str, by: Script | None, chain: tuple[str, ...], into: list[str]) -> None:
        if name in BUILT_IN or name in done:
            return
        if name in chain:
            raise ManifestError(f"{page}: scripts need each other in a circle: {' -> '.join(chain[chain.index(name):] + (name,))}")
        s = scripts.get(name)
        if s is None:
            who = by.path if by else f"its front matter (demos: {name.removeprefix('demos.')})"
            raise ManifestError(f"{page}: {who} needs \"{name}\", which no script provides (no docs/{name_of_path(name)})")
        for need in s.needs:
            if need.startswith(LATER):
                targets = _later_targets(need, scripts)
                if not targets:
                    raise ManifestError(f"{page}: {s.path} needs \"{need}\", which no script provides")
                for t in targets:
                    for sub in scripts[t].needs:  # what a script loaded later needs must be here already
                        if not sub.startswith(LATER):
                            visit(sub, scripts[t], chain + (name, t), into)
            else:
                visit(need, s, chain + (name,), into)
        done.add(name)
        into.append(name)

    for entry in demos:
        demo = demo_name(entry)
        if not isinstance(demo, str) or not NAME.match(demo):
            raise ManifestError(f"{page}: demos: {entry!r} is not a demo's name (a file docs/js/demos/<name>.js, or later:<name>)")
    deferred = [demo_name(e) for e in demos if e != demo_name(e)]
    for demo in [e for e in demos if e == demo_name(e)]:
        visit("demos." + demo, None, (), order)
    for name in extra:
        visit(name, None, (), order)
    if deferred:
        visit(LOADER, None, (), order)
    with_companions(visit, order, done, scripts)
    on_page = set(done)
    later: dict[str, list[str]] = {}
    for demo in deferred:  # each list whole, so either container may load first; load() runs a script once
        done.clear()
        done.update(on_page)
        later[demo] = []
        visit("demos." + demo, None, (), later[demo])
        with_companions(visit, later[demo], done, scripts)
    return Plan([BOOTSTRAP] + [scripts[n].path for n in order], later)


def with_companions(visit, into: list[str], done: set[str], scripts: dict[str, Script]) -> None:
    for script, companion in COMPANIONS.items():
        if script in done and companion in scripts:
            visit(companion, None, (), into)


def name_of_path(name: str) -> str:
    """runtime.model -> js/runtime/model.js."""
    return "js/" + name.replace(".", "/") + ".js"


DATA_DEMO = re.compile(r'data-demo="([^"]+)"')


def check_containers(page: str, demos: list[str], markdown: str) -> None:
    """Each demo container on the page is listed in `demos:`, and each listed demo has one."""
    shown = set(DATA_DEMO.findall(markdown))
    listed = {demo_name(d) for d in demos}
    if shown - listed:
        raise ManifestError(f"{page}: a container shows data-demo \"{sorted(shown - listed)[0]}\", which its front matter's demos: does not list")
    if listed - shown:
        raise ManifestError(f"{page}: demos: lists \"{sorted(listed - shown)[0]}\", but no container on the page has data-demo=\"{sorted(listed - shown)[0]}\"")


def mark_later(markdown: str, later: dict[str, list[str]]) -> str:
    """Each `later:` demo's container gains data-later="name name ...": the scripts ui.js loads for it."""
    for demo, names in later.items():
        markdown = markdown.replace(f'data-demo="{demo}"', f'data-demo="{demo}" data-later="{" ".join(names)}"')
    return markdown


def blank_comments(text: str) -> str:
    """The built copy of a script: whole-line // comments blanked (lines kept, so errors keep their line
    numbers). A reader downloads the code, not its notes; docs/js keeps them. Code lines, with any
    trailing comment, are left as they are."""
    return "".join("\n" if line.lstrip().startswith("//") else line for line in text.splitlines(keepends=True))


def data_script(file: str, body: str, comment: str) -> str:
    """A generated data file docs/js/data/<file> as a declared script: `body` (JSON text) is its value."""
    name = name_of("js/data/" + file)
    return f"// {comment}\nnexttoken.define(\"{name}\", [], function () {{ return {body}; }});\n"


def front_matter(text: str) -> dict:
    import yaml  # the site's packages; the generators that import this module need only data_script
    if not text.startswith("---\n"):
        return {}
    end = text.find("\n---\n", 4)
    return (yaml.safe_load(text[4:end]) or {}) if end > 0 else {}


def main() -> None:
    from scripts.core.io import ROOT, StageError, run_main

    def run() -> None:
        docs = ROOT / "docs"
        try:
            scripts = scan(docs)
            for page in sorted(docs.glob("*.md")):
                listed = front_matter(page.read_text(encoding="utf-8")).get("demos") or []
                if listed:
                    got = plan(f"docs/{page.name}", listed, scripts)
                    print(f"{page.name}: " + " ".join(got.scripts))
                    for demo, names in got.later.items():
                        print(f"  later {demo}: " + " ".join(names))
        except ManifestError as e:
            raise StageError(str(e)) from None
    run_main(run)


if __name__ == "__main__":
    main()
