// SPDX-License-Identifier: MIT
/*
 * The MMIO instruction decoder on real encodings: every byte string below is
 * what GNU as 2.40 emits for the text beside it (objdump -d), in the mode
 * given; the few hand-made ones (prefix orders) were checked with
 * objdump -D -b binary. Then the refusals, and the register helpers.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "hv/core/mmio_decode.h"

#define M16	MMIO_CPU_16
#define M32	MMIO_CPU_32
#define M64	MMIO_CPU_64

#define ZX	MMIO_EXTEND_ZERO
#define SX	MMIO_EXTEND_SIGN

/* The bytes of one instruction and their count */
#define I(...)	.bytes = { __VA_ARGS__ }, .n = sizeof((uint8_t[]){ __VA_ARGS__ })

struct insn_case {
	const char *text;
	enum mmio_cpu_mode mode;
	uint8_t bytes[X86_INSN_MAX_BYTES];
	uint32_t n;
	/* expected */
	bool store, src_imm, high8;
	uint8_t size, reg, reg_bytes;
	enum mmio_extend extend;
	uint64_t imm;
};

/* A store from a register, a store of an immediate, a load */
#define ST(sz, r)	.store = true, .size = (sz), .reg = (r)
#define STI(sz, v)	.store = true, .src_imm = true, .size = (sz), .imm = (v)
#define LD(sz, r, rb)	.size = (sz), .reg = (r), .reg_bytes = (rb)

