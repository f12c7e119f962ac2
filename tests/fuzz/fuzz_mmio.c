// SPDX-License-Identifier: MIT
/*
 * libFuzzer target: an MMIO exit as a hostile guest could set it up. The
 * input picks the paging mode, CR3, the linear address of the instruction,
 * MAXPHYADDR and the size of guest RAM; the rest of it, repeated, is the
 * content of guest RAM (page tables and code alike, so small inputs reach
 * deep walks). The target walks, fetches 15 bytes at the address and
 * decodes them, and decodes the raw bytes too in every CPU mode; it checks
 * what hv/core/guest_walk.h and hv/core/mmio_decode.h promise and traps when
 * a promise fails. ASan and UBSan catch the rest.
 *
 * Input: [0] paging mode (bits 2:0), EFER.NXE (3), CR0.WP (4), GW_ACCESS_*
 * (7:5); [1] CPU mode (1:0), MAXPHYADDR (7:2, 0 = 52); [2..9] CR3;
 * [10..17] linear address; [18..21] RAM size / 16; [22..29] a register's
 * value (and, scrambled, the device's answer to a load); [30..] the RAM pattern.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "hv/core/guest_walk.h"
#include "hv/core/mmio_decode.h"
#include "hv/lib/lib.h"

#define HEADER_BYTES	30

struct fuzz_ram {
	const uint8_t *pattern;
	size_t pattern_bytes;
	uint64_t size;
	unsigned int reads;
};

static bool ram_read(void *ctx, uint64_t gpa, void *dst, uint32_t len)
{
	struct fuzz_ram *r = ctx;
	uint8_t *out = dst;

	r->reads++;
	if (len > GW_PAGE_4K)
		abort();	/* one page at most, ever */
	if (gpa > r->size || len > r->size - gpa)
		return false;
	for (uint32_t i = 0; i < len; i++)
		out[i] = r->pattern[(gpa + i) % r->pattern_bytes];
	return true;
}

static uint8_t ram_byte(const struct fuzz_ram *r, uint64_t gpa)
{
	return r->pattern[gpa % r->pattern_bytes];
}

static uint64_t low_mask(uint32_t bytes)
{
	return bytes >= 8 ? ~0ull : (1ull << (8 * bytes)) - 1;
}

static bool valid_size(uint32_t bytes)
{
	return bytes == 1 || bytes == 2 || bytes == 4 || bytes == 8;
}

static void check_walk(const struct gw_walk *w, uint64_t linear, enum gw_mode mode)
{
	if (w->level > 5)
		abort();
	if (w->result != GW_OK)
		return;
	if (w->page_bytes != GW_PAGE_4K && w->page_bytes != GW_PAGE_2M &&
	    w->page_bytes != GW_PAGE_4M && w->page_bytes != GW_PAGE_1G)
		abort();
	if ((w->gpa ^ linear) & (w->page_bytes - 1))
		abort();
	if (w->gpa >> 52 || (mode == GW_MODE_32 && w->gpa >> 40) ||
	    (mode == GW_MODE_NONE && w->gpa >> 32))
		abort();
}

