"""A page's error as one line: the hook, the page, the line when it is known, and the cause.

MkDocs prints a PluginError (a BuildError) as one line, but any other exception as a traceback, and it
logs a bare "Error reading page 'x.md':" before a BuildError raised while it reads or builds a page. The
hooks turn every exception a page's text can cause into `page_error(...)`, and `one_line_errors()` drops
that bare prefix (our line names the page already), so a fault in a page is exactly one line.
"""
from __future__ import annotations

import logging
import re

from mkdocs.exceptions import PluginError

BARE_PREFIX = re.compile(r"^Error (reading|building) page '[^']*':$")


def template_line(exc: BaseException) -> int | None:
    """The line of the Jinja2 template the error was raised on: a syntax error carries it; jinja2 rewrites a
    runtime error's traceback so that the template's frames are named "<template>" with the template's lines."""
    line = getattr(exc, "lineno", None)
    tb = exc.__traceback__
    while tb is not None:
        if tb.tb_frame.f_code.co_filename == "<template>":
            line = tb.tb_lineno
        tb = tb.tb_next
    return line


def cause(exc: BaseException) -> str:
    """'Type: message' on one line (a message of several lines keeps its first)."""
    text = str(getattr(exc, "message", None) or exc).strip().split("\n")[0]
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


def page_error(hook: str, page: str, exc: BaseException, offset: int = 0) -> PluginError:
    """The one-line error for `exc`, raised while rendering `page`; `offset` is the number of the page's
    source lines before the text that was rendered (its front matter, which MkDocs strips)."""
    line = template_line(exc)
    where = page + (f", line {line + offset}" if line else "")
    return PluginError(f"{hook}: {where}: {cause(exc)}")


class _DropBarePrefix(logging.Filter):
    def filter(self, record: logging.LogRecord) -> bool:
        return not (record.levelno >= logging.ERROR and BARE_PREFIX.match(record.getMessage()))


_FILTER = _DropBarePrefix()


def one_line_errors() -> None:
    """Drop MkDocs' bare "Error reading page 'x':" line (idempotent: `mkdocs serve` rebuilds)."""
    logger = logging.getLogger("mkdocs.commands.build")
    if _FILTER not in logger.filters:
        logger.addFilter(_FILTER)
