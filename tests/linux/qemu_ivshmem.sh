#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The channel module and tempo-chan against QEMU's ivshmem (no Tempo, no VMX:
# TCG, about half a minute):
#   tests/linux/qemu_ivshmem.sh [LINUX_DIR [OUTDIR]]
# boots LINUX_DIR's bzImage and initramfs (make linux-image) with three
# ivshmem-plain functions, each backed by a 1 MiB file in /dev/shm that this
# script reads and writes from the host:
#   00:04.0 (A)  the host writes a pattern before boot; Linux checks it through
#                sysfs resource2 (no module) and /dev/tempo/NAME, then writes
#                another through /dev/tempo/NAME that the host checks after
#   00:05.0 (B)  Linux serves the echo protocol through sysfs (echo-sysfs) to
#                a client on the host (tempo-chan echo-client on the file)
#   00:06.0 (C)  the same through /dev/tempo/NAME (echo, polling: ivshmem-plain
#                has no doorbells), then the remove path: a process holding C
#                mapped sees it unbound (ENODEV, SIGBUS), rmmod, sysfs again,
#                insmod again
# then insmod ivshmem_ro=1: A as a ro channel refuses a writable mapping and
# mprotect to writable;
# plus the module's answers where ivshmem has no doorbell (O_NONBLOCK read,
# poll timeout, ring) and sysfs refused while the module owns the BARs.
# Prints PASS/FAIL lines and "N passed, N failed"; exits 1 on a failure, 0
# with "skipped: ..." when there is no image or no QEMU.
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 1

ldir=${1:-${BUILD:-build}/linux}
out=${2:-${BUILD:-build}/test-logs/qemu_ivshmem}
kernel=$ldir/bzImage
initrd=$ldir/initrd.cpio.gz
if [ ! -f "$kernel" ] || [ ! -f "$initrd" ]; then
	echo "skipped: no $kernel or $initrd (make linux-image)"
	exit 0
fi
if ! command -v qemu-system-x86_64 >/dev/null; then
	echo "skipped: no qemu-system-x86_64"
	exit 0
fi
mkdir -p "$out"

passed=0
failed=0
pass() { passed=$((passed + 1)); echo "PASS $1"; }
fail() { failed=$((failed + 1)); echo "FAIL $1"; }
finish() {
	echo "$passed passed, $failed failed"
	[ "$failed" -eq 0 ]
	exit
}

# grep -c reads it all: -q would stop gzip with SIGPIPE, a failure under pipefail
if [ "$(gzip -dc "$initrd" | grep -ac 'lib/modules/tempo_chan\.ko')" = 0 ]; then
	fail "initramfs: $initrd has no lib/modules/tempo_chan.ko (make linux-image)"
	finish
fi

# tempo-chan for the host side: the same source, the files as TARGETs
tool=$out/tempo-chan
gcc -std=gnu11 -O2 -Wall -Wextra -Werror -I. -o "$tool" guests/linux/tempo_chan_tool.c ||
	{ fail "host tempo-chan build"; finish; }

shm=/dev/shm/tempo-ivshmem-$$
files=("$shm-a" "$shm-b" "$shm-c")
clients=()
qemu_pid=
# shellcheck disable=SC2317 # the EXIT trap calls it
cleanup() {
	[ -n "$qemu_pid" ] && kill "$qemu_pid" 2>/dev/null
	for p in "${clients[@]}"; do
		kill "$p" 2>/dev/null
	done
	rm -f "${files[@]}"
}
trap cleanup EXIT
for f in "${files[@]}"; do
	rm -f "$f"
	truncate -s 1M "$f"
done
"$tool" fill "$shm-a" host-to-linux > "$out/host-fill.txt" || { fail "host fill"; finish; }

