#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# make bench, device-interrupt rows (docs/devices.md): guests/devirq owns the
# HPET (its registers by mmio =, a comparator on GSI 20 by irqs =) and times
# each interrupt from the comparator (the main counter converted to the TSC)
# to its handler's entry: bare metal, then as a Tempo partition in direct
# mode (no exit), inject mode (one exit each) and inject on a core shared
# with a busy neighbour in 300 us windows (an interrupt outside its window
# waits for it). Tempo boots with tsc_calibrate=pit so that the HPET is
# free. One Bochs run per row; Bochs time is one TSC tick per instruction,
# so the figures repeat. Prints a table and BENCH lines (../shared/LINES.md).
#   tests/bench/devirq.sh [OUTDIR]
set -uo pipefail
cd "$(dirname "$0")/../.."

BUILD=${BUILD:-build}
out=${1:-$BUILD/bench/devirq}
IPS=${BENCH_IPS:-50000000}
MODEL=${BENCH_MODEL:-corei7_ivy_bridge_3770k}
COUNT=${BENCH_DEVIRQ_COUNT:-1000}
INTERVAL_US=${BENCH_INTERVAL_US:-200}
SEED=${BENCH_SEED:-1}
GSI=20
TICK_US=1000
HV=$BUILD/tempo.elf
DEVIRQ=$BUILD/guests/devirq-mb2.elf
RT=$BUILD/guests/rtbench-mb2.elf
mkdir -p "$out"
rm -f "$out"/*.iso

args() {	# LABEL
	echo "role=hpet gsi=$GSI count=$COUNT interval_us=$INTERVAL_US seed=$SEED label=$1"
}

# make_iso NAME MODE SHARED(1|2)
make_iso() {
	local cfg=$out/$1.cfg
	if [ "$2" = bare ]; then
		boot/mkiso.sh "$out/$1.iso" "$DEVIRQ" "exit=emu $(args "$1")" > /dev/null
		return
	fi
	{
		printf '[hypervisor]\ntick_us = %s\n\n' "$TICK_US"
		printf '[partition hpet]\ncpus = 1\nmemory = 16M\nimage = devirq-mb2\n'
		printf 'cmdline = "%s"\ntimer = %s\n' "$(args "$1")" "$2"
		printf 'mmio = 0xfed00000+0x1000\nirqs = %s\n' "$GSI"
		if [ "$3" -gt 1 ]; then
			printf '\n[partition busy]\ncpus = 1\nmemory = 16M\nimage = rtbench-mb2\n'
			# busy for about three times the measurement (half the core is its)
			printf 'cmdline = "workload=fixed wait=busy count=%s interval_us=%s label=busy"\n' \
				"$((COUNT * 3))" "$INTERVAL_US"
			printf 'timer = %s\n\n[schedule 1]\nwindow = hpet 300\nwindow = busy 300\n' "$2"
		fi
	} > "$cfg"
	boot/mkiso.sh "$out/$1.iso" "$HV" "exit=emu tsc_calibrate=pit" "$cfg:partitions" \
		"$DEVIRQ:devirq-mb2" "$RT:rtbench-mb2" > /dev/null
}

# Each row: name mode shared
ROWS="devirq-bare bare 1
devirq-direct direct 1
devirq-inject inject 1
devirq-shared2-inject inject 2"
# only these rows (names, space-separated); unset: every row
ONLY=${BENCH_ROWS:-}
if [ -n "$ONLY" ]; then
	ROWS=$(echo "$ROWS" | while read -r name rest; do
		[[ " $ONLY " == *" $name "* ]] && echo "$name $rest"; done)
fi

pids=()
while read -r name mode shared; do
	make_iso "$name" "$mode" "$shared"
	cpus=2
	[ "$mode" = bare ] && cpus=1
	echo "devirq bench: $name (Bochs, $cpus CPUs)"
	tests/emu/run.sh --emu bochs --cpus "$cpus" --model "$MODEL" --ips "$IPS" --timeout 900 \
		--iso "$out/$name.iso" --out "$out/$name" > "$out/$name.run" 2>&1 &
	pids+=($!)
	if [ ${#pids[@]} -ge "${BENCH_JOBS:-2}" ]; then
		wait "${pids[0]}"
		pids=("${pids[@]:1}")
	fi
done <<< "$ROWS"
wait

serial() { tr -d '\r' < "$out/$1/serial.txt"; }
kv() { echo "$1" | tr ' ' '\n' | sed -n "s/^$2=//p" | head -n 1; }

status=0
lines=()
avg_bare=0 p99_bare=0
printf '\n%-24s %-7s %3s %6s %8s %6s %7s %7s %7s %7s %8s %8s\n' row mode sh events irq_ex/ev waited \
	lat_min lat_avg lat_p99 lat_max d_avg d_p99
while read -r name mode shared; do
	if ! grep -q ': pass' "$out/$name.run"; then
		echo "devirq bench: $name FAILED: $(cat "$out/$name.run")"
		status=1
		continue
	fi
	r=$(serial "$name" | grep -E '^(\[hpet\] )?DEVIRQ ' | head -n 1 | sed 's/^\[hpet\] //')
	if [ -z "$r" ]; then
		echo "devirq bench: $name: no DEVIRQ line"
		status=1
		continue
	fi
	events=$(kv "$r" events) lost=$(kv "$r" lost)
	avg=$(kv "$r" lat_avg_ticks) p99=$(kv "$r" lat_p99_ticks)
	epe=na waited=na d_avg=na d_p99=na
	if [ "$mode" = bare ]; then
		avg_bare=$avg p99_bare=$p99
		shared=na
	else
		dev=$(serial "$name" | grep '^DEVICES partition=hpet ')
		epe=$(awk -v e="$(kv "$dev" irq_exits)" -v n="$events" 'BEGIN { printf "%.3f", n ? e / n : 0 }')
		waited=$(kv "$dev" irq_waited)
		d_avg=$((avg - avg_bare)) d_p99=$((p99 - p99_bare))
	fi
	printf '%-24s %-7s %3s %6s %8s %6s %7s %7s %7s %7s %8s %8s\n' "$name" "$mode" "$shared" \
		"$events" "$epe" "$waited" "$(kv "$r" lat_min_ticks)" "$avg" "$p99" \
		"$(kv "$r" lat_max_ticks)" "$d_avg" "$d_p99"
	[ "$lost" = 0 ] || { echo "devirq bench: $name lost=$lost"; status=1; }
	lines+=("BENCH row=$name mode=$mode guest=devirq workload=hpet shared=$shared neighbour=$([ "$shared" = 2 ] && echo busy || echo none) events=$events exits_per_event=na irq_exits_per_event=$epe irq_waited=$waited lat_min_ticks=$(kv "$r" lat_min_ticks) lat_avg_ticks=$avg lat_p99_ticks=$p99 lat_max_ticks=$(kv "$r" lat_max_ticks) lat_avg_over_bare_ticks=$d_avg lat_p99_over_bare_ticks=$d_p99 lost=$lost cpu_model=$MODEL ips=$IPS tick_us=$TICK_US seed=$SEED")
done <<< "$ROWS"
echo
printf '%s\n' "${lines[@]}" | tee "$out/bench.txt"
exit $status
