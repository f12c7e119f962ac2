# SPDX-License-Identifier: MIT
# Emulator tests: the guest's APIC beyond x2APIC on a dedicated core. xAPIC
# mode through the MMIO page (docs/xapic.md), APIC virtualization on the
# model that has it (tigerlake), and posted interrupts done in software
# (posted=soft).

# xAPIC-mode guests (xapic.cfg, docs/xapic.md): rtbench leaves x2APIC mode
# through disabled and drives its APIC through the xAPIC page. In direct mode
# its deadline writes still never exit and each event's one exit is its EOI
# (an MMIO write Tempo decodes); in emulated mode the vLAPIC serves the page.
test_bochs_xapic() {
	local d e ex
	bochs "$1" --cpus 3 --iso "$TEST_ISO_DIR/xapic.iso" --expect ok --timeout 240 || return 1
	need "$1" '^\[xdirect\] rtbench: xAPIC mode, registers at 0xfee00000, version 0x[0-9a-f]+$' "direct: xAPIC mode" &&
		need "$1" '^\[xemul\] rtbench: xAPIC mode, registers at 0xfee00000' "emulated: xAPIC mode" &&
		rtbench_clean "$1" 5000 xdirect && rtbench_clean "$1" 5000 xemul || return 1
	d=$(window "$1" deadline_write_exits xdirect) || return 1
	[ "$d" -eq 0 ] || { echo "$d deadline-write exits in direct xAPIC mode"; return 1; }
	ex=$(serial "$1" | sed -n 's/^EXITS partition=xdirect vcpu=0 .* ept_violation=\([0-9]*\).*/\1/p')
	[ -n "$ex" ] && [ "$ex" -ge 5000 ] && [ "$ex" -le 5010 ] ||
		{ echo "direct: '$ex' MMIO exits for 5,000 EOIs and the set-up"; return 1; }
	e=$(rtbench_line "$1" xdirect)
	[ "$(kv "$e" lat_p99_ticks)" -le 10 ] || { echo "direct xAPIC latency: $e"; return 1; }
	ends_whole "$1"
}

# APIC virtualization, on the model that has it: inject and
# emulated mode with every event clean, no EOI exit, and at most 1.25 and
# 2.25 exits per timer event (host ticks included, 1 ms tick, 100 us events).
test_bochs_apicv() {
	local m exits max
	for m in inject emulated; do
		mkdir -p "$1/$m"
		bochs "$1/$m" --cpus 2 --model tigerlake --iso "$TEST_ISO_DIR/timer-$m.iso" --expect ok ||
			return 1
		apicv_on "$1/$m" || { echo "$m: no 'APIC virtualization on' at boot"; return 1; }
		rtbench_clean "$1/$m" 2000 || return 1
		exits=$(window "$1/$m" exits)
		max=$([ $m = inject ] && echo 2500 || echo 4500)
		[ "$(window "$1/$m" eoi_exits)" = 0 ] && [ "$exits" -le "$max" ] ||
			{ echo "$m: $exits exits, $(window "$1/$m" eoi_exits) EOI exits for 2000 events"; return 1; }
		echo "$m: $exits exits for 2000 events, 0 EOI exits"
	done
}

# Posted interrupts, Tempo's half (posted=soft on tigerlake, which has APIC
# virtualization but, like every Bochs 2.7 model, no posted interrupts): two
# inject-mode partitions on a channel, 20,000 doorbells one way and 2,000
# round trips. Each doorbell goes through the target's posted-interrupt
# descriptor: none lost, doubled or stray, every one taken from the
# descriptor by Tempo before an entry (posted_taken), the receiver's only
# exits besides host ticks one notification a doorbell (on hardware the CPU
# takes it with no exit). A vCPU taking posted interrupts is refused direct
# mode (-22) and stays in inject (1).
test_bochs_posted_soft() {
	local n=20000 rtt=2000 taken
	bochs "$1" --cpus 3 --model tigerlake --iso "$TEST_ISO_DIR/posted-soft.iso" --expect ok \
		--timeout 600 || return 1
	need "$1" '^VMX: posted interrupts soft ' "posted=soft at boot" &&
		need "$1" '^\[ping\] CHANTEST_MODE role=send asked=direct ret=-22 mode=1$' \
			"direct mode refused to a vCPU taking posted interrupts" &&
		ping_pong_clean "$1" $n $rtt $n || return 1
	taken=$(stats_delta "$1" pong posted_taken) || return 1
	[ "$taken" = $n ] || { echo "pong took $taken posted vectors for $n doorbells"; return 1; }
	echo "$((n + rtt)) doorbells to pong and $rtt to ping, each taken from its descriptor; direct mode refused"
}

# What a guest must see as on hardware (fidelity.cfg): a fixed IPI to itself
# through the ICR, x2APIC and xAPIC, is in its vLAPIC's IRR when the write
# retires (inject and emulated); while its APIC is globally disabled no
# doorbell reaches it, and after it is enabled again they do; a port
# access that straddles devices reaches each byte's own (COM1's, no
# device's, the partition's own assigned ports'); an escape
# sequence it prints reaches the serial line escaped (no ESC or BEL byte
# from it), with its text intact.
test_bochs_fidelity() {
	local raw
	bochs "$1" --cpus 6 --iso "$TEST_ISO_DIR/fidelity.iso" --expect ok --timeout 300 ||
		return 1
	survived "$1" inj icr_self_if0 irr_at_once && survived "$1" emu icr_self_if0 irr_at_once &&
		survived "$1" dis doorbell_disabled_apic none_while_disabled &&
		survived "$1" ring doorbell_ringer told_to_stop &&
		survived "$1" inj io_straddle per_byte && survived "$1" own io_own_straddle per_byte &&
		survived "$1" inj console_escape printed ||
		return 1
	raw=$(tr -d '\r' < "$1/serial.txt" | grep -a '^\[inj\] hostile: escape ')
	[ "$raw" = '[inj] hostile: escape ^[[2J^[[31mred^G bell^[]0;title^G end' ] ||
		{ echo "the guest's escape sequence reached the console as: $(echo "$raw" | od -c | head -n 3)"; return 1; }
	! serial "$1" | grep '^PARTITION_STOP' || { echo "a partition was stopped"; return 1; }
}
