"""The bot launcher run by :class:`kothkit.contain.Jail`: a PID namespace, a confined filesystem, an init.

Run as ``python -I -S jailinit.py CONFIG... -- COMMAND...`` (standard library only:
it starts before every bot, so it must start fast).  Three processes:

* the *leader* (the judge's child) dies with the judge (PR_SET_PDEATHSIG),
  unshares a PID and a mount namespace, turns the machine's filesystem
  read-only except the bot's own folder and a private /tmp and /dev/shm, and
  hides the other bots' folders;
* the *init* (PID 1 of the namespace) dies with the leader, reaps every
  orphan, and when the bot exits hands its exact wait status to the leader
  and exits, which makes the kernel kill everything left in the namespace;
* the *bot* (PID 2) joins its cgroups, drops the capabilities that could undo
  the confinement, takes its resource limits and execs the command.

The leader then ends the way the bot did (same exit code, or killed by the
same signal), so the judge sees the bot's own fate.  Neither the leader nor
the init keeps the bot's pipes open: a bot that closes its stdout is seen to
do so at once.

CONFIG is ``key=value`` arguments before the ``--`` (no json: importing it
would double the start-up time): parent (judge pid), cpu, cgroup (a
cgroup.procs file the bot joins; repeatable), rlimit (NAME:soft:hard;
repeatable), folder, fs=1 (confine files), hide (a folder to hide, the bot's
own folder shown again inside it), userns=1 (map the caller to root in a user
namespace; for callers that are not root), tmp_mb, probe=1 (report what a
bot sees instead of running a command), outside, sibling (paths the probe
tries).
"""

import ctypes
import os
import signal
import sys

CLONE_NEWNS = 0x00020000
CLONE_NEWUSER = 0x10000000
CLONE_NEWPID = 0x20000000
MS_RDONLY, MS_NOSUID, MS_NODEV, MS_NOEXEC = 1, 2, 4, 8
MS_REMOUNT, MS_BIND, MS_REC, MS_PRIVATE = 32, 4096, 16384, 1 << 18
MOUNT_ATTR_RDONLY = 1
AT_FDCWD, AT_RECURSIVE = -100, 0x8000
SYS_MOUNT_SETATTR = 442  # the same number on every architecture (post-4.20 syscalls are unified)
PR_SET_PDEATHSIG, PR_CAPBSET_DROP, PR_SET_NO_NEW_PRIVS, PR_CAP_AMBIENT = 1, 24, 38, 47
PR_CAP_AMBIENT_CLEAR_ALL = 4
#: Capabilities a bot keeps: enough to use its own folder whoever owns it, nothing that could
#: remount, signal or trace outside its namespace; not DAC_READ_SEARCH, which lets
#: open_by_handle_at open any file of a disk whatever the mounts show.
KEEP_CAPS = {0, 1, 3}  # CHOWN, DAC_OVERRIDE, FOWNER

libc = ctypes.CDLL(None, use_errno=True)


class MountAttr(ctypes.Structure):
    _fields_ = [("attr_set", ctypes.c_uint64), ("attr_clr", ctypes.c_uint64),
                ("propagation", ctypes.c_uint64), ("userns_fd", ctypes.c_uint64)]


def describe(e):
    what = e.strerror or str(e)
    return f"{e.filename}: {what}" if e.filename else what


def check(result, what):
    if result < 0:
        e = ctypes.get_errno()
        raise OSError(e, f"{what}: {os.strerror(e)}")
    return result


def mount(source, target, fstype, flags, data=None):
    enc = lambda s: None if s is None else s.encode()
    check(libc.mount(enc(source), enc(target), enc(fstype), ctypes.c_ulong(flags), enc(data)), f"mount {target}")


def set_readonly(path, readonly, recursive):
    """mount_setattr(2) where the kernel has it (5.12+), else a bind remount of each mount."""
    attr = MountAttr(MOUNT_ATTR_RDONLY if readonly else 0, 0 if readonly else MOUNT_ATTR_RDONLY, 0, 0)
    r = libc.syscall(SYS_MOUNT_SETATTR, AT_FDCWD, path.encode(), AT_RECURSIVE if recursive else 0,
                     ctypes.byref(attr), ctypes.sizeof(attr))
    if r == 0:
        return
    if ctypes.get_errno() != 38:  # ENOSYS
        check(r, f"mount_setattr {path}")
    targets = [path]
    if recursive:
        with open("/proc/self/mountinfo") as f:
            points = [line.split()[4].encode().decode("unicode_escape") for line in f]
        targets = [p for p in points if p == path or p.startswith(path.rstrip("/") + "/")]
    for t in targets:
        flags = MS_REMOUNT | MS_BIND | (MS_RDONLY if readonly else 0)
        try:
            mount(None, t, None, flags | _locked_flags(t))
        except OSError:
            if t == path:
                raise


