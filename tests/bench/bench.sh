#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# make bench: the RT latency guest bare metal, then under Tempo in direct,
# inject and emulated mode (and direct with a busy neighbour), each in its own
# Bochs run with the same settings; the tgl- rows repeat the main ones on
# tigerlake (APIC virtualization) beside the reference model. Bochs time is deterministic (one TSC tick
# per instruction), so every figure is exact and repeats run to run.
# Prints one table for people and BENCH lines (../shared/LINES.md).
#   tests/bench/bench.sh [OUTDIR]
set -uo pipefail
cd "$(dirname "$0")/../.."

BUILD=${BUILD:-build}
out=${1:-$BUILD/bench}
IPS=${BENCH_IPS:-50000000}
MODEL=${BENCH_MODEL:-corei7_ivy_bridge_3770k}
COUNT=${BENCH_COUNT:-1000}
INTERVAL_US=${BENCH_INTERVAL_US:-200}
SEED=${BENCH_SEED:-1}
TICK_US=1000
# tick_slack_us for the Tempo rows (unset: the config's default, tick_us / 4)
SLACK_US=${BENCH_SLACK_US:-}
# only these rows (names, space-separated); unset: every row
ONLY=${BENCH_ROWS:-}
# Bochs runs at a time
JOBS=${BENCH_JOBS:-2}
# the periodic workload: one event per host tick, fewer events (each is a tick long)
PERIODIC_COUNT=${BENCH_PERIODIC_COUNT:-$((COUNT / 4))}
HV=$BUILD/tempo.elf
RT=$BUILD/guests/rtbench-mb2.elf
mkdir -p "$out"
rm -f "$out"/*.iso

guest_args() {	# LABEL WORKLOAD
	local extra="" wl=$2 count=$COUNT interval=$INTERVAL_US
	[ "$2" = rewrite-later ] && extra=" rewrites=3"
	# periodic: fixed intervals of one host tick (the guest's deadlines
	# phase-locked to the host ticks)
	[ "$2" = periodic ] && wl=fixed count=$PERIODIC_COUNT interval=$TICK_US
	echo "workload=$wl count=$count interval_us=$interval seed=$SEED label=$1$extra"
}

# make_tempo_iso NAME MODE WORKLOAD NEIGHBOUR(none|busy) SHARED(1|2|3)
# SHARED > 1: rt and SHARED-1 neighbours share CPU 1 in 300 us windows.
make_tempo_iso() {
	local cfg=$out/$1.cfg n
	{
		printf '[hypervisor]\ntick_us = %s\n' "$TICK_US"
		[ -n "$SLACK_US" ] && printf 'tick_slack_us = %s\n' "$SLACK_US"
		printf '\n'
		printf '[partition rt]\ncpus = 1\nmemory = 16M\nimage = rtbench-mb2\n'
		printf 'cmdline = "%s"\ntimer = %s\n' "$(guest_args "$1" "$3")" "$2"
		if [ "$4" = busy ]; then
			printf '\n[partition busy]\ncpus = 2\nmemory = 16M\nimage = rtbench-mb2\n'
			printf 'cmdline = "workload=random wait=busy count=%s interval_us=50 seed=7 label=neighbour"\n' \
				"$((COUNT * INTERVAL_US / 50))"
			printf 'timer = direct\n'
		fi
		for ((n = 2; n <= $5; n++)); do
			printf '\n[partition n%s]\ncpus = 1\nmemory = 16M\nimage = rtbench-mb2\n' "$n"
			printf 'cmdline = "workload=fixed wait=busy count=%s interval_us=%s seed=%s label=n%s"\n' \
				"$COUNT" "$INTERVAL_US" "$n" "$n"
			printf 'timer = %s\n' "$2"
		done
		if [ "$5" -gt 1 ]; then
			printf '\n[schedule 1]\nwindow = rt 300\n'
			for ((n = 2; n <= $5; n++)); do printf 'window = n%s 300\n' "$n"; done
		fi
	} > "$cfg"
	boot/mkiso.sh "$out/$1.iso" "$HV" "exit=emu" "$cfg:partitions" "$RT:rtbench-mb2"
}

run_one() {	# NAME CPUS MODEL
	tests/emu/run.sh --emu bochs --cpus "$2" --model "$3" --ips "$IPS" --timeout 900 \
		--iso "$out/$1.iso" --out "$out/$1" > "$out/$1.run" 2>&1
}

# Each row: name mode workload neighbour shared [model]; no model: $MODEL.
# The tgl- rows: the same workloads on tigerlake, the model with APIC
# virtualization (inject and emulated take no EOI exit there: the EOI is
# virtualized, SDM Vol. 3C 29.1.4).
TGL=${BENCH_TGL_MODEL:-tigerlake}
ROWS="bare-fixed bare fixed none 1
bare-random bare random none 1
bare-rewrite-later bare rewrite-later none 1
bare-rewrite-earlier bare rewrite-earlier none 1
bare-periodic bare periodic none 1
direct-fixed direct fixed none 1
direct-random direct random none 1
direct-periodic direct periodic none 1
direct-rewrite-later direct rewrite-later none 1
inject-fixed inject fixed none 1
inject-random inject random none 1
emulated-fixed emulated fixed none 1
emulated-random emulated random none 1
pv-lazy-fixed pv-lazy fixed none 1
direct-fixed-busy direct fixed busy 1
emulated-rewrite-later emulated rewrite-later none 1
pv-lazy-rewrite-later pv-lazy rewrite-later none 1
emulated-rewrite-earlier emulated rewrite-earlier none 1
pv-lazy-rewrite-earlier pv-lazy rewrite-earlier none 1
shared2-inject-fixed inject fixed none 2
shared2-emulated-fixed emulated fixed none 2
shared2-pv-lazy-fixed pv-lazy fixed none 2
shared2-emulated-rewrite-later emulated rewrite-later none 2
shared2-pv-lazy-rewrite-later pv-lazy rewrite-later none 2
shared3-pv-lazy-fixed pv-lazy fixed none 3
shared3-inject-fixed inject fixed none 3
tgl-bare-fixed bare fixed none 1 $TGL
tgl-bare-random bare random none 1 $TGL
tgl-direct-fixed direct fixed none 1 $TGL
tgl-direct-random direct random none 1 $TGL
tgl-inject-fixed inject fixed none 1 $TGL
tgl-inject-random inject random none 1 $TGL
tgl-emulated-fixed emulated fixed none 1 $TGL
tgl-emulated-random emulated random none 1 $TGL
tgl-pv-lazy-fixed pv-lazy fixed none 1 $TGL
tgl-shared2-inject-fixed inject fixed none 2 $TGL
tgl-shared2-emulated-fixed emulated fixed none 2 $TGL"
if [ -n "$ONLY" ]; then
	ROWS=$(echo "$ROWS" | while read -r name rest; do
		[[ " $ONLY " == *" $name "* ]] && echo "$name $rest"; done)
fi

total=$(echo "$ROWS" | wc -l)
i=0
echo "bench: building $total images"
while read -r name mode workload neigh shared model; do
	if [ "$mode" = bare ]; then
		boot/mkiso.sh "$out/$name.iso" "$RT" "exit=emu $(guest_args "$name" "$workload")"
	else
		make_tempo_iso "$name" "$mode" "$workload" "$neigh" "$shared"
	fi
done <<< "$ROWS"

# BENCH_JOBS Bochs runs at a time (default two: the machine has two cores)
pids=()
while read -r name mode workload neigh shared model; do
	i=$((i + 1))
	cpus=1
	[ "$mode" != bare ] && cpus=3
	echo "bench: [$i/$total] $name (Bochs ${model:-$MODEL}, $cpus CPUs)"
	run_one "$name" "$cpus" "${model:-$MODEL}" &
	pids+=($!)
	if [ ${#pids[@]} -ge "$JOBS" ]; then
		wait "${pids[0]}"
		pids=("${pids[@]:1}")
	fi
done <<< "$ROWS"
wait

serial() { tr -d '\r' < "$out/$1/serial.txt"; }
# field LINE KEY
field() { echo "$1" | tr ' ' '\n' | sed -n "s/^$2=//p" | head -n 1; }

# the short exit's re-arm cost, from the first Tempo row that ran (BENCH_ROWS may leave out direct-fixed)
rearm=$(for d in "$out"/*/serial.txt; do tr -d '\r' < "$d"; done 2>/dev/null |
	sed -n 's/^TIMER_COST .*rearm_instr=\([0-9]*\).*/\1/p' | head -n 1)
