# SPDX-License-Identifier: MIT
# What the VMCS checker's pass runs (tests/vmcscheck/one.sh names the kinds
# of entry), sourced by tests/vmcscheck/run.sh and tests/run_tests.sh.

# The quick set: each VMCS shape Tempo builds, on one model. Boot vCPUs in
# all three timer modes and on a shared core (its windows switch VMCS), a
# real-mode AP started by SIPI (bochs_partitions), a partition restarted
# (launched again: bochs_channel_restart, 24 s here, where bochs_restart
# takes 180 s), xAPIC, APIC-virtualization and posted-interrupt controls
# (bochs_apicv and bochs_posted_soft name their own model), hostile guests'
# entries on dedicated and shared cores; the attack suite adds the tick
# step-aside. On Ivy Bridge, 7 to 65 s each but the attack suite (150 to
# 210 s).
VMCS_CHECK_QUICK="bochs_partitions bochs_timer_direct bochs_timer_emulated bochs_timer_inject
	bochs_shared bochs_channel_restart bochs_xapic bochs_apicv bochs_posted_soft
	bochs_attacks_direct bochs_shared_attacks"

# vmcs_check_entries quick|all: one entry a line, the longest first so
# that it takes one core while the other runs the rest. quick: the attack
# suite and the quick set on the first of VMCS_CHECK_MODELS; all: every
# Bochs emulator test (or VMCS_CHECK_TESTS) on each of them, a test that
# names its own model once, and the attack suite on each of
# VMCS_CHECK_ATTACK_MODELS. vmcs_break and the attack suite first in both.
vmcs_check_entries() {
	local models=${VMCS_CHECK_MODELS:-corei7_ivy_bridge_3770k} attack_models tests model t
	attack_models=${VMCS_CHECK_ATTACK_MODELS:-$models}
	# shellcheck source=tests/emu/tests.sh
	[ -n "${EMU_TESTS:-}" ] || . tests/emu/tests.sh
	if [ "$1" = quick ]; then
		models=${models%% *}
		[ -n "${VMCS_CHECK_ATTACK_MODELS:-}" ] || attack_models=$models
		tests=${VMCS_CHECK_TESTS:-$VMCS_CHECK_QUICK}
	else
		tests=${VMCS_CHECK_TESTS:-$EMU_BG_TEST $EMU_TESTS}
	fi
	echo vmcs_break
	if [ "$attack_models" != none ]; then
		for model in $attack_models; do echo "attacks@$model"; done
	fi
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
