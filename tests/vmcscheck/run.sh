#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The emulator tests and the attack suite again, on a VMCS_CHECK=1 build
# (arch/x86/vmx_check.h, docs/containment.md): every VM entry of every run
# checked against SDM Vol. 3C 26.2 and 26.3 before it is made.
#
# A test passes here when every serial log it leaves ends with the checker's
# summary, "VMCS_CHECK violations=0 ... unreadable=0", and entries were
# checked wherever a guest ran. Its own assertions are reported (own=) but
# not counted: the check costs about 2,000 instructions an entry, which
# Bochs counts as TSC ticks, so the latency and lateness bounds the tests
# assert are not this build's to meet; the normal build meets them.
#
#   tests/vmcscheck/run.sh [--quick] [NAME_FILTER]
#     --quick                   the self-test, VMCS_CHECK_QUICK and the attack
#                               suite on the first model only: the section
#                               "vmcs" of make test, about 5 minutes of Bochs
#     VMCS_CHECK_TESTS          the emulator tests to run (default: every
#                               Bochs test; --quick: VMCS_CHECK_QUICK)
#     VMCS_CHECK_MODELS         Bochs models for the emulator tests
#                               (default corei7_ivy_bridge_3770k)
#     VMCS_CHECK_ATTACK_MODELS  models for the attack suite (default: the same;
#                               "none" leaves it out)
#     EMU_TIMEOUT_SCALE         every run's wall limit times this (default 3)
#     BUILD                     the check build's folder (default build-vmcs-check)
#
# One line per test and model, then a summary:
#   VMCS_CHECK_TEST name= model= logs= entries= violations= own=pass|fail ok=0|1
#   VMCS_CHECK_SUITE tests= failed= entries= violations= wall_s=
# Exit status 0 only when every test passed.
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 2

quick=0
[ "${1:-}" = --quick ] && { quick=1; shift; }
filter=${1:-}
export VMCS_CHECK=1
export BUILD=${BUILD:-build-vmcs-check}
export EMU_TIMEOUT_SCALE=${EMU_TIMEOUT_SCALE:-3}
models=${VMCS_CHECK_MODELS:-corei7_ivy_bridge_3770k}
attack_models=${VMCS_CHECK_ATTACK_MODELS:-$models}
# The quick set: each VMCS shape Tempo builds, on one model. Boot vCPUs in
# all three timer modes and on a shared core (its windows switch VMCS), a
# real-mode AP started by SIPI (bochs_partitions), partitions restarted
# (launched again), xAPIC and APIC-virtualization controls (bochs_apicv
# names its own model), a hostile guest's entries; the attack suite adds
# the tick step-aside.
VMCS_CHECK_QUICK="bochs_partitions bochs_timer_direct bochs_timer_emulated bochs_timer_inject
	bochs_shared bochs_restart bochs_xapic bochs_apicv bochs_attacks_direct"
if [ $quick = 1 ]; then
	models=${models%% *}
	[ -n "${VMCS_CHECK_ATTACK_MODELS:-}" ] || attack_models=$models
fi
logdir=$BUILD/vmcscheck
mkdir -p "$logdir"
start=$SECONDS

if ! make -s VMCS_CHECK=1 BUILD="$BUILD" all test-images > "$logdir/build.log" 2>&1; then
	echo "vmcscheck: make VMCS_CHECK=1 test-images failed (see $logdir/build.log)"
	tail -n 20 "$logdir/build.log"
	echo "VMCS_CHECK_SUITE tests=0 failed=1 entries=0 violations=0 wall_s=$((SECONDS - start))"
	exit 1
fi
# shellcheck source=tests/emu/tests.sh
. tests/emu/tests.sh

tests=0 failed=0 all_entries=0 all_violations=0

