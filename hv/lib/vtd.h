/* SPDX-License-Identifier: MIT */
/*
 * Intel VT-d (Virtualization Technology for Directed I/O) in its legacy
 * (not scalable) mode: the register map, the in-memory formats the
 * hardware reads (root and context entries, second-level page tables,
 * interrupt-remapping table entries, queued-invalidation descriptors) and
 * what it writes (fault records), with the pure code that builds and
 * decodes them. The driver (drivers/vtd.c) does the MMIO; everything here
 * works on plain memory, so the host unit tests (tests/unit/test_vtd.c)
 * check it without hardware. It lives in hv/lib, not hv/core, because the
 * driver (a drivers/ file, which may not include hv/core) needs it.
 *
 * References: Intel Virtualization Technology for Directed I/O,
 * Architecture Specification, revision 4.0 (the "VT-d spec" below):
 * 3.4.2-3.4.3 (root and context entries), 3.6 and 9.8 (second-level
 * paging entries), 5.1.2 and 9.10 (interrupt remapping table entries),
 * 5.1.3-5.1.4 (the remappable MSI address), 6.5 (invalidation), 7.1-7.2
 * and 11.4.14 (fault records), 11.4 (the registers), appendix A (fault
 * reasons).
 */
#ifndef TEMPO_HV_LIB_VTD_H
#define TEMPO_HV_LIB_VTD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define VTD_PAGE_SIZE		4096u
#define VTD_PAGE_MASK		(~(uint64_t)0xfff)

/* ---- registers (VT-d spec 11.4), offsets from the unit's base ---- */

#define VTD_REG_VER		0x00	/* 32: version, major 7:4, minor 3:0 */
#define VTD_REG_CAP		0x08	/* 64 */
#define VTD_REG_ECAP		0x10	/* 64 */
#define VTD_REG_GCMD		0x18	/* 32: global command */
#define VTD_REG_GSTS		0x1c	/* 32: global status */
#define VTD_REG_RTADDR		0x20	/* 64: root table address */
#define VTD_REG_CCMD		0x28	/* 64: context command */
#define VTD_REG_FSTS		0x34	/* 32: fault status */
#define VTD_REG_FECTL		0x38	/* 32: fault event control */
#define VTD_REG_FEDATA		0x3c
#define VTD_REG_FEADDR		0x40
#define VTD_REG_FEUADDR		0x44
#define VTD_REG_PMEN		0x64	/* 32: protected memory enable */
#define VTD_REG_IQH		0x80	/* 64: invalidation queue head */
#define VTD_REG_IQT		0x88	/* 64: invalidation queue tail */
#define VTD_REG_IQA		0x90	/* 64: invalidation queue address */
#define VTD_REG_ICS		0x9c	/* 32: invalidation completion status */
#define VTD_REG_IRTA		0xb8	/* 64: interrupt remapping table address */
/* The IOTLB registers sit at ECAP.IRO * 16: IVA at +0, IOTLB at +8. */
#define VTD_REG_IOTLB_OFF	0x08
/* The fault recording registers at CAP.FRO * 16, 16 bytes each. */
#define VTD_FRR_BYTES		16

/* CAP (11.4.2) */
#define VTD_CAP_ND(c)		((unsigned int)((c) & 7))		/* domain-id bits: 4 + 2 * ND */
#define VTD_CAP_RWBF		(1ull << 4)	/* write-buffer flush required */
#define VTD_CAP_PLMR		(1ull << 5)
#define VTD_CAP_PHMR		(1ull << 6)
#define VTD_CAP_CM		(1ull << 7)	/* caching mode: not-present entries are cached */
#define VTD_CAP_SAGAW(c)	((unsigned int)(((c) >> 8) & 0x1f))	/* bit 1: 3 levels, 2: 4, 3: 5 */
#define VTD_CAP_MGAW(c)		((unsigned int)(((c) >> 16) & 0x3f) + 1)
#define VTD_CAP_FRO(c)		((unsigned int)(((c) >> 24) & 0x3ff) * 16)
#define VTD_CAP_SLLPS(c)	((unsigned int)(((c) >> 34) & 0xf))	/* bit 0: 2 MiB, 1: 1 GiB */
#define VTD_CAP_PSI		(1ull << 39)
#define VTD_CAP_NFR(c)		((unsigned int)(((c) >> 40) & 0xff) + 1)
#define VTD_CAP_PI		(1ull << 59)	/* posted interrupts */

