/* SPDX-License-Identifier: MIT */
/*
 * The instruction behind a trapped MMIO access. An EPT violation gives the
 * guest-physical address and whether it was a read or a write, not the data
 * or the register: root mode fetches the bytes at RIP (hv/core/guest_walk.h)
 * and this decodes them. Pure, so the host unit tests
 * (tests/unit/test_mmio_decode.c) and the fuzzer (tests/fuzz/fuzz_mmio.c)
 * run it as the hypervisor does.
 *
 * Decoded: the moves compilers emit for readb/readw/readl/readq, writeX and
 * ioreadX, and what user space does on an mmap'd BAR (SDM Vol. 2B MOV,
 * MOVZX, MOVSX/MOVSXD):
 *   88 89 8A 8B      MOV r/m, r and r, r/m
 *   C6 /0 ib, C7 /0  MOV r/m, imm (imm16/imm32; imm32 sign-extended with REX.W)
 *   0F B6, 0F B7     MOVZX r, r/m8 and r/m16
 *   0F BE, 0F BF     MOVSX r, r/m8 and r/m16
 *   63 (64-bit mode) MOVSXD r, r/m32
 *   A0 A1 A2 A3      MOV AL/rAX to and from moffs (the width from the address size)
 * with the prefixes 66 (operand size), 67 (address size: the moffs width
 * and the ModRM form, 16-bit addressing included), the segment overrides
 * 26 2E 36 3E 64 65 (no effect here: the exit gave the address), and REX
 * (64-bit mode, only as the last prefix: a REX followed by another prefix
 * is ignored, SDM Vol. 2A 2.2.1).
 *
 * Refused, never guessed: LOCK and REP/REPNE (F0 F2 F3), every other opcode
 * (VEX, EVEX and XOP among them), a register operand (ModRM mod = 11),
 * C6/C7 with ModRM.reg other than 0, and an instruction longer than
 * X86_INSN_MAX_BYTES or than the bytes given.
 *
 * The decoder gives the access's size, the register or immediate, and how
 * the memory operand's address is formed (base, index, scale, displacement,
 * address size, segment); mmio_effective_address adds it up from the
 * guest's registers. The exit's guest-linear address is checked against it
 * (an access that crosses a page: hv/guest/mmio.c).
 */
#ifndef TEMPO_HV_MMIO_DECODE_H
#define TEMPO_HV_MMIO_DECODE_H

#include <stdbool.h>
#include <stdint.h>

/* No x86 instruction is longer: a longer one raises #GP (SDM Vol. 2A 2.1) */
#define X86_INSN_MAX_BYTES	15u

/* The default operand and address size: CS.L with EFER.LMA, else CS.D */
enum mmio_cpu_mode {
	MMIO_CPU_16,		/* real mode, virtual-8086, 16-bit protected */
	MMIO_CPU_32,		/* 32-bit protected or compatibility mode */
	MMIO_CPU_64,		/* 64-bit mode */
};

enum mmio_decode_result {
	MMIO_DECODE_OK,
	MMIO_DECODE_TRUNCATED,	/* the bytes given end inside the instruction */
	MMIO_DECODE_TOO_LONG,	/* more than X86_INSN_MAX_BYTES */
	MMIO_DECODE_PREFIX,	/* LOCK, REPNE or REP */
	MMIO_DECODE_OPCODE,	/* not one of the instructions above */
	MMIO_DECODE_REGISTER,	/* ModRM mod = 11: the operand is a register, not memory */
};

/* How a load's value goes into its register */
enum mmio_extend {
	MMIO_EXTEND_NONE,	/* MOV: the access is the register's size */
	MMIO_EXTEND_ZERO,	/* MOVZX */
	MMIO_EXTEND_SIGN,	/* MOVSX, MOVSXD */
};

