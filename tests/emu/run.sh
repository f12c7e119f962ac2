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
#     --timeout S       wall-clock limit (default 120), times $EMU_TIMEOUT_SCALE (default
#                       1: tests/vmcscheck/one.sh sets 3, its build being slower)
#     --expect STATUS   ok | failure | no-vmx (default ok), or poweroff: Tempo never
#                       ran (no TEMPO_EXIT line) and the machine powered off (exit 0)
#     --out DIR         keep serial.txt, e9.txt, emu.log there (default: a temp dir)
#     --com1-socket PORT  Bochs: COM1 is a TCP server on 127.0.0.1:PORT instead of a
#                       file; tests/emu/console_drive.py connects, types and writes
#                       serial.txt, and touches serial.done when the line closes;
#                       a step of its script that fails (drive.txt ok=0) ends the run
#     --bochsrc LINE    Bochs: one more line for the bochsrc, after Tempo's own (repeatable;
#                       e.g. 'pci: enabled=1, chipset=i440fx, slot1=ne2k' for a device)
#     --qemu-arg ARG    QEMU: one more argument, after Tempo's own (repeatable; e.g.
#                       --qemu-arg -machine --qemu-arg q35 --qemu-arg -device --qemu-arg edu)
#     --expect-reboot   after Tempo's stop (the --expect status, printed without
#                       exit=emu) the machine must reset ("Tempo: rebooting in", or
#                       "now" for the monitor's reboot, and a reset): QEMU exits 0
#                       at the reset (-no-reboot); in Bochs the BIOS starts again,
#                       and the run ends once Bochs has logged the reset (or
#                       Tempo's banner came twice; rebooted.txt)
#     --expect-halt     after Tempo's stop (printed without exit=emu) the machine must
#                       halt ("Tempo: halted", no "Tempo: rebooting" line): the run
#                       ends HALT_WATCH_S (3) seconds after that line, if no reset
#                       came in them (halted.txt)
#     --show            copy the serial output to stdout as it arrives
#     --stall S         end the run as "stalled" once neither the serial output
#                       nor the emulator's CPU time has moved for S seconds
#                       (default $EMU_STALL_S, else 180; 0 turns the guard off)
# Exit status 0 when the run ended as expected, 1 otherwise, 2 on bad usage.
#
# Why a stall guard: an emulator asleep in the kernel (a write to a terminal
# nobody reads, say) uses no CPU and prints nothing, and without the guard it
# costs the test its whole timeout. A run that keeps computing (Bochs zeroing
# gigabytes prints nothing for minutes) is not a stall: its CPU time moves.
set -uo pipefail

emu="" iso="" cpus=1 model=${EMU_MODEL:-corei7_ivy_bridge_3770k} ips=50000000 mem=256 timeout_s=120
expect=ok out="" show=0 bad_msrs=0 com1_port="" stall_s=${EMU_STALL_S:-180} expect_reboot=0
expect_halt=0
extra_rc=() extra_qemu=()
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
	--expect-reboot) expect_reboot=1; shift ;;
	--expect-halt) expect_halt=1; shift ;;
	--ignore-bad-msrs) bad_msrs=1; shift ;;
	--com1-socket) com1_port=$2; shift 2 ;;
	--stall) stall_s=$2; shift 2 ;;
	--bochsrc) extra_rc+=("$2"); shift 2 ;;
	--qemu-arg) extra_qemu+=("$2"); shift 2 ;;
	*) echo "run.sh: unknown option $1" >&2; exit 2 ;;
	esac
done
[ -n "$emu" ] && [ -n "$iso" ] || { echo "run.sh: --emu and --iso are required" >&2; exit 2; }
timeout_s=$((timeout_s * ${EMU_TIMEOUT_SCALE:-1}))
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
	rm -f "$out"/e9.txt "$out"/emu.log "$out"/rebooted.txt "$out"/halted.txt
	# the console driver may already be writing serial.txt
	[ -n "$com1_port" ] || rm -f "$out"/serial.txt
