#!/usr/bin/env bash
# Runs a command and prints, besides its own output, the peaks of its resident set sampled every
# 10 ms from /proc/PID/status: VmRSS (all), RssAnon (the heap and other private memory: what the
# process needs) and RssFile (file pages mapped, among them planes on disk: page cache the kernel
# can take back). getrusage's peak (/usr/bin/time -v) is VmRSS's true high-water mark; the samples
# say what it was made of. Usage: bash scripts/peakrss.sh COMMAND [ARGS...]
set -u
"$@" &
pid=$!
max_rss=0 max_anon=0 max_file=0
# Until the process has exited (a zombie, State Z, no longer has a resident set to sample).
while [ -r "/proc/$pid/status" ] && ! grep -q '^State:[[:space:]]*Z' "/proc/$pid/status" 2>/dev/null; do
	if s=$(awk '/^VmRSS:/{r=$2} /^RssAnon:/{a=$2} /^RssFile:/{f=$2} END{print r+0, a+0, f+0}' "/proc/$pid/status" 2>/dev/null); then
		read -r r a f <<<"$s"
		((r > max_rss)) && max_rss=$r
		((a > max_anon)) && max_anon=$a
		((f > max_file)) && max_file=$f
	fi
	sleep 0.01
done
wait "$pid"
rc=$?
echo "peakrss: sampled peaks VmRSS $((max_rss / 1024)) MiB, RssAnon $((max_anon / 1024)) MiB, RssFile $((max_file / 1024)) MiB (exit $rc)" >&2
exit $rc
