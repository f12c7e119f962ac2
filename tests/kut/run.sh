#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Run one kvm-unit-tests x86 test, unmodified, as a Tempo partition in Bochs
# (docs/kvm-unit-tests.md).
#   tests/kut/run.sh [--timeout S] [--headroom MiB] [--args "ARGS"] TEST MODE [OUTDIR]
# TEST is a section of the tree's x86/unittests.cfg (or of tests/kut/local.cfg,
# for tests that file does not list); MODE is direct, inject or emulated.
# OUTDIR (default $BUILD/kut/run/TEST-MODE) gets kut.cfg, kut.iso, the
# emulator's files (serial.txt, ...) and test.txt, the test's own output.
#
# The partition: the test's image (module kut-FILE), CPUs 0..smp-1 (CPU smp stays
# Tempo's console core), memory = the ELF's highest PT_LOAD end rounded up to
# 2 MiB plus --headroom, at least 128 MiB (default headroom 32 MiB: the tests allocate from the RAM
# above their image), timer = MODE, debug_exit = on, fw_cfg = on, and the
# command line QEMU's multiboot loader would give it: the image's name, then
# the -append arguments (kvm-unit-tests reads argv[1..]).
#
# KUT_VMCS_CHECK=1: Tempo's VMCS_CHECK=1 build boots it (every VM entry
# checked; VMCS_CHECK_BUILD, default build-vmcs-check), the figures then
# marked vmcs_check=1.
# Prints the test's output (its lines as Tempo prefixes them, "[TEST] ..."),
# Tempo's lines about the partition, a KUT_FIGURES line where the test prints
# figures (lat_*_ticks for tscdeadline_latency, NAME_ticks for vmexit), and
# last one line
#   KUT test= mode= result=pass|fail|skip|stopped|refused|timeout|stalled passes= fails= skips=
#       failed=NAME,NAME summary="..." exit_code= reason=
# (na where a value is absent). Exit status 0 for pass, 1 for any other
# result, 2 for bad usage or a harness error (no KUT line then). Where the
# kvm-unit-tests tree is absent it prints "skipped: ..." and exits 0.
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 2

BUILD=${BUILD:-build}
timeout_s=${KUT_TIMEOUT:-900}	# vmexit_tscdeadline_immed: 183-256 s alone
headroom_mib=${KUT_HEADROOM_MIB:-32}
model=${KUT_MODEL:-corei7_ivy_bridge_3770k}	# ../shared/EMULATORS.md; KUT_MODEL=tigerlake for APIC virtualization
ips=50000000			# Bochs instructions (TSC ticks) per emulated second
args_override="" have_override=0
while [ $# -gt 0 ]; do
	case $1 in
	--timeout) timeout_s=$2; shift 2 ;;
	--headroom) headroom_mib=$2; shift 2 ;;
	--args) args_override=$2; have_override=1; shift 2 ;;
	-*) echo "kut/run.sh: unknown option $1" >&2; exit 2 ;;
	*) break ;;
	esac
done
if [ $# -lt 2 ] || [ $# -gt 3 ]; then
	echo "usage: tests/kut/run.sh [--timeout S] [--headroom MiB] [--args ARGS] TEST direct|inject|emulated [OUTDIR]" >&2
	exit 2
fi
test=$1 mode=$2
out=${3:-$BUILD/kut/run/$test-$mode}
case $mode in
direct | inject | emulated) ;;
*) echo "kut/run.sh: mode must be direct, inject or emulated, not '$mode'" >&2; exit 2 ;;
esac

# The images (tests/kut/build.sh is quick when they are up to date).
build_out=$(BUILD="$BUILD" tests/kut/build.sh 2>&1)
build_rc=$?
if [ $build_rc -ne 0 ]; then
	echo "$build_out" | tail -n 20
	echo "kut/run.sh: building kvm-unit-tests failed" >&2
	exit 2
fi
if echo "$build_out" | grep '^skipped: ' > /dev/null; then
	echo "$build_out" | grep '^skipped: '
	exit 0
fi
kut_x86=$(echo "$build_out" | tail -n 1)
src=$(dirname "$kut_x86")

