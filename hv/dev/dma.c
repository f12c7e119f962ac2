// SPDX-License-Identifier: MIT
/*
 * A partition's DMA and interrupts behind VT-d (hv/dev/dma.h). The driver
 * (drivers/vtd.c) is not reentrant: after the boot its callers are the
 * console core's poll, under the console lock (the fault records only),
 * and the interrupt-remapping entries' writers, any CPU, under ir_lock
 * (the table and the invalidation queue only, which the poll does not
 * touch); the domains are built once, when the partitions are, and kept
 * across restarts (a restarted partition keeps its RAM, so its table
 * stays right).
 */
#include "hv/dev/dma.h"

#include "arch/x86/boot_layout.h"
#include "arch/x86/smp.h"
#include "drivers/ioapic.h"
#include "drivers/pci_cfg.h"
#include "hv/core/cmdline.h"
#include "hv/core/iommu_map.h"
#include "hv/core/irq_route.h"
#include "hv/core/pci_assign.h"
#include "hv/lib/fmt.h"
#include "hv/lib/lib.h"
#include "hv/lib/log.h"
#include "hv/lib/pci_defs.h"
#include "hv/lib/spin.h"
#include "hv/state/hooks.h"
#include "hv/state/pages.h"
#include "hv/state/partition.h"

/* Fault lines one poll prints at most; the rest are counted (a babbling device). */
#define DMA_FAULT_LINES_PER_POLL	8

static bool units_ready;	/* vtd_init took every unit */
static bool translating;	/* vtd_enable: unattached functions have no DMA */
static int domain_of[CONFIG_MAX_PARTITIONS];
static bool domain_set[CONFIG_MAX_PARTITIONS];
static bool requesters_alone[CONFIG_MAX_PARTITIONS];	/* part_requesters_alone */
static uint32_t lines_this_poll;
static uint64_t faults_unprinted;

/*
 * Interrupt remapping (dma_ir_start): whether it is on, with 32-bit
 * destinations, each IOAPIC's requester id from the DMAR, and the entry
 * each GSI's slot holds now (written only when it changes, so that
 * masking and unmasking an input on the exit path costs no invalidation).
 * The lock covers the slots and the driver's interrupt-entry calls, which
 * any CPU makes when its guest writes its virtual IOAPIC.
 */
static bool interrupts_remapped;
static bool irte_x2apic;
static uint16_t ioapic_source_id[IOAPIC_MAX];
static volatile uint32_t ir_lock;
static struct {
	bool live;
	struct vtd_irte_req irte;
} gsi_irte[DMA_IRTE_GSIS];
static uint32_t irte_next = DMA_IRTE_GSIS;	/* functions' blocks, from the GSIs' up */

static void *pool_page(void *ctx, uint64_t *phys)
{
	void *p = hv_pages_alloc(PAGE_SIZE, "VT-d tables");

	(void)ctx;
	*phys = (uint64_t)(uintptr_t)p;
	return p;
}

static void *phys_to_virt(void *ctx, uint64_t phys)
{
	(void)ctx;
	return phys < IDENTITY_MAP_LIMIT ? (void *)(uintptr_t)phys : NULL;
}

/* Write the lines back for a unit whose table walks do not snoop (ECAP.C clear). */
static void cache_flush(void *ctx, const void *p, size_t len)
{
	uintptr_t a = (uintptr_t)p & ~(uintptr_t)63;

	(void)ctx;
	for (; a < (uintptr_t)p + len; a += 64)
		asm volatile("clflush (%0)" : : "r"(a) : "memory");
	asm volatile("mfence" ::: "memory");
}

/* The boot page tables map the low 4 GiB uncached where it is not RAM: DRHD pages are there. */
static volatile void *map_regs(uint64_t phys, uint32_t bytes)
{
	if (phys >= IDENTITY_MAP_LIMIT || bytes > IDENTITY_MAP_LIMIT - phys)
		return NULL;
	return (volatile void *)(uintptr_t)phys;
}