static const struct insn_case cases[] = {
	/* 64-bit mode: what readl/writel and friends compile to */
	{ "mov %eax,(%rdx)", M64, I(0x89, 0x02), ST(4, 0) },
	{ "mov (%rsi),%ecx", M64, I(0x8b, 0x0e), LD(4, 1, 4) },
	{ "mov %r9d,0x10(%rax,%rbx,4)", M64, I(0x44, 0x89, 0x4c, 0x98, 0x10), ST(4, 9) },
	{ "movb $0x5,(%rdi)", M64, I(0xc6, 0x07, 0x05), STI(1, 5) },
	{ "movq $-1,0xc(%r8)", M64, I(0x49, 0xc7, 0x40, 0x0c, 0xff, 0xff, 0xff, 0xff),
	  STI(8, ~0ull) },
	{ "movzwl 0x4(%rax),%eax", M64, I(0x0f, 0xb7, 0x40, 0x04), LD(2, 0, 4), .extend = ZX },
	{ "movsbl (%rcx),%edx", M64, I(0x0f, 0xbe, 0x11), LD(1, 2, 4), .extend = SX },
	{ "movsbq -0x8(%rbp),%r11", M64, I(0x4c, 0x0f, 0xbe, 0x5d, 0xf8), LD(1, 11, 8),
	  .extend = SX },
	{ "movswq 0x100(%rsp),%rax", M64, I(0x48, 0x0f, 0xbf, 0x84, 0x24, 0x00, 0x01, 0x00, 0x00),
	  LD(2, 0, 8), .extend = SX },
	{ "movzbl (%r12),%r13d", M64, I(0x45, 0x0f, 0xb6, 0x2c, 0x24), LD(1, 13, 4),
	  .extend = ZX },
	/* no REX, but a 32-bit or 16-bit destination: ModRM.reg 6 and 7 are ESI and DI */
	{ "movzbl (%rax),%esi", M64, I(0x0f, 0xb6, 0x30), LD(1, 6, 4), .extend = ZX },
	{ "movsbw (%rbx),%di", M64, I(0x66, 0x0f, 0xbe, 0x3b), LD(1, 7, 2), .extend = SX },
	{ "movzbq (%rax),%r8", M64, I(0x4c, 0x0f, 0xb6, 0x00), LD(1, 8, 8), .extend = ZX },
	{ "mov %ah,(%rbx)", M64, I(0x88, 0x23), ST(1, 0), .high8 = true },
	{ "mov %sil,(%rbx)", M64, I(0x40, 0x88, 0x33), ST(1, 6) },
	{ "mov (%rdx),%bh", M64, I(0x8a, 0x3a), LD(1, 3, 1), .high8 = true },
	{ "mov (%rdx),%dil", M64, I(0x40, 0x8a, 0x3a), LD(1, 7, 1) },
	{ "mov 0x12345678(%rip),%eax", M64, I(0x8b, 0x05, 0x78, 0x56, 0x34, 0x12), LD(4, 0, 4) },
	{ "mov %ax,(%rbx)", M64, I(0x66, 0x89, 0x03), ST(2, 0) },
	{ "movw $0x1234,(%rbx)", M64, I(0x66, 0xc7, 0x03, 0x34, 0x12), STI(2, 0x1234) },
	{ "movl $0x80000000,(%rbx)", M64, I(0xc7, 0x03, 0x00, 0x00, 0x00, 0x80),
	  STI(4, 0x80000000) },
	{ "movq $0x7fffffff,(%rbx)", M64, I(0x48, 0xc7, 0x03, 0xff, 0xff, 0xff, 0x7f),
	  STI(8, 0x7fffffff) },
	{ "mov %rax,(%rbx)", M64, I(0x48, 0x89, 0x03), ST(8, 0) },
	{ "mov (%rbx),%r15", M64, I(0x4c, 0x8b, 0x3b), LD(8, 15, 8) },
	{ "mov %r15b,0x0(%r13)", M64, I(0x45, 0x88, 0x7d, 0x00), ST(1, 15) },
	{ "mov 0x0(%r13),%r10w", M64, I(0x66, 0x45, 0x8b, 0x55, 0x00), LD(2, 10, 2) },
	{ "movzbw (%rax),%ax", M64, I(0x66, 0x0f, 0xb6, 0x00), LD(1, 0, 2), .extend = ZX },
	{ "movslq (%rax),%rax", M64, I(0x48, 0x63, 0x00), LD(4, 0, 8), .extend = SX },
	{ "movsxd (%rax),%eax", M64, I(0x63, 0x00), LD(4, 0, 4) },
	{ "movsxd (%rax),%ax", M64, I(0x66, 0x63, 0x00), LD(2, 0, 2) },
	{ "movabs 0x1122334455667788,%al", M64,
	  I(0xa0, 0x88, 0x77, 0x66, 0x55, 0x44, 0x33, 0x22, 0x11), LD(1, 0, 1) },
	{ "movabs 0x1122334455667788,%eax", M64,
	  I(0xa1, 0x88, 0x77, 0x66, 0x55, 0x44, 0x33, 0x22, 0x11), LD(4, 0, 4) },
	{ "movabs %rax,0x1122334455667788", M64,
	  I(0x48, 0xa3, 0x88, 0x77, 0x66, 0x55, 0x44, 0x33, 0x22, 0x11), ST(8, 0) },
	{ "movabs %ax,0x1122334455667788", M64,
	  I(0x66, 0xa3, 0x88, 0x77, 0x66, 0x55, 0x44, 0x33, 0x22, 0x11), ST(2, 0) },
	{ "addr32 mov 0x11223344,%eax", M64, I(0x67, 0xa1, 0x44, 0x33, 0x22, 0x11), LD(4, 0, 4) },
	{ "mov %eax,0x12345678", M64, I(0x89, 0x04, 0x25, 0x78, 0x56, 0x34, 0x12), ST(4, 0) },
	{ "mov %ecx,0x0(,%rbx,8)", M64, I(0x89, 0x0c, 0xdd, 0x00, 0x00, 0x00, 0x00), ST(4, 1) },
	{ "mov 0x0(%r13),%eax", M64, I(0x41, 0x8b, 0x45, 0x00), LD(4, 0, 4) },
	{ "mov 0x12345678(,%rax,1),%eax", M64, I(0x41, 0x8b, 0x04, 0x05, 0x78, 0x56, 0x34, 0x12),
	  LD(4, 0, 4) },
	{ "mov %edx,(%r12)", M64, I(0x41, 0x89, 0x14, 0x24), ST(4, 2) },
	{ "mov %edx,-0x80(%rsp,%r14,2)", M64, I(0x42, 0x89, 0x54, 0x74, 0x80), ST(4, 2) },
	{ "mov %edx,%fs:0x10(%rax)", M64, I(0x64, 0x89, 0x50, 0x10), ST(4, 2) },
	{ "movl $0x1,%gs:0x12345678(%rax,%rbx,1)", M64,
	  I(0x65, 0xc7, 0x84, 0x18, 0x78, 0x56, 0x34, 0x12, 0x01, 0x00, 0x00, 0x00), STI(4, 1) },
	{ "mov %eax,(%eax)", M64, I(0x67, 0x89, 0x00), ST(4, 0) },
	{ "mov (%esp),%eax", M64, I(0x67, 0x8b, 0x04, 0x24), LD(4, 0, 4) },
	{ "movl $0x12345678,0x12345678(%rax,%rbx,8)", M64,
	  I(0xc7, 0x84, 0xd8, 0x78, 0x56, 0x34, 0x12, 0x78, 0x56, 0x34, 0x12),
	  STI(4, 0x12345678) },
	{ "movq $0x12345678,%fs:0x12345678(%r8,%r9,8)", M64,
	  I(0x64, 0x4b, 0xc7, 0x84, 0xc8, 0x78, 0x56, 0x34, 0x12, 0x78, 0x56, 0x34, 0x12),
	  STI(8, 0x12345678) },
	/* the same with two more segment prefixes: exactly 15 bytes */
	{ "cs ds movq $0x12345678,%fs:0x12345678(%r8,%r9,8)", M64,
	  I(0x2e, 0x3e, 0x64, 0x4b, 0xc7, 0x84, 0xc8, 0x78, 0x56, 0x34, 0x12, 0x78, 0x56, 0x34,
	    0x12), STI(8, 0x12345678) },
	/* a REX followed by a legacy prefix is ignored; of two REX the last counts */
	{ "rex.W data16 mov %ax,(%rbx)", M64, I(0x48, 0x66, 0x89, 0x03), ST(2, 0) },
	{ "rex data16 mov %ah,(%rbx)", M64, I(0x40, 0x66, 0x88, 0x23), ST(1, 0), .high8 = true },
	{ "data16 mov %rax,(%rbx)", M64, I(0x66, 0x48, 0x89, 0x03), ST(8, 0) },
	{ "rex.W mov %eax,(%r11)", M64, I(0x48, 0x41, 0x89, 0x03), ST(4, 0) },

	/* 32-bit protected and compatibility mode */
	{ "mov %eax,(%edx)", M32, I(0x89, 0x02), ST(4, 0) },
	{ "mov (%esi),%ecx", M32, I(0x8b, 0x0e), LD(4, 1, 4) },
	{ "mov %ecx,0x12345678", M32, I(0x89, 0x0d, 0x78, 0x56, 0x34, 0x12), ST(4, 1) },
	{ "mov 0x10(%ebp),%al", M32, I(0x8a, 0x45, 0x10), LD(1, 0, 1) },
	{ "mov %dh,0x8(%esi,%edi,2)", M32, I(0x88, 0x74, 0x7e, 0x08), ST(1, 2), .high8 = true },
	{ "mov %ax,(%ebx)", M32, I(0x66, 0x89, 0x03), ST(2, 0) },
	{ "movw $0xbeef,0x4(%ebx)", M32, I(0x66, 0xc7, 0x43, 0x04, 0xef, 0xbe), STI(2, 0xbeef) },
	{ "movl $0xfffffff0,(%ebx)", M32, I(0xc7, 0x03, 0xf0, 0xff, 0xff, 0xff),
	  STI(4, 0xfffffff0) },
	{ "movzbl (%eax),%eax", M32, I(0x0f, 0xb6, 0x00), LD(1, 0, 4), .extend = ZX },
	{ "movswl (%eax),%edx", M32, I(0x0f, 0xbf, 0x10), LD(2, 2, 4), .extend = SX },
	{ "mov 0xfee00020,%eax", M32, I(0xa1, 0x20, 0x00, 0xe0, 0xfe), LD(4, 0, 4) },
	{ "mov %ax,0xfee00300", M32, I(0x66, 0xa3, 0x00, 0x03, 0xe0, 0xfe), ST(2, 0) },
	{ "mov %eax,(%bx,%si)", M32, I(0x67, 0x89, 0x00), ST(4, 0) },
	{ "mov 0x1234,%al", M32, I(0xa0, 0x34, 0x12, 0x00, 0x00), LD(1, 0, 1) },
	{ "mov %eax,%ds:0x0(%bp)", M32, I(0x3e, 0x67, 0x89, 0x46, 0x00), ST(4, 0) },
	{ "addr16 mov 0x1234,%eax", M32, I(0x67, 0xa1, 0x34, 0x12), LD(4, 0, 4) },
	{ "mov 0x12345678(,%eax,4),%bl", M32, I(0x8a, 0x1c, 0x85, 0x78, 0x56, 0x34, 0x12),
	  LD(1, 3, 1) },
	{ "movl $0xabcd,0x100(%ebx,%ecx,1)", M32,
	  I(0xc7, 0x84, 0x0b, 0x00, 0x01, 0x00, 0x00, 0xcd, 0xab, 0x00, 0x00), STI(4, 0xabcd) },

	/* 16-bit: real mode, virtual-8086, 16-bit protected mode */
	{ "mov %ax,(%bp,%di)", M16, I(0x89, 0x03), ST(2, 0) },
	{ "mov %ax,(%bx)", M16, I(0x89, 0x07), ST(2, 0) },
	{ "mov %eax,(%bx)", M16, I(0x66, 0x89, 0x07), ST(4, 0) },
	{ "mov 0x1234,%ax", M16, I(0xa1, 0x34, 0x12), LD(2, 0, 2) },
	{ "mov %ax,0x12(%bp)", M16, I(0x89, 0x46, 0x12), ST(2, 0) },
	{ "mov 0x1234(%si),%cl", M16, I(0x8a, 0x8c, 0x34, 0x12), LD(1, 1, 1) },
	{ "movw $0x55aa,0x1234", M16, I(0xc7, 0x06, 0x34, 0x12, 0xaa, 0x55), STI(2, 0x55aa) },
	{ "movl $0x11223344,(%di)", M16, I(0x66, 0xc7, 0x05, 0x44, 0x33, 0x22, 0x11),
	  STI(4, 0x11223344) },
	{ "mov 0x1234,%al", M16, I(0xa0, 0x34, 0x12), LD(1, 0, 1) },
	{ "mov 0x5678,%eax", M16, I(0x66, 0xa1, 0x78, 0x56), LD(4, 0, 4) },
	{ "mov %ax,(%eax)", M16, I(0x67, 0x89, 0x00), ST(2, 0) },
	{ "movzbw (%si),%dx", M16, I(0x0f, 0xb6, 0x14), LD(1, 2, 2), .extend = ZX },
	{ "movzbl (%si),%edx", M16, I(0x66, 0x0f, 0xb6, 0x14), LD(1, 2, 4), .extend = ZX },
	{ "addr32 mov 0x12345678,%eax", M16, I(0x67, 0x66, 0xa1, 0x78, 0x56, 0x34, 0x12),
	  LD(4, 0, 4) },
	{ "mov %ax,0x12345678(,%eax,4)", M16,
	  I(0x67, 0x66, 0x89, 0x04, 0x85, 0x78, 0x56, 0x34, 0x12), ST(4, 0) },
};

