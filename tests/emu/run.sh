#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Boot an image in Bochs or QEMU with a hard timeout, capture the serial port
# and the 0xE9 debug port into files, and decide pass/fail from BOTH the
# emulator's exit status and the "TEMPO_EXIT code=N status=NAME" line the
# hypervisor prints (hv/upcalls.h has the table). Every run works in its own
# directory, so several can run at once.
#
#   tests/emu/run.sh --emu bochs|qemu-bios|qemu-uefi|qemu-uefi-esp --iso IMAGE [options]
#     (qemu-uefi-esp: IMAGE is a FAT ESP disk image, boot/mkesp.sh, booted by
#     OVMF through \EFI\BOOT\BOOTX64.EFI; the image itself is never written)
#     --cpus N          CPUs (default 1)
#     --model NAME      Bochs CPU model (default $EMU_MODEL, else corei7_ivy_bridge_3770k:
#                       tests/run_tests.sh sets EMU_MODEL for its CPU-model matrix)
#     --ips N           Bochs instructions per emulated second (default 50000000)
#     --ignore-bad-msrs Bochs: unknown MSRs read 0 and ignore writes instead of #GP
#                       (bare-metal Linux reads IA32_MISC_ENABLE, 0x1A0, which the
#                       Ivy Bridge model lacks; never for Tempo's own tests)
#     --mem MiB         guest RAM (default 256; Bochs backs at most 2048 MiB of it
#                       with host memory and swaps the rest: 6144 works)
#     --timeout S       wall-clock limit (default 120)
#     --expect STATUS   ok | failure | no-vmx (default ok), or poweroff: Tempo never
#                       ran (no TEMPO_EXIT line) and the machine powered off (exit 0)
#     --out DIR         keep serial.txt, e9.txt, emu.log there (default: a temp dir)
#     --com1-socket PORT  Bochs: COM1 is a TCP server on 127.0.0.1:PORT instead of a
#                       file; tests/emu/console_drive.py connects, types and writes
#                       serial.txt, and touches serial.done when the line closes
#     --show            copy the serial output to stdout as it arrives
# Exit status 0 when the run ended as expected, 1 otherwise, 2 on bad usage.
set -uo pipefail

emu="" iso="" cpus=1 model=${EMU_MODEL:-corei7_ivy_bridge_3770k} ips=50000000 mem=256 timeout_s=120
expect=ok out="" show=0 bad_msrs=0 com1_port=""
while [ $# -gt 0 ]; do
	case $1 in
	--emu) emu=$2; shift 2 ;;
	--iso) iso=$2; shift 2 ;;
	--cpus) cpus=$2; shift 2 ;;
	--model) model=$2; shift 2 ;;
	--ips) ips=$2; shift 2 ;;
	--mem) mem=$2; shift 2 ;;
	--timeout) timeout_s=$2; shift 2 ;;
	--expect) expect=$2; shift 2 ;;
	--out) out=$2; shift 2 ;;
	--show) show=1; shift ;;
	--ignore-bad-msrs) bad_msrs=1; shift ;;
	--com1-socket) com1_port=$2; shift 2 ;;
	*) echo "run.sh: unknown option $1" >&2; exit 2 ;;
	esac
done
[ -n "$emu" ] && [ -n "$iso" ] || { echo "run.sh: --emu and --iso are required" >&2; exit 2; }
[ -f "$iso" ] || { echo "run.sh: image $iso not found (make iso)" >&2; exit 2; }
iso=$(readlink -f "$iso")

case $expect in
ok) code=16 ;;
failure) code=17 ;;
no-vmx) code=18 ;;
poweroff) code="" ;;
*) echo "run.sh: --expect ok|failure|no-vmx|poweroff" >&2; exit 2 ;;
esac

if [ -z "$out" ]; then
	out=$(mktemp -d "${TMPDIR:-/tmp}/tempo-emu.XXXXXX")
else
	mkdir -p "$out"
	rm -f "$out"/e9.txt "$out"/emu.log
	# the console driver may already be writing serial.txt
	[ -n "$com1_port" ] || rm -f "$out"/serial.txt
fi
out=$(readlink -f "$out")
[ -n "$com1_port" ] || : > "$out/serial.txt"
com1="mode=file, dev=$out/serial.txt"
[ -z "$com1_port" ] || com1="mode=socket-server, dev=127.0.0.1:$com1_port"

tail_pid=""
if [ $show -eq 1 ]; then
	tail -n +1 -f "$out/serial.txt" | tr -d '\r' &
	tail_pid=$!
fi

case $emu in
bochs)
	want_status=$([ "$expect" = ok ] && echo 0 || echo 1)
	cat > "$out/bochsrc" <<RC