static bool bridge_buses(void *ctx, uint16_t segment, uint16_t bdf, uint8_t *sec, uint8_t *sub)
{
	const struct pci_cfg_ops *cfg = ctx;

	if (segment || !cfg || (cfg->read(cfg->ctx, bdf, PCI_HEADER_TYPE, 1) & 0x7f) != 1)
		return false;
	*sec = (uint8_t)cfg->read(cfg->ctx, bdf, PCI_SECONDARY_BUS, 1);
	*sub = (uint8_t)cfg->read(cfg->ctx, bdf, PCI_SUBORDINATE_BUS, 1);
	return true;
}

void dma_vtd_env(struct vtd_env *env, void *(*alloc)(void *ctx, uint64_t *phys), void *ctx)
{
	*env = (struct vtd_env){
		.pages = { .alloc = alloc ? alloc : pool_page, .phys_to_virt = phys_to_virt,
			   .flush = cache_flush, .ctx = alloc ? ctx : NULL },
		.map_regs = map_regs,
		.bridges = { .buses = bridge_buses, .ctx = (void *)pci_boot_cfg() },
	};
}

/* The driver's reasons name it already ("VT-d: unit at ..."), as these lines do. */
static const char *vtd_why(const char *err)
{
	return strncmp(err, "VT-d: ", 6) ? err : err + 6;
}

void dma_boot(const struct acpi_info *ai, bool any_pci, const char *cmdline)
{
	struct vtd_env env;
	char err[160];

	if (!any_pci)
		return;
	if (cmdline_get(cmdline, "iommu", err, sizeof(err)) && !strcmp(err, "off")) {
		log_info("VT-d: off (iommu=off): assigned PCI functions keep bus mastering off "
			 "(programmed I/O only)\n");
		return;
	}
	if (!ai->has_dmar) {
		log_info("VT-d: no usable ACPI DMAR: assigned PCI functions keep bus mastering "
			 "off (programmed I/O only)\n");
		return;
	}
	dma_vtd_env(&env, NULL, NULL);
	if (vtd_init(&ai->dmar, &env, err, sizeof(err))) {
		log_err("VT-d: %s: assigned PCI functions keep bus mastering off (programmed "
			"I/O only)\n", vtd_why(err));
		return;
	}
	units_ready = true;
	if (dma_ir_start(&ai->dmar, err, sizeof(err))) {
		log_err("VT-d: interrupt remapping off: %s: assigned PCI functions keep bus "
			"mastering off (programmed I/O only)\n", vtd_why(err));
		return;
	}
	log_info("VT-d: interrupt remapping on (%s destinations, compatibility format "
		 "blocked): IOAPIC entries in remappable format\n",
		 irte_x2apic ? "32-bit x2APIC" : "8-bit xAPIC");
}

static const struct ioapic_chip *ioapic_of(uint32_t gsi, uint32_t *index)
{
	for (uint32_t i = 0; i < ioapic_count(); i++) {
		const struct ioapic_chip *c = ioapic_get(i);

		if (c->regs && gsi >= c->gsi_base && gsi - c->gsi_base < c->entries) {
			*index = i;
			return c;
		}
	}
	return NULL;
}