/* One field of a case: on a mismatch, the instruction's text says which case */
static void expect(const char *text, const char *field, uint64_t got, uint64_t want)
{
	if (got != want)
		fail_msg("%s: %s is %#llx, want %#llx", text, field, (unsigned long long)got,
			 (unsigned long long)want);
}

static void test_encodings(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const struct insn_case *c = &cases[i];
		uint8_t padded[X86_INSN_MAX_BYTES + 8];
		struct mmio_access a, b;

		expect(c->text, "result", mmio_decode(c->bytes, c->n, c->mode, &a),
		       MMIO_DECODE_OK);
		expect(c->text, "insn_bytes", a.insn_bytes, c->n);
		expect(c->text, "store", a.store, c->store);
		expect(c->text, "src_imm", a.src_imm, c->src_imm);
		expect(c->text, "size_bytes", a.size_bytes, c->size);
		expect(c->text, "reg", a.reg, c->reg);
		expect(c->text, "reg_high8", a.reg_high8, c->high8);
		expect(c->text, "reg_bytes", a.reg_bytes, c->store ? 0 : c->reg_bytes);
		expect(c->text, "extend", a.extend, c->extend);
		expect(c->text, "imm", a.imm, c->imm);

		/* more bytes after it change nothing */
		memset(padded, 0xcc, sizeof(padded));
		memcpy(padded, c->bytes, c->n);
		expect(c->text, "padded", mmio_decode(padded, sizeof(padded), c->mode, &b),
		       MMIO_DECODE_OK);
		assert_memory_equal(&a, &b, sizeof(a));
		/* any fewer is truncated */
		for (uint32_t n = 0; n < c->n; n++) {
			expect(c->text, "shorter", mmio_decode(c->bytes, n, c->mode, &b),
			       MMIO_DECODE_TRUNCATED);
			expect(c->text, "shorter insn_bytes", b.insn_bytes, 0);
		}
	}
}

