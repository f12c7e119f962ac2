/* SPDX-License-Identifier: MIT */
/*
 * A guest's linear address to its guest-physical address, through the
 * guest's own page tables (SDM Vol. 3A chapter 4), and the fetch of an
 * instruction's bytes at a linear address. Pure: every read of guest memory
 * goes through a callback, so the host unit tests (tests/unit/test_guest_walk.c)
 * and the fuzzer (tests/fuzz/fuzz_mmio.c) hand it any tables they like.
 *
 * The tables are the guest's and may be hostile. A walk reads at most one
 * entry per level (five at most), so a table that points at itself ends;
 * every address it computes is masked to MAXPHYADDR before the callback
 * sees it; and it dereferences nothing the guest chose.
 *
 * Checked: the present bit at every level; the reserved bits of every entry
 * that matter for the mode (MAXPHYADDR, XD without EFER.NXE, PS in a PML5E or
 * PML4E, the low bits of a 2 MiB / 1 GiB / 4 MiB page's address, the PAE
 * PDPTE's reserved bits); canonical addresses in long mode; and, only when
 * asked (GW_ACCESS_*), U/S, R/W (with CR0.WP) and XD as the SDM's 4.6 gives
 * them for an ordinary (not implicit supervisor) access.
 *
 * Not checked: SMEP, SMAP, protection keys, CET shadow stacks, HLAT, and
 * LAM's masking of the high bits; whether the CPU supports 1 GiB pages (a
 * PDPTE with PS set always maps one). Accessed and dirty bits are not set:
 * the walk repeats a translation the CPU already made. PSE-36 (the 4 MiB
 * page's physical bits 39:32 in PDE bits 20:13) is decoded.
 */
#ifndef TEMPO_HV_GUEST_WALK_H
#define TEMPO_HV_GUEST_WALK_H

#include <stdbool.h>
#include <stdint.h>

/* Control bits the walk reads (SDM Vol. 3A 2.5, 2.2.1) */
#define GW_CR0_WP		(1ull << 16)
#define GW_CR0_PG		(1ull << 31)
#define GW_CR4_PSE		(1ull << 4)
#define GW_CR4_PAE		(1ull << 5)
#define GW_CR4_LA57		(1ull << 12)
#define GW_EFER_LMA		(1ull << 10)
#define GW_EFER_NXE		(1ull << 11)

/* Paging-structure entry bits (SDM Vol. 3A 4.3-4.5) */
#define GW_PTE_P		(1ull << 0)
#define GW_PTE_RW		(1ull << 1)
#define GW_PTE_US		(1ull << 2)
#define GW_PTE_PS		(1ull << 7)
#define GW_PTE_XD		(1ull << 63)

#define GW_PAGE_4K		0x1000ull
#define GW_PAGE_2M		0x200000ull
#define GW_PAGE_4M		0x400000ull
#define GW_PAGE_1G		0x40000000ull

/* The guest's paging state, from the VMCS guest-state area. */
struct guest_paging {
	uint64_t cr0, cr3, cr4, efer;
	/*
	 * The CPU's MAXPHYADDR (CPUID 0x80000008 EAX[7:0]); 0 means 52, and the
	 * value is clamped to 32..52.
	 */
	uint8_t maxphyaddr;
	/*
	 * PAE paging only: with EPT the CPU keeps the four PDPTEs in the VMCS
	 * (GUEST_PDPTE0-3) and does not read them again at CR3 (SDM Vol. 3C
	 * 28.4.1); set pdpte_valid to walk with those. Otherwise the walk reads
	 * them from CR3[31:5].
	 */
	bool pdpte_valid;
	uint64_t pdpte[4];
};

/* How the CPU translates, from CR0.PG, CR4.PAE, CR4.LA57 and EFER.LMA. */
enum gw_mode {
	GW_MODE_NONE,		/* CR0.PG = 0: linear = physical */
	GW_MODE_32,		/* 32-bit paging: 4 KiB, 4 MiB with CR4.PSE */
	GW_MODE_PAE,		/* 4 KiB and 2 MiB pages, 32-bit linear addresses */
	GW_MODE_4LEVEL,		/* 4 KiB, 2 MiB, 1 GiB; 48-bit canonical */
	GW_MODE_5LEVEL,		/* as 4-level with a PML5; 57-bit canonical */
};

