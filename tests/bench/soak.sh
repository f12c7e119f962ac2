#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# make soak: the latency guest on two partitions (direct on CPU 1, emulated on
# CPU 2) for SOAK_EVENTS guest timer events in total (default 10^6), in one
# Bochs run. Every event has a TSC timeout in the guest, so a lost interrupt
# is counted, never a hang. Ends with a SOAK line (../shared/LINES.md) and
# fails if any interrupt was lost, early or doubled, or a host tick was later
# than 1,000 TSC ticks.
set -uo pipefail
cd "$(dirname "$0")/../.."

BUILD=${BUILD:-build}
out=$BUILD/soak
EVENTS=${SOAK_EVENTS:-1000000}
IPS=50000000
MODEL=corei7_ivy_bridge_3770k
SEED=${SOAK_SEED:-11}
per=$((EVENTS / 2))
mkdir -p "$out"
cat > "$out/soak.cfg" <<CFG
[hypervisor]
tick_us = 1000

[partition d]
cpus = 1
memory = 16M
image = rtbench-mb2
cmdline = "workload=random count=$per interval_us=50 seed=$SEED label=soak-direct"
timer = direct

[partition e]
cpus = 2
memory = 16M
image = rtbench-mb2
cmdline = "workload=random count=$per interval_us=50 seed=$((SEED + 1)) label=soak-emulated"
timer = emulated
CFG
echo "soak: $EVENTS events on two partitions (Bochs, 3 CPUs; about $((EVENTS / 20000)) s of guest time)"
boot/mkiso.sh "$out/soak.iso" "$BUILD/tempo.elf" "exit=emu" "$out/soak.cfg:partitions" \
	"$BUILD/guests/rtbench-mb2.elf:rtbench-mb2" || exit 1
start=$SECONDS
tests/emu/run.sh --emu bochs --cpus 3 --model "$MODEL" --ips "$IPS" --timeout 3000 \
	--iso "$out/soak.iso" --out "$out/run" || { echo "soak: the run failed"; exit 1; }
echo "soak: Bochs took $((SECONDS - start)) s"

serial() { tr -d '\r' < "$out/run/serial.txt"; }
kv() { echo "$1" | tr ' ' '\n' | sed -n "s/^$2=//p" | head -n 1; }
events=0 lost=0 early=0 dup=0 late=0
for p in d e; do
	line=$(serial | grep -E "^\\[$p\\] RTBENCH " | head -n 1)
	[ -n "$line" ] || { echo "soak: no RTBENCH line from $p"; exit 1; }
	echo "soak: $p: ${line#*RTBENCH }"
	events=$((events + $(kv "$line" events)))
	lost=$((lost + $(kv "$line" lost))) early=$((early + $(kv "$line" early)))
	dup=$((dup + $(kv "$line" dup)))
done
for c in 1 2; do
	l=$(kv "$(serial | grep -E "^HOSTTICK cpu=$c ")" late_max_ticks)
	[ -n "$l" ] && [ "$l" -gt "$late" ] && late=$l
done
echo "SOAK events=$events lost=$lost early=$early dup=$dup tick_late_max_ticks=$late cpu_model=$MODEL ips=$IPS tick_us=1000 seed=$SEED"
[ "$lost" = 0 ] && [ "$early" = 0 ] && [ "$dup" = 0 ] && [ "$late" -lt 1000 ]