# cfg_section FILE NAME: the section's "key<TAB>value" lines, one quote
# level stripped from values ('cpuid', "a b"); nothing if absent.
cfg_section() {
	awk -v want="$2" '
		/^\[/ { sec = substr($0, 2, index($0, "]") - 2); next }
		sec != want || /^[ \t]*#/ || !/=/ { next }
		{
			key = $0; sub(/[ \t]*=.*/, "", key); gsub(/[ \t]/, "", key)
			val = $0; sub(/^[^=]*=[ \t]*/, "", val); sub(/[ \t]+$/, "", val)
			if (val ~ /^".*"$/ || val ~ /^'\''.*'\''$/)
				val = substr(val, 2, length(val) - 2)
			print key "\t" val
		}' "$1"
}

section=$(cfg_section "$src/x86/unittests.cfg" "$test")
cfg_from=x86/unittests.cfg
if [ -z "$section" ]; then
	section=$(cfg_section tests/kut/local.cfg "$test")
	cfg_from=tests/kut/local.cfg
fi
if [ -z "$section" ]; then
	echo "kut/run.sh: no [$test] in x86/unittests.cfg or tests/kut/local.cfg" >&2
	exit 2
fi
val() { echo "$section" | awk -F'\t' -v k="$1" '$1 == k { v = $2 } END { print v }'; }

file=$(val file)
arch=$(val arch)
smp=$(val smp)
test_args=$(val test_args)
qemu_params="$(val qemu_params) $(val extra_params)"
# The older format's extra_params: -append 'ARGS' or "ARGS", -smp N, -cpu X.
append=$(echo "$qemu_params" | sed -n "s/.*-append *['\"]\\([^'\"]*\\)['\"].*/\\1/p")
[ -n "$append" ] || append=$(echo "$qemu_params" | sed -n 's/.*-append *\([^ ]*\).*/\1/p')
[ -n "$test_args" ] || test_args=$append
if [ -z "$smp" ]; then
	smp=$(echo "$qemu_params" | sed -n 's/.*-smp *\([0-9]*\).*/\1/p')
fi
smp=${smp:-1}
cpu_flags=$(echo "$qemu_params" | sed -n 's/.*-cpu *\([^ ]*\).*/\1/p')
[ $have_override -eq 0 ] || test_args=$args_override

if [ -n "$arch" ] && [ "$arch" != x86_64 ]; then
	echo "kut/run.sh: [$test] is for arch $arch; only x86_64 is built" >&2
	exit 2
fi
image=$kut_x86/$file
if [ -z "$file" ] || [ ! -f "$image" ]; then
	echo "kut/run.sh: [$test]: image '$file' not built in $kut_x86" >&2
	exit 2
fi
case $smp in
'' | *[!0-9]*) echo "kut/run.sh: [$test]: smp '$smp' is not a number" >&2; exit 2 ;;
esac
# Bochs offers up to 8 CPUs here (../shared/EMULATORS.md), and CPU 0 is Tempo's.
if [ "$smp" -lt 1 ] || [ "$smp" -gt 7 ]; then
	echo "kut/run.sh: [$test]: smp $smp: Bochs gives a partition 1 to 7 CPUs" >&2
	exit 2
fi

# Memory: the highest PT_LOAD end, up to 2 MiB, plus the headroom.
load_end=0
while read -r kind _ _ paddr _ memsz _; do
	[ "$kind" = LOAD ] || continue
	[ $((paddr + memsz)) -le "$load_end" ] || load_end=$((paddr + memsz))
done < <(readelf -lW "$image")
[ "$load_end" -gt 0 ] || { echo "kut/run.sh: $image: no PT_LOAD segment" >&2; exit 2; }
image_2m=$(((load_end + (2 << 20) - 1) >> 21))
mib=$((image_2m * 2 + (headroom_mib + 1) / 2 * 2))
# At least QEMU's default 128 MiB: the tests assume it (apic's sti_loop
# touches every page below 128 MiB, an access outside RAM that stops the
# partition on Tempo).
[ "$mib" -ge 128 ] || mib=128
bochs_mib=$((mib + 128 > 256 ? mib + 128 : 256))