/* ECAP (11.4.3) */
#define VTD_ECAP_C		(1ull << 0)	/* page walks snoop the CPU caches */
#define VTD_ECAP_QI		(1ull << 1)	/* queued invalidation */
#define VTD_ECAP_DT		(1ull << 2)	/* device TLBs (ATS) */
#define VTD_ECAP_IR		(1ull << 3)	/* interrupt remapping */
#define VTD_ECAP_EIM		(1ull << 4)	/* 32-bit (x2APIC) destinations */
#define VTD_ECAP_PT		(1ull << 6)	/* pass-through */
#define VTD_ECAP_SC		(1ull << 7)	/* snoop control */
#define VTD_ECAP_IRO(e)		((unsigned int)(((e) >> 8) & 0x3ff) * 16)
#define VTD_ECAP_SMTS		(1ull << 43)	/* scalable mode */

/* GCMD and GSTS: the same bit names a command and its status (11.4.4-5). */
#define VTD_GCMD_TE		(1u << 31)	/* translation enable */
#define VTD_GCMD_SRTP		(1u << 30)	/* set root table pointer (one shot) */
#define VTD_GCMD_SFL		(1u << 29)
#define VTD_GCMD_EAFL		(1u << 28)
#define VTD_GCMD_WBF		(1u << 27)	/* write buffer flush (one shot) */
#define VTD_GCMD_QIE		(1u << 26)	/* queued invalidation enable */
#define VTD_GCMD_IRE		(1u << 25)	/* interrupt remapping enable */
#define VTD_GCMD_SIRTP		(1u << 24)	/* set IR table pointer (one shot) */
#define VTD_GCMD_CFI		(1u << 23)	/* let compatibility-format interrupts through */
/* GSTS bits that are states (a GCMD write must carry them to keep them). */
#define VTD_GSTS_STATES		(VTD_GCMD_TE | VTD_GCMD_QIE | VTD_GCMD_IRE | VTD_GCMD_CFI)

/* CCMD (11.4.6): register-based context-cache invalidation. */
#define VTD_CCMD_ICC		(1ull << 63)
#define VTD_CCMD_GLOBAL		(1ull << 61)
#define VTD_CCMD_DOMAIN		(2ull << 61)
#define VTD_CCMD_DEVICE		(3ull << 61)
#define VTD_CCMD_CAIG(v)	(((v) >> 59) & 3)	/* granularity done; 0: refused */

/* IOTLB (11.4.8.1): register-based IOTLB invalidation. */
#define VTD_IOTLB_IVT		(1ull << 63)
#define VTD_IOTLB_GLOBAL	(1ull << 60)
#define VTD_IOTLB_DOMAIN	(2ull << 60)
#define VTD_IOTLB_DR		(1ull << 49)	/* drain reads */
#define VTD_IOTLB_DW		(1ull << 48)	/* drain writes */
#define VTD_IOTLB_IAIG(v)	(((v) >> 57) & 3)

/* FSTS (11.4.9) */
#define VTD_FSTS_PFO		(1u << 0)	/* primary fault overflow */
#define VTD_FSTS_PPF		(1u << 1)	/* primary pending fault (a record's F) */
#define VTD_FSTS_IQE		(1u << 4)	/* invalidation queue error */
#define VTD_FSTS_ICE		(1u << 5)
#define VTD_FSTS_ITE		(1u << 6)
#define VTD_FSTS_FRI(s)		(((s) >> 8) & 0xff)	/* first record to look at */
#define VTD_FSTS_W1C		(VTD_FSTS_PFO | VTD_FSTS_IQE | VTD_FSTS_ICE | VTD_FSTS_ITE | \
				 (1u << 2) | (1u << 3))