def _locked_flags(path):
    st = os.statvfs(path)
    return (MS_NOSUID if st.f_flag & os.ST_NOSUID else 0) | (MS_NODEV if st.f_flag & os.ST_NODEV else 0) | \
           (MS_NOEXEC if st.f_flag & os.ST_NOEXEC else 0)


def prctl(option, arg):
    return libc.prctl(option, ctypes.c_ulong(arg), ctypes.c_ulong(0), ctypes.c_ulong(0), ctypes.c_ulong(0))


def enter_namespaces(cfg):
    flags = CLONE_NEWPID | CLONE_NEWNS
    if cfg.get("userns"):
        uid, gid = os.getuid(), os.getgid()
        check(libc.unshare(flags | CLONE_NEWUSER), "unshare")
        with open("/proc/self/setgroups", "w") as f:
            f.write("deny")
        with open("/proc/self/uid_map", "w") as f:
            f.write(f"0 {uid} 1")
        with open("/proc/self/gid_map", "w") as f:
            f.write(f"0 {gid} 1")
    else:
        check(libc.unshare(flags), "unshare")
    mount(None, "/", None, MS_REC | MS_PRIVATE)  # nothing we mount leaks back to the machine


def confine_files(cfg, folder_fd):
    """Everything read-only but the bot's folder and private scratch space; other bots hidden."""
    folder, hide = cfg["folder"], cfg.get("hide")
    keep_fds = [(k, os.open(k, os.O_PATH | os.O_DIRECTORY)) for k in cfg.get("keeps", ())]
    set_readonly("/", True, recursive=True)
    tmp_mb = int(cfg.get("tmp_mb", 256))
    scratch = f"mode=1777,size={tmp_mb}m"
    for d in ("/tmp", "/dev/shm") if tmp_mb > 0 else ():  # tmp_mb=0: the machine's, read-only
        if os.path.isdir(d):
            mount("tmpfs", d, "tmpfs", MS_NOSUID | MS_NODEV, scratch)
    for path, fd in keep_fds:  # what the judge needs from under /tmp, bound back read-only
        os.makedirs(path, exist_ok=True)
        mount(f"/proc/self/fd/{fd}", path, None, MS_BIND | MS_REC)
        set_readonly(path, True, recursive=True)
        os.close(fd)
    if hide:
        os.makedirs(hide, exist_ok=True)
        mount("tmpfs", hide, "tmpfs", MS_NOSUID | MS_NODEV, "mode=755,size=64k")
    os.makedirs(folder, exist_ok=True)  # inside a tmpfs just mounted over it, or already there
    mount(f"/proc/self/fd/{folder_fd}", folder, None, MS_BIND)
    set_readonly(folder, False, recursive=False)
    if hide:
        set_readonly(hide, True, recursive=False)


