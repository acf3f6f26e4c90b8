#!/usr/bin/env bash
# Runs inside the VM of tests/vm/units.sh, as root, under a real systemd (PID 1): OUT (a folder
# shared with the host: the log and the status), KOTHKIT (the kothkit executable to put in the unit's
# ExecStart).  Installs docs/hosting.md's unit (taken from the doc itself, its paths adapted) with the
# state folder on an ext4 image, starts it with systemctl, reads its containment line with
# journalctl -u kothkit and compares it with the line the doc says it must print; then runs
# `systemd-run --scope -p Delegate=yes kothkit run gomoku_swap2` as root and compares its line with
# the doc's root variant; then the doc's `systemd-run --uid kothkit -p Delegate=yes kothkit run
# gomoku_swap2` to the end of its round.  After each, no cgroup of kothkit may be left.  Writes
# OUT/status: 0 when every line is the doc's and the round lost no game to a fault.
set -uo pipefail
out=$1 kothkit=$2
main() {
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
doc=$ROOT/docs/hosting.md
echo 1 > "$out/status"
fail=0
echo "units: $(uname -r), PID 1 is $(cat /proc/1/comm) ($(systemctl --version | head -1)), cgroup: $(stat -fc %T /sys/fs/cgroup)"
echo "units: I am in $(cut -d: -f3 /proc/self/cgroup); root controllers: $(cat /sys/fs/cgroup/cgroup.controllers)"

# The VM's root is this machine's files over 9p, read-only: /etc and /root get overlays in memory
# when virtme has not given them one (nothing on the host changes).
overlay() {  # DIR: writable over a tmpfs upper layer
    local name; name=$(echo "$1" | tr / _)
    mkdir -p "/run/units-ov/$name/up" "/run/units-ov/$name/work"
    mount -t overlay overlay -o "lowerdir=$1,upperdir=/run/units-ov/$name/up,workdir=/run/units-ov/$name/work" "$1"
}
touch /etc/.units-probe 2>/dev/null && rm -f /etc/.units-probe || overlay /etc || { echo "units: /etc stays read-only"; exit 1; }

# The service user, as the doc's useradd makes it.  (useradd itself is not used: in virtme's /etc it
# wrote the user but not its group, leaving a primary group with no name; the passwd and group lines
# it would write are enough.)
if ! id -u kothkit >/dev/null 2>&1; then
    uid=990
    while getent passwd $uid >/dev/null || getent group $uid >/dev/null; do uid=$((uid - 1)); done
    echo "kothkit:x:$uid:$uid:kothkit:/srv/kothkit:/usr/sbin/nologin" >> /etc/passwd
    echo "kothkit:x:$uid:" >> /etc/group
fi
echo "units: user $(id kothkit); group by name: $(getent group kothkit)"
# A Python under a folder the user may not enter (pyenv's in /root, 0700): /root opened to it.  (Not
# on a probe by the user: over 9p's access=any a first probe may pass where systemd's exec then fails.)
if [ "$(stat -c %a /root)" = 700 ]; then
    overlay /root && chmod 711 /root || { echo "units: /root stays closed to the user"; exit 1; }
fi

# /srv/kothkit on ext4 (an image in the VM's memory: real servers' file systems take idmapped mounts;
# the VM's 9p root and virtme's overlays do not).
modprobe loop && modprobe ext4 || { echo "units: no loop or ext4 module"; exit 1; }
truncate -s 1200M /run/kothkit.img
mkfs.ext4 -q -F /run/kothkit.img || exit 1
touch /srv/.units-probe 2>/dev/null && rm -f /srv/.units-probe || mount -t tmpfs srv /srv
mkdir -p /srv/kothkit && mount -o loop /run/kothkit.img /srv/kothkit || exit 1
install -d -o kothkit -g kothkit /srv/kothkit /srv/kothkit/tmp /srv/kothkit/cache
cp -r "$ROOT/challenges" /srv/kothkit/challenges && chown -R kothkit: /srv/kothkit/challenges

# The unit, exactly the doc's but for the path of kothkit.
awk '/^# \/etc\/systemd\/system\/kothkit.service/ {on = 1; next} on && /^```/ {exit} on' "$doc" \
    | sed "s|^ExecStart=/opt/kothkit/bin/kothkit |ExecStart=$kothkit |" > /run/systemd/system/kothkit.service
echo "units: --- the unit (/run/systemd/system/kothkit.service) ---"
cat /run/systemd/system/kothkit.service
want=$(grep -m1 '^containment: ' "$doc")
want_root=${want/bots run as root in a user namespace/bots run as uid 65534}

wait_line() {  # SECONDS CMD...: wait until CMD prints a containment line
    local i
    for ((i = 0; i < $1; i++)); do
        "${@:2}" 2>/dev/null | grep -m1 -q '^containment: \|containment: ' && return 0
        if [ "$2" = journalctl ] && [ "$(timeout 20 systemctl is-active kothkit 2>&1)" = failed ]; then
            echo "units: ${i}s: kothkit.service failed"; return 1
        fi
        if ((i % 60 == 59)); then  # what it is doing meanwhile
            echo "units: ${i}s: $(timeout 20 systemctl is-active kothkit 2>&1); processes of kothkit: $(ps -u kothkit -o pid=,stat=,etime=,args= 2>&1 | head -5 | tr '\n' ';')"
            timeout 20 journalctl -u kothkit -o cat --no-pager 2>&1 | tail -5
        fi
        sleep 1
    done
    return 1
}
# (no daemon-reload: in this VM it did not return in 8 minutes; systemd 252 loads a unit file new
# in its paths when it is first asked for)
echo "units: the user can run it: $(setpriv --reuid=kothkit --regid=kothkit --init-groups -- "$kothkit" serve --help 2>&1 | head -3 | tr '\n' ' ')"
echo "units: === systemctl start kothkit ==="
timeout 120 systemctl start kothkit || echo "units: systemctl start kothkit: exit $?"
wait_line 600 journalctl -u kothkit -o cat --no-pager
sleep 5
if [ "$(timeout 20 systemctl is-active kothkit 2>&1)" = failed ]; then  # how the unit's user sees its files
    echo "units: --- as the unit's user, from systemd ---"
    timeout 120 systemd-run --quiet --wait --pipe --uid=kothkit --gid=kothkit -p WorkingDirectory=/srv/kothkit \
        /bin/sh -c "id; cat /proc/self/status | grep -i '^cap\|^nonew\|^seccomp'; grep -v '^ *$' /proc/self/attr/current 2>/dev/null;
                    head -1 $kothkit; namei -l \$(readlink -f \$(dirname $kothkit)/python); \$(dirname $kothkit)/python -c 'print(42)'" 2>&1
    echo "units: --- the same with setpriv, from this shell ---"
    setpriv --reuid=kothkit --regid=kothkit --init-groups -- /bin/sh -c "id; namei -l \$(readlink -f \$(dirname $kothkit)/python); \$(dirname $kothkit)/python -c 'print(42)'" 2>&1
    mount | grep -E ' on /( |root|work|srv)' | head
fi
echo "units: --- journalctl -u kothkit ---"
journalctl -u kothkit -o cat --no-pager | tee "$out/service.log"
timeout 60 systemctl status kothkit --no-pager | head -20
echo "units: kothkit.service's group: $(find /sys/fs/cgroup/system.slice/kothkit.service -type d | tr '\n' ' ')"
got=$(grep -m1 -o 'containment: .*' "$out/service.log")
if [ "$got" = "$want" ]; then echo "units: service: the doc's line: OK"; else
    echo "units: service: NOT the doc's line"; echo "  got:  $got"; echo "  want: $want"; fail=1; fi
timeout 120 systemctl stop kothkit
left=$(find /sys/fs/cgroup/system.slice/kothkit.service -mindepth 1 -type d 2>/dev/null)
[ -z "$left" ] || { echo "units: left in kothkit.service: $left"; fail=1; }

echo "units: === systemd-run --scope -p Delegate=yes kothkit run gomoku_swap2 (root) ==="
# (the bundled bots on ext4 too: from the VM's 9p root they would run over copies, as the doc says)
mkdir -p /srv/kothkit/root-tmp && cp -r "$ROOT/plugins/gomoku_swap2/bots" /srv/kothkit/swap2-bots
(cd /srv/kothkit && systemd-run --quiet --scope --unit=kothkit-run -p Delegate=yes \
    env TMPDIR=/srv/kothkit/root-tmp XDG_CACHE_HOME=/srv/kothkit/root-cache COLUMNS=200 \
    "$kothkit" run gomoku_swap2 --bots /srv/kothkit/swap2-bots --rounds 1 --quiet --db /srv/kothkit/root-tmp/run.db \
    > "$out/run.log" 2>&1) &
wait_line 600 cat "$out/run.log"
sleep 2
timeout 120 systemctl stop kothkit-run.scope 2>/dev/null
wait
cat "$out/run.log" | head -20
left=$(find /sys/fs/cgroup -name 'kothkit*' -type d 2>/dev/null)
[ -z "$left" ] || { echo "units: cgroups left after the scope's judge: $left"; fail=1; }
got=$(grep -m1 -o 'containment: .*' "$out/run.log")
if [ "$got" = "$want_root" ]; then echo "units: scope: the doc's line: OK"; else
    echo "units: scope: NOT the doc's line"; echo "  got:  $got"; echo "  want: $want_root"; fail=1; fi
echo "units: === systemd-run --uid kothkit -p Delegate=yes kothkit run gomoku_swap2 (the service user, a whole round) ==="
# The doc's own check of the service user's jail, played to its end: every game a real one (no bot
# lost by a fault of the jail), the full line, and nothing left of its groups afterwards.
cp -r "$ROOT/plugins/gomoku_swap2/bots" /srv/kothkit/user-bots && chown -R kothkit: /srv/kothkit/user-bots
(cd /srv/kothkit && timeout 1200 systemd-run --quiet --wait --pipe --uid kothkit --gid kothkit -p Delegate=yes \
    -p WorkingDirectory=/srv/kothkit -E TMPDIR=/srv/kothkit/tmp -E XDG_CACHE_HOME=/srv/kothkit/cache -E COLUMNS=200 \
    "$kothkit" run gomoku_swap2 --bots /srv/kothkit/user-bots --rounds 1 --db /srv/kothkit/tmp/user.db \
    > "$out/user.log" 2>&1 </dev/null)
echo "units: (exit $?)"
grep -v '^\s*$' "$out/user.log" | tail -25
got=$(grep -m1 -o 'containment: .*' "$out/user.log")
if [ "$got" = "$want" ]; then echo "units: service user: the doc's line: OK"; else
    echo "units: service user: NOT the doc's line"; echo "  got:  $got"; echo "  want: $want"; fail=1; fi
query() { "$(dirname "$kothkit")/python" -c 'import sqlite3, sys
for row in sqlite3.connect(sys.argv[1]).execute(sys.argv[2]): print(*row)' /srv/kothkit/tmp/user.db "$1" 2>&1; }
games=$(query "SELECT count(*) FROM games")
faults=$(query "SELECT reason FROM games WHERE fault IS NOT NULL")
if [ "$games" = 6 ] && [ -z "$faults" ]; then echo "units: service user: 6 games played, none lost to a fault: OK"; else
    echo "units: service user: $games games (want 6); faults: $faults"; fail=1; fi
left=$(find /sys/fs/cgroup -name 'kothkit*' -type d 2>/dev/null)
[ -z "$left" ] || { echo "units: cgroups left after the service user's judge: $left"; fail=1; }
echo "$fail" > "$out/status"
}
main "$@"
exit
