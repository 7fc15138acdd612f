#!/usr/bin/env bash
# Proves the Debian package installs and runs (docs/packaging.md):
#
#   sudo packaging/prove-install.sh [--keep] [--no-audit] [--no-boot] [DEB]
#
# 1. a throw-away Debian bookworm root (debootstrap --variant=minbase --include=systemd),
#    unpacked from a tarball cached in $CACHE_DIR (default /var/cache/herald-packaging) after
#    the first run;
# 2. `apt-get install /tmp/herald_*.deb` inside it (chroot, systemd not running), which
#    resolves the dependencies from deb.debian.org (downloaded packages are cached too);
# 3. `herald serve --config /etc/herald/herald.yaml` in the chroot as the unit runs it: user
#    herald, no capabilities, no new privileges, umask 0077, LimitNOFILE=, working directory
#    the state directory; /healthz from the host; SIGTERM. Unless --no-audit, under strace: every
#    system call, mapping and socket it makes is checked against the unit's SystemCallFilter=,
#    MemoryDenyWriteExecute= and RestrictAddressFamilies=;
# 4. `systemd-analyze verify` and `systemd-analyze security --offline=yes` on the installed unit
#    (--root=the new root): the exposure score, which must stay below 2.0;
# 5. unless --no-boot, the root booted with systemd as PID 1 (systemd-nspawn --boot, sharing the
#    host's network): herald.service, enabled by the package, starts with all its sandboxing;
#    /healthz from the host, the process's credentials, seccomp and limits, its journal,
#    `systemctl stop herald`, power-off;
# 6. removes the root (unless --keep) and says how long it all took.
#
# DEB defaults to the newest .build-package/herald_*.deb. Needs root, debootstrap, curl, zstd,
# systemd-analyze (systemd 252 or later); strace for the audit; systemd-nspawn for the boot
# (package systemd-container: when it is not installed, its .deb for the host's systemd is
# unpacked into $CACHE_DIR, never installed). When the configured ports are taken on this
# host, free ones are given through HERALD_SERVER_PORT and HERALD_SERVER_OPERATIONS_PORT (a
# drop-in for the unit), and the script says so.
set -euo pipefail

started=$(date +%s.%N)
HERE=$(cd "$(dirname "$0")" && pwd)
REPO=$(cd "$HERE/.." && pwd)
CACHE_DIR=${CACHE_DIR:-/var/cache/herald-packaging}
SUITE=bookworm
MIRROR=${MIRROR:-http://deb.debian.org/debian}
ARCH=$(dpkg --print-architecture)
HEALTH_TIMEOUT=${HEALTH_TIMEOUT:-60}
UNIT=/lib/systemd/system/herald.service
CONFIG=/etc/herald/herald.yaml

keep=no
audit=yes
boot=yes
deb=""
for arg in "$@"; do
    case "$arg" in
        --keep) keep=yes ;;
        --no-audit) audit=no ;;
        --no-boot) boot=no ;;
        -h | --help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
        -*) echo "prove-install: unknown option $arg" >&2; exit 2 ;;
        *) deb=$arg ;;
    esac
done
if [ -z "$deb" ]; then
    deb=$(ls -t "$REPO"/.build-package/herald_*_"$ARCH".deb 2>/dev/null | head -n1 || true)
fi

