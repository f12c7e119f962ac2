# SPDX-License-Identifier: MIT
# Linux-partition tests, sourced by tests/emu/one.sh (and tests/linux/bench.sh
# for linux_line) after tests/emu/tests.sh (or its lib.sh), whose helpers they
# use, and by tests/run_tests.sh for the list. They need build/linux (make
# linux-image, which fetches Debian's PREEMPT_RT kernel, busybox-static and
# rt-tests).

# bochs_dev_ne2k_linux is tests/emu/devices.sh's, listed here: it boots the
# Linux image (a Linux partition driving Bochs' PCI NE2000, about 3 minutes).
LINUX_TESTS="linux_boot bochs_dev_ne2k_linux linux_corrupt_kernel linux_no_initrd linux_shell linux_chan linux_qemu_ivshmem"
# Long and not interactive: with LINUX_LARGE=1 the Linux section starts it
# first, beside the others (tests/run_tests.sh linux); not in the default suite.
LINUX_BG_TEST=linux_large_mem

# linux_line OUT KEY: the rest of the guest's "KEY ..." line. The init prints
# them through the kernel log, so a time stamp comes first, and under Tempo
# the partition's name: "[linux] [   12.345678] KEY ..." (bare: no name).
linux_line() {
	serial "$1" | grep -E "^(\\[linux\\] )?(\\[ *[0-9.]+\\] )?$2( |$)" | head -n 1 |
		sed -E "s/^(\\[linux\\] )?(\\[ *[0-9.]+\\] )?$2 ?//"
}

# Boot to init in direct mode on two vCPUs beside the latency guest: Linux
# starts its second CPU, the clockevent is the LAPIC in TSC-deadline mode, the
# clocksource the TSC, cyclictest runs to its end, Linux powers off through
# ACPI S5, and the neighbour runs on clean; host ticks on time on every core
# (CPU 2, Linux's second vCPU, ticks from its start to Linux's power-off:
# 14,229 ticks with the crypto self-tests off, 10,000 asked).
test_linux_boot() {
	local ce cs cyc dw ev other
	bochs "$1" --cpus 4 --mem 512 --timeout 900 --iso "$TEST_ISO_DIR/linux-boot.iso" \
		--expect ok || return 1
	need "$1" "^Partition 'linux': Linux boot protocol 2\\.[0-9]+, kernel " "bzImage loaded" &&
		need "$1" "^\\[linux\\] .*smp: Brought up 1 node, 2 CPUs" "Linux started its second CPU" &&
		need "$1" "^\\[linux\\] .*LINUX_INIT cpus=2" "Linux reached its init" || return 1
	ce=$(linux_line "$1" LINUX_CLOCKEVENT) cs=$(linux_line "$1" LINUX_CLOCKSOURCE)
	[ "$ce" = lapic-deadline ] || { echo "clockevent is '$ce', not lapic-deadline"; return 1; }
	[ "$cs" = tsc ] || { echo "clocksource is '$cs', not tsc"; return 1; }
	cyc=$(linux_line "$1" LINUX_CYCLICTEST)
	[ "$(kv "$cyc" loops)" = 100 ] && [ -n "$(kv "$cyc" max_us)" ] ||
		{ echo "cyclictest did not complete: '$cyc'"; return 1; }
	need "$1" "^\\[linux\\] .*LINUX_DONE" "init finished" &&
		need "$1" "^PARTITION_END name=linux state=shutdown exit_code=0" "Linux powered off" &&
		need "$1" "^Partition 'linux' powered off \\(ACPI S5\\)" "through ACPI S5" &&
		rtbench_clean "$1" 130000 rt && ticks_on_time "$1" 1 100000 &&
		ticks_on_time "$1" 2 10000 && ticks_on_time "$1" 3 100000 ||
		return 1
	! serial "$1" | grep '^PARTITION_STOP' > /dev/null || { echo "a partition was stopped"; return 1; }
	# direct mode, between the two tempo-stats snapshots around cyclictest:
	# Linux took its timer interrupts, its deadline writes never exited, and
	# the exits were host ticks besides a few dozen CPUIDs of process start-up
	ev=$(kv "$(linux_line "$1" LINUX_TIMER_IRQS)" events)
	[ -n "$ev" ] && [ "$ev" -ge 100 ] || { echo "timer interrupts during cyclictest: '$ev'"; return 1; }
	dw=$(window "$1" deadline_write_exits linux) || return 1
	[ "$dw" -eq 0 ] || { echo "$dw deadline-write exits in direct mode"; return 1; }
	# a tick stepped aside of a deadline is a host tick's exit too, one a step
	other=$(($(window "$1" exits linux) - $(window "$1" tick_exits linux) -
		$(window "$1" tick_defer_exits linux)))
	[ "$other" -lt 100 ] || { echo "$other exits besides host ticks during cyclictest"; return 1; }
	echo "linux: $ev timer interrupts, 0 deadline-write exits, $other exits besides ticks"
}

