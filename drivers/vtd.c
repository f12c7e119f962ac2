// SPDX-License-Identifier: MIT
/*
 * The VT-d driver (drivers/vtd.h): the units' registers and the order in
 * which they are programmed. References are to the VT-d specification
 * (hv/lib/vtd.h names the revision).
 */
#include "drivers/vtd.h"

#include "hv/lib/fmt.h"
#include "hv/lib/lib.h"
#include "hv/lib/log.h"
#include "hv/lib/x86.h"

/*
 * How long to wait for a unit to act on a command, in reads of its status
 * register. Hardware acts within microseconds; this bounds a broken unit
 * at some seconds rather than hanging the boot.
 */
#define VTD_SPIN_LIMIT		50000000u

#define IQ_ENTRIES		(VTD_PAGE_SIZE / VTD_QI_DESC_BYTES)

struct vtd_unit {
	volatile uint8_t *regs;
	uint64_t reg_phys;
	uint32_t reg_bytes;
	uint16_t segment;
	struct vtd_caps caps;
	struct vtd_entry128 *root;	/* 256 root entries, one per bus */
	struct vtd_entry128 *ctx[VTD_ROOT_ENTRIES];	/* context tables, made on demand */
	struct vtd_entry128 *iq;	/* invalidation queue (NULL: register-based) */
	uint32_t iq_tail;
	volatile uint32_t *iq_status;	/* where wait descriptors write */
	uint64_t iq_status_phys;
	uint32_t iq_seq;
};

struct vtd_domain {
	bool used;
	char name[32];
	struct vtd_slpt pt;
};

static struct {
	struct acpi_dmar dmar;
	struct vtd_env env;
	uint32_t unit_count;
	struct vtd_unit units[VTD_MAX_UNITS];
	uint8_t levels;			/* the domains' table depth: all units take it */
	uint8_t sllps;			/* large pages every unit allows */
	uint8_t mgaw_bits;		/* the narrowest unit's widest DMA address */
	bool caching_mode;		/* some unit caches absent entries */
	struct vtd_domain domains[VTD_MAX_DOMAINS];
	struct vtd_entry128 *irt;	/* the interrupt-remapping table, shared */
	uint64_t irt_phys;
} vtd;

/* ---- registers ---- */

static uint32_t reg_rd32(const struct vtd_unit *u, uint32_t off)
{
	return *(volatile uint32_t *)(u->regs + off);
}

static uint64_t reg_rd64(const struct vtd_unit *u, uint32_t off)
{
	return *(volatile uint64_t *)(u->regs + off);
}

static void reg_wr32(const struct vtd_unit *u, uint32_t off, uint32_t v)
{
	*(volatile uint32_t *)(u->regs + off) = v;
}

static void reg_wr64(const struct vtd_unit *u, uint32_t off, uint64_t v)
{
	*(volatile uint64_t *)(u->regs + off) = v;
}

/* Tables in memory are written before the register write that names them. */
static void wmb(void)
{
	asm volatile("sfence" ::: "memory");
}

static void flush(const void *p, size_t len)
{
	if (vtd.env.pages.flush)
		vtd.env.pages.flush(vtd.env.pages.ctx, p, len);
}

/* Write a 128-bit entry whose present bit is in @lo: @hi first (VT-d spec 6.1). */
static void entry_write(struct vtd_entry128 *e, struct vtd_entry128 v)
{
	volatile uint64_t *q = (volatile uint64_t *)e;

	q[0] = 0;
	wmb();
	q[1] = v.hi;
	wmb();
	q[0] = v.lo;
	flush(e, sizeof(*e));
	wmb();
}

