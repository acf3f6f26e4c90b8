"""No write of ``kothkit serve`` is lost beside the other programs the docs tell a host to run on its
state while it runs (issue 36, item 1): ``kothkit users`` (docs/serve.md) and the online backups of
docs/hosting.md (their very commands, read from the page), run in the middle of a term on a real
server while it writes its databases (first sign-ins, submissions, the games' journal, a Play game's
journal, admin actions); then the server is stopped by SIGTERM, and later by SIGKILL, and started
again, and every write made before is found: the accounts, the submissions and their ids, the
disabled brain and account, the reset password, the admin log, the games and the Play replay.

Closing any descriptor of a database's file outside its connections drops every POSIX lock the
process holds on it: the other program then takes itself for the last connection, checkpoints and
deletes the write-ahead log, and the server's later writes go into a deleted file (the bug this
guards against)."""

from __future__ import annotations

import os
import re
import shlex
import shutil
import signal
import sqlite3
import subprocess
import sys
from contextlib import closing
from pathlib import Path

from kothkit.serve.accounts import private_file
from tests.serve.webserver import (
    ROOT,
    Server,
    brain,
    challenge,
    client,
    csrf_of,
    kothkit,
    play,
    ready_user,
    roster,
    sign_in,
    submit,
    user,
    wait_for,
)

NAME = "g12"
PASSWORD = "a-new-password"


def backup_scripts(state: Path, to: Path) -> dict[str, str]:
    """docs/hosting.md's backup commands, as the page gives them, for ``state`` into ``to``: with the
    ``sqlite3`` command ("cli") and with Python's sqlite3 module ("python")."""
    text = (ROOT / "docs" / "hosting.md").read_text(encoding="utf-8")
    section = text[text.index("**Backups.**"):text.index("**Upgrading with games in flight.**")]
    blocks = re.findall(r"```sh\n(.*?)```", section, re.S)
    assert len(blocks) == 2, section
    first, second = blocks
    assert first.startswith("STATE=$PWD/state BACKUP=/backup/state\n"), first
    first = f"STATE={shlex.quote(str(state))} BACKUP={shlex.quote(str(to))}\n" + first.split("\n", 1)[1]
    head = first[:first.index('(cd "$STATE" && for db')]
    return {"cli": first, "python": head + second}


def run_backup(script: str, cwd: Path) -> None:
    r = subprocess.run(["bash", "-euc", script], cwd=cwd, capture_output=True, text=True, timeout=120,
                       stdin=subprocess.DEVNULL)
    assert r.returncode == 0, r.stdout + r.stderr


def users(state: Path, cwd: Path, *args: str) -> str:
    """A ``kothkit users`` command on ``state``, which must succeed; its output."""
    r = kothkit("users", *args, "--state", state, cwd=cwd)
    assert r.returncode == 0, r.stdout + r.stderr
    return r.stdout


def add_roster(state: Path, cwd: Path, logins: list[str]) -> None:
    csv = cwd / f"roster-{logins[0]}.csv"
    csv.write_text("login\n" + "".join(x + "\n" for x in logins))
    assert "added" in users(state, cwd, "add", str(csv))


def games_stored(state: Path) -> int:
    with closing(sqlite3.connect(f"file:{state / 'journals' / f'{NAME}.sqlite'}?mode=ro", uri=True,
                                 timeout=30)) as db:
        return int(db.execute("SELECT count(*) FROM games").fetchone()[0])


def admin_view(server: Server) -> tuple[dict[str, str], list[str]]:
    """Each submission id with its status, and the admin log's page text."""
    with user(server, "root", "Root", PASSWORD) as root:
        text = root.get(f"/admin/c/{NAME}").text
        statuses = dict(re.findall(r'<tr data-id="(\d+)".*?data-status="([a-z-]+)"', text, re.S))
        return statuses, [root.get("/admin").text]


def admin_post(server: Server, path: str) -> None:
    with user(server, "root", "Root", PASSWORD) as root:
        r = root.post(path, data={"csrf": csrf_of(root.get("/admin").text)})
        assert r.status_code == 303, (path, r.status_code, r.text[-1000:])