memory: guest=$mem, host=$((mem > 2048 ? 2048 : mem))
romimage: file=/usr/share/bochs/BIOS-bochs-latest, options=fastboot
vgaromimage: file=/usr/share/vgabios/vgabios.bin
cpu: model=$model, count=$cpus, ips=$ips, reset_on_triple_fault=0, ignore_bad_msrs=$bad_msrs
ata0: enabled=1, ioaddr1=0x1f0, ioaddr2=0x3f0, irq=14
ata0-master: type=cdrom, path=$iso, status=inserted
boot: cdrom
display_library: term
com1: enabled=1, $com1
port_e9_hack: enabled=1
clock: sync=none, time0=946681200
speaker: enabled=0
panic: action=fatal
error: action=report
log: $out/bochs.log
magic_break: enabled=1
RC
	printf 'continue\nquit\n' > "$out/bochs.rc"
	# Bochs' term display (curses) writes to a plain file here: no
	# pseudo-terminal, so nothing can block its writes (long runs under
	# script(1) stalled with Bochs asleep in n_tty_write). TERM names a
	# terminal curses knows; the screen's escapes land in emu.log.
	TERM=xterm timeout --kill-after=5 "$timeout_s" \
		bochs -q -f "$out/bochsrc" -rc "$out/bochs.rc" \
		< /dev/null > "$out/emu.log" 2>&1
	status=$?
	# Bochs 2.7 sometimes crashes (SIGSEGV, 139) while tearing down after a
	# clean quit with several CPUs: take the status it had decided on.
	if [ "$status" -eq 139 ]; then
		decided=$(sed -n 's/.*quit_sim called with exit code \([0-9]*\).*/\1/p' \
			"$out/bochs.log" | tail -n 1)
		if [ -n "$decided" ]; then
			echo "run.sh: Bochs crashed after quitting with status $decided; using $decided" \
				>> "$out/emu.log"
			status=$decided
		fi
	fi
	;;
qemu-bios | qemu-uefi | qemu-uefi-esp)
	want_status=$([ -n "$code" ] && echo $((code * 2 + 1)) || echo 0)
	if [ "$emu" = qemu-uefi-esp ]; then
		disk=(-drive "format=raw,file=$iso,snapshot=on")
	else
		disk=(-cdrom "$iso")
	fi
	args=(-cpu max -smp "$cpus" -m "$mem" "${disk[@]}" -display none
		-serial "file:$out/serial.txt" -debugcon "file:$out/e9.txt" -no-reboot -net none
		-device isa-debug-exit,iobase=0xf4,iosize=0x04)
	if [ "$emu" != qemu-bios ]; then
		cp /usr/share/OVMF/OVMF_VARS_4M.fd "$out/vars.fd"
		args+=(-machine q35
			-drive if=pflash,format=raw,readonly=on,file=/usr/share/OVMF/OVMF_CODE_4M.fd
			-drive "if=pflash,format=raw,file=$out/vars.fd")
	fi
	timeout --kill-after=5 "$timeout_s" qemu-system-x86_64 "${args[@]}" \
		< /dev/null > "$out/emu.log" 2>&1
	status=$?
	;;
*)
	echo "run.sh: unknown emulator $emu" >&2
	exit 2
	;;
esac

[ -n "$tail_pid" ] && { sleep 0.3; kill "$tail_pid" 2>/dev/null; wait "$tail_pid" 2>/dev/null; }
# the driver has the last bytes once the socket has closed
if [ -n "$com1_port" ]; then
	for _ in $(seq 100); do [ -e "$out/serial.done" ] && break; sleep 0.1; done
fi

marker=$(tr -d '\r' < "$out/serial.txt" | grep -o 'TEMPO_EXIT code=[0-9]* status=[a-z-]*' | tail -n 1)
verdict=pass
why=""
if [ "$status" -eq 124 ] || [ "$status" -eq 137 ]; then
	verdict=fail why="timeout after ${timeout_s}s"
elif [ "$status" -ne "$want_status" ]; then
	verdict=fail why="emulator exit status $status, expected $want_status"
elif [ -z "$code" ]; then
	[ -z "$marker" ] || verdict=fail why="'$marker': Tempo ran, expected it not to"
elif [ "$marker" != "TEMPO_EXIT code=$code status=$expect" ]; then
	verdict=fail why="marker '${marker:-none}', expected 'TEMPO_EXIT code=$code status=$expect'"
fi
echo "run.sh: $emu cpus=$cpus: $verdict${why:+ ($why)}; output in $out"
[ $verdict = pass ]
