// SPDX-License-Identifier: MIT
/*
 * VT-d's in-memory formats: building root and context entries, second-level
 * page tables, interrupt-remapping entries and invalidation descriptors,
 * and decoding fault records. No MMIO here (drivers/vtd.c does that).
 */
#include "hv/lib/vtd.h"

#include "hv/lib/fmt.h"
#include "hv/lib/lib.h"

void vtd_caps_decode(uint32_t ver, uint64_t cap, uint64_t ecap, struct vtd_caps *out)
{
	memset(out, 0, sizeof(*out));
	out->ver_major = (uint8_t)((ver >> 4) & 0xf);
	out->ver_minor = (uint8_t)(ver & 0xf);
	out->domain_id_bits = (uint8_t)(4 + 2 * VTD_CAP_ND(cap));
	out->sagaw = (uint8_t)VTD_CAP_SAGAW(cap);
	out->mgaw_bits = (uint8_t)VTD_CAP_MGAW(cap);
	out->sllps = (uint8_t)VTD_CAP_SLLPS(cap);
	out->caching_mode = cap & VTD_CAP_CM;
	out->rwbf = cap & VTD_CAP_RWBF;
	out->psi = cap & VTD_CAP_PSI;
	out->posted = cap & VTD_CAP_PI;
	out->fault_reg_off = (uint16_t)VTD_CAP_FRO(cap);
	out->fault_reg_count = (uint16_t)VTD_CAP_NFR(cap);
	out->iotlb_reg_off = (uint16_t)VTD_ECAP_IRO(ecap);
	out->coherent = ecap & VTD_ECAP_C;
	out->qi = ecap & VTD_ECAP_QI;
	out->ir = ecap & VTD_ECAP_IR;
	out->eim = ecap & VTD_ECAP_EIM;
	out->pt = ecap & VTD_ECAP_PT;
	out->dt = ecap & VTD_ECAP_DT;
	out->sc = ecap & VTD_ECAP_SC;
	out->scalable = ecap & VTD_ECAP_SMTS;
}

int vtd_caps_usable(const struct vtd_caps *c, uint32_t reg_bytes, char *why, size_t why_len)
{
	uint32_t frr_end = c->fault_reg_off + (uint32_t)c->fault_reg_count * VTD_FRR_BYTES;

	if (why_len)
		why[0] = 0;
	if (c->ver_major < 1) {
		fmt_snprintf(why, why_len, "version %u.%u (need 1.0 or later)", c->ver_major,
			     c->ver_minor);
		return -1;
	}
	if (!(c->sagaw & (2u | 4u))) {
		fmt_snprintf(why, why_len, "SAGAW 0x%x offers neither 3- nor 4-level tables",
			     c->sagaw);
		return -1;
	}
	if (!c->fault_reg_off || frr_end > reg_bytes) {
		fmt_snprintf(why, why_len, "fault recording registers at 0x%x (%u) lie outside "
			     "the %u-byte register set", c->fault_reg_off, c->fault_reg_count,
			     reg_bytes);
		return -1;
	}
	if (!c->iotlb_reg_off || c->iotlb_reg_off + 16u > reg_bytes) {
		fmt_snprintf(why, why_len, "IOTLB registers at 0x%x lie outside the %u-byte "
			     "register set", c->iotlb_reg_off, reg_bytes);
		return -1;
	}
	return 0;
}

unsigned int vtd_pick_levels(unsigned int sagaw, unsigned int addr_bits)
{
	/* SAGAW bit n: a (n + 2)-level table, 30 + 9 * n address bits (VT-d spec 11.4.2) */
	for (unsigned int levels = 3; levels <= 4; levels++)
		if ((sagaw & (1u << (levels - 2))) && addr_bits <= 12 + 9 * levels)
			return levels;
	return 0;
}

/* ---- root and context entries ---- */

struct vtd_entry128 vtd_root_entry(uint64_t context_table_phys)
{
	return (struct vtd_entry128){ .lo = (context_table_phys & VTD_PTE_ADDR) | VTD_ENTRY_P };
}

struct vtd_entry128 vtd_context_entry(uint64_t slpt_phys, unsigned int levels, uint16_t did)
{
	return (struct vtd_entry128){
		.lo = (slpt_phys & VTD_PTE_ADDR) | VTD_CTX_TT_SLPT | VTD_ENTRY_P,
		.hi = (uint64_t)did << VTD_CTX_DID_SHIFT | VTD_CTX_AW(levels),
	};
}

/* ---- second-level page tables ---- */

/* Bits of the address a table at @level (1: 4 KiB entries) indexes from. */
static unsigned int level_shift(unsigned int level)
{
	return 12 + 9 * (level - 1);
}

