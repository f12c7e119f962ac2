// SPDX-License-Identifier: MIT
#include "hv/core/mmio_decode.h"
#include "hv/lib/lib.h"

/* REX bits (SDM Vol. 2A 2.2.1.2) */
#define REX_W		0x8
#define REX_R		0x4
#define REX_X		0x2
#define REX_B		0x1

/* Segment registers in the SDM's order (the VMCS keeps their bases the same way) */
#define SEG_ES		0
#define SEG_CS		1
#define SEG_SS		2
#define SEG_DS		3
#define SEG_FS		4
#define SEG_GS		5

#define GPR_RBX		3
#define GPR_RSP		4
#define GPR_RBP		5
#define GPR_RSI		6
#define GPR_RDI		7

/* The opcodes decoded (SDM Vol. 2B MOV, MOVZX, MOVSX/MOVSXD) */
#define OP_MOV_RM8_R8	0x88
#define OP_MOV_RM_R	0x89
#define OP_MOV_R8_RM8	0x8a
#define OP_MOV_R_RM	0x8b
#define OP_MOV_RM8_IMM	0xc6
#define OP_MOV_RM_IMM	0xc7
#define OP_MOVSXD	0x63
#define OP_MOV_AL_MOFFS	0xa0
#define OP_MOV_AX_MOFFS	0xa1
#define OP_MOV_MOFFS_AL	0xa2
#define OP_MOV_MOFFS_AX	0xa3
#define OP_ESCAPE	0x0f
#define OP2_MOVZX_8	0xb6
#define OP2_MOVZX_16	0xb7
#define OP2_MOVSX_8	0xbe
#define OP2_MOVSX_16	0xbf

#define MODRM_MOD(m)	((m) >> 6)
#define MODRM_REG(m)	(((m) >> 3) & 7)
#define MODRM_RM(m)	((m) & 7)

/* The bytes of the instruction taken so far. */
struct cursor {
	const uint8_t *insn;
	uint32_t avail;		/* at most X86_INSN_MAX_BYTES */
	uint32_t pos;
};

/* Make the next @n bytes part of the instruction. */
static enum mmio_decode_result take(struct cursor *c, uint32_t n)
{
	if (c->pos + n > X86_INSN_MAX_BYTES)
		return MMIO_DECODE_TOO_LONG;
	if (c->pos + n > c->avail)
		return MMIO_DECODE_TRUNCATED;
	c->pos += n;
	return MMIO_DECODE_OK;
}

/* The @n (at most 8) little-endian bytes just taken. */
static uint64_t taken_value(const struct cursor *c, uint32_t n)
{
	uint64_t v = 0;

	for (uint32_t i = 0; i < n; i++)
		v |= (uint64_t)c->insn[c->pos - n + i] << (8 * i);
	return v;
}

static uint64_t low_mask(uint32_t bytes)
{
	return bytes >= 8 ? ~0ull : (1ull << (8 * bytes)) - 1;
}

/* The displacement of @n bytes just taken, sign-extended */
static int64_t taken_disp(const struct cursor *c, uint32_t n)
{
	uint64_t v = taken_value(c, n);

	if (n && n < 8 && (v >> (8 * n - 1)) & 1)
		v |= ~low_mask(n);
	return (int64_t)v;
}

/*
 * The rest of a memory operand after its ModRM byte: the SIB byte and the
 * displacement (SDM Vol. 2A Tables 2-1, 2-2 and 2-3, 2.2.1.6), and the
 * registers they name for the effective address. The default segment is SS
 * for a BP-, EBP- or ESP-based address, DS otherwise (Vol. 1 3.7.4).
 */
static enum mmio_decode_result memory_operand(struct cursor *c, uint8_t modrm, uint8_t rex,
					      enum mmio_cpu_mode mode, struct mmio_access *a)
{
	/* 16-bit addressing: [BX+SI] [BX+DI] [BP+SI] [BP+DI] [SI] [DI] [BP] [BX] */
	static const uint8_t base16[8] = { GPR_RBX, GPR_RBX, GPR_RBP, GPR_RBP,
					   GPR_RSI, GPR_RDI, GPR_RBP, GPR_RBX };
	static const uint8_t index16[8] = { GPR_RSI, GPR_RDI, GPR_RSI, GPR_RDI, MMIO_REG_NONE,
					    MMIO_REG_NONE, MMIO_REG_NONE, MMIO_REG_NONE };
	unsigned int mod = MODRM_MOD(modrm), rm = MODRM_RM(modrm);
	uint32_t disp = 0;
	enum mmio_decode_result r;