# Bochs with 10 GiB: a Linux partition of 4200 MiB, more than fits below its
# MMIO window. Its E820 has RAM from 1 MiB to 0xFEA00000 and from 4 GiB to
# 0x107DFFFFF, Linux counts all of it, boots to init (its own allocations
# come from the RAM above 4 GiB first), runs cyclictest and powers off.
# About 9 minutes: Bochs zeroes the 4 GiB one instruction per 8 bytes first.
test_linux_large_mem() {
	local total
	bochs "$1" --cpus 2 --mem 10240 --timeout 1500 --iso "$TEST_ISO_DIR/linux-large.iso" \
		--expect ok || return 1
	need "$1" "^Partition 'linux': 1 vCPU \(CPUs 1\), 4200 MiB at 0x1[0-9a-f]{8}, " \
		"4200 MiB carved above 4 GiB" &&
		need "$1" '^\[linux\] .*BIOS-e820: \[mem 0x0000000000100000-0x00000000fe9fffff\] usable$' \
			"E820: RAM below the MMIO window" &&
		need "$1" '^\[linux\] .*BIOS-e820: \[mem 0x0000000100000000-0x0000000107dfffff\] usable$' \
			"E820: the rest from 4 GiB" || return 1
	# "Memory: AVAILk/TOTALk available (...)": the total is the E820's RAM
	# less what the kernel reserved before counting (a few MiB)
	total=$(serial "$1" | sed -n 's/^\[linux\] .*Memory: [0-9]*K\/\([0-9]*\)K available.*/\1/p' |
		head -n 1)
	[ -n "$total" ] && [ "$total" -gt $((4190 * 1024)) ] && [ "$total" -le $((4200 * 1024)) ] ||
		{ echo "Linux counts ${total:-no} KiB of RAM, not about 4200 MiB"; return 1; }
	need "$1" "^\[linux\] .*LINUX_INIT cpus=1" "Linux reached its init" &&
		[ "$(kv "$(linux_line "$1" LINUX_CYCLICTEST)" loops)" = 100 ] &&
		need "$1" "^PARTITION_END name=linux state=shutdown exit_code=0" "Linux powered off" &&
		! serial "$1" | grep '^PARTITION_STOP' > /dev/null ||
		{ echo "Linux did not run to its power-off"; return 1; }
	echo "linux: $total KiB of RAM counted"
}

# A kernel file cut short (a bad download) is refused before any guest runs.
test_linux_corrupt_kernel() {
	bochs "$1" --cpus 3 --mem 512 --iso "$TEST_ISO_DIR/linux-corrupt.iso" --expect failure ||
		return 1
	need "$1" "^ERROR: .*image 'linux': not a bootable Linux kernel: " "the refusal names the image" &&
		! serial "$1" | grep '^\[rt\]' > /dev/null || { echo "a guest ran"; return 1; }
}