say() { printf '\n== %s\n' "$*"; }
die() { echo "prove-install: $*" >&2; exit 1; }
elapsed() { awk -v a="$1" -v b="$(date +%s.%N)" 'BEGIN {printf "%.1f", b - a}'; }
phase_start=$started
phase() {  # phase [NAME]: how long the previous phase took, then the next one's title
    echo "   ($(elapsed "$phase_start") s)"
    phase_start=$(date +%s.%N)
    [ $# -eq 0 ] || say "$*"
}

[ "$(id -u)" = 0 ] || die "needs root (debootstrap, chroot, mount)"
[ -n "$deb" ] && [ -f "$deb" ] || die "no package: build one with make package (or pass DEB)"
for tool in debootstrap curl systemd-analyze tar zstd ss; do
    command -v "$tool" >/dev/null || die "$tool is missing"
done
if [ "$audit" = yes ] && ! command -v strace >/dev/null; then
    echo "prove-install: strace is missing, skipping the system-call audit" >&2
    audit=no
fi
deb=$(readlink -f "$deb")

mkdir -p "$CACHE_DIR/apt-archives"
tarball="$CACHE_DIR/$SUITE-minbase-systemd-$ARCH.tar.zst"
root=$(mktemp -d "$CACHE_DIR/root.XXXXXX")
chmod 0755 "$root"  # mktemp makes it 0700; it is the new system's /
work=$(mktemp -d)
cached=no
bg_pid=""          # step 3: herald, or strace running it
herald_pid=""
nspawn_pid=""      # step 5

root_pids() {  # processes whose root is the new root (all started by this script)
    local proc
    for proc in /proc/[0-9]*; do
        [ "$(readlink "$proc/root" 2>/dev/null)" = "$root" ] && echo "${proc#/proc/}"
    done
    return 0
}
unmount_root() {
    local mount
    for mount in "$root/sys" "$root/proc"; do
        if mountpoint -q "$mount"; then umount "$mount" || umount -l "$mount"; fi
    done
}
cleanup() {
    local status=$? pid
    set +e
    if [ -n "$nspawn_pid" ] && kill -0 "$nspawn_pid" 2>/dev/null; then
        kill -TERM "$nspawn_pid"
        for _ in $(seq 60); do kill -0 "$nspawn_pid" 2>/dev/null || break; sleep 0.5; done
        kill -KILL "$nspawn_pid" 2>/dev/null
        wait "$nspawn_pid" 2>/dev/null
    fi
    for pid in $(root_pids); do kill -KILL "$pid" 2>/dev/null; done
    [ -z "$bg_pid" ] || wait "$bg_pid" 2>/dev/null
    unmount_root
    if [ "$keep" = yes ]; then
        echo "prove-install: kept the root at $root"
    elif grep -q " $root/" /proc/mounts; then
        echo "prove-install: something is still mounted under $root; not removing it" >&2
    else
        rm -rf --one-file-system "$root"
        [ "$status" != 0 ] || echo "   removed the root"
    fi
    rm -rf "$work"
    if [ "$status" = 0 ]; then
        phase
        awk -v a="$started" -v b="$(date +%s.%N)" -v c="$cached" -v t="$tarball" 'BEGIN {
            printf "prove-install: done in %.1f s (%s)\n", b - a, c == "yes" ? "root from the cache " t : "first run: debootstrap, then cached in " t }'
    fi
    exit "$status"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

wait_for_health() {  # wait_for_health PORT PID: /healthz within HEALTH_TIMEOUT while PID lives
    local deadline=$(($(date +%s) + HEALTH_TIMEOUT))
    until answer=$(curl -fsS --max-time 2 "http://127.0.0.1:$1/healthz" 2>/dev/null); do
        kill -0 "$2" 2>/dev/null || return 1
        [ "$(date +%s)" -lt "$deadline" ] || return 1
        sleep 0.5
    done
}
probe() {  # the answers of both ports, as curl from the host sees them
    echo "   GET http://127.0.0.1:$port/healthz -> $answer"
    if [ -n "$ops_port" ]; then
        echo "   GET http://127.0.0.1:$ops_port/healthz -> $(curl -fsS --max-time 2 "http://127.0.0.1:$ops_port/healthz")"
        echo "   GET http://127.0.0.1:$ops_port/readyz -> $(curl -sS --max-time 2 -w ' (%{http_code})' "http://127.0.0.1:$ops_port/readyz")"
    fi
}

# 1. The root: the cached tarball, or debootstrap once and cache it.
if [ -f "$tarball" ]; then
    cached=yes
    say "Debian $SUITE root from the cached $(basename "$tarball")"
    tar --zstd -xpf "$tarball" -C "$root"
    chmod 0755 "$root"
else
    cached=no
    say "Debian $SUITE root: debootstrap --variant=minbase --include=systemd (first run; cached after)"
    debootstrap --variant=minbase --include=systemd --arch="$ARCH" "$SUITE" "$root" "$MIRROR" >"$work/debootstrap.log" 2>&1 \
        || { tail -n 30 "$work/debootstrap.log" >&2; die "debootstrap failed (log above)"; }
    chroot "$root" apt-get clean
    tar --zstd -cpf "$tarball.tmp" -C "$root" . && mv "$tarball.tmp" "$tarball"
    echo "   cached $(du -h "$tarball" | cut -f1) in $tarball"
fi
cp /etc/resolv.conf "$root/etc/resolv.conf"
mount -t proc proc "$root/proc"
mount -t sysfs -o ro sysfs "$root/sys"

# 2. The package, with its dependencies from the mirror.
phase "apt-get install $(basename "$deb") in the chroot"
cp "$deb" "$root/tmp/"
cp "$CACHE_DIR"/apt-archives/*.deb "$root/var/cache/apt/archives/" 2>/dev/null || true
chroot "$root" apt-get update -qq
chroot "$root" env DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
    "/tmp/$(basename "$deb")" >"$work/apt.log" 2>&1 || { cat "$work/apt.log" >&2; die "apt-get install failed"; }
grep -E '^(Setting up) ' "$work/apt.log" | sed 's/^/   /'
cp "$root"/var/cache/apt/archives/*.deb "$CACHE_DIR/apt-archives/" 2>/dev/null || true
echo "   installed: $(chroot "$root" dpkg-query -W -f '${Package} ${Version} ${Status}' herald)"
echo "   user: $(chroot "$root" getent passwd herald)"
echo "   enabled: $(cd "$root" && find etc/systemd/system -name herald.service -printf '%p -> %l\n')"
chroot "$root" stat -c '   %A %U:%G %n' /etc/herald "$CONFIG" /var/lib/herald /usr/bin/herald "$UNIT"

# 3. Run it in the chroot as the unit would.
phase "herald serve --config $CONFIG in the chroot, as the unit runs it"
chroot "$root" herald --version | sed 's/^/   /'
chroot "$root" herald config check "$CONFIG" | sed 's/^/   config check: /'
chroot "$root" herald serve --config "$CONFIG" --print-config >"$work/effective" 2>&1 \
    || { cat "$work/effective" >&2; die "herald serve --print-config failed"; }
port_of() {  # port_of KEY: the effective value of a port key (`server.port = 8080   # file …`)
    awk -v k="$1" '$1 == k && $3 ~ /^[0-9]+$/ {print $3}' "$work/effective"
}
port_busy() { ss -ltnH "( sport = :$1 )" | grep -q .; }
free_port() { local p=$1; while port_busy "$p"; do p=$((p + 1)); done; echo "$p"; }
port=$(port_of server.port); port=${port:-8080}
ops_port=$(port_of server.operations-port)
overrides=()
if port_busy "$port"; then
    new=$(free_port 18080); echo "   port $port is taken on this host: HERALD_SERVER_PORT=$new"
    port=$new; overrides+=("HERALD_SERVER_PORT=$port")
fi
if [ -n "$ops_port" ] && { port_busy "$ops_port" || [ "$ops_port" = "$port" ]; }; then
    new=$(free_port $((port + 1))); echo "   port $ops_port is taken on this host: HERALD_SERVER_OPERATIONS_PORT=$new"
    ops_port=$new; overrides+=("HERALD_SERVER_OPERATIONS_PORT=$ops_port")
fi

# The unit's user, umask, working directory and LimitNOFILE= (this host's hard limit instead
# when root here may not raise it).
nofile=$(sed -n 's/^LimitNOFILE=//p' "$root$UNIT")
if ! prlimit --nofile="$nofile:$nofile" true 2>/dev/null; then
    nofile=$(ulimit -Hn)
    echo "   root may not raise the open-file limit here (no CAP_SYS_RESOURCE): $nofile, not the unit's"
fi
run=(chroot "$root" /usr/bin/prlimit --nofile="$nofile:$nofile" --
    /usr/bin/setpriv --reuid=herald --regid=herald --clear-groups --no-new-privs --inh-caps=-all --bounding-set=-all --
    /usr/bin/env -i PATH=/usr/bin:/bin LANG=C.UTF-8 "${overrides[@]}"
    /bin/sh -c "umask 0077 && cd /var/lib/herald && exec /usr/bin/herald serve --config $CONFIG")
if [ "$audit" = yes ]; then
    strace -f -qq -o "$work/strace" -e trace=all -e signal=none "${run[@]}" >"$work/herald.log" 2>&1 &
    bg_pid=$!
    # chroot, prlimit, setpriv, env and sh each exec the next: strace's child becomes herald.
    for _ in $(seq 50); do herald_pid=$(pgrep -P "$bg_pid" | head -n1 || true); [ -n "$herald_pid" ] && break; sleep 0.1; done
else
    "${run[@]}" >"$work/herald.log" 2>&1 &
    bg_pid=$!
    herald_pid=$bg_pid
fi
[ -n "$herald_pid" ] || die "herald did not start"
wait_for_health "$port" "$bg_pid" || { cat "$work/herald.log" >&2; die "no /healthz from herald in the chroot"; }
probe
echo "   log:"; cut -c1-160 "$work/herald.log" | sed 's/^/     /'

# As systemctl stop would: SIGTERM, then up to TimeoutStopSec=. strace exits with the status of
# what it ran, so waiting for bg_pid gives herald's either way.
stop_started=$(date +%s.%N)
kill -TERM "$herald_pid"
stop_deadline=$(($(date +%s) + 45))
while kill -0 "$bg_pid" 2>/dev/null && [ "$(date +%s)" -lt "$stop_deadline" ]; do sleep 0.1; done
kill -0 "$bg_pid" 2>/dev/null && die "herald did not stop within 45 s of SIGTERM"
wait "$bg_pid" && status=0 || status=$?
bg_pid=""
echo "   SIGTERM: herald exited with status $status after $(elapsed "$stop_started") s"
[ "$status" = 0 ] || die "herald did not exit cleanly"
echo "   the state directory it left (umask 0077, owner herald):"
chroot "$root" find /var/lib/herald -maxdepth 2 -printf '     %M %u:%g %p\n'

# What herald itself called (after the wrappers' last execve), against the installed unit.
if [ "$audit" = yes ]; then
    phase "system calls, mappings and sockets of that run against the unit (strace)"
    expand() {  # expand NAME...: system call names, systemd's @groups expanded recursively
        local item name
        for item in "$@"; do
            case "$item" in
                @*) systemd-analyze syscall-filter "$item" | awk 'NR > 1 && !/^ *#/ && NF {print $1}' \
                        | while read -r name; do expand "$name"; done ;;
                *) echo "$item" ;;
            esac
        done
    }
    # SystemCallFilter= lines in order: the first (an allow list) sets, "~" lines take away,
    # later plain lines add back.
    : >"$work/filter"
    first=yes
    while read -r list; do
        if [ "${list#\~}" != "$list" ]; then
            [ "$first" = no ] || die "the unit's first SystemCallFilter= is a deny list; the audit reads allow lists"
            # shellcheck disable=SC2086
            expand ${list#\~} | sort -u | comm -23 "$work/filter" - >"$work/filter.next"
        else
            # shellcheck disable=SC2086
            expand $list | sort -u - "$work/filter" >"$work/filter.next"
        fi
        mv "$work/filter.next" "$work/filter"
        first=no
    done < <(sed -n 's/^SystemCallFilter=//p' "$root$UNIT")
    families=$(sed -n 's/^RestrictAddressFamilies=//p' "$root$UNIT")
    awk 'found {print} /execve\("\/usr\/bin\/herald"/ {found = 1}' "$work/strace" >"$work/herald.strace"
    cp "$work/herald.strace" "$CACHE_DIR/last-run.strace"
    sed -nE 's/^[0-9]+ +([a-z0-9_]+)\(.*/\1/p' "$work/herald.strace" | sort | uniq -c | sort -rn >"$work/calls"
    echo "   $(wc -l <"$work/herald.strace") calls, $(wc -l <"$work/calls") distinct ($CACHE_DIR/last-run.strace)"
    outside=$(awk '{print $2}' "$work/calls" | sort | comm -23 - "$work/filter" | tr '\n' ' ')
    echo "   outside SystemCallFilter= ($(wc -l <"$work/filter") calls allowed): ${outside:-none}"
    wx=$(grep -cE '^[0-9]+ +(mmap|mprotect|pkey_mprotect)\(.*(PROT_WRITE\|PROT_EXEC|PROT_EXEC\|PROT_WRITE)' "$work/herald.strace" || true)
    mprotect_x=$(grep -cE '^[0-9]+ +(mprotect|pkey_mprotect)\(.*PROT_EXEC' "$work/herald.strace" || true)
    shm_x=$(grep -cE '^[0-9]+ +shmat\(.*SHM_EXEC' "$work/herald.strace" || true)
    echo "   MemoryDenyWriteExecute=: writable and executable mappings $wx, mprotect(PROT_EXEC) $mprotect_x, shmat(SHM_EXEC) $shm_x"
    sed -nE 's/^[0-9]+ +socket\((AF_[A-Z0-9]+),.*/\1/p' "$work/herald.strace" | sort | uniq -c >"$work/families"
    echo "   sockets: $(awk '{printf "%s ×%s  ", $2, $1}' "$work/families")"
    refused=$(awk '{print $2}' "$work/families" | grep -vxF -f <(tr ' ' '\n' <<<"$families") | tr '\n' ' ' || true)
    [ -z "$refused" ] || echo "   refused by RestrictAddressFamilies=$families: $refused(glibc's getaddrinfo probes"\
        "interfaces over netlink and does without)"
    if [ -n "$outside" ] || [ "$wx" != 0 ] || [ "$mprotect_x" != 0 ] || [ "$shm_x" != 0 ]; then
        die "herald made calls the unit refuses (above)"
    fi
fi
unmount_root

# 4. The unit, checked where it is installed.
phase "systemd-analyze verify --root=ROOT herald.service"
# verify runs the host's `man` for Documentation=man:herald(1); MANPATH points it into the root.
if MANPATH="$root/usr/share/man" systemd-analyze verify --root="$root" herald.service >"$work/verify" 2>&1; then
    echo "   clean (exit 0)"; sed 's/^/   /' "$work/verify"
else
    sed 's/^/   /' "$work/verify"; die "systemd-analyze verify failed"
fi
phase "systemd-analyze security --offline=yes --root=ROOT herald.service"
# --threshold is in tenths: 19 fails the run unless the exposure is below 2.0.
systemd-analyze security --offline=yes --threshold=19 --root="$root" --no-pager herald.service >"$work/security" 2>&1 \
    || { cat "$work/security" >&2; die "systemd-analyze security failed, or the exposure is 2.0 or more"; }
echo "   $(grep -c '^✓' "$work/security") settings OK; the others:"
sed -n '/^✗/p' "$work/security" | sed 's/ *$//; s/^/   /'
grep -o 'Overall exposure level.*' "$work/security" | sed 's/^/   /'

# 5. The unit itself: boot the root with systemd as PID 1.
find_nspawn() {  # the host's systemd-nspawn, or one unpacked from systemd-container's .deb
    local dir="$CACHE_DIR/systemd-container" version
    command -v systemd-nspawn && return 0
    if [ ! -x "$dir/usr/bin/systemd-nspawn" ]; then
        version=$(dpkg-query -W -f '${Version}' systemd 2>/dev/null) || return 1
        rm -f "$CACHE_DIR"/systemd-container_*.deb
        (cd "$CACHE_DIR" && { apt-get download -q "systemd-container=$version" || apt-get download -q systemd-container; }) \
            >/dev/null 2>&1 || return 1
        dpkg-deb -x "$CACHE_DIR"/systemd-container_*.deb "$dir"
    fi
    "$dir/usr/bin/systemd-nspawn" --version >/dev/null 2>&1 && echo "$dir/usr/bin/systemd-nspawn"
}
if [ "$boot" = yes ]; then
    if ! nspawn=$(find_nspawn); then
        phase "systemd as PID 1: skipped (no systemd-nspawn here; apt-get install systemd-container)"
    else
        phase "systemd as PID 1 (systemd-nspawn --boot): herald.service as installed"
        echo "   $nspawn ($("$nspawn" --version | head -n1))"
        if [ ${#overrides[@]} -gt 0 ]; then
            mkdir -p "$root/etc/systemd/system/herald.service.d"
            printf '[Service]\n' >"$root/etc/systemd/system/herald.service.d/prove-install.conf"
            printf 'Environment=%s\n' "${overrides[@]}" >>"$root/etc/systemd/system/herald.service.d/prove-install.conf"
            echo "   drop-in herald.service.d/prove-install.conf: ${overrides[*]}"
        fi
        boot_started=$(date +%s.%N)
        "$nspawn" --directory="$root" --boot --register=no --keep-unit --quiet </dev/null >"$work/boot.log" 2>&1 &
        nspawn_pid=$!
        wait_for_health "$port" "$nspawn_pid" || { cat "$work/boot.log" >&2; die "no /healthz from herald.service"; }
        echo "   booted, herald.service answering after $(elapsed "$boot_started") s"
        probe
        init=$(pgrep -P "$nspawn_pid" -x systemd | head -n1)
        inside=(nsenter --target "$init" --mount --uts --ipc --net --pid)
        "${inside[@]}" systemctl show herald.service --no-pager \
            -p ActiveState -p SubState -p User -p MainPID -p NRestarts -p LimitNOFILE | sed 's/^/   /' | paste -sd ' '
        main=$(pgrep -P "$init" -x herald | head -n1)
        echo "   herald's process as the kernel sees it (host PID $main):"
        grep -E '^(Uid|Gid|Groups|CapEff|CapBnd|CapAmb|NoNewPrivs|Seccomp|Seccomp_filters):' "/proc/$main/status" \
            | tr -s '\t' ' ' | sed 's/^/     /'
        echo "     $(grep 'open files' "/proc/$main/limits" | tr -s ' ')$([ "$nofile" = "$(sed -n 's/^LimitNOFILE=//p' "$root$UNIT")" ] \
            || echo " (LimitNOFILE= capped at this host's hard limit: root here lacks CAP_SYS_RESOURCE)")"
        echo "     user namespace (PrivateUsers=): $(awk '{printf "%s→%s ", $1, $2}' "/proc/$main/uid_map")"
        echo "     / is $(awk '$5 == "/" {print $6; exit}' "/proc/$main/mountinfo" | cut -d, -f1)," \
            "/var/lib/herald is $(awk '$5 == "/var/lib/herald" {print $6; exit}' "/proc/$main/mountinfo" | cut -d, -f1)," \
            "/home is $(awk '$5 == "/home" {print $6; exit}' "/proc/$main/mountinfo" | cut -d, -f1)"
        echo "   journal:"
        "${inside[@]}" journalctl -u herald.service -o cat --no-pager | cut -c1-160 | sed 's/^/     /'
        "${inside[@]}" systemd-analyze security herald.service --no-pager | grep -o 'Overall exposure level.*' \
            | sed 's/^/   online: /'
        stop_started=$(date +%s.%N)
        "${inside[@]}" systemctl stop herald.service
        echo "   systemctl stop herald: $(elapsed "$stop_started") s," \
            "$("${inside[@]}" systemctl show herald.service -p ActiveState -p Result -p ExecMainStatus --no-pager | paste -sd ' ')"
        kill -TERM "$nspawn_pid"   # nspawn powers the container off
        for _ in $(seq 120); do kill -0 "$nspawn_pid" 2>/dev/null || break; sleep 0.5; done
        wait "$nspawn_pid" && status=0 || status=$?
        nspawn_pid=""
        echo "   powered off (systemd-nspawn exit $status)"
    fi
fi

phase "cleaning up"
