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

# the check itself: each sample writes the ICR with no fence (directly, with
# the MSR number carried through another register, from memory) and must fail
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
sample() {	# NAME BODY: one function that the check must refuse
	local out
	printf 'void send(unsigned long v, volatile int *flag, const unsigned *msr)\n{\n%s\n}\n' "$2" \
		> "$tmp/$1.c"
	if ! gcc -O2 -c "$tmp/$1.c" -o "$tmp/$1.o" 2> "$tmp/cc.log"; then
		echo "FAIL icr_fences_fails_$1: the sample did not compile: $(head -n 3 "$tmp/cc.log")"
	elif out=$(tests/tools/icr_fences.py "$tmp/$1.o" 2>&1); then
		echo "FAIL icr_fences_fails_$1: an unfenced ICR write passed: $out"
	elif echo "$out" | grep -q 'fenced=0'; then
		echo "PASS icr_fences_fails_$1 ($(echo "$out" | grep -m 1 "fenced=0"))"
	else
		echo "FAIL icr_fences_fails_$1: failed, but not for the missing fence: $out"
	fi
}
sample unfenced '	for (int i = 0; i < 5; i++) {
		*flag = 1;
		__asm__ volatile("wrmsr" :: "c"(0x830), "a"((unsigned)v), "d"((unsigned)(v >> 32)) : "memory");
	}
	(void)msr;'
# shellcheck disable=SC2016  # C and assembly, not shell
sample via_register '	*flag = 1;
	__asm__ volatile("mov $0x830, %%r8d; mov %%r8d, %%ecx; wrmsr"
			 :: "a"((unsigned)v), "d"((unsigned)(v >> 32)) : "rcx", "r8", "memory");
	(void)msr;'
sample from_memory '	*flag = 1;
	__asm__ volatile("wrmsr" :: "c"(*msr), "a"((unsigned)v), "d"((unsigned)(v >> 32)) : "memory");'
