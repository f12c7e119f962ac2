#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# tempo-config (tools/tempo-config.c): every config in the repository gets the
# verdict the boot gives it, the malformed ones the boot's own message (taken
# from tests/emu/partitions.sh, so the two cannot drift apart), --machine on saved
# machine samples (tests/tools/machines/: this build VM, a Bochs 4-CPU
# machine, a two-socket server with x2APIC ids above 255 and RAM above
# 4 GiB), and `create` output that `check` accepts.
#   tests/tools/test_tempo_config.sh
# One line per test: PASS name, FAIL name: why, SKIP name: why. Exit status 1
# if any failed.
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 1

BUILD=${BUILD:-build}
tool=$BUILD/tempo-config
machines=tests/tools/machines
work=$(mktemp -d "${TMPDIR:-/tmp}/tempo-config.XXXXXX")
trap 'rm -rf "$work"' EXIT
failed=0

pass() { echo "PASS $1"; }
fail() { echo "FAIL $1: $2"; failed=1; }
skip() { echo "SKIP $1: $2"; }

# the guests too: the --images tests use them
if ! make -s tempo-config guests BUILD="$BUILD" > "$work/build.log" 2>&1; then
	fail build "make tempo-config guests: $(tail -n 5 "$work/build.log")"
	exit 1
fi

# boot_line TEST: the config error test_TEST in tests/emu/partitions.sh
# expects the boot to print, as a plain string (the regex's ^ and "ERROR: "
# dropped)
boot_line() {
	# shellcheck disable=SC2016  # the $1 is partitions.sh's text, not ours
	sed -n "/^test_$1()/,/^}/p" tests/emu/partitions.sh |
		sed -n 's/.*need "$1" "^ERROR: \(config: [^"]*\)".*/\1/p' | head -n 1
}

# expect NAME STATUS FILE ARGS...: tempo-config check ARGS FILE exits STATUS;
# without --images in ARGS, the images are not looked for (--no-images)
last_file=""
expect() {
	local name=$1 want=$2 file=$3 rc
	shift 3
	last_file=$file
	[[ " $* " == *" --images "* ]] || set -- "$@" --no-images
	"$tool" check "$@" "$file" > "$work/out.txt" 2>&1
	rc=$?
	if [ "$rc" -ne "$want" ]; then
		fail "$name" "exit status $rc, expected $want: $(tail -n 3 "$work/out.txt" | tr '\n' '|')"
		return 1
	fi
	return 0
}

# has NAME TEXT...: the last run printed the line TEXT (the TEXTs joined, for
# long lines)
has() {
	local name=$1 line
	shift
	line=$(printf '%s' "$@")
	# the boot's "config: partitions:LINE: " is the tool's "FILE:LINE: " (FILE: for line 0)
	case $line in
	"config: partitions:0: "*) line="$last_file: ${line#config: partitions:0: }" ;;
	"config: partitions:"*) line="$last_file:${line#config: partitions:}" ;;
	esac
	grep -qxF -- "$line" "$work/out.txt" && return 0
	fail "$name" "no line '$line' in: $(grep -v '^machine: CPU' "$work/out.txt" | tr '\n' '|')"
	return 1
}

# ---- every config in the repository, syntax and the checks that need no machine ----
why=""
for f in guests/*.cfg tests/emu/configs/*.cfg; do
	want=0
	case $f in
	*/bad-syntax.cfg | */bad-device.cfg) want=1 ;;
	esac
	"$tool" check --no-images "$f" > "$work/out.txt" 2>&1
	rc=$?
	[ "$rc" -eq "$want" ] || why+="$f: status $rc, expected $want; "
done
if [ -z "$why" ]; then pass repo_configs; else fail repo_configs "$why"; fi

line=$(boot_line bochs_bad_syntax)
if [ -z "$line" ]; then
	fail bad_syntax "no config line found in tests/emu/partitions.sh test_bochs_bad_syntax"
elif expect bad_syntax 1 tests/emu/configs/bad-syntax.cfg && has bad_syntax "$line"; then
	pass bad_syntax
fi

# ---- the same against the 4-CPU Bochs machine the emulator tests boot ----
bochs=(--machine --sysroot "$machines/bochs-4cpu")
why=""
for f in guests/*.cfg tests/emu/configs/*.cfg; do
	want=0
	case $f in
	*/bad-syntax.cfg | */bad-cpu.cfg | */bad-device.cfg) want=1 ;;
	# booted on 7 CPUs (bochs_restart) and 5 (bochs_channel_edge); checked
	# without a machine above
	*/restart.cfg | */channel-edge.cfg) continue ;;
	# booted on 10 CPUs (bochs_many_vcpus): checked on the server below
	*/many-vcpus.cfg) continue ;;
	# booted on 6 CPUs (bochs_fidelity): checked on the server below
	*/fidelity.cfg) continue ;;
	# booted with 6 or 10 GiB (bochs_high_mem, bochs_large_mem,
	# linux_large_mem): checked on the server below
	*/high-mem.cfg | */high-mem-big.cfg | */high-mem-large.cfg | */linux-large.cfg) continue ;;
	# booted with Bochs' PCI NE2000 (bochs_dev_ne2k_linux), which the
	# sample lacks: checked without a machine above
	*/linux-ne2k.cfg) continue ;;
	esac
	"$tool" check "${bochs[@]}" --no-images "$f" > "$work/out.txt" 2>&1
	rc=$?
	[ "$rc" -eq "$want" ] ||
		why+="$f: status $rc, expected $want ($(tail -n 2 "$work/out.txt" | tr '\n' ' ')); "
