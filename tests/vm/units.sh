#!/usr/bin/env bash
# docs/hosting.md's systemd unit, tried under a real systemd (run by hand; not in .ci/run): Debian's
# kernel booted under qemu with systemd as PID 1 (virtme-ng's --systemd, this machine's own files as
# the VM's read-only root, so this machine's systemd), the doc's kothkit.service installed in the VM
# (/run/systemd/system) with the state folder on an ext4 image, started with systemctl; its
# containment line (journalctl -u kothkit) must be the one the doc prints, and that of
# `systemd-run --scope -p Delegate=yes kothkit run gomoku_swap2` as root the doc's root variant
# (tests/vm/units-inside.sh).  Nothing on this machine changes: the VM's /etc, /root, /srv changes
# are overlays and images in its memory.
#
# Needs what tests/vm/run.sh needs (qemu-system-x86_64, a Debian kernel in /boot, virtme-ng in the
# active venv, kothkit installed there), systemd installed, 3 GB of memory.  KOTHKIT_VM_TIMEOUT (s,
# default 1500) caps the run.  Exit 0 when both lines are the doc's.
set -euo pipefail
main() {
cd "$(dirname "$0")/../.."
ROOT=$PWD
kernel=$(compgen -G '/boot/vmlinuz-*-amd64' | sort -V | tail -1 || true)
[ -n "$kernel" ] || { echo "tests/vm/units: no Debian kernel in /boot" >&2; exit 1; }
[ -x /lib/systemd/systemd ] || { echo "tests/vm/units: no systemd (/lib/systemd/systemd)" >&2; exit 1; }
command -v vng >/dev/null || { echo "tests/vm/units: no vng (pip install virtme-ng)" >&2; exit 1; }
kothkit=$(command -v kothkit) || { echo "tests/vm/units: no kothkit on PATH (activate the venv)" >&2; exit 1; }
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
