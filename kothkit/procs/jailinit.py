"""The bot launcher run by :class:`kothkit.procs.contain.Jail`: a PID namespace, a confined filesystem, an init.

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
  the confinement, takes its resource limits, installs the seccomp filter of
  jailinit.c (x86_64 and aarch64) and execs the command.

Unlike the C init, it does not build a minimal root nor change the bot's user:
the machine stays visible, read-only (``kothkit run`` says so).

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
tries), seccomp=1, folder_rw=0 (the folder read-only), env (NAME=value;
repeatable: the bot's whole environment), net=1 (a network namespace of the bot's own, its
loopback up), pinned=1 (the seccomp filter refuses sched_setaffinity too).  user= and source= (a copy of the
folder mounted in its place, kothkit.procs.copies) are the C init's only.
"""

import ctypes
import os
import signal
import sys

# typing's flag without importing typing, which a -S start has not loaded (a cost at every bot's
# start); annotations in functions are never evaluated.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

CLONE_NEWNS = 0x00020000
CLONE_NEWUSER = 0x10000000
CLONE_NEWPID = 0x20000000
CLONE_NEWNET = 0x40000000
CLONE_NEWCGROUP = 0x02000000
MS_RDONLY, MS_NOSUID, MS_NODEV, MS_NOEXEC = 1, 2, 4, 8
MS_REMOUNT, MS_BIND, MS_REC, MS_PRIVATE = 32, 4096, 16384, 1 << 18
MOUNT_ATTR_RDONLY, MOUNT_ATTR_NOSUID, MOUNT_ATTR_NODEV = 1, 2, 4
AT_FDCWD, AT_RECURSIVE = -100, 0x8000
SYS_MOUNT_SETATTR = 442  # the same number on every architecture (post-4.20 syscalls are unified)
PR_SET_PDEATHSIG, PR_CAPBSET_DROP, PR_SET_NO_NEW_PRIVS, PR_CAP_AMBIENT = 1, 24, 38, 47
PR_CAP_AMBIENT_CLEAR_ALL = 4
#: Capabilities a bot keeps: enough to use its own folder whoever owns it, nothing that could
#: remount, signal or trace outside its namespace; not DAC_READ_SEARCH, which lets
#: open_by_handle_at open any file of a disk whatever the mounts show.
KEEP_CAPS = {0, 1, 3}  # CHOWN, DAC_OVERRIDE, FOWNER

PR_SET_SECCOMP, SECCOMP_MODE_FILTER = 22, 2

libc = ctypes.CDLL(None, use_errno=True)

#: Calls a bot never needs, refused with EPERM by the seccomp filter (as in jailinit.c), by number
#: on the machines whose tables are here; elsewhere the Python init installs no filter.
REFUSED = ("open_by_handle_at name_to_handle_at ptrace process_vm_readv process_vm_writev mount umount2 unshare "
           "setns pivot_root chroot keyctl add_key request_key bpf perf_event_open kexec_load kexec_file_load "
           "init_module finit_module delete_module swapon swapoff reboot acct syslog quotactl userfaultfd").split()
_X86_64 = (304, 303, 101, 310, 311, 165, 166, 272, 308, 155, 161, 250, 248, 249, 321, 298, 246, 320, 175, 313, 176,
           167, 168, 169, 163, 103, 179, 323)
_AARCH64 = (265, 264, 117, 270, 271, 40, 39, 97, 268, 41, 51, 219, 217, 218, 280, 241, 104, 294, 105, 273, 106, 224,
            225, 142, 89, 116, 60, 282)