fi
out=$(readlink -f "$out")
[ -n "$com1_port" ] || : > "$out/serial.txt"
com1="mode=file, dev=$out/serial.txt"
[ -z "$com1_port" ] || com1="mode=socket-server, dev=127.0.0.1:$com1_port"

# cpu_ticks PID: user plus system CPU time of PID (all its threads), in clock ticks
cpu_ticks() {
	local st rest
	read -r st < "/proc/$1/stat" 2>/dev/null || return 1
	rest=${st##*) }
	# shellcheck disable=SC2086
	set -- $rest
	echo $((${12} + ${13}))
}

# stall_report PID SECONDS: what the emulator was doing when the guard ended it
stall_report() {
	local t
	echo "run.sh: stalled: no serial output and no CPU time for $2 s (pid $1)"
	echo "state: $(sed 's/.*) \([A-Za-z]\).*/\1/' "/proc/$1/stat" 2>/dev/null)"
	for t in /proc/"$1"/task/*; do
		echo "thread ${t##*/}: wchan $(cat "$t/wchan" 2>/dev/null || echo '?')"
		sed 's/^/    /' "$t/stack" 2>/dev/null || echo "    (kernel stack not readable: needs root)"
	done
	echo "open files:"
	ls -l "/proc/$1/fd" 2>/dev/null | sed -n 's/.* \([0-9]* -> .*\)/    \1/p'
}

# bochs_reset_seen: the machine was reset after power-on (Bochs logs each
# reset, the power-on one at tick 0), or Tempo's banner came a second time;
# says which in rebooted.txt. Bochs' BIOS sometimes stops at its keyboard
# test after a reset ("Keyboard error:21"), so the reset itself is what counts.
bochs_reset_seen() {
	local why=""
	if [ "$(grep -c 'bx_pc_system_c::Reset(HARDWARE) called' "$out/bochs.log" 2>/dev/null)" -ge 2 ]; then
		why="Bochs logged a hardware reset after power-on"
	elif [ "$(tr -d '\r' < "$out/serial.txt" | grep -c '^Tempo hypervisor .*: real-time')" -ge 2 ]; then
		why="Tempo's banner came a second time"
	fi
	[ -n "$why" ] || return 1
	echo "run.sh: the machine reset: $why" > "$out/rebooted.txt"
}

# A halted machine runs on in the emulator, printing nothing: the run ends a
# few seconds after the halt line, time enough for a reset that should not
# come (the 1 s of reboot=1 is about 2 s of Bochs' wall clock at its 50M ips).
HALT_WATCH_S=3
halt_seen() {
	tr -d '\r' < "$out/serial.txt" 2>/dev/null | grep -q '^Tempo: halted'
}