struct refusal {
	const char *text;
	enum mmio_cpu_mode mode;
	uint8_t bytes[X86_INSN_MAX_BYTES];
	uint32_t n;
	enum mmio_decode_result result;
};

static const struct refusal refusals[] = {
	{ "lock mov %eax,(%rdx)", M64, I(0xf0, 0x89, 0x02), MMIO_DECODE_PREFIX },
	{ "rep mov %eax,(%rdx)", M64, I(0xf3, 0x89, 0x02), MMIO_DECODE_PREFIX },
	{ "repne mov %eax,(%rdx)", M64, I(0xf2, 0x89, 0x02), MMIO_DECODE_PREFIX },
	{ "data16 lock", M32, I(0x66, 0xf0, 0x89, 0x02), MMIO_DECODE_PREFIX },
	{ "rep movsb", M64, I(0xf3, 0xa4), MMIO_DECODE_PREFIX },
	{ "rep stos", M32, I(0xf3, 0xab), MMIO_DECODE_PREFIX },
	{ "mov %eax,%eax", M64, I(0x89, 0xc0), MMIO_DECODE_REGISTER },
	{ "mov %r8,%rcx", M64, I(0x4c, 0x89, 0xc1), MMIO_DECODE_REGISTER },
	{ "mov $0x1,%eax (C7 /0)", M64, I(0xc7, 0xc0, 0x01, 0x00, 0x00, 0x00),
	  MMIO_DECODE_REGISTER },
	{ "movzbl %al,%eax", M64, I(0x0f, 0xb6, 0xc0), MMIO_DECODE_REGISTER },
	{ "mov %ax,%bx (16-bit)", M16, I(0x89, 0xc3), MMIO_DECODE_REGISTER },
	{ "xabort $0x0", M64, I(0xc6, 0xf8, 0x00), MMIO_DECODE_OPCODE },
	{ "xbegin", M64, I(0xc7, 0xf8, 0x00, 0x00, 0x00, 0x00), MMIO_DECODE_OPCODE },
	{ "C7 /1", M64, I(0xc7, 0x08, 0x00, 0x00, 0x00, 0x00), MMIO_DECODE_OPCODE },
	{ "vmovd %xmm0,(%rdx) (VEX)", M64, I(0xc5, 0xf9, 0x7e, 0x02), MMIO_DECODE_OPCODE },
	{ "vmovdqa32 %zmm0,(%rdx) (EVEX)", M64, I(0x62, 0xf1, 0x7d, 0x48, 0x7f, 0x02),
	  MMIO_DECODE_OPCODE },
	{ "movnti %eax,(%rdx)", M64, I(0x0f, 0xc3, 0x02), MMIO_DECODE_OPCODE },
	{ "xchg %eax,(%rdx)", M64, I(0x87, 0x02), MMIO_DECODE_OPCODE },
	{ "orl $1,(%rdx)", M64, I(0x83, 0x0a, 0x01), MMIO_DECODE_OPCODE },
	{ "movsb", M64, I(0xa4), MMIO_DECODE_OPCODE },
	{ "mov %ds,(%rax)", M64, I(0x8c, 0x18), MMIO_DECODE_OPCODE },
	{ "dec %eax; mov (32-bit: 48 is not REX)", M32, I(0x48, 0x89, 0x03), MMIO_DECODE_OPCODE },
	{ "arpl %ax,(%eax)", M32, I(0x63, 0x00), MMIO_DECODE_OPCODE },
	{ "REX between 0F and B6", M64, I(0x0f, 0x48, 0xb6, 0x00), MMIO_DECODE_OPCODE },
	/* 16 bytes: one prefix more than the 15-byte instruction above */
	{ "cs ds es movq $imm,%fs:...", M64,
	  I(0x26, 0x2e, 0x3e, 0x64, 0x4b, 0xc7, 0x84, 0xc8, 0x78, 0x56, 0x34, 0x12, 0x78, 0x56,
	    0x34), MMIO_DECODE_TOO_LONG },
	{ "15 operand-size prefixes", M64,
	  I(0x66, 0x66, 0x66, 0x66, 0x66, 0x66, 0x66, 0x66, 0x66, 0x66, 0x66, 0x66, 0x66, 0x66,
	    0x66), MMIO_DECODE_TOO_LONG },
	{ "14 prefixes then mov %eax,(%rdx)", M64,
	  I(0x2e, 0x2e, 0x2e, 0x2e, 0x2e, 0x2e, 0x2e, 0x2e, 0x2e, 0x2e, 0x2e, 0x2e, 0x2e, 0x2e,
	    0x89), MMIO_DECODE_TOO_LONG },
	{ "mov without ModRM", M64, I(0x89), MMIO_DECODE_TRUNCATED },
	{ "prefix only", M32, I(0x66), MMIO_DECODE_TRUNCATED },
	{ "escape only", M32, I(0x0f), MMIO_DECODE_TRUNCATED },
	{ "SIB missing", M64, I(0x89, 0x04), MMIO_DECODE_TRUNCATED },
	{ "disp32 short", M64, I(0x8b, 0x05, 0x78, 0x56, 0x34), MMIO_DECODE_TRUNCATED },
	{ "imm32 short", M64, I(0x49, 0xc7, 0x40, 0x0c, 0xff, 0xff, 0xff), MMIO_DECODE_TRUNCATED },
	{ "moffs64 short", M64, I(0xa1, 0x88, 0x77, 0x66, 0x55, 0x44, 0x33, 0x22),
	  MMIO_DECODE_TRUNCATED },
	{ "16-bit disp16 short", M16, I(0x8a, 0x8c, 0x34), MMIO_DECODE_TRUNCATED },
};