# A Linux partition without an initrd has no root file system: refused.
test_linux_no_initrd() {
	bochs "$1" --cpus 3 --mem 512 --iso "$TEST_ISO_DIR/linux-noinitrd.iso" --expect failure ||
		return 1
	need "$1" "^ERROR: .*image 'linux' is a Linux kernel and needs an initrd" "missing initrd refused" &&
		! serial "$1" | grep '^\[rt\]' > /dev/null || { echo "a guest ran"; return 1; }
}

# An operator at the serial console (tests/emu/linux-shell.script): the busybox
# shell on the Linux partition's ttyS0 runs commands and answers; the monitor
# lists and restarts the partition; the same kernel boots again from its
# pristine modules and its shell answers again; its reboot reaches Tempo as a
# reset through the FADT's register (restart = never: it stops). The latency
# guest beside it, 45 s of 1 ms events (Linux, a vmlinux booted twice, runs
# some 22 s of them: 21,733 host ticks on its core), loses none and stays
# at its quiet 0.
test_linux_shell() {
	local line
	console_run "$1" tests/emu/linux-shell.script 1500 --cpus 3 --mem 512 \
		--iso "$TEST_ISO_DIR/linux-shell.iso" --expect ok || return 1
	[ "$(count_lines "$1" '^\[linux\] .*LINUX_INIT cpus=1$')" -eq 2 ] ||
		{ echo "Linux did not reach init twice"; return 1; }
	[ "$(count_lines "$1" "^Partition 'linux': Linux vmlinux \\(ELF, uncompressed\\), ")" -eq 2 ] ||
		{ echo "the vmlinux was not loaded for both boots"; return 1; }
	need "$1" '^PARTITION_END name=linux state=stopped exit_code=0 restarts=1$' \
		"linux stopped by its reboot after one restart" &&
		rtbench_clean "$1" 45000 || return 1
	line=$(rtbench_line "$1" rt)
	[ "$(kv "$line" lat_max_ticks)" -le 10 ] || { echo "rt disturbed: $line"; return 1; }
	echo "linux shell: $(grep -c 'ok=1 what=expect' "$1/drive.txt") answers, rt max $(kv "$line" lat_max_ticks) ticks"
}