sa=0000:00:04.0
sb=0000:00:05.0
sc=0000:00:06.0
d=/sys/bus/pci/devices
items=(
	"check,$d/$sa,host-to-linux"			# sysfs, before the module
	"echo-sysfs,--timeout-ms,120000,$d/$sb,200"
	"insmod"
	"info,ivshmem-$sa"
	"check,ivshmem-$sa,host-to-linux"
	"check,$d/$sa,host-to-linux"			# refused: the module owns the BARs
	"fill,ivshmem-$sa,linux-to-host"
	"echo,--timeout-ms,120000,ivshmem-$sc,200"
	"wait,--timeout-ms,0,ivshmem-$sa"		# EAGAIN
	"wait,--timeout-ms,300,ivshmem-$sa"		# timeout
	"ring,ivshmem-$sa,1"				# EOPNOTSUPP: no doorbell register
	"bg,hold,--timeout-ms,60000,ivshmem-$sc"
	"sleep,2"
	"rmmod"						# refused: hold has it open
	"unbind,$sc"
	"waitbg"
	"rmmod"
	"fill,$d/$sc,linux-sysfs"
	"insmod"
	"check,ivshmem-$sc,linux-sysfs"
	"rmmod"
	"insmod,ivshmem_ro=1"				# ivshmem as a ro channel
	"info,ivshmem-$sa"
	"fill,ivshmem-$sa,no-write"			# refused: PROT_WRITE on ro
	"check,ivshmem-$sa,linux-to-host"		# and mprotect cannot add it
)
chan_test=$(IFS=';'; echo "${items[*]}")
cmdline="console=ttyS0 cryptomgr.notests panic=-1 oops=panic cyclictest_loops=0 chan_test=$chan_test"

log=$out/console.log
start=$SECONDS
timeout 300 qemu-system-x86_64 -m 512 -nographic -no-reboot -cpu max -nic none -vga none \
	-kernel "$kernel" -initrd "$initrd" -append "$cmdline" \
	-object memory-backend-file,id=hma,share=on,mem-path="$shm-a",size=1M \
	-device ivshmem-plain,memdev=hma,addr=0x4 \
	-object memory-backend-file,id=hmb,share=on,mem-path="$shm-b",size=1M \
	-device ivshmem-plain,memdev=hmb,addr=0x5 \
	-object memory-backend-file,id=hmc,share=on,mem-path="$shm-c",size=1M \
	-device ivshmem-plain,memdev=hmc,addr=0x6 \
	< /dev/null > "$log" 2>&1 &
qemu_pid=$!
# The clients wait for the server's magic, so they can start with QEMU.
"$tool" echo-client --timeout-ms 150000 "$shm-b" 200 > "$out/client-b.txt" 2>&1 &
clients+=($!)
"$tool" echo-client --timeout-ms 150000 "$shm-c" 200 > "$out/client-c.txt" 2>&1 &
clients+=($!)
wait "$qemu_pid"
qemu_rc=$?
qemu_pid=
for i in "${!clients[@]}"; do
	wait "${clients[$i]}"
done
clients=()
echo "qemu: exit $qemu_rc after $((SECONDS - start)) s, console in $log"

# have NAME PATTERN: a console line matches the extended regex
have() {
	if grep -Eq "$2" "$log"; then
		pass "$1"
	else
		fail "$1: no line matching '$2' in $log"
	fi
}
# rc INDEX WANT: the INDEXth LINUX_CHAN_RC line (1-based) has rc=WANT
rc() {
	local got
	got=$(grep -o 'LINUX_CHAN_RC rc=[0-9]* cmd=.*' "$log" | sed -n "${1}p")
	case $got in
	"LINUX_CHAN_RC rc=$2 "*) pass "item $1 rc=$2: ${got#*cmd=}" ;;
	*) fail "item $1: want rc=$2, got '${got:-nothing}'" ;;
	esac
}

if [ "$qemu_rc" -eq 0 ]; then
	pass "qemu exited 0 (poweroff)"
else
	fail "qemu exited $qemu_rc"
fi
have "init finished" 'LINUX_DONE'
if grep -Eq 'Call Trace|BUG:|Oops|WARNING:|general protection' "$log"; then
	fail "kernel warnings: $(grep -Em1 'Call Trace|BUG:|Oops|WARNING:|general protection' "$log")"
else
	pass "no kernel warning, oops or BUG"
fi
have "sysfs resource2 reads the host's pattern" \
	"LINUX_CHAN CHAN_CHECK mode=sysfs name=ivshmem-$sa size=1048576 pattern=host-to-linux bad_words=0 .*result=ok"
have "echo-sysfs answered the host client 200 times" \
	"LINUX_CHAN CHAN_ECHO mode=sysfs name=ivshmem-$sb answers=200 bad=0 .* wait=poll "
have "module probed the three functions" \
	"LINUX_CHAN_MODULE insmod rc=0 devices=ivshmem-$sa,ivshmem-$sb,ivshmem-$sc"