static void test_refusals(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(refusals) / sizeof(refusals[0]); i++) {
		const struct refusal *r = &refusals[i];
		struct mmio_access a;

		memset(&a, 0x5a, sizeof(a));
		expect(r->text, "result", mmio_decode(r->bytes, r->n, r->mode, &a), r->result);
		/* a refusal leaves nothing to act on */
		expect(r->text, "insn_bytes", a.insn_bytes, 0);
		expect(r->text, "size_bytes", a.size_bytes, 0);
	}
}

/* 15-byte limit and the available bytes: which one says no first */
static void test_limits(void **state)
{
	uint8_t many[32];
	struct mmio_access a;

	(void)state;
	memset(many, 0x2e, sizeof(many));
	/* 14 prefixes and a 2-byte MOV: 16 bytes */
	many[14] = 0x89;
	many[15] = 0x02;
	assert_int_equal(mmio_decode(many, sizeof(many), M64, &a), MMIO_DECODE_TOO_LONG);
	/* 13 prefixes and the MOV: 15, fine */
	assert_int_equal(mmio_decode(many + 1, sizeof(many) - 1, M64, &a), MMIO_DECODE_OK);
	assert_int_equal(a.insn_bytes, 15);
	/* fewer bytes than the prefixes: truncated, not too long */
	assert_int_equal(mmio_decode(many, 10, M64, &a), MMIO_DECODE_TRUNCATED);
	/* no bytes at all */
	assert_int_equal(mmio_decode(many, 0, M64, &a), MMIO_DECODE_TRUNCATED);
	/* more than 15 bytes given are never read */
	assert_int_equal(mmio_decode(many + 1, 1000, M64, &a), MMIO_DECODE_OK);
}

