#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Boot the Linux test guest (guests/linux/build.sh) on bare metal in Bochs,
# with no hypervisor: the comparison figures for the Linux partition.
#   tests/linux/bare.sh OUTDIR [--loops N] [--cpus N] [--ips N] [--timeout S]
# OUTDIR holds bzImage and initrd.cpio.gz (make linux-image: build/linux); the
# ISO and the run's files go to OUTDIR/bare/. Checks the serial log for
# LINUX_CLOCKEVENT lapic-deadline, LINUX_CLOCKSOURCE tsc, LINUX_CYCLICTEST
# (unless --loops 0) and LINUX_DONE, prints those lines, the wall times and a
# BENCH line (../shared/LINES.md grammar, mode=bare guest=linux).
# Exit status 0 when every check passed.
set -uo pipefail

usage() { echo "usage: $0 OUTDIR [--loops N] [--cpus N] [--ips N] [--timeout S]" >&2; exit 2; }
[ $# -ge 1 ] || usage
dir=$1
shift
loops=1000 cpus=1 ips=50000000 timeout_s=900
model=corei7_ivy_bridge_3770k
while [ $# -gt 0 ]; do
	case $1 in
	--loops) loops=$2; shift 2 ;;
	--cpus) cpus=$2; shift 2 ;;
	--ips) ips=$2; shift 2 ;;
	--timeout) timeout_s=$2; shift 2 ;;
	*) usage ;;
	esac
done
root=$(cd "$(dirname "$0")/../.." && pwd)
for f in bzImage initrd.cpio.gz; do
	[ -f "$dir/$f" ] || { echo "$0: $dir/$f missing (make linux-image)" >&2; exit 2; }
done
for tool in grub-mkrescue xorriso mformat bochs; do
	command -v "$tool" >/dev/null || { echo "$0: $tool missing: run 'make deps'" >&2; exit 1; }
done

# The command line the Tempo Linux partition gets too (guests/linux/README.md).
cmdline="console=ttyS0 cryptomgr.notests earlycon=uart8250,io,0x3f8,115200 keep_bootcon 8250.nr_uarts=0 noapic quiet cyclictest_loops=$loops"

out=$dir/bare
mkdir -p "$out"
out=$(cd "$out" && pwd)
iso=$out/linux-bare.iso
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/iso/boot/grub"
cp "$dir/bzImage" "$dir/initrd.cpio.gz" "$work/iso/boot/"
cat > "$work/iso/boot/grub/grub.cfg" <<CFG
set timeout=0
set default=0
set gfxpayload=text
menuentry "Linux (bare)" {
	linux /boot/bzImage $cmdline
	initrd /boot/initrd.cpio.gz
	boot
}
CFG
ok_iso=0
for _ in 1 2; do	# xorriso was seen to crash once in many runs (boot/mkiso.sh)
	grub-mkrescue -o "$iso" "$work/iso" > "$work/mkrescue.log" 2>&1 && { ok_iso=1; break; }
done
[ $ok_iso -eq 1 ] || { cat "$work/mkrescue.log" >&2; exit 1; }

# Run Bochs; watch the serial log to time the phases in wall seconds.
run_out=$out/run
rm -rf "$run_out"
now() { date +%s.%N; }
t0=$(now)
"$root/tests/emu/run.sh" --emu bochs --iso "$iso" --cpus "$cpus" --model "$model" --ips "$ips" \
	--mem 512 --timeout "$timeout_s" --ignore-bad-msrs --expect poweroff --out "$run_out" > "$work/run.txt" 2>&1 &
pid=$!
t_kernel="" t_init="" t_cyc_end=""
while kill -0 "$pid" 2>/dev/null; do
	if [ -z "$t_kernel" ] && grep -q 'Linux version' "$run_out/serial.txt" 2>/dev/null; then
		t_kernel=$(now)
	fi
	if [ -z "$t_init" ] && grep -q 'LINUX_INIT' "$run_out/serial.txt" 2>/dev/null; then
		t_init=$(now)
	fi
	if [ -z "$t_cyc_end" ] && grep -q 'LINUX_CYCLICTEST_OUT\|LINUX_DONE' "$run_out/serial.txt" 2>/dev/null; then
		t_cyc_end=$(now)
	fi
	sleep 0.5