done
if [ -z "$why" ]; then pass repo_configs_bochs_4cpu; else fail repo_configs_bochs_4cpu "$why"; fi

line=$(boot_line bochs_bad_cpu)
if [ -z "$line" ]; then
	fail bad_cpu "no config line found in tests/emu/partitions.sh test_bochs_bad_cpu"
elif expect bad_cpu 1 tests/emu/configs/bad-cpu.cfg "${bochs[@]}"; then
	line="tests/emu/configs/bad-cpu.cfg:${line#config: partitions:}"
	# partitions.sh matches the start of the line; the tool prints all of it
	if grep -qF -- "$line" "$work/out.txt" &&
		[ "$(grep -F -- "$line" "$work/out.txt")" = "$line (the MADT lists 4)" ]; then
		pass bad_cpu
	else
		fail bad_cpu "no line '$line (the MADT lists 4)' in: $(tr '\n' '|' < "$work/out.txt")"
	fi
fi

if expect plan_bochs 0 guests/demo.cfg "${bochs[@]}" &&
	has plan_bochs "machine: 4 CPUs enabled in the MADT; RAM 511 MiB below 4 GiB, " \
		"0 MiB above, from /sys/firmware/memmap" &&
	has plan_bochs "plan: CPU 0 (APIC id 0): hypervisor, drains the consoles" &&
	has plan_bochs "plan: CPU 2 (APIC id 2): partition rt0 vCPU 1, timer direct" &&
	has plan_bochs "plan: CPU 3 (APIC id 3): partition rt1 vCPU 0, timer direct" &&
	has plan_bochs "plan: partition rt0: RAM 0x1d600000-0x1f5fffff " \
		"(32 MiB, carved from the top of free RAM)" &&
	has plan_bochs "plan: partition rt1: RAM 0x1b600000-0x1d5fffff " \
		"(32 MiB, carved from the top of free RAM)"; then
	pass plan_bochs
fi