def submit_brain(server: Server, login: str) -> None:
    with user(server, login, f"nick-{login}", PASSWORD) as c:
        r = submit(c, NAME, brain(login, delay_ms=30))
        assert r.status_code == 303, r.text[-1000:]


def signs_in(server: Server, login: str, password: str) -> str | None:
    """Where a sign-in of ``login`` leads (None: refused)."""
    with client(server) as c:
        r = sign_in(c, login, password)
        return r.headers["location"] if r.status_code == 303 else None


def check_everything(server: Server, state: Path, expected: dict) -> None:
    """Every write recorded in ``expected`` is found in the started-again server."""
    statuses, (home,) = admin_view(server)
    assert set(expected["submissions"]) <= set(statuses), (expected["submissions"], statuses)
    for sid in expected["disabled_brains"]:
        assert statuses[sid] == "disabled", statuses
    for login in expected["ready"]:
        assert signs_in(server, login, PASSWORD) == "/", login
    for login in expected["new"]:  # added by `kothkit users add`, never signed in
        assert signs_in(server, login, login) == "/account", login
    for login in expected["disabled_users"]:
        assert signs_in(server, login, PASSWORD) is None, login
    for login in expected["reset"]:
        assert signs_in(server, login, login) == "/account", login
    log = re.findall(r'<td data-action="([^"]*)">[^<]*</td><td>([^<]*)</td>', home.split('id="admin-log"')[1])
    for entry in expected["log"]:
        assert entry in log, (entry, log)
    assert games_stored(state) >= expected["games"]
    with user(server, "root", "Root", PASSWORD) as root:
        for replay in expected["replays"]:
            assert root.get(replay).status_code == 200, replay
    listed = users(state, state.parent, "list")
    for login in expected["ready"] + expected["new"]:
        assert login in listed, listed