#: machine -> sched_setaffinity's number: refused too when no cpuset holds a pinned bot to its core (pinned=1)
SCHED_SETAFFINITY = {"x86_64": 203, "aarch64": 122}
#: machine -> (AUDIT_ARCH, clone's number, the refused calls' numbers)
SYSCALLS = {
    "x86_64": (0xC000003E, 56, _X86_64 + (172, 173)),  # + iopl, ioperm
    "aarch64": (0xC00000B7, 220, _AARCH64),
}
NEW_MOUNT_API = (428, 429, 430, 431, 432, 433, 442)  # open_tree ... fspick, mount_setattr: the same everywhere
IO_URING = (425, 426, 427)  # io_uring_setup, io_uring_enter, io_uring_register: the same everywhere
CLONE3 = 435
#: Calls refused for some arguments (as in jailinit.c): no set-id bit on what the jail makes, no AF_VSOCK
#: socket.  machine -> ((number, check)...); a check names what to look at: "mode1".."mode3" (the mode in
#: args[1..3]), "open1"/"open2" (the flags in args[1]/args[2], the mode in the next argument, when creating),
#: "socket" (the family), "enosys" (openat2, whose mode is behind a pointer).
CHECKED = {
    "x86_64": ((2, "open1"), (85, "mode1"), (83, "mode1"), (90, "mode1"), (133, "mode1"), (91, "mode1"),
               (268, "mode2"), (452, "mode2"), (258, "mode2"), (259, "mode2"), (257, "open2"), (437, "enosys"),
               (41, "socket")),
    "aarch64": ((52, "mode1"), (53, "mode2"), (452, "mode2"), (34, "mode2"), (33, "mode2"), (56, "open2"),
                (437, "enosys"), (198, "socket")),
}
SETID_BITS = 0o6000
CREATING = 0o100 | 0o20000000  # O_CREAT, __O_TMPFILE
AF_VSOCK = 40
NAMESPACE_FLAGS = 0x00020000 | 0x02000000 | 0x04000000 | 0x08000000 | 0x10000000 | 0x20000000 | 0x40000000


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
    def enc(s):
        return None if s is None else s.encode()

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


def set_nosuid(path):
    """Set-id bits and devices mean nothing on ``path``'s mount (the bot's folder, as in jailinit.c)."""
    attr = MountAttr(MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV, 0, 0, 0)
    r = libc.syscall(SYS_MOUNT_SETATTR, AT_FDCWD, path.encode(), 0, ctypes.byref(attr), ctypes.sizeof(attr))
    if r == 0:
        return
    if ctypes.get_errno() != 38:  # ENOSYS
        check(r, f"mount_setattr {path}")
    st = os.statvfs(path)
    mount(None, path, None, MS_REMOUNT | MS_BIND | MS_NOSUID | MS_NODEV |
          (MS_RDONLY if st.f_flag & os.ST_RDONLY else 0) | (MS_NOEXEC if st.f_flag & os.ST_NOEXEC else 0))


def _locked_flags(path):
    st = os.statvfs(path)
    return (MS_NOSUID if st.f_flag & os.ST_NOSUID else 0) | (MS_NODEV if st.f_flag & os.ST_NODEV else 0) | \
           (MS_NOEXEC if st.f_flag & os.ST_NOEXEC else 0)


def prctl(option, arg):
    return libc.prctl(option, ctypes.c_ulong(arg), ctypes.c_ulong(0), ctypes.c_ulong(0), ctypes.c_ulong(0))


#: Users and groups in the jail: root and nobody, not the machine's (as jailinit.c's).
PASSWD = ("root:x:0:0:root:/root:/usr/sbin/nologin\n"
          "nobody:x:65534:65534:nobody:/nonexistent:/usr/sbin/nologin\n")
GROUP = "root:x:0:\nnobody:x:65534:\n"


def loopback_up():
    """The network namespace's loopback, down until brought up (SIOCGIFFLAGS, SIOCSIFFLAGS)."""
    import fcntl
    import socket
    import struct

    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        req = struct.pack("16sh22x", b"lo", 0)
        flags = struct.unpack("16sh22x", fcntl.ioctl(s.fileno(), 0x8913, req))[1]
        fcntl.ioctl(s.fileno(), 0x8914, struct.pack("16sh22x", b"lo", flags | 1))  # IFF_UP


def enter_namespaces(cfg):
    flags = CLONE_NEWPID | CLONE_NEWNS | (CLONE_NEWNET if cfg.get("net") else 0)
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
    if cfg.get("net"):
        loopback_up()


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
    if tmp_mb > 0:  # the machine's users and groups covered by root and nobody's
        for name, text in (("passwd", PASSWD), ("group", GROUP)):
            if not os.path.isfile(f"/etc/{name}"):
                continue  # nothing of the machine's to cover
            made = f"/tmp/.kothkit-{name}"
            with open(made, "w") as f:
                f.write(text)
            mount(made, f"/etc/{name}", None, MS_BIND)
            set_readonly(f"/etc/{name}", True, recursive=False)
            os.unlink(made)
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
    if cfg.get("folder_rw", True):  # else it stays read-only: only a stateful bot writes its folder
        set_readonly(folder, False, recursive=False)
    set_nosuid(folder)  # nothing it writes there runs with another user's rights
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