# ---- the two-socket server: x2APIC ids above 255, SMT, RAM above 4 GiB ----
srv=(--machine --sysroot "$machines/server-2s")
# write_cfg FILE [partition NAME CPUS MEMORY [base]]...
write_cfg() {
	local f=$1
	shift
	: > "$f"
	while [ $# -ge 3 ]; do
		printf '[partition %s]\ncpus = %s\nmemory = %s\nimage = rtbench-mb2\n' "$1" "$2" "$3" >> "$f"
		shift 3
		if [ $# -gt 0 ] && [ "${1#base=}" != "$1" ]; then
			printf 'base = %s\n' "${1#base=}" >> "$f"
			shift
		fi
		printf '\n' >> "$f"
	done
}
write_cfg "$work/split.cfg" a 1 16M b 33 16M
if expect server_machine 0 "$work/split.cfg" "${srv[@]}" &&
	has server_machine "machine: 64 CPUs enabled in the MADT; RAM 2032 MiB below 4 GiB, " \
		"389120 MiB above, from /sys/firmware/memmap" &&
	has server_machine "plan: partition a: RAM 0x5fff000000-0x5fffffffff " \
		"(16 MiB, carved from the top of free RAM)" &&
	has server_machine "machine: CPU 0: APIC id 256, SMT siblings: 32" &&
	has server_machine "machine: CPU 16: APIC id 512, SMT siblings: 48" &&
	has server_machine "machine: CPU 63: APIC id 573, SMT siblings: 31" &&
	has server_machine "plan: CPU 33 (APIC id 261): partition b vCPU 0, timer direct"; then
	pass server_machine
fi
if has server_smt_split "warning: CPUs 1 and 33 are SMT siblings (one core) but CPU 1 is " \
	"in 'a' and CPU 33 in 'b': each slows the other down; put them in one partition " \
	"or leave one out"; then
	pass server_smt_split
fi
write_cfg "$work/together.cfg" a 1,33 16M
if expect server_smt_together 0 "$work/together.cfg" "${srv[@]}"; then
	if grep -q '^warning: .*SMT' "$work/out.txt"; then
		fail server_smt_together "warned: $(grep '^warning' "$work/out.txt")"
	else
		pass server_smt_together
	fi
fi

# The boot's messages for what only the machine can tell. The server's RAM
# above 4 GiB is Tempo's (hv/start/main.c: map_high_ram): 1 GiB each fits there,
# where the 2,021 MiB below 4 GiB alone would not; one partition past its MMIO
# window goes on at 4 GiB in its guest (4 GiB and 256 GiB); 2 x 256 MiB on
# the 511 MiB Bochs machine do not.
write_cfg "$work/big.cfg" a 1 1G b 2 1G
expect server_memory 0 "$work/big.cfg" "${srv[@]}" &&
	has server_memory "plan: partition b: RAM 0x5f80000000-0x5fbfffffff (1024 MiB, carved " \
		"from the top of free RAM)" &&
	pass server_memory
expect server_high_mem 0 tests/emu/configs/high-mem.cfg "${srv[@]}" &&
	has server_high_mem "plan: partition fixed: RAM 0x140000000-0x140ffffff (16 MiB, fixed base)" &&
	pass server_high_mem
expect server_memory_window 0 tests/emu/configs/high-mem-big.cfg "${srv[@]}" &&
	has server_memory_window "plan: partition big: its guest sees RAM at 0x0-0xfe9fffff and " \
		"0x100000000-0x1015fffff (past its MMIO window, from 4 GiB)" &&
	pass server_memory_window
expect server_large 0 tests/emu/configs/high-mem-large.cfg "${srv[@]}" &&
	has server_large "plan: partition bad: its guest sees RAM at 0x0-0xfe9fffff and " \
		"0x100000000-0x107dfffff (past its MMIO window, from 4 GiB)" &&
	pass server_large
expect server_linux_large 0 tests/emu/configs/linux-large.cfg "${srv[@]}" &&
	has server_linux_large "plan: partition linux: its guest sees RAM at 0x0-0xfe9fffff and " \
		"0x100000000-0x107dfffff (past its MMIO window, from 4 GiB)" &&
	pass server_linux_large
write_cfg "$work/linux-big.cfg" a 1 256G
expect server_large_partition 0 "$work/linux-big.cfg" "${srv[@]}" &&
	has server_large_partition "plan: partition a: RAM 0x2000000000-0x5fffffffff (262144 MiB, " \
		"carved from the top of free RAM)" &&
	has server_large_partition "plan: partition a: its guest sees RAM at 0x0-0xfe9fffff and " \
		"0x100000000-0x40015fffff (past its MMIO window, from 4 GiB)" &&
	pass server_large_partition
write_cfg "$work/bochs-big.cfg" a 1 256M b 2 256M
expect bochs_memory 1 "$work/bochs-big.cfg" "${bochs[@]}" &&
	has bochs_memory "config: partitions:6: partition 'b': memory does not fit " \
		"(512 MiB asked for so far, 500 MiB usable)" &&
	pass bochs_memory
write_cfg "$work/hole.cfg" a 1 16M base=0x80000000
expect server_base_hole 1 "$work/hole.cfg" "${srv[@]}" &&
	has server_base_hole "$work/hole.cfg:1: partition 'a' (line 1): " \
		"base 0x80000000 + 16 MiB is not free usable RAM" &&
	pass server_base_hole
write_cfg "$work/fixed.cfg" a 1 16M base=0x20000000
expect server_base_free 0 "$work/fixed.cfg" "${srv[@]}" &&
	has server_base_free "plan: partition a: RAM 0x20000000-0x20ffffff (16 MiB, fixed base)" &&
	pass server_base_free
write_cfg "$work/shared.cfg" a 5 16M b 5 16M
expect server_shared 1 "$work/shared.cfg" "${srv[@]}" &&
	has server_shared "config: partitions:6: CPU 5 is given to both 'a' and 'b'; " \
		"add a [schedule 5] section to share it" &&
	pass server_shared
write_cfg "$work/cpu64.cfg" a 64 16M
expect server_cpu64 1 "$work/cpu64.cfg" "${srv[@]}" &&
	has server_cpu64 "config: partitions:1: partition 'a': CPU 64 does not exist (the MADT lists 64)" &&
	pass server_cpu64
write_cfg "$work/cpu4096.cfg" a 4096 16M
expect server_cpu4096 1 "$work/cpu4096.cfg" "${srv[@]}" &&
	has server_cpu4096 "config: partitions:2: cpus: CPU 4096 is out of range (0-4095)" &&
	pass server_cpu4096

# the fidelity guests' six partitions on 6 CPUs
expect server_fidelity 0 tests/emu/configs/fidelity.cfg "${srv[@]}" && pass server_fidelity

# 65 vCPUs on 10 CPUs, 8 shared cores: the pool grows by 64 KiB a CPU and 32 KiB a vCPU
expect server_many_vcpus 0 tests/emu/configs/many-vcpus.cfg "${srv[@]}" &&
	has server_many_vcpus "plan: CPU 9 (APIC id 292): shared by a [schedule 9]: a b c d e f g h" &&
	pass server_many_vcpus

# ---- four sockets, 448 CPUs: past the old 64-CPU limit, sparse x2APIC ids to 3513 ----
python3 tests/tools/mkmachine.py "$work/server-4s" server-4s
big=(--machine --sysroot "$work/server-4s")
write_cfg "$work/big-cpus.cfg" a 300-303 16M b 447 16M
expect server4s_cpus 0 "$work/big-cpus.cfg" "${big[@]}" &&
	has server4s_cpus "machine: 448 CPUs enabled in the MADT; RAM 2032 MiB below 4 GiB, " \
		"1048576 MiB above, from /sys/firmware/memmap" &&
	has server4s_cpus "machine: CPU 447: APIC id 3513, SMT siblings: 223" &&
	has server4s_cpus "plan: CPU 300 (APIC id 1185): partition a vCPU 0, timer direct" &&
	has server4s_cpus "plan: CPU 303 (APIC id 1209): partition a vCPU 3, timer direct" &&
	has server4s_cpus "plan: CPU 447 (APIC id 3513): partition b vCPU 0, timer direct" &&
	pass server4s_cpus
write_cfg "$work/big-cpu448.cfg" a 446-448 16M
expect server4s_cpu448 1 "$work/big-cpu448.cfg" "${big[@]}" &&
	has server4s_cpu448 "config: partitions:1: partition 'a': CPU 448 does not exist " \
		"(the MADT lists 448)" &&
	pass server4s_cpu448
write_cfg "$work/big-65.cfg" a 100-164 16M
expect server4s_65 1 "$work/big-65.cfg" "${big[@]}" &&
	has server4s_65 "config: partitions:2: cpus: more than 64 CPUs in one partition " \
		"(one vCPU each)" &&
	pass server4s_65

# ---- images: with --images, the files 20_tempo would load ----
mkdir -p "$work/img"
cp "$BUILD"/guests/hello-mb2.elf "$work/img/"
expect images_missing 1 guests/demo.cfg "${bochs[@]}" --images "$work/img" &&
	has images_missing "config: partitions:13: image 'hello-mb1' not found among the boot " \
		"modules (have: partitions, hello-mb2)" &&
	pass images_missing

# Images checked as the boot loads them, with the boot's lines. The Linux
# tests' refusals (tests/emu/linux.sh) with a stand-in bzImage: the "HdrS"
# signature and nothing else, which is also cut short.
# linux_line TEST: the pattern test_TEST in tests/emu/linux.sh expects
linux_line() {
	# shellcheck disable=SC2016  # the $1 is linux.sh's text, not ours
	sed -n "/^test_$1()/,/^}/p" tests/emu/linux.sh |
		sed -n 's/.*need "$1" "^ERROR: \([^"]*\)".*/\1/p' | head -n 1
}
head -c 4096 /dev/zero > "$work/img/linux"
printf 'HdrS' | dd of="$work/img/linux" bs=1 seek=514 conv=notrunc 2>/dev/null
echo initrd > "$work/img/initrd"
cp "$BUILD"/guests/rtbench-mb2.elf "$work/img/"
for t in linux_no_initrd:linux-noinitrd linux_corrupt_kernel:linux-corrupt; do
	name=${t%%:*}
	pat=$(linux_line "$name")
	if [ -z "$pat" ]; then
		fail "image_$name" "no ERROR pattern in tests/emu/linux.sh test_$name"
	elif expect "image_$name" 1 "tests/emu/configs/${t#*:}.cfg" "${bochs[@]}" \
		--images "$work/img"; then
		if grep -qE "^$pat" "$work/out.txt"; then
			pass "image_$name"
		else
			fail "image_$name" "no line matching '^$pat' in: $(grep -v '^machine' "$work/out.txt")"
		fi
	fi
done
head -c 40000 /dev/zero > "$work/img/garbage"
printf '[partition g]\ncpus = 1\nmemory = 16M\nimage = garbage\n' > "$work/garbage.cfg"
expect image_not_multiboot 1 "$work/garbage.cfg" --images "$work/img" &&
	has image_not_multiboot "$work/garbage.cfg:1: image 'garbage': no multiboot header in the " \
		"first 32 KiB; nor is it a Linux kernel (no bzImage \"HdrS\" at 0x202, no ELF note \"Linux\")" &&
	pass image_not_multiboot
# a vmlinux (docs/linux.md): tests/fuzz/corpus/bzimage/vmlinux-min, one
# PT_LOAD at 16 MiB and a "Linux" note, checked as the boot would; moved
# 4 KiB up it is refused (the kernel runs where it is linked, 2 MiB aligned)
cp tests/fuzz/corpus/bzimage/vmlinux-min "$work/img/vml"
printf '[partition v]\ncpus = 1\nmemory = 64M\nimage = vml\nmodules = initrd\n' > "$work/vml.cfg"
expect image_vmlinux 0 "$work/vml.cfg" --images "$work/img" && pass image_vmlinux
python3 - "$work/img/vml" <<'PY'
import struct, sys
b = bytearray(open(sys.argv[1], "rb").read())
for off in (24, 64 + 24):	# e_entry, the PT_LOAD's p_paddr
    struct.pack_into("<Q", b, off, struct.unpack_from("<Q", b, off)[0] + 0x1000)
open(sys.argv[1], "wb").write(b)
PY
expect image_vmlinux_unaligned 1 "$work/vml.cfg" --images "$work/img" &&
	has image_vmlinux_unaligned "$work/vml.cfg:1: image 'vml': not a bootable Linux kernel: " \
		"vmlinux: loads at 0x1001000, not 2 MiB aligned: the kernel runs where it is linked " \
		"only from such an address" &&
	pass image_vmlinux_unaligned
printf '[partition g]\ncpus = 1\nmemory = 2M\nimage = rtbench-mb2\n' > "$work/small.cfg"
if expect image_too_big 1 "$work/small.cfg" --images "$work/img"; then
	if grep -q "^$work/small.cfg:1: image 'rtbench-mb2': ELF: segment 0: .* exceeds the partition's 2 MiB$" \
		"$work/out.txt"; then
		pass image_too_big
	else
		fail image_too_big "$(tr '\n' '|' < "$work/out.txt")"
	fi
fi

# ---- create, then check, on every sample and on this machine ----
check_create() {
	local name=$1 n
	shift
	if ! "$tool" create "$@" > "$work/$name.cfg" 2> "$work/err.txt"; then
		fail "$name" "create failed: $(cat "$work/err.txt")"
		return
	fi
	expect "$name" "${want_status:-0}" "$work/$name.cfg" --machine "$@" || return
	# a CPU that cannot run Tempo: refused for that alone, the config itself clean
	if [ "${want_status:-0}" != 0 ]; then
		if ! grep -q '^machine: refused: ' "$work/out.txt" ||
			grep -q "^$work/$name.cfg:[0-9]" "$work/out.txt"; then
			fail "$name" "expected the CPU's refusal alone: $(tr '\n' '|' < "$work/out.txt")"
			return
		fi
	fi
	if grep -q '^warning' "$work/out.txt"; then
		fail "$name" "check warns: $(grep '^warning' "$work/out.txt" | head -n 2)"
		return
	fi
	# the address create announces is the one check plans
	if [ "$(sed -n 's/.*carves it from free RAM: \(0x[0-9a-f]*\) here$/\1/p' "$work/$name.cfg")" != \
		"$(sed -n 's/^plan: partition rt[0-9]*: RAM \(0x[0-9a-f]*\)-.*/\1/p' "$work/out.txt")" ]; then
		fail "$name" "the addresses in the created config are not check's plan"
		return
	fi
	n=$(grep -c '^\[partition ' "$work/$name.cfg")
	echo "$name: $n partitions" > "$work/$name.count"
	if grep -q '^cpus = 0$\|^cpus = 0,' "$work/$name.cfg"; then
		fail "$name" "CPU 0 given to a partition"
	elif [ "${want_parts:-$n}" != "$n" ]; then
		fail "$name" "$n partitions, expected $want_parts"
	else
		pass "$name"
	fi
}
# the build VM: an AMD EPYC without VMX, refused as a machine for Tempo
want_status=1 want_parts=1 check_create create_debian_vm --sysroot "$machines/debian-vm-2cpu"
want_parts=3 check_create create_bochs_4cpu --sysroot "$machines/bochs-4cpu"
want_parts=8 check_create create_server --sysroot "$machines/server-2s"
if grep -qx 'cpus = 1,33' "$work/create_server.cfg" &&
	! grep -qE '^cpus = (.*,)?32(,|$)' "$work/create_server.cfg"; then
	pass create_server_siblings
else
	fail create_server_siblings "expected cpus = 1,33 and CPU 0's sibling 32 left out:" \
		"$(grep '^cpus' "$work/create_server.cfg" | tr '\n' ' ')"
fi
if [ -r /sys/firmware/acpi/tables/APIC ]; then
	# refused where this CPU lacks what Tempo needs (the build VMs have no VMX)
	want_status=0
	grep -qw vmx /proc/cpuinfo && grep -qw tsc_deadline_timer /proc/cpuinfo &&
		grep -qw nonstop_tsc /proc/cpuinfo && grep -q GenuineIntel /proc/cpuinfo || want_status=1
	want_status=$want_status check_create create_this_machine
else
	skip create_this_machine "/sys/firmware/acpi/tables/APIC is not readable (root only)"
fi

# ---- devices: Bochs' PCI functions as sysfs shows them ----
# pci_fn DIR BDF VENDOR DEVICE CLASS HEADER PIN IRQ [RESOURCE LINE]...: one
# function under DIR/sys/bus/pci/devices (a 64-byte header, its irq, its
# resource file)
pci_fn() {
	local d=$1/sys/bus/pci/devices/0000:$2
	mkdir -p "$d"
	python3 -c 'import struct,sys
v,dv,c,h,p=(int(x,16) for x in sys.argv[1:6])
hdr=bytearray(64); struct.pack_into("<HH",hdr,0,v,dv)
hdr[9]=c&0xff; hdr[10]=(c>>8)&0xff; hdr[11]=c>>16; hdr[14]=h; hdr[0x3d]=p
sys.stdout.buffer.write(bytes(hdr))' "$3" "$4" "$5" "$6" "$7" > "$d/config"
	echo "$8" > "$d/irq"
	shift 8
	: > "$d/resource"
	for line in "$@"; do echo "$line" >> "$d/resource"; done
	for _ in 1 2 3 4 5 6 7; do echo "0x0000000000000000 0x0000000000000000 0x0000000000000000" >> "$d/resource"; done
}
zero="0x0000000000000000 0x0000000000000000 0x0000000000000000"
pcim=$work/bochs-pci
cp -r "$machines/bochs-4cpu" "$pcim"
# Bochs' FADT as far as devassign_reserved reads it: SMI_CMD 0xb2, PM1a
# event/control blocks at 0xb000/0xb004, the PM timer at 0xb008 (the boot
# reads the same from Bochs' own table: test_bochs_dev_bad_assign)
python3 -c 'import struct,sys
t=bytearray(276); t[0:4]=b"FACP"; struct.pack_into("<I",t,4,276); t[8]=6
struct.pack_into("<I",t,48,0xb2); struct.pack_into("<I",t,56,0xb000)
struct.pack_into("<I",t,64,0xb004); struct.pack_into("<I",t,76,0xb008)
t[88]=4; t[89]=2; t[91]=4; t[9]=(-sum(t))&0xff
sys.stdout.buffer.write(bytes(t))' > "$pcim/sys/firmware/acpi/tables/FACP"
pci_fn "$pcim" 00:00.0 8086 1237 060000 00 0 0
pci_fn "$pcim" 00:01.0 8086 7000 060100 80 0 0
pci_fn "$pcim" 00:01.1 8086 7010 010180 00 0 0 "$zero" "$zero" "$zero" "$zero" \
	"0x000000000000c000 0x000000000000c00f 0x0000000000040101"
pci_fn "$pcim" 00:02.0 10ec 8029 020000 00 1 9 \
	"0x000000000000c040 0x000000000000c05f 0x0000000000040101"
devm=(--machine --sysroot "$pcim")
# the boot's own lines for bad-device.cfg (test_bochs_dev_bad_assign), as regexes
sed -n '/^test_bochs_dev_bad_assign()/,/^}/p' tests/emu/devices.sh |
	sed -n 's/.*need "$1" "^ERROR: \(config: [^"]*\)".*/^\1/p' > "$work/boot-lines.txt"
if [ "$(wc -l < "$work/boot-lines.txt")" -lt 5 ]; then
	fail bad_device "the boot's lines not found in tests/emu/devices.sh"
elif expect bad_device 1 tests/emu/configs/bad-device.cfg "${devm[@]}"; then
	why=""
	# the boot's "config: partitions:LINE: " is the tool's "FILE:LINE: "
	while read -r re; do
		re="^$last_file:${re#^config: partitions:}"
		grep -Eq -- "$re" "$work/out.txt" || why+="no line /$re/; "
	done < "$work/boot-lines.txt"
	n=$(grep -c "^$last_file:[0-9]*: " "$work/out.txt")
	[ "$n" = 7 ] || why+="$n errors, the boot has 7; "
	if [ -z "$why" ]; then pass bad_device; else fail bad_device "$why"; fi
fi
# without a machine: only what every PC has is checked, each at its line
expect bad_device_any 1 tests/emu/configs/bad-device.cfg &&
	has bad_device_any "config: partitions:15: ports: 0x3f8-0x3f8 overlaps Tempo's console " \
		"UART (0x3f8-0x3ff): Tempo keeps it" &&
	has bad_device_any "config: partitions:16: mmio: 0xfee00000+0x1000 overlaps its xAPIC page " \
		"(0xfee00000-0xfee00fff), which Tempo emulates there" &&
	! grep -q "GSI 30\|bridge" "$work/out.txt" && pass bad_device_any
# the FADT's PM1a control block (SLP_EN powers the machine off) and PM timer
printf '[partition d]\ncpus = 1\nmemory = 16M\nimage = rtbench-mb2\nports = 0xb005, 0xb00b\n' \
	> "$work/pm1.cfg"
expect device_pm1 1 "$work/pm1.cfg" "${devm[@]}" &&
	has device_pm1 "config: partitions:5: ports: 0xb005-0xb005 overlaps the FADT's PM1a " \
		"control block (SLP_EN powers the machine off) (0xb004-0xb005): Tempo keeps it" &&
	has device_pm1 "config: partitions:5: ports: 0xb00b-0xb00b overlaps the ACPI PM timer " \
		"(0xb008-0xb00b): Tempo keeps it" && pass device_pm1
printf '[partition d]\ncpus = 1\nmemory = 16M\nimage = rtbench-mb2\nports = 0xc040-0xc047\n' \
	> "$work/bar.cfg"
expect device_bar 1 "$work/bar.cfg" "${devm[@]}" &&
	has device_bar "config: partitions:5: ports: 0xc040-0xc047 overlaps BAR0 of 00:02.0: give " \
		"the function with pci = instead" && pass device_bar
printf '[partition d]\ncpus = 1\nmemory = 16M\nimage = rtbench-mb2\nmmio = 0xfed00000+4K\n' \
	> "$work/hpet.cfg"
printf '\0%.0s' $(seq 56) > "$pcim/sys/firmware/acpi/tables/HPET"
printf '\x00\x00\xd0\xfe' | dd of="$pcim/sys/firmware/acpi/tables/HPET" bs=1 seek=44 \
	conv=notrunc 2>/dev/null
expect device_hpet 1 "$work/hpet.cfg" "${devm[@]}" &&
	has device_hpet "config: partitions:5: mmio: 0xfed00000+0x1000 overlaps the HPET (Tempo " \
		"calibrates with it) (0xfed00000-0xfed00fff): Tempo keeps it" &&
	expect device_hpet 0 "$work/hpet.cfg" "${devm[@]}" --hpet-free && pass device_hpet
if "$tool" create --sysroot "$pcim" --device 00:02.0 > "$work/dev.cfg" 2> "$work/err.txt" &&
	grep -qx 'pci = 00:02.0' "$work/dev.cfg" && grep -q '^irqs = 9\b' "$work/dev.cfg" &&
	[ "$(grep -c '^pci = ' "$work/dev.cfg")" = 1 ]; then
	expect create_device 0 "$work/dev.cfg" "${devm[@]}" && pass create_device
else
	fail create_device "$(cat "$work/err.txt") $(grep -E '^(pci|irqs) =' "$work/dev.cfg" | tr '\n' ' ')"
fi
"$tool" create --sysroot "$pcim" --device 00:01.0 > /dev/null 2> "$work/err.txt"
if [ $? = 2 ] && grep -q "is a bridge" "$work/err.txt"; then
	pass create_device_bridge
else
	fail create_device_bridge "$(cat "$work/err.txt")"
fi

# ---- malformed input: the parsers' own checks, no crash ----
bad=$work/bad
cp -r "$machines/bochs-4cpu" "$bad"
madt=$bad/sys/firmware/acpi/tables/APIC
printf '\x00' | dd of="$madt" bs=1 seek=9 conv=notrunc 2>/dev/null	# the checksum byte
if expect bad_madt_checksum 2 guests/demo.cfg --machine --sysroot "$bad"; then
	if grep -q "^warning: $madt: ACPI: XSDT entry 0: table MADT (APIC) at 0x2000: checksum 0x" \
		"$work/out.txt" && grep -q "not a usable MADT" "$work/out.txt"; then
		pass bad_madt_checksum
	else
		fail bad_madt_checksum "$(tr '\n' '|' < "$work/out.txt")"
	fi
fi
head -c 50 "$machines/bochs-4cpu/sys/firmware/acpi/tables/APIC" > "$madt"
if expect bad_madt_short 2 guests/demo.cfg --machine --sysroot "$bad"; then
	if grep -q "not a usable MADT" "$work/out.txt"; then
		pass bad_madt_short
	else
		fail bad_madt_short "$(tr '\n' '|' < "$work/out.txt")"
	fi
fi
cp "$machines/bochs-4cpu/sys/firmware/acpi/tables/APIC" "$madt"
echo '3-1' > "$bad/sys/devices/system/cpu/cpu1/topology/thread_siblings_list"
echo 'x' > "$bad/sys/firmware/memmap/3/end"
expect bad_sysfs 1 guests/demo.cfg --machine --sysroot "$bad" &&
	has bad_sysfs "warning: $bad/sys/devices/system/cpu/cpu1/topology/thread_siblings_list: " \
		"not a CPU list, ignored" &&
	has bad_sysfs "warning: $bad/sys/firmware/memmap/3/end: not a hexadecimal address, " \
		"entry ignored" &&
	has bad_sysfs "config: partitions:6: partition 'rt0': memory does not fit " \
		"(32 MiB asked for so far, 0 MiB usable)" && pass bad_sysfs
head -c 70000 /dev/zero > "$work/big.cfg"
expect config_too_big 1 "$work/big.cfg" &&
	has config_too_big "config: partitions:0: config is 70000 bytes, more than the 65536 allowed" &&
	pass config_too_big

# ---- every error in one run, each as FILE:LINE: message ----
cat > "$work/several.cfg" <<'CFG'
[hypervisor]
tick_us = soon
all_ended = explode
[partition a]
cpus = 1
memory = 3M
image = hello-mb2
timer = fast
[partition b]
cpus = 9999
memory = 32M
CFG
f=$work/several.cfg
if expect several_errors 1 "$f"; then
	want="$f:2: tick_us: expected a number of microseconds, found 'soon'
$f:3: all_ended: expected reboot, halt or monitor, found 'explode'
$f:6: memory: 3M is not a multiple of 2 MiB
$f:8: timer: expected direct, inject, emulated or pv-lazy, found 'fast'
$f:10: cpus: CPU 9999 is out of range (0-4095)
$f:9: partition 'b' is missing 'image'"
	got=$(grep "^$f:[0-9]" "$work/out.txt")
	if [ "$got" = "$want" ] && grep -qx "$f: refused" "$work/out.txt"; then
		pass several_errors
	else
		fail several_errors "got: $(echo "$got" | tr '\n' '|') want: $(echo "$want" | tr '\n' '|')"
	fi
fi
# the checks against the machine, every partition's
printf '[partition a]\ncpus = 7\nmemory = 32M\nimage = nothere\n\n[partition b]\ncpus = 1\nmemory = 32M\nimage = hello-mb2\nmodules = gone\n' \
	> "$work/several-machine.cfg"
f=$work/several-machine.cfg
expect several_machine_errors 1 "$f" "${bochs[@]}" --images "$BUILD/guests" &&
	has several_machine_errors "$f:1: partition 'a': CPU 7 does not exist (the MADT lists 4)" &&
	has several_machine_errors "$f:1: image 'nothere' not found among the boot modules " \
		"(have: partitions, hello-mb2)" &&
	has several_machine_errors "$f:6: module 'gone' not found among the boot modules " \
		"(have: partitions, hello-mb2)" &&
	pass several_machine_errors

# ---- --help, --version, usage ----
out=$("$tool" --help 2> "$work/err.txt")
rc=$?
if [ $rc -eq 0 ] && [ ! -s "$work/err.txt" ] && echo "$out" | grep -q '^usage: tempo-config check' &&
	echo "$out" | grep -q -- '--no-images' && [ "$("$tool" check --help | head -n 1)" = "$(echo "$out" | head -n 1)" ]; then
	pass help
else
	fail help "status $rc, stderr '$(cat "$work/err.txt")', stdout '$(echo "$out" | head -n 2)'"
fi
# the hypervisor's version string, as the Makefile makes it
want_version=$(make -s -f - version <<'MK' 2>/dev/null
include Makefile
version:
	@echo $(VERSION)
MK
)
out=$("$tool" --version 2>&1)
if [ $? -eq 0 ] && [ -n "$want_version" ] && [ "$out" = "tempo-config (Tempo) $want_version" ]; then
	pass version
else
	fail version "'$out', expected 'tempo-config (Tempo) $want_version'"
fi
"$tool" check > "$work/out.txt" 2> "$work/err.txt"
rc=$?
"$tool" frobnicate > "$work/out2.txt" 2>> "$work/err.txt"
rc2=$?
if [ $rc -eq 2 ] && [ $rc2 -eq 2 ] && [ ! -s "$work/out.txt" ] && [ ! -s "$work/out2.txt" ] &&
	grep -q '^usage:' "$work/err.txt"; then
	pass usage_errors
else
	fail usage_errors "status $rc and $rc2: $(tr '\n' '|' < "$work/err.txt")"
fi

# ---- the images beside the config, as 20_tempo finds them ----
mkdir -p "$work/beside"
cp guests/demo.cfg "$work/beside/partitions.cfg"
cp "$BUILD"/guests/hello-mb2.elf "$work/beside/"
"$tool" check "$work/beside/partitions.cfg" > "$work/out.txt" 2>&1
rc=$?
if [ $rc -eq 1 ] && grep -qx "$work/beside/partitions.cfg:13: image 'hello-mb1' not found among the boot modules (have: partitions, hello-mb2)" "$work/out.txt"; then
	cp "$BUILD"/guests/hello-mb1.elf "$work/beside/"
	if "$tool" check "$work/beside/partitions.cfg" > "$work/out.txt" 2>&1; then
		pass images_beside
	else
		fail images_beside "all there, refused: $(tr '\n' '|' < "$work/out.txt")"
	fi
else
	fail images_beside "status $rc: $(tr '\n' '|' < "$work/out.txt")"
fi

# ---- --machine refuses a CPU that cannot run Tempo, each lack with its reason ----
# cpu_sample NAME SED: bochs-4cpu with its /proc/cpuinfo edited by SED
cpu_sample() {
	rm -rf "$work/$1"
	cp -r "$machines/bochs-4cpu" "$work/$1"
	sed -i "$2" "$work/$1/proc/cpuinfo"
}
# cpu_refused NAME WANT...: demo.cfg on sample NAME is refused with each WANT line
cpu_refused() {
	local name=$1 w why=""
	shift
	expect "cpu_$name" 1 guests/demo.cfg --machine --sysroot "$work/$name" || return
	for w in "$@"; do
		grep -qF -- "$w" "$work/out.txt" || why+="no '$w'; "
	done
	grep -qx "guests/demo.cfg: refused (this CPU cannot run Tempo)" "$work/out.txt" ||
		why+="no refusal verdict; "
	if [ -z "$why" ]; then pass "cpu_$name"; else fail "cpu_$name" "$why $(grep refused "$work/out.txt" | tr '\n' '|')"; fi
}
cpu_sample no_vmx 's/^\(flags.*\) vmx /\1 /'
cpu_refused no_vmx "machine: refused: no VMX: 'vmx' is not among /proc/cpuinfo's flags"
cpu_sample amd 's/GenuineIntel/AuthenticAMD/'
cpu_refused amd "machine: refused: the CPU is AuthenticAMD, not Intel: Tempo needs Intel VT-x (VMX)"
cpu_sample no_deadline 's/ tsc_deadline_timer//; s/ nonstop_tsc//; s/ x2apic//'
cpu_refused no_deadline "machine: refused: no TSC-deadline LAPIC timer" \
	"machine: refused: no invariant TSC" "machine: refused: no x2APIC"
cpu_sample no_ptimer 's/ preemption_timer//'
cpu_refused no_ptimer "machine: refused: no VMX-preemption timer: 'preemption_timer' is not among /proc/cpuinfo's vmx flags"
# the MSRs where readable win over the vmx flags line: a sparse file at the
# MSR offsets (IA32_VMX_BASIC with its TRUE bit, the TRUE pin-based controls)
msr_file() {
	mkdir -p "$work/$1/dev/cpu/0"
	python3 - "$work/$1/dev/cpu/0/msr" "$2" <<'PY'
import struct, sys
with open(sys.argv[1], "wb") as f:
    f.seek(0x480); f.write(struct.pack("<Q", 1 << 55))
    f.seek(0x48d); f.write(struct.pack("<Q", int(sys.argv[2], 0)))
PY
}
cpu_sample msr_no_ptimer 's/^vmx flags.*//'
msr_file msr_no_ptimer 0x0000003f00000016
cpu_refused msr_no_ptimer "machine: refused: no VMX-preemption timer: the pin-based VM-execution controls (MSR 0x48d"
cpu_sample msr_ptimer 's/ preemption_timer//'
msr_file msr_ptimer 0x0000007f00000016
if expect cpu_msr_ptimer 0 guests/demo.cfg --machine --sysroot "$work/msr_ptimer"; then
	if grep -q 'refused\|not checked' "$work/out.txt"; then
		fail cpu_msr_ptimer "$(grep 'refused\|not checked' "$work/out.txt")"
	else
		pass cpu_msr_ptimer
	fi
fi
cpu_sample no_vmx_flags 's/^vmx flags.*//'
expect cpu_unknown_ptimer 0 guests/demo.cfg --machine --sysroot "$work/no_vmx_flags" &&
	has cpu_unknown_ptimer "note: the VMX-preemption timer is not checked: /dev/cpu/0/msr is not " \
		"readable (modprobe msr; run as root) and /proc/cpuinfo has no 'vmx flags' line" &&
	pass cpu_unknown_ptimer

# ---- create --linux: a Linux partition (kernel, initrd, command line) beside the real-time ones ----
if "$tool" create --linux --linux-memory 128M --sysroot "$machines/bochs-4cpu" > "$work/linux.cfg" 2> "$work/err.txt"; then
	why=""
	[ "$(grep -c '^\[partition rt' "$work/linux.cfg")" = 2 ] || why+="not 2 real-time partitions; "
	sed -n '/^\[partition linux\]/,/^$/p' "$work/linux.cfg" > "$work/linux-part.txt"
	for l in "cpus = 3" "image = linux" "modules = initrd" "timer = direct"; do
		grep -q "^$l" "$work/linux-part.txt" || why+="no '$l' in the Linux partition; "
	done
	grep -q '^cmdline = "console=ttyS0' "$work/linux-part.txt" || why+="no console=ttyS0 cmdline; "
	grep -q "^memory = 128M" "$work/linux-part.txt" || why+="not 128M; "
	"$tool" check --machine --no-images --sysroot "$machines/bochs-4cpu" "$work/linux.cfg" \
		> "$work/out.txt" 2>&1 || why+="check refuses it: $(tr '\n' '|' < "$work/out.txt"); "
	if [ -z "$why" ]; then pass create_linux; else fail create_linux "$why"; fi
else
	fail create_linux "$(cat "$work/err.txt")"
fi
if "$tool" create --image linux --memory 128M --sysroot "$machines/bochs-4cpu" > "$work/li.cfg" 2>&1 &&
	[ "$(grep -c '^modules = initrd' "$work/li.cfg")" = 3 ] &&
	[ "$(grep -c '^cmdline = "console=ttyS0' "$work/li.cfg")" = 3 ]; then
	pass create_image_linux_initrd
else
	fail create_image_linux_initrd "$(tr '\n' '|' < "$work/li.cfg")"
fi

# ---- a machine it cannot read ----
"$tool" check --machine --sysroot "$work/nowhere" guests/demo.cfg > "$work/out.txt" 2>&1
rc=$?
if [ $rc -eq 2 ] &&
	grep -q "cannot read the MADT $work/nowhere/sys/firmware/acpi/tables/APIC" "$work/out.txt"; then
	pass no_machine
else
	fail no_machine "status $rc: $(cat "$work/out.txt")"
fi

exit $failed
