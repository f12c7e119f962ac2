# SPDX-License-Identifier: MIT
# Emulator tests: the guest's LAPIC timer in each mode (direct, inject,
# emulated, pv-lazy) on a dedicated core, rtbench's attacks on it, and the
# hypervisor's own ticks and watchdog on the VMX-preemption timer (SDM Vol. 3C
# 26.5.1).

timer_run() {	# OUT MODE
	bochs "$1" --cpus 2 --iso "$TEST_ISO_DIR/timer-$2.iso" --expect ok --timeout 300 || return 1
	need "$1" "^VCPU_STATS partition=rt vcpu=0 mode=$2 " "the vCPU ran in $2 mode"
}

# direct: 10,000 timer events, and the measured vCPU's only exits are host
# ticks (the closing stats hypercall aside), about one per ms.
test_bochs_timer_direct() {
	local exits ticks tsc defer
	timer_run "$1" direct && rtbench_clean "$1" 10000 || return 1
	exits=$(window "$1" exits) ticks=$(window "$1" tick_exits) tsc=$(window "$1" tsc)
	defer=$(window "$1" tick_defer_exits)
	# besides the ticks, only the exits that moved a tick past a guest deadline:
	# the exit stub's steps (five margins apart, each with a margin to spare,
	# within the slack: four a tick at most with its default, tick_us / 4)
	# and hv's own deferral
	[ $((exits - 1)) -eq $((ticks + defer)) ] && [ "$defer" -le $((6 * ticks)) ] ||
		{ echo "exits $exits besides $ticks ticks and $defer deferrals"; return 1; }
	# 50,000 TSC ticks a host tick (1 ms at ips 50M); allow one either side
	[ $((ticks - tsc / 50000)) -le 1 ] && [ $((tsc / 50000 - ticks)) -le 1 ] ||
		{ echo "$ticks host ticks in $tsc TSC ticks"; return 1; }
	[ "$(window "$1" deadline_write_exits)" = 0 ] || { echo "deadline writes exited"; return 1; }
	ticks_on_time "$1" 1 100
}

# inject: one exit per fire (the hypervisor's vector) and none per deadline
# write; without APIC-register virtualization (Bochs has none) the guest's
# EOI to its virtual LAPIC is one more.
test_bochs_timer_inject() {
	local exits ticks ext eoi defer wake win want_eoi=2000
	timer_run "$1" inject && rtbench_clean "$1" 2000 || return 1
	exits=$(window "$1" exits) ticks=$(window "$1" tick_exits)
	ext=$(window "$1" extint_exits) eoi=$(window "$1" eoi_exits)
	defer=$(window "$1" tick_defer_exits)
	# a fire that comes while the guest has IF = 0 (rtbench's wait loop
	# between its cli and its next sti; hlt) waits for the HLT exit that
	# sti; hlt then takes (hv/apic/deliver.c; the STI shadow keeps the
	# interrupt window shut, and rtbench waits with no other sti): where
	# fires fall against the guest's code moves with every root-mode path's
	# length (the checking build's 2,000 ticks an entry: one HLT exit on
	# Skylake-X, 2026-12-07; 0 on the plain build), so those exits are
	# counted, and bounded at 0.5% of fires; an interrupt-window exit would
	# be a vector Tempo failed to inject when it could
	wake=$(window "$1" hlt_exits) win=$(window "$1" window_exits)
	[ -n "$wake" ] && [ -n "$win" ] ||
		{ echo "no hlt_exits or window_exits in VCPU_STATS (an older tempo.elf?)"; return 1; }
	[ "$wake" -le 10 ] && [ "$win" = 0 ] ||
		{ echo "$wake HLT exits and $win interrupt-window exits for 2000 fires"; return 1; }
	# with APIC virtualization (tigerlake) the guest's EOI takes no exit
	apicv_on "$1" && want_eoi=0
	[ "$ext" = 2000 ] && [ "$eoi" = "$want_eoi" ] ||
		{ echo "extint exits $ext, EOI exits $eoi for 2000 fires"; return 1; }
	[ "$(window "$1" deadline_write_exits)" = 0 ] || { echo "deadline writes exited"; return 1; }
	[ $((exits - 1)) -eq $((ticks + defer + ext + eoi + wake)) ] && [ "$defer" -le "$ticks" ] ||
		{ echo "$exits exits: $ticks ticks + $defer + $ext + $eoi + $wake + 1 expected"; return 1; }
	ticks_on_time "$1" 1 100
}

# emulated: every deadline write exits and is counted; expiries come on the
# preemption timer.
test_bochs_timer_emulated() {
	local writes timer ticks
	timer_run "$1" emulated && rtbench_clean "$1" 2000 || return 1
	writes=$(window "$1" deadline_write_exits)
	timer=$(window "$1" timer_exits) ticks=$(window "$1" tick_exits)
	[ "$writes" = 2000 ] || { echo "$writes deadline-write exits for 2000 writes"; return 1; }
	# every deadline write and expiry went the fast path (hv/exit/exit.c)
	[ "$(window "$1" fast_exits)" -ge $((writes + timer - ticks)) ] ||
		{ echo "only $(window "$1" fast_exits) fast-path exits"; return 1; }
	need "$1" '^TRACE partition=rt vcpu=0 seq=[0-9]+ tsc=[0-9]+ event=(deadline_write|inject|lvt) ' \
		"the timer trace ring at the partition's end" || return 1
	[ "$(window "$1" fired)" = 2000 ] || { echo "fired $(window "$1" fired) of 2000"; return 1; }
	# the guest's EOIs: one exit each, none with APIC virtualization
	[ "$(window "$1" eoi_exits)" = "$(apicv_on "$1" && echo 0 || echo 2000)" ] ||
		{ echo "$(window "$1" eoi_exits) EOI exits for 2000 fires"; return 1; }
	# an expiry may also be found at another exit's end: never more timer exits than fires
	[ $((timer - ticks)) -le 2000 ] && [ $((timer - ticks)) -ge 1900 ] ||
		{ echo "$((timer - ticks)) deadline-expiry exits for 2000 fires"; return 1; }
	ticks_on_time "$1" 1 100
}