def seccomp_program(machine, pinned=False):
    """The filter of jailinit.c as BPF instructions (code, jt, jf, k), or None for an unknown machine;
    ``pinned``: sched_setaffinity refused too.

    The same answer to every call; jailinit.c looks the call's number up in a tree, cheaper for the
    kernel to install, this a chain of comparisons (tests/core/test_containment.py compares them).
    Jumps are by label; BPF's are forward only, each under 256 instructions."""
    if machine not in SYSCALLS:
        return None
    arch, clone, calls = SYSCALLS[machine]
    calls = calls + NEW_MOUNT_API + IO_URING + ((SCHED_SETAFFINITY[machine],) if pinned else ())
    ld, jeq, jge, jset, ret = 0x20, 0x15, 0x35, 0x45, 0x06
    allow, eperm, enosys = 0x7FFF0000, 0x00050000 | 1, 0x00050000 | 38

    def arg(i):
        return 16 + 8 * i  # its low 32 bits (both machines are little-endian)

    # (code, jt, jf, k) with jt/jf a label's name (or a count), and ("label", name): resolved below.
    code: list = [(ld, 0, 0, 4), (jeq, 1, 0, arch), (ret, 0, 0, eperm), (ld, 0, 0, 0),
                  (jge, "eperm", 0, 0x40000000) if machine == "x86_64" else (0x05, 0, 0, 0)]  # x32 / ja +0
    code += [(jeq, "eperm", 0, nr) for nr in calls]
    code += [(jeq, "enosys" if check == "enosys" else check, 0, nr) for nr, check in CHECKED[machine]]
    code += [(jeq, "enosys", 0, CLONE3), (jeq, "clone", 0, clone), (ret, 0, 0, allow)]
    code += [("label", "clone"), (ld, 0, 0, arg(0)), (jset, "eperm", "allow", NAMESPACE_FLAGS),
             ("label", "socket"), (ld, 0, 0, arg(0)), (jeq, "eperm", "allow", AF_VSOCK),
             ("label", "open1"), (ld, 0, 0, arg(1)), (jset, "mode2", "allow", CREATING),
             ("label", "open2"), (ld, 0, 0, arg(2)), (jset, "mode3", "allow", CREATING)]
    for i in (1, 2, 3):
        code += [("label", f"mode{i}"), (ld, 0, 0, arg(i)), (jset, "eperm", "allow", SETID_BITS)]
    code += [("label", "allow"), (ret, 0, 0, allow), ("label", "eperm"), (ret, 0, 0, eperm),
             ("label", "enosys"), (ret, 0, 0, enosys)]
    where: dict = {}
    n = 0
    for item in code:
        if item[0] == "label":
            where[item[1]] = n
        else:
            n += 1
    prog: list[tuple[int, int, int, int]] = []
    for item in code:
        if item[0] == "label":
            continue
        c, jt, jf, k = item
        at = len(prog)
        prog.append((c, where[jt] - at - 1 if isinstance(jt, str) else jt,
                     where[jf] - at - 1 if isinstance(jf, str) else jf, k))
    return prog


