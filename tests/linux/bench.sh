#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The Linux rows of the benchmark: cyclictest in a Tempo Linux partition in
# direct and in emulated mode (each beside the latency guest on another CPU),
# in direct mode alone (the same three-CPU Bochs, its neighbour left out),
# and the same kernel and initramfs bare metal in the same emulator. Prints a
# table and one BENCH line per row (../shared/LINES.md, guest=linux).
#   tests/linux/bench.sh OUTDIR [direct|alone|emulated|bare ...]
# Needs the images: make linux-image linux-test-images (make bench does it).
#
# Figures per Tempo row, between the two VCPU_STATS lines the guest's
# tempo-stats prints around cyclictest (CPUID 0x40000011):
#   events              local timer interrupts Linux took meanwhile (LOC)
#   exits_per_event     all exits of the Linux vCPU / events (host ticks included)
#   tick_exits          of those, host-tick exits
#   tick_hits           host-tick exits (and deferrals) that delayed a Linux timer interrupt
#   tick_busy           host-tick exits that found Linux running, not idle in HLT:
#                       ticks inside its work (a wake-up's), which tick_hits does not see
#   msr_exits_per_1k_events  trapped IA32_TSC_DEADLINE writes per 1,000 events
# and from the hypervisor's HOSTTICK line, the worst host-tick lateness on
# the Linux CPU over the whole run (boot included).
set -uo pipefail
cd "$(dirname "$0")/../.."

out=${1:?usage: $0 OUTDIR [direct|alone|emulated|bare ...]}
shift
rows=("$@")
[ ${#rows[@]} -gt 0 ] || rows=(direct alone emulated bare)
BUILD=${BUILD:-build}
ips=50000000 model=corei7_ivy_bridge_3770k
mkdir -p "$out"

# serial, kv, linux_line: the emulator tests' helpers
# shellcheck source=tests/emu/lib.sh
. tests/emu/lib.sh
# shellcheck source=tests/emu/linux.sh
. tests/emu/linux.sh

declare -A cyc_min cyc_avg cyc_max cyc_p99 cyc_p999 events epe ticks msr1k late hits busy
run_tempo() {	# MODE
	local d=$out/$1 a b n dexits
	tests/emu/run.sh --emu bochs --cpus 3 --mem 512 --timeout 1500 \
		--iso "$BUILD/test/linux-$1.iso" --out "$d" --expect ok > "$d.log" 2>&1 ||
		{ echo "$1: the run failed (see $d)" >&2; return 1; }
	a=$(serial "$d" | grep -E '^VCPU_STATS partition=linux vcpu=0 ' | sed -n 1p)
	b=$(serial "$d" | grep -E '^VCPU_STATS partition=linux vcpu=0 ' | sed -n 2p)
	[ -n "$a" ] && [ -n "$b" ] || { echo "$1: no VCPU_STATS pair from tempo-stats" >&2; return 1; }
	n=$(kv "$(linux_line "$d" LINUX_TIMER_IRQS)" events)
	[ -n "$n" ] && [ "$n" -gt 0 ] || { echo "$1: no LINUX_TIMER_IRQS line" >&2; return 1; }
	dexits=$(($(kv "$b" exits) - $(kv "$a" exits)))
	events[$1]=$n
	epe[$1]=$(awk -v e="$dexits" -v n="$n" 'BEGIN { printf "%.3f", e / n }')
	ticks[$1]=$(($(kv "$b" tick_exits) - $(kv "$a" tick_exits)))
	# host-tick exits that delayed one of Linux's timer interrupts (0 in emulated mode)
	hits[$1]=$(($(kv "$b" tick_hits) - $(kv "$a" tick_hits)))
	busy[$1]=$(($(kv "$b" tick_busy) - $(kv "$a" tick_busy)))
	msr1k[$1]=$(( ($(kv "$b" deadline_write_exits) - $(kv "$a" deadline_write_exits)) * 1000 / n ))
	late[$1]=$(kv "$(serial "$d" | grep -E '^HOSTTICK cpu=1 ')" late_max_ticks)
	cyc "$1" "$d"
}

cyc() {	# ROW DIR
	local line
	line=$(linux_line "$2" LINUX_CYCLICTEST)
	cyc_min[$1]=$(kv "$line" min_us) cyc_avg[$1]=$(kv "$line" avg_us) cyc_max[$1]=$(kv "$line" max_us)
	cyc_p99[$1]=$(kv "$line" p99_us) cyc_p999[$1]=$(kv "$line" p999_us)
	[ -n "${cyc_p99[$1]}" ] || cyc_p99[$1]=na
	[ -n "${cyc_p999[$1]}" ] || cyc_p999[$1]=na
	[ -n "${cyc_max[$1]}" ] && [ "${cyc_max[$1]}" != na ] ||
		{ echo "$1: cyclictest did not complete" >&2; return 1; }
}

run_bare() {
	tests/linux/bare.sh "$BUILD/linux" --loops 10000 --timeout 1500 > "$out/bare.log" 2>&1 ||
		{ echo "bare: the run failed (see $out/bare.log)" >&2; return 1; }
	rm -rf "$out/bare"
	cp -r "$BUILD/linux/bare/run" "$out/bare"
	events[bare]=na epe[bare]=na ticks[bare]=na msr1k[bare]=na late[bare]=na hits[bare]=na
	busy[bare]=na
	cyc bare "$out/bare"
}

status=0
done_rows=()
for r in "${rows[@]}"; do
	echo "linux bench: $r ..." >&2
	case $r in
	direct | alone | emulated) run_tempo "$r" ;;
	bare) run_bare ;;
	*) echo "unknown row $r" >&2; false ;;
	esac && done_rows+=("$r") || status=1
