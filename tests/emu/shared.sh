# SPDX-License-Identifier: MIT
# Emulator tests: time partitioning. vCPUs sharing a core in a static cyclic
# schedule ([schedule N]): windows on time, the dedicated core beside them
# untouched, and a hostile guest's state kept to its own windows.

# a (inject) and b (emulated) share CPU 1 in 400/400/200 us windows; c has
# CPU 2 alone. Every timer interrupt arrives, every window comes on time
# (on average within 400 ticks, at worst within one long exit) and as often
# as the schedule says, and c's figures are
# those it has with no neighbour at all (Bochs is deterministic).
test_bochs_shared() {
	local solo="$1/solo" w starts frames
	bochs "$1" --cpus 3 --iso "$TEST_ISO_DIR/shared.iso" --expect ok --timeout 300 || return 1
	rtbench_clean "$1" 400 a && rtbench_clean "$1" 400 b && rtbench_clean "$1" 1500 c ||
		return 1
	need "$1" '^SCHED cpu=1 windows=3 frame_ticks=50000 ' "the schedule ran" &&
		need "$1" '^TRACE partition=a vcpu=0 .* event=(save|restore|window_in|hw_fire|inject) ' \
			"a's switches traced" || return 1
	frames=$(kv "$(serial "$1" | grep '^SCHED cpu=1 ')" frames)
	for w in 0 1 2; do
		local line
		line=$(serial "$1" | grep -E "^WINDOW cpu=1 index=$w ")
		starts=$(kv "$line" starts)
		# a start waits for the exit in progress when its window comes.
		# Measured on the Bochs models: 118-328 ticks late on average; the
		# worst 240-725 in most runs, and 995-2,620 in a run where a start
		# meets one of the rare long exits (whether and where that happens
		# moves with the image's layout: 2,620 the idle window's, after b's
		# last window, on a tree whose exits changed only by a few
		# instructions). So the worst case is bounded by one long exit
		# (3,150: the longest seen and a fifth more) and the average held
		# tight (400: the highest average and a fifth more)
		[ "$(kv "$line" skipped)" = 0 ] && [ "$(kv "$line" start_late_max_ticks)" -lt 3150 ] &&
			[ "$(kv "$line" start_late_avg_ticks)" -lt 400 ] &&
			[ $((starts - frames)) -le 2 ] && [ $((frames - starts)) -le 2 ] ||
			{ echo "window $w off schedule: $line (frames $frames)"; return 1; }
	done
	# CPU 1's frame is the tick period: each tick meets a window switch, whose
	# path it waits for (measured at most 1,010 ticks late on ivy_bridge,
	# 1,050 with APIC virtualization on tigerlake, where the switch also
	# copies the virtual-APIC page; the bound, 1,200, leaves 150 above that)
	ticks_on_time "$1" 1 100 1200 && ticks_on_time "$1" 2 100 || return 1
	mkdir -p "$solo"
	bochs "$solo" --cpus 3 --iso "$TEST_ISO_DIR/shared-solo.iso" --expect ok --timeout 300 ||
		return 1
	# the same to the tick, except the worst case: which event meets a host-tick exit
	# depends on the phase of c's start, which moves with the boot's work
	local with alone k
	with=$(rtbench_line "$1" c) alone=$(rtbench_line "$solo" c)
	for k in events lost early dup lat_min_ticks; do
		[ "$(kv "$with" $k)" = "$(kv "$alone" $k)" ] ||
			{ echo "c's $k differs with neighbours: $with / alone: $alone"; return 1; }
	done
	# Late events (8 ticks or more) are those a host tick's exit meets:
	# random deadlines, ticks on a 50,000-tick grid, an exit of about 400
	# ticks, so about 0.8% of 1,500, 12 give or take 4, and which ones
	# moves with the phase of c's start. The p99 (the 1,485th event) sits
	# on that edge: it is 4 ticks when fewer than 16 events are late and
	# about 80 when more are, and a few instructions more or less on the
	# exit path move the phase enough to cross it. So count the late
	# events instead (measured 10 beside the neighbours and 8 alone on
	# ivy_bridge; up to 16 and 11 in other images): no more than 15 over
	# alone, 3 standard deviations of the difference of two counts of about
	# 12 each (sqrt(12 + 12) = 4.9). A neighbour that reached c's core would
	# cost hundreds of ticks on a share of the events, not a few.
	local late_with late_alone
	[ "$(late_events "$1" c 0)" = 1500 ] && [ "$(late_events "$solo" c 0)" = 1500 ] ||
		{ echo "c's latency histogram does not hold its 1,500 events"; return 1; }
	late_with=$(late_events "$1" c 8) late_alone=$(late_events "$solo" c 8)
	[ "$late_with" -le $((late_alone + 15)) ] ||
		{ echo "c has $late_with events 8+ ticks late with neighbours, $late_alone alone: $with / alone: $alone"; return 1; }
	# and nothing of theirs reaches c's core: its exits other than port I/O
	# (its prints) and its core's host ticks are the CPUID and hypercalls it
	# takes alone, and every preemption-timer exit it took was one of those
	# ticks; a neighbour that made c exit once a frame would add about 150.
	# The tick count itself follows the run's length, which its prints
	# stretch when the console is busy with the neighbours' output
	# (measured: 244 ticks beside them against 240 alone), so it is not
	# compared
	local ex_with ex_alone run ex pt cpu hticks
	for run in "$1" "$solo"; do
		ex=$(serial "$run" | grep -E '^EXITS partition=c vcpu=0 ')
		pt=$(kv "$ex" preemption_timer)
		cpu=$(serial "$run" | sed -n "s/^Partition 'c': 1 vCPU (CPUs \([0-9]*\)).*/\1/p")
		hticks=$(kv "$(serial "$run" | grep -E "^HOSTTICK cpu=$cpu ")" ticks)
		[ -n "$pt" ] && [ -n "$hticks" ] && [ "$pt" = "$hticks" ] ||
			{ echo "c's preemption-timer exits ($pt) are not its core's host ticks (cpu $cpu: $hticks) in $run"; return 1; }
		ex=$(($(kv "$ex" total) - $(kv "$ex" io) - pt))
		if [ "$run" = "$1" ]; then ex_with=$ex; else ex_alone=$ex; fi
	done
	[ "$ex_with" = "$ex_alone" ] ||
		{ echo "c took $ex_with exits (not port I/O or host ticks) with neighbours, $ex_alone alone"; return 1; }
	# the average within 4 ticks: c waits in HLT, and Bochs wakes a halted CPU
	# at once when every CPU is halted (alone: idle cores sleep) but at its
	# next time slice when another CPU runs (the shared core's guests)
	[ $(($(kv "$with" lat_avg_ticks) - $(kv "$alone" lat_avg_ticks))) -le 4 ] &&
		[ $(($(kv "$alone" lat_avg_ticks) - $(kv "$with" lat_avg_ticks))) -le 4 ] ||
		{ echo "c's lat_avg_ticks moved by more than 4: $with / alone: $alone"; return 1; }
	# within one tick exit: an event whose deadline falls inside a host
	# tick's exit is late by the rest of that exit, anything from 0 to its
	# whole length (direct-random in docs/benchmarks.md: 416 ticks); which
	# of c's few hits lands where depends on the phase of c's start
	[ $(($(kv "$with" lat_max_ticks) - $(kv "$alone" lat_max_ticks))) -le 450 ] &&
		[ $(($(kv "$alone" lat_max_ticks) - $(kv "$with" lat_max_ticks))) -le 450 ] ||
		{ echo "c's worst case moved by more than a tick exit: $with / alone: $alone"; return 1; }
}

