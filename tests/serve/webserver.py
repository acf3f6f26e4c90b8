"""A real ``kothkit serve`` for the web tests: the command in a subprocess on a free port of
127.0.0.1, its output read under deadlines, stopped with SIGINT (then killed) and reaped; and
small helpers to sign in and post forms as a browser does (Origin header, the form's CSRF token).

Every state folder here is made with Argon2id's cheapest costs (``TEST_HASHING``, kept in its
host.sqlite, used by the commands run on it): a hash at the default costs takes 0.1-0.2 s, and these
tests sign in and change passwords dozens of times.  The default costs are tested in
test_web_accounts.py."""

from __future__ import annotations

import contextlib
import os
import re
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import httpx

from kothkit.serve.accounts import TEST_HASHING, Accounts

ROOT = Path(__file__).resolve().parents[2]

#: The tiny C brain of the tests: the free cell nearest the centre, a DEBUG line a move.
BRAIN_C = r"""
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <time.h>
#include <string.h>
#include <stdlib.h>
static int taken[12][12];
static void reset(void) { memset(taken, 0, sizeof taken); taken[5][5] = taken[6][6] = taken[5][6] = taken[6][5] = 1; }
int main(void) {
    char line[256];
    while (fgets(line, sizeof line, stdin)) {
        if (!strncmp(line, "START", 5)) { reset(); printf("OK\n"); fflush(stdout); }
        else if (!strncmp(line, "PLACE", 5)) { int r, c; if (sscanf(line + 5, "%d %d", &r, &c) == 2) taken[r][c] = 1; }
        else if (!strncmp(line, "TURN", 4)) {
            int br = -1, bc = -1, bd = 1 << 30;
            for (int r = 0; r < 12; r++) for (int c = 0; c < 12; c++) {
                int d = abs(2 * r - 11) + abs(2 * c - 11);
                if (!taken[r][c] && d < bd) { bd = d; br = r; bc = c; }
            }
            taken[br][bc] = 1;
            if (DELAY_MS) { struct timespec ts = {0, DELAY_MS * 1000000L}; nanosleep(&ts, 0); }
            printf("DEBUG SECRET-%s thinks %d %d\n", NAME, br, bc);
            printf("%d %d\n", br, bc); fflush(stdout);
        } else if (!strncmp(line, "END", 3)) { fprintf(stderr, "stderr-of-%s\n", NAME); return 0; }
    }
    return 0;
}
"""


def brain(name: str, delay_ms: int = 0) -> bytes:
    """The tiny brain's source, with ``name`` in its DEBUG and stderr lines (to tell logs apart),
    thinking ``delay_ms`` a move."""
    return f'#define NAME "{name}"\n#define DELAY_MS {delay_ms}\n{BRAIN_C}'.encode()


BROKEN_C = b"int main(void) { this is not C; }\n"


def challenge(folder: Path, *, kind: str = "submissions", min_interval: float = 1, per_day: int = 20,
              max_bytes: int = 1_000_000, extra: str = "", title: str = "Gomoku 12x12 <b>course</b>") -> Path:
    """A gomoku_classic12 challenge folder with short limits and a ``[serve]`` table (its title, by
    default, with markup in it that the pages must show as text)."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "kothkit.toml").write_text(
        'game = "gomoku_classic12"\n'
        f'{extra}'
        'seed = 16\n'
        '[limits]\nmove_time = 1.0\nfirst_reply_time = 2.0\ngame_time = 20.0\n'
        f'[serve]\nkind = "{kind}"\ntitle = "{title}"\nmax_bytes = {max_bytes}\n'
        f'min_interval = {min_interval}\nper_day = {per_day}\nbuild_time = 60\n')
    return folder


def kothkit(*args, cwd: Path, timeout: float = 120) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "kothkit", *map(str, args)], cwd=cwd, capture_output=True,
                          text=True, timeout=timeout, stdin=subprocess.DEVNULL, env={**os.environ, "COLUMNS": "200"})


def cheap_state(state: Path) -> None:
    """Make ``state`` (or keep it) a state folder whose password hashes are cheap (tests only)."""
    Accounts(state, hashing=TEST_HASHING).close()


def roster(state: Path, cwd: Path, rows: list[str]) -> None:
    """``kothkit users add`` of a CSV with these logins (first password: the login)."""
    cheap_state(state)
    csv = cwd / "roster.csv"
    csv.write_text("login\n" + "".join(r + "\n" for r in rows))
    r = kothkit("users", "add", csv, "--state", state, cwd=cwd)
    assert r.returncode == 0, r.stdout + r.stderr


class Server:
    """``kothkit serve CHALLENGES --state STATE --port 0`` until :meth:`stop`."""

    def __init__(self, challenges: list[Path], state: Path, cwd: Path, jobs: int = 1, timeout: float = 90,
                 args: tuple = ()):
        cheap_state(state)
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "kothkit", "serve", *map(str, challenges), "--state", str(state), "--port", "0",
             "--jobs", str(jobs), *map(str, args)], cwd=cwd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT, text=True, start_new_session=True, env={**os.environ, "COLUMNS": "200"})
        self.lines: list[str] = []
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()
        try:
            self.url = self.expect(r"serving \d+ challenges? at (http://127\.0\.0\.1:\d+/)", timeout).group(1).rstrip("/")
        except BaseException:
            self.stop()
            raise

    def _read(self) -> None:
        for line in self.proc.stdout:
            self.lines.append(line.rstrip("\n"))

    @property
    def text(self) -> str:
        return "\n".join(self.lines)

    def expect(self, pattern: str, timeout: float) -> re.Match:
        until = time.monotonic() + timeout
        rx = re.compile(pattern)
        while True:
            m = rx.search(self.text)
            if m:
                return m
            if self.proc.poll() is not None and not self._reader.is_alive():
                raise AssertionError(f"kothkit serve ended ({self.proc.returncode}) without {pattern!r}:\n{self.text}")
            if time.monotonic() > until:
                raise AssertionError(f"no {pattern!r} from kothkit serve within {timeout} s:\n{self.text}")
            time.sleep(0.05)

    def stop(self, kill: bool = False, timeout: float = 30) -> int:
        """Ctrl-C (or SIGKILL of its whole group with ``kill``), then reap; its exit code."""
        if self.proc.poll() is None:
            try:
                os.killpg(self.proc.pid, signal.SIGKILL if kill else signal.SIGINT)
            except ProcessLookupError:
                pass
            try:
                self.proc.wait(timeout)
            except subprocess.TimeoutExpired:
                os.killpg(self.proc.pid, signal.SIGKILL)
                self.proc.wait(10)
                raise AssertionError(f"kothkit serve did not stop within {timeout} s of Ctrl-C:\n{self.text}") from None
        else:
            # Its group may hold processes it started (bots, builds): none may outlive it.
            try:
                os.killpg(self.proc.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        self._reader.join(10)
        return self.proc.returncode


def client(server: Server) -> httpx.Client:
    """A client that sends the site's own Origin on every request, as a browser does on a POST."""
    return httpx.Client(base_url=server.url, headers={"origin": server.url}, timeout=30)