int dma_ir_start(const struct acpi_dmar *dmar, char *err, size_t errlen)
{
	struct vtd_env env;
	bool x2apic = vtd_units_have_eim();

	dma_vtd_env(&env, NULL, NULL);
	/* an IOAPIC's messages carry its source-id, which its IRTEs must name (5.1.5.1) */
	for (uint32_t i = 0; i < ioapic_count() && i < IOAPIC_MAX; i++) {
		const struct ioapic_chip *c = ioapic_get(i);

		if (!c->regs)
			continue;
		if (acpi_dmar_ioapic_unit(dmar, c->id, &env.bridges, &ioapic_source_id[i]) < 0) {
			fmt_snprintf(err, errlen, "IOAPIC id %u (GSIs %u-%u) is in no DMAR device "
				     "scope, so its messages could not be remapped", c->id,
				     c->gsi_base, c->gsi_base + c->entries - 1);
			return -1;
		}
		log_info("VT-d: IOAPIC id %u (GSIs %u-%u): requester %02x:%02x.%x\n", c->id,
			 c->gsi_base, c->gsi_base + c->entries - 1, ioapic_source_id[i] >> 8,
			 (ioapic_source_id[i] >> 3) & 31, ioapic_source_id[i] & 7);
		if (c->gsi_base + c->entries > DMA_IRTE_GSIS) {
			fmt_snprintf(err, errlen, "IOAPIC id %u has GSIs up to %u, past the %u "
				     "remapping entries kept for GSIs", c->id,
				     c->gsi_base + c->entries - 1, DMA_IRTE_GSIS);
			return -1;
		}
	}
	/*
	 * root mode's interrupts name x2APIC ids: an 8-bit table reaches only
	 * ids up to 254 (0xFF is the broadcast)
	 */
	for (uint32_t i = 0; i < smp_cpu_count && !x2apic; i++)
		if (smp_cpus[i].apic_id >= 0xff) {
			fmt_snprintf(err, errlen, "CPU %u has APIC id %u and the units have no "
				     "32-bit destinations (ECAP.EIM)", i, smp_cpus[i].apic_id);
			return -1;
		}
	if (vtd_ir_enable(x2apic, err, errlen))
		return -1;
	irte_x2apic = x2apic;
	memset(gsi_irte, 0, sizeof(gsi_irte));
	irte_next = DMA_IRTE_GSIS;
	interrupts_remapped = true;
	return 0;
}

bool dma_interrupts_remapped(void)
{
	return interrupts_remapped;
}

int dma_irte_block(uint32_t count)
{
	uint32_t first;

	if (!interrupts_remapped || !count || count > VTD_IRT_ENTRIES - irte_next)
		return -1;
	first = irte_next;
	irte_next += count;
	return (int)first;
}

bool dma_msi_remap(int first, uint32_t count, uint32_t index, uint32_t vectors, uint16_t bdf,
		   const struct irq_target *t, uint32_t msg[3])
{
	bool ok = true;

	if (!interrupts_remapped || first < 0 || index >= count || !vectors ||
	    vectors > count - index || (uint32_t)t->vector + vectors > 256)
		return false;
	spin_lock(&ir_lock);
	for (uint32_t k = 0; k < vectors && ok; k++) {
		struct vtd_irte_req irte = {
			.dest_apic_id = t->apic_id,
			.vector = (uint8_t)(t->vector + k),
			.source_id = bdf,
			.x2apic = irte_x2apic,
		};

		ok = vtd_irte_set((uint16_t)(first + index + k), &irte) == VTD_OK;
	}
	spin_unlock(&ir_lock);
	if (ok)
		vtd_msi_remappable((uint16_t)(first + index), &msg[0], &msg[1], &msg[2]);
	return ok;
}

void dma_irte_block_clear(int first, uint32_t count)
{
	if (!interrupts_remapped || first < 0)
		return;
	spin_lock(&ir_lock);
	for (uint32_t k = 0; k < count && first + k < VTD_IRT_ENTRIES; k++)
		vtd_irte_clear((uint16_t)(first + k));
	spin_unlock(&ir_lock);
}

static bool irte_same(const struct vtd_irte_req *a, const struct vtd_irte_req *b)
{
	return a->dest_apic_id == b->dest_apic_id && a->vector == b->vector &&
	       a->level == b->level && a->source_id == b->source_id && a->x2apic == b->x2apic;
}

