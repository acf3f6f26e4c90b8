#!/usr/bin/env bash
# Runs inside the VM of tests/vm/run.sh, as root, in the root cgroup of a unified hierarchy (no
# systemd): OUT (a folder shared with the host: the status), PYTHON (kothkit's), WAYS (a comma list
# of root, delegated, service), SCALE (the tests' time limits times this: the emulator is slow),
# then the tests to run (default: below).  Writes OUT/status: 0 when every way passed.
set -uo pipefail
out=$1 python=$2 ways=$3 scale=$4
shift 4
main() {
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
echo 1 > "$out/status"
fail=0

echo "vm: $(uname -r), $(nproc) cpus, cgroup: $(stat -fc %T /sys/fs/cgroup), controllers: $(cat /sys/fs/cgroup/cgroup.controllers)"
# The bots' folders and the judge's scratch on ext4 (real servers' file systems take idmapped
# mounts; the VM's 9p root does not), an image in the VM's memory.
modprobe loop && modprobe ext4 || { echo "vm: no loop or ext4 module"; exit 1; }
truncate -s 1200M /run/kothkit.img
mkfs.ext4 -q -F /run/kothkit.img && mkdir -p /run/kk && mount -o loop /run/kothkit.img /run/kk || exit 1
chmod 755 /run/kk
# The service user (virtme's /etc/shadow is not writable: useradd fails; the passwd line is enough).
if ! id -u kothkit >/dev/null 2>&1; then
    uid=990
    while getent passwd $uid >/dev/null || getent group $uid >/dev/null; do uid=$((uid - 1)); done
    echo "kothkit:x:$uid:$uid:kothkit:/nonexistent:/usr/sbin/nologin" >> /etc/passwd
    echo "kothkit:x:$uid:" >> /etc/group
fi

# What pytest runs in each way (unless the tests are given): the tests of the jail on v2 and of the
# refusal; the containment tests; and, as root in the root group, the hostile bots' too.
given=("$@")
selection_of() {
    if [ "${#given[@]}" -gt 0 ]; then
        selection=("${given[@]}")
    elif [ "$1" = root ]; then
        selection=(tests/vm/test_v2.py tests/core/test_containment.py tests/core/test_hostile.py)
    else
        selection=(tests/vm/test_v2.py tests/core/test_containment.py)
    fi
}

run_way() {  # WAY USER: exec pytest as USER, in the cgroup the way gives it (a subshell the caller moved there)
    local way=$1 user=$2 home=/run/kk/$1
    selection_of "$way"
    mkdir -p "$home/tmp" "$home/cache"
    chown -R "$user:" "$home"
    # A Python under a folder the user may not enter (pyenv's in /root, 0700): /root opened to it
    # through an overlay (the VM's root file system is read-only).
    if [ "$user" != root ] && ! setpriv --reuid="$user" --regid="$user" --init-groups -- env -i "$python" -c pass 2>/dev/null \
            && [ "$(stat -c %a /root)" = 700 ]; then
        mkdir -p /run/rootfs/up /run/rootfs/work
        mount -t overlay overlay -o lowerdir=/root,upperdir=/run/rootfs/up,workdir=/run/rootfs/work /root && chmod 711 /root
    fi
    echo "vm: === $way: $user in $(cut -d: -f3 /proc/self/cgroup) ==="
    local cmd=(env -i PATH="$(dirname "$python"):/usr/sbin:/usr/bin:/sbin:/bin" HOME="$home" TMPDIR="$home/tmp"
               XDG_CACHE_HOME="$home/cache" LANG=C.UTF-8 COLUMNS=200 PYTHONDONTWRITEBYTECODE=1
               KOTHKIT_VM_WAY="$way" KOTHKIT_TEST_SCALE="$scale"
               "$python" -m pytest -p no:cacheprovider -q -rs --durations=10
               --basetemp="$home/tmp/pytest" "${selection[@]}")
    cd "$ROOT" || exit 1
    # exec: the judge alone in its group, as in a unit (its leaf is undone when it exits alone)
    if [ "$user" = root ]; then
        exec "${cmd[@]}"
    fi
    exec setpriv --reuid="$user" --regid="$user" --init-groups -- "${cmd[@]}"
}

IFS=, read -ra chosen <<< "$ways"
for way in "${chosen[@]}"; do
    case $way in
    root)  # a root session: the root group (the VM has no systemd; a session scope is a group like "delegated")
        (run_way root root) || fail=1;;
    delegated)  # root in a group of its own, as systemd-run --scope -p Delegate=yes gives it
        g=/sys/fs/cgroup/kothkit-test.scope
        mkdir -p $g
        # (systemd hands the slice's controllers on to a delegated unit)
        for c in memory pids cpuset cpu; do echo "+$c" > /sys/fs/cgroup/cgroup.subtree_control; done
        (echo $BASHPID > $g/cgroup.procs && run_way delegated root) || fail=1
        # Nothing the judges made is left: their bots' groups gone, the leaf undone at the last exit.
        left=$(find $g -mindepth 1 -type d)
        [ -z "$left" ] || { echo "vm: left in $g: $left"; fail=1; }
        rmdir $g;;
    service)  # the service user in a group delegated to it (User=kothkit, Delegate=yes)
        g=/sys/fs/cgroup/kothkit.service
        mkdir -p $g
        for c in memory pids cpuset cpu; do echo "+$c" > /sys/fs/cgroup/cgroup.subtree_control; done
        # Delegation as systemd does it: the group and its cgroup.procs, cgroup.threads,
        # cgroup.subtree_control belong to the user.
        chown kothkit: $g $g/cgroup.procs $g/cgroup.threads $g/cgroup.subtree_control
        (echo $BASHPID > $g/cgroup.procs && run_way service kothkit) || fail=1
        left=$(find $g -mindepth 1 -type d)
        [ -z "$left" ] || { echo "vm: left in $g: $left"; fail=1; }
        rmdir $g;;
    *) echo "vm: no such way: $way"; fail=1;;
    esac
done
echo "$fail" > "$out/status"
}

# (all in a function: bash reads a script as it runs, and the file may change under a long run)
main "$@"
exit