static int fail(char *err, size_t errlen, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static int fail(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fmt_vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
	return -1;
}

/* Wait until (GSTS & @bit) == @want. */
static bool gsts_wait(const struct vtd_unit *u, uint32_t bit, bool want)
{
	for (uint32_t i = 0; i < VTD_SPIN_LIMIT; i++) {
		if (!!(reg_rd32(u, VTD_REG_GSTS) & bit) == want)
			return true;
		cpu_relax();
	}
	return false;
}

/*
 * One global command: the states already on (and only those: writing a
 * one-shot status bit back would run that command again, 10.4.4) with
 * @bit set or cleared, then wait for GSTS to show it.
 */
static bool gcmd(const struct vtd_unit *u, uint32_t bit, bool on, bool one_shot)
{
	uint32_t sts = reg_rd32(u, VTD_REG_GSTS) & VTD_GSTS_STATES;

	reg_wr32(u, VTD_REG_GCMD, on ? sts | bit : sts & ~bit);
	/* a one-shot command's status bit shows it done (RTPS, IRTPS) or busy (WBFS) */
	if (one_shot && bit == VTD_GCMD_WBF)
		return gsts_wait(u, bit, false);
	return gsts_wait(u, bit, on);
}

static void write_buffer_flush(const struct vtd_unit *u)
{
	if (u->caps.rwbf)
		gcmd(u, VTD_GCMD_WBF, true, true);
}

/* ---- invalidation ---- */

/* Queue @n descriptors and a wait, and wait for it (6.5.2). */
static bool qi_submit(struct vtd_unit *u, const struct vtd_entry128 *d, uint32_t n)
{
	uint32_t seq = ++u->iq_seq;

	*u->iq_status = 0;
	flush((const void *)u->iq_status, sizeof(*u->iq_status));
	for (uint32_t i = 0; i <= n; i++) {
		struct vtd_entry128 e = i < n ? d[i] : vtd_qi_wait(u->iq_status_phys, seq);

		u->iq[u->iq_tail] = e;
		flush(&u->iq[u->iq_tail], sizeof(e));
		u->iq_tail = (u->iq_tail + 1) % IQ_ENTRIES;
	}
	wmb();
	reg_wr64(u, VTD_REG_IQT, (uint64_t)u->iq_tail * VTD_QI_DESC_BYTES);
	for (uint32_t i = 0; i < VTD_SPIN_LIMIT; i++) {
		if (*u->iq_status == seq)
			return true;
		if (reg_rd32(u, VTD_REG_FSTS) & VTD_FSTS_IQE) {
			log_err("VT-d: unit at 0x%lx: invalidation queue error (head 0x%lx)\n",
				u->reg_phys, reg_rd64(u, VTD_REG_IQH));
			reg_wr32(u, VTD_REG_FSTS, VTD_FSTS_IQE);
			return false;
		}
		cpu_relax();
	}
	log_err("VT-d: unit at 0x%lx: an invalidation did not complete\n", u->reg_phys);
	return false;
}

static bool reg_invalidate(const struct vtd_unit *u, uint32_t off, uint64_t cmd, uint64_t busy)
{
	reg_wr64(u, off, cmd);
	for (uint32_t i = 0; i < VTD_SPIN_LIMIT; i++) {
		if (!(reg_rd64(u, off) & busy))
			return true;
		cpu_relax();
	}
	log_err("VT-d: unit at 0x%lx: register invalidation 0x%lx did not complete\n",
		u->reg_phys, cmd);
	return false;
}

/* Context cache, then IOTLB (the order 6.5.3.3 asks), global or one domain (@did != 0). */
static bool invalidate(struct vtd_unit *u, bool context, uint16_t did)
{
	write_buffer_flush(u);
	if (u->iq) {
		struct vtd_entry128 d[2];
		uint32_t n = 0;

		if (context)
			d[n++] = vtd_qi_context_global();
		d[n++] = did ? vtd_qi_iotlb_domain(did) : vtd_qi_iotlb_global();
		return qi_submit(u, d, n);
	}
	if (context && !reg_invalidate(u, VTD_REG_CCMD, VTD_CCMD_ICC | VTD_CCMD_GLOBAL,
				       VTD_CCMD_ICC))
		return false;
	return reg_invalidate(u, u->caps.iotlb_reg_off + VTD_REG_IOTLB_OFF,
			      VTD_IOTLB_IVT | VTD_IOTLB_DR | VTD_IOTLB_DW |
			      (did ? VTD_IOTLB_DOMAIN | (uint64_t)did << 32 : VTD_IOTLB_GLOBAL),
			      VTD_IOTLB_IVT);
}

/* @index < 0: the whole interrupt entry cache; else that entry's copy alone */
static bool iec_invalidate(struct vtd_unit *u, int index)
{
	struct vtd_entry128 d = index < 0 ? vtd_qi_iec_global() : vtd_qi_iec_index((uint16_t)index);

	return qi_submit(u, &d, 1);
}

/* ---- set-up ---- */

static void *page(uint64_t *phys)
{
	return vtd.env.pages.alloc(vtd.env.pages.ctx, phys);
}

static void report_unit(uint32_t i, const struct vtd_unit *u)
{
	const struct vtd_caps *c = &u->caps;

	log_info("VT-d: unit %u at 0x%lx (segment %u): version %u.%u, SAGAW 0x%x, MGAW %u, "
		 "%u-bit domain ids, %u fault record%s, large pages%s%s%s, %s invalidation, "
		 "interrupt remapping %s%s, caching mode %s, page walks %s\n", i, u->reg_phys,
		 u->segment, c->ver_major, c->ver_minor, c->sagaw, c->mgaw_bits,
		 c->domain_id_bits, c->fault_reg_count, c->fault_reg_count == 1 ? "" : "s",
		 c->sllps & 1 ? " 2M" : "", c->sllps & 2 ? " 1G" : "", c->sllps ? "" : " none",
		 c->qi ? "queued" : "register", c->ir ? "yes" : "no",
		 c->ir ? (c->eim ? " (x2APIC)" : " (xAPIC only)") : "",
		 c->caching_mode ? "on" : "off", c->coherent ? "snooped" : "not snooped");
}

static int unit_init(uint32_t i, const struct acpi_dmar_unit *d, char *err, size_t errlen)
{
	struct vtd_unit *u = &vtd.units[i];
	char why[128];
	uint64_t phys;
	uint32_t fsts;

	memset(u, 0, sizeof(*u));
	u->reg_phys = d->reg_phys;
	u->reg_bytes = d->reg_bytes;
	u->segment = d->segment;
	u->regs = vtd.env.map_regs ? vtd.env.map_regs(d->reg_phys, d->reg_bytes) : NULL;
	if (!u->regs)
		return fail(err, errlen, "VT-d: unit at 0x%lx: its registers cannot be mapped",
			    d->reg_phys);
	vtd_caps_decode(reg_rd32(u, VTD_REG_VER), reg_rd64(u, VTD_REG_CAP), reg_rd64(u, VTD_REG_ECAP),
			&u->caps);
	report_unit(i, u);
	if (vtd_caps_usable(&u->caps, u->reg_bytes, why, sizeof(why)))
		return fail(err, errlen, "VT-d: unit at 0x%lx: %s", u->reg_phys, why);
	if (reg_rd32(u, VTD_REG_GSTS) & VTD_GCMD_TE)
		log_warn("VT-d: unit at 0x%lx: firmware left translation on; its tables are "
			 "replaced by Tempo's (DMA not attached to a domain is blocked)\n",
			 u->reg_phys);

	u->root = page(&phys);
	if (!u->root)
		return fail(err, errlen, "VT-d: no page for unit %u's root table", i);
	flush(u->root, VTD_PAGE_SIZE);
	wmb();
	reg_wr64(u, VTD_REG_RTADDR, phys);	/* legacy-mode root table (TTM 00) */
	if (!gcmd(u, VTD_GCMD_SRTP, true, true))
		return fail(err, errlen, "VT-d: unit at 0x%lx did not take its root table",
			    u->reg_phys);

	if (u->caps.qi) {
		u->iq = page(&phys);
		u->iq_status = page(&u->iq_status_phys);
		if (!u->iq || !u->iq_status)
			return fail(err, errlen, "VT-d: no page for unit %u's invalidation queue", i);
		/* the queue must be off to take a new base, and then starts at 0 (10.4.23) */
		if (reg_rd32(u, VTD_REG_GSTS) & VTD_GCMD_QIE)
			gcmd(u, VTD_GCMD_QIE, false, false);
		reg_wr64(u, VTD_REG_IQT, 0);
		reg_wr64(u, VTD_REG_IQA, phys | VTD_IQA_QS(0));
		if (!gcmd(u, VTD_GCMD_QIE, true, false))
			return fail(err, errlen, "VT-d: unit at 0x%lx did not start queued "
				    "invalidation", u->reg_phys);
	}
	if (!invalidate(u, true, 0))
		return fail(err, errlen, "VT-d: unit at 0x%lx: the first invalidation failed",
			    u->reg_phys);

	/* faults are polled (vtd_poll_faults): the event interrupt stays masked */
	reg_wr32(u, VTD_REG_FECTL, VTD_FECTL_IM);
	for (uint32_t r = 0; r < u->caps.fault_reg_count; r++)
		reg_wr32(u, u->caps.fault_reg_off + r * VTD_FRR_BYTES + 12, 1u << 31);
	fsts = reg_rd32(u, VTD_REG_FSTS);
	reg_wr32(u, VTD_REG_FSTS, fsts & VTD_FSTS_W1C);
	return 0;
}

int vtd_init(const struct acpi_dmar *dmar, const struct vtd_env *env, char *err, size_t errlen)
{
	uint8_t sagaw = 0x1f, sllps = 3, mgaw = 64;
	bool cm = false, coherent = true;

	memset(&vtd, 0, sizeof(vtd));
	if (!dmar || !dmar->unit_count || !env || !env->pages.alloc || !env->pages.phys_to_virt)
		return fail(err, errlen, "VT-d: no DMAR units, or no page allocator");
	vtd.dmar = *dmar;
	vtd.env = *env;
	for (uint32_t i = 0; i < dmar->unit_count && i < VTD_MAX_UNITS; i++) {
		if (unit_init(i, &dmar->units[i], err, errlen)) {
			vtd.unit_count = 0;
			return -1;
		}
		sagaw &= vtd.units[i].caps.sagaw;
		sllps &= vtd.units[i].caps.sllps;
		mgaw = MIN(mgaw, vtd.units[i].caps.mgaw_bits);
		cm |= vtd.units[i].caps.caching_mode;
		coherent &= vtd.units[i].caps.coherent;
	}
	/* every unit snoops its page walks: tables need no flush from here on */
	if (coherent)
		vtd.env.pages.flush = NULL;
	/* four levels where every unit walks them: partitions' RAM from 4 GiB may pass 512 GiB */
	vtd.levels = (sagaw & 4) ? 4 : (sagaw & 2) ? 3 : 0;
	if (!vtd.levels)
		return fail(err, errlen, "VT-d: the units share no page-table depth (SAGAW "
			    "0x%x in common)", sagaw);
	vtd.sllps = sllps;
	vtd.mgaw_bits = mgaw;
	vtd.caching_mode = cm;
	vtd.unit_count = dmar->unit_count;
	log_info("VT-d: %u unit%s ready: %u-level tables, DMA addresses below 2^%u, host "
		 "addresses below 2^%u%s\n", vtd.unit_count, vtd.unit_count == 1 ? "" : "s",
		 vtd.levels, MIN(mgaw, 12 + 9 * vtd.levels), dmar->host_addr_width,
		 cm ? ", caching mode" : "");
	return 0;
}

uint32_t vtd_unit_count(void)
{
	return vtd.unit_count;
}

bool vtd_units_have_eim(void)
{
	for (uint32_t i = 0; i < vtd.unit_count; i++)
		if (!vtd.units[i].caps.eim)
			return false;
	return vtd.unit_count > 0;
}

int vtd_enable(char *err, size_t errlen)
{
	for (uint32_t i = 0; i < vtd.unit_count; i++)
		if (!gcmd(&vtd.units[i], VTD_GCMD_TE, true, false))
			return fail(err, errlen, "VT-d: unit at 0x%lx did not turn translation on",
				    vtd.units[i].reg_phys);
	return vtd.unit_count ? 0 : fail(err, errlen, "VT-d: not initialised");
}

/* ---- domains ---- */

static struct vtd_domain *domain(int dom)
{
	if (dom < 0 || dom >= VTD_MAX_DOMAINS || !vtd.domains[dom].used)
		return NULL;
	return &vtd.domains[dom];
}

/* Domain ids from 1: with caching mode, 0 is the hardware's own (6.2.3.1). */
static uint16_t did_of(int dom)
{
	return (uint16_t)(dom + 1);
}

int vtd_domain_create(const char *name)
{
	for (int i = 0; i < VTD_MAX_DOMAINS; i++) {
		struct vtd_domain *d = &vtd.domains[i];

		if (d->used)
			continue;
		if (!vtd.unit_count ||
		    vtd_slpt_init(&d->pt, &vtd.env.pages, vtd.levels, vtd.sllps,
				  vtd.dmar.host_addr_width) != VTD_OK)
			return -1;
		d->used = true;
		fmt_snprintf(d->name, sizeof(d->name), "%s", name ? name : "?");
		return i;
	}
	return -1;
}

struct vtd_slpt *vtd_domain_table(int dom)
{
	struct vtd_domain *d = domain(dom);

	return d ? &d->pt : NULL;
}

void vtd_domain_sync(int dom)
{
	/*
	 * New entries only: without caching mode the hardware never cached
	 * their absence (6.1); with it (QEMU's caching-mode=on, or a
	 * virtual IOMMU) it may have, so the domain's IOTLB goes.
	 */
	for (uint32_t i = 0; i < vtd.unit_count; i++) {
		write_buffer_flush(&vtd.units[i]);
		if (vtd.units[i].caps.caching_mode)
			invalidate(&vtd.units[i], false, did_of(dom));
	}
}

int vtd_domain_map(int dom, uint64_t gpa, uint64_t hpa, uint64_t size, unsigned int perm)
{
	struct vtd_domain *d = domain(dom);
	int ret;

	if (!d)
		return VTD_EINVAL;
	if (gpa >= (1ull << vtd.mgaw_bits) || size > (1ull << vtd.mgaw_bits) - gpa)
		return VTD_EINVAL;
	ret = vtd_slpt_map(&d->pt, gpa, hpa, size, perm);
	if (ret == VTD_OK)
		vtd_domain_sync(dom);
	return ret;
}

/* The unit that translates @bdf, and its context entry (the table made if @make). */
static struct vtd_entry128 *context_of(uint16_t segment, uint16_t bdf, bool make,
				       struct vtd_unit **unit)
{
	int i = acpi_dmar_unit_of(&vtd.dmar, segment, bdf, &vtd.env.bridges);
	struct vtd_unit *u;
	uint8_t bus = (uint8_t)(bdf >> 8);

	if (i < 0 || (uint32_t)i >= vtd.unit_count)
		return NULL;
	u = &vtd.units[i];
	*unit = u;
	if (!u->ctx[bus]) {
		uint64_t phys;

		if (!make)
			return NULL;
		u->ctx[bus] = page(&phys);
		if (!u->ctx[bus])
			return NULL;
		flush(u->ctx[bus], VTD_PAGE_SIZE);
		entry_write(&u->root[bus], vtd_root_entry(phys));
	}
	return &u->ctx[bus][bdf & 0xff];
}

static const char *domain_name_of_did(uint16_t did)
{
	int dom = (int)did - 1;

	return domain(dom) ? vtd.domains[dom].name : NULL;
}

int vtd_attach(int dom, uint16_t segment, uint16_t bdf, char *err, size_t errlen)
{
	struct vtd_domain *d = domain(dom);
	struct vtd_unit *u = NULL;
	struct vtd_entry128 *ce;
	int r;

	if (!d)
		return fail(err, errlen, "VT-d: no domain %d", dom);
	if (acpi_dmar_unit_of(&vtd.dmar, segment, bdf, &vtd.env.bridges) < 0)
		return fail(err, errlen, "VT-d: %04x:%02x:%02x.%x: no remapping unit covers it, "
			    "so its DMA cannot be confined", segment, bdf >> 8, (bdf >> 3) & 31,
			    bdf & 7);
	r = acpi_dmar_rmrr_of(&vtd.dmar, segment, bdf, &vtd.env.bridges);
	if (r >= 0)
		return fail(err, errlen, "VT-d: %04x:%02x:%02x.%x: firmware still DMAs to "
			    "0x%lx-0x%lx for it (RMRR): Tempo does not assign such a function",
			    segment, bdf >> 8, (bdf >> 3) & 31, bdf & 7, vtd.dmar.rmrrs[r].base,
			    vtd.dmar.rmrrs[r].limit);
	ce = context_of(segment, bdf, true, &u);
	if (!ce)
		return fail(err, errlen, "VT-d: no page for a context table");
	if (ce->lo & VTD_ENTRY_P)
		return fail(err, errlen, "VT-d: %04x:%02x:%02x.%x is already attached to '%s'",
			    segment, bdf >> 8, (bdf >> 3) & 31, bdf & 7,
			    domain_name_of_did((uint16_t)(ce->hi >> VTD_CTX_DID_SHIFT)) ?: "?");
	entry_write(ce, vtd_context_entry(d->pt.root_phys, d->pt.levels, did_of(dom)));
	/* absent to present: only a unit in caching mode may have cached the absence */
	if (u->caps.caching_mode || u->caps.rwbf)
		invalidate(u, true, 0);
	return 0;
}

int vtd_detach(uint16_t segment, uint16_t bdf, char *err, size_t errlen)
{
	struct vtd_unit *u = NULL;
	struct vtd_entry128 *ce = context_of(segment, bdf, false, &u);

	if (!ce || !(ce->lo & VTD_ENTRY_P))
		return fail(err, errlen, "VT-d: %04x:%02x:%02x.%x is not attached", segment,
			    bdf >> 8, (bdf >> 3) & 31, bdf & 7);
	entry_write(ce, (struct vtd_entry128){ 0, 0 });
	/* present to absent: every cached copy must go before the caller reuses the memory */
	if (!invalidate(u, true, 0))
		return fail(err, errlen, "VT-d: unit at 0x%lx: invalidation after detach failed",
			    u->reg_phys);
	return 0;
}

/* ---- interrupt remapping ---- */

/*
 * Interrupt remapping off again on the first @n units, after a later one
 * failed: half the units remapping would block the compatibility-format
 * IOAPIC entries Tempo then writes for the inputs behind them.
 */
static void ir_undo(uint32_t n)
{
	for (uint32_t i = 0; i < n && i < vtd.unit_count; i++)
		gcmd(&vtd.units[i], VTD_GCMD_IRE, false, false);
}

int vtd_ir_enable(bool x2apic, char *err, size_t errlen)
{
	uint64_t irta;

	if (!vtd.unit_count)
		return fail(err, errlen, "VT-d: not initialised");
	for (uint32_t i = 0; i < vtd.unit_count; i++) {
		const struct vtd_caps *c = &vtd.units[i].caps;

		/* IEC invalidation exists only as a queued descriptor (6.5.2.7) */
		if (!c->ir || !c->qi || (x2apic && !c->eim))
			return fail(err, errlen, "VT-d: unit at 0x%lx has no interrupt remapping%s",
				    vtd.units[i].reg_phys, !c->ir ? "" : !c->qi ?
				    " usable (no queued invalidation)" : " with x2APIC (EIM)");
	}
	if (!vtd.irt) {
		vtd.irt = page(&vtd.irt_phys);
		if (!vtd.irt)
			return fail(err, errlen, "VT-d: no page for the interrupt-remapping table");
		flush(vtd.irt, VTD_PAGE_SIZE);
	}
	irta = vtd_irta(vtd.irt_phys, 8, x2apic);
	for (uint32_t i = 0; i < vtd.unit_count; i++) {
		struct vtd_unit *u = &vtd.units[i];

		wmb();
		reg_wr64(u, VTD_REG_IRTA, irta);
		if (!gcmd(u, VTD_GCMD_SIRTP, true, true) || !iec_invalidate(u, -1))
			return fail(err, errlen, "VT-d: unit at 0x%lx did not take its "
				    "interrupt-remapping table", u->reg_phys);
		if (!gcmd(u, VTD_GCMD_IRE, true, false)) {
			ir_undo(i);
			return fail(err, errlen, "VT-d: unit at 0x%lx did not turn interrupt "
				    "remapping on", u->reg_phys);
		}
		/*
		 * Compatibility format is blocked only with CFI clear (5.1.2.1).
		 * Tempo never sets it, but firmware or an earlier kernel may have,
		 * and gcmd writes back the states GSTS shows: clear it here and
		 * read both back, or interrupts are not confined at all.
		 */
		if ((reg_rd32(u, VTD_REG_GSTS) & VTD_GCMD_CFI) && !gcmd(u, VTD_GCMD_CFI, false, false)) {
			ir_undo(i + 1);
			return fail(err, errlen, "VT-d: unit at 0x%lx keeps compatibility-format "
				    "interrupts on (GSTS.CFIS)", u->reg_phys);
		}
		if ((reg_rd32(u, VTD_REG_GSTS) & (VTD_GCMD_IRE | VTD_GCMD_CFI)) != VTD_GCMD_IRE) {
			ir_undo(i + 1);
			return fail(err, errlen, "VT-d: unit at 0x%lx: GSTS 0x%x after interrupt "
				    "remapping went on (IRES set, CFIS clear wanted)", u->reg_phys,
				    reg_rd32(u, VTD_REG_GSTS));
		}
	}
	return 0;
}

bool vtd_ir_confined(void)
{
	for (uint32_t i = 0; i < vtd.unit_count; i++)
		if ((reg_rd32(&vtd.units[i], VTD_REG_GSTS) & (VTD_GCMD_IRE | VTD_GCMD_CFI)) !=
		    VTD_GCMD_IRE)
			return false;
	return vtd.unit_count > 0;
}

static int irte_write(uint16_t index, struct vtd_entry128 e)
{
	volatile uint64_t *q;

	if (!vtd.irt || index >= VTD_IRT_ENTRIES)
		return VTD_EINVAL;
	q = (volatile uint64_t *)&vtd.irt[index];
	/* unchanged (a guest rewriting its MSI-X entry): no store, no invalidation */
	if (q[0] == e.lo && q[1] == e.hi)
		return VTD_OK;
	/*
	 * A live entry that stays live with the same source-id (its upper
	 * half) changes in one 64-bit store: the clear-first write would leave
	 * it not present for a moment, and a message the device sends then is a
	 * fault that stops its partition. The unit sees the old or the new
	 * entry, each whole, until the invalidation below.
	 */
	if ((q[0] & VTD_IRTE_P) && (e.lo & VTD_IRTE_P) && q[1] == e.hi) {
		q[0] = e.lo;
		flush((const void *)q, sizeof(struct vtd_entry128));
		wmb();
	} else {
		entry_write(&vtd.irt[index], e);
	}
	for (uint32_t i = 0; i < vtd.unit_count; i++)
		if (!iec_invalidate(&vtd.units[i], index))
			return VTD_EINVAL;
	return VTD_OK;
}

int vtd_irte_set(uint16_t index, const struct vtd_irte_req *req)
{
	struct vtd_entry128 e;

	if (vtd_irte_remapped(req, &e) != VTD_OK)
		return VTD_EINVAL;
	return irte_write(index, e);
}

int vtd_irte_clear(uint16_t index)
{
	return irte_write(index, (struct vtd_entry128){ 0, 0 });
}

/* ---- faults ---- */

/* The domain a requester's DMA goes through on unit @u: its context entry's DID. */
static const char *domain_of(const struct vtd_unit *u, uint16_t sid)
{
	const struct vtd_entry128 *t = u->ctx[sid >> 8];

	if (!t || !(t[sid & 0xff].lo & VTD_ENTRY_P))
		return NULL;
	return domain_name_of_did((uint16_t)(t[sid & 0xff].hi >> VTD_CTX_DID_SHIFT));
}

uint32_t vtd_poll_faults(vtd_fault_fn report, void *ctx)
{
	uint32_t total = 0;

	for (uint32_t i = 0; i < vtd.unit_count; i++) {
		struct vtd_unit *u = &vtd.units[i];
		uint32_t fsts = reg_rd32(u, VTD_REG_FSTS);
		uint32_t n = u->caps.fault_reg_count;
		uint32_t r = VTD_FSTS_FRI(fsts) % n;

		/* from the index FSTS gives, round the ring until a record is empty (7.2.1) */
		for (uint32_t k = 0; (fsts & VTD_FSTS_PPF) && k < n; k++, r = (r + 1) % n) {
			uint32_t off = u->caps.fault_reg_off + r * VTD_FRR_BYTES;
			uint64_t hi = reg_rd64(u, off + 8), lo = reg_rd64(u, off);
			struct vtd_fault f;

			if (!vtd_fault_decode(lo, hi, &f))
				break;
			/* F is write-1-to-clear; writing the top dword alone leaves the rest */
			reg_wr32(u, off + 12, 1u << 31);
			total++;
			if (report)
				report(ctx, i, &f, domain_of(u, f.source_id));
		}
		if (fsts & VTD_FSTS_PFO)
			log_warn("VT-d: unit %u: fault records overflowed: faults were lost\n", i);
		if (fsts & VTD_FSTS_W1C)
			reg_wr32(u, VTD_REG_FSTS, fsts & VTD_FSTS_W1C);
	}
	return total;
}