	if (mod == 3)
		return MMIO_DECODE_REGISTER;
	a->scale = 1;
	a->index = MMIO_REG_NONE;
	if (a->addr_bytes == 2) {
		/* mod 00 r/m 110 is disp16 alone; no SIB */
		a->base = base16[rm];
		a->index = index16[rm];
		if (mod == 1)
			disp = 1;
		else if (mod == 2 || rm == 6)
			disp = 2;
		if (mod == 0 && rm == 6)
			a->base = MMIO_REG_NONE;
		r = take(c, disp);
		if (r)
			return r;
		a->disp = taken_disp(c, disp);
		if (a->seg == MMIO_SEG_DEFAULT)
			a->seg = a->base == GPR_RBP ? SEG_SS : SEG_DS;
		return MMIO_DECODE_OK;
	}
	a->base = (uint8_t)(rm | ((rex & REX_B) ? 8 : 0));
	if (rm == 4) {
		uint8_t sib;

		r = take(c, 1);
		if (r)
			return r;
		sib = c->insn[c->pos - 1];
		a->scale = (uint8_t)(1u << (sib >> 6));
		a->index = (uint8_t)(((sib >> 3) & 7) | ((rex & REX_X) ? 8 : 0));
		if (a->index == GPR_RSP)
			a->index = MMIO_REG_NONE;	/* index 100 without REX.X: none */
		a->base = (uint8_t)((sib & 7) | ((rex & REX_B) ? 8 : 0));
		/* SIB base 101 with mod 00: no base register, disp32 (REX.B or not) */
		if (mod == 0 && (sib & 7) == 5) {
			disp = 4;
			a->base = MMIO_REG_NONE;
		}
	} else if (mod == 0 && rm == 5) {
		/* mod 00 r/m 101: disp32, RIP-relative in 64-bit mode (2.2.1.6) */
		a->base = mode == MMIO_CPU_64 ? MMIO_REG_RIP : MMIO_REG_NONE;
	}
	if (mod == 1)
		disp = 1;
	else if (mod == 2 || (mod == 0 && rm == 5))
		disp = 4;
	r = take(c, disp);
	if (r)
		return r;
	a->disp = taken_disp(c, disp);
	if (a->seg == MMIO_SEG_DEFAULT)
		a->seg = a->base == GPR_RSP || a->base == GPR_RBP ? SEG_SS : SEG_DS;
	return MMIO_DECODE_OK;
}

static enum mmio_decode_result decode(struct cursor *c, enum mmio_cpu_mode mode,
				      struct mmio_access *a)
{
	bool opsize_prefix = false, addrsize_prefix = false, has_modrm = true;
	uint32_t op_bytes, addr_bytes, imm_bytes = 0;
	enum mmio_decode_result r;
	uint8_t op, rex = 0, modrm;

	/* Legacy prefixes in any order, then at most one REX (SDM Vol. 2A 2.1.1, 2.2.1) */
	for (;;) {
		r = take(c, 1);
		if (r)
			return r;
		op = c->insn[c->pos - 1];
		switch (op) {
		case 0x66:
			opsize_prefix = true;
			rex = 0;	/* a REX before a legacy prefix is ignored */
			continue;
		case 0x67:
			addrsize_prefix = true;
			rex = 0;
			continue;
		case 0x26:
		case 0x2e:
		case 0x36:
		case 0x3e:
			/* ES CS SS DS; the last one counts */
			a->seg = (uint8_t)((op >> 3) & 3);
			rex = 0;
			continue;
		case 0x64:
		case 0x65:
			a->seg = op == 0x64 ? SEG_FS : SEG_GS;
			rex = 0;
			continue;
		case 0xf0:
		case 0xf2:
		case 0xf3:
			return MMIO_DECODE_PREFIX;
		}
		if (mode == MMIO_CPU_64 && (op & 0xf0) == 0x40) {
			rex = op;	/* outside 64-bit mode these are INC and DEC */
			continue;
		}
		break;
	}

