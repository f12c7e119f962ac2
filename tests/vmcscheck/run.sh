#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The emulator tests and the attack suite again, on a VMCS_CHECK=1 build
# (arch/x86/vmx_check.h, docs/containment.md): every VM entry of every run
# checked against SDM Vol. 3C 26.2 and 26.3 before it is made. Builds it,
# then runs each entry through tests/vmcscheck/one.sh (which says what
# passes), EMU_JOBS (2) at a time with GNU parallel.
#
#   tests/vmcscheck/run.sh [--quick] [--list] [NAME_FILTER]
#     --quick                   vmcs_break(_regs), the attack suite on the three
#                               models of make test (or
#                               VMCS_CHECK_ATTACK_MODELS) and
#                               VMCS_CHECK_OWN_PLAIN, as the section
#                               "vmcs" of tests/run_tests.sh runs them
#     --list                    build nothing, run nothing: print the entries
#     VMCS_CHECK_TESTS          the emulator tests to run (default: every
#                               Bochs test; --quick: VMCS_CHECK_OWN_PLAIN)
#     VMCS_CHECK_MODELS         Bochs models for the emulator tests
#                               (default corei7_ivy_bridge_3770k)
#     VMCS_CHECK_ATTACK_MODELS  models for the attack suite (default: the same,
#                               --quick: the three of make test;
#                               "none" leaves it out)
#     EMU_TIMEOUT_SCALE         every run's wall limit times this (default 3)
#     BUILD                     the check build's folder (default build-vmcs-check)
#
# One VMCS_CHECK_TEST line and one PASS or FAIL line per entry, then
#   VMCS_CHECK_SUITE tests= failed= entries= violations= wall_s=
# Exit status 0 only when every entry passed.
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 2

mode=all listing=0
while [ $# -gt 0 ]; do
	case $1 in
	--quick) mode=quick ;;
	--list) listing=1 ;;
	*) break ;;
	esac
	shift
done
filter=${1:-}
export VMCS_CHECK=1
export BUILD=${BUILD:-build-vmcs-check}
export EMU_TIMEOUT_SCALE=${EMU_TIMEOUT_SCALE:-3}

# shellcheck source=tests/vmcscheck/entries.sh
. tests/vmcscheck/entries.sh
entries=()
for e in $(vmcs_check_entries "$mode"); do
	[ -n "$filter" ] && [[ $e != *$filter* ]] && continue
	entries+=("$e")
done
if [ $listing = 1 ]; then
	printf '%s\n' "${entries[@]}"
	exit 0
fi

logdir=$BUILD/test-logs
mkdir -p "$logdir"
start=$SECONDS
if ! make -s VMCS_CHECK=1 BUILD="$BUILD" all test-images > "$logdir/vmcs-build.log" 2>&1; then
	echo "vmcscheck: make VMCS_CHECK=1 all test-images failed (see $logdir/vmcs-build.log)"
	tail -n 20 "$logdir/vmcs-build.log"
	echo "VMCS_CHECK_SUITE tests=0 failed=1 entries=0 violations=0 wall_s=$((SECONDS - start))"
	exit 1
fi

tests=0 failed=0 all_entries=0 all_violations=0
while IFS= read -r line; do
	echo "$line"
	case $line in
	PASS\ *) tests=$((tests + 1)) ;;
	FAIL\ *) tests=$((tests + 1)) failed=$((failed + 1)) ;;
	VMCS_CHECK_TEST\ *)
		n=$(echo "$line" | sed -n 's/.* entries=\([0-9]*\).*/\1/p')
		v=$(echo "$line" | sed -n 's/.* violations=\([0-9]*\).*/\1/p')
		all_entries=$((all_entries + ${n:-0})) all_violations=$((all_violations + ${v:-0}))
		;;
	esac
done < <([ ${#entries[@]} -eq 0 ] ||
	parallel --will-cite -j "${EMU_JOBS:-2}" tests/vmcscheck/one.sh ::: "${entries[@]}")

echo "VMCS_CHECK_SUITE tests=$tests failed=$failed entries=$all_entries" \
	"violations=$all_violations wall_s=$((SECONDS - start))"
[ "$failed" -eq 0 ] && [ "$tests" -eq ${#entries[@]} ]