static void test_cpu_mode(void **state)
{
	(void)state;
	assert_int_equal(mmio_cpu_mode(true, true, false), MMIO_CPU_64);
	assert_int_equal(mmio_cpu_mode(true, false, true), MMIO_CPU_32);	/* compatibility */
	assert_int_equal(mmio_cpu_mode(true, false, false), MMIO_CPU_16);
	assert_int_equal(mmio_cpu_mode(false, true, true), MMIO_CPU_32);	/* CS.L ignored */
	assert_int_equal(mmio_cpu_mode(false, false, false), MMIO_CPU_16);	/* real mode */
}

static struct mmio_access decode_ok(const uint8_t *bytes, uint32_t n, enum mmio_cpu_mode mode)
{
	struct mmio_access a;

	assert_int_equal(mmio_decode(bytes, n, mode, &a), MMIO_DECODE_OK);
	return a;
}

#define DECODE(mode, ...) \
	decode_ok((const uint8_t[]){ __VA_ARGS__ }, sizeof((uint8_t[]){ __VA_ARGS__ }), mode)

static void test_load_apply(void **state)
{
	const uint64_t old = 0x1122334455667788ull;
	struct mmio_access a;

	(void)state;
	a = DECODE(M64, 0x8b, 0x0e);				/* mov (%rsi),%ecx */
	assert_int_equal(mmio_load_apply(&a, ~0ull, 0x12345678), 0x12345678);
	assert_int_equal(mmio_load_apply(&a, old, 0xffffffff87654321ull), 0x87654321);
	a = DECODE(M64, 0x8a, 0x3a);				/* mov (%rdx),%bh */
	assert_int_equal(mmio_load_apply(&a, old, 0xab), 0x112233445566ab88ull);
	assert_int_equal(mmio_load_apply(&a, old, 0x1ab), 0x112233445566ab88ull);
	a = DECODE(M64, 0x40, 0x8a, 0x3a);			/* mov (%rdx),%dil */
	assert_int_equal(mmio_load_apply(&a, old, 0xab), 0x11223344556677abull);
	a = DECODE(M64, 0xa0, 1, 2, 3, 4, 5, 6, 7, 8);		/* movabs ...,%al */
	assert_int_equal(mmio_load_apply(&a, old, 0x1ff), 0x11223344556677ffull);
	a = DECODE(M64, 0x66, 0x45, 0x8b, 0x55, 0x00);		/* mov 0x0(%r13),%r10w */
	assert_int_equal(mmio_load_apply(&a, old, 0xbeef), 0x112233445566beefull);
	a = DECODE(M64, 0x4c, 0x8b, 0x3b);			/* mov (%rbx),%r15 */
	assert_int_equal(mmio_load_apply(&a, old, ~0ull), ~0ull);

	a = DECODE(M64, 0x0f, 0xbe, 0x11);			/* movsbl (%rcx),%edx */
	assert_int_equal(mmio_load_apply(&a, old, 0x80), 0xffffff80ull);
	assert_int_equal(mmio_load_apply(&a, old, 0x7f), 0x7f);
	a = DECODE(M64, 0x4c, 0x0f, 0xbe, 0x5d, 0xf8);		/* movsbq -0x8(%rbp),%r11 */
	assert_int_equal(mmio_load_apply(&a, old, 0x80), 0xffffffffffffff80ull);
	a = DECODE(M64, 0x48, 0x0f, 0xbf, 0x84, 0x24, 0, 1, 0, 0);	/* movswq */
	assert_int_equal(mmio_load_apply(&a, old, 0x7fff), 0x7fff);
	assert_int_equal(mmio_load_apply(&a, old, 0x18000), 0xffffffffffff8000ull);
	a = DECODE(M64, 0x66, 0x0f, 0xb6, 0x00);		/* movzbw (%rax),%ax */
	assert_int_equal(mmio_load_apply(&a, old, 0xff), 0x11223344556600ffull);
	a = DECODE(M64, 0x0f, 0xb7, 0x40, 0x04);		/* movzwl 0x4(%rax),%eax */
	assert_int_equal(mmio_load_apply(&a, old, 0xffff1234), 0x1234);
	a = DECODE(M64, 0x48, 0x63, 0x00);			/* movslq (%rax),%rax */
	assert_int_equal(mmio_load_apply(&a, old, 0x80000000), 0xffffffff80000000ull);
	a = DECODE(M64, 0x63, 0x00);				/* movsxd (%rax),%eax */
	assert_int_equal(mmio_load_apply(&a, old, 0x80000000), 0x80000000);
	a = DECODE(M32, 0x0f, 0xbf, 0x10);			/* movswl (%eax),%edx */
	assert_int_equal(mmio_load_apply(&a, old, 0x8000), 0xffff8000ull);
	a = DECODE(M16, 0x0f, 0xb6, 0x14);			/* movzbw (%si),%dx */
	assert_int_equal(mmio_load_apply(&a, old, 0x80), 0x1122334455660080ull);
	a = DECODE(M16, 0xa1, 0x34, 0x12);			/* mov 0x1234,%ax */
	assert_int_equal(mmio_load_apply(&a, old, 0xabcdef), 0x112233445566cdefull);
}