bool dma_ioapic_rte_write(uint32_t gsi, uint64_t rte)
{
	struct vtd_irte_req irte;
	const struct ioapic_chip *c;
	uint32_t chip;
	uint64_t remapped;
	bool ok = true;

	if (!interrupts_remapped)
		return ioapic_rte_write(gsi, rte);
	c = ioapic_of(gsi, &chip);
	if (!c || gsi >= DMA_IRTE_GSIS)
		return false;
	spin_lock(&ir_lock);
	if (irq_rte_remap(rte, (uint16_t)gsi, ioapic_source_id[chip], irte_x2apic, &remapped,
			  &irte) && (!gsi_irte[gsi].live || !irte_same(&gsi_irte[gsi].irte, &irte))) {
		/* masked before its IRTE changes, so no message meets half of each */
		if (gsi_irte[gsi].live)
			ioapic_rte_write(gsi, ioapic_rte_read(gsi) | IOAPIC_RTE_MASKED);
		gsi_irte[gsi].live = false;
		if (vtd_irte_set((uint16_t)gsi, &irte) == VTD_OK) {
			gsi_irte[gsi].live = true;
			gsi_irte[gsi].irte = irte;
		} else {
			remapped |= IOAPIC_RTE_MASKED;
			ok = false;
		}
	}
	spin_unlock(&ir_lock);
	return ioapic_rte_write(gsi, remapped) && ok;
}

enum pci_dma_confinement dma_confinement(const struct partition *p)
{
	return pci_dma_confinement(units_ready, domain_set[p->id], translating,
				   interrupts_remapped, requesters_alone[p->id]);
}

/*
 * Whether @p's functions are alone in their requester ids
 * (pci_requesters_alone): against every other partition's functions in
 * @cfg and the IOAPICs' ids from the DMAR. @culprit: the first that is not.
 */
static bool part_requesters_alone(const struct partition *p, const struct hv_config *cfg,
				  uint16_t *culprit)
{
	const struct dev_assignment *d = &p->cfg->dev;
	uint16_t others[CONFIG_MAX_PARTITIONS * DEV_MAX_PCI];
	uint16_t reserved[IOAPIC_MAX];
	uint32_t m = 0, r = 0;

	for (uint32_t j = 0; j < cfg->partition_count; j++) {
		const struct dev_assignment *o = &cfg->partitions[j].dev;

		if (&cfg->partitions[j] == p->cfg)
			continue;
		for (uint32_t k = 0; k < o->pci_count && k < DEV_MAX_PCI; k++)
			others[m++] = o->pci[k];
	}
	for (uint32_t i = 0; interrupts_remapped && i < ioapic_count() && i < IOAPIC_MAX; i++)
		if (ioapic_get(i)->regs)
			reserved[r++] = ioapic_source_id[i];
	return pci_requesters_alone(d->pci, MIN(d->pci_count, (uint32_t)DEV_MAX_PCI), others, m,
				    reserved, r, culprit);
}

bool dma_confined(const struct partition *p)
{
	return dma_confinement(p) == PCI_DMA_CONFINED;
}

int dma_domain_for_ram(const char *name, uint64_t mem_size, uint64_t ram_hpa, char *err,
		       size_t errlen)
{
	int dom = vtd_domain_create(name);
	int ret;

	if (dom < 0) {
		fmt_snprintf(err, errlen, "no VT-d domain left (at most %u)", VTD_MAX_DOMAINS);
		return -1;
	}
	ret = iommu_map_partition_ram(vtd_domain_table(dom), mem_size, ram_hpa);
	vtd_domain_sync(dom);
	if (ret != VTD_OK) {
		fmt_snprintf(err, errlen, "its RAM (%lu MiB at 0x%lx) could not be mapped for DMA "
			     "(error %d)", mem_size >> 20, ram_hpa, ret);
		return -1;
	}
	return dom;
}

/*
 * The partition's functions in a domain of their own, and translation on
 * once the first is attached. A function the driver refuses (no unit
 * covers it, an RMRR names it) stops the boot with the key's line.
 */
