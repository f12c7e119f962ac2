#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Every run tests/kut/expected.txt lists, KUT_JOBS Bochs at a time (default 2:
# one a core; the figures are Bochs ticks, the same whatever runs beside),
# each checked against its expectation (docs/kvm-unit-tests.md), in the
# list's order once all have run. Prints per run the KUT
# line (and any KUT_FIGURES line), then "PASS kut_TEST_MODE" or "FAIL
# kut_TEST_MODE: ...", and last "KUTS passed=N failed=N skipped=N".
#   tests/kut/suite.sh [FILTER]     FILTER: a part of "TEST MODE" to run only those
# KUT_VMCS_CHECK=1: Tempo's checking build boots each test (tests/kut/run.sh),
# and a run passes only where the VMCS checker also passed every entry
# (tests/vmcscheck/lib.sh); the PASS line counts them. KUT_VMCS_CHECK_TESTS
# (names of tests, make test's section kut): only their runs so.
# Exits 1 if a run differed from its expectation; where the kvm-unit-tests
# tree is absent, prints "SKIP kut: ..." and exits 0.
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 2

BUILD=${BUILD:-build}
filter=${1:-}
expected_file=${KUT_EXPECTED:-tests/kut/expected.txt}
outdir=$BUILD/kut/run

if ! build_out=$(BUILD="$BUILD" tests/kut/build.sh 2>&1); then
	echo "$build_out" | tail -n 20
	echo "FAIL kut_build: tests/kut/build.sh failed"
	echo "KUTS passed=0 failed=1 skipped=0"
	exit 1
fi
if skip=$(echo "$build_out" | grep '^skipped: '); then
	echo "SKIP kut: ${skip#skipped: }"
	echo "KUTS passed=0 failed=0 skipped=1"
	exit 0
fi

jobs=${KUT_JOBS:-2}
case $jobs in '' | *[!0-9]* | 0) echo "kut/suite.sh: KUT_JOBS must be a positive number, not '$jobs'" >&2; exit 2 ;; esac
runs=()
while read -r test mode want rest; do
	[ -z "$test" ] || [[ $test == \#* ]] && continue
	[ -n "$filter" ] && [[ "$test $mode" != *$filter* ]] && continue
	runs+=("$test $mode $want $rest")
done < "$expected_file"

# checked TEST: its runs boot the checking build (KUT_VMCS_CHECK, _TESTS)
checked() {
	[ "${KUT_VMCS_CHECK:-0}" = 1 ] || [[ " ${KUT_VMCS_CHECK_TESTS:-} " == *" $1 "* ]]
}

# run them all, at most $jobs at once; each writes its own log
mkdir -p "$outdir"
running=0
for r in "${runs[@]}"; do
	read -r test mode _ <<< "$r"
	check=0
	checked "$test" && check=1
	KUT_VMCS_CHECK=$check BUILD="$BUILD" tests/kut/run.sh "$test" "$mode" "$outdir/$test-$mode" \
		> "$outdir/$test-$mode.log" 2>&1 &
	running=$((running + 1))
	if [ "$running" -ge "$jobs" ]; then
		wait -n
		running=$((running - 1))
	fi
done
wait

passed=0 failed=0
# shellcheck source=tests/vmcscheck/lib.sh
. tests/vmcscheck/lib.sh
for r in "${runs[@]}"; do
	read -r test mode want rest <<< "$r"
	id=kut_${test}_$mode
	log=$outdir/$test-$mode.log
	line=$(grep '^KUT ' "$log" | tail -n 1)
	grep -E '^KUT(_FIGURES)? |^kut: .*the test says' "$log" | sed 's/^/  /'
	if [ -z "$line" ]; then
		failed=$((failed + 1))
		echo "FAIL $id: no KUT line ($(tail -n 2 "$log" | tr '\n' ' ')) [log: $log]"
		continue
	fi
	why=""
	[[ $line == *" result=$want "* ]] || why="result ${line#* result=}"
	why=${why%% passes=*}
	for kv in $rest; do
		[[ $kv == \#* ]] && break
		[[ " $line " == *" $kv "* ]] || why+="${why:+, }no $kv"
	done
	# on the checking build, the checker's verdict too: a clean summary,
	# and entries checked wherever a guest ran (vmcs_judge)
	checked=''
	if checked "$test"; then
		vmcs_judge "$outdir/$test-$mode" || why+="${why:+,}$(vmcs_why "$outdir/$test-$mode")"
		checked=", entries=$vc_entries violations=$vc_violations"
	fi
	if [ -z "$why" ]; then
		passed=$((passed + 1))
		echo "PASS $id (expected $want${rest:+ $rest}$checked)"
	else
		failed=$((failed + 1))
		echo "FAIL $id: expected $want${rest:+ $rest}; got $why [log: $log]"
	fi
done
echo "KUTS passed=$passed failed=$failed skipped=0"
[ "$failed" -eq 0 ]