/* FECTL (11.4.10) */
#define VTD_FECTL_IM		(1u << 31)	/* fault event interrupt masked */

/* IQA (11.4.13.3): 4 KiB pages of 16-byte descriptors, 2^QS pages. */
#define VTD_IQA_QS(log2_pages)	((uint64_t)(log2_pages) & 7)
#define VTD_QI_DESC_BYTES	16

/* IRTA (11.4.16): table address, EIME, size 2^(S + 1) entries. */
#define VTD_IRTA_EIME		(1ull << 11)
#define VTD_IRTA_S_MAX		15		/* 65,536 entries */

/* ---- capabilities, decoded ---- */

struct vtd_caps {
	uint8_t ver_major, ver_minor;
	uint8_t domain_id_bits;		/* 4 + 2 * ND */
	uint8_t sagaw;			/* CAP.SAGAW */
	uint8_t mgaw_bits;		/* widest DMA address translated */
	uint8_t sllps;			/* bit 0: 2 MiB, bit 1: 1 GiB second-level pages */
	bool caching_mode;		/* CM */
	bool rwbf;
	bool psi;
	bool posted;			/* PI */
	uint16_t fault_reg_off;		/* FRO * 16 */
	uint16_t fault_reg_count;	/* NFR + 1 */
	uint16_t iotlb_reg_off;		/* IRO * 16 */
	bool coherent;			/* ECAP.C */
	bool qi, ir, eim, pt, dt, sc, scalable;
};

void vtd_caps_decode(uint32_t ver, uint64_t cap, uint64_t ecap, struct vtd_caps *out);

/*
 * Can Tempo drive this unit (its register set @reg_bytes long)? 0, or -1
 * with the reason in @why: a version before 1.0, no page-table depth
 * Tempo builds (3 or 4 levels), fault or IOTLB registers outside the
 * register set, no fault register.
 */
int vtd_caps_usable(const struct vtd_caps *c, uint32_t reg_bytes, char *why, size_t why_len);

/*
 * The page-table levels (3: 39-bit, 4: 48-bit addresses) for a domain
 * whose DMA addresses need @addr_bits bits, on a unit with SAGAW @sagaw:
 * the fewest that cover it; 0 when none does.
 */
unsigned int vtd_pick_levels(unsigned int sagaw, unsigned int addr_bits);

/* ---- root and context entries (3.4.2, 3.4.3, 9.1, 9.3) ---- */

struct vtd_entry128 {
	uint64_t lo, hi;
};

#define VTD_ROOT_ENTRIES	256	/* one per bus */
#define VTD_CTX_ENTRIES		256	/* one per device and function */

#define VTD_ENTRY_P		(1ull << 0)
#define VTD_CTX_FPD		(1ull << 1)	/* fault processing disable */
#define VTD_CTX_TT_SLPT		(0ull << 2)	/* untranslated requests, second-level table */
#define VTD_CTX_TT_MASK		(3ull << 2)
#define VTD_CTX_AW(levels)	((uint64_t)((levels) - 2))	/* 1: 3 levels, 2: 4 levels */
#define VTD_CTX_DID_SHIFT	8			/* in hi */

/* A present root entry naming the bus's context table. */
struct vtd_entry128 vtd_root_entry(uint64_t context_table_phys);

/*
 * A present context entry: untranslated DMA through the second-level
 * table at @slpt_phys with @levels levels, tagged with domain @did; fault
 * records on (FPD clear).
 */
struct vtd_entry128 vtd_context_entry(uint64_t slpt_phys, unsigned int levels, uint16_t did);

/* ---- second-level page tables (3.6, 9.8) ---- */

#define VTD_PTE_R		(1ull << 0)
#define VTD_PTE_W		(1ull << 1)
#define VTD_PTE_PS		(1ull << 7)	/* a 2 MiB or 1 GiB page */
#define VTD_PTE_ADDR		0x000ffffffffff000ull	/* bits 51:12 */
#define VTD_PTE_ENTRIES		512

