#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# make bench, doorbell rows (docs/channels.md): guests/chan in two partitions,
# one-way doorbells (the sender's TSC before its ring to the receiver's
# handler) and round trips, with each side's exits per doorbell. One Bochs run
# per row; Bochs time is one TSC tick per instruction, so the figures repeat.
# Prints a table and BENCH lines (../shared/LINES.md).
#   tests/bench/doorbell.sh [OUTDIR]
set -uo pipefail
cd "$(dirname "$0")/../.."

BUILD=${BUILD:-build}
out=${1:-$BUILD/bench/doorbell}
IPS=${BENCH_IPS:-50000000}
MODEL=${BENCH_MODEL:-corei7_ivy_bridge_3770k}
COUNT=${BENCH_DOORBELLS:-10000}
RTT=${BENCH_ROUND_TRIPS:-1000}
TICK_US=1000
HV=$BUILD/tempo.elf
CHAN=$BUILD/guests/chan-mb2.elf
RT=$BUILD/guests/rtbench-mb2.elf
mkdir -p "$out"

# make_iso NAME SEND_MODE RECV_MODE SHARED(1|2) VIA(hypercall|pci): SHARED 2 puts
# the receiver on CPU 2 with a busy neighbour, 300 us windows each; VIA pci has
# both guests use the channel's PCI function (MSI, rings by a MOV to BAR0)
make_iso() {
	local cfg=$out/$1.cfg
	{
		printf '[hypervisor]\ntick_us = %s\n\n' "$TICK_US"
		printf '[partition ping]\ncpus = 1\nmemory = 16M\nimage = chan-mb2\n'
		printf 'cmdline = "role=send count=%s rtt=%s via=%s"\ntimer = %s\n\n' "$COUNT" "$RTT" "$5" "$2"
		printf '[partition pong]\ncpus = 2\nmemory = 16M\nimage = chan-mb2\n'
		printf 'cmdline = "role=recv count=%s rtt=%s wait=hlt via=%s"\ntimer = %s\n\n' "$COUNT" "$RTT" "$5" "$3"
		if [ "$4" -gt 1 ]; then
			printf '[partition busy]\ncpus = 2\nmemory = 16M\nimage = rtbench-mb2\n'
			printf 'cmdline = "workload=fixed wait=busy count=100000 interval_us=200 label=busy"\n'
			printf 'timer = %s\n\n[schedule 2]\nwindow = pong 300\nwindow = busy 300\n\n' "$3"
		fi
		printf '[channel link]\nsize = 64K\npeer = ping rw\npeer = pong rw\n'
	} > "$cfg"
	boot/mkiso.sh "$out/$1.iso" "$HV" "exit=emu" "$cfg:partitions" "$CHAN:chan-mb2" \
		"$RT:rtbench-mb2" > /dev/null
}

# Each row: name sender-mode receiver-mode shared via
ROWS="doorbell-direct direct direct 1 hypercall
doorbell-pci-direct direct direct 1 pci
doorbell-recv-inject direct inject 1 hypercall
doorbell-recv-emulated direct emulated 1 hypercall
doorbell-shared2-inject direct inject 2 hypercall"

pids=()
while read -r name smode rmode shared via; do
	make_iso "$name" "$smode" "$rmode" "$shared" "$via"
	echo "doorbell bench: $name (Bochs, 3 CPUs)"
	tests/emu/run.sh --emu bochs --cpus 3 --model "$MODEL" --ips "$IPS" --timeout 900 \
		--iso "$out/$name.iso" --out "$out/$name" > "$out/$name.run" 2>&1 &
	pids+=($!)
	if [ ${#pids[@]} -ge 2 ]; then
		wait "${pids[0]}"
		pids=("${pids[@]:1}")
	fi
done <<< "$ROWS"
wait

serial() { tr -d '\r' < "$out/$1/serial.txt"; }
kv() { echo "$1" | tr ' ' '\n' | sed -n "s/^$2=//p" | head -n 1; }
# per_event NAME PARTITION EVENTS: that vCPU's exits (and tick exits) over the one-way phase, per doorbell
per_event() {
	local a b
	a=$(serial "$1" | grep "^VCPU_STATS partition=$2 vcpu=0 " | sed -n 1p)
	b=$(serial "$1" | grep "^VCPU_STATS partition=$2 vcpu=0 " | sed -n 2p)
	awk -v e=$(($(kv "$b" exits) - $(kv "$a" exits) - 1)) -v n="$3" \
		'BEGIN { printf "%.3f", n ? e / n : 0 }'
	echo " $(($(kv "$b" tick_exits) - $(kv "$a" tick_exits)))"
}

status=0
lines=()
printf '\n%-26s %-8s %-9s %3s %6s %9s %8s %7s %7s %7s %7s %7s %7s %7s\n' row sender receiver \
	sh events recv_ex/db send_ex/db tick_ex lat_min lat_avg lat_p99 lat_max rtt_avg rtt_max
while read -r name smode rmode shared via; do
	if ! grep -q ': pass' "$out/$name.run"; then
		echo "doorbell bench: $name FAILED: $(cat "$out/$name.run")"
		status=1
		continue
	fi
	r=$(serial "$name" | grep '^\[pong\] CHANTEST role=recv channel=' | sed 's/^\[pong\] //')
	l=$(serial "$name" | grep '^\[pong\] CHANTEST_LAT ' | sed 's/^\[pong\] //')
	t=$(serial "$name" | grep '^\[ping\] CHANTEST_LAT ' | sed 's/^\[ping\] //')
	events=$(kv "$r" received)
	read -r recv tick < <(per_event "$name" pong "$events")
	read -r send _ < <(per_event "$name" ping "$events")
	lost=$(($(kv "$r" lost) + $(kv "$r" doubled)))
	[ "$lost" = 0 ] && [ "$(kv "$r" checksum_ok)" = 1 ] ||
		{ echo "doorbell bench: $name: $r"; status=1; }
	printf '%-26s %-8s %-9s %3s %6s %9s %8s %7s %7s %7s %7s %7s %7s %7s\n' "$name" "$smode" \
		"$rmode" "$shared" "$events" "$recv" "$send" "$tick" "$(kv "$l" lat_min_ticks)" \
		"$(kv "$l" lat_avg_ticks)" "$(kv "$l" lat_p99_ticks)" "$(kv "$l" lat_max_ticks)" \
		"$(kv "$t" rtt_avg_ticks)" "$(kv "$t" rtt_max_ticks)"
	lines+=("BENCH mode=$rmode sender_mode=$smode guest=chan workload=doorbell via=$via shared=$shared neighbour=$([ "$shared" -gt 1 ] && echo busy || echo none) events=$events exits_per_event=$recv sender_exits_per_event=$send tick_exits=$tick lat_min_ticks=$(kv "$l" lat_min_ticks) lat_avg_ticks=$(kv "$l" lat_avg_ticks) lat_p99_ticks=$(kv "$l" lat_p99_ticks) lat_max_ticks=$(kv "$l" lat_max_ticks) rtt_min_ticks=$(kv "$t" rtt_min_ticks) rtt_avg_ticks=$(kv "$t" rtt_avg_ticks) rtt_p99_ticks=$(kv "$t" rtt_p99_ticks) rtt_max_ticks=$(kv "$t" rtt_max_ticks) lost=$lost cpu_model=$MODEL ips=$IPS tick_us=$TICK_US seed=na")
done <<< "$ROWS"
echo
printf '%s\n' "${lines[@]}" | tee "$out/bench.txt"
exit $status
