"""A throw-away virtual environment to prove a plugin distribution installs and registers.

``Sandbox.create(folder)`` makes a venv that sees the packages of the
interpreter running it (kothkit's dependencies, pytest, hypothesis), whatever
that interpreter is: the system Python, a venv, a venv made from a venv.
``venv --system-site-packages`` is not enough for that: it shows the *base*
interpreter's packages, not those of the venv the tests run in.  So the new
venv gets a ``.pth`` file that adds this interpreter's site folders (and
runs their own ``.pth`` files, for editable installs) after its own
site-packages, where a package installed in the sandbox shadows the outer one.
``inherit=False`` makes a venv of its own instead, with only pip in it: what a
user starts from.  ``install`` and ``pip`` run pip in it (the outer pip unless
the venv has its own, so creating it needs no download); ``kothkit`` and
``py`` run commands in it.  Every command has a timeout.  Used by kothkit's
own tests for ``kothkit new-game`` and the third-party plugin; a plugin author
can use it the same way.
"""

from __future__ import annotations

import os
import shutil
import site
import subprocess
import sys
import tempfile
from pathlib import Path

#: Folders and files never copied from a source tree before building it.
COPY_IGNORE = shutil.ignore_patterns("__pycache__", "*.pyc", ".git", ".hypothesis", ".pytest_cache", "build", "dist",
                                     "*.egg-info", ".kothkit", ".kothkit-build", "*.sqlite*", ".venv", "node_modules")


class SandboxError(AssertionError):
    """A command in the sandbox failed; the message holds its output."""


#: The file in a sandbox's site-packages that shows it the packages of the interpreter that made it.
OUTER_PTH = "_kothkit_sandbox_outer.pth"


def outer_site_dirs() -> list[str]:
    """The site folders of the running interpreter, in its own order of precedence.

    In a venv, ``site.getsitepackages()`` is the venv's site-packages (and the
    base's, if the venv includes system site packages); for a system Python,
    its site- or dist-packages folders.  The user site comes first when
    this interpreter uses it, as ``site`` puts it first.
    """
    dirs = []
    if site.ENABLE_USER_SITE:
        dirs.append(site.getusersitepackages())
    dirs += site.getsitepackages()
    seen: set[str] = set()
    found = []
    for d in dirs:
        real = os.path.realpath(d)
        if real not in seen and os.path.isdir(real):
            seen.add(real)
            found.append(d)
    return found