# Partition names are 1-31 of [A-Za-z0-9_.-]; Tempo prefixes its lines with it.
name=$(echo "$test" | tr -c 'A-Za-z0-9_.\n-' '_' | cut -c 1-31)
mod=kut-$(basename "$file" .flat | tr -c 'A-Za-z0-9_.\n-' '_' | cut -c 1-27)
cmdline="$file${test_args:+ $test_args}"
cmdline=${cmdline//\\/\\\\}
cmdline=${cmdline//\"/\\\"}
# CPUs 0..smp-1, the boot CPU included: the tests take APIC id 0 for the
# BSP, as under QEMU (apic's pending-NMI test sends its NMI to id 0), and
# the guest sees the physical ids. The last CPU stays Tempo's console core.
if [ "$smp" -eq 1 ]; then cpus=0; else cpus=0-$((smp - 1)); fi

rm -rf "$out"
mkdir -p "$out"
cat > "$out/kut.cfg" << CFG
# tests/kut/run.sh $test $mode: [$test] of $cfg_from
[partition $name]
cpus = $cpus
memory = ${mib}M
image = $mod
cmdline = "$cmdline"
timer = $mode
debug_exit = on
fw_cfg = on
CFG

echo "kut: [$test] file=$file smp=$smp args='$test_args' memory=${mib}M mode=$mode (from $cfg_from)"
# QEMU's -cpu MODEL,+flag,-flag cannot be given to a partition: the guest
# sees Tempo's CPUID policy (README, "The guest platform"), which always
# shows x2APIC and the TSC-deadline timer. Say where the test asked otherwise.
if [ -n "$cpu_flags" ]; then
	differs=""
	for f in ${cpu_flags//,/ }; do
		case $f in
		+x2apic | +tsc-deadline) ;;
		-x2apic | -tsc-deadline) differs+=" $f (Tempo always shows ${f#-})" ;;
		[+-]*) differs+=" $f (not looked at)" ;;
		esac
	done
	echo "kut: [$test] QEMU's -cpu $cpu_flags is not applied (Tempo's CPUID policy)${differs:+; differs:$differs}"
fi

# KUT_VMCS_CHECK=1: Tempo's checking build (VMCS_CHECK_BUILD, default
# build-vmcs-check: every VM entry checked, docs/containment.md) boots the
# test; the test's images stay $BUILD's
hv_build=$BUILD hv_check=()
if [ "${KUT_VMCS_CHECK:-0}" = 1 ]; then
	hv_build=${VMCS_CHECK_BUILD:-build-vmcs-check} hv_check=(VMCS_CHECK=1)
fi
if ! make -s -j1 "${hv_check[@]}" BUILD="$hv_build" "$hv_build/tempo.elf" > "$out/make.log" 2>&1; then
	tail -n 20 "$out/make.log"
	echo "kut/run.sh: make $hv_build/tempo.elf failed" >&2
	exit 2
fi
if ! boot/mkiso.sh "$out/kut.iso" "$hv_build/tempo.elf" "exit=emu loglevel=3" \
	"$out/kut.cfg:partitions" "$image:$mod" > "$out/mkiso.log" 2>&1; then
	cat "$out/mkiso.log"
	echo "kut/run.sh: boot/mkiso.sh failed" >&2
	exit 2
fi

start=$SECONDS
emu_msg=$(tests/emu/run.sh --emu bochs --cpus $((smp + 1)) --mem "$bochs_mib" \
	--model "$model" --ips "$ips" --timeout "$timeout_s" --expect ok \
	--iso "$out/kut.iso" --out "$out" 2>&1)
wall=$((SECONDS - start))
echo "$emu_msg"

serial=$(tr -d '\r' < "$out/serial.txt" | sed 's/\x1b\[[0-9;=]*[A-Za-z]//g')
# The test's own lines, without Tempo's prefix.
echo "$serial" | sed -n "s/^\\[$name\\] //p" > "$out/test.txt"

echo "$serial" | grep -F "[$name] " || true
echo "$serial" | grep -E "^(PARTITION_STOP|PARTITION_END) name=$name |^TEMPO_EXIT |^(ERROR|WARNING|FATAL)" || true