def csrf_of(page: str) -> str:
    m = re.search(r'name="csrf" value="([^"]*)"', page)
    assert m, f"no csrf field in the page:\n{page[:2000]}"
    return m.group(1)


def sign_in(c: httpx.Client, login: str, password: str) -> httpx.Response:
    page = c.get("/login")
    return c.post("/login", data={"csrf": csrf_of(page.text), "login": login, "password": password, "next": "/"})


def account(c: httpx.Client, old: str, new: str, nickname: str) -> httpx.Response:
    page = c.get("/account")
    return c.post("/account", data={"csrf": csrf_of(page.text), "old": old, "new": new, "again": new,
                                    "nickname": nickname})


def ready_user(c: httpx.Client, login: str, nickname: str | None = None, password: str = "a-new-password") -> None:
    """Sign in with the roster password, then set a new password and a nickname."""
    r = sign_in(c, login, login)
    assert r.status_code == 303 and r.headers["location"] == "/account", (r.status_code, r.text[:500])
    r = account(c, login, password, nickname or f"nick-{login}")
    assert r.status_code == 303, r.text[-1500:]


@contextlib.contextmanager
def user(server: Server, login: str, nickname: str | None = None, password: str = "a-new-password"):
    """A client signed in as ``login``, its account ready (new password and nickname) if it was not."""
    with client(server) as c:
        if sign_in(c, login, password).status_code != 303:
            ready_user(c, login, nickname, password)
        yield c


def submit(c: httpx.Client, name: str, source: bytes, filename: str = "brain.c", language: str = "c11") -> httpx.Response:
    page = c.get(f"/c/{name}/submit")
    assert page.status_code == 200, page.text[-1000:]
    return c.post(f"/c/{name}/submit", data={"csrf": csrf_of(page.text), "language": language},
                  files={"file": (filename, source, "text/x-c")})


def wait_for(what, timeout: float, every: float = 0.3, message: str = ""):
    """``what()`` once it is true (returned), polled until ``timeout`` s."""
    until = time.monotonic() + timeout
    while True:
        got = what()
        if got:
            return got
        if time.monotonic() > until:
            raise AssertionError(f"not within {timeout} s: {message}")
        time.sleep(every)


def play(c: httpx.Client, name: str, opponent_label: str, seat: str = "0", timeout: float = 90) -> tuple[str, dict, str]:
    """A whole Play game of challenge ``name`` (a 12x12 board) over HTTP, as the page plays it, against
    the opponent whose label holds ``opponent_label``, each move the next cell (an occupied one is
    asked again): its live URL, its last state and its replay's path."""
    page = c.get(f"/c/{name}/play").text
    options = dict((label.strip(), value) for value, label in
                   re.findall(r'<option value="([^"]*)"[^>]*>([^<]*)</option>', page))
    key = next(v for label, v in options.items() if opponent_label in label)
    r = c.post(f"/c/{name}/play", data={"csrf": csrf_of(page), "opponent": key, "seat": seat})
    assert r.status_code == 303, r.text[-1000:]
    live = r.headers["location"]
    token = csrf_of(c.get(live).text)
    cells = iter([(r_, c_) for r_ in range(12) for c_ in range(12)])
    until = time.monotonic() + timeout
    seen = -1
    while time.monotonic() < until:
        st = c.get(f"{live}/state").json()
        if st["over"]:
            assert st.get("final") or st.get("abandoned"), st
            wait_for(lambda: c.get(f"{live}/state").json().get("replay"), 30, message="the replay's link")
            st = c.get(f"{live}/state").json()
            return live, st, st["replay"]
        if st.get("waiting") and st["seq"] != seen:
            seen = st["seq"]
            r_, c_ = next(cells)
            assert c.post(f"{live}/move", data={"csrf": token, "text": f"{r_} {c_}"}).status_code == 200
        time.sleep(0.05)
    raise AssertionError(f"the Play game did not end within {timeout} s")


def watched_page(browser) -> tuple[Any, list[str]]:
    """A new page of the session's Chromium, and the list its script errors are added to."""
    page = browser.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    return page, errors