# Every attack of rtbench (IF=0 spin, no EOI, TPR 15, masked LVT, deadline 0,
# all-ones, rewrite storm, CPUID storm; 20 ms each): host ticks stay on time
# and the guest's timer still works afterwards.
attacks_run() {	# OUT MODE
	local a
	bochs "$1" --cpus 2 --iso "$TEST_ISO_DIR/attacks-$2.iso" --expect ok --timeout 300 || return 1
	for a in cli_spin no_eoi tpr15 mask_lvt deadline_zero deadline_ones deadline_storm cpuid_storm; do
		need "$1" "^\\[rt\\] rtbench: attack=$a loops=[0-9]+ irqs=[0-9]+ timer_after=ok$" \
			"$a: the guest's timer works after it" &&
			need "$1" "^\\[rt\\] rtbench: attack=$a end survived$" "$a survived" || return 1
	done
	rtbench_clean "$1" 100 && ticks_on_time "$1" 1 160 &&
		need "$1" '^PARTITION_END name=rt state=shutdown exit_code=0$' "clean end"
}

test_bochs_attacks_direct() { attacks_run "$1" direct; }

test_bochs_attacks_emulated() { attacks_run "$1" emulated; }

# rtbench_extra OUT PARTITION KEY: KEY from its "rewrite_raced=... postponed=..." line
rtbench_extra() {
	kv "$(serial "$1" | grep -E "^\\[$2\\] rtbench:   rewrite_raced=" | head -n 1)" "$3"
}

# pv-lazy: rewriting later traps once per event (the first write, with
# nothing armed) instead of four times; rewriting earlier traps (all but a
# few, below); no
# interrupt is lost, early or doubled either way. A rewrite-later event's
# first deadline, postponed on the page but read at the exit armed for it,
# fires as well (rtbench counts it as postponed: fired = events + postponed).
# rewrite-passed publishes after the first deadline expired, before the
# exit for it: that one's interrupt must not be lost. rewrite_raced counts
# the events that did publish so (the first write half an interval ahead
# leaves its trap time to come back first).
test_bochs_pv_lazy() {
	local l p
	bochs "$1" --cpus 4 --iso "$TEST_ISO_DIR/pv-lazy.iso" --expect ok --timeout 400 || return 1
	need "$1" '^\[later\] rtbench: pv-lazy deadline page at 0x' "later registered its page" &&
		rtbench_clean "$1" 1000 later && rtbench_clean "$1" 1000 earlier &&
		rtbench_clean "$1" 300 passed || return 1
	[ "$(window "$1" deadline_write_exits later)" = 1000 ] ||
		{ echo "later: $(window "$1" deadline_write_exits later) write exits for 4000 writes"; return 1; }
	# Rewriting earlier traps unless an exit Tempo armed already comes
	# first (armed <= the new deadline: a host tick that could not step past
	# the guest's deadlines within its slack), which the page then covers.
	# Where ticks fall moves with the image's layout: measured 2,000 of
	# 2,000 trapped, and 1,999 in an image whose ticks fell at another
	# phase. Almost all trap (at most 1% lazy, twenty times the one seen);
	# the fires, none lost or early, are the check that a lazy one was
	# right.
	l=$(window "$1" deadline_write_exits earlier)
	[ "$l" -le 2000 ] && [ "$l" -ge 1980 ] ||
		{ echo "earlier: $l write exits for 2000 writes"; return 1; }
	p=$(rtbench_extra "$1" later postponed)
	p=${p:-0}
	[ "$(window "$1" fired later)" = $((1000 + p)) ] && [ "$(window "$1" fired earlier)" = 1000 ] ||
		{ echo "fires: later $(window "$1" fired later) (postponed $p), earlier $(window "$1" fired earlier)"; return 1; }
	l=$(rtbench_extra "$1" passed rewrite_raced)
	[ "${l:-0}" -ge 250 ] ||
		{ echo "passed: only ${l:-0} of 300 published after the first expired"; return 1; }
	[ "$(window "$1" fired passed)" = 600 ] ||
		{ echo "passed: $(window "$1" fired passed) fires for 2 x 300 deadlines"; return 1; }
}

# Tickless, 5 ms watchdog, a 30 ms IF=0 spin: no host tick at all, and the
# watchdog (on the preemption timer too) notices the vCPU that does not exit.
test_bochs_watchdog() {
	local h
	bochs "$1" --cpus 2 --iso "$TEST_ISO_DIR/watchdog.iso" --expect ok --timeout 300 || return 1
	need "$1" '^Host tick: 0 us = 0 TSC ticks .*\(tickless\)' "tickless" &&
		rtbench_clean "$1" 50 || return 1
	h=$(serial "$1" | grep -E '^HOSTTICK cpu=1 ')
	[ "$(kv "$h" ticks)" = 0 ] && [ "$(kv "$h" watchdog_fired)" -ge 5 ] ||
		{ echo "watchdog did not notice the 30 ms spin: $h"; return 1; }
}