/* What a decode promises, and the helpers with it */
static void check_decode(const uint8_t *insn, uint32_t avail, enum mmio_cpu_mode mode,
			 uint64_t old_reg, uint64_t data)
{
	struct mmio_access a, again;
	enum mmio_decode_result r = mmio_decode(insn, avail, mode, &a);
	static const struct mmio_access zero;
	uint64_t v;

	if (r != MMIO_DECODE_OK) {
		if (memcmp(&a, &zero, sizeof(a)))
			abort();
		return;
	}
	if (!a.insn_bytes || a.insn_bytes > avail || a.insn_bytes > X86_INSN_MAX_BYTES ||
	    !valid_size(a.size_bytes) || a.reg > 15)
		abort();
	if (a.reg_high8 && (a.reg > 3 || a.size_bytes != 1 || a.src_imm))
		abort();
	if (a.src_imm && (!a.store || (a.imm & ~low_mask(a.size_bytes)) || a.reg))
		abort();
	if (!a.src_imm && a.imm)
		abort();
	if (a.store && (a.reg_bytes || a.extend != MMIO_EXTEND_NONE))
		abort();
	if (!a.store && (!valid_size(a.reg_bytes) || a.reg_bytes < a.size_bytes))
		abort();
	if (!a.store && a.extend == MMIO_EXTEND_NONE && a.reg_bytes != a.size_bytes &&
	    !(a.size_bytes == 4 && a.reg_bytes == 8))
		abort();
	/* the same bytes, exactly as many: the same answer; one fewer: truncated */
	if (mmio_decode(insn, a.insn_bytes, mode, &again) != MMIO_DECODE_OK ||
	    memcmp(&a, &again, sizeof(a)))
		abort();
	if (mmio_decode(insn, a.insn_bytes - 1u, mode, &again) != MMIO_DECODE_TRUNCATED)
		abort();

	if (a.store) {
		v = a.src_imm ? a.imm : a.reg_high8 ? old_reg >> 8 : old_reg;
		if (mmio_store_value(&a, old_reg) != (v & low_mask(a.size_bytes)))
			abort();
		return;
	}
	v = mmio_load_apply(&a, old_reg, data);
	/* the register's bits outside the destination are kept, or zero above 32 */
	switch (a.reg_bytes) {
	case 1:
		if ((v ^ old_reg) & ~(a.reg_high8 ? 0xff00ull : 0xffull))
			abort();
		break;
	case 2:
		if ((v ^ old_reg) & ~0xffffull)
			abort();
		break;
	case 4:
		if (v >> 32)
			abort();
		break;
	}
	/* the low size_bytes are the data's; between them and reg_bytes, the extension */
	if ((a.reg_high8 ? (v >> 8) & 0xff : v & low_mask(a.size_bytes)) !=
	    (data & low_mask(a.size_bytes)))
		abort();
	if (a.reg_bytes > a.size_bytes) {
		uint64_t upper = (v & low_mask(a.reg_bytes)) >> (8 * a.size_bytes);
		bool negative = (data >> (8 * a.size_bytes - 1)) & 1;

		if (upper != (a.extend == MMIO_EXTEND_SIGN && negative ?
			      low_mask(a.reg_bytes - a.size_bytes) : 0))
			abort();
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* bits 2:0: off, 32-bit, 32-bit + PSE, PAE, PAE with VMCS PDPTEs, 4-, 5-, 4-level */
	static const uint64_t cr4_of[8] = {
		0, 0, GW_CR4_PSE, GW_CR4_PAE, GW_CR4_PAE, GW_CR4_PAE, GW_CR4_PAE | GW_CR4_LA57,
		GW_CR4_PAE,
	};
	struct fuzz_ram ram;
	struct guest_mem mem = { .read = ram_read, .ctx = &ram };
	struct guest_paging pg;
	struct gw_walk w, stop;
	uint8_t insn[X86_INSN_MAX_BYTES];
	uint64_t linear, old_reg, data_value;
	enum mmio_cpu_mode cpu;
	enum gw_mode mode;
	uint32_t access, got, n;
	bool long_mode;

	if (size <= HEADER_BYTES)
		return 0;
	memset(&pg, 0, sizeof(pg));
	pg.cr0 = (data[0] & 7) ? GW_CR0_PG | 1 : 1;
	pg.cr0 |= (data[0] & 0x10) ? GW_CR0_WP : 0;
	pg.cr4 = cr4_of[data[0] & 7];
	pg.efer = ((data[0] & 7) >= 5 ? GW_EFER_LMA : 0) | ((data[0] & 8) ? GW_EFER_NXE : 0);
	access = data[0] >> 5;
	cpu = (data[1] & 3) == 0 ? MMIO_CPU_16 : (data[1] & 3) == 1 ? MMIO_CPU_32 : MMIO_CPU_64;
	pg.maxphyaddr = (data[1] >> 2) ? (uint8_t)(32 + (data[1] >> 2) % 21) : 0;
	pg.cr3 = rd64(data + 2);
	linear = rd64(data + 10);
	ram.size = (uint64_t)rd32(data + 18) << 4;
	old_reg = rd64(data + 22);
	data_value = old_reg * 0x9e3779b97f4a7c15ull;	/* the device's answer */
	ram.pattern = data + HEADER_BYTES;
	ram.pattern_bytes = size - HEADER_BYTES;
	if ((data[0] & 7) == 4) {
		/* PAE with the PDPTEs from the VMCS: take them from the pattern */
		pg.pdpte_valid = true;
		for (unsigned int i = 0; i < 4; i++)
			for (unsigned int b = 0; b < 8; b++)
				pg.pdpte[i] |= (uint64_t)ram_byte(&ram, i * 8 + b) << (8 * b);
	}
	mode = guest_paging_mode(&pg);

	ram.reads = 0;
	if (guest_walk(&pg, &mem, linear, access, &w) != w.result || ram.reads > 5)
		abort();
	long_mode = mode == GW_MODE_4LEVEL || mode == GW_MODE_5LEVEL;
	check_walk(&w, long_mode ? linear : linear & 0xffffffffu, mode);

	/* the fetch: every byte it returns is the one a walk of its own finds */
	ram.reads = 0;
	got = guest_fetch(&pg, &mem, linear, access, insn, sizeof(insn), &stop);
	if (got > sizeof(insn) || ram.reads > 12)
		abort();
	if ((got == sizeof(insn)) != (stop.result == GW_OK))
		abort();
	for (uint32_t i = 0; i < got; i++) {
		if (guest_walk(&pg, &mem, linear + i, access, &w) != GW_OK ||
		    ram_byte(&ram, w.gpa) != insn[i])
			abort();
	}
	if (got < sizeof(insn) && stop.result != GW_PAGE_NOT_RAM &&
	    guest_walk(&pg, &mem, linear + got, access, &w) != stop.result)
		abort();
	check_decode(insn, got, cpu, old_reg, data_value);

	/* the RAM pattern's first bytes as an instruction, in every mode */
	n = (uint32_t)MIN(ram.pattern_bytes, (size_t)X86_INSN_MAX_BYTES);
	check_decode(ram.pattern, n, MMIO_CPU_16, old_reg, data_value);
	check_decode(ram.pattern, n, MMIO_CPU_32, old_reg, data_value);
	check_decode(ram.pattern, n, MMIO_CPU_64, old_reg, data_value);
	return 0;
}