static unsigned int pt_index(uint64_t iova, unsigned int level)
{
	return (unsigned int)((iova >> level_shift(level)) & (VTD_PTE_ENTRIES - 1));
}

/* May a leaf sit at @level (1: 4 KiB, 2: 2 MiB, 3: 1 GiB)? */
static bool leaf_allowed(const struct vtd_slpt *pt, unsigned int level)
{
	return level == 1 || (level <= 3 && (pt->sllps & (1u << (level - 2))));
}

static void pt_flush(const struct vtd_slpt *pt, const void *p, size_t len)
{
	if (pt->ops->flush)
		pt->ops->flush(pt->ops->ctx, p, len);
}

int vtd_slpt_init(struct vtd_slpt *pt, const struct vtd_pt_ops *ops, unsigned int levels,
		  unsigned int sllps, unsigned int hpa_bits)
{
	memset(pt, 0, sizeof(*pt));
	if (levels < 3 || levels > 4 || !ops || !ops->alloc || !ops->phys_to_virt ||
	    hpa_bits < 12 || hpa_bits > 52)
		return VTD_EINVAL;
	pt->ops = ops;
	pt->levels = (uint8_t)levels;
	pt->sllps = (uint8_t)(sllps & 3);
	pt->hpa_bits = (uint8_t)hpa_bits;
	pt->root = ops->alloc(ops->ctx, &pt->root_phys);
	if (!pt->root || (pt->root_phys & ~VTD_PAGE_MASK)) {
		pt->root = NULL;
		return VTD_ENOMEM;
	}
	pt->tables = 1;
	return VTD_OK;
}

/* The table an entry points to; NULL if the entry is absent or a leaf. */
static uint64_t *next_table(const struct vtd_slpt *pt, uint64_t e)
{
	if (!(e & (VTD_PTE_R | VTD_PTE_W)) || (e & VTD_PTE_PS))
		return NULL;
	return pt->ops->phys_to_virt(pt->ops->ctx, e & VTD_PTE_ADDR);
}

/*
 * Is [iova, iova + size) unmapped under @table (at @level)? Only the
 * tables that exist are visited.
 */
static bool range_free(const struct vtd_slpt *pt, const uint64_t *table, unsigned int level,
		       uint64_t iova, uint64_t size)
{
	while (size) {
		uint64_t span = 1ull << level_shift(level);
		uint64_t in = span - (iova & (span - 1));
		uint64_t e = table[pt_index(iova, level)];
		uint64_t n = size < in ? size : in;

		if (e & (VTD_PTE_R | VTD_PTE_W)) {
			const uint64_t *next = level > 1 ? next_table(pt, e) : NULL;

			/* a leaf of any size, or a table with something in the range */
			if (!next || !range_free(pt, next, level - 1, iova, n))
				return false;
		}
		iova += n;
		size -= n;
	}
	return true;
}

static int map_range(struct vtd_slpt *pt, uint64_t *table, unsigned int level, uint64_t iova,
		     uint64_t hpa, uint64_t size, uint64_t leaf_bits)
{
	while (size) {
		uint64_t span = 1ull << level_shift(level);
		uint64_t in = span - (iova & (span - 1));
		uint64_t n = size < in ? size : in;
		unsigned int i = pt_index(iova, level);
		uint64_t *next;

		if (n == span && !((iova | hpa) & (span - 1)) && leaf_allowed(pt, level)) {
			table[i] = (hpa & VTD_PTE_ADDR) | leaf_bits | (level > 1 ? VTD_PTE_PS : 0);
			pt_flush(pt, &table[i], sizeof(table[i]));
		} else {
			next = next_table(pt, table[i]);
			if (!next) {
				uint64_t phys;

				next = pt->ops->alloc(pt->ops->ctx, &phys);
				if (!next || (phys & ~VTD_PAGE_MASK))
					return VTD_ENOMEM;
				pt->tables++;
				pt_flush(pt, next, VTD_PAGE_SIZE);
				/* a table lets through what its leaves allow (VT-d spec 3.6) */
				table[i] = (phys & VTD_PTE_ADDR) | VTD_PTE_R | VTD_PTE_W;
				pt_flush(pt, &table[i], sizeof(table[i]));
			}
			if (map_range(pt, next, level - 1, iova, hpa, n, leaf_bits))
				return VTD_ENOMEM;
		}
		iova += n;
		hpa += n;
		size -= n;
	}
	return VTD_OK;
}