# script_failed: a console driver's drive.txt written in this run holds a
# failed step; it goes to OUT/script-failed.txt (with the file's folder when
# it is not OUT's own)
script_failed() {
	local f line
	for f in "$out/drive.txt" "$out"/*/drive.txt; do
		[ -f "$f" ] && [ "$f" -nt "$out/.run-start" ] || continue
		line=$(grep -m 1 '^DRIVE step=[0-9]* ok=0 ' "$f") || continue
		[ "$f" = "$out/drive.txt" ] || line+=" (${f#"$out"/})"
		echo "$line" > "$out/script-failed.txt"
		return 0
	done
	return 1
}

# guard TIMEOUT_PID: watches the emulator (the child of timeout(1)); drains
# Bochs' screen pseudo-terminal as soon as Bochs names it; ends the emulator
# once neither the serial files nor its CPU time have moved for stall_s.
guard() {
	local epid="" last="" now still=0 step=2 pts="" drain="" halted_at=""
	while kill -0 "$1" 2>/dev/null; do
		sleep "$step"
		[ -n "$epid" ] || epid=$(pgrep -P "$1" | head -n 1)
		[ -n "$epid" ] || continue
		if [ -z "$pts" ] && [ "$emu" = bochs ]; then
			pts=$(sed -n 's/^Bochs connected to screen "\(\/dev\/pts\/[0-9]*\)".*/\1/p' \
				"$out/emu.log" 2>/dev/null | head -n 1)
			if [ -n "$pts" ]; then
				# noctty: the drain must never become that terminal's owner
				dd if="$pts" iflag=noctty of="$out/screen.log" status=none 2>/dev/null &
				drain=$!
				echo "$drain" > "$out/.drain.pid"
			fi
		fi
		# Bochs has no -no-reboot: a reset runs its BIOS again (and where a
		# halt was expected, the run has failed)
		if [ "$expect_reboot" = 1 ] || [ "$expect_halt" = 1 ] && [ "$emu" = bochs ] &&
			bochs_reset_seen; then
			# Bochs in its debugger's loop does not end on SIGTERM
			kill -KILL "$epid" 2>/dev/null
			return
		fi
		if [ "$expect_halt" = 1 ] && [ -z "$halted_at" ] && halt_seen; then
			halted_at=$SECONDS
		fi
		if [ -n "$halted_at" ] && [ $((SECONDS - halted_at)) -ge "$HALT_WATCH_S" ]; then
			echo "run.sh: halted, and no reset within $HALT_WATCH_S s" > "$out/halted.txt"
			kill -KILL "$epid" 2>/dev/null
			return
		fi
		# a console script gave up (tests/emu/console_drive.py: COM1's in
		# OUT, another port's in a folder of OUT, as devices.sh's COM2): what
		# it waited for will not come, so the run ends now, not at its
		# timeout (a drive.txt older than this run is another run's)
		if script_failed; then
			kill -KILL "$epid" 2>/dev/null
			return
		fi
		[ "$stall_s" -gt 0 ] || continue
		now="$(stat -c %s "$out/serial.txt" "$out/e9.txt" 2>/dev/null | tr '\n' ' ')$(cpu_ticks "$epid")" ||
			continue
		if [ "$now" = "$last" ]; then
			still=$((still + step))
		else
			still=0 last=$now
		fi
		if [ "$still" -ge "$stall_s" ]; then
			stall_report "$epid" "$still" > "$out/stall.txt" 2>&1
			kill -KILL "$epid" 2>/dev/null
			return
		fi
	done
}

# run_guarded CMD...: CMD under timeout(1) with the guard beside it; sets status
# (124/137 a timeout, "stalled" when the guard ended it)
run_guarded() {
	local tpid gpid
	rm -f "$out/stall.txt" "$out/script-failed.txt" "$out/.drain.pid"
	touch "$out/.run-start"
	timeout --kill-after=5 "$timeout_s" "$@" < /dev/null > "$out/emu.log" 2>&1 &
	tpid=$!
	guard "$tpid" &
	gpid=$!
	wait "$tpid"
	status=$?
	kill "$gpid" 2>/dev/null
	wait "$gpid" 2>/dev/null
	[ -f "$out/.drain.pid" ] && kill "$(cat "$out/.drain.pid")" 2>/dev/null
	rm -f "$out/.drain.pid"
	if [ -s "$out/stall.txt" ]; then
		cat "$out/stall.txt" >> "$out/emu.log"
		status=stalled
	fi
}

tail_pid=""
if [ $show -eq 1 ]; then
	tail -n +1 -f "$out/serial.txt" | tr -d '\r' &
	tail_pid=$!
fi

case $emu in
bochs)
	want_status=$([ "$expect" = ok ] || [ "$expect_reboot" = 1 ] || [ "$expect_halt" = 1 ] &&
		echo 0 || echo 1)
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
	for line in "${extra_rc[@]}"; do
		printf '%s\n' "$line" >> "$out/bochsrc"
	done
	printf 'continue\nquit\n' > "$out/bochs.rc"
	# Debian's Bochs is built with its debugger on the terminal: its term
	# display then opens a pseudo-terminal of its own (/dev/ptmx), draws
	# the VGA screen into it with curses and names the other end on
	# stderr ('Bochs connected to screen "/dev/pts/N"'). Nobody holds that
	# end, so once its buffer (about 64 KiB: the cursor blinks ~18 bytes
	# at a time for as long as the guest runs) is full, Bochs sleeps in
	# n_tty_write for good. The guard below drains it into screen.log.
	# TERM names a terminal curses knows.
	# in the run's own directory: some devices write files where Bochs runs
	# (the NE2000's null back end logs what it drops)
	cd "$out" || exit 2
	TERM=xterm run_guarded bochs -q -f "$out/bochsrc" -rc "$out/bochs.rc"
	cd - > /dev/null || exit 2
	# Bochs 2.7 sometimes crashes (SIGSEGV, 139) while tearing down after a
	# clean quit with several CPUs: take the status it had decided on.
	if [ "$status" = 139 ]; then
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
	want_status=$([ -n "$code" ] && [ "$expect_reboot" = 0 ] && echo $((code * 2 + 1)) || echo 0)
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
	run_guarded qemu-system-x86_64 "${args[@]}" "${extra_qemu[@]}"
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

