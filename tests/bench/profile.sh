#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# make bench-profile: where an exit's instructions go. Runs bench rows on the
# profile build (make PROFILE=1: the TSC stamped at the exit stub, the
# dispatch, the handler, the virtual delivery, the timer's arming and the
# entry; hv/ops/prof.h) and prints, for the measured partition, a table of
# each path's segments (instructions per exit, Bochs: one TSC tick each) and
# the BENCH_PATH lines (../shared/LINES.md grammar).
#   tests/bench/profile.sh [OUTDIR]   (BENCH_ROWS: the rows, default below)
set -uo pipefail
cd "$(dirname "$0")/../.."

out=${1:-build/bench-profile}
rows=${BENCH_ROWS:-emulated-fixed emulated-random inject-random pv-lazy-fixed direct-random}
make -s PROFILE=1 all || exit 1
BUILD=build-profile BENCH_ROWS="$rows" tests/bench/bench.sh "$out" > "$out.log" 2>&1 ||
	{ echo "profile: a row failed (see $out.log)"; tail -n 20 "$out.log"; exit 1; }
segs="stub dispatch handler tail delivery arm entry total"
printf '\nExit path profile: instructions per exit by segment (Bochs, one tick each)\n'
printf '%-18s %-5s %-20s %7s' row path reason exits
for s in $segs; do printf ' %8s' "$s"; done
printf ' %9s\n' late_avg
for r in $rows; do
	tr -d '\r' < "$out/$r/serial.txt" | grep '^BENCH_PATH partition=rt ' | while read -r line; do
		kv() { echo "$line" | tr ' ' '\n' | sed -n "s/^$1=//p"; }
		[ "$(kv exits)" -ge 10 ] || continue	# the boot's few CPUIDs and prints
		printf '%-18s %-5s %-20s %7s' "$r" "$(kv path)" "$(kv reason)" "$(kv exits)"
		for s in $segs; do printf ' %8s' "$(kv "${s}_instr")"; done
		printf ' %9s\n' "$(kv exit_late_avg_ticks)"
	done
done
printf '\n'
for r in $rows; do
	tr -d '\r' < "$out/$r/serial.txt" | grep '^BENCH_PATH partition=rt ' | sed "s/^BENCH_PATH /BENCH_PATH row=$r /"
done | tee "$out/bench_path.txt"
