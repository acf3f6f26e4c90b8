"""``kothkit serve`` (host challenges on the web) and ``kothkit users`` (the accounts of its submissions
challenges: add a roster from a CSV, reset a password, make an admin, disable, list).  Every ``kothkit
users`` command prints the state folder's absolute path, and its changes go to the admin log."""

import os
import signal
import socket
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Annotated, Any, Optional

import typer

from kothkit.cli.common import PlainGroup, app, err, fail, out

DEFAULT_STATE = Path("kothkit-host")

users_app = typer.Typer(cls=PlainGroup, help="The accounts of `kothkit serve`'s submissions challenges.",
                        no_args_is_help=True, add_completion=False, pretty_exceptions_enable=False)
app.add_typer(users_app, name="users")

StateOption = Annotated[Path, typer.Option("--state", envvar="KOTHKIT_STATE",
                                            help="The host's state folder (host.sqlite, submissions); made private "
                                                 "to this user (0700).")]


def _accounts(state: Path):
    from kothkit.serve.accounts import Accounts

    try:
        return Accounts(state)
    except Exception as e:  # an unreadable folder or database
        fail(f"{state}: cannot open the host's state: {e}")


@contextmanager
def _users(state: Path, create: bool = False) -> Iterator[Any]:
    """The accounts of ``state`` for one ``kothkit users`` command: an AccountError is printed
    (exit 1), and the database is closed whatever happens.  Only ``create`` (adding users) may
    make a new state folder, and says so: another command on a folder with no state is an error
    (a command run from the wrong folder would otherwise open an empty state unnoticed)."""
    from kothkit.serve.accounts import DB_FILE, AccountError

    if not (state / DB_FILE).is_file():
        if not create:
            fail(f"{state.resolve()}: no host state here (no {DB_FILE}): give --state DIR (or set KOTHKIT_STATE)")
        err.print(f"a new state folder: {state.resolve()}", markup=False)
    accounts = _accounts(state)
    # Said every time: a command run from another folder would otherwise write another state unnoticed.
    err.print(f"state: {state.resolve()}", markup=False)
    try:
        yield accounts
    except AccountError as e:
        fail(str(e))
    finally:
        accounts.close()


def _who() -> str:
    """Who ran a ``kothkit users`` command, for the admin log."""
    import getpass

    try:
        return f"cli:{getpass.getuser()}"
    except (KeyError, OSError):
        return f"cli:uid {os.getuid()}"


def _interrupt(signum, frame):
    raise KeyboardInterrupt


def _listen(host: str, port: int) -> socket.socket:
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    # Accepted connections inherit it: without it a response written in two parts waits for the
    # client's delayed ACK.
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    try:
        sock.bind((host, port))
    except OSError as e:
        sock.close()
        fail(f"cannot listen on {host}:{port}: {e.strerror or e}")
    sock.listen(128)
    sock.set_inheritable(True)
    return sock