def test_no_write_is_lost_beside_users_commands_and_backups(tmp_path):
    ch = challenge(tmp_path / NAME, min_interval=0, per_day=100)
    state, backups = tmp_path / "state", tmp_path / "backups"
    roster(state, tmp_path, ["root", "s1", "s2", "s3", "s4"])
    users(state, tmp_path, "admin", "root")
    expected: dict = {"submissions": [], "disabled_brains": [], "ready": [], "new": [], "disabled_users": [],
                      "reset": [], "log": [], "games": 0, "replays": []}
    server = Server([ch], state, tmp_path, jobs=2)
    try:
        with client(server) as c:
            ready_user(c, "root", "Root", PASSWORD)
        for login in ("s1", "s2"):
            submit_brain(server, login)
            expected["ready"].append(login)
        with client(server) as c:
            wait_for(lambda: c.get(f"/c/{NAME}/standings.json").json()["playing"] > 0, 120, every=0.1,
                     message="a game in flight")
        # Beside the writing server: the users commands, and both online backups of the docs.
        users(state, tmp_path, "list")
        add_roster(state, tmp_path, ["s5", "s6"])
        expected["new"] += ["s5", "s6"]
        expected["log"].append(("add users", "s5, s6"))
        scripts = backup_scripts(state, backups / "one")
        if shutil.which("sqlite3"):
            run_backup(scripts["cli"], tmp_path)
        run_backup(backup_scripts(state, backups / "two")["python"], tmp_path)
        users(state, tmp_path, "admin", "s4")
        users(state, tmp_path, "admin", "s4", "--revoke")

        # The server's writes after them: first sign-ins, submissions, a Play game, admin actions.
        for login in ("s3", "s5"):
            submit_brain(server, login)
            expected["ready"].append(login)
        expected["new"].remove("s5")
        with user(server, "s1", "nick-s1", PASSWORD) as s1:
            wait_for(lambda: 'data-status="done"' in s1.get(f"/c/{NAME}/mine").text, 180, message="s1's brain in")
            _live, _st, replay = play(s1, NAME, "your latest brain")
            expected["replays"].append(replay)
        statuses, _ = admin_view(server)
        first = min(statuses, key=int)
        admin_post(server, f"/admin/c/{NAME}/{first}/disable")
        expected["disabled_brains"].append(first)
        admin_post(server, "/admin/users/s2/disable")
        expected["ready"].remove("s2")
        expected["disabled_users"].append("s2")
        admin_post(server, "/admin/users/s4/reset")
        expected["reset"].append("s4")
        expected["log"] += [("disable", "s2"), ("reset", "s4"), ("disable", f"{NAME} submission {first}")]
        expected["submissions"] = list(admin_view(server)[0])
        expected["games"] = games_stored(state)
        assert expected["games"] > 0
        # A stop by SIGTERM, as an upgrade does.
        os.kill(server.proc.pid, signal.SIGTERM)
        assert server.stop() == 0, server.text
    finally:
        server.stop(kill=True)
    # The backups are state folders with what was there when they were made.
    for copy in ("one", "two"):
        if (backups / copy).exists():
            assert "s5" in users(backups / copy, tmp_path, "list")

    server = Server([ch], state, tmp_path, jobs=2)
    try:
        check_everything(server, state, expected)
        # Again beside the writing server, then a stop by SIGKILL.
        users(state, tmp_path, "list")
        add_roster(state, tmp_path, ["s7"])
        expected["new"].append("s7")
        expected["log"].append(("add users", "s7"))
        run_backup(backup_scripts(state, backups / "three")["python"], tmp_path)
        if shutil.which("sqlite3"):
            run_backup(backup_scripts(state, backups / "four")["cli"], tmp_path)
        users(state, tmp_path, "reset", "s3")
        expected["ready"].remove("s3")
        expected["reset"].append("s3")
        users(state, tmp_path, "disable", "s5")
        expected["ready"].remove("s5")
        expected["disabled_users"].append("s5")
        expected["log"] += [("reset", "s3"), ("disable", "s5")]
        submit_brain(server, "s6")
        expected["new"].remove("s6")
        expected["ready"].append("s6")
        with user(server, "s6", "nick-s6", PASSWORD) as s6:
            wait_for(lambda: 'data-status="done"' in s6.get(f"/c/{NAME}/mine").text, 180, message="s6's brain in")
            _live, _st, replay = play(s6, NAME, "your latest brain")
            expected["replays"].append(replay)
        admin_post(server, "/admin/users/s2/enable")
        expected["log"].append(("enable", "s2"))
        expected["disabled_users"].remove("s2")
        expected["ready"].append("s2")
        statuses, _ = admin_view(server)
        expected["submissions"] = list(statuses)
        expected["games"] = games_stored(state)
        server.stop(kill=True)
    finally:
        server.stop(kill=True)
    server = Server([ch], state, tmp_path, jobs=2)
    try:
        check_everything(server, state, expected)
    finally:
        assert server.stop() == 0, server.text


def test_private_file_keeps_the_locks_of_the_connections_open(tmp_path):
    """private_file on a database this process has open (WAL mode, a write made): another program's
    connection, opened and closed after, must not take itself for the last one (it would checkpoint
    and delete the log under this process), and the next write here is kept."""
    db = tmp_path / "x.sqlite"
    private_file(db)  # (missing: made empty, 0600)
    assert db.stat().st_size == 0 and db.stat().st_mode & 0o777 == 0o600
    con = sqlite3.connect(db, isolation_level=None)
    try:
        con.execute("PRAGMA journal_mode=WAL")
        con.execute("CREATE TABLE t (x)")
        con.execute("INSERT INTO t VALUES (1)")
        for f in (db, Path(f"{db}-wal"), Path(f"{db}-shm")):
            f.chmod(0o644)
        private_file(db)
        assert all(f.stat().st_mode & 0o777 == 0o600 for f in (db, Path(f"{db}-wal"), Path(f"{db}-shm")))
        other = ("import sqlite3, sys\nc = sqlite3.connect(sys.argv[1])\n"
                 "assert c.execute('SELECT count(*) FROM t').fetchone() == (1,)\nc.close()\n")
        r = subprocess.run([sys.executable, "-c", other, str(db)], capture_output=True, text=True, timeout=60)
        assert r.returncode == 0, r.stderr
        assert Path(f"{db}-wal").exists()  # (the other program did not take itself for the last connection)
        con.execute("INSERT INTO t VALUES (2)")
    finally:
        con.close()
    with closing(sqlite3.connect(db)) as again:
        assert again.execute("SELECT count(*) FROM t").fetchone() == (2,)