/* What a mapping lets the device do. */
#define VTD_PERM_READ		1u
#define VTD_PERM_WRITE		2u
#define VTD_PERM_RW		(VTD_PERM_READ | VTD_PERM_WRITE)

/*
 * Pages for the tables, from the caller: the hypervisor's page pool, or the
 * heap in the host tests. @alloc returns a zeroed 4 KiB page and its
 * physical address (NULL when none is left); @phys_to_virt reaches a table
 * the hardware names by its physical address; @flush (may be NULL) writes
 * [p, p + len) back to memory, for a unit whose page walks do not snoop
 * the caches (ECAP.C clear).
 */
struct vtd_pt_ops {
	void *(*alloc)(void *ctx, uint64_t *phys);
	void *(*phys_to_virt)(void *ctx, uint64_t phys);
	void (*flush)(void *ctx, const void *p, size_t len);
	void *ctx;
};

struct vtd_slpt {
	const struct vtd_pt_ops *ops;
	uint64_t *root;			/* the top table */
	uint64_t root_phys;
	uint8_t levels;			/* 3 or 4 */
	uint8_t sllps;			/* large pages the units allow (CAP.SLLPS) */
	uint8_t hpa_bits;		/* host addresses must be below 2^hpa_bits */
	uint32_t tables;		/* pages taken, the root included */
};

enum vtd_err {
	VTD_OK = 0,
	VTD_EINVAL = -1,		/* misaligned, empty, wrapping, too wide, no access */
	VTD_EEXIST = -2,		/* part of the range is mapped already */
	VTD_ENOMEM = -3,		/* the allocator ran out (what was mapped stays) */
};

/* Take the root table. VTD_OK, VTD_EINVAL (@levels not 3 or 4) or VTD_ENOMEM. */
int vtd_slpt_init(struct vtd_slpt *pt, const struct vtd_pt_ops *ops, unsigned int levels,
		  unsigned int sllps, unsigned int hpa_bits);

/*
 * Map DMA addresses [@iova, @iova + @size) to [@hpa, @hpa + @size) with
 * @perm (VTD_PERM_*), the largest pages the alignment and the units allow.
 * 4 KiB aligned, non-empty, no wrap, @iova below 2^(12 + 9 * levels), @hpa
 * below 2^hpa_bits. A range that meets an existing mapping is refused
 * whole (VTD_EEXIST) before anything is written: a second mapping never
 * replaces the first silently.
 */
int vtd_slpt_map(struct vtd_slpt *pt, uint64_t iova, uint64_t hpa, uint64_t size,
		 unsigned int perm);

/*
 * The hardware's walk of @iova: VTD_OK with the host address, the
 * permissions and the page size (log2), or VTD_EINVAL when a device's
 * access there would fault.
 */
int vtd_slpt_translate(const struct vtd_slpt *pt, uint64_t iova, uint64_t *hpa,
		       unsigned int *perm, unsigned int *page_shift);

/* ---- interrupt remapping (5.1, 9.10) ---- */

struct vtd_irte_req {
	uint32_t dest_apic_id;		/* physical destination: an APIC id */
	uint8_t vector;
	bool level;			/* trigger mode; false: edge */
	uint16_t source_id;		/* the requester (bus, device, function) allowed */
	bool x2apic;			/* IRTA.EIME: 32-bit destination field */
};

#define VTD_IRTE_P		(1ull << 0)
#define VTD_IRTE_TM		(1ull << 4)
#define VTD_IRTE_VECTOR_SHIFT	16
#define VTD_IRTE_DST_SHIFT	32
#define VTD_IRTE_XAPIC_DST_SHIFT 40	/* xAPIC mode: the 8-bit id in bits 47:40 */
#define VTD_IRTE_SVT_SID	(1ull << 18)	/* in hi: the source-id must match exactly */

/*
 * A present, remapped-format (not posted) entry delivering @r->vector,
 * fixed, physical destination mode, to @r->dest_apic_id, and only for
 * requests from @r->source_id. VTD_EINVAL for a vector below 16 or an id
 * an xAPIC-mode table cannot name (above 255).
 */