@app.command()
def serve(
    challenges: Annotated[list[Path], typer.Argument(help="Challenge folders (each with a kothkit.toml, whose serve table says how it is hosted).")],
    state: StateOption = DEFAULT_STATE,
    host: Annotated[str, typer.Option("--host", help="Address to listen on.")] = "127.0.0.1",
    port: Annotated[int, typer.Option("--port", help="Port to listen on (0: a free one).")] = 8000,
    jobs: Annotated[Optional[int], typer.Option("--jobs", help="Games (and builds) at once, shared by all challenges (default: the cores, half of them when a challenge's game allows pondering: a core per seat).")] = None,
    title: Annotated[str, typer.Option("--title", help="The site's name on its pages.")] = "kothkit",
    header_timeout: Annotated[float, typer.Option("--header-timeout", help="Seconds a client has to send a request's headers (then it is cut off).")] = 10.0,
    body_timeout: Annotated[float, typer.Option("--body-timeout", help="Seconds a client has to send a request's body once its headers came (then it is cut off).")] = 60.0,
    proxy: Annotated[Optional[list[str]], typer.Option("--proxy", help="The reverse proxy's address (or network, such as 10.0.0.0/24; repeat for several): only its X-Forwarded-For and X-Forwarded-Proto are believed. Without it, none are.")] = None,
    access_log: Annotated[bool, typer.Option("--access-log/--no-access-log", help="A line per request on stdout: time, user, method, path, status, ms.")] = True,
    cluster: Annotated[Optional[str], typer.Option("--cluster", help="Play the games and run the builds on a Dask cluster: a scheduler's address over TLS (tls://HOST:8786, with --cluster-certs), or local:N for N local single-threaded workers (TLS with certificates of their own); --jobs is then unused (needs kothkit\\[cluster]; see docs/hosting.md).")] = None,
    cluster_certs: Annotated[Optional[Path], typer.Option("--cluster-certs", envvar="KOTHKIT_CLUSTER_CERTS", help="The folder of the cluster's certificates (ca.pem, host.pem, host-key.pem: made by `kothkit cluster certs DIR`); else Dask's TLS settings.")] = None,
    allow_weak_jail: Annotated[bool, typer.Option("--allow-weak-jail", help="Take submissions even where the jail lacks file confinement, a memory or process cap by cgroup, a network of its own or an unprivileged uid (what is missing is said at the start and on every admin page); without it such a host refuses to start.")] = False,
) -> None:
    """Serve challenges on the web and keep playing their games: a Scoreboard, submissions, logs."""
    try:
        import uvicorn

        from kothkit.serve.app import create_app
    except ImportError as e:
        fail(f"kothkit serve needs the serve extra ({e.name} is missing): pip install 'kothkit[serve]'")
    from kothkit.playing.cluster import ClusterError
    from kothkit.serve.host import Host
    from kothkit.serve.settings import SettingsError

    if jobs is not None and jobs < 1:
        fail(f"--jobs {jobs}: at least 1")
    if not 0 <= port <= 65535:
        fail(f"--port {port}: 0 to 65535")
    if not 0 < header_timeout <= 3600:
        fail(f"--header-timeout {header_timeout}: more than 0, at most 3600 s")
    if not 0 < body_timeout <= 3600:
        fail(f"--body-timeout {body_timeout}: more than 0, at most 3600 s")
    import ipaddress

    for p in proxy or []:
        try:
            ipaddress.ip_network(p, strict=False)
        except ValueError:
            fail(f"--proxy {p}: not an IP address or network")
    for c in challenges:
        if not c.is_dir():
            fail(f"{c}: not a challenge folder")
    from kothkit.serve.accounts import private_folder

    try:
        private_folder(state)
    except OSError as e:
        fail(f"{state}: cannot make the state folder: {e.strerror or e}")
    if cluster_certs is not None:
        from kothkit.playing.cluster import use_certs

        try:
            use_certs(cluster_certs)
        except ClusterError as e:
            fail(f"--cluster-certs {cluster_certs}: {e}")
    try:
        # (no --jobs: the host's default, a core per seat for a game that allows pondering)
        h = Host([c.resolve() for c in challenges], state.resolve(), jobs, cluster=cluster)
    except (SettingsError, ValueError, OSError) as e:
        fail(str(e))
    gaps = _jail_gaps(h, state, cluster, allow_weak_jail)
    accounts = _accounts(state)
    sock = _listen(host, port)
    try:
        try:
            h.start()
        except ClusterError as e:  # a cluster that cannot play the challenges, named
            err.print(f"--cluster {cluster}: {e}", markup=False)
            raise typer.Exit(1) from None
        app_ = create_app(h, accounts, title=title, access_log=access_log, body_timeout=body_timeout)
        app_.site.templates.env.globals["jail_gaps"] = tuple(gaps)  # (said on every admin page)
        shown = f"[{host}]" if ":" in host else host
        address = f"http://{shown}:{sock.getsockname()[1]}/"
        out.print(f"state: {state.resolve()}", markup=False)
        for info in h.challenges():
            phase = h.phase(info.name)
            out.print(f"  {info.name}: {info.title} ({info.game}, {info.kind}, {phase.text}) at {address}c/{info.name}/",
                      markup=False)
        if any(info.kind == "submissions" for info in h.challenges()) and not accounts.users():
            err.print(f"warning: {state.resolve()} has no accounts: nobody can sign in to submit "
                      "(add a roster with `kothkit users add ROSTER.csv --state ...`)", markup=False)
        out.print(f"serving {len(challenges)} challenge{'s' * (len(challenges) != 1)} at {address} "
                  f"(state in {state.resolve()}); Ctrl-C to stop", markup=False)

        class Server(uvicorn.Server):
            def handle_exit(self, sig, frame):
                # The open Scoreboards' event streams end: the server waits for open responses.
                app_.site.live.close_streams()
                super().handle_exit(sig, frame)

        from kothkit.serve.security import header_timeout_protocol, proxy_settings

        server = Server(uvicorn.Config(app_, log_level="warning", access_log=False, timeout_graceful_shutdown=5,
                                       lifespan="on", http=header_timeout_protocol(header_timeout),
                                       **proxy_settings(proxy or [])))
        # uvicorn stops on SIGINT or SIGTERM, then raises the signal again: either ends here, so the
        # host stops its games and builds (redone at the next start) before the command exits.
        signal.signal(signal.SIGTERM, _interrupt)
        try:
            server.run(sockets=[sock])
        except KeyboardInterrupt:
            pass
    finally:
        h.stop()
        accounts.close()
        sock.close()
    out.print("stopped", markup=False)