static void test_store_value(void **state)
{
	struct mmio_access a;

	(void)state;
	a = DECODE(M64, 0x88, 0x23);				/* mov %ah,(%rbx) */
	assert_int_equal(mmio_store_value(&a, 0x1234), 0x12);
	a = DECODE(M64, 0x40, 0x88, 0x33);			/* mov %sil,(%rbx) */
	assert_int_equal(mmio_store_value(&a, 0x1234), 0x34);
	a = DECODE(M64, 0x66, 0x89, 0x03);			/* mov %ax,(%rbx) */
	assert_int_equal(mmio_store_value(&a, 0x11223344), 0x3344);
	a = DECODE(M64, 0x89, 0x02);				/* mov %eax,(%rdx) */
	assert_int_equal(mmio_store_value(&a, 0x1122334455667788ull), 0x55667788);
	a = DECODE(M64, 0x48, 0x89, 0x03);			/* mov %rax,(%rbx) */
	assert_int_equal(mmio_store_value(&a, 0x1122334455667788ull), 0x1122334455667788ull);
	a = DECODE(M64, 0x49, 0xc7, 0x40, 0x0c, 0xff, 0xff, 0xff, 0xff);	/* movq $-1 */
	assert_int_equal(mmio_store_value(&a, 0), ~0ull);
	a = DECODE(M64, 0xc7, 0x03, 0x00, 0x00, 0x00, 0x80);	/* movl $0x80000000 */
	assert_int_equal(mmio_store_value(&a, ~0ull), 0x80000000);
	a = DECODE(M64, 0x66, 0xc7, 0x03, 0x34, 0x12);		/* movw $0x1234 */
	assert_int_equal(mmio_store_value(&a, ~0ull), 0x1234);
	a = DECODE(M64, 0xc6, 0x07, 0x05);			/* movb $0x5 */
	assert_int_equal(mmio_store_value(&a, ~0ull), 5);
	a = DECODE(M32, 0x88, 0x74, 0x7e, 0x08);		/* mov %dh,0x8(%esi,%edi,2) */
	assert_int_equal(mmio_store_value(&a, 0xabcd), 0xab);
}

/* The registers every effective-address case below runs with (SDM order) */
static const uint64_t ea_gpr[16] = {
	[0] = 0x100001000ull,	/* rax: its low half 0x1000 for an addr32 access */
	[1] = 3,		/* rcx */
	[2] = 0x2000,		/* rdx */
	[3] = 0xfffffff0,	/* rbx (bx 0xfff0) */
	[4] = 0x7000,		/* rsp */
	[5] = 0x8000,		/* rbp */
	[6] = 0x10,		/* rsi */
	[9] = 0x30,		/* r9 */
};