def install_seccomp(pinned=False):
    import platform
    import struct

    prog = seccomp_program(platform.machine(), pinned)
    if prog is None:
        return False
    raw = b"".join(struct.pack("HBBI", *ins) for ins in prog)
    buf = ctypes.create_string_buffer(raw, len(raw))

    class Fprog(ctypes.Structure):
        _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_void_p)]

    fprog = Fprog(len(prog), ctypes.cast(buf, ctypes.c_void_p))
    return libc.prctl(PR_SET_SECCOMP, ctypes.c_ulong(SECCOMP_MODE_FILTER), ctypes.byref(fprog), ctypes.c_ulong(0),
                      ctypes.c_ulong(0)) == 0


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
        if cgroup_fds:  # its cgroups become its "/": their names are not shown (as in jailinit.c)
            libc.unshare(CLONE_NEWCGROUP)
        os.chdir(cfg["folder"])
        for sig in (signal.SIGPIPE, signal.SIGXFSZ):  # Python ignores these; the bot gets the defaults
            signal.signal(sig, signal.SIG_DFL)
        import resource

        for name, soft, hard in cfg.get("rlimits", ()):
            resource.setrlimit(getattr(resource, name), (soft, hard))
        libc.clearenv()  # nothing of the judge's environment: only what the judge names
        os.environ.clear()
        for kv in cfg.get("envs", ()):
            key, _, value = kv.partition("=")
            os.environ[key] = value
        drop_privileges()
        if cfg.get("seccomp") and not install_seccomp(bool(cfg.get("pinned"))):
            raise OSError(ctypes.get_errno(), "seccomp filter")
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
    report: dict[str, object] = {"pid": os.getpid()}
    for key in ("folder", "outside"):
        if cfg.get(key):
            try:
                with open(os.path.join(cfg[key], ".kothkit-probe"), "w") as f:
                    f.write("x")
                report[key] = True
            except OSError:
                report[key] = False
    report["sibling_hidden"] = not os.path.exists(cfg["sibling"]) if cfg.get("sibling") else None
    report["uid"] = os.getuid()
    with open("/proc/self/status") as f:
        status = dict(line.rstrip("\n").split(":\t", 1) for line in f if ":\t" in line)
    report.update(caps=status.get("CapEff", "?"), nnp=status.get("NoNewPrivs", "?"), seccomp=status.get("Seccomp", "?"))
    import platform

    numbers = SYSCALLS.get(platform.machine())
    if numbers is not None:
        handle = ctypes.create_string_buffer(b"\x80" + b"\0" * 135)  # bytes = 128
        mount_id = ctypes.c_int()
        r = libc.syscall(numbers[2][1], -100, cfg["folder"].encode(), handle, ctypes.byref(mount_id), 0)
        report["handle"] = "allowed" if r == 0 else "EPERM" if ctypes.get_errno() == 1 else "other"
    os.write(1, (" ".join(f"{k}={v}" for k, v in report.items()) + "\n").encode())
    os._exit(0)


def blank_arguments():
    """Blank this process's arguments and environment as exec laid them out (the judge's paths,
    cgroup names and environment): what /proc/1/cmdline and /proc/1/environ show of the init."""
    try:
        with open("/proc/self/stat", "rb") as f:
            fields = f.read().rpartition(b")")[2].split()
        start, end = int(fields[45]), int(fields[48])  # arg_start ... env_end
    except (OSError, ValueError, IndexError):
        return
    if 0 < start < end:
        ctypes.memset(start, 0, end - start)
        ctypes.memmove(start, b"kothkit-init", 12)


def run_init(cfg, argv, status_w, life_r, cgroup_fds, freezer_fd=None):
    """PID 1 of the namespace: start the bot, reap everything, report the bot's status."""
    blank_arguments()
    if freezer_fd is not None:
        # When the leader dies (with the judge), thaw the bot first: frozen (cgroup v1), it would
        # not die of the SIGKILL the kernel then sends.
        thawed = b"THAWED" if cfg["freezer"].endswith("freezer.state") else b"0"

        def on_leader_death(*_):
            try:
                os.write(freezer_fd, thawed)
            finally:
                os._exit(1)

        signal.signal(signal.SIGTERM, on_leader_death)
        prctl(PR_SET_PDEATHSIG, signal.SIGTERM)
    else:
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
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
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
    cfg: dict[str, Any] = {"cgroups": [], "rlimits": [], "keeps": [], "envs": []}
    for i, a in enumerate(args):
        if a == "--":
            return cfg, args[i + 1:]
        key, _, value = a.partition("=")
        if key == "cgroup":
            cfg["cgroups"].append(value)
        elif key == "keep":
            cfg["keeps"].append(value)
        elif key == "env":
            cfg["envs"].append(value)
        elif key == "rlimit":
            name, soft, hard = value.split(":")
            cfg["rlimits"].append((name, int(soft), int(hard)))
        elif key in ("parent", "cpu", "tmp_mb"):
            cfg[key] = int(value)
        elif key in ("fs", "userns", "probe", "seccomp", "folder_rw", "net", "pinned"):
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
    freezer_fd = os.open(cfg["freezer"], os.O_WRONLY | os.O_CLOEXEC) if cfg.get("freezer") else None
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
        run_init(cfg, argv, status_w, life_r, cgroup_fds, freezer_fd)
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