# Linux and a bare guest on a channel (linux-chan.cfg): Linux finds the
# channel's PCI function, its module binds it as /dev/tempo/link, and
# tempo-chan serves the bare client's 2,000 echo requests through it (MSI
# doorbells that reach Linux with no exit, a ring per answer: one exit);
# then, with the module unloaded, 2,000 more through sysfs alone (resource2
# mmap'd, resource0's DOORBELL written from user space, decoded by Tempo).
# Every answer checks; rtbench beside them is untouched. The module counts
# fewer interrupts than doorbells: PREEMPT_RT runs its handler in a thread,
# and doorbells that come before the thread runs are one (as documented: a
# doorbell says "look", the memory says what).
test_linux_chan() {
	local c info ept line
	bochs "$1" --cpus 4 --mem 512 --timeout 900 --iso "$TEST_ISO_DIR/linux-chan.iso" \
		--expect ok || return 1
	need "$1" "^Partition 'linux': Linux vmlinux \\(ELF, uncompressed\\), [0-9]+ KiB at 0x1000000, entry 0x1000000, " \
		"the uncompressed kernel loaded" || return 1
	need "$1" '^\[linux\] .*LINUX_CHAN_MODULE insmod rc=0 devices=link$' "the module bound the function" &&
		need "$1" '^\[linux\] .*LINUX_CHAN CHAN_ECHO mode=module name=link answers=2000 bad=0 last_seq=2000 stop=0 timeout=0 wait=doorbell .* ring_errors=0 peer=1 ' \
			"2,000 answers through /dev/tempo/link" &&
		need "$1" '^\[linux\] .*LINUX_CHAN CHAN_ECHO mode=sysfs name=link answers=2000 bad=0 last_seq=4000 stop=0 timeout=0 wait=poll .* ring_errors=0 peer=1 ' \
			"2,000 answers through sysfs" &&
		need "$1" '^\[linux\] .*LINUX_CHAN_DONE ok=5 failed=0$' "every chan_test item" &&
		need "$1" '^PARTITION_END name=linux state=shutdown exit_code=0$' "Linux powered off" ||
		return 1
	info=$(linux_line "$1" "LINUX_CHAN CHAN_INFO")
	[ "$(kv "$info" name)" = link ] && [ "$(kv "$info" self)" = 0 ] && [ "$(kv "$info" peers)" = 2 ] &&
		[ "$(kv "$info" size)" = 65536 ] && [ "$(kv "$info" tempo)" = 1 ] &&
		[ "$(kv "$info" doorbell)" = 1 ] && [ "$(kv "$info" doorbells)" -ge 1 ] ||
		{ echo "the module's view: '$info'"; return 1; }
	# Tempo delivers all 4,000 (the CHANNEL line below); the client counts
	# interrupts taken, and a doorbell that comes while the previous one is
	# still pending with interrupts off merges into it, as on hardware
	# (measured 4,000, and 3,999 in a run where the loop saw an answer
	# before its doorbell). 3,900 leaves room for one in 40 to merge and is
	# far from the 2,000 a path that dropped every other doorbell would give
	c=$(chan_line "$1" client client)
	[ "$(kv "$c" requests)" = 4000 ] && [ "$(kv "$c" answered)" = 4000 ] && [ "$(kv "$c" lost)" = 0 ] &&
		[ "$(kv "$c" bad)" = 0 ] && [ "$(kv "$c" doorbells)" -le 4000 ] &&
		[ "$(kv "$c" doorbells)" -ge 3900 ] && [ "$(kv "$c" strays)" = 0 ] ||
		{ echo "the client's count: $c"; return 1; }
	# Linux's rings reached the client, the client's the module's MSI; with
	# the module gone they were dropped (the sysfs server polls)
	need "$1" '^CHANNEL name=link peer=client access=rw rings=4001 throttled=0 delivered=4000 dropped=0$' "Linux's 4,000 rings" &&
		need "$1" '^CHANNEL name=link peer=linux access=rw rings=4000 throttled=0 delivered=2000 dropped=2001$' "the client's rings" ||
		return 1
	# one exit per ring (4,000) plus the driver's probe and sysfs reads; a
	# doorbell Linux takes costs none (else 2,000 more)
	ept=$(serial "$1" | sed -n 's/^EXITS partition=linux vcpu=0 .* ept_violation=\([0-9]*\).*/\1/p')
	[ -n "$ept" ] && [ "$ept" -ge 4000 ] && [ "$ept" -lt 4200 ] ||
		{ echo "Linux took '$ept' MMIO exits for 4,000 rings"; return 1; }
	rtbench_clean "$1" 35000 || return 1
	line=$(rtbench_line "$1" rt)
	[ "$(kv "$line" lat_max_ticks)" -le 10 ] || { echo "rt disturbed: $line"; return 1; }
	echo "linux chan: $(serial "$1" | grep -E '^\[client\] CHANTEST_LAT ' | sed 's/^\[client\] //'); Linux MMIO exits $ept"
}

# The channel module and tempo-chan in QEMU (TCG) against ivshmem-plain: no
# Tempo, no Bochs; the PASS/FAIL lines are in OUT/qemu_ivshmem.txt.
test_linux_qemu_ivshmem() {
	tests/linux/qemu_ivshmem.sh "${BUILD:-build}/linux" "$1" > "$1/qemu_ivshmem.txt" 2>&1
	local rc=$?
	grep -E '^(FAIL|skipped)' "$1/qemu_ivshmem.txt"
	tail -n 1 "$1/qemu_ivshmem.txt"
	return $rc
}