static int dma_part_init(struct partition *p, const struct hv_config *cfg, char *err,
			 size_t errlen)
{
	const struct dev_assignment *d = &p->cfg->dev;
	char why[160];
	uint16_t culprit = 0;
	int dom;

	if (!units_ready || !d->pci_count)
		return 0;
	requesters_alone[p->id] = part_requesters_alone(p, cfg, &culprit);
	dom = dma_domain_for_ram(p->cfg->name, p->mem_size, p->mem_hpa, why, sizeof(why));
	if (dom < 0) {
		fmt_snprintf(err, errlen, "partition '%s': DMA: %s", p->cfg->name, why);
		return -1;
	}
	for (uint32_t i = 0; i < d->pci_count; i++) {
		uint16_t bdf = d->pci[i];

		if (vtd_attach(dom, 0, bdf, why, sizeof(why))) {
			fmt_snprintf(err, errlen, "partition '%s' (line %u): pci: %02x:%02x.%x: %s",
				     p->cfg->name, d->line[DEV_KEY_PCI], bdf >> 8, (bdf >> 3) & 31,
				     bdf & 7, why);
			return -1;
		}
	}
	if (!translating) {
		if (vtd_enable(why, sizeof(why))) {
			fmt_snprintf(err, errlen, "VT-d: %s", why);
			return -1;
		}
		translating = true;
	}
	domain_of[p->id] = dom;
	domain_set[p->id] = true;
	log_info("VT-d: partition '%s': DMA of its %u PCI function%s confined to its RAM "
		 "(domain %d); %s%s\n", p->cfg->name, d->pci_count, d->pci_count == 1 ? "" : "s",
		 dom, pci_dma_confinement_text(dma_confinement(p)),
		 dma_confined(p) ? "" : ": programmed I/O only");
	if (!requesters_alone[p->id])
		log_warn("VT-d: partition '%s': pci %02x:%02x.%x shares its bus with another "
			 "partition's function or has an IOAPIC's requester id: peer-to-peer DMA "
			 "and aliased interrupt messages are not excluded, so bus master stays off\n",
			 p->cfg->name, PCI_BDF_BUS(culprit), PCI_BDF_DEV(culprit),
			 PCI_BDF_FN(culprit));
	return 0;
}

PART_HOOK(45, dma, .init = dma_part_init);

void dma_fault(void *ctx, uint32_t unit, const struct vtd_fault *f, const char *domain)
{
	char line[160], detail[96];

	(void)ctx;
	(void)unit;
	if (lines_this_poll >= DMA_FAULT_LINES_PER_POLL) {
		faults_unprinted++;
	} else {
		lines_this_poll++;
		log_emerg("%s\n", vtd_fault_line(f, domain, line, sizeof(line)));
	}
	if (!domain)
		return;
	for (uint32_t i = 0; i < partition_count; i++) {
		struct partition *p = &partitions[i];

		if (!domain_set[i] || strcmp(p->cfg->name, domain))
			continue;
		fmt_snprintf(detail, sizeof(detail), "%s of its function %02x:%02x.%x at 0x%lx "
			     "blocked by VT-d", f->interrupt ? "an interrupt" :
			     f->read ? "a DMA read" : "a DMA write", f->source_id >> 8,
			     (f->source_id >> 3) & 31, f->source_id & 7, f->addr);
		partition_stop_outside(p, "dma_fault", f->addr, detail);
	}
}

void dma_poll(void)
{
	if (!translating)
		return;
	lines_this_poll = 0;
	vtd_poll_faults(dma_fault, NULL);
	if (faults_unprinted && lines_this_poll >= DMA_FAULT_LINES_PER_POLL) {
		log_emerg("VT-d: %lu more DMA faults not printed\n", faults_unprinted);
		faults_unprinted = 0;
	}
}
