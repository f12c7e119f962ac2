// SPDX-License-Identifier: MIT
#include "hv/core/guest_walk.h"
#include "hv/lib/lib.h"

/* One translation under way: the permissions gathered along the walk. */
struct walk {
	const struct guest_paging *pg;
	const struct guest_mem *mem;
	uint64_t linear;
	uint32_t access;
	bool all_rw, all_us, any_xd;
	struct gw_walk *w;
};

/* Bits @hi..@lo set; none when @lo > @hi (a MAXPHYADDR of 52 reserves nothing). */
static uint64_t bit_range(unsigned int hi, unsigned int lo)
{
	if (lo > hi || hi > 63)
		return 0;
	return (~0ull >> (63 - hi)) & (~0ull << lo);
}

static unsigned int phys_bits(const struct guest_paging *pg)
{
	unsigned int m = pg->maxphyaddr ? pg->maxphyaddr : 52;

	return m < 32 ? 32 : m > 52 ? 52 : m;
}

enum gw_mode guest_paging_mode(const struct guest_paging *pg)
{
	if (!(pg->cr0 & GW_CR0_PG))
		return GW_MODE_NONE;
	/* LMA = LME and PG: long mode always has PAE set (SDM Vol. 3A 4.1.1) */
	if (pg->efer & GW_EFER_LMA)
		return (pg->cr4 & GW_CR4_LA57) ? GW_MODE_5LEVEL : GW_MODE_4LEVEL;
	return (pg->cr4 & GW_CR4_PAE) ? GW_MODE_PAE : GW_MODE_32;
}

static enum gw_result stop_at(struct walk *s, enum gw_result r, unsigned int level,
			      uint64_t entry)
{
	s->w->result = r;
	s->w->level = (uint8_t)level;
	s->w->entry = entry;
	return r;
}

static bool read_entry(const struct walk *s, uint64_t gpa, uint32_t bytes, uint64_t *entry)
{
	uint8_t raw[8] = { 0 };

	if (!s->mem->read(s->mem->ctx, gpa, raw, bytes))
		return false;
	*entry = bytes == 4 ? rd32(raw) : rd64(raw);
	return true;
}

static enum gw_result table_not_ram(struct walk *s, unsigned int level, uint64_t gpa)
{
	s->w->gpa = gpa;
	return stop_at(s, GW_TABLE_NOT_RAM, level, 0);
}

/* The access rights of one entry combine with the others' (SDM Vol. 3A 4.6.1). */
static void note_rights(struct walk *s, uint64_t entry)
{
	s->all_rw &= !!(entry & GW_PTE_RW);
	s->all_us &= !!(entry & GW_PTE_US);
	/* XD is reserved, not ignored, without EFER.NXE: here it is known clear */
	s->any_xd |= !!(entry & GW_PTE_XD);
}

static bool rights_allow(const struct walk *s)
{
	bool user = s->access & GW_ACCESS_USER;

	if (user && !s->all_us)
		return false;
	/* a supervisor write ignores R/W unless CR0.WP is set (SDM Vol. 3A 4.6.1) */
	if ((s->access & GW_ACCESS_WRITE) && !s->all_rw && (user || (s->pg->cr0 & GW_CR0_WP)))
		return false;
	return !((s->access & GW_ACCESS_FETCH) && s->any_xd);
}

static enum gw_result leaf(struct walk *s, unsigned int level, uint64_t entry, uint64_t base,
			   uint64_t page_bytes)
{
	s->w->gpa = base | (s->linear & (page_bytes - 1));
	s->w->page_bytes = page_bytes;
	return stop_at(s, rights_allow(s) ? GW_OK : GW_PROTECTION, level, entry);
}

/*
 * The 64-bit entries from @level down to the PTE: 4-level and 5-level
 * paging from the PML5 or PML4, PAE paging from the page directory. @reserved
 * is what every entry of the mode reserves.
 */