done
wait "$pid"
run_status=$?
t_end=$(now)
cat "$work/run.txt"

serial=$(tr -d '\r' < "$run_out/serial.txt")
lines=$(printf '%s\n' "$serial" | grep -o 'LINUX_[A-Z_]*\( .*\)\?$')
printf '%s\n' "$lines"

fail=0
check() {	# check DESCRIPTION REGEX
	if printf '%s\n' "$lines" | grep -- "$2" > /dev/null; then
		echo "bare.sh: ok: $1"
	else
		echo "bare.sh: FAIL: $1"
		fail=1
	fi
}
[ $run_status -eq 0 ] || { echo "bare.sh: FAIL: run.sh status $run_status"; fail=1; }
check "clockevent lapic-deadline" '^LINUX_CLOCKEVENT lapic-deadline$'
check "clocksource tsc" '^LINUX_CLOCKSOURCE tsc$'
[ "$loops" -eq 0 ] || check "cyclictest result" '^LINUX_CYCLICTEST loops=[0-9]* min_us=[0-9]'
check "init finished" '^LINUX_DONE$'
# Bochs ends on the guest's ACPI S5 write with a "panic" and status 1, the
# status a triple fault gives too: tell them apart by its log line.
if grep -q 'ACPI control: soft power off' "$run_out/bochs.log" 2>/dev/null; then
	echo "bare.sh: ok: ACPI power-off ended Bochs"
else
	echo "bare.sh: FAIL: Bochs did not end by ACPI power-off (see $run_out/bochs.log)"
	fail=1
fi

# Guest time stamps from the kernel log: init start and cyclictest's end.
g_init=$(printf '%s\n' "$serial" | sed -n 's/^\[ *\([0-9.]*\)\] LINUX_INIT .*/\1/p' | head -n 1)
g_done=$(printf '%s\n' "$serial" | sed -n 's/^\[ *\([0-9.]*\)\] LINUX_DONE.*/\1/p' | head -n 1)
span() { [ -n "$1" ] && [ -n "$2" ] && awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1f", b - a }' || echo na; }
echo "bare.sh: wall_s to_kernel=$(span "$t0" "$t_kernel") to_init=$(span "$t0" "$t_init") cyclictest=$(span "$t_init" "$t_cyc_end")" \
	"total=$(span "$t0" "$t_end"); guest_s init=${g_init:-na} done=${g_done:-na}" \
	"(wall times are sampled every 0.5 s)"
ticks=$(sed -n 's/^\([0-9]*\)i\[SIM *\] quit_sim called.*/\1/p' "$run_out/bochs.log" 2>/dev/null | tail -n 1)
[ -n "$ticks" ] && echo "bare.sh: Bochs ticks at the end: $ticks ($(awk -v t="$ticks" -v i="$ips" 'BEGIN { printf "%.1f", t / i }') emulated s)"

res=$(printf '%s\n' "$lines" | sed -n 's/^LINUX_CYCLICTEST loops=\([0-9]*\) min_us=\([0-9]*\) avg_us=\([0-9]*\) max_us=\([0-9]*\)\( p99_us=\([0-9]*\) p999_us=\([0-9]*\)\)\{0,1\}.*/\1 \2 \3 \4 \6 \7/p' | head -n 1)
if [ -n "$res" ]; then
	set -- $res
	echo "BENCH mode=bare guest=linux workload=cyclictest shared=1 neighbour=none events=$1" \
		"exits_per_event=na tick_exits=na lat_min_ticks=na lat_avg_ticks=na lat_p99_ticks=na" \
		"lat_max_ticks=na ratio_p99=na cyc_min_us=$2 cyc_avg_us=$3 cyc_p99_us=${5:-na}" \
		"cyc_p999_us=${6:-na} cyc_max_us=$4" \
		"cpus=$cpus cpu_model=$model ips=$ips tick_us=na seed=na"
fi
[ $fail -eq 0 ] && echo "bare.sh: pass" || echo "bare.sh: FAIL; output in $run_out"
exit $fail
