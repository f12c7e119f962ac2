# SPDX-License-Identifier: MIT
# Emulator tests: partitions. Every CPU started with VMX, guests behind their
# EPT seeing only their own CPUs, config errors refused before any guest
# runs, a guest that breaks a rule stopped while the others run on, many
# vCPUs on shared cores, the test devices, and restarts
# (tests/emu/configs/restart.cfg).

aps_online() {
	local i
	for ((i = 1; i < $2; i++)); do
		need "$1" "^SMP: CPU $i \\(APIC id $i\\) online, VMX on" "CPU $i online with VMX" ||
			return 1
	done
}

# exits OUT PARTITION VCPU REASON: the count the hypervisor printed, or empty
exits() {
	serial "$1" | grep -E "^EXITS partition=$2 vcpu=$3 " | grep -oE " $4=[0-9]+" | cut -d= -f2
}

test_bochs_partitions() {
	local io
	bochs "$1" --cpus 4 --iso "$DEMO_ISO" --expect ok || return 1
	aps_online "$1" 4 &&
		hello_ran "$1" rt0 2 2 "1,2" && hello_ran "$1" rt1 1 1 "3" &&
		need "$1" '^\[rt0\] hello: AP apic_id=2 online$' "rt0's AP started by SIPI" &&
		need "$1" '^TEMPO_EXIT code=16 status=ok reason="all partitions ended"' "clean end" &&
		ends_whole "$1" || return 1
	# every vCPU's exits were counted and printed; the console path exits per byte
	io=$(exits "$1" rt0 0 io)
	[ -n "$io" ] && [ "$io" -gt 100 ] || { echo "rt0 vCPU 0: no io exit count ($io)"; return 1; }
	[ -n "$(exits "$1" rt0 0 vmcall)" ] && [ -n "$(exits "$1" rt0 1 cpuid)" ] &&
		[ -n "$(exits "$1" rt1 0 vmcall)" ] || { echo "missing EXITS lines"; return 1; }
	# nobody was stopped
	! serial "$1" | grep '^PARTITION_STOP' > /dev/null || { echo "unexpected PARTITION_STOP"; return 1; }
}

# stopped OUT REASON DETAIL_REGEX: 'bad' was stopped, 'good' ran to its end
bad_stopped_good_ran() {
	bochs "$1" --cpus 4 --iso "$TEST_ISO_DIR/$2.iso" --expect ok || return 1
	need "$1" "^PARTITION_STOP name=bad reason=$3 rip=0x[0-9a-f]+ qual=0x[0-9a-f]+ vcpu=0 cpu=1 detail=\"$4\"" \
		"bad stopped: $3" &&
		need "$1" '^PARTITION_END name=bad state=stopped ' "bad ended as stopped" &&
		hello_ran "$1" good 1 1 "2" &&
		! serial "$1" | grep '^\[bad\] hello: done' > /dev/null ||
		{ echo "bad was not stopped before its end"; return 1; }
}

test_bochs_stop_oob() {
	bad_stopped_good_ran "$1" stop-oob ept_violation 'gpa=0x2000000' &&
		need "$1" '^\[bad\] hello: oob write to 0x2000000 ' "the write that faulted"
}

test_bochs_stop_triple() {
	bad_stopped_good_ran "$1" stop-triple triple_fault 'the guest triple-faulted'
}

test_bochs_stop_vmxon() {
	bad_stopped_good_ran "$1" stop-vmxon vmx_instruction vmxon
}

test_bochs_bad_syntax() {
	bochs "$1" --cpus 4 --iso "$TEST_ISO_DIR/bad-syntax.iso" --expect failure || return 1
	need "$1" "^ERROR: config: partitions:6: timer: expected direct, inject, emulated or pv-lazy, found 'fast'" \
		"line-numbered config error" &&
		! serial "$1" | grep '^Partition ' > /dev/null || { echo "a partition was built"; return 1; }
}

test_bochs_bad_cpu() {
	bochs "$1" --cpus 4 --iso "$TEST_ISO_DIR/bad-cpu.iso" --expect failure || return 1
	need "$1" "^ERROR: config: partitions:7: partition 'p1': CPU 7 does not exist" \
		"refused before any guest starts" &&
		! serial "$1" | grep '^\[p0\]' > /dev/null || { echo "a guest ran"; return 1; }
}

# The boot CPU runs a guest too, and no core is left free for the consoles.
test_bochs_all_cpus() {
	bochs "$1" --cpus 2 --iso "$TEST_ISO_DIR/all-cpus.iso" --expect ok || return 1
	need "$1" '^WARNING: every CPU runs a partition' "the console fallback warning" &&
		need "$1" '^Partition .first.: 1 vCPU \(CPUs 0\)' "CPU 0 given to a partition" &&
		hello_ran "$1" first 2 1 "0" && hello_ran "$1" second 1 1 "1"
}