class Sandbox:
    def __init__(self, root: Path) -> None:
        self.root = root
        self.python = root / "bin" / "python"
        #: setuptools and wheel are installed here: builds need no isolated environment.
        self.tools = False

    @classmethod
    def create(cls, root: Path, build_tools: bool = True, inherit: bool = True, timeout: float = 300) -> Sandbox:
        """A new venv at ``root``.

        ``inherit`` (the default) shows it this interpreter's packages, pip
        among them; without it, the venv has its own pip and nothing else.
        ``build_tools`` installs setuptools and wheel into it once (from the
        configured package index), so that every later ``install`` builds
        without a fresh isolated build environment each time.
        """
        subprocess.run([sys.executable, "-m", "venv", *(["--without-pip"] if inherit else []), str(root)],
                       check=True, capture_output=True, timeout=timeout, stdin=subprocess.DEVNULL)
        box = cls(root)
        if inherit:
            # The .pth goes where the venv's own python looks, whatever its layout (asked, not guessed).
            purelib = Path(box.run(box.python, "-c", "import sysconfig; print(sysconfig.get_path('purelib'))",
                                   timeout=timeout).stdout.strip())
            # addsitedir, not a bare path: the outer folders' .pth files (editable installs) must run too.
            lines = [f"import site; site.addsitedir({d!r})" for d in outer_site_dirs()]
            (purelib / OUTER_PTH).write_text("\n".join(lines) + "\n", encoding="utf-8")
        box.tools = build_tools
        if build_tools:
            box.run(box.python, "-m", "pip", "install", "--quiet", "--no-input", "setuptools>=68", "wheel",
                    timeout=timeout)
        return box

    @staticmethod
    def base_dir() -> Path:
        """Where to put sandboxes: a temporary folder outside /tmp where possible.

        kothkit confines program bots with a private /tmp, so an interpreter
        living in /tmp (a venv made there) is invisible to the bots it starts.
        """
        for candidate in (os.environ.get("KOTHKIT_SANDBOX_DIR"), "/var/tmp", tempfile.gettempdir()):
            if candidate and os.path.isdir(candidate) and os.access(candidate, os.W_OK):
                return Path(candidate)
        return Path(tempfile.gettempdir())

    def env(self) -> dict[str, str]:
        # The outer run's settings stay outside: PYTEST_ADDOPTS may name the outer run's test files.
        env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME", "VIRTUAL_ENV",
                                                                       "PYTEST_ADDOPTS")}
        env["VIRTUAL_ENV"] = str(self.root)
        env["PATH"] = f"{self.root / 'bin'}{os.pathsep}{env.get('PATH', '')}"
        env["PIP_DISABLE_PIP_VERSION_CHECK"] = "1"
        env["COLUMNS"] = "200"
        return env

    def run(self, *argv: str | Path, cwd: Path | None = None, timeout: float = 300,
            check: bool = True) -> subprocess.CompletedProcess:
        done = subprocess.run([str(a) for a in argv], cwd=cwd or self.root, env=self.env(), capture_output=True,
                              text=True, timeout=timeout, stdin=subprocess.DEVNULL)
        if check and done.returncode != 0:
            raise SandboxError(f"{' '.join(map(str, argv))} exited with {done.returncode}\n"
                               f"--- stdout\n{done.stdout[-4000:]}\n--- stderr\n{done.stderr[-4000:]}")
        return done

    def install(self, *sources: Path, editable: bool = False, copy: bool = True, timeout: float = 600) -> None:
        """pip install ``sources`` (folders with a pyproject.toml) without their dependencies.

        With ``copy`` (the default) each source is built from a clean copy, so a
        build never writes build/ or *.egg-info into the source tree.
        """
        args: list[str | Path] = []
        for src in sources:
            if copy and not editable:
                dest = Path(tempfile.mkdtemp(prefix="src-", dir=self.root)) / src.name
                shutil.copytree(src, dest, ignore=COPY_IGNORE, symlinks=True)
                src = dest
            args += ["-e", src] if editable else [src]
        isolation = ["--no-build-isolation"] if self.tools else []
        self.run(self.python, "-m", "pip", "install", "--quiet", "--no-deps", "--no-input", *isolation, *args,
                 timeout=timeout)

    def pip(self, *args: str | Path, cwd: Path | None = None, timeout: float = 600,
            check: bool = True) -> subprocess.CompletedProcess:
        """``pip ARGS`` in the sandbox, as a user types it (dependencies and all, from the package index)."""
        return self.run(self.python, "-m", "pip", *args, cwd=cwd, timeout=timeout, check=check)

    def kothkit(self, *args: str | Path, cwd: Path | None = None, timeout: float = 300,
                check: bool = True) -> subprocess.CompletedProcess:
        script = self.root / "bin" / "kothkit"
        argv = [script] if script.exists() else [self.python, "-m", "kothkit"]
        return self.run(*argv, *args, cwd=cwd, timeout=timeout, check=check)

    def py(self, *args: str | Path, cwd: Path | None = None, timeout: float = 300,
           check: bool = True) -> subprocess.CompletedProcess:
        return self.run(self.python, *args, cwd=cwd, timeout=timeout, check=check)


#: What a kothkit source tree needs to build (pyproject.toml names README.md; plugins/ holds the bundled games).
KOTHKIT_TREE = ("pyproject.toml", "README.md", "kothkit", "plugins")
_SHARED: dict[Path, Sandbox] = {}


def install_kothkit(box: Sandbox, source: Path, deps: bool = False) -> None:
    """Install kothkit itself, non-editable, from the source tree at ``source`` (copied first).

    ``deps`` installs its dependencies too, from the package index, as a user's
    ``pip install`` does (for a sandbox that does not inherit them).
    """
    dest = Path(tempfile.mkdtemp(prefix="kothkit-src-", dir=box.root)) / "kothkit"
    dest.mkdir()
    for name in KOTHKIT_TREE:
        src = source / name
        if src.is_dir():
            shutil.copytree(src, dest / name, ignore=COPY_IGNORE, symlinks=True)
        elif src.exists():
            shutil.copy2(src, dest / name)
    if deps:
        box.pip("install", "--quiet", "--no-input", dest)
    else:
        box.install(dest, copy=False)


def shared(kothkit_source: Path) -> Sandbox:
    """One sandbox per process with kothkit installed from ``kothkit_source``; removed when the process exits.

    Tests that each need "a fresh environment with kothkit" share it, and each
    installs its own plugin distribution into it (they must not clash).
    """
    key = kothkit_source.resolve()
    if key not in _SHARED:
        import atexit

        root = Path(tempfile.mkdtemp(prefix="kothkit-sandbox-", dir=Sandbox.base_dir()))
        atexit.register(shutil.rmtree, root, True)
        box = Sandbox.create(root / "venv")
        install_kothkit(box, key)
        _SHARED[key] = box
    return _SHARED[key]