int vtd_slpt_map(struct vtd_slpt *pt, uint64_t iova, uint64_t hpa, uint64_t size,
		 unsigned int perm)
{
	unsigned int width;
	uint64_t leaf = 0;

	if (!pt->root || !size || (iova | hpa | size) & ~VTD_PAGE_MASK ||
	    !(perm & VTD_PERM_RW) || (perm & ~VTD_PERM_RW))
		return VTD_EINVAL;
	width = level_shift(pt->levels) + 9;
	if (iova > UINT64_MAX - size || hpa > UINT64_MAX - size ||
	    iova + size > (1ull << width) || hpa + size > (1ull << pt->hpa_bits))
		return VTD_EINVAL;
	if (!range_free(pt, pt->root, pt->levels, iova, size))
		return VTD_EEXIST;
	if (perm & VTD_PERM_READ)
		leaf |= VTD_PTE_R;
	if (perm & VTD_PERM_WRITE)
		leaf |= VTD_PTE_W;
	return map_range(pt, pt->root, pt->levels, iova, hpa, size, leaf);
}

int vtd_slpt_translate(const struct vtd_slpt *pt, uint64_t iova, uint64_t *hpa,
		       unsigned int *perm, unsigned int *page_shift)
{
	const uint64_t *table = pt->root;
	unsigned int access = VTD_PERM_RW;

	if (!table || iova >> (level_shift(pt->levels) + 9))
		return VTD_EINVAL;
	for (unsigned int level = pt->levels; level >= 1; level--) {
		uint64_t e = table[pt_index(iova, level)];
		unsigned int shift = level_shift(level);

		/* R and W are the present bits; access is what every level allows */
		if (!(e & (VTD_PTE_R | VTD_PTE_W)))
			return VTD_EINVAL;
		if (!(e & VTD_PTE_R))
			access &= ~VTD_PERM_READ;
		if (!(e & VTD_PTE_W))
			access &= ~VTD_PERM_WRITE;
		if (level == 1 || (e & VTD_PTE_PS)) {
			if (level > 1 && !leaf_allowed(pt, level))
				return VTD_EINVAL;
			*hpa = (e & VTD_PTE_ADDR & ~((1ull << shift) - 1)) |
			       (iova & ((1ull << shift) - 1));
			*perm = access;
			*page_shift = shift;
			return VTD_OK;
		}
		table = pt->ops->phys_to_virt(pt->ops->ctx, e & VTD_PTE_ADDR);
		if (!table)
			return VTD_EINVAL;
	}
	return VTD_EINVAL;
}

/* ---- interrupt remapping ---- */

int vtd_irte_remapped(const struct vtd_irte_req *r, struct vtd_entry128 *out)
{
	uint64_t dst;

	/*
	 * vectors 0-15 are exceptions and reserved (SDM Vol. 3A 10.5.2); an
	 * 8-bit destination of 0xFF is the broadcast (SDM Vol. 3A 10.6.2.1)
	 */
	if (r->vector < 16 || (!r->x2apic && r->dest_apic_id >= 0xff))
		return VTD_EINVAL;
	dst = r->x2apic ? (uint64_t)r->dest_apic_id << VTD_IRTE_DST_SHIFT :
			  (uint64_t)r->dest_apic_id << VTD_IRTE_XAPIC_DST_SHIFT;
	/* fixed delivery (DLM 0), physical destination mode (DM 0), no redirection hint */
	out->lo = dst | (uint64_t)r->vector << VTD_IRTE_VECTOR_SHIFT |
		  (r->level ? VTD_IRTE_TM : 0) | VTD_IRTE_P;
	/* SQ 0: all 16 bits of the source-id compared */
	out->hi = VTD_IRTE_SVT_SID | r->source_id;
	return VTD_OK;
}

uint32_t vtd_msi_address(uint16_t index)
{
	return 0xfee00000u | (uint32_t)(index & 0x7fff) << 5 | 1u << 4 |
	       (uint32_t)(index >> 15) << 2;
}

void vtd_msi_remappable(uint16_t handle, uint32_t *addr_lo, uint32_t *addr_hi, uint32_t *data)
{
	*addr_lo = vtd_msi_address(handle) | VTD_MSI_ADDR_SHV;
	*addr_hi = 0;
	*data = 0;
}

bool vtd_msi_index(uint32_t address, uint32_t data, uint16_t *index)
{
	uint32_t i;

	if (!(address & (1u << 4)))
		return false;
	i = ((address >> 5) & 0x7fff) | ((address >> 2) & 1) << 15;
	/* SHV: the data's low 16 bits are a sub-handle added to the index */
	if (address & VTD_MSI_ADDR_SHV)
		i += data & 0xffff;
	*index = (uint16_t)i;
	return true;
}