def _jail_gaps(h, state: Path, cluster: str | None, allow: bool) -> list[str]:
    """What this machine's jail lacks for strangers' code ([] if nothing, or no submissions challenge,
    or the games are played on a cluster, whose workers are checked as they join): the host refuses
    to start, naming it, unless ``allow`` (--allow-weak-jail) says the host accepts it."""
    from kothkit.procs.contain import gaps_line, jail_gaps, summary

    if cluster is not None:
        h.full_jail = not allow and any(info.kind == "submissions" for info in h.challenges())
        return []  # (each worker's jail is checked as it joins)
    out.print(f"containment: {summary((state.resolve(),))}", markup=False)
    if not any(info.kind == "submissions" for info in h.challenges()):
        return []
    gaps = jail_gaps(folders=(state.resolve(),))
    if gaps and not allow:
        fail("kothkit serve takes strangers' code here, and this machine cannot jail it as promised:\n  "
             + "\n  ".join(gaps) + "\n(--allow-weak-jail starts anyway, saying so on every admin page)")
    if gaps:
        err.print(gaps_line(gaps) + " (accepted by --allow-weak-jail)", style="bold red", markup=False)
    return gaps


@users_app.command("add")
def users_add(
    csv_file: Annotated[Path, typer.Argument(help="A CSV with a header: login (or student_id), and optionally password, nickname, admin.")],
    generate: Annotated[bool, typer.Option("--generate-passwords", help="Give each user without a password in the CSV a generated first password, printed once (login,password lines) for the TA to hand out, instead of the login.")] = False,
    state: StateOption = DEFAULT_STATE,
) -> None:
    """Add the users of a roster (a CSV).

    Without a password column the first password is the login (the student number: anyone who knows
    it can claim an account before its owner does), or with --generate-passwords a random one
    printed once; every user must choose a new password and a nickname at first sign-in.  The CSV's
    other columns (a real name...) are kept, for the grades CSV.  A wrong row (a nickname that is a
    login, ...) refuses the whole file, naming its line; logins that exist already are skipped, each
    named."""
    generated: dict[str, str] | None = {} if generate else None
    with _users(state, create=True) as accounts:
        added, skipped = accounts.add_csv(csv_file, generated=generated)
        accounts.log(_who(), "add users", ", ".join(u.login for u in added)[:2000],
                     f"from {csv_file}; {len(skipped)} skipped" + ("; generated passwords" if generate else ""))
    for line in skipped:
        err.print(f"skipped: {line}", markup=False)
    if generated:
        out.print("login,password", markup=False)
        for login, password in generated.items():
            out.print(f"{login},{password}", markup=False)
    out.print(f"added {len(added)} user{'s' * (len(added) != 1)} to {state.resolve()}", markup=False)


LoginArg = Annotated[str, typer.Argument(help="The user's login.")]


def _change_user(state: Path, login: str, action: str, change: Callable[[Any], None], said: str) -> None:
    """One change to one account (``change`` given the accounts), logged as ``action`` and said."""
    with _users(state) as accounts:
        change(accounts)
        accounts.log(_who(), action, login)
    out.print(f"{login}: {said}", markup=False)


@users_app.command("reset")
def users_reset(
    login: LoginArg,
    password: Annotated[Optional[str], typer.Option("--password", help="The new first password (default: the login).")] = None,
    generate: Annotated[bool, typer.Option("--generate-password", help="A generated first password, printed once, instead of the login.")] = False,
    state: StateOption = DEFAULT_STATE,
) -> None:
    """Reset a password (to the login unless --password or --generate-password): the user must choose a
    new one at next sign-in."""
    given: list[str] = []
    _change_user(state, login, "reset",
                 lambda accounts: given.append(accounts.reset_password(login, password, generate=generate)),
                 "password reset; a new one is asked at the next sign-in")
    if generate and not password:
        out.print(f"{login}: first password {given[0]}", markup=False)


@users_app.command("admin")
def users_admin(
    login: LoginArg,
    revoke: Annotated[bool, typer.Option("--revoke", help="Take the admin right away instead.")] = False,
    state: StateOption = DEFAULT_STATE,
) -> None:
    """Make a user an admin (sees every log and build output), or no longer one with --revoke."""
    _change_user(state, login, "unadmin" if revoke else "admin", lambda accounts: accounts.set_admin(login, not revoke),
                 f"{'no longer ' if revoke else ''}an admin")


@users_app.command("disable")
def users_disable(
    login: LoginArg,
    enable: Annotated[bool, typer.Option("--enable", help="Enable the account again instead.")] = False,
    state: StateOption = DEFAULT_STATE,
) -> None:
    """Disable an account (it cannot sign in; its sessions end; its brains stay), or enable it with --enable."""
    _change_user(state, login, "enable" if enable else "disable",
                 lambda accounts: accounts.set_disabled(login, not enable), "enabled" if enable else "disabled")


@users_app.command("list")
def users_list(state: StateOption = DEFAULT_STATE) -> None:
    """The users: login, nickname, admin, disabled, and "unclaimed" while the first password is unchanged."""
    from kothkit.serve.accounts import MAX_NICKNAME

    with _users(state) as accounts:
        for u in accounts.users():
            out.print(f"{u.login:<20} {u.nickname or '-':<{MAX_NICKNAME}} {'admin' if u.admin else '':<5} "
                      f"{'disabled' if u.disabled else '':<8} {'first password (unclaimed)' if u.must_change else ''}".rstrip(),
                      markup=False)
