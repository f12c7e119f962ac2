# SPDX-License-Identifier: MIT
# Which emulator runs the VMCS checker judges, sourced by
# tests/vmcscheck/run.sh, tests/vmcscheck/emu.sh and tests/run_tests.sh.
#
# In make test every Bochs emulator test of the sections emu, matrix and
# linux (the two full models) runs once, on the VMCS_CHECK=1 build,
# through tests/vmcscheck/emu.sh: its own assertions and the checker both
# count. The lists below name the exceptions; the section vmcs runs the
# checker on the ones whose own assertions stay on the plain build.

# Runs whose own assertions are judged on the plain build, because they
# bound a latency, a lateness or a rate in Bochs TSC ticks (one an
# instruction) that the checker's 900-1,150 ticks on every entry (2,000
# when the figures below were taken) inflates: every exit's round trip
# carries a check. TEST names it on every model of make test (Ivy Bridge,
# Skylake-X, Tiger Lake), TEST@MODEL on that model only; the figures are
# the checking build's, where it failed (Bochs 2.7). With the cheaper
# check some have passed there (2026-12-08: bochs_restart on all three
# models, bochs_channel_shared on two, bochs_channel_edge on one, the
# others not): not yet shown to hold run after run, so they stay here.
# The section vmcs runs each on the checking build, its own assertions
# not counted. No bound is loosened for that build.
#   bochs_shared: a shared core's window starts within one tick exit of
#     its time; each start is a checked entry (3,690 ticks late at worst).
#   bochs_xapic: the xAPIC direct guest's p99 latency; its LAPIC page
#     accesses exit (p99 1,482 ticks).
#   bochs_channel_edge: the flood's refused rings outnumber its rings in
#     50 ms: each refused ring is an exit, so fewer fit (260 for 502).
#   bochs_channel_shared: the sender rings again as soon as the receiver's
#     handler acks, while the receiver is in its EOI exit, so on this
#     build nearly every kick lands in root mode (2 NMI exits, bound
#     1,000) and each doorbell then costs three checked entries (that
#     exit's, the kick's exit at once, the interrupt window's) and often a
#     wait for the next window: one way 16,513 ticks on average (bound
#     6,000; 24,356 when a kick in root mode still waited for the next
#     exit).
#   bochs_channel: the one-way doorbell's worst case of 2,000 ticks
#     (3,865 on Tiger Lake; 3,555 on Ivy Bridge once the direct host tick
#     took its early exit, which moved where the checked entries fall).
#   bochs_console_input: rt's p99 of 10 ticks beside the console (p99
#     1,000 with rt's entries checked).
#   bochs_restart: rt beside the restarts keeps its quiet p99 within 10
#     ticks (1,464 against 148 on Skylake-X with rt's entries checked).
# (Until 2026-12-07 these two ran once, checked, with rt's entries left
# unchecked by name, vmcs_check_skip=rt: every entry of the partitions the
# test is about was judged, but not rt's.)
VMCS_CHECK_OWN_PLAIN="bochs_shared bochs_xapic bochs_channel_edge bochs_channel_shared
	bochs_channel bochs_console_input bochs_restart"

# Runs whose own assertions fail on the checking build for a reason not yet
# understood, not shown to be the checker's time: a finding to resolve, kept
# on the plain build meanwhile (their own assertions pass there), and run
# checked in the section vmcs where they end. None now. The last,
# bochs_timer_inject@tigerlake (one exit more than host ticks, deferrals
# and fires account for, 2,329 for 2,328, on some trees), was resolved on
# 2026-12-07, when Skylake-X's checked run showed it (2,331 for 2,330): an
# HLT exit, taken because a fire came while rtbench had IF = 0 and the
# vector waited for its sti; hlt (hv/apic/deliver.c). Where fires fall
# against the guest's code moves with the checker's time; the test now
# counts those exits (VCPU_STATS window_exits, hlt_exits) and bounds them.
VMCS_CHECK_OPEN=""

# Runs that end Bochs on purpose, with Tempo running, so their logs have
# no checker summary: checked like the rest, their own assertions counted,
# each log judged instead by the checking build's boot line ("VMCS
# checker: on") and the absence of any broken rule's line (each refused
# entry prints VMCS_CHECK_FAIL at once); VMCS_CHECK_TEST counts them as
# unended=.
#   bochs_stall_guard: the harness stops Bochs with SIGSTOP and its stall
#     guard ends it: a test of the harness. The stop comes as soon as
#     Bochs' screen is drained, before Tempo has built a partition (its
#     serial log is empty so far), so there is no entry to judge.
#   bochs_console_gives_up, bochs_dev_com2_gives_up: the harness ends
#     Bochs when the console script (COM1's, COM2's) misses a line.
# shellcheck disable=SC2034  # read by tests/vmcscheck/one.sh
VMCS_CHECK_NO_END="bochs_stall_guard bochs_console_gives_up bochs_dev_com2_gives_up"