enum gw_result {
	GW_OK,
	GW_NOT_PRESENT,		/* the entry at .level has P = 0 */
	GW_RESERVED,		/* the entry at .level has a reserved bit set */
	GW_NOT_CANONICAL,	/* long mode, and the address is not canonical */
	GW_TABLE_NOT_RAM,	/* the entry at .level (at .gpa) is not in guest RAM */
	GW_PROTECTION,		/* translated, but the GW_ACCESS_* asked for is not allowed */
	GW_PAGE_NOT_RAM,	/* guest_fetch only: the page at .gpa is not guest RAM */
};

/* What the access is, for the permission checks (0: none are made). */
#define GW_ACCESS_WRITE		(1u << 0)
#define GW_ACCESS_USER		(1u << 1)	/* CPL 3 */
#define GW_ACCESS_FETCH		(1u << 2)

/* The outcome of one translation. */
struct gw_walk {
	enum gw_result result;
	/*
	 * The entry the walk ended at: 1 PTE, 2 PDE, 3 PDPTE, 4 PML4E, 5 PML5E
	 * (32-bit paging: 2 PDE, 1 PTE); 0 with paging off or not canonical.
	 */
	uint8_t level;
	/*
	 * GW_OK, GW_PROTECTION: the guest-physical address. GW_TABLE_NOT_RAM:
	 * the address of the entry that could not be read. GW_PAGE_NOT_RAM: the
	 * address that could not be read. Otherwise 0.
	 */
	uint64_t gpa;
	/* GW_OK, GW_PROTECTION: the size of the page (4 KiB with paging off) */
	uint64_t page_bytes;
	/* The last entry read: the leaf, or the one that is not present or reserved */
	uint64_t entry;
};

/* The guest's memory: the only way the walk reads it. */
struct guest_mem {
	/*
	 * Copy [gpa, gpa + len) of guest RAM to dst; false (and nothing
	 * copied that counts) when any of it is not guest RAM or gpa + len wraps.
	 */
	bool (*read)(void *ctx, uint64_t gpa, void *dst, uint32_t len);
	void *ctx;
};

enum gw_mode guest_paging_mode(const struct guest_paging *pg);

/*
 * Translate @linear (a 32-bit mode's address is truncated to 32 bits, as the
 * CPU does), checking the permissions @access asks for. Fills *@w and
 * returns w->result.
 */
enum gw_result guest_walk(const struct guest_paging *pg, const struct guest_mem *mem,
			  uint64_t linear, uint32_t access, struct gw_walk *w);

/*
 * Read up to @len bytes at @linear into @buf (an instruction: the caller
 * passes X86_INSN_MAX_BYTES and GW_ACCESS_FETCH, with GW_ACCESS_USER at
 * CPL 3), translating every 4 KiB page on its own. Returns the bytes read,
 * which may be fewer than @len: an instruction may end before a page that
 * is not present. *@stop (may be NULL) says why the read stopped, GW_OK
 * when it did not; .gpa and .level are those of the page it stopped at.
 * Bytes of @buf past the count returned are undefined.
 *
 * The linear address wraps at 4 GiB outside long mode. In long mode it is
 * not wrapped at 4 GiB for compatibility-mode code (an instruction that
 * crosses 4 GiB there is not supported).
 */
uint32_t guest_fetch(const struct guest_paging *pg, const struct guest_mem *mem, uint64_t linear,
		     uint32_t access, uint8_t *buf, uint32_t len, struct gw_walk *stop);

/*
 * A PAE PDPTE the CPU refuses: present with a reserved bit set (SDM Vol. 3A
 * Table 4-8: bits 2:1, 8:5 and 63:MAXPHYADDR; the PDPTE has no R/W, U/S or
 * XD). Loading one is #GP(0) on MOV to CR0/CR3/CR4; with EPT, one in the
 * VMCS fails VM entry (SDM Vol. 3C 26.3.1.6). @maxphyaddr as in
 * struct guest_paging (0 means 52).
 */
bool gw_pdpte_reserved(uint64_t pdpte, uint8_t maxphyaddr);

/* A name for reports, e.g. "not-present" */
const char *gw_result_name(enum gw_result r);

#endif
