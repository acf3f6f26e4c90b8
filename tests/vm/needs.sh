# Sourced by tests/vm/run.sh and tests/vm/units.sh: what booting the VM needs, installed when
# KOTHKIT_VM_INSTALL=1 (as root, with apt-get; virtme-ng with pip into the active Python), else
# `skip`ped saying what is missing (exit 0; KOTHKIT_VM_REQUIRED=1: exit 1).  Sets `kernel` (the
# newest Debian kernel in /boot) and `python` (the Python kothkit is installed in).  EXTRA_PACKAGES
# (command:package pairs) names more that the caller needs.
skip() {
    echo "tests/vm: skipped: $*" >&2
    [ "${KOTHKIT_VM_REQUIRED:-0}" = 1 ] && exit 1
    exit 0
}

if [ "${KOTHKIT_VM_INSTALL:-0}" = 1 ] && [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
    want=()
    command -v qemu-system-x86_64 >/dev/null || want+=(qemu-system-x86)
    compgen -G '/boot/vmlinuz-*-amd64' >/dev/null || want+=(linux-image-amd64)
    dpkg -s busybox-static >/dev/null 2>&1 || want+=(busybox-static)
    for pair in ${EXTRA_PACKAGES:-}; do
        [ -e "${pair%%:*}" ] || command -v "${pair%%:*}" >/dev/null || want+=("${pair#*:}")
    done
    if [ "${#want[@]}" -gt 0 ]; then
        apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${want[@]}" \
            >/dev/null || skip "apt-get could not install ${want[*]}"
    fi
fi
[ "$(uname -m)" = x86_64 ] || skip "not an x86_64 machine"
command -v qemu-system-x86_64 >/dev/null || skip "no qemu-system-x86_64 (apt-get install qemu-system-x86)"
kernel=$(compgen -G '/boot/vmlinuz-*-amd64' | sort -V | tail -1 || true)
[ -n "$kernel" ] && [ -r "$kernel" ] || skip "no Debian kernel in /boot (apt-get install linux-image-amd64)"
for pair in ${EXTRA_PACKAGES:-}; do
    [ -e "${pair%%:*}" ] || command -v "${pair%%:*}" >/dev/null || skip "no ${pair%%:*} (apt-get install ${pair#*:})"
done
python=$(command -v python3)
"$python" -c 'import kothkit' 2>/dev/null || skip "kothkit is not installed in $python (pip install -e '.[test]')"
if ! command -v vng >/dev/null; then
    "$python" -m pip install -q virtme-ng >/dev/null 2>&1 || skip "virtme-ng could not be installed (pip install virtme-ng)"
fi
command -v vng >/dev/null || skip "no vng (pip install virtme-ng)"
free_mb=$(awk '/MemAvailable/ {print int($2 / 1024)}' /proc/meminfo)
[ "$free_mb" -ge 3500 ] || skip "$free_mb MB of memory available; the VM needs 3 GB"
