#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# One emulator test, as tests/run_tests.sh has GNU parallel run them:
#   tests/emu/one.sh TEST[@MODEL]
# runs test_TEST (tests/emu/*.sh; tests/emu/linux.sh for linux_*) with its own
# output directory, $BUILD/test-logs/TEST[@MODEL], on the Bochs CPU model
# MODEL if one is named (else run.sh's default), and prints one line:
# "PASS TEST[@MODEL] (Ns)", or "FAIL TEST[@MODEL]: the last lines the test
# printed [log: DIR]". Exits 0 if it passed, 1 if not, 2 on bad usage.
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 2

entry=${1:-}
[[ $entry =~ ^[a-z0-9_]+(@[a-z0-9_]+)?$ ]] ||
	{ echo "usage: tests/emu/one.sh TEST[@MODEL] (got '$entry')" >&2; exit 2; }
t=${entry%@*} model=''
[ "$t" = "$entry" ] || model=${entry#*@}
BUILD=${BUILD:-build}

# shellcheck source=tests/emu/tests.sh
. tests/emu/tests.sh
# shellcheck source=tests/emu/linux.sh
[[ $t == linux_* ]] && . tests/emu/linux.sh
declare -F "test_$t" > /dev/null ||
	{ echo "FAIL $entry: no test_$t in tests/emu/"; exit 1; }

out=$BUILD/test-logs/$entry
rm -rf "$out"
mkdir -p "$out"
start=$SECONDS
if msg=$(EMU_MODEL=$model "test_$t" "$out" 2>&1); then
	echo "PASS $entry ($((SECONDS - start))s)"
else
	echo "FAIL $entry: $(echo "$msg" | tail -n 5 | tr '\n' ' ') [log: $out]"
	exit 1
fi