# 65 vCPUs on 10 CPUs (8 partitions, 8 shared cores): more than 64, so a
# vCPU table sized for 64 would be overrun. Every hello starts all its CPUs
# and ends cleanly, every shared core keeps its 8 windows, and the
# hypervisor takes no exception.
test_bochs_many_vcpus() {
	bochs "$1" --cpus 10 --iso "$TEST_ISO_DIR/many-vcpus.iso" --expect ok --timeout 600 ||
		return 1
	need "$1" "^SMP: 10 of 10 CPUs online with VMX" "all 10 CPUs up with VMX" &&
	need "$1" "^Partition 'a': 9 vCPUs \(CPUs 1 2 3 4 5 6 7 8 9\)" "a on CPUs 1-9" &&
		hello_ran "$1" a 2 9 "1,2,3,4,5,6,7,8,9" || return 1
	for p in b c d e f g h; do
		need "$1" "^Partition '$p': 8 vCPUs \(CPUs 2 3 4 5 6 7 8 9\)" "$p on CPUs 2-9" &&
			hello_ran "$1" $p 2 8 "2,3,4,5,6,7,8,9" || return 1
	done
	for c in 2 3 4 5 6 7 8 9; do
		need "$1" "^SCHED cpu=$c windows=8 " "CPU $c's schedule of 8" || return 1
	done
	if serial "$1" | grep -E '^EXCEPTION' > /dev/null; then
		echo "the hypervisor took an exception"
		return 1
	fi
}

# test=exit_fault: a fault in one partition's exit handler stops it
# (hv_fault), and the latency guest beside it finishes clean; so does one
# on the quick path, before the dispatcher marks the exit ('quick': before
# the fault's owner was set at the entry, such a fault stopped Tempo). With
# APIC virtualization (Skylake-X, Tiger Lake) an inject vCPU has no quick
# path: its tick takes the usual one, which stops it as halted for ever.
test_bochs_hv_fault() {
	local faults=2
	bochs "$1" --cpus 4 --iso "$TEST_ISO_DIR/hv-fault.iso" --expect ok --timeout 300 || return 1
	need "$1" '^PARTITION_STOP name=faulty reason=hv_fault rip=0x[0-9a-f]+ qual=0x6 .*detail="exception 6 ' \
		"faulty stopped: hv_fault" || return 1
	if apicv_on "$1"; then
		faults=1
		need "$1" '^PARTITION_STOP name=quick reason=halted_forever ' \
			"quick stopped as halted for ever (no quick path with APIC virtualization)" || return 1
	else
		need "$1" '^PARTITION_STOP name=quick reason=hv_fault rip=0x[0-9a-f]+ qual=0x6 .*detail="exception 6 ' \
			"quick stopped: hv_fault on the quick path" || return 1
	fi
	[ "$(count_lines "$1" '^EXCEPTION: vector 6 ')" -eq $faults ] ||
		{ echo "not $faults faults' dumps: $(count_lines "$1" '^EXCEPTION: vector 6 ')"; return 1; }
	rtbench_clean "$1" 2000 victim && ticks_on_time "$1" 1 10
}

# debug_exit and fw_cfg, per partition and off by default (testdev.cfg)
test_bochs_testdev() {
	bochs "$1" --cpus 3 --iso "$TEST_ISO_DIR/testdev.iso" --expect ok --timeout 120 || return 1
	need "$1" '^\[ex\] hello: fw_cfg signature=0x554d4551 cpus=1 ram=16777216$' "fw_cfg on: QEMU, 1 CPU, 16 MiB" &&
		need "$1" '^PARTITION_END name=ex state=shutdown exit_code=7$' "debug-exit 3: exit code 7" &&
		need "$1" '^\[plain\] hello: fw_cfg signature=0xffffffff cpus=65535 ram=18446744073709551615$' \
			"fw_cfg off: the ports float" &&
		need "$1" '^\[plain\] hello: debug-exit write ignored$' "debug_exit off: the write dropped" &&
		need "$1" '^PARTITION_END name=plain state=shutdown exit_code=0$' "plain ran to its end" &&
		! serial "$1" | grep '^\[ex\] hello: debug-exit write ignored' > /dev/null &&
		ends_whole "$1"
}

# ---- restarts (restart = never | on-failure | always; tests/emu/configs/restart.cfg) ----