# judge NAME MODEL OUT OWN: every serial log under OUT has a clean summary
judge() {
	local name=$1 model=$2 out=$3 own=$4 logs=0 entries=0 violations=0 ok=1 f s v u e why=""
	while IFS= read -r f; do
		logs=$((logs + 1))
		s=$(tr -d '\r' < "$f" | grep -a '^VMCS_CHECK violations=' | tail -n 1)
		if [ -z "$s" ]; then
			ok=0 why="$why ${f#"$out"/}: no VMCS_CHECK summary (the run did not end)"
			continue
		fi
		v=$(echo "$s" | sed -n 's/.* violations=\([0-9]*\).*/\1/p')
		u=$(echo "$s" | sed -n 's/.* unreadable=\([0-9]*\).*/\1/p')
		e=$(echo "$s" | sed -n 's/.* entries=\([0-9]*\).*/\1/p')
		violations=$((violations + v)) entries=$((entries + e))
		[ "$v" = 0 ] && [ "$u" = 0 ] || ok=0 why="$why ${f#"$out"/}: $s"
		# a guest ran (its exits were counted) but no entry was checked
		if [ "$e" = 0 ] && tr -d '\r' < "$f" | grep -aq '^EXITS partition='; then
			ok=0 why="$why ${f#"$out"/}: guests ran, no entry checked"
		fi
	done < <(find "$out" -name serial.txt 2>/dev/null | sort)
	[ "$logs" -gt 0 ] || { ok=0 why=" no serial log"; }
	tests=$((tests + 1))
	all_entries=$((all_entries + entries)) all_violations=$((all_violations + violations))
	echo "VMCS_CHECK_TEST name=$name model=$model logs=$logs entries=$entries" \
		"violations=$violations own=$own ok=$ok"
	if [ $ok = 0 ]; then
		failed=$((failed + 1))
		echo "  why:$why"
		find "$out" -name serial.txt -exec grep -ah \
			'^VMCS_CHECK rule=\|^VMCS_CHECK_FAIL \|^VMCS_CHECK_ERROR ' {} + 2>/dev/null |
			tr -d '\r' | sort | uniq -c | sort -rn | head -n 20 | sed 's/^/  /'
	fi
}

# The pass can fail: test=vmcs_break breaks one resume (a reserved bit of the
# pending debug exceptions), which the checker must refuse with its lines,
# stopping that partition as a refused entry would, and count in its summary.
selftest() {
	local out=$logdir/vmcs_break iso=$logdir/vmcs_break/vmcs-break.iso ok=1 why=""
	rm -rf "$out"
	mkdir -p "$out"
	boot/mkiso.sh "$iso" "$BUILD/tempo.elf" "exit=emu test=vmcs_break" \
		tests/vmcscheck/vmcs-break.cfg:partitions "$BUILD/guests/hello-mb2.elf:hello-mb2" \
		> "$out/mkiso.log" 2>&1 || { ok=0 why=" mkiso failed"; }
	[ $ok = 0 ] || bochs "$out" --cpus 2 --iso "$iso" --expect ok > "$out/test.log" 2>&1 ||
		{ ok=0 why=" the run did not end ok"; }
	for want in '^VMCS_CHECK rule=guest\.pending_dbg_reserved sdm=26\.3\.1\.5 field=GUEST_PENDING_DBG value=0x10 ' \
		'^VMCS_CHECK_FAIL violations=1 entry=vmresume ' \
		'^PARTITION_STOP name=broken reason=vm_entry_failed .*qual=0x100 ' \
		'^VMCS_CHECK violations=1 .* refused_entries=1 unreadable=0 '; do
		[ $ok = 0 ] || serial "$out" | grep -E -- "$want" > /dev/null || { ok=0 why=" missing /$want/"; }
	done
	tests=$((tests + 1))
	echo "VMCS_CHECK_TEST name=vmcs_break model=corei7_ivy_bridge_3770k refused=1 ok=$ok"
	[ $ok = 1 ] || { failed=$((failed + 1)); echo "  why:$why"; }
}
[ -z "$filter" ] || [[ vmcs_break == *$filter* ]] && selftest

if [ -n "${VMCS_CHECK_TESTS:-}" ]; then
	run_tests=$VMCS_CHECK_TESTS
elif [ $quick = 1 ]; then
	run_tests=$VMCS_CHECK_QUICK
else
	run_tests="$EMU_TESTS $EMU_BG_TEST"
fi

for model in $models; do
	for t in $run_tests; do
		[[ $t == bochs_* ]] || continue		# QEMU runs have no VMX
		[ -n "$filter" ] && [[ $t != *$filter* ]] && continue
		# a pinned test names its own model: once, under the first
		[[ " $EMU_PINNED " == *" $t "* ]] && [ "$model" != "${models%% *}" ] && continue
		out=$logdir/$t@$model
		rm -rf "$out"
		mkdir -p "$out"
		own=pass
		EMU_MODEL=$model "test_$t" "$out" > "$out/test.log" 2>&1 || own=fail
		judge "$t" "$model" "$out" "$own"
	done
done

if [ "$attack_models" != none ] && { [ -z "$filter" ] || [[ attacks == *$filter* ]]; }; then
	for model in $attack_models; do
		out=$logdir/attacks@$model
		own=pass
		ATTACK_JOBS=1 tests/attack/run_attacks.sh --model "$model" "$out" \
			> "$logdir/attacks@$model.log" 2>&1 || own=fail
		judge attacks "$model" "$out" "$own"
	done
fi

echo "VMCS_CHECK_SUITE tests=$tests failed=$failed entries=$all_entries" \
	"violations=$all_violations wall_s=$((SECONDS - start))"
[ "$failed" -eq 0 ]
