"""The report a TA may publish: a challenge's static report site (:mod:`kothkit.results.site`) in
which no student is named by login and no bot's output is shown.

Each bot is named as the site's replays name it (its author's nickname, else ``student <id>``:
:class:`kothkit.serve.privacy.Names`, made one word); verdicts give their neutral reason; no bot's
log or stderr is in it.  The admin's download (``/admin/c/<name>/report.zip``) and ``kothkit
report`` pointed at a host's state folder both make it here.
"""

from __future__ import annotations

import io
import tempfile
import zipfile
from pathlib import Path

from kothkit.results.archive import Archive, ArchiveError
from kothkit.serve.privacy import KEY_FILE, Names, load_key

#: Above this many games the report leaves out the replay pages (each game re-played to make its
#: page), as ``kothkit report --no-pages`` does: the standings and bot pages stay.
MAX_PAGES = 5000


def public_names(names: Names, archive: Archive) -> dict[str, str]:
    """Every bot of ``archive`` (its games' and its runs') -> its name in the published report."""
    from kothkit.results.site import bots_of

    return names.in_game(bots_of(archive))


def state_names(state_dir: Path, challenge: str) -> Names:
    """The bots of a host's submissions challenge as its site names them, read from its state
    folder (the host may be running; opening its tables as the host does may bring their schema
    up to date and their modes to private, as a start of the host would)."""
    from kothkit.serve.accounts import Accounts
    from kothkit.serve.submissions import Store

    if not (state_dir / KEY_FILE).is_file():
        # A new key would give every bot another id than the site's: names that match nothing.
        raise ArchiveError(f"{state_dir}: no {KEY_FILE}: the public ids of this state's bots are unknown "
                           f"(a copy of the state must include it)")

    accounts, store = Accounts(state_dir), Store(state_dir)
    try:
        owners = {row.bot: row.login for row in store.list(challenge)}
        return Names.make("submissions", load_key(state_dir), owners, owners, accounts.nicknames())
    finally:
        accounts.close()
        store.close()


def report_zip(archive: Archive, rename: dict[str, str], folder: str, translated: bool = False) -> bytes:
    """The report site of ``archive``'s standings, its bots renamed by ``rename``, as a zip whose
    files are under ``folder/``; ``translated``: its pages (index, bots, replays) in the request's
    language (kothkit.serve.i18n: the admin's download), else in English."""
    from kothkit.results.site import boards_of, write_site
    from kothkit.serve import i18n

    boards = boards_of(archive, rename=rename)
    buf = io.BytesIO()
    with tempfile.TemporaryDirectory(prefix="kothkit-report-") as tmp:
        site = Path(tmp) / "report"
        # (in English, the same pages as kothkit report's on the state folder, byte for byte)
        translated = translated and i18n.current() != i18n.DEFAULT
        words = dict(i18n.replay_words()) if translated else None
        write_site(archive, site, boards, pages=len(archive.records) <= MAX_PAGES, words=words,
                   lang=i18n.current() if translated else "en", said=i18n.reason if translated else None,
                   translations=i18n.languages()[i18n.current()].translations if translated else None)
        with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as z:
            for path in sorted(site.rglob("*")):
                if path.is_file():
                    z.write(path, f"{folder}/{path.relative_to(site).as_posix()}")
    return buf.getvalue()