struct mmio_access {
	uint8_t insn_bytes;	/* the instruction's length: RIP advances by it */
	uint8_t size_bytes;	/* the bytes read or written: 1, 2, 4 or 8 */
	bool store;		/* a write to the device; else a read from it */
	bool src_imm;		/* a store of imm, not of a register */
	/*
	 * The GPR, by its number in the SDM's order (0 RAX, 1 RCX, 2 RDX, 3 RBX,
	 * 4 RSP, 5 RBP, 6 RSI, 7 RDI, 8-15 R8-R15): a store's source or a
	 * load's destination.
	 */
	uint8_t reg;
	/* AH, CH, DH or BH: the byte is bits 15:8 of reg (0-3) (no REX, ModRM.reg 4-7) */
	bool reg_high8;
	/* A load: the destination's operand size, 1, 2, 4 or 8 (>= size_bytes) */
	uint8_t reg_bytes;
	enum mmio_extend extend;
	/* A store of an immediate: its value, sign-extended or truncated to size_bytes */
	uint64_t imm;
	/*
	 * The effective address: GPR numbers as for reg (MMIO_REG_NONE: none;
	 * MMIO_REG_RIP as base: RIP-relative), the index's scale (1, 2, 4, 8),
	 * the displacement sign-extended (a moffs: the offset, zero-extended),
	 * the address size in bytes (2, 4, 8) and the segment (0 ES, 1 CS,
	 * 2 SS, 3 DS, 4 FS, 5 GS: an override, else the default).
	 */
	uint8_t base;
	uint8_t index;
	uint8_t scale;
	uint8_t addr_bytes;
	uint8_t seg;
	int64_t disp;
};

#define MMIO_REG_NONE		0xff
#define MMIO_REG_RIP		0xfe
#define MMIO_SEG_DEFAULT	0xff	/* while decoding only: no override seen */

enum mmio_cpu_mode mmio_cpu_mode(bool efer_lma, bool cs_l, bool cs_d);

/*
 * Decode the instruction at the start of @insn, of which @avail bytes are
 * valid (more than X86_INSN_MAX_BYTES are not looked at), in @mode. On
 * MMIO_DECODE_OK *@a describes it; otherwise *@a is zeroed.
 */
enum mmio_decode_result mmio_decode(const uint8_t *insn, uint32_t avail, enum mmio_cpu_mode mode,
				    struct mmio_access *a);

/*
 * The register after a load of @data (the device's bytes, in its low
 * size_bytes) into one that held @old_reg: bits 15:8 for a high-8 register;
 * the low 8 or 16 bits merged with the rest kept; a 32-bit destination
 * zero-extended to 64 bits (SDM Vol. 1 3.4.1.1; outside 64-bit mode the
 * upper half is undefined, and zero is what the hypervisor keeps); MOVZX
 * and MOVSX extended to reg_bytes first.
 */
uint64_t mmio_load_apply(const struct mmio_access *a, uint64_t old_reg, uint64_t data);

/*
 * The value a store writes (in its low size_bytes, the rest zero) when its
 * source GPR holds @reg_value (bits 15:8 of it for a high-8 register).
 */
uint64_t mmio_store_value(const struct mmio_access *a, uint64_t reg_value);

/*
 * The offset of @a's memory operand in its segment: base + index * scale +
 * displacement, wrapped to the address size (SDM Vol. 1 3.7.5). @gpr holds
 * the guest's registers in the SDM's order; @next_rip is the RIP after the
 * instruction (RIP-relative addressing counts from there).
 */
uint64_t mmio_effective_address(const struct mmio_access *a, const uint64_t gpr[16],
				uint64_t next_rip);

/*
 * The device's share of an access that crosses a page is 1 to 7 bytes; the
 * CPU puts it on the bus as naturally aligned pieces. The next piece's
 * width at @addr with @left bytes to go: the largest of 8, 4, 2, 1 that
 * fits and that @addr is aligned to (0 when @left is 0).
 */
uint32_t mmio_chunk_bytes(uint64_t addr, uint32_t left);

/* A name for reports, e.g. "lock-rep-prefix" */
const char *mmio_decode_result_name(enum mmio_decode_result r);

#endif