# restarted OUT NAME REASON N: NAME was restarted N times for REASON, counted 1..N in order
restarted() {
	local got want
	got=$(serial "$1" | sed -n "s/^PARTITION_RESTART name=$2 reason=$3 count=\([0-9]*\) .*/\1/p" |
		tr '\n' ' ' | sed 's/ $//')
	want=$(seq -s ' ' 1 "$4")
	[ "$got" = "$want" ] || { echo "$2: restarts for $3 counted '$got', want '$want'"; return 1; }
	[ "$(count_lines "$1" "^PARTITION_RESTART name=$2 ")" -eq "$4" ] ||
		{ echo "$2: restarted for another reason too"; return 1; }
	# every instance started from its image with its boot information, on RAM zeroed
	[ "$(count_lines "$1" "^\\[$2\\] hello: start \\(multiboot[12]\\) cmdline=")" -eq $(($4 + 1)) ] &&
		[ "$(count_lines "$1" "^\\[$2\\] hello: ram clean$")" -eq $(($4 + 1)) ] &&
		[ "$(count_lines "$1" "^\\[$2\\] hello: cpus=1 apic_ids=")" -eq $(($4 + 1)) ] ||
		{ echo "$2: not $(($4 + 1)) clean starts"; return 1; }
	! serial "$1" | grep "^\\[$2\\] hello: ram holds" > /dev/null ||
		{ echo "$2: a restart left the old instance's RAM"; return 1; }
}

# A partition that triple-faults 200 ms after each start is restarted up to its
# limit and then stopped; a reset through 0xCF9 restarts (on-failure) or stops
# (never); a clean shutdown restarts only under always; a partition on a shared
# core restarts in its windows beside its neighbour. The real-time partition
# beside them loses nothing and keeps its quiet figures: the same rtbench alone
# (restart-quiet.cfg, same CPUs) within 10 ticks; Bochs' interleaving of its
# CPUs moves the average by a few ticks when others are busy, and one exit costs
# about 500.
test_bochs_restart() {
	local q l k
	mkdir -p "$1/quiet"
	bochs "$1/quiet" --cpus 7 --iso "$TEST_ISO_DIR/restart-quiet.iso" --expect ok --timeout 300 &&
		bochs "$1" --cpus 7 --iso "$TEST_ISO_DIR/restart.iso" --expect ok --timeout 300 || return 1
	restarted "$1" crash triple_fault 3 &&
		need "$1" "^Partition 'crash': restart limit reached \\(3 restarts in this run\\), not restarted$" \
			"crash: the limit's end said" &&
		need "$1" '^PARTITION_STOP name=crash reason=triple_fault .*detail="the guest triple-faulted"' \
			"crash stopped at its limit" &&
		need "$1" '^PARTITION_END name=crash state=stopped exit_code=0 restarts=3$' "crash: 3 restarts" &&
		restarted "$1" reboot reset 2 &&
		need "$1" "^Partition 'reboot': restart limit reached \\(2 restarts within 60 s\\)" "reboot's limit" &&
		need "$1" '^PARTITION_STOP name=reboot reason=reset .*detail="the guest asked for a reset \(reset control, port 0xcf9\)"' \
			"reboot stopped at its limit" &&
		need "$1" '^PARTITION_END name=reboot state=stopped exit_code=0 restarts=2$' "reboot: 2 restarts" &&
		restarted "$1" again shutdown 1 &&
		[ "$(count_lines "$1" '^\[again\] hello: done$')" -eq 2 ] &&
		need "$1" '^PARTITION_END name=again state=shutdown exit_code=0 restarts=1$' "again: shut down after one restart" &&
		restarted "$1" once reset 0 &&
		need "$1" '^PARTITION_STOP name=once reason=reset ' "once: a reset under never stops it" &&
		need "$1" '^PARTITION_END name=once state=stopped exit_code=0$' "once stopped" &&
		restarted "$1" scrash triple_fault 2 &&
		need "$1" '^PARTITION_END name=scrash state=stopped exit_code=0 restarts=2$' \
			"scrash: 2 restarts on its shared core" &&
		need "$1" '^\[sgood\] hello: done$' "sgood ran on beside it" &&
		need "$1" '^PARTITION_END name=sgood state=shutdown exit_code=0$' "sgood shut down" &&
		rtbench_clean "$1" 10000 && rtbench_clean "$1/quiet" 10000 && ends_whole "$1" || return 1
	q=$(rtbench_line "$1/quiet" rt) l=$(rtbench_line "$1" rt)
	rt_undisturbed "$1" "$1/quiet" "the restarts" || return 1
	echo "rt beside 6 restarts: p99 $(kv "$l" lat_p99_ticks) max $(kv "$l" lat_max_ticks) avg $(kv "$l" lat_avg_ticks) ticks; quiet p99 $(kv "$q" lat_p99_ticks) max $(kv "$q" lat_max_ticks) avg $(kv "$q" lat_avg_ticks)"
}
