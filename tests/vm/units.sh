#!/usr/bin/env bash
# docs/hosting.md's systemd unit, tried under a real systemd (.ci/run runs it after tests/vm/run.sh):
# Debian's kernel booted under qemu with systemd as PID 1 (virtme-ng's --systemd, this machine's own
# files as the VM's read-only root, so this machine's systemd), the doc's kothkit.service installed
# in the VM (/run/systemd/system) with the state folder on an ext4 image, started with systemctl;
# its containment line (journalctl -u kothkit) must be the one the doc prints; the root variant's,
# of `systemd-run --scope -p Delegate=yes kothkit run gomoku_swap2`, the doc's root line; and the
# doc's check of the service user's jail, `systemd-run --uid kothkit -p Delegate=yes kothkit run
# gomoku_swap2`, must print the doc's line and play its round with no game lost to a fault, leaving
# no cgroup of kothkit behind (tests/vm/units-inside.sh).  Nothing on this machine changes: the
# VM's /etc, /root, /srv changes are overlays and images in its memory.
#
# Needs what tests/vm/run.sh needs (tests/vm/needs.sh: installed with KOTHKIT_VM_INSTALL=1, else
# skipped saying why), and systemd.  KOTHKIT_VM_TIMEOUT (s, default 1500) caps the run;
# KOTHKIT_VM_KEEP=1 keeps its folder (.vm-run-*: the VM's log and console).  About 4 minutes under
# the emulator on a quiet machine.  Exit 0 when every line is the doc's and the round was played.
set -euo pipefail
main() {
cd "$(dirname "$0")/../.."
ROOT=$PWD
EXTRA_PACKAGES=/lib/systemd/systemd:systemd
. tests/vm/needs.sh
kothkit=$(dirname "$python")/kothkit
[ -x "$kothkit" ] || skip "no kothkit beside $python (pip install -e .)"
out=$(mktemp -d "$ROOT/.vm-run-XXXXXX")
trap '[ -n "${KOTHKIT_VM_KEEP:-}" ] || rm -rf "$out"' EXIT
echo "tests/vm/units: booting $kernel with systemd under qemu (no KVM: minutes)"
# This machine is a container image: its /.dockerenv makes the VM's systemd believe it runs in a
# container, where it ignores the kernel's command line; SYSTEMD_PROC_CMDLINE (the kernel hands a
# parameter it does not know to init's environment) gives it one.  In that belief it starts a
# console getty where virtme runs its init (and the test) from serial-getty@ttyS0: that one is
# pulled in, the other masked.  systemd-tmpfiles-setup walks the 9p root for minutes under the
# emulator: masked.  (vng splits --append as a shell would: the quotes keep it one parameter.)
status=0
timeout --kill-after=30 "${KOTHKIT_VM_TIMEOUT:-1500}" nice -n 19 vng --verbose --run "$kernel" --disable-kvm --systemd \
    --cpus 2 --memory 3G --rwdir "$out" \
    --append "'SYSTEMD_PROC_CMDLINE=systemd.mask=systemd-tmpfiles-setup.service systemd.mask=console-getty.service systemd.mask=getty@tty1.service systemd.wants=serial-getty@ttyS0.service'" \
    --exec "bash $ROOT/tests/vm/units-inside.sh $out $kothkit > $out/log 2>&1" \
    </dev/null 2>&1 | cat > "$out/boot.log" || status=$?  # (through cat: vng truncates a file given as its output)
cat "$out/log" 2>/dev/null || { echo "tests/vm/units: no log from the VM (exit $status); its console:"; tail -c 3000 "$out/boot.log"; }
[ -f "$out/status" ] || { echo "tests/vm/units: the VM ended without a status (exit $status)" >&2; exit 1; }
st=$(cat "$out/status")
echo "tests/vm/units: exit $st"
exit "$st"
}
main "$@"
exit