declare -A p99_bare
status=0
lines=()
printf '\n%-30s %-8s %-15s %3s %6s %8s %6s %7s %7s %7s %7s %7s %9s %6s %6s %6s %6s\n' row \
	mode workload sh events exits/ev tick_ex lat_min lat_avg lat_p99 lat_max ratio tick_late \
	msr/1k win_jit hits slack
while read -r name mode workload neigh shared model; do
	model=${model:-$MODEL}
	if ! grep -q ': pass' "$out/$name.run"; then
		echo "bench: $name FAILED: $(cat "$out/$name.run")"
		status=1
		continue
	fi
	rt=$(serial "$name" | grep -E '^(\[rt\] )?RTBENCH ' | head -n 1 | sed 's/^\[rt\] //')
	if [ -z "$rt" ]; then
		echo "bench: $name: no RTBENCH line"
		status=1
		continue
	fi
	events=$(field "$rt" events)
	min=$(field "$rt" lat_min_ticks) avg=$(field "$rt" lat_avg_ticks)
	p99=$(field "$rt" lat_p99_ticks) max=$(field "$rt" lat_max_ticks)
	lost=$(field "$rt" lost) early=$(field "$rt" early)
	epe=na tick=na late=na msr=na rearm_k=na jit=na hits=na slack=na
	if [ "$mode" = bare ]; then
		p99_bare[$model/$workload]=$p99
		shared=na
	else
		[ "$shared" -gt 1 ] && jit=$(serial "$name" | sed -n 's/^WINDOW cpu=1 .*start_late_max_ticks=\([0-9]*\).*/\1/p' |
			sort -n | tail -n 1)
		mapfile -t st < <(serial "$name" | grep -E '^VCPU_STATS partition=rt vcpu=0 ')
		if [ ${#st[@]} -ge 2 ]; then
			a=${st[0]} b=${st[1]}
			# the window's exits, less the closing stats hypercall itself
			ex=$(($(field "$b" exits) - $(field "$a" exits) - 1))
			tick=$(($(field "$b" tick_exits) - $(field "$a" tick_exits)))
			# host-tick exits that delayed a guest timer interrupt
			[ -n "$(field "$b" tick_hits)" ] &&
				hits=$(($(field "$b" tick_hits) - $(field "$a" tick_hits)))
			wr=$(($(field "$b" deadline_write_exits) - $(field "$a" deadline_write_exits)))
			epe=$(awk -v e="$ex" -v n="$events" 'BEGIN { printf "%.3f", n ? e / n : 0 }')
			# deadline writes per event: 1, 2 (rewrite-earlier), 4 (rewrite-later: 3 + the last)
			writes=$events
			[ "$workload" = rewrite-earlier ] && writes=$((events * 2))
			[ "$workload" = rewrite-later ] && writes=$((events * 4))
			msr=$(awk -v w="$wr" -v n="$writes" 'BEGIN { printf "%.0f", n ? w * 1000 / n : 0 }')
		fi
		late=$(serial "$name" | sed -n 's/^HOSTTICK cpu=1 .*late_max_ticks=\([0-9]*\).*/\1/p')
		slack=$(serial "$name" |
			sed -n 's/^HOSTTICK cpu=1 .*slack_ticks=\([0-9]*\).*/\1/p')
		rearm_k=${rearm:-na}
	fi
	ratio=na
	[ -n "${p99_bare[$model/$workload]:-}" ] && [ "${p99_bare[$model/$workload]}" -gt 0 ] &&
		ratio=$(awk -v a="$p99" -v b="${p99_bare[$model/$workload]}" 'BEGIN { printf "%.2f", a / b }')
	printf '%-30s %-8s %-15s %3s %6s %8s %6s %7s %7s %7s %7s %7s %9s %6s %6s %6s %6s\n' "$name" \
		"$mode" "$workload" "$shared" "$events" "$epe" "$tick" "$min" "$avg" "$p99" "$max" \
		"$ratio" "${late:-na}" "$msr" "${jit:-na}" "$hits" "${slack:-na}"
	[ "$lost" = 0 ] && [ "$early" = 0 ] || { echo "bench: $name lost=$lost early=$early"; status=1; }
	lines+=("BENCH row=$name mode=$mode guest=rtbench workload=$workload shared=$shared neighbour=$neigh events=$events exits_per_event=$epe tick_exits=$tick lat_min_ticks=$min lat_avg_ticks=$avg lat_p99_ticks=$p99 lat_max_ticks=$max ratio_p99=$ratio tick_late_max_ticks=${late:-na} tick_hits=$hits tick_slack_ticks=${slack:-na} short_exit_timer_instr=$rearm_k msr_exits_per_1k_writes=$msr window_jitter_max_ticks=${jit:-na} cyc_min_us=na cyc_avg_us=na cyc_max_us=na lost=$lost early=$early cpu_model=$model ips=$IPS tick_us=$TICK_US seed=$SEED")
done <<< "$ROWS"
echo
printf '%s\n' "${lines[@]}" | tee "$out/bench.txt"
exit $status
