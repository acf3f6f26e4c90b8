#!/usr/bin/env bash
# The jail on cgroup v2, tried in a VM: Debian's kernel booted under qemu (virtme-ng, this machine's
# own files as the VM's root) with the unified hierarchy and no systemd, the bots' folders and the
# judge's scratch (TMPDIR) on an ext4 image made in the VM (the VM's 9p root cannot be id-mapped),
# and the containment tests run there (tests/vm/inside.sh) three ways: as root in the root group (a
# root session), as root in a group delegated to it (as systemd-run --scope -p Delegate=yes makes),
# as the service user kothkit in a group delegated to it (a unit's User=kothkit, Delegate=yes).
# docs/hosting.md's unit itself, under a real systemd in the VM: tests/vm/units.sh (.ci/run runs it next).
#
# Needs: qemu-system-x86_64, a Debian kernel (/boot/vmlinuz-*-amd64: linux-image-amd64), a static
# busybox (busybox-static: virtme-ng's initramfs), virtme-ng (pip; installed into the active venv
# when missing), 3 GB of memory.  KOTHKIT_VM_INSTALL=1 installs the Debian packages with apt-get
# (as root).  Without them it says what is missing and exits 0 (KOTHKIT_VM_REQUIRED=1: exit 1).
# KOTHKIT_VM_WAYS=root,delegated,service picks the ways; KOTHKIT_VM_TIMEOUT (s, default 1500) caps the run;
# KOTHKIT_TEST_SCALE (default 6) scales the tests' time limits for the emulator.  Arguments: the
# tests to run in each way (default: tests/vm/test_v2.py and the jail's tests, see inside.sh).
set -euo pipefail
# (all in a function: bash reads a script as it runs, and the file may change under a long run)
main() {
cd "$(dirname "$0")/../.."
ROOT=$PWD

. tests/vm/needs.sh

# A folder of the checkout (the VM sees this machine's files; its /tmp is its own) for the logs.
out=$(mktemp -d "$ROOT/.vm-run-XXXXXX")
trap 'rm -rf "$out"' EXIT
echo "tests/vm: booting $kernel under qemu (no KVM: about a minute), then the tests: ${KOTHKIT_VM_WAYS:-root,delegated,service}"
status=0
kvm=--disable-kvm
[ -w /dev/kvm ] && [ "${KOTHKIT_VM_KVM:-0}" = 1 ] && kvm=
# shellcheck disable=SC2086
timeout --kill-after=30 "${KOTHKIT_VM_TIMEOUT:-1500}" nice vng --run "$kernel" $kvm --cpus 2 --memory 3G \
    --rwdir "$out" --append "systemd.unified_cgroup_hierarchy=1" \
    --exec "bash $ROOT/tests/vm/inside.sh $out $python ${KOTHKIT_VM_WAYS:-root,delegated,service} ${KOTHKIT_TEST_SCALE:-6} $*" \
    </dev/null 2>&1 | cat || status=$?  # (through cat: vng truncates a file given as its output)
if [ ! -f "$out/status" ]; then
    echo "tests/vm: the VM ended without the tests' status (exit $status)" >&2
    exit 1
fi
st=$(cat "$out/status")
[ "$status" -ne 124 ] || echo "tests/vm: stopped after KOTHKIT_VM_TIMEOUT=${KOTHKIT_VM_TIMEOUT:-1500} s" >&2
echo "tests/vm: exit $st"
exit "$st"
}

main "$@"
exit