	/* Operand and address size (SDM Vol. 1 3.6, Table 3-4; Vol. 2A 2.2.1.2) */
	if (mode == MMIO_CPU_64 && (rex & REX_W))
		op_bytes = 8;
	else if (mode == MMIO_CPU_16)
		op_bytes = opsize_prefix ? 4 : 2;
	else
		op_bytes = opsize_prefix ? 2 : 4;
	if (mode == MMIO_CPU_64)
		addr_bytes = addrsize_prefix ? 4 : 8;
	else if (mode == MMIO_CPU_32)
		addr_bytes = addrsize_prefix ? 2 : 4;
	else
		addr_bytes = addrsize_prefix ? 4 : 2;
	a->addr_bytes = (uint8_t)addr_bytes;

	switch (op) {
	case OP_MOV_RM8_R8:
	case OP_MOV_RM_R:
		a->store = true;
		a->size_bytes = op == OP_MOV_RM8_R8 ? 1 : op_bytes;
		break;
	case OP_MOV_R8_RM8:
	case OP_MOV_R_RM:
		a->size_bytes = op == OP_MOV_R8_RM8 ? 1 : op_bytes;
		a->reg_bytes = a->size_bytes;
		break;
	case OP_MOV_RM8_IMM:
	case OP_MOV_RM_IMM:
		a->store = true;
		a->src_imm = true;
		a->size_bytes = op == OP_MOV_RM8_IMM ? 1 : op_bytes;
		imm_bytes = MIN(a->size_bytes, 4u);	/* imm32 for a 64-bit store */
		break;
	case OP_MOVSXD:
		if (mode != MMIO_CPU_64)
			return MMIO_DECODE_OPCODE;	/* ARPL */
		/* MOVSXD r16, r/m16 and r32, r/m32 are moves; r64, r/m32 sign-extends */
		a->size_bytes = MIN(op_bytes, 4u);
		a->reg_bytes = op_bytes;
		a->extend = op_bytes == 8 ? MMIO_EXTEND_SIGN : MMIO_EXTEND_NONE;
		break;
	case OP_MOV_AL_MOFFS:
	case OP_MOV_AX_MOFFS:
	case OP_MOV_MOFFS_AL:
	case OP_MOV_MOFFS_AX:
		has_modrm = false;
		a->store = op >= OP_MOV_MOFFS_AL;
		a->size_bytes = (op & 1) ? op_bytes : 1;
		a->reg_bytes = a->store ? 0 : a->size_bytes;
		a->reg = 0;	/* AL or rAX, REX.B or not */
		r = take(c, addr_bytes);	/* the offset: as wide as the address */
		if (r)
			return r;
		a->disp = (int64_t)taken_value(c, addr_bytes);
		a->base = MMIO_REG_NONE;
		a->index = MMIO_REG_NONE;
		a->scale = 1;
		if (a->seg == MMIO_SEG_DEFAULT)
			a->seg = SEG_DS;
		break;
	case OP_ESCAPE:
		r = take(c, 1);
		if (r)
			return r;
		op = c->insn[c->pos - 1];
		if (op != OP2_MOVZX_8 && op != OP2_MOVZX_16 && op != OP2_MOVSX_8 &&
		    op != OP2_MOVSX_16)
			return MMIO_DECODE_OPCODE;
		a->size_bytes = (op & 1) ? 2 : 1;
		a->reg_bytes = op_bytes;
		a->extend = op >= OP2_MOVSX_8 ? MMIO_EXTEND_SIGN : MMIO_EXTEND_ZERO;
		break;
	default:
		return MMIO_DECODE_OPCODE;
	}

