#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Every x2APIC ICR write in an ELF has MFENCE; LFENCE in front of it.

    tests/tools/icr_fences.py ELF

A WRMSR to an x2APIC register is not serializing (SDM Vol. 3A, "MSR Access
in x2APIC Mode"): without the pair, an IPI may reach its target before the
stores it announces. Bochs executes in order, so no emulator run can show
the race; this reads the compiled code instead. For each WRMSR whose ECX
was last set to 0x830 (X2APIC_ICR) within its function, it looks back for
an LFENCE right after an MFENCE with no store, call or other WRMSR between
the LFENCE and the WRMSR; a WRMSR whose MSR number it cannot follow to a
constant fails, outside the functions NOT_ICR names. (The SELF IPI register, 0x83F, is not the
ICR: its interrupt is this core's own.) Prints one line per write and a summary, and
exits 1 if a write lacks its fences or fewer than MIN_WRITES are found (a
check that finds nothing proves nothing).
"""
import re
import subprocess
import sys

MIN_WRITES = 5
LOOK_BACK = 16	# instructions: x2apic_send's fences and the ICR value's arithmetic

FUNC = re.compile(r"^[0-9a-f]+ <(.+)>:$")
INSN = re.compile(r"^\s*([0-9a-f]+):\s+(.*)$")
# an instruction that may write memory: a memory destination (base, index
# or RIP-relative), a one-operand write, the string and stack operations
STORE = re.compile(r",\s*-?(0x[0-9a-f]+)?\(|^(push|call|rep|stos|movs|xchg|lock|cmpxchg|wrmsr)"
                   r"|^(inc|dec|not|neg|set[a-z]+)[bwlq]?\s+.*\(")
# ECX's last writer; a copy from another register is followed to that one
SETS = r"^\S+\s+.*,%%%s$|^(xor|sub)[lq]?\s+%%%s,%%%s$"
REG32 = {"rax": "eax", "rbx": "ebx", "rcx": "ecx", "rdx": "edx", "rsi": "esi", "rdi": "edi",
         "rbp": "ebp"}
REG32.update({"r%d" % n: "r%dd" % n for n in range(8, 16)})
# functions whose WRMSR takes its MSR number from memory or an argument: not
# an ICR write (wrmsr_safe's callers pass constants that are not the ICR; the
# saved-MSR table holds no APIC register), named so that a new one is seen
NOT_ICR = ("wrmsr_safe", "vcpu_saved_restore")


def functions(elf):
    text = subprocess.run(["objdump", "-d", "--no-show-raw-insn", elf], capture_output=True,
                          text=True, check=True).stdout
    name, insns = None, []
    for line in text.splitlines():
        m = FUNC.match(line)
        if m:
            if name:
                yield name, insns
            name, insns = m.group(1), []
            continue
        m = INSN.match(line)
        if m and name:
            insns.append((m.group(1), m.group(2).split("#")[0].strip()))
    if name:
        yield name, insns


def ecx_value(insns, i):
    """ECX's value at insns[i] as 0x..., or None where it is not a constant."""
    wide = {r32: r for r, r32 in REG32.items()}
    reg = "ecx"
    for k in range(i - 1, -1, -1):
        names = "(%s|%s)" % (reg, wide[reg])
        op = insns[k][1]
        if not re.search(SETS % (names, names, names), op):
            continue
        m = re.match(r"^mov[lq]?\s+\$(0x[0-9a-f]+),%" + names + "$", op)
        if m:
            return m.group(1)
        m = re.match(r"^mov[lq]?\s+%(\w+),%" + names + "$", op)
        if not m or (m.group(1) not in REG32 and m.group(1) not in wide):
            return None
        reg = REG32.get(m.group(1), m.group(1))	# the copy's source, 32-bit name
    return None


def check(name, insns, i):
    """None if the ICR write at i is fenced, else why not."""
    lo = max(0, i - LOOK_BACK)
    for k in range(i - 1, lo - 1, -1):
        op = insns[k][1]
        if op == "lfence":
            if k > 0 and insns[k - 1][1] == "mfence":
                return None
            return "an LFENCE with no MFENCE right before it"
        if STORE.search(op):
            return "'%s' between the fence and the WRMSR, or no fence" % op
    return "no MFENCE; LFENCE within %d instructions" % LOOK_BACK


def main():
    if len(sys.argv) != 2:
        print("usage: icr_fences.py ELF", file=sys.stderr)
        return 2
    writes = bad = 0
    for name, insns in functions(sys.argv[1]):
        for i, (addr, op) in enumerate(insns):
            if op != "wrmsr":
                continue
            # back through the function in address order: the compiler may
            # set ECX once, before a loop of sends
            ecx = ecx_value(insns, i)
            if ecx is None:
                if name.split(".")[0] in NOT_ICR:
                    continue
                print("ICR_WRITE func=%s addr=0x%s fenced=0 why=\"a WRMSR whose MSR number "
                      "is not a constant here\"" % (name, addr))
                bad += 1
                continue
            if int(ecx, 16) != 0x830:
                continue
            writes += 1
            why = check(name, insns, i)
            print("ICR_WRITE func=%s addr=0x%s fenced=%d%s" %
                  (name, addr, why is None, "" if why is None else " why=\"%s\"" % why))
            bad += why is not None
    print("ICR_FENCES writes=%d unfenced=%d" % (writes, bad))
    if writes < MIN_WRITES:
        print("only %d ICR writes found (at least %d expected): the check reads the wrong "
              "code" % (writes, MIN_WRITES))
        return 1
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
