#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The `make run` table: per partition of a Tempo serial log, the latency
# guest's figures (RTBENCH), its VM exits per timer event over the measured
# window (the two VCPU_STATS lines rtbench asks for around its loop) and the
# worst host-tick lateness on its core (HOSTTICK); then, from BARE_LOG, the
# same workload run by rtbench bare metal (no Tempo) on the same emulated CPU.
#   boot/rtdemo-table.sh SERIAL_LOG [BARE_LOG]
set -euo pipefail

log=${1:?usage: rtdemo-table.sh SERIAL_LOG [BARE_LOG]}
bare=${2:-/dev/null}
[ -r "$log" ] || { echo "rtdemo-table: cannot read $log" >&2; exit 1; }
[ -r "$bare" ] || bare=/dev/null

tr -d '\r' < "$log" | awk -v bare="$bare" '
function kv(line, key,    n, i, w, a) {
	n = split(line, w, " ")
	for (i = 1; i <= n; i++)
		if (index(w[i], key "=") == 1)
			return substr(w[i], length(key) + 2)
	return ""
}
function us(ticks) { return khz ? sprintf("%.2f", ticks * 1000 / khz) : "na" }
# The console core cuts long guest lines: a line of the same partition that
# follows an RTBENCH line and is not a new message continues it.
{
	if (pending != "" && index($0, "[" pending "] ") == 1) {
		rest = substr($0, length(pending) + 4)
		if (rest !~ /^(rtbench:|RTBENCH )/) {
			rt[pending] = rt[pending] rest
			pending = ""
			next
		}
	}
	pending = ""
}
/^\[[^]]*\] RTBENCH / {
	p = substr($1, 2, length($1) - 2)
	rt[p] = substr($0, length(p) + 4)
	pending = p
	if (!(p in seen)) { seen[p] = 1; order[++np] = p }
	next
}
/^Partition .*vCPU.*\(CPUs / {
	p = $2; gsub(/[\047:]/, "", p)
	c = $0; sub(/.*\(CPUs /, "", c); sub(/[,)].*/, "", c)
	cpu[p] = c
}
/^VCPU_STATS / && kv($0, "vcpu") == "0" {
	p = kv($0, "partition")
	nst[p]++
	mode[p] = kv($0, "mode")
	if (nst[p] == 1) ex0[p] = kv($0, "exits")
	if (nst[p] == 2) ex1[p] = kv($0, "exits")
}
/^HOSTTICK / { late[kv($0, "cpu")] = kv($0, "late_max_ticks") }
function row(name, mode, line, epe, tl) {
	khz = kv(line, "tsc_khz")
	printf "%-12s %-9s %7s %6s %8s %8s %8s %8s   %7s %7s %7s %7s %9s\n", name, mode,
		kv(line, "events"), epe, kv(line, "lat_min_ticks"), kv(line, "lat_avg_ticks"),
		kv(line, "lat_p99_ticks"), kv(line, "lat_max_ticks"), us(kv(line, "lat_min_ticks")),
		us(kv(line, "lat_avg_ticks")), us(kv(line, "lat_p99_ticks")),
		us(kv(line, "lat_max_ticks")), tl
}
END {
	if (!np) { print "rtdemo-table: no RTBENCH line in the log" > "/dev/stderr"; exit 1 }
	print ""
	print "Timer latency: TSC at the guest handler entry minus the deadline it programmed"
	printf "%-12s %-9s %7s %6s %8s %8s %8s %8s   %7s %7s %7s %7s %9s\n", "partition",
		"mode", "events", "exits", "min", "avg", "p99", "max", "min", "avg", "p99",
		"max", "tick late"
	printf "%-12s %-9s %7s %6s %35s   %31s %9s\n", "", "", "", "/event",
		"(TSC ticks)", "(us)", "(ticks)"
	for (i = 1; i <= np; i++) {
		p = order[i]
		epe = "na"
		ev = kv(rt[p], "events")
		if (nst[p] >= 2 && ev > 0)
			epe = sprintf("%.2f", (ex1[p] - ex0[p]) / ev)
		tl = (p in cpu && cpu[p] in late) ? late[cpu[p]] : "na"
		row(p, p in mode ? mode[p] : "?", rt[p], epe, tl)
	}
	while ((getline line < bare) > 0)
		if (line ~ /^RTBENCH /) {
			sub(/\r$/, "", line)
			row("bare metal", "no Tempo", line, "0", "na")
			saved = 1
		}
	print ""
	print "exits/event: all VM exits of the vCPU in the measured window, host ticks included."
	print "min, avg, p99, max: the latency above, in TSC ticks and in us."
	print "tick late: the worst lateness of the hypervisor tick on the core of the partition, in TSC ticks (na: no Tempo)."
	print "direct: deadline writes and timer interrupts reach the guest with no exit;"
	print "emulated: each deadline write and each fire is a VM exit, as in a classic hypervisor."
	if (saved)
		print "bare metal: rtbench booted alone (no hypervisor), same workload and CPU model (" bare ")."
	else
		print "bare metal: no figures (" bare " has no RTBENCH line)."
}'