# with a reboot, the first run's stop (Bochs may have begun a second run)
first_run() {
	tr -d '\r' < "$out/serial.txt" | awk '/^Tempo hypervisor .*: real-time/ { n++ } n <= 1'
}
marker=$(first_run | grep -o 'TEMPO_EXIT code=[0-9]* status=[a-z-]*' | tail -n 1)
verdict=pass
why=""
if [ "$expect_reboot" = 1 ] && [ "$emu" = bochs ] && [ "$status" != stalled ] &&
	{ [ -s "$out/rebooted.txt" ] || bochs_reset_seen; }; then
	status=0	# ended by the guard at the second banner
fi
if [ "$expect_halt" = 1 ] && [ -s "$out/halted.txt" ] && [ "$status" != stalled ]; then
	status=0	# ended by the guard after the halt
fi
if [ "$expect_reboot" = 1 ] && ! first_run | grep -qE '^Tempo: rebooting (in |now )'; then
	verdict=fail why="no 'Tempo: rebooting in' or 'Tempo: rebooting now' line"
elif [ "$expect_reboot" = 1 ] && [ "$emu" = bochs ] && [ ! -s "$out/rebooted.txt" ] &&
	[ "$status" != stalled ]; then
	verdict=fail why="no second boot after the stop (emulator status $status)"
elif [ "$expect_halt" = 1 ] && first_run | grep -qE '^Tempo: rebooting (in |now )'; then
	verdict=fail why="a 'Tempo: rebooting' line where a halt was expected"
elif [ "$expect_halt" = 1 ] && { [ ! -s "$out/halted.txt" ] || bochs_reset_seen; }; then
	verdict=fail why="no halt, or a reset after it (emulator status $status)"
elif [ "$status" = stalled ]; then
	verdict=fail why="stalled: $(head -n 1 "$out/stall.txt" | sed 's/^run.sh: stalled: //'); see $out/stall.txt"
elif [ -s "$out/script-failed.txt" ]; then
	verdict=fail why="the console script failed, so the run was ended: $(cat "$out/script-failed.txt")"
elif [ "$status" -eq 124 ] || [ "$status" -eq 137 ]; then
	verdict=fail why="timeout after ${timeout_s}s"
elif [ "$status" -ne "$want_status" ]; then
	# name what ended it: Tempo's own line, or the emulator's panic
	verdict=fail why="emulator exit status $status, expected $want_status; ${marker:-no TEMPO_EXIT line}"
	last_panic=$(grep -h -a -E '^[0-9]+[ep]\[|PANIC|FATAL' "$out/bochs.log" 2>/dev/null | tail -n 3)
	[ -n "$last_panic" ] && why="$why; the emulator's last errors: $(printf '%s' "$last_panic" | tr '\n' '|')"
elif [ -z "$code" ]; then
	[ -z "$marker" ] || verdict=fail why="'$marker': Tempo ran, expected it not to"
elif [ "$marker" != "TEMPO_EXIT code=$code status=$expect" ]; then
	verdict=fail why="marker '${marker:-none}', expected 'TEMPO_EXIT code=$code status=$expect'"
fi
echo "run.sh: $emu cpus=$cpus: $verdict${why:+ ($why)}; output in $out"
[ $verdict = pass ]