passes=$(grep -c '^PASS: ' "$out/test.txt")
# unexpected failures, as its SUMMARY counts them: FAIL and XPASS
fails=$(grep -cE '^(FAIL|XPASS): ' "$out/test.txt")
skips=$(grep -c '^SKIP: ' "$out/test.txt")
# which ones: their names, spaces as underscores, in order ("na" for none)
failed=$(sed -nE 's/^(FAIL|XPASS): (.*)$/\2/p' "$out/test.txt" | tr ' ,=' '___' | paste -sd, -)
summary=$(sed -n 's/^SUMMARY: //p' "$out/test.txt" | tail -n 1 | tr -d '"')
end_line=$(echo "$serial" | grep -E "^PARTITION_END name=$name " | tail -n 1)
stop_line=$(echo "$serial" | grep -E "^PARTITION_STOP name=$name " | tail -n 1)
state=$(echo "$end_line" | sed -n 's/.* state=\([a-z]*\).*/\1/p')
exit_code=$(echo "$end_line" | sed -n 's/.* exit_code=\(-*[0-9]*\).*/\1/p')
# a stopped partition's exit code means nothing (PARTITION_END prints 0)
[ "$state" != stopped ] || exit_code=na
reason=$(echo "$stop_line" | sed -n 's/.* reason=\([^ ]*\).*/\1/p')
# Tempo refused the config or the image: it ended with status=failure
# before its setup was done (the "Host tick:" line follows the partitions'
# build, hv/start/main.c) and said why in an ERROR line. Not a timeout:
# no guest ran.
tempo_exit=$(echo "$serial" | grep -E '^TEMPO_EXIT ' | tail -n 1)
refused=0 refusal=""
if [ -z "$end_line" ] && [[ $tempo_exit == *" status=failure "* ]] &&
	! echo "$serial" | grep -E '^Host tick: ' > /dev/null; then
	refused=1
	refusal=$(echo "$serial" | grep -E '^ERROR: ' | head -n 1)
	reason=$(echo "$tempo_exit" | sed -n 's/.* reason="\([^"]*\)".*/\1/p' | tr ' ,=' '___')
fi

# a stall (tests/emu/run.sh's guard) is never an expected result
if [ "$refused" = 1 ]; then
	result=refused
elif echo "$emu_msg" | grep 'fail (stalled' > /dev/null; then
	result=stalled
elif echo "$emu_msg" | grep 'timeout after' > /dev/null || [ -z "$end_line" ]; then
	result=timeout
elif [ "$state" = stopped ]; then
	result=stopped
elif [ "$exit_code" = 1 ] && [ "$fails" -eq 0 ]; then
	# kvm-unit-tests' exit(0) through port 0xF4: (0 << 1) | 1
	result=pass
elif [ "$exit_code" = 77 ]; then
	# report_summary() when every test skipped: 77 >> 1, which QEMU's
	# (status << 1) | 1 turns into automake's 77
	result=skip
else
	result=fail
fi

# The figures, in TSC ticks (../shared/LINES.md): the latencies
# tscdeadline_latency prints, and vmexit's "NAME CYCLES" per test, with the
# run's context (Tempo's default host tick: the config sets none).
context="cpu_model=$model ips=$ips tick_us=1000"
# the checking build's figures carry its check, some 2,000 ticks an entry
[ "${KUT_VMCS_CHECK:-0}" != 1 ] || context+=" vmcs_check=1"
case $file in
tscdeadline_latency.flat)
	awk -v t="$test" -v m="$mode" -v c="$context" '/^latency: [0-9]+$/ { v = $2; n++; s += v
			if (n == 1 || v < lo) lo = v; if (v > hi) hi = v }
		END { if (n) printf "KUT_FIGURES test=%s mode=%s lat_n=%d lat_min_ticks=%d lat_avg_ticks=%d lat_max_ticks=%d %s\n", t, m, n, lo, s / n, hi, c }' \
		"$out/test.txt"
	;;
vmexit.flat)
	for t in $test_args; do
		c=$(sed -n "s/^$t \\([0-9][0-9]*\\)\$/\\1/p" "$out/test.txt" | tail -n 1)
		[ -z "$c" ] || echo "KUT_FIGURES test=$test mode=$mode ${t}_ticks=$c $context"
	done
	;;
esac

# Why a test ended early, in its own words: an exception it did not expect
# (then abort(): exit status 63, exit code 127) or a failed assertion.
why=$(grep -E '^Unhandled (cpu )?exception|^ABORT: |^.*[Aa]ssert(ion)? .*failed' "$out/test.txt" |
	head -n 1)
[ -z "$why" ] || echo "kut: [$test] $mode: the test says: $why"
[ "$exit_code" != 127 ] || echo "kut: [$test] $mode: exit code 127 is the test's abort() (status 63)"
[ -z "$stop_line" ] || echo "kut: [$test] $mode: Tempo stopped it: $stop_line"
[ "$result" != refused ] || echo "kut: [$test] $mode: Tempo refused to start it: ${refusal:-$tempo_exit}"
echo "kut: [$test] $mode: ${wall}s of wall time; output in $out"
printf 'KUT test=%s mode=%s result=%s passes=%s fails=%s skips=%s failed=%s summary="%s" exit_code=%s reason=%s\n' \
	"$test" "$mode" "$result" "$passes" "$fails" "$skips" "${failed:-na}" "$summary" \
	"${exit_code:-na}" "${reason:-na}"
[ "$result" = pass ]
