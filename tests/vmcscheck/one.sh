#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# One run on the VMCS_CHECK=1 build (made beforehand: tests/vmcscheck/run.sh
# or the section "vmcs" of tests/run_tests.sh), judged by the checker, as
# tests/run_tests.sh has GNU parallel run them:
#   tests/vmcscheck/one.sh ENTRY
# ENTRY is
#   TEST[@MODEL]    an emulator test (tests/emu/one.sh runs it)
#   attacks@MODEL   the attack suite (tests/attack/run_attacks.sh)
#   vmcs_break      the proof that the pass can fail: test=vmcs_break breaks
#                   one resume (a reserved bit of the pending debug
#                   exceptions, and a steady field, a CR3-target count
#                   above the CPU's, written after entries that left the
#                   steady rules out), which the checker must refuse with
#                   both rules' lines, stopping that partition, and count
#   vmcs_break_regs  the same with a guest register and a segment instead
#                   of the steady field (guest CR3 above MAXPHYADDR, a
#                   reserved bit of TR's access rights): three rules
# A run passes when every serial log it leaves ends "VMCS_CHECK
# violations=0 ... unreadable=0" and a guest that ran had its entries
# checked (tests/vmcscheck/lib.sh; a test that ends Bochs on purpose,
# VMCS_CHECK_NO_END in tests/vmcscheck/entries.sh, by the checking build's
# boot line and no broken rule). The test's own assertions are reported
# (own=) but not counted (the section vmcs: the check costs about 2,000
# instructions an entry, which Bochs counts as TSC ticks, so the latency
# bounds of those tests are not this build's to meet), unless
# VMCS_CHECK_OWN=1 (the sections emu, matrix and linux, through
# tests/vmcscheck/emu.sh): then they count too. Prints
#   VMCS_CHECK_TEST name= model= logs= entries= violations= unended= own=pass|fail ok=0|1
# then "PASS ENTRY (Ns, ...)" or "FAIL ENTRY: why [log: DIR]" (the lines
# tests/run_tests.sh reads: a broken rule named with the entry, a failed own
# assertion with the test's last words) and exits 0 if it passed, 1 if not.
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 2

entry=${1:-}
[[ $entry =~ ^[a-z0-9_]+(@[a-z0-9_]+)?$ ]] ||
	{ echo "usage: tests/vmcscheck/one.sh ENTRY (got '$entry')" >&2; exit 2; }
t=${entry%@*} model=''
[ "$t" = "$entry" ] || model=${entry#*@}
export VMCS_CHECK=1
export BUILD=${BUILD:-build-vmcs-check}
export EMU_TIMEOUT_SCALE=${EMU_TIMEOUT_SCALE:-3}
[ -f "$BUILD/tempo.elf" ] ||
	{ echo "FAIL $entry: no $BUILD/tempo.elf (make VMCS_CHECK=1 BUILD=$BUILD all test-images)"; exit 1; }

# shellcheck source=tests/vmcscheck/lib.sh
. tests/vmcscheck/lib.sh
# shellcheck source=tests/emu/tests.sh
. tests/emu/tests.sh

# VMCS_CHECK_AS=NAME (tests/vmcscheck/emu.sh's checked_TEST): the verdict
# named NAME, not ENTRY (the logs stay in the checking build's folder)
name=${VMCS_CHECK_AS:-$entry}
mkdir -p "$BUILD/test-logs"
out=$BUILD/test-logs/$entry
start=$SECONDS
own=pass

selftest() {
	local iso=$out/vmcs-break.iso want wants n rule='^VMCS_CHECK rule='
	# the rules each break must bring (arch/x86/vmx_check.c, test_break)
	if [ "$t" = vmcs_break ]; then
		wants=("${rule}exec\.cr3_target_count sdm=26\.2\.1\.1 field=CR3_TARGET_COUNT ")
	else
		wants=("${rule}guest\.cr3_width sdm=26\.3\.1\.1 field=GUEST_CR3 value=0x40"
			"${rule}guest\.ar_reserved sdm=26\.3\.1\.2 field=GUEST_TR_AR ")
	fi
	wants+=("${rule}guest\.pending_dbg_reserved sdm=26\.3\.1\.5 field=GUEST_PENDING_DBG"\
" value=0x10 ")
	n=${#wants[@]}
	# full=0: found by a check that reads and runs only what changed, not
	# by the one in 64 that reads and runs everything
	wants+=("^VMCS_CHECK_FAIL violations=$n entry=vmresume .* full=0$"
		'^PARTITION_STOP name=broken reason=vm_entry_failed .*qual=0x100 '
		"^VMCS_CHECK violations=$n .* refused_entries=1 unreadable=0 ")
	rm -rf "$out"
	mkdir -p "$out"
	boot/mkiso.sh "$iso" "$BUILD/tempo.elf" "exit=emu test=$t" \
		tests/vmcscheck/vmcs-break.cfg:partitions "$BUILD/guests/hello-mb2.elf:hello-mb2" \
		> "$out/mkiso.log" 2>&1 || { echo "FAIL $entry: mkiso failed [log: $out]"; return 1; }
	EMU_MODEL=$model bochs "$out" --cpus 2 --iso "$iso" --expect ok > "$out/test.log" 2>&1 ||
		{ echo "FAIL $entry: the run did not end ok [log: $out]"; return 1; }
	for want in "${wants[@]}"; do
		serial "$out" | grep -E -- "$want" > /dev/null ||
			{ echo "FAIL $entry: the broken entry was not refused: missing /$want/ [log: $out]"; return 1; }
	done
	echo "VMCS_CHECK_TEST name=$t model=${model:-default} refused=1 ok=1"
	echo "PASS $entry ($((SECONDS - start))s, refused)"
}

case $t in
vmcs_break | vmcs_break_regs)
	selftest
	exit
	;;
attacks)
	[ -n "$model" ] || { echo "FAIL $entry: attacks needs a model (attacks@MODEL)"; exit 2; }
	rm -rf "$out"
	mkdir -p "$out"
	# one emulator: the runner already runs two entries at a time
	ATTACK_JOBS=1 tests/attack/run_attacks.sh --model "$model" "$out" > "$out.log" 2>&1 ||
		own=fail
	;;
*)
	tests/emu/one.sh "$entry" > "$out.one.log" 2>&1 || own=fail
	;;
esac

own_counted=0 unended=0
[ "${VMCS_CHECK_OWN:-0}" = 1 ] && [ "$t" != attacks ] && own_counted=1
# shellcheck source=tests/vmcscheck/entries.sh
. tests/vmcscheck/entries.sh
vmcs_check_listed "$entry" "$VMCS_CHECK_NO_END" && unended=1
vmcs_verdict "$name" "$out" "$own" "$own_counted" "$out.one.log" $((SECONDS - start)) "$unended"
