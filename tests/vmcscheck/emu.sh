#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# One emulator test of make test's sections emu, matrix and linux, as
# tests/run_tests.sh has GNU parallel run them:
#   tests/vmcscheck/emu.sh TEST[@MODEL]
# A Bochs test runs once, on the VMCS_CHECK=1 build (VMCS_CHECK_BUILD,
# default build-vmcs-check, made beforehand), through
# tests/vmcscheck/one.sh with VMCS_CHECK_OWN=1: it passes only when its own
# assertions hold and the checker passed every entry. The rest run on the
# plain build (BUILD) through tests/emu/one.sh: QEMU tests (no VMX), the
# Linux tests but those of VMCS_CHECK_LINUX (which run checked too), and
# the entries that tests/vmcscheck/entries.sh lists, each with its reason.
# checked_TEST, for a test of VMCS_CHECK_LINUX_VERDICT: its run on the
# checking build, judged by the checker alone (tests/vmcscheck/one.sh).
# Prints what the script it runs prints (a PASS or FAIL line); exits as it
# exits.
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 2

entry=${1:-}
[[ $entry =~ ^[a-z0-9_]+(@[a-z0-9_]+)?$ ]] ||
	{ echo "usage: tests/vmcscheck/emu.sh TEST[@MODEL] (got '$entry')" >&2; exit 2; }
t=${entry%@*}

# shellcheck source=tests/vmcscheck/entries.sh
. tests/vmcscheck/entries.sh
# checked_TEST (VMCS_CHECK_LINUX_VERDICT): the checker's verdict alone on a
# second run of TEST, whose own assertions its run on the plain build judged
if [[ $t == checked_* ]] && vmcs_check_listed "${entry#checked_}" "$VMCS_CHECK_LINUX_VERDICT"; then
	BUILD=${VMCS_CHECK_BUILD:-build-vmcs-check} VMCS_CHECK_OWN=0 VMCS_CHECK_AS=$entry \
		exec tests/vmcscheck/one.sh "${entry#checked_}"
fi
# shellcheck source=tests/emu/linux.sh
. tests/emu/linux.sh
if { [[ $t != bochs_* ]] || vmcs_check_listed "$entry" "$LINUX_TESTS $LINUX_BG_TEST"; } &&
	! vmcs_check_listed "$entry" "$VMCS_CHECK_LINUX" ||
	vmcs_check_listed "$entry" "$VMCS_CHECK_OWN_PLAIN $VMCS_CHECK_OPEN"; then
	exec tests/emu/one.sh "$entry"
fi
BUILD=${VMCS_CHECK_BUILD:-build-vmcs-check} VMCS_CHECK_OWN=1 exec tests/vmcscheck/one.sh "$entry"
