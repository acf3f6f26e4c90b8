"""Builds under caps of their own: a compile bomb, a build's fork bomb, what a build sees.

The hostile builds of tests/bots/hostile_build_caps/ are built for real (gcc, Python) in the
build's jail, directly (:func:`kothkit.bots.build.build`) and as a submission to ``kothkit serve``
(its builds go through the host's executor, kothkit.playing.executor).
"""

from __future__ import annotations

import shutil
import socket
import time
from pathlib import Path

import pytest

from kothkit.bots.build import BUILD_MEMORY_MB, BUILD_PROCESSES, build, run_jailed
from kothkit.bots.folders import load_folder
from kothkit.procs.contain import capabilities
from kothkit.serve.host import Host
from kothkit.serve.settings import SettingsError
from kothkit.serve.settings import load as load_settings
from kothkit.testing.procs import processes_touching

ROOT = Path(__file__).resolve().parents[2]
HOSTILE = ROOT / "tests" / "bots" / "hostile_build_caps"
CAPS = capabilities()
#: The cap the tests give a compile bomb: small, so that it is reached in a moment.
CAP_MB = 128
needs_gcc = pytest.mark.skipif(shutil.which("gcc") is None, reason="needs gcc")
needs_memory_cgroup = pytest.mark.skipif(CAPS.cgroup_version is None,
                                         reason="no writable memory cgroup: builds are capped by RLIMIT_DATA only")


def copy(tmp_path: Path, name: str) -> Path:
    return Path(shutil.copytree(HOSTILE / name, tmp_path / "bots" / name))


@needs_gcc
@needs_memory_cgroup
def test_a_compile_bomb_fails_with_the_memory_reason_under_its_cap(tmp_path):
    folder = copy(tmp_path, "compile_bomb")
    ran = run_jailed(["gcc", "-c", "-o", "brain.o", "brain.c"], folder, 120, memory_mb=CAP_MB)
    assert ran.oom and ran.code not in (None, 0)
    assert ran.peak is not None and ran.peak <= CAP_MB << 20  # the build's cgroup held it
    built, err = build(load_folder(folder), timeout=120, memory_mb=CAP_MB)
    assert not built and err is not None
    assert f"build failed (memory: it went over its {CAP_MB} MiB, build_memory_mb" in str(err)
    assert processes_touching(folder) == []


@pytest.mark.skipif(CAPS.pids_dir is None, reason="no pids cgroup: a build's process cap needs one")
def test_a_builds_fork_bomb_stops_at_its_process_cap(tmp_path):
    folder = copy(tmp_path, "build_fork_bomb")
    built, err = build(load_folder(folder), timeout=60, processes=16)
    assert not built and err is not None
    # Its python and 15 children make 16 tasks; the 16th child is refused.
    assert "started 15 children, then: Resource temporarily unavailable" in str(err)
    assert processes_touching(folder) == []
    assert (BUILD_MEMORY_MB, BUILD_PROCESSES) == (1024, 256)  # the documented defaults


def test_a_build_sees_only_its_environment_and_no_network(tmp_path, monkeypatch):
    monkeypatch.setenv("KOTHKIT_TEST_SECRET", "judge-secret-77b2")
    folder = copy(tmp_path, "build_snoop")
    with socket.socket() as srv:
        srv.bind(("127.0.0.1", 0))
        srv.listen()
        toml = folder / "bot.toml"
        toml.write_text(toml.read_text().replace('TARGET_PORT = "1"', f'TARGET_PORT = "{srv.getsockname()[1]}"'))
        built, err = build(load_folder(folder), timeout=60)
    assert not built and err is not None
    text = str(err)
    names = {line[4:].split("=", 1)[0] for line in text.splitlines() if line.startswith("env ")}
    assert names == {"PATH", "LANG", "LC_ALL", "HOME", "TMPDIR", "TARGET_PORT"}
    assert "judge-secret-77b2" not in text
    assert ("connect: failed" if CAPS.network else "connect: reached the host") in text


SUBMISSIONS = """game = "connect4_hidden"
rounds = 1
seed = 3

[serve]
kind = "submissions"
min_interval = 0
build_time = 60
build_memory_mb = {cap}

[serve.languages.c11]
label = "C11"
file = "brain.c"
build = ["gcc", "-c", "-o", "brain.o", "brain.c"]
command = ["./brain"]
"""


@needs_gcc
@needs_memory_cgroup
def test_a_compile_bomb_submitted_to_kothkit_serve_fails_with_the_memory_reason(tmp_path):
    ch = tmp_path / "course"
    ch.mkdir()
    (ch / "kothkit.toml").write_text(SUBMISSIONS.format(cap=CAP_MB))
    host = Host([ch], tmp_path / "state", jobs=1)
    try:
        host.start()
        host.submit("course", "s001", "bomb.c", "c11", (HOSTILE / "compile_bomb" / "brain.c").read_bytes())
        end = time.monotonic() + 120
        version = -1
        while host.submissions("course", "s001")[0].status in ("queued", "building"):
            assert time.monotonic() < end, host.submissions("course", "s001")
            version = host.wait("course", version, 2.0)
        [sub] = host.submissions("course", "s001")
        assert sub.status == "build-failed"
        assert f"memory: it went over its {CAP_MB} MiB" in sub.build_output
        assert str(tmp_path) not in sub.build_output
    finally:
        host.stop()
    assert processes_touching(tmp_path) == []


def test_build_limits_in_the_serve_table_are_checked(tmp_path):
    ch = tmp_path / "kothkit.toml"
    ch.write_text('game = "connect4_hidden"\n\n[serve]\nkind = "submissions"\nbuild_memory_mb = 4\n')
    with pytest.raises(SettingsError, match=r"kothkit.toml:5: \[serve\] build_memory_mb must be an integer from 16"):
        load_settings(ch)
    ch.write_text('game = "connect4_hidden"\n\n[serve]\nkind = "submissions"\nbuild_processes = 64\n')
    settings = load_settings(ch)
    assert (settings.build_memory_mb, settings.build_processes) == (1024, 64)
