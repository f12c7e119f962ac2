# SPDX-License-Identifier: MIT
# Emulator tests: RAM above 4 GiB (docs/hardware.md). Mapped and given out
# top-down to partitions, a partition larger than fits below its MMIO
# window, and a request no single free range can hold refused.

# RAM above 4 GiB: Bochs with 6 GiB. It is mapped and counted
# free for partitions; a fixed base at 5 GiB and two carved partitions (top
# down: above 4 GiB) run there, the timer guest included; 4 GiB in one
# partition, more than any one free range, is refused with the ranges named.
test_bochs_high_mem() {
	local usable free hpa n
	bochs "$1" --cpus 4 --mem 6144 --iso "$TEST_ISO_DIR/high-mem.iso" --expect ok --timeout 300 ||
		return 1
	need "$1" '^Memory: [0-9]+ MiB above 4 GiB mapped \((1 GiB|2 MiB) pages\), up to 0x1[0-9a-f]{8}$' \
		"the map above 4 GiB" || return 1
	usable=$(serial "$1" | sed -n 's/^Memory: \([0-9]*\) KiB usable$/\1/p')
	free=$(serial "$1" | sed -n 's/^SMP: 4 of 4 CPUs online with VMX; \([0-9]*\) MiB free for partitions$/\1/p')
	# all of it but the low 1 MiB, Tempo's image and 8 MiB pool, the modules
	[ -n "$usable" ] && [ -n "$free" ] && [ $((usable / 1024)) -gt 5000 ] &&
		[ "$free" -ge $((usable / 1024 - 64)) ] ||
		{ echo "free for partitions: ${free:-none} MiB of ${usable:-?} KiB usable"; return 1; }
	need "$1" "^Partition 'fixed': 1 vCPU \(CPUs 1\), 16 MiB at 0x140000000, " "fixed at 5 GiB" ||
		return 1
	for n in auto rt; do
		hpa=$(serial "$1" | sed -n "s/^Partition '$n': .* MiB at \(0x[0-9a-f]*\), .*/\1/p")
		[ -n "$hpa" ] && [ $((hpa)) -ge $((1 << 32)) ] ||
			{ echo "$n carved at ${hpa:-?}, not above 4 GiB"; return 1; }
	done
	hello_ran "$1" fixed 2 1 "1" && hello_ran "$1" auto 1 1 "2" && rtbench_clean "$1" 2000 &&
		need "$1" '^TEMPO_EXIT code=16 status=ok reason="all partitions ended"' "clean end" &&
		! serial "$1" | grep '^PARTITION_STOP' > /dev/null || { echo "a partition was stopped"; return 1; }
	mkdir -p "$1/big"
	bochs "$1/big" --cpus 2 --mem 6144 --iso "$TEST_ISO_DIR/high-mem-big.iso" --expect failure ||
		return 1
	need "$1/big" "^ERROR: partitions: partition 'big' \(line 3\): no 4096 MiB of free RAM in one range \([0-9]+ MiB left, at most [0-9]+ MiB in one range\)" \
		"the refusal of 4 GiB in one partition"
}

# Bochs with 10 GiB: a partition of 4200 MiB, more than fits below its MMIO
# window, carved above 4 GiB; its guest's memory map goes on at 4 GiB with
# the other 126 MiB, which hello reads and writes through PAE paging (zeros,
# then its pattern, no alias of the low RAM); its write 16 MiB past that
# end stops it (ept_violation at that gpa); the timer guest beside it runs
# clean. About 6 to 8 minutes: Bochs zeroes 4 GiB in its 2 GiB of host
# memory and a swap file beyond it (measured 351-506 s beside one other
# emulator on a quiet 2-core machine; with more work on the cores a run took
# over 900 s). The timeout, 2,700 s, is five times the slowest quiet run.
# Not in make test unless EMU_LARGE=1: on the current image Bochs 2.7 runs
# wild at the first instruction after the zeroing ends (a #UD at RIP 3 or
# in the hypervisor's pool, RSP still on zero_ram's return address, RCX 0
# and RDI at the partition's end), with a byte loop and with REP STOSQ
# alike, three runs of three, and Bochs itself segfaults as it exits; the
# image of 8536721 passes on the same Bochs and machine. Bochs keeps at most
# 2 GiB of a guest's RAM in host memory ('host_size' is capped at 2048).
test_bochs_large_mem() {
	# Bochs keeps the RAM past its 2 GiB of host memory in an unlinked file
	# in /tmp (several GiB by the end): a failure says how much room was left
	bochs "$1" --cpus 3 --mem 10240 --iso "$TEST_ISO_DIR/high-mem-large.iso" --expect ok \
		--timeout 2700 || { df -h /tmp | tail -n 1 | sed 's/^/\/tmp after the run: /'; return 1; }
	need "$1" "^Partition 'bad': 1 vCPU \(CPUs 1\), 4200 MiB at 0x1[0-9a-f]{8}, " \
		"4200 MiB carved above 4 GiB" &&
		need "$1" '^\[bad\] hello: himem range 0x100000000-0x107dfffff \(126 MiB\) ok$' \
			"the RAM from 4 GiB, checked by the guest" &&
		[ "$(count_lines "$1" '^\[bad\] hello: himem ')" -eq 1 ] &&
		need "$1" '^\[bad\] hello: oob write to 0x108e00000 \(top of RAM 0x107e00000 \+ 16 MiB\)$' \
			"the write past the top" &&
		need "$1" '^PARTITION_STOP name=bad reason=ept_violation rip=0x[0-9a-f]+ qual=0x[0-9a-f]+ vcpu=0 cpu=1 detail="gpa=0x108e00000"$' \
			"bad stopped at its write" &&
		! serial "$1" | grep '^\[bad\] hello: oob write survived' > /dev/null &&
		rtbench_clean "$1" 2000 &&
		need "$1" '^TEMPO_EXIT code=16 status=ok reason="all partitions ended"' "clean end"
}