have "probe line" "tempo_chan $sa: /dev/tempo/ivshmem-$sa: ivshmem, 1024 KiB at 0x[0-9a-f]+, rw, no doorbells"
have "info through the ioctl" \
	"LINUX_CHAN CHAN_INFO name=ivshmem-$sa size=1048576 self=0 peers=0 access=rw doorbell_limit=0 mode=module tempo=0 doorbell=0 "
have "/dev/tempo mmap reads the host's pattern" \
	"LINUX_CHAN CHAN_CHECK mode=module name=ivshmem-$sa size=1048576 pattern=host-to-linux bad_words=0 .*result=ok"
have "sysfs mmap refused while the module owns the BARs" \
	"LINUX_CHAN tempo-chan: mmap $d/$sa/resource0: Invalid argument"
have "fill through /dev/tempo" "LINUX_CHAN CHAN_FILL mode=module name=ivshmem-$sa size=1048576 pattern=linux-to-host"
have "echo through /dev/tempo answered the host client 200 times" \
	"LINUX_CHAN CHAN_ECHO mode=module name=ivshmem-$sc answers=200 bad=0 .* wait=poll "
have "O_NONBLOCK read: EAGAIN" "LINUX_CHAN CHAN_WAIT mode=module name=ivshmem-$sa result=EAGAIN doorbells=0"
have "poll timeout" "LINUX_CHAN CHAN_WAIT mode=module name=ivshmem-$sa result=timeout doorbells=0"
have "ring without a doorbell register: EOPNOTSUPP" \
	"LINUX_CHAN CHAN_RING mode=module name=ivshmem-$sa peer=1 result=EOPNOTSUPP"
have "remove with the device open and mapped: ENODEV, then SIGBUS" \
	"LINUX_CHAN CHAN_HOLD mode=module name=ivshmem-$sc result=gone touch_before=ok read=ENODEV touch_after=sigbus"
have "remove line" "tempo_chan $sc: /dev/tempo/ivshmem-$sc removed"
have "sysfs fill after rmmod" "LINUX_CHAN CHAN_FILL mode=sysfs name=ivshmem-$sc size=1048576 pattern=linux-sysfs"
have "/dev/tempo after insmod again reads it" \
	"LINUX_CHAN CHAN_CHECK mode=module name=ivshmem-$sc size=1048576 pattern=linux-sysfs bad_words=0 .*result=ok"

# Each item's exit status, in order (the implicit insmod is not there: items list one).
want_rc=(0 0 0 0 0 1 0 0 1 1 1 0 0 1 0 0 0 0 0 0 0 0 0 1 0)
for i in "${!want_rc[@]}"; do
	rc $((i + 1)) "${want_rc[$i]}"
done
have "ro: info" "LINUX_CHAN CHAN_INFO name=ivshmem-$sa size=1048576 self=0 peers=0 access=ro "
have "ro: a writable mapping is refused" \
	"LINUX_CHAN tempo-chan: mmap /dev/tempo/ivshmem-$sa \(1048576 bytes\): Operation not permitted"
have "ro: a read-only mapping cannot be made writable" \
	"LINUX_CHAN CHAN_CHECK mode=module name=ivshmem-$sa size=1048576 pattern=linux-to-host bad_words=0 first_bad=-1 ro_mprotect=refused result=ok"
have "item count" "LINUX_CHAN_DONE ok=19 failed=6"

# The other side, from the host.
if "$tool" check "$shm-a" linux-to-host > "$out/host-check-a.txt"; then
	pass "host reads what Linux wrote through /dev/tempo: $(cat "$out/host-check-a.txt")"
else
	fail "host check of A: $(cat "$out/host-check-a.txt")"
fi
if "$tool" check "$shm-c" linux-sysfs > "$out/host-check-c.txt"; then
	pass "host reads what Linux wrote through sysfs: $(cat "$out/host-check-c.txt")"
else
	fail "host check of C: $(cat "$out/host-check-c.txt")"
fi
for x in b c; do
	if grep -q "^CHAN_ECHO_CLIENT .* requests=200 bad=0 server_answers=200 timeout=0 " \
		"$out/client-$x.txt"; then
		pass "host echo client $x: $(cat "$out/client-$x.txt")"
	else
		fail "host echo client $x: $(cat "$out/client-$x.txt")"
	fi
done
finish