# survived OUT PARTITION ATTACK OBSERVED: the hostile guest's own report
survived() {
	need "$1" "^\\[$2\\] ATTACK_SURVIVED name=$3 observed=$4\$" "$2: $3 $4"
}

# A hostile guest on a shared core (inject) beside a latency guest (inject)
# and a probe (emulated): CR0.CD and DR0-3 it sets stay its own, its
# SELF_IPIs sent with IF=0 across window ends reach only itself, the LAPIC
# count-down timer it starts fires in its own vLAPIC only; the latency guest gets every
# event and no stray vector, the probe never sees CD or the DRs.
test_bochs_shared_attacks() {
	local line
	bochs "$1" --cpus 3 --iso "$TEST_ISO_DIR/shared-attacks.iso" --expect ok --timeout 300 ||
		return 1
	survived "$1" attacker leave_msrs ok && survived "$1" late probe_late_sibling clean &&
		survived "$1" attacker cr0_cd_spin shadowed && survived "$1" attacker dr_spin kept &&
		survived "$1" attacker self_ipi_windows own &&
		survived "$1" attacker lvt_periodic_tmict fired_virtual &&
		survived "$1" probe probe_neighbour clean && rtbench_clean "$1" 400 victim || return 1
	line=$(rtbench_line "$1" victim)
	[ "$(kv "$line" stray)" = 0 ] || { echo "stray vectors reached the victim: $line"; return 1; }
	! serial "$1" | grep '^PARTITION_STOP' || { echo "a partition was stopped"; return 1; }
}