def mount_proc():
    """A /proc showing only the namespace's processes, its /proc/sys read-only."""
    try:
        mount("proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC)
        mount("/proc/sys", "/proc/sys", None, MS_BIND | MS_REC)
        set_readonly("/proc/sys", True, recursive=True)
    except OSError:
        pass  # e.g. a user namespace where /proc is partly masked: the old /proc stays (read-only)


def drop_privileges():
    prctl(PR_SET_NO_NEW_PRIVS, 1)
    libc.prctl(PR_CAP_AMBIENT, ctypes.c_ulong(PR_CAP_AMBIENT_CLEAR_ALL), ctypes.c_ulong(0), ctypes.c_ulong(0),
               ctypes.c_ulong(0))
    try:
        with open("/proc/sys/kernel/cap_last_cap") as f:
            last = int(f.read())
    except (OSError, ValueError):
        last = 40
    for cap in range(last + 1):
        if cap not in KEEP_CAPS:
            prctl(PR_CAPBSET_DROP, cap)  # fails harmlessly for caps already gone


def devnull_std():
    fd = os.open(os.devnull, os.O_RDWR)
    for i in (0, 1, 2):
        os.dup2(fd, i)
    if fd > 2:
        os.close(fd)


def start_bot(cfg, argv, cgroup_fds):
    """In the bot's process (PID 2): join cgroups, limits, no privileges, exec."""
    try:
        os.setsid()  # a bot signalling its process group reaches only its own processes
        for fd in cgroup_fds:
            os.write(fd, b"0")
        os.chdir(cfg["folder"])
        for sig in (signal.SIGPIPE, signal.SIGXFSZ):  # Python ignores these; the bot gets the defaults
            signal.signal(sig, signal.SIG_DFL)
        import resource

        for name, soft, hard in cfg.get("rlimits", ()):
            resource.setrlimit(getattr(resource, name), (soft, hard))
        drop_privileges()
    except OSError as e:
        os.write(2, f"kothkit: cannot set up the bot's jail: {describe(e)}\n".encode())
        os._exit(127)
    if cfg.get("probe"):
        probe_report(cfg)
    try:
        os.execvp(argv[0], argv)
    except OSError as e:
        os.write(2, f"kothkit: cannot start {argv[0]!r}: {e.strerror}\n".encode())
    os._exit(127)


def probe_report(cfg):
    """In probe mode the bot is this check; the judge looks from outside where the writes landed."""
    report = {"pid": os.getpid()}
    for key in ("folder", "outside"):
        if cfg.get(key):
            try:
                with open(os.path.join(cfg[key], ".kothkit-probe"), "w") as f:
                    f.write("x")
                report[key] = True
            except OSError:
                report[key] = False
    report["sibling_hidden"] = not os.path.exists(cfg["sibling"]) if cfg.get("sibling") else None
    os.write(1, (" ".join(f"{k}={v}" for k, v in report.items()) + "\n").encode())
    os._exit(0)


def run_init(cfg, argv, status_w, life_r, cgroup_fds):
    """PID 1 of the namespace: start the bot, reap everything, report the bot's status."""
    prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
    os.set_blocking(life_r, False)
    try:
        if os.read(life_r, 1) == b"":  # the leader died before PR_SET_PDEATHSIG took
            os._exit(1)
    except BlockingIOError:
        pass
    mount_proc()
    bot = os.fork()
    if bot == 0:
        os.close(status_w)
        start_bot(cfg, argv, cgroup_fds)
    for fd in cgroup_fds:
        os.close(fd)
    devnull_std()
    while True:
        try:
            pid, status = os.wait()
        except ChildProcessError:
            os._exit(1)
        if pid == bot:
            os.write(status_w, str(status).encode())
            os._exit(0)  # the kernel now kills whatever the bot left in the namespace


def parse(args):
    cfg = {"cgroups": [], "rlimits": [], "keeps": []}
    for i, a in enumerate(args):
        if a == "--":
            return cfg, args[i + 1:]
        key, _, value = a.partition("=")
        if key == "cgroup":
            cfg["cgroups"].append(value)
        elif key == "keep":
            cfg["keeps"].append(value)
        elif key == "rlimit":
            name, soft, hard = value.split(":")
            cfg["rlimits"].append((name, int(soft), int(hard)))
        elif key in ("parent", "cpu", "tmp_mb"):
            cfg[key] = int(value)
        elif key in ("fs", "userns", "probe"):
            cfg[key] = value == "1"
        else:
            cfg[key] = value
    return cfg, []


def main():
    cfg, argv = parse(sys.argv[1:])
    prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
    if cfg.get("parent") and os.getppid() != cfg["parent"]:
        os._exit(137)  # the judge is already gone
    if cfg.get("cpu") is not None:
        os.sched_setaffinity(0, {cfg["cpu"]})
    # Opened before the mounts turn /sys read-only; the bot writes itself in.
    cgroup_fds = [os.open(p, os.O_WRONLY) for p in cfg.get("cgroups", ())]
    try:
        enter_namespaces(cfg)
        if cfg.get("fs"):
            # Opened in the new namespace (a bind source must be one of its mounts), before
            # anything is mounted over the folder's path.
            confine_files(cfg, os.open(cfg["folder"], os.O_PATH | os.O_DIRECTORY))
    except OSError as e:
        os.write(2, f"kothkit: cannot set up the bot's jail: {describe(e)}\n".encode())
        os._exit(126)
    status_r, status_w = os.pipe()
    life_r, life_w = os.pipe()
    init = os.fork()
    if init == 0:
        os.close(status_r)
        os.close(life_w)
        run_init(cfg, argv, status_w, life_r, cgroup_fds)
    os.close(status_w)
    os.close(life_r)
    for fd in cgroup_fds:
        os.close(fd)
    devnull_std()
    while True:
        try:
            os.waitpid(init, 0)
            break
        except ChildProcessError:
            break
    data = os.read(status_r, 32)
    if not data:  # the init was killed: the bot with it
        os.kill(os.getpid(), signal.SIGKILL)
    status = int(data)
    if os.WIFSIGNALED(status):
        sig = os.WTERMSIG(status)
        import resource

        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))  # the bot's signal, not a core of ours
        signal.signal(sig, signal.SIG_DFL)
        signal.pthread_sigmask(signal.SIG_UNBLOCK, [sig])
        os.kill(os.getpid(), sig)
        os._exit(128 + sig)
    os._exit(os.waitstatus_to_exitcode(status))


if __name__ == "__main__":
    main()