uint64_t vtd_irta(uint64_t phys, unsigned int log2_entries, bool x2apic)
{
	if (log2_entries < 1 || log2_entries > VTD_IRTA_S_MAX + 1 || (phys & ~VTD_PAGE_MASK))
		return 0;
	return phys | (x2apic ? VTD_IRTA_EIME : 0) | (log2_entries - 1);
}

/* ---- invalidation descriptors (6.5.2) ---- */

struct vtd_entry128 vtd_qi_context_global(void)
{
	return (struct vtd_entry128){ .lo = 1ull << 4 | VTD_QI_CC };
}

struct vtd_entry128 vtd_qi_iotlb_global(void)
{
	/* drain reads and writes: nothing older may still use a stale translation */
	return (struct vtd_entry128){ .lo = 1ull << 7 | 1ull << 6 | 1ull << 4 | VTD_QI_IOTLB };
}

struct vtd_entry128 vtd_qi_iotlb_domain(uint16_t did)
{
	return (struct vtd_entry128){
		.lo = (uint64_t)did << 16 | 1ull << 7 | 1ull << 6 | 2ull << 4 | VTD_QI_IOTLB,
	};
}

struct vtd_entry128 vtd_qi_iec_global(void)
{
	return (struct vtd_entry128){ .lo = VTD_QI_IEC };
}

struct vtd_entry128 vtd_qi_iec_index(uint16_t index)
{
	return (struct vtd_entry128){ .lo = (uint64_t)index << 32 | 1ull << 4 | VTD_QI_IEC };
}

struct vtd_entry128 vtd_qi_wait(uint64_t status_phys, uint32_t data)
{
	return (struct vtd_entry128){
		.lo = (uint64_t)data << 32 | VTD_QI_WAIT_FN | VTD_QI_WAIT_SW | VTD_QI_WAIT,
		.hi = status_phys & ~3ull,
	};
}

/* ---- fault records ---- */

bool vtd_fault_decode(uint64_t lo, uint64_t hi, struct vtd_fault *out)
{
	memset(out, 0, sizeof(*out));
	if (!(hi & VTD_FRR_F))
		return false;
	out->source_id = (uint16_t)hi;
	out->reason = (uint8_t)(hi >> 32);
	out->read = hi & (1ull << 62);
	out->interrupt = out->reason >= 0x20 && out->reason <= 0x2f;
	if (out->interrupt)
		out->index = (uint16_t)(lo >> 48);	/* FI 63:48: the interrupt index */
	else
		out->addr = lo & VTD_PAGE_MASK;
	return true;
}

const char *vtd_fault_reason_name(uint8_t reason)
{
	static const char *const dma[] = {
		[0x1] = "root-not-present",
		[0x2] = "context-not-present",
		[0x3] = "context-invalid",
		[0x4] = "address-beyond-width",
		[0x5] = "write-denied",
		[0x6] = "read-denied",
		[0x7] = "table-pointer-invalid",
		[0x8] = "root-table-invalid",
		[0x9] = "context-table-invalid",
		[0xa] = "root-reserved-bits",
		[0xb] = "context-reserved-bits",
		[0xc] = "pte-reserved-bits",
		[0xd] = "translation-type-blocked",
	};
	static const char *const ir[] = {
		[0x0] = "request-reserved-bits",
		[0x1] = "index-beyond-table",
		[0x2] = "irte-not-present",
		[0x3] = "irt-access-error",
		[0x4] = "irte-reserved-bits",
		[0x5] = "compatibility-format-blocked",
		[0x6] = "source-id-mismatch",
	};

	if (reason < ARRAY_SIZE(dma) && dma[reason])
		return dma[reason];
	if (reason >= 0x20 && reason - 0x20 < (int)ARRAY_SIZE(ir))
		return ir[reason - 0x20];
	return "unknown";
}

char *vtd_fault_line(const struct vtd_fault *f, const char *partition, char *buf, size_t len)
{
	const char *who = partition ? partition : "none";

	if (f->interrupt)
		fmt_snprintf(buf, len, "IR_FAULT partition=%s bdf=%02x:%02x.%x index=%u reason=%s",
			     who, f->source_id >> 8, (f->source_id >> 3) & 0x1f,
			     f->source_id & 7, f->index, vtd_fault_reason_name(f->reason));
	else
		fmt_snprintf(buf, len, "DMA_FAULT partition=%s bdf=%02x:%02x.%x addr=0x%llx "
			     "access=%s reason=%s", who, f->source_id >> 8,
			     (f->source_id >> 3) & 0x1f, f->source_id & 7,
			     (unsigned long long)f->addr, f->read ? "read" : "write",
			     vtd_fault_reason_name(f->reason));
	return buf;
}