# Linux tests whose every entry the checker judges in make test, their own
# assertions counted too (tests/vmcscheck/emu.sh); the others run on the
# plain build. On the checking build (2026-12-07, Ivy Bridge):
# bochs_dev_ne2k_linux passed in 139 s (171,856 entries; 140 s on the
# plain build). Not here:
#   linux_boot: its host tick bound (late by at most the slack and 1,000
#     ticks) is not this build's: a tick that comes due in root mode is
#     taken at the next entry, which the check lengthens by 2,000 ticks
#     (13,435 against 13,500 with rt's entries unchecked, when images
#     could still leave them so: a pass by luck; 14,310 with them checked). So it runs twice (VMCS_CHECK_LINUX_VERDICT below): on the
#     plain build, its own assertions judged, and as checked_linux_boot on
#     this one, every entry checked (rt's too: 367,820 on 2026-12-06, 0
#     violations), the checker's verdict alone: about 290 s more of Bochs
#     beside the other Linux tests, some 2.5 minutes of the suite.
#   linux_shell, linux_chan: rt's max of 10 ticks beside Linux (p99 765
#     with rt's entries checked). Twice too, as linux_boot (until
#     2026-12-07 once, checked, with rt's entries left unchecked by name).
#     Measured 2026-12-07, Ivy Bridge, two at a time: linux_shell 134 s
#     plain, checked_linux_shell 128 s (183,856 entries, 0 violations);
#     linux_chan 109 s, checked_linux_chan 145 s (144,154 entries).
#   linux_no_initrd, linux_corrupt_kernel: refused before any entry.
#   linux_qemu_ivshmem: QEMU, no VMX.
# VMCS_CHECK_LINUX_ISOS: the images the tests of VMCS_CHECK_LINUX and
# VMCS_CHECK_LINUX_VERDICT boot, made in the
# checking build's folder with the plain build's kernel and initrd
# (tests/run_tests.sh).
# shellcheck disable=SC2034  # read by tests/vmcscheck/emu.sh and tests/run_tests.sh
VMCS_CHECK_LINUX="bochs_dev_ne2k_linux"
# shellcheck disable=SC2034
VMCS_CHECK_LINUX_ISOS="linux-ne2k linux-shell linux-chan linux-boot"
# Linux tests run a second time on the checking build, as checked_TEST in
# the section linux (tests/vmcscheck/emu.sh), judged by the checker alone.
# shellcheck disable=SC2034
VMCS_CHECK_LINUX_VERDICT="linux_boot linux_shell linux_chan"

# vmcs_check_listed ENTRY LIST: ENTRY (TEST or TEST@MODEL) is on LIST,
# by its test's name or by its own (TEST alone runs on tests/emu/run.sh's
# default model, Ivy Bridge)
vmcs_check_listed() {
	local e=$1
	[ "$e" != "${e%@*}" ] || e+=@corei7_ivy_bridge_3770k
	[[ " ${2//[$'\t\n']/ } " == *" ${1%@*} "* ]] || [[ " ${2//[$'\t\n']/ } " == *" $e "* ]]
}

# the three Bochs models make test runs the emulator tests on (the section
# emu's default, then the two full models of the section linux)
VMCS_CHECK_TEST_MODELS="corei7_ivy_bridge_3770k corei7_skylake_x tigerlake"

# vmcs_check_own_plain_entries: the entries of VMCS_CHECK_OWN_PLAIN and
# VMCS_CHECK_OPEN as make test runs them (in the sections emu, matrix and
# linux), for the section vmcs, on the models of VMCS_CHECK_OWN_PLAIN_MODELS
# (default the three of make test: Skylake-X's and Tiger Lake's add about
# 140 s two at a time, 2026-12-07: 285 s of Bochs). A test that names its own model runs
# once, where its model is listed.
vmcs_check_own_plain_entries() {
	local e t model
	local models=${VMCS_CHECK_OWN_PLAIN_MODELS:-$VMCS_CHECK_TEST_MODELS}
	for e in $(for t in $VMCS_CHECK_OWN_PLAIN $VMCS_CHECK_OPEN; do
		if [[ " $EMU_PINNED " == *" $t "* ]]; then
			echo "$t"
		elif [ "$t" != "${t%@*}" ]; then
			[[ " $models " == *" ${t#*@} "* ]] && echo "$t"
		else
			for model in $models; do
				echo "$t@$model"
			done
		fi
	done); do
		echo "$e"
	done
}

# vmcs_check_entries quick|all: one entry a line, the longest first so
# that it takes one core while the other runs the rest. quick (the
# section vmcs): vmcs_break and vmcs_break_regs, the attack suite on the three models of make
# test (or VMCS_CHECK_ATTACK_MODELS; the attack section runs it on all
# three on the plain build), and the tests of VMCS_CHECK_OWN_PLAIN (or
# VMCS_CHECK_TESTS on the first model of VMCS_CHECK_MODELS); all: every Bochs emulator test (or
# VMCS_CHECK_TESTS) on each of VMCS_CHECK_MODELS, a test that names its
# own model once, and the attack suite on each of VMCS_CHECK_ATTACK_MODELS.
# vmcs_break, vmcs_break_regs and the attack suite first in both.
vmcs_check_entries() {
	local models=${VMCS_CHECK_MODELS:-corei7_ivy_bridge_3770k} attack_models tests model t
	attack_models=${VMCS_CHECK_ATTACK_MODELS:-$models}
	# shellcheck source=tests/emu/tests.sh
	[ -n "${EMU_TESTS:-}" ] || . tests/emu/tests.sh
	if [ "$1" = quick ]; then
		models=${models%% *}
		[ -n "${VMCS_CHECK_ATTACK_MODELS:-}" ] ||
			attack_models=$VMCS_CHECK_TEST_MODELS
	fi
	echo vmcs_break
	echo vmcs_break_regs
	if [ "$attack_models" != none ]; then
		for model in $attack_models; do echo "attacks@$model"; done
	fi
	if [ "$1" = quick ] && [ -z "${VMCS_CHECK_TESTS:-}" ]; then
		vmcs_check_own_plain_entries
		return
	fi
	tests=${VMCS_CHECK_TESTS:-$EMU_TESTS}
	for model in $models; do
		for t in $tests; do
			[[ $t == bochs_* ]] || continue		# QEMU runs have no VMX
			if [[ " $EMU_PINNED " == *" $t "* ]]; then
				[ "$model" = "${models%% *}" ] && echo "$t"
				continue
			fi
			echo "$t@$model"
		done
	done
}
