#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# make channel-demo: the control loop's round trips to Linux and each side's
# exits, from the serial log of guests/channel-demo.cfg.
#   boot/channel-demo-table.sh SERIAL_LOG [CPU_MODEL [IPS]]
set -uo pipefail
[ $# -ge 1 ] && [ -f "$1" ] || { echo "usage: $0 SERIAL_LOG [CPU_MODEL [IPS]]" >&2; exit 2; }
model=${2:-na} ips=${3:-na}
log() { tr -d '\r' < "$1"; }
kv() { echo "$1" | tr ' ' '\n' | sed -n "s/^$2=//p" | head -n 1; }
c=$(log "$1" | sed -n 's/^\[control\] CHANTEST role=client //p' | head -n 1)
l=$(log "$1" | sed -n 's/^\[control\] CHANTEST_LAT role=client kind=rtt //p' | head -n 1)
e=$(log "$1" | sed -n 's/^\[linux\] .*LINUX_CHAN CHAN_ECHO //p' | head -n 1)
[ -n "$c" ] && [ -n "$l" ] && [ -n "$e" ] || { echo "channel-demo: no results in $1"; exit 1; }
khz=$(log "$1" | sed -n 's/^TSC: \([0-9]*\) kHz.*/\1/p' | head -n 1)
us() { awk -v t="$1" -v k="${khz:-50000}" 'BEGIN { printf "%.1f", t * 1000 / k }'; }
# window OWNER: exits (and tick exits) between a partition's two VCPU_STATS lines
window() {
	local a b
	a=$(log "$1" | grep "^VCPU_STATS partition=$2 vcpu=0 " | sed -n 1p)
	b=$(log "$1" | grep "^VCPU_STATS partition=$2 vcpu=0 " | sed -n 2p)
	[ -n "$a" ] && [ -n "$b" ] || { echo "na na"; return; }
	echo "$(($(kv "$b" exits) - $(kv "$a" exits) - 1)) $(($(kv "$b" tick_exits) - $(kv "$a" tick_exits)))"
}
n=$(kv "$c" answered)
read -r cex ctick < <(window "$1" control)
read -r lex ltick < <(window "$1" linux)
per() { awk -v a="$1" -v b="$2" -v n="$3" 'BEGIN { if (a == "na" || !n) print "na"; else printf "%.2f", (a - b) / n }'; }
echo
echo "A control loop (bare guest, direct, every $(kv "$c" period_us) us) and Linux on channel 'link'"
printf '%-34s %8s %8s %8s %8s\n' "round trip (sample out -> answer)" min avg p99 max
printf '%-34s %8s %8s %8s %8s\n' "  TSC ticks" "$(kv "$l" rtt_min_ticks)" "$(kv "$l" rtt_avg_ticks)" \
	"$(kv "$l" rtt_p99_ticks)" "$(kv "$l" rtt_max_ticks)"
printf '%-34s %8s %8s %8s %8s\n' "  us" "$(us "$(kv "$l" rtt_min_ticks)")" "$(us "$(kv "$l" rtt_avg_ticks)")" \
	"$(us "$(kv "$l" rtt_p99_ticks)")" "$(us "$(kv "$l" rtt_max_ticks)")"
echo "samples $n of $(kv "$c" requests), lost $(kv "$c" lost), bad answers $(kv "$c" bad); Linux answered $(kv "$e" answers) ($(kv "$e" wait) wake-ups: $(kv "$e" doorbells))"
echo "exits per sample besides host ticks: control $(per "$cex" "$ctick" "$n"), Linux $(per "$lex" "$ltick" "$n") (a ring is one; a doorbell received none)"
echo "BENCH mode=direct guest=chan-linux workload=doorbell-echo shared=1 neighbour=none events=$n exits_per_event=$(per "$lex" "$ltick" "$n") sender_exits_per_event=$(per "$cex" "$ctick" "$n") rtt_min_ticks=$(kv "$l" rtt_min_ticks) rtt_avg_ticks=$(kv "$l" rtt_avg_ticks) rtt_p99_ticks=$(kv "$l" rtt_p99_ticks) rtt_max_ticks=$(kv "$l" rtt_max_ticks) lost=$(kv "$c" lost) cpu_model=$model ips=$ips tick_us=$(log "$1" | sed -n 's/^Host tick: \([0-9]*\) us.*/\1/p' | head -n 1) seed=na"
[ "$(kv "$c" lost)" = 0 ] && [ "$(kv "$c" bad)" = 0 ] && [ "$n" = "$(kv "$c" requests)" ]