	if (has_modrm) {
		r = take(c, 1);
		if (r)
			return r;
		modrm = c->insn[c->pos - 1];
		/* C6 /0 and C7 /0 only: C6 F8 is XABORT, C7 F8 XBEGIN, the rest #UD */
		if (a->src_imm && MODRM_REG(modrm) != 0)
			return MMIO_DECODE_OPCODE;
		r = memory_operand(c, modrm, rex, mode, a);
		if (r)
			return r;
		if (!a->src_imm) {
			a->reg = (uint8_t)(MODRM_REG(modrm) | ((rex & REX_R) ? 8 : 0));
			/* without any REX, byte registers 4-7 are AH, CH, DH, BH (2.2.1.2) */
			if (a->size_bytes == 1 && a->extend == MMIO_EXTEND_NONE && !rex &&
			    a->reg >= 4) {
				a->reg -= 4;
				a->reg_high8 = true;
			}
		}
	}
	if (imm_bytes) {
		r = take(c, imm_bytes);
		if (r)
			return r;
		a->imm = taken_value(c, imm_bytes);
		if (imm_bytes == 4 && a->size_bytes == 8 && (a->imm & 0x80000000u))
			a->imm |= 0xffffffff00000000ull;
	}
	a->insn_bytes = (uint8_t)c->pos;
	return MMIO_DECODE_OK;
}

enum mmio_decode_result mmio_decode(const uint8_t *insn, uint32_t avail, enum mmio_cpu_mode mode,
				    struct mmio_access *a)
{
	struct cursor c = { .insn = insn, .avail = MIN(avail, X86_INSN_MAX_BYTES), .pos = 0 };
	enum mmio_decode_result r;

	memset(a, 0, sizeof(*a));
	a->seg = MMIO_SEG_DEFAULT;
	r = decode(&c, mode, a);
	if (r)
		memset(a, 0, sizeof(*a));
	return r;
}

enum mmio_cpu_mode mmio_cpu_mode(bool efer_lma, bool cs_l, bool cs_d)
{
	/* CS.L counts only in IA-32e mode; there CS.L = 1 needs CS.D = 0 (SDM Vol. 3A 3.4.5) */
	if (efer_lma && cs_l)
		return MMIO_CPU_64;
	return cs_d ? MMIO_CPU_32 : MMIO_CPU_16;
}

uint64_t mmio_load_apply(const struct mmio_access *a, uint64_t old_reg, uint64_t data)
{
	uint32_t size = a->size_bytes;
	uint64_t v = data & low_mask(size);

	if (a->extend == MMIO_EXTEND_SIGN && size >= 1 && size < 8 && (v >> (8 * size - 1)) & 1)
		v |= ~low_mask(size);
	/* SDM Vol. 1 3.4.1.1: 8 and 16 bits merge, 32 bits zero-extend */
	switch (a->reg_bytes) {
	case 1:
		if (a->reg_high8)
			return (old_reg & ~0xff00ull) | (v & 0xff) << 8;
		return (old_reg & ~0xffull) | (v & 0xff);
	case 2:
		return (old_reg & ~0xffffull) | (v & 0xffff);
	case 4:
		return v & 0xffffffffull;
	default:
		return v;
	}
}

uint64_t mmio_store_value(const struct mmio_access *a, uint64_t reg_value)
{
	if (a->src_imm)
		return a->imm & low_mask(a->size_bytes);
	if (a->reg_high8)
		reg_value >>= 8;
	return reg_value & low_mask(a->size_bytes);
}

uint64_t mmio_effective_address(const struct mmio_access *a, const uint64_t gpr[16],
				uint64_t next_rip)
{
	uint64_t ea = (uint64_t)a->disp;

	if (a->base == MMIO_REG_RIP)
		ea += next_rip;
	else if (a->base < 16)
		ea += gpr[a->base];
	if (a->index < 16)
		ea += gpr[a->index] * a->scale;
	return ea & low_mask(a->addr_bytes);
}

uint32_t mmio_chunk_bytes(uint64_t addr, uint32_t left)
{
	uint32_t n = 8;

	while (n > 1 && (n > left || (addr & (n - 1))))
		n /= 2;
	return left ? n : 0;
}

const char *mmio_decode_result_name(enum mmio_decode_result r)
{
	static const char *const names[] = {
		[MMIO_DECODE_OK] = "ok",
		[MMIO_DECODE_TRUNCATED] = "truncated",
		[MMIO_DECODE_TOO_LONG] = "too-long",
		[MMIO_DECODE_PREFIX] = "lock-rep-prefix",
		[MMIO_DECODE_OPCODE] = "unsupported-opcode",
		[MMIO_DECODE_REGISTER] = "register-operand",
	};

	return (unsigned int)r < ARRAY_SIZE(names) ? names[r] : "?";
}