int vtd_irte_remapped(const struct vtd_irte_req *r, struct vtd_entry128 *out);

/*
 * The remappable-format MSI address for table entry @index (5.1.5.2):
 * 0xFEE in 31:20, index 14:0 in 19:5, format bit 4, index 15 in bit 2,
 * no sub-handle; the data register is then 0.
 */
uint32_t vtd_msi_address(uint16_t index);

/* In a remappable MSI address: the data's low 16 bits are a sub-handle added to the index. */
#define VTD_MSI_ADDR_SHV	(1u << 3)

/*
 * The remappable-format MSI for entries @handle.. (5.1.5.2): format bit 4,
 * the handle, SHV set and sub-handle 0 in the data, so that message k of a
 * multiple-message function (which sets the data's low bits to k) selects
 * entry @handle + k.
 */
void vtd_msi_remappable(uint16_t handle, uint32_t *addr_lo, uint32_t *addr_hi, uint32_t *data);

/*
 * A message's interrupt-remapping view: true and the entry index for a
 * remappable-format address (with the sub-handle added when SHV is set),
 * false for a compatibility-format one.
 */
bool vtd_msi_index(uint32_t address, uint32_t data, uint16_t *index);

/* IRTA for a table at @phys of 2^@log2_entries entries (1..16). 0 if out of range. */
uint64_t vtd_irta(uint64_t phys, unsigned int log2_entries, bool x2apic);

/* ---- invalidation (6.5): register commands and queued descriptors ---- */

#define VTD_QI_CC		0x1	/* context-cache invalidate */
#define VTD_QI_IOTLB		0x2
#define VTD_QI_IEC		0x4	/* interrupt entry cache */
#define VTD_QI_WAIT		0x5
#define VTD_QI_WAIT_SW		(1ull << 5)	/* write status data to the address */
#define VTD_QI_WAIT_FN		(1ull << 6)	/* fence: later descriptors wait */

struct vtd_entry128 vtd_qi_context_global(void);
struct vtd_entry128 vtd_qi_iotlb_global(void);
struct vtd_entry128 vtd_qi_iotlb_domain(uint16_t did);
struct vtd_entry128 vtd_qi_iec_global(void);
/*
 * The interrupt entry cache's copy of entry @index alone (granularity
 * index-selective, index mask 0; VT-d 6.5.2.7): a rewritten entry does not
 * flush every other partition's cached entries with it.
 */
struct vtd_entry128 vtd_qi_iec_index(uint16_t index);
/* Write @data to @status_phys (4-byte aligned) once everything before has completed. */
struct vtd_entry128 vtd_qi_wait(uint64_t status_phys, uint32_t data);

/* ---- fault records (7.1, 11.4.14, appendix A) ---- */

struct vtd_fault {
	uint16_t source_id;		/* the requester: bus, device, function */
	uint8_t reason;			/* FR: appendix A */
	bool read;			/* the request was a read (T1 set) */
	bool interrupt;			/* an interrupt-remapping fault (reason 0x20-0x2f) */
	uint64_t addr;			/* DMA faults: the page address */
	uint16_t index;			/* interrupt faults: the entry index */
};

#define VTD_FRR_F		(1ull << 63)	/* in hi: the record holds a fault */

/* Decode one fault record (low and high quadwords). False when F is clear. */
bool vtd_fault_decode(uint64_t lo, uint64_t hi, struct vtd_fault *out);

/* The reason as one word for a result line ("write-denied"); "unknown" if not in appendix A. */
const char *vtd_fault_reason_name(uint8_t reason);

/*
 * The line a fault is reported with (docs/devices.md):
 * "DMA_FAULT partition=NAME bdf=BB:DD.F addr=0x... access=read|write reason=WORD"
 * or, for an interrupt request,
 * "IR_FAULT partition=NAME bdf=BB:DD.F index=N reason=WORD".
 * @partition NULL reads "none". Returns @buf, cut to @len and terminated.
 */
char *vtd_fault_line(const struct vtd_fault *f, const char *partition, char *buf, size_t len);

#endif