struct ea_case {
	const char *text;
	enum mmio_cpu_mode mode;
	uint8_t bytes[X86_INSN_MAX_BYTES];
	uint32_t n;
	uint64_t ea;
	uint8_t seg;	/* 0 ES, 2 SS, 3 DS, 4 FS */
};

/* objdump -D -b binary of each, as in the table above; RIP is 0x400000 after each */
static const struct ea_case ea_cases[] = {
	{ "mov 0x10(%rax,%rcx,4),%edx", M64, I(0x8b, 0x54, 0x88, 0x10), 0x10000101cull, 3 },
	{ "mov 0x12345678(%rip),%eax", M64, I(0x8b, 0x05, 0x78, 0x56, 0x34, 0x12), 0x12745678, 3 },
	{ "mov -0x8(%rbp),%eax", M64, I(0x8b, 0x45, 0xf8), 0x7ff8, 2 },
	{ "mov %eax,%fs:(%rdx)", M64, I(0x64, 0x89, 0x02), 0x2000, 4 },
	{ "mov 0x0(,%r9,8),%rax", M64, I(0x4a, 0x8b, 0x04, 0xcd, 0x00, 0x00, 0x00, 0x00),
	  0x180, 3 },
	{ "movabs 0x1122334455667788,%eax", M64,
	  I(0xa1, 0x88, 0x77, 0x66, 0x55, 0x44, 0x33, 0x22, 0x11), 0x1122334455667788ull, 3 },
	{ "mov (%eax),%ecx (addr32)", M64, I(0x67, 0x8b, 0x08), 0x1000, 3 },
	{ "mov 0x4(%esp),%eax", M32, I(0x8b, 0x44, 0x24, 0x04), 0x7004, 2 },
	{ "mov (%ebx,%esi,2),%al (wraps at 4 GiB)", M32, I(0x8a, 0x04, 0x73), 0x10, 3 },
	{ "mov %eax,%es:0x10(%ebp)", M32, I(0x26, 0x89, 0x45, 0x10), 0x8010, 0 },
	{ "mov 0x2(%bp,%si),%ax", M16, I(0x8b, 0x42, 0x02), 0x8012, 2 },
	{ "mov (%bx),%al", M16, I(0x8a, 0x07), 0xfff0, 3 },
	{ "mov 0x1234,%ax", M16, I(0x8b, 0x06, 0x34, 0x12), 0x1234, 3 },
	{ "mov 0x11(%bx),%ax (wraps at 64 KiB)", M16, I(0x8b, 0x47, 0x11), 0x0001, 3 },
};

static void test_effective_address(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(ea_cases) / sizeof(ea_cases[0]); i++) {
		const struct ea_case *c = &ea_cases[i];
		struct mmio_access a;

		expect(c->text, "result", mmio_decode(c->bytes, c->n, c->mode, &a), MMIO_DECODE_OK);
		expect(c->text, "ea", mmio_effective_address(&a, ea_gpr, 0x400000), c->ea);
		expect(c->text, "seg", a.seg, c->seg);
	}
}

static void test_chunk_bytes(void **state)
{
	(void)state;
	assert_int_equal(mmio_chunk_bytes(0x1000, 8), 8);
	assert_int_equal(mmio_chunk_bytes(0x1000, 7), 4);
	assert_int_equal(mmio_chunk_bytes(0x1004, 3), 2);
	assert_int_equal(mmio_chunk_bytes(0x1006, 1), 1);
	assert_int_equal(mmio_chunk_bytes(0x1ffd, 3), 1);	/* then 0x1ffe, 2 */
	assert_int_equal(mmio_chunk_bytes(0x1ffe, 2), 2);
	assert_int_equal(mmio_chunk_bytes(0x1ffc, 4), 4);
	assert_int_equal(mmio_chunk_bytes(0x1ffa, 6), 2);
	assert_int_equal(mmio_chunk_bytes(0x1000, 0), 0);
	assert_int_equal(mmio_chunk_bytes(0x1000, 100), 8);
}

static void test_names(void **state)
{
	(void)state;
	assert_string_equal(mmio_decode_result_name(MMIO_DECODE_OK), "ok");
	assert_string_equal(mmio_decode_result_name(MMIO_DECODE_PREFIX), "lock-rep-prefix");
	assert_string_equal(mmio_decode_result_name(MMIO_DECODE_REGISTER), "register-operand");
	assert_string_equal(mmio_decode_result_name((enum mmio_decode_result)42), "?");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_encodings),
		cmocka_unit_test(test_refusals),
		cmocka_unit_test(test_limits),
		cmocka_unit_test(test_cpu_mode),
		cmocka_unit_test(test_load_apply),
		cmocka_unit_test(test_store_value),
		cmocka_unit_test(test_effective_address),
		cmocka_unit_test(test_chunk_bytes),
		cmocka_unit_test(test_names),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