static enum gw_result walk_tables(struct walk *s, uint64_t table, unsigned int top,
				  uint64_t reserved)
{
	uint64_t addr_mask = bit_range(phys_bits(s->pg) - 1, 12);

	for (unsigned int level = top; level > 0; level--) {
		unsigned int shift = 12 + 9 * (level - 1);
		uint64_t gpa = table + ((s->linear >> shift) & 0x1ff) * 8;
		uint64_t entry, bad = reserved;

		if (!read_entry(s, gpa, 8, &entry))
			return table_not_ram(s, level, gpa);
		if (!(entry & GW_PTE_P))
			return stop_at(s, GW_NOT_PRESENT, level, entry);
		if (level >= 4)
			bad |= GW_PTE_PS;	/* PML4E, PML5E (SDM Vol. 3A Table 4-15) */
		else if (level > 1 && (entry & GW_PTE_PS))
			bad |= bit_range(shift - 1, 13);	/* 1 GiB: 29:13, 2 MiB: 20:13 */
		if (entry & bad)
			return stop_at(s, GW_RESERVED, level, entry);
		note_rights(s, entry);
		if (level == 1 || (entry & GW_PTE_PS))
			return leaf(s, level, entry, entry & addr_mask & ~((1ull << shift) - 1),
				    1ull << shift);
		table = entry & addr_mask;
	}
	return stop_at(s, GW_RESERVED, 0, 0);	/* not reached: level 1 is a leaf */
}

static uint64_t xd_reserved(const struct guest_paging *pg)
{
	return (pg->efer & GW_EFER_NXE) ? 0 : GW_PTE_XD;
}

bool gw_pdpte_reserved(uint64_t pdpte, uint8_t maxphyaddr)
{
	struct guest_paging pg = { .maxphyaddr = maxphyaddr };
	unsigned int m = phys_bits(&pg);

	/* Table 4-8: 63:M, 8:5 and 2:1 (the PDPTE has no R/W, U/S or XD) */
	return (pdpte & GW_PTE_P) &&
	       (pdpte & (bit_range(63, m) | bit_range(8, 5) | bit_range(2, 1)));
}

/* PAE paging: four PDPTEs at CR3[31:5], then 2-level tables (SDM Vol. 3A 4.4) */
static enum gw_result walk_pae(struct walk *s)
{
	const struct guest_paging *pg = s->pg;
	unsigned int m = phys_bits(pg), index = (s->linear >> 30) & 3;
	uint64_t pdpte;

	if (pg->pdpte_valid) {
		pdpte = pg->pdpte[index];
	} else {
		uint64_t gpa = (pg->cr3 & 0xffffffe0u) + index * 8;

		if (!read_entry(s, gpa, 8, &pdpte))
			return table_not_ram(s, 3, gpa);
	}
	if (!(pdpte & GW_PTE_P))
		return stop_at(s, GW_NOT_PRESENT, 3, pdpte);
	if (gw_pdpte_reserved(pdpte, pg->maxphyaddr))
		return stop_at(s, GW_RESERVED, 3, pdpte);
	return walk_tables(s, pdpte & bit_range(m - 1, 12), 2,
			   bit_range(62, m) | xd_reserved(pg));
}

/* 32-bit paging: a PDE, a 4 MiB page (CR4.PSE) or a PTE (SDM Vol. 3A 4.3) */
static enum gw_result walk_32(struct walk *s)
{
	unsigned int m40 = MIN(phys_bits(s->pg), 40u);
	uint64_t gpa = (s->pg->cr3 & 0xfffff000u) + ((s->linear >> 22) & 0x3ff) * 4;
	uint64_t pde, pte;

