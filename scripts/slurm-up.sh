#!/usr/bin/env bash
# Starts a single-node Slurm cluster on this machine (Debian 12's Slurm 22.05, no systemd needed)
# for `make test-cluster`, which submits a world's emitted bake.sbatch to it. Idempotent: installs
# slurmctld, slurmd, slurm-client and munge with apt only when missing, writes
# /etc/slurm/slurm.conf (only if absent or written by this script), starts munged, slurmctld and
# slurmd only when they are not running, and waits until sinfo shows the node idle.
#
#   bash scripts/slurm-up.sh          # up (a second call is a no-op that checks)
#   bash scripts/slurm-up.sh down     # stops the three daemons this script starts, by pid file
#
# Needs root (the daemons, apt). The node line is `slurmd -C`'s (this machine's CPUs and memory);
# CR_Core_Memory makes --mem count (with CR_Core it is ignored), and batch_sched_delay=0 starts
# array tasks at once instead of 3 s apart.
set -euo pipefail
conf=/etc/slurm/slurm.conf
marker="# written by strata scripts/slurm-up.sh"
state=/var/lib/slurm
logs=/var/log/slurm
run=/run/slurm

fail() { echo "slurm-up: $*" >&2; exit 1; }
[ "$(id -u)" -eq 0 ] || fail "needs root (it installs packages and starts daemons)"

# alive PIDFILE: whether the process named in PIDFILE runs.
alive() { [ -s "$1" ] && kill -0 "$(cat "$1")" 2>/dev/null; }

if [ "${1:-up}" = down ]; then
  for p in "$run/slurmd.pid" "$run/slurmctld.pid" /run/munge/munged.pid; do
    alive "$p" || continue
    pid=$(cat "$p")
    kill "$pid"
    for _ in $(seq 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    kill -0 "$pid" 2>/dev/null && fail "$(basename "$p" .pid) ($pid) is still running 10 s after SIGTERM"
    echo "slurm-up: stopped $(basename "$p" .pid)"
  done
  exit 0
fi

pkgs=(slurmctld slurmd slurm-client munge)
missing=()
for p in "${pkgs[@]}"; do
  [ "$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)" = "install ok installed" ] || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "slurm-up: installing ${missing[*]}" >&2
  apt-get update -qq
  # policy-rc.d or no init system: the packages' own start attempts fail harmlessly.
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

# munge: the key (the package makes one), its socket folder, the daemon as the munge user.
[ -s /etc/munge/munge.key ] || { mungekey --create >/dev/null 2>&1 || create-munge-key -f; chown munge:munge /etc/munge/munge.key; }
install -d -o munge -g munge -m 0755 /run/munge
if ! alive /run/munge/munged.pid; then
  runuser -u munge -- /usr/sbin/munged
fi
for _ in $(seq 50); do munge -n 2>/dev/null | unmunge >/dev/null 2>&1 && break; sleep 0.1; done
munge -n | unmunge >/dev/null || fail "munged does not answer (see /var/log/munge/munged.log)"

# slurm.conf from this machine's own description.
host=$(hostname -s)
node=$(slurmd -C | sed -n 's/^\(NodeName=.*\)$/\1/p')
[ -n "$node" ] || fail "slurmd -C printed no NodeName line"
mem=$(sed -n 's/.*RealMemory=\([0-9]*\).*/\1/p' <<<"$node")
cpus=$(sed -n 's/.*CPUs=\([0-9]*\).*/\1/p' <<<"$node")
want="$marker
ClusterName=strata
SlurmctldHost=$host
SlurmUser=slurm
AuthType=auth/munge
MpiDefault=none
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
ReturnToService=2
SlurmctldPidFile=$run/slurmctld.pid
SlurmdPidFile=$run/slurmd.pid
StateSaveLocation=$state/slurmctld
SlurmdSpoolDir=$state/slurmd
SlurmctldLogFile=$logs/slurmctld.log
SlurmdLogFile=$logs/slurmd.log
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core_Memory
DefMemPerCPU=$((mem / cpus))
SchedulerParameters=batch_sched_delay=0
MinJobAge=600
$node
PartitionName=main Nodes=ALL Default=YES MaxTime=INFINITE State=UP"
if [ -e "$conf" ] && ! head -n 1 "$conf" | grep -qF "$marker"; then
  fail "$conf exists and was not written by this script: not touching it"
fi
changed=""
if [ ! -e "$conf" ] || [ "$(cat "$conf")" != "$want" ]; then
  printf '%s\n' "$want" >"$conf"
  changed=yes
  echo "slurm-up: wrote $conf ($node)" >&2
fi
install -d -o slurm -g slurm "$state/slurmctld" "$logs"
install -d "$state/slurmd" "$run"
chown slurm:slurm "$run"

if [ -n "$changed" ] && alive "$run/slurmctld.pid"; then
  scontrol reconfigure || true
fi
if ! alive "$run/slurmctld.pid"; then
  slurmctld || fail "slurmctld does not start: $(tail -n 3 $logs/slurmctld.log 2>/dev/null)"
fi
if ! alive "$run/slurmd.pid"; then
  slurmd || fail "slurmd does not start: $(tail -n 3 $logs/slurmd.log 2>/dev/null)"
fi

# Wait for the node: idle (or mixed/allocated when jobs already run); a node left down by an
# earlier run is resumed.
for i in $(seq 300); do
  st=$(sinfo -h -N -n "$host" -o '%t' 2>/dev/null | head -n 1 || true)
  case "$st" in
    idle|mix|alloc) echo "slurm-up: node $host $st ($(sinfo -h -N -n "$host" -o '%c CPUs, %m MiB'))"; exit 0 ;;
    down*|drain*) [ $((i % 20)) -eq 1 ] && scontrol update nodename="$host" state=resume 2>/dev/null || true ;;
  esac
  sleep 0.2
done
fail "the node $host is not idle after 60 s: $(sinfo -N 2>&1 | tail -n 1); see $logs/slurmctld.log and $logs/slurmd.log"
