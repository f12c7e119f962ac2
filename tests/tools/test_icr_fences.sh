#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Every x2APIC ICR write in tempo.elf is fenced (tests/tools/icr_fences.py):
# an IPI must not reach its target before the stores it announces, which
# Bochs, executing in order, cannot show. Also proves that the check fails
# on a write without its fences.
#   BUILD=DIR tests/tools/test_icr_fences.sh
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 1
BUILD=${BUILD:-build}

[ -f "$BUILD/tempo.elf" ] || make -s BUILD="$BUILD" all > /dev/null 2>&1 ||
	{ echo "FAIL icr_fences: no $BUILD/tempo.elf and make all failed"; exit 1; }
if out=$(tests/tools/icr_fences.py "$BUILD/tempo.elf" 2>&1); then
	echo "PASS icr_fences ($(echo "$out" | tail -n 1))"
else
	echo "FAIL icr_fences: $(echo "$out" | grep -E 'fenced=0|ICR_FENCES|only' | head -n 6 | tr '\n' ' ')"
fi

# the check itself: a function that writes the ICR with no fence must fail it
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cat > "$tmp/bare.c" <<'C'
void send(unsigned long v, volatile int *flag)
{
	for (int i = 0; i < 5; i++) {
		*flag = 1;
		__asm__ volatile("wrmsr" :: "c"(0x830), "a"((unsigned)v), "d"((unsigned)(v >> 32)) : "memory");
	}
}
C
if ! gcc -O2 -c "$tmp/bare.c" -o "$tmp/bare.o" 2> "$tmp/cc.log"; then
	echo "FAIL icr_fences_fails_unfenced: the sample did not compile: $(head -n 3 "$tmp/cc.log")"
elif out=$(tests/tools/icr_fences.py "$tmp/bare.o" 2>&1); then
	echo "FAIL icr_fences_fails_unfenced: an unfenced ICR write passed: $out"
elif echo "$out" | grep -q 'fenced=0'; then
	echo "PASS icr_fences_fails_unfenced ($(echo "$out" | grep -m 1 "fenced=0"))"
else
	echo "FAIL icr_fences_fails_unfenced: failed, but not for the missing fence: $out"
fi