done

printf '%-16s %8s %9s %7s %9s %9s %6s %6s %8s %8s %8s %8s %8s\n' row events exits/ev tick_ex \
	msr/1k_ev tick_late hits busy cyc_min cyc_avg cyc_p99 cyc_p999 cyc_max
for r in "${done_rows[@]}"; do
	printf '%-16s %8s %9s %7s %9s %9s %6s %6s %8s %8s %8s %8s %8s\n' "linux-$r" "${events[$r]}" \
		"${epe[$r]}" "${ticks[$r]}" "${msr1k[$r]}" "${late[$r]}" "${hits[$r]}" "${busy[$r]}" \
		"${cyc_min[$r]}" "${cyc_avg[$r]}" "${cyc_p99[$r]}" "${cyc_p999[$r]}" "${cyc_max[$r]}"
done
for r in "${done_rows[@]}"; do
	neighbour=busy mode=$r
	case $r in
	bare) neighbour=none ;;
	alone) neighbour=none mode=direct ;;
	esac
	echo "BENCH mode=$mode guest=linux workload=cyclictest shared=1 neighbour=$neighbour" \
		"events=${events[$r]} exits_per_event=${epe[$r]} tick_exits=${ticks[$r]}" \
		"lat_min_ticks=na lat_avg_ticks=na lat_p99_ticks=na lat_max_ticks=na ratio_p99=na" \
		"tick_late_max_ticks=${late[$r]} tick_hits=${hits[$r]} tick_busy=${busy[$r]}" \
		"short_exit_timer_instr=na" \
		"msr_exits_per_1k_writes=na msr_exits_per_1k_events=${msr1k[$r]}" \
		"window_jitter_max_ticks=na cyc_min_us=${cyc_min[$r]} cyc_avg_us=${cyc_avg[$r]}" \
		"cyc_p99_us=${cyc_p99[$r]} cyc_p999_us=${cyc_p999[$r]}" \
		"cyc_max_us=${cyc_max[$r]} cpu_model=$model ips=$ips" \
		"tick_us=$([ "$r" = bare ] && echo na || echo 1000) seed=na"
done
exit $status
