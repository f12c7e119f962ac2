#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Write a synthetic machine sample for `tempo-config --sysroot`: the files
Linux would show (the ACPI MADT, /sys/firmware/memmap, the CPU topology and
/proc/cpuinfo's APIC ids) for a machine described on the command line.

  tests/tools/mkmachine.py DIR bochs-4cpu | server-2s | server-4s
"""
import os
import struct
import sys


def checksum_fix(table):
    table[9] = (-sum(table)) & 0xFF
    return bytes(table)


def madt(cpus):
    """cpus: (apic_id, uid, enabled); ids above 254 get x2APIC (type 9) entries."""
    body = b""
    for apic, uid, enabled in cpus:
        flags = 1 if enabled else 0
        if apic < 255:
            body += struct.pack("<BBBBI", 0, 8, uid & 0xFF, apic, flags)
        else:
            body += struct.pack("<BBHIII", 9, 16, 0, apic, flags, uid)
    # one I/O APIC, as firmware lists it
    body += struct.pack("<BBBBII", 1, 12, 0, 0, 0xFEC00000, 0)
    length = 44 + len(body)
    hdr = struct.pack("<4sIBB6s8sI4sI", b"APIC", length, 5, 0, b"TEMPO ", b"SYNTHMAC",
                      1, b"TMPO", 1)
    fixed = struct.pack("<II", 0xFEE00000, 1)
    return checksum_fix(bytearray(hdr + fixed + body))


def write(path, data):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "wb" if isinstance(data, bytes) else "w") as f:
        f.write(data)


# What Linux shows of an Intel CPU that can run Tempo (the flags Tempo's
# tempo-config check --machine looks at, among others).
INTEL_FLAGS = ("fpu vme de pse tsc msr pae mce cx8 apic sep pge cmov pat clflush mmx fxsr sse "
               "sse2 ht syscall nx lm constant_tsc nonstop_tsc pni vmx ssse3 cx16 sse4_1 "
               "sse4_2 x2apic popcnt tsc_deadline_timer xsave")
INTEL_VMX_FLAGS = ("vnmi preemption_timer invvpid ept_x_only ept_1gb flexpriority tsc_offset "
                   "vtpr mtf vapic ept vpid unrestricted_guest")


def sample(root, cpus, ram, linux_siblings):
    """ram: (start, end_inclusive, type); linux_siblings: Linux CPU -> cpulist."""
    write(f"{root}/sys/firmware/acpi/tables/APIC", madt(cpus))
    for i, (start, end, kind) in enumerate(ram):
        d = f"{root}/sys/firmware/memmap/{i}"
        write(f"{d}/start", f"0x{start:x}\n")
        write(f"{d}/end", f"0x{end:x}\n")
        write(f"{d}/type", kind + "\n")
    enabled = [c for c in cpus if c[2]]
    info = ""
    for n, (apic, _, _) in enumerate(enabled):
        info += (f"processor\t: {n}\nvendor_id\t: GenuineIntel\napicid\t\t: {apic}\n"
                 f"flags\t\t: {INTEL_FLAGS}\nvmx flags\t: {INTEL_VMX_FLAGS}\n\n")
        write(f"{root}/sys/devices/system/cpu/cpu{n}/topology/thread_siblings_list",
              linux_siblings(n) + "\n")
    write(f"{root}/proc/cpuinfo", info)


def bochs_4cpu(root):
    """Bochs with 4 CPUs and 512 MiB (tests/emu/run.sh --cpus 4 --mem 512, as the
    Linux tests boot; the others use less), no SMT. Its BIOS keeps the top
    64 KiB of RAM for the ACPI tables."""
    cpus = [(i, i, True) for i in range(4)]
    ram = [(0, 0x9EFFF, "System RAM"), (0x9F000, 0x9FFFF, "Reserved"),
           (0xE8000, 0xFFFFF, "Reserved"), (0x100000, 0x1FFEFFFF, "System RAM"),
           (0x1FFF0000, 0x1FFFFFFF, "ACPI Tables"), (0xFFFC0000, 0xFFFFFFFF, "Reserved")]
    sample(root, cpus, ram, str)


def server_2s(root):
    """Two sockets of 16 cores with 2 threads each, x2APIC ids 256 and up with
    gaps (socket s, core c, thread t: 256 + 256 s + 4 c + t), listed thread 0
    of every core first, as many servers do, plus 4 disabled hot-plug slots.
    RAM: 2 GiB below the 32-bit PCI hole, 382 GiB above 4 GiB."""
    cpus = []
    for t in range(2):
        for s in range(2):
            for c in range(16):
                cpus.append((256 + 256 * s + 4 * c + t, len(cpus), True))
    cpus += [(0x400 + i, 200 + i, False) for i in range(4)]
    ram = [(0, 0x9BFFF, "System RAM"), (0x9C000, 0xFFFFF, "Reserved"),
           (0x100000, 0x7F0FFFFF, "System RAM"), (0x7F100000, 0x7FFFFFFF, "ACPI Tables"),
           (0x80000000, 0xFFFFFFFF, "Reserved"), (0x100000000, 0x5FFFFFFFFF, "System RAM")]
    sample(root, cpus, ram, lambda n: f"{n % 32},{n % 32 + 32}")


def server_4s(root):
    """Four sockets of 56 cores with 2 threads each: 448 CPUs, past the old
    64-CPU limit, x2APIC ids sparse up to 3,513 (socket s, core c, thread
    t: 1024 s + 8 c + t), thread 0 of every core first. RAM: 2 GiB below
    the PCI hole, 1 TiB above 4 GiB. Written by the test, not kept."""
    cpus = []
    for t in range(2):
        for s in range(4):
            for c in range(56):
                cpus.append((1024 * s + 8 * c + t, len(cpus), True))
    ram = [(0, 0x9BFFF, "System RAM"), (0x9C000, 0xFFFFF, "Reserved"),
           (0x100000, 0x7F0FFFFF, "System RAM"), (0x7F100000, 0x7FFFFFFF, "ACPI Tables"),
           (0x80000000, 0xFFFFFFFF, "Reserved"), (0x100000000, 0x100FFFFFFFF, "System RAM")]
    sample(root, cpus, ram, lambda n: f"{n % 224},{n % 224 + 224}")


MACHINES = {"bochs-4cpu": bochs_4cpu, "server-2s": server_2s, "server-4s": server_4s}

if __name__ == "__main__":
    if len(sys.argv) != 3 or sys.argv[2] not in MACHINES:
        sys.exit(__doc__)
    MACHINES[sys.argv[2]](sys.argv[1])