	if (!read_entry(s, gpa, 4, &pde))
		return table_not_ram(s, 2, gpa);
	if (!(pde & GW_PTE_P))
		return stop_at(s, GW_NOT_PRESENT, 2, pde);
	note_rights(s, pde);
	if ((s->pg->cr4 & GW_CR4_PSE) && (pde & GW_PTE_PS)) {
		/* Table 4-4: bits 20:13 are physical 39:32 (PSE-36), 21:(M-19) reserved */
		if (pde & bit_range(21, m40 - 19))
			return stop_at(s, GW_RESERVED, 2, pde);
		return leaf(s, 2, pde, (pde & 0xffc00000u) | ((pde >> 13) & 0xff) << 32,
			    GW_PAGE_4M);
	}
	gpa = (pde & 0xfffff000u) + ((s->linear >> 12) & 0x3ff) * 4;
	if (!read_entry(s, gpa, 4, &pte))
		return table_not_ram(s, 1, gpa);
	if (!(pte & GW_PTE_P))
		return stop_at(s, GW_NOT_PRESENT, 1, pte);
	note_rights(s, pte);
	return leaf(s, 1, pte, pte & 0xfffff000u, GW_PAGE_4K);
}

enum gw_result guest_walk(const struct guest_paging *pg, const struct guest_mem *mem,
			  uint64_t linear, uint32_t access, struct gw_walk *w)
{
	enum gw_mode mode = guest_paging_mode(pg);
	struct walk s = {
		.pg = pg, .mem = mem, .linear = linear, .access = access,
		.all_rw = true, .all_us = true, .any_xd = false, .w = w,
	};

	memset(w, 0, sizeof(*w));
	if (mode == GW_MODE_4LEVEL || mode == GW_MODE_5LEVEL) {
		unsigned int width = mode == GW_MODE_5LEVEL ? 57 : 48;
		uint64_t top = linear >> (width - 1);

		/* bits 63:width-1 all equal (SDM Vol. 1 3.3.7.1) */
		if (top != 0 && top != ~0ull >> (width - 1))
			return stop_at(&s, GW_NOT_CANONICAL, 0, 0);
	} else {
		s.linear = linear & 0xffffffffu;
	}

	switch (mode) {
	case GW_MODE_NONE:
		w->gpa = s.linear;
		w->page_bytes = GW_PAGE_4K;
		return stop_at(&s, GW_OK, 0, 0);
	case GW_MODE_32:
		return walk_32(&s);
	case GW_MODE_PAE:
		return walk_pae(&s);
	case GW_MODE_4LEVEL:
	case GW_MODE_5LEVEL:
		break;
	}
	return walk_tables(&s, pg->cr3 & bit_range(phys_bits(pg) - 1, 12),
			   mode == GW_MODE_5LEVEL ? 5 : 4,
			   bit_range(51, phys_bits(pg)) | xd_reserved(pg));
}

uint32_t guest_fetch(const struct guest_paging *pg, const struct guest_mem *mem, uint64_t linear,
		     uint32_t access, uint8_t *buf, uint32_t len, struct gw_walk *stop)
{
	struct gw_walk w, unused;
	uint32_t done = 0;

	if (!stop)
		stop = &unused;
	memset(stop, 0, sizeof(*stop));
	while (done < len) {
		/* outside long mode guest_walk() wraps this at 4 GiB */
		uint64_t at = linear + done;
		uint32_t chunk = (uint32_t)(GW_PAGE_4K - (at & (GW_PAGE_4K - 1)));

		chunk = MIN(chunk, len - done);
		/* each 4 KiB page on its own: the next may be mapped elsewhere, or not at all */
		if (guest_walk(pg, mem, at, access, &w) != GW_OK) {
			*stop = w;
			return done;
		}
		if (!mem->read(mem->ctx, w.gpa, buf + done, chunk)) {
			*stop = w;
			stop->result = GW_PAGE_NOT_RAM;
			return done;
		}
		*stop = w;
		done += chunk;
	}
	return done;
}

const char *gw_result_name(enum gw_result r)
{
	static const char *const names[] = {
		[GW_OK] = "ok",
		[GW_NOT_PRESENT] = "not-present",
		[GW_RESERVED] = "reserved-bit",
		[GW_NOT_CANONICAL] = "not-canonical",
		[GW_TABLE_NOT_RAM] = "table-not-ram",
		[GW_PROTECTION] = "protection",
		[GW_PAGE_NOT_RAM] = "page-not-ram",
	};

	return (unsigned int)r < ARRAY_SIZE(names) ? names[r] : "?";
}
