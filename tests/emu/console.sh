# SPDX-License-Identifier: MIT
# Emulator tests: the console. Whole lines when partitions end mid-line,
# output faster than the UART drains, and an operator typing into COM1
# (tests/emu/console.script, tests/emu/console-busy.script) to the
# partitions and the monitor.

# One partition's end (shut down, or stopped) prints the partial lines of
# that partition only: the line another is half-way through stays whole. No
# console core here (3 CPUs, 3 partitions): the ending cores drain.
test_bochs_console_cut() {
	bochs "$1" --cpus 3 --iso "$TEST_ISO_DIR/console-cut.iso" --expect ok || return 1
	need "$1" '^Partition .quick. shut down' "quick shut down" &&
		need "$1" '^PARTITION_STOP name=bad reason=ept_violation ' "bad stopped" &&
		need "$1" '^\[slow\] hello: slow line 0123456789abcdefghijklmnopqrstuvwxyz0123456789$' \
			"slow's line whole" &&
		[ "$(count_lines "$1" '^\[slow\] ')" -eq "$(count_lines "$1" '^\[slow\] hello: ')" ] ||
		{ echo "a line of slow's cut: $(serial "$1" | grep '^\[slow\] ' | grep -v '^\[slow\] hello: ' | head -n 3)"; return 1; }
	# and both ends came while the line was being written (printed before it)
	serial "$1" | awk '/^\[slow\] hello: slow line/ { l = NR }
		/^Partition .quick. shut down|^PARTITION_STOP name=bad/ { e[++n] = NR }
		END { exit !(l && n == 2 && e[2] < l) }' ||
		{ echo "quick and bad did not end while slow wrote its line"; return 1; }
}

# Output faster than the console drains: 'burst' offers 2,000 64-byte lines
# at once through the console hypercall. Tempo keeps what fits in the ring,
# drops the rest in whole lines and says so: the CONSOLE_DROP counts add up
# to every byte the guest saw refused, each line that came out is whole, and
# as many came out as the guest saw taken. 'rt' beside it is clean.
test_bochs_console_drop() {
	local drops total sum refused taken whole
	bochs "$1" --cpus 3 --iso "$TEST_ISO_DIR/console-drop.iso" --expect ok || return 1
	rtbench_clean "$1" 2000 && ends_whole "$1" || return 1
	drops=$(serial "$1" | grep '^CONSOLE_DROP partition=burst ')
	[ -n "$drops" ] || { echo "no CONSOLE_DROP line"; return 1; }
	sum=$(($(echo "$drops" | sed 's/.* bytes=\([0-9]*\) .*/\1/' | paste -sd+)))
	total=$(kv "$(echo "$drops" | tail -n 1)" total_bytes)
	refused=$(serial "$1" | sed -n 's/^\[burst\] hello: burst refused_bytes=\([0-9]*\)$/\1/p')
	taken=$(serial "$1" | sed -n 's/^\[burst\] hello: burst done lines=2000 taken=\([0-9]*\)$/\1/p')
	[ -n "$refused" ] && [ -n "$taken" ] && [ "$taken" -gt 0 ] && [ "$taken" -lt 2000 ] ||
		{ echo "the guest's counts: refused ${refused:-?} taken ${taken:-?}"; return 1; }
	[ "$sum" = "$total" ] && [ "$total" = "$refused" ] ||
		{ echo "dropped: lines add to $sum, total $total, the guest saw $refused refused"; return 1; }
	whole=$(serial "$1" | grep -cE '^\[burst\] hello: burst [0-9]{5} 0123456789abcdefghijklmnopqrstuvwxyzABCDEFGH$')
	[ "$whole" = "$taken" ] &&
		[ "$(serial "$1" | grep -c '^\[burst\] hello: burst [0-9]')" = "$taken" ] ||
		{ echo "$whole whole burst lines of $taken taken, or some cut"; return 1; }
	echo "2,000 lines offered: $taken out whole, $total bytes dropped and reported"
}

# COM1 is a TCP server on loopback; tests/emu/console_drive.py types the script
# into it (a partition's line, the monitor's commands and errors, a restart,
# a flood) and writes serial.txt. The real-time partition beside it loses
# nothing and stays within 10 ticks of the 0 it measures alone.
test_bochs_console_input() {
	local line
	console_run "$1" tests/emu/console.script 300 --cpus 4 --iso "$TEST_ISO_DIR/console.iso" \
		--expect ok || return 1
	rtbench_clean "$1" 20000 && ends_whole "$1" || return 1
	line=$(rtbench_line "$1" rt)
	# The console never exits rt's core: its exits in the window are host
	# ticks, tick deferrals and the one that ends the window (VCPU_STATS).
	[ $(($(window "$1" exits) - $(window "$1" tick_exits) - $(window "$1" tick_defer_exits))) -le 1 ] ||
		{ echo "rt's core exited for more than its ticks: $(window "$1" exits) exits"; return 1; }
	# p99 undisturbed; the max too, unless a tick deferral met one of rt's
	# deadlines (where the first deferral falls against rt's phase moves
	# with the exit path's length: measured a max of 0 in a run with no
	# deferral, 105 ticks in one with a deferral), which costs at most that
	# short exit: about 350 instructions in Bochs from the exit to the
	# entry, when the deadline fired at the exit's first instruction
	# (tick_guest_fired); 400 is that and a seventh
	[ "$(kv "$line" lat_p99_ticks)" -le 10 ] && { [ "$(kv "$line" lat_max_ticks)" -le 10 ] ||
		{ [ "$(window "$1" tick_defer_exits)" -gt 0 ] && [ "$(kv "$line" lat_max_ticks)" -le 400 ]; }; } ||
		{ echo "rt disturbed by the console: $line"; return 1; }
	echo "console script: $(grep -c 'ok=1 what=expect' "$1/drive.txt") answers checked; rt max $(kv "$line" lat_max_ticks) ticks, $(window "$1" tick_defer_exits) tick deferrals"
}

# A console script that fails ends its run then, not at the run's timeout:
# the echo partition waits for input for ever, so before tests/emu/run.sh
# watched drive.txt a miss (a line split by an early prompt flush, in CI's
# checked bochs_console_input) held the suite for the scaled timeout, 900 s.
test_bochs_console_gives_up() {
	local msg
	msg=$(console_run "$1" tests/emu/console-miss.script 300 --cpus 4 \
		--iso "$TEST_ISO_DIR/console.iso" --expect ok 2>&1) &&
		{ echo "a console script that failed passed: $msg"; return 1; }
	script_gave_up "$1" "" "$msg"
}

# No core is free: input and the monitor are served at the guests' exits, as
# the boot says; the latency guest still loses nothing.
test_bochs_console_busy() {
	console_run "$1" tests/emu/console-busy.script 300 --cpus 2 \
		--iso "$TEST_ISO_DIR/console-busy.iso" --expect ok &&
		rtbench_clean "$1" 20000 && ends_whole "$1"
}
