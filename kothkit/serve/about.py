"""What a challenge's page shows from its folder: its ``README.md`` (``README.zh_CN.md`` for
Chinese readers, where there is one) rendered from Markdown, and the template brains in its
``templates/`` folder, offered for download; and the game's own README (its protocol for bot
authors), which a folder challenge's page links to.

The README is the host's own text but is rendered as if it were not: raw HTML in it is shown as
text (markdown-it-py with ``html`` off), images are left out (no page loads anything from
elsewhere) and only safe links are made (markdown-it's link check).  A template is a regular file
directly in ``templates/`` with a plain name, at most :data:`MAX_TEMPLATE` bytes; anything else
there (a folder, a link, a dot file) is not offered.

And what the judge makes of a challenge's limits where the page cannot read them off the settings
(:func:`process_cap`, :func:`load_time`): the page says what the judge applies.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path
from typing import Any

import attrs
import markupsafe
from markdown_it import MarkdownIt

from kothkit.limits import DEFAULT_PROCESSES

#: Bytes a README or a template may have to be shown or offered.
MAX_README = 256 * 1024
MAX_TEMPLATE = 256 * 1024
_NAME = re.compile(r"[A-Za-z0-9_+-][A-Za-z0-9_.+-]{0,63}")
_md = MarkdownIt("commonmark", {"html": False, "linkify": False}).enable("table").disable("image")


def process_cap(limits: Any) -> int | None:
    """The cap on a bot's processes (tasks) at once as the judge applies it: the challenge's
    ``processes``, else :data:`~kothkit.limits.DEFAULT_PROCESSES` where a pids cgroup holds it (the
    jail always caps one: kothkit.procs.contain.Jail), else none."""
    if limits.processes is not None:
        return int(limits.processes)
    from kothkit.procs.contain import capabilities

    return DEFAULT_PROCESSES if capabilities().pids_dir is not None else None


def load_time(limits: Any) -> float:
    """Seconds a Python function bot's file has to load before its first move, as the judge gives
    them (:func:`kothkit.playing.seats.load_time`)."""
    from kothkit.playing.seats import load_time as judges

    return judges(limits)


#: A strict ISO C standard in a C build's flags: POSIX names are hidden then.
_STRICT_C = re.compile(r"-std=(?:c89|c90|c99|c9x|c11|c1x|c17|c18|c2x|c23|iso9899:\S+)|-ansi")


def strict_c(build: tuple[str, ...]) -> bool:
    """Whether a build compiles strict ISO C (``gcc -std=c11``): then ``clock_gettime``,
    ``nanosleep`` and the other POSIX names are not declared unless the source defines
    ``_POSIX_C_SOURCE`` before its first ``#include`` (``-std=gnu11`` declares them)."""
    return bool(build) and any(_STRICT_C.fullmatch(arg) for arg in build) and not any(
        arg.startswith("-D_POSIX_C_SOURCE") or arg.startswith("-D_GNU_SOURCE") or arg.startswith("-D_DEFAULT_SOURCE")
        for arg in build)


@attrs.frozen
class Template:
    name: str
    size: int
    path: Path


def readme(folder: Path, lang: str) -> markupsafe.Markup | None:
    """The challenge's README in ``lang`` (else its README.md) as HTML; None without one."""
    for name in (f"README.{lang}.md", "README.md"):
        path = folder / name
        if path.is_file() and not path.is_symlink() and path.stat().st_size <= MAX_README:
            return markupsafe.Markup(_md.render(path.read_text(encoding="utf-8", errors="replace")))
    return None


def protocol(game: Any) -> markupsafe.Markup | None:
    """The game's own README (its plugin package's README.md, which says how a bot talks to the
    judge) as HTML, rendered as a challenge's README is; None when its package has none."""
    module = sys.modules.get(getattr(game.match, "__module__", "") or "")
    top = sys.modules.get((getattr(module, "__name__", "") or "").partition(".")[0])
    for mod in (module, top):
        file = getattr(mod, "__file__", None)
        path = Path(file).parent / "README.md" if file else None
        if path is not None and path.is_file() and not path.is_symlink() and path.stat().st_size <= MAX_README:
            return markupsafe.Markup(_md.render(path.read_text(encoding="utf-8", errors="replace")))
    return None


def templates(folder: Path) -> list[Template]:
    """The template brains offered, by name."""
    where = folder / "templates"
    if not where.is_dir() or where.is_symlink():
        return []
    out = []
    for path in sorted(where.iterdir()):
        if _NAME.fullmatch(path.name) and path.is_file() and not path.is_symlink():
            size = path.stat().st_size
            if size <= MAX_TEMPLATE:
                out.append(Template(path.name, size, path))
    return out
