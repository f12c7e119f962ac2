// SPDX-License-Identifier: MIT
/*
 * A partition's assigned PCI functions (pci =, docs/devices.md), on its
 * virtual bus 0 after the channel functions: assigned function k (in the
 * order pci = lists them) is device channel_count + 1 + k, function 0.
 * Its configuration space goes through the filter (hv/core/pci_assign.c)
 * onto the physical function, through the boot's configuration accessors.
 *
 * What the filter's events become:
 * - an I/O BAR's ports pass the partition's I/O bitmap at their own
 *   numbers (they cannot move), set up once at build as ports = are;
 * - a memory BAR is mapped at build, uncached, at its reset address (the
 *   host's: firmware's placement) but for what must trap (the MSI-X table's
 *   pages, or all of a BAR smaller than a page); a region follows the BAR's
 *   window wherever the guest puts it, so that the trapped pages, and a
 *   BAR the guest moved, reach pci_assign_bar_read() / _write(). Root mode
 *   never maps, unmaps or allocates EPT tables after the build: a moved
 *   BAR is served by exits, and its reset place stays mapped (it is the
 *   partition's own device there too).
 * - Bus master: only where VT-d confines the partition's DMA to its RAM
 *   (hv/dev/dma.h); without it the bit stays off and the guest's first
 *   try is reported.
 * The partition's stop quiets its functions (bus master off, MSI and
 * MSI-X off) before its RAM is reused; a restart puts them back as at boot.
 */
#include "hv/dev/pcifn.h"

#include "arch/x86/boot_layout.h"
#include "arch/x86/trap.h"
#include "drivers/pci_cfg.h"
#include "hv/core/devassign.h"
#include "hv/core/guest_ram.h"
#include "hv/core/pci_assign.h"
#include "hv/dev/devices.h"
#include "hv/dev/dma.h"
#include "hv/core/timer_modes.h"
#include "hv/state/devirq.h"
#include "hv/guest/mmio.h"
#include "hv/lib/fmt.h"
#include "hv/lib/lib.h"
#include "hv/lib/log.h"
#include "hv/lib/spin.h"
#include "hv/lib/x86.h"
#include "hv/state/ept.h"
#include "hv/state/hooks.h"
#include "hv/state/pages.h"
#include "hv/state/partition.h"

/* The partition's RAM (two), its MMIO window, its channels, mmio =, every other function's BARs. */
#define PCIFN_FORBIDDEN_MAX	(3 + CONFIG_MAX_CHANNELS + DEV_MAX_MMIO + 6 * DEV_MAX_PCI * 4)

struct pcifn_bar_ref {
	struct part_pci *pp;
	uint32_t fn, bar;
};

struct part_pci {
	struct partition *p;
	uint32_t count;
	uint32_t dev_first;		/* the virtual device number of fn[0] */
	volatile uint32_t lock;		/* the filter's state and the physical function */
	struct pci_assign_env env;
	struct irq_cpus cpus;
	struct irq_vector_set vectors;
	uint32_t forbidden_count;
	uint32_t own_forbidden;		/* the first ones: the partition's own, not other BARs */
	struct pci_range forbidden[PCIFN_FORBIDDEN_MAX];
	struct pci_assign_fn fn[DEV_MAX_PCI];
	uint32_t reported[DEV_MAX_PCI];	/* refusals already reported, per function */
	int region[DEV_MAX_PCI][PCI_TYPE0_BARS];
	struct pcifn_bar_ref ref[DEV_MAX_PCI][PCI_TYPE0_BARS];
	/* with interrupt remapping: each function's blocks of remapping entries (-1: none) */
	int irte_msi[DEV_MAX_PCI], irte_msix[DEV_MAX_PCI];
	uint32_t irte_msi_count[DEV_MAX_PCI], irte_msix_count[DEV_MAX_PCI];
};

static struct part_pci part_pci[CONFIG_MAX_PARTITIONS];

static void take(struct part_pci *pp)
{
	spin_lock(&pp->lock);
}

static void give(struct part_pci *pp)
{
	spin_unlock(&pp->lock);
}

/*
 * The function's registers by host-physical address, through Tempo's
 * identity map (the boot maps 0..4 GiB; firmware's MTRRs make the PCI
 * hole uncached). A BAR above it is refused at build when it must trap.
 */
static uint64_t fn_mmio_read(void *ctx, uint64_t hpa, uint8_t size)
{
	(void)ctx;
	if (hpa + size > IDENTITY_MAP_LIMIT)
		return ~0ull;
	switch (size) {
	case 1:
		return *(volatile uint8_t *)(uintptr_t)hpa;
	case 2:
		return *(volatile uint16_t *)(uintptr_t)hpa;
	case 4:
		return *(volatile uint32_t *)(uintptr_t)hpa;
	default:
		return *(volatile uint64_t *)(uintptr_t)hpa;
	}
}

static void fn_mmio_write(void *ctx, uint64_t hpa, uint8_t size, uint64_t value)
{
	(void)ctx;
	if (hpa + size > IDENTITY_MAP_LIMIT)
		return;
	switch (size) {
	case 1:
		*(volatile uint8_t *)(uintptr_t)hpa = (uint8_t)value;
		break;
	case 2:
		*(volatile uint16_t *)(uintptr_t)hpa = (uint16_t)value;
		break;
	case 4:
		*(volatile uint32_t *)(uintptr_t)hpa = (uint32_t)value;
		break;
	default:
		*(volatile uint64_t *)(uintptr_t)hpa = value;
		break;
	}
}

static void forbid(struct part_pci *pp, uint64_t base, uint64_t size)
{
	if (size && pp->forbidden_count < PCIFN_FORBIDDEN_MAX)
		pp->forbidden[pp->forbidden_count++] = (struct pci_range){ base, size };
}

/*
 * Where none of @p's BARs may decode, in its guest-physical space: its
 * RAM, Tempo's window (channel BAR0s, virtual IOAPIC, xAPIC page), its
 * channels, its mmio = ranges, and every other assigned function's BARs.
 */
static void forbidden_init(struct part_pci *pp, const struct hv_config *cfg)
{
	const struct partition *p = pp->p;
	const struct pci_enum *e = pci_boot_functions();

	pp->forbidden_count = 0;
	forbid(pp, 0, guest_ram_low(p->mem_size));
	if (guest_ram_end(p->mem_size) > CONFIG_GUEST_MMIO_END)
		forbid(pp, CONFIG_GUEST_MMIO_END, guest_ram_end(p->mem_size) - CONFIG_GUEST_MMIO_END);
	forbid(pp, CONFIG_GUEST_MMIO_START, CONFIG_GUEST_MMIO_END - CONFIG_GUEST_MMIO_START);
	for (uint32_t i = 0; i < cfg->channel_count; i++)
		for (uint32_t k = 0; k < cfg->channels[i].peer_count; k++)
			if (cfg->channels[i].peers[k].partition == p->id)
				forbid(pp, cfg->channels[i].peers[k].gpa, cfg->channels[i].size);
	for (uint32_t k = 0; k < p->cfg->dev.mmio_count && k < DEV_MAX_MMIO; k++)
		forbid(pp, p->cfg->dev.mmio[k].base, p->cfg->dev.mmio[k].size);
	pp->own_forbidden = pp->forbidden_count;
	for (uint32_t i = 0; i < cfg->partition_count; i++) {
		const struct dev_assignment *a = &cfg->partitions[i].dev;

		if (&cfg->partitions[i] == p->cfg)
			continue;
		for (uint32_t k = 0; k < a->pci_count && k < DEV_MAX_PCI; k++) {
			const struct pci_function *f = pci_find(e, a->pci[k]);

			for (uint32_t b = 0; f && b < f->bar_count && b < PCI_TYPE0_BARS; b++)
				if (f->bar[b].kind == PCI_BAR_MEM32 || f->bar[b].kind == PCI_BAR_MEM64)
					forbid(pp, f->bar[b].addr, f->bar[b].size);
		}
	}
}

/* The filter's description of @f: its BARs where firmware put them, the INTx GSI as the line. */
static void desc_of(const struct pci_function *f, struct pci_assign_desc *d)
{
	struct dev_fn_info info = {
		.interrupt_pin = f->interrupt_pin,
		.interrupt_line = f->interrupt_line,
	};
	int32_t gsi = devassign_intx_gsi(&info);

	memset(d, 0, sizeof(*d));
	d->bdf = f->bdf;
	d->interrupt_line = gsi >= 0 ? (uint8_t)gsi : 0xff;
	for (uint32_t b = 0; b < f->bar_count && b < PCI_TYPE0_BARS; b++) {
		const struct pci_bar *s = &f->bar[b];
		struct pci_assign_bar_desc *o = &d->bar[b];

		switch (s->kind) {
		case PCI_BAR_IO:
			o->kind = PCI_ASSIGN_BAR_IO;
			d->command |= PCI_COMMAND_IO;
			break;
		case PCI_BAR_MEM32:
			o->kind = PCI_ASSIGN_BAR_MEM32;
			d->command |= PCI_COMMAND_MEMORY;
			break;
		case PCI_BAR_MEM64:
			o->kind = PCI_ASSIGN_BAR_MEM64;
			d->command |= PCI_COMMAND_MEMORY;
			break;
		default:
			continue;
		}
		o->prefetch = s->prefetch;
		o->size = s->size;
		o->host = s->addr;
		o->guest = s->addr;
	}
}

/*
 * The partition has not left PART_RUNNING: its stop hook (under the
 * same lock) quiets its functions once the state has changed, so a write
 * that takes the lock after it sees the change and is dropped.
 */
static bool running(const struct partition *p)
{
	return __atomic_load_n(&p->state, __ATOMIC_ACQUIRE) == PART_RUNNING;
}

/* A trapped access to one of the function's memory BARs. */
static uint64_t bar_read(struct vcpu *v, void *ctx, uint64_t gpa, uint8_t size)
{
	const struct pcifn_bar_ref *r = ctx;
	struct pci_assign_fn *fn = &r->pp->fn[r->fn];
	struct pci_assign_window w;
	uint64_t value = ~0ull;

	(void)v;
	take(r->pp);
	w = pci_assign_window(fn, r->bar);
	if (w.live && gpa >= w.gpa && gpa - w.gpa < w.size)
		value = pci_assign_bar_read(fn, r->bar, gpa - w.gpa, size);
	give(r->pp);
	return value;
}

static void follow(struct part_pci *pp, uint32_t k, const struct pci_assign_event *ev);

static void bar_write(struct vcpu *v, void *ctx, uint64_t gpa, uint8_t size, uint64_t value)
{
	const struct pcifn_bar_ref *r = ctx;
	struct pci_assign_fn *fn = &r->pp->fn[r->fn];
	struct pci_assign_window w;
	struct pci_assign_event ev;

	(void)v;
	memset(&ev, 0, sizeof(ev));
	take(r->pp);
	w = pci_assign_window(fn, r->bar);
	/* a vCPU still running out its partition's stop must not undo the quiet */
	if (w.live && gpa >= w.gpa && gpa - w.gpa < w.size && running(v->part))
		pci_assign_bar_write(fn, r->bar, gpa - w.gpa, size, value, &ev);
	follow(r->pp, r->fn, &ev);
	give(r->pp);
}

static bool bar_region(struct vcpu *v, struct exit_ctx *x, uint64_t gpa, void *opaque,
		       enum exit_action *a)
{
	const struct pcifn_bar_ref *r = opaque;
	struct mmio_device dev = { bar_read, bar_write, opaque };
	struct pci_assign_window w;
	bool ours;

	take(r->pp);
	w = pci_assign_window(&r->pp->fn[r->fn], r->bar);
	ours = w.live && gpa >= w.gpa && gpa - w.gpa < w.size;
	give(r->pp);
	if (!ours)
		return false;	/* a sub-page BAR's page beyond the BAR: as unmapped memory */
	*a = mmio_emulate(v, x, gpa, &dev);
	return true;
}

/* Memory BAR @b's region where its window is now (off where it does not decode). */
static void region_follow(struct part_pci *pp, uint32_t k, uint32_t b)
{
	struct pci_assign_window w = pci_assign_window(&pp->fn[k], b);

	if (pp->region[k][b] < 0)
		return;
	if (w.io || !w.live || !w.size)
		mmio_region_set(pp->p, pp->region[k][b], 0, 0);
	else
		mmio_region_set(pp->p, pp->region[k][b], (w.gpa & ~0xfffull),
				ALIGN_UP(w.gpa + w.size, 0x1000) - (w.gpa & ~0xfffull));
}

/* Act on what a write changed (under the lock): regions follow, refusals are reported once. */
static void follow(struct part_pci *pp, uint32_t k, const struct pci_assign_event *ev)
{
	uint32_t news = ev->refused & ~pp->reported[k];
	uint32_t bdf = pp->fn[k].bdf;

	for (uint32_t b = 0; b < PCI_TYPE0_BARS; b++)
		if (ev->bars_changed & 1u << b)
			region_follow(pp, k, b);
	pp->reported[k] |= ev->refused;
	for (uint32_t r = 0; r < PCI_ASSIGN_REFUSED_COUNT; r++) {
		char cmd[120] = "";

		if (!(news & 1u << r))
			continue;
		/* what the function itself holds now, for whoever audits the refusal */
		if (r == PCI_ASSIGN_REFUSED_BUS_MASTER)
			fmt_snprintf(cmd, sizeof(cmd), " (%s: bus master stays off, command "
				     "0x%04x)", pci_dma_confinement_text(dma_confinement(pp->p)),
				     pp->env.cfg->read(pp->env.cfg->ctx, bdf, PCI_COMMAND, 2));
		log_warn("partition '%s': pci %02x:%02x.%x: refused %s%s\n", pp->p->cfg->name,
			 PCI_BDF_BUS(bdf), PCI_BDF_DEV(bdf), PCI_BDF_FN(bdf),
			 pci_assign_refusal_name((enum pci_assign_refusal)r), cmd);
	}
}

uint32_t pcifn_device(const struct partition *p, uint32_t k)
{
	return p->channel_count + 1 + k;
}

bool pcifn_cfg(struct partition *p, uint32_t bdf, uint32_t offset, uint8_t size, bool in,
	       uint32_t *value)
{
	struct part_pci *pp = &part_pci[p->id];
	struct pci_assign_event ev;
	uint32_t k;

	if (!pp->count || PCI_BDF_BUS(bdf) || PCI_BDF_FN(bdf) || PCI_BDF_DEV(bdf) < pp->dev_first ||
	    PCI_BDF_DEV(bdf) - pp->dev_first >= pp->count)
		return false;
	k = PCI_BDF_DEV(bdf) - pp->dev_first;
	take(pp);
	if (in) {
		*value = pci_assign_cfg_read(&pp->fn[k], offset, size);
	} else if (running(p)) {	/* after the stop hook's quiet: dropped */
		pci_assign_cfg_write(&pp->fn[k], offset, size, *value, &ev);
		follow(pp, k, &ev);
	}
	give(pp);
	return true;
}

/*
 * Memory BAR @b of function @k mapped at its reset address, uncached, but
 * for its trapped part (pci_assign_window's trap_all, the MSI-X hole); a
 * region follows it for those pages and for wherever the guest moves it.
 */
static int bar_map(struct part_pci *pp, uint32_t k, uint32_t b, char *err, size_t errlen)
{
	struct pci_assign_fn *fn = &pp->fn[k];
	struct pci_assign_window w = pci_assign_window(fn, b);
	uint32_t hole_bar;
	uint64_t hole_off = 0, hole_len = 0;
	uint32_t bdf = fn->bdf;

	pp->region[k][b] = -1;
	if (w.io || !w.size)
		return 0;
	if (w.hpa + w.size > IDENTITY_MAP_LIMIT) {
		fmt_snprintf(err, errlen, "partition '%s': pci: %02x:%02x.%x: BAR%u at 0x%lx is "
			     "above 4 GiB, where Tempo cannot reach it to forward trapped "
			     "accesses", pp->p->cfg->name, PCI_BDF_BUS(bdf), PCI_BDF_DEV(bdf),
			     PCI_BDF_FN(bdf), b, w.hpa);
		return -1;
	}
	/* its own RAM, Tempo's window, its channels, mmio =: the guest address is the host's */
	for (uint32_t i = 0; i < pp->own_forbidden; i++)
		if (w.gpa < pp->forbidden[i].base + pp->forbidden[i].size &&
		    pp->forbidden[i].base < w.gpa + w.size) {
			fmt_snprintf(err, errlen, "partition '%s': pci: %02x:%02x.%x: BAR%u at "
				     "0x%lx+0x%lx is where the partition has 0x%lx+0x%lx (RAM, a "
				     "channel, mmio = or Tempo's registers): a guest sees a BAR at "
				     "its host address", pp->p->cfg->name, PCI_BDF_BUS(bdf),
				     PCI_BDF_DEV(bdf), PCI_BDF_FN(bdf), b, w.gpa, w.size,
				     pp->forbidden[i].base, pp->forbidden[i].size);
			return -1;
		}
	if (!pci_assign_msix_hole(fn, &hole_bar, &hole_off, &hole_len) || hole_bar != b)
		hole_off = hole_len = 0;
	if (!w.trap_all) {
		uint64_t parts[2][2] = { { 0, hole_len ? hole_off : w.size },
					 { hole_off + hole_len, hole_len ? w.size - hole_off - hole_len : 0 } };

		for (uint32_t i = 0; i < 2; i++)
			if (parts[i][1] && ept_map_uc(pp->p, w.gpa + parts[i][0], w.hpa + parts[i][0],
						      parts[i][1], EPT_READ | EPT_WRITE)) {
				fmt_snprintf(err, errlen, "partition '%s': pci: %02x:%02x.%x: BAR%u "
					     "at 0x%lx: part of it is mapped already",
					     pp->p->cfg->name, PCI_BDF_BUS(bdf), PCI_BDF_DEV(bdf),
					     PCI_BDF_FN(bdf), b, w.gpa);
				return -1;
			}
	}
	pp->ref[k][b] = (struct pcifn_bar_ref){ pp, k, b };
	pp->region[k][b] = mmio_region_add(pp->p, NULL, 0, 0, bar_region, &pp->ref[k][b],
					   "an assigned function's BAR");
	if (pp->region[k][b] < 0) {
		fmt_snprintf(err, errlen, "partition '%s': its region table is full",
			     pp->p->cfg->name);
		return -1;
	}
	region_follow(pp, k, b);
	return 0;
}

/*
 * With interrupt remapping on, a message in compatibility format would be
 * blocked: the filter's messages go through the function's own remapping
 * entries instead (env->msi_compose), under the filter's lock.
 */
static bool fn_msi_compose(void *ctx, uint32_t bdf, uint32_t index, uint32_t vectors,
			   const struct irq_target *t, uint32_t *addr_lo, uint32_t *addr_hi,
			   uint32_t *data)
{
	struct part_pci *pp = ctx;
	uint32_t msg[3];

	for (uint32_t k = 0; k < pp->count; k++) {
		bool msi = index == PCI_ASSIGN_MSI_INDEX;

		if (pp->fn[k].bdf != bdf)
			continue;
		if (!dma_msi_remap(msi ? pp->irte_msi[k] : pp->irte_msix[k],
				   msi ? pp->irte_msi_count[k] : pp->irte_msix_count[k],
				   msi ? 0 : index, vectors, (uint16_t)bdf, t, msg))
			return false;
		*addr_lo = msg[0];
		*addr_hi = msg[1];
		*data = msg[2];
		return true;
	}
	return false;
}

/* Function @k's remapping entries: as many as its MSI vectors and MSI-X entries, if left. */
static void irte_blocks(struct part_pci *pp, uint32_t k, const struct pci_function *f)
{
	uint32_t msi = f->msi_cap ? f->msi_vectors : 0, msix = f->msix_entries;

	pp->irte_msi[k] = dma_irte_block(msi);
	pp->irte_msi_count[k] = pp->irte_msi[k] < 0 ? 0 : msi;
	pp->irte_msix[k] = dma_irte_block(msix);
	pp->irte_msix_count[k] = pp->irte_msix[k] < 0 ? 0 : msix;
	if ((msi && pp->irte_msi[k] < 0) || (msix && pp->irte_msix[k] < 0))
		log_warn("partition '%s': pci %02x:%02x.%x: too few interrupt-remapping entries "
			 "left for its%s%s: refused if the guest enables them (INTx stays)\n",
			 pp->p->cfg->name, PCI_BDF_BUS(f->bdf), PCI_BDF_DEV(f->bdf),
			 PCI_BDF_FN(f->bdf), msi && pp->irte_msi[k] < 0 ? " MSI" : "",
			 msix && pp->irte_msix[k] < 0 ? " MSI-X" : "");
}

static int pcifn_part_init(struct partition *p, const struct hv_config *cfg, char *err,
			   size_t errlen)
{
	const struct dev_assignment *a = &p->cfg->dev;
	struct part_pci *pp = &part_pci[p->id];
	const struct pci_enum *e = pci_boot_functions();

	memset(pp, 0, sizeof(*pp));
	pp->p = p;
	if (!a->pci_count)
		return 0;
	if (!pci_boot_cfg()) {
		fmt_snprintf(err, errlen, "partition '%s': pci: no configuration mechanism "
			     "answers on this machine", p->cfg->name);
		return -1;
	}
	pp->dev_first = pcifn_device(p, 0);
	pp->cpus.count = MIN(p->vcpu_count, (uint32_t)IRQ_MAX_CPUS);
	pp->cpus.logical_model = IRQ_LOGICAL_FLAT;
	for (uint32_t i = 0; i < pp->cpus.count; i++)
		pp->cpus.apic_id[i] = p->vcpus[i]->apic_id;
	/*
	 * The vectors an MSI may not carry: Tempo's, and the device vectors of
	 * the exit path (another partition's input on a core). Off direct
	 * mode every vector: the message would reach the physical APIC of a
	 * core whose vLAPIC Tempo keeps, or a shared core in another
	 * partition's window, where the exit would raise it in whoever runs;
	 * such a function has its INTx only (docs/devices.md).
	 */
	for (uint32_t vec = TRAP_HV_VECTOR_FIRST; vec <= TRAP_HV_VECTOR_LAST; vec++)
		irq_vector_add(&pp->vectors, (uint8_t)vec);
	for (uint32_t vec = DEVIRQ_VECTOR_FIRST; vec <= DEVIRQ_VECTOR_LAST; vec++)
		irq_vector_add(&pp->vectors, (uint8_t)vec);
	if (!timer_mode(p->cfg->timer)->owns_lapic)
		for (uint32_t vec = 0; vec < 256; vec++)
			irq_vector_add(&pp->vectors, (uint8_t)vec);
	forbidden_init(pp, cfg);
	pp->env = (struct pci_assign_env){
		.cfg = pci_boot_cfg(),
		.mmio_read = fn_mmio_read,
		.mmio_write = fn_mmio_write,
		.cpus = &pp->cpus,
		.vectors = &pp->vectors,
		.forbidden = pp->forbidden,
		.forbidden_count = pp->forbidden_count,
		.dma_confined = dma_confined(p),	/* the DMA hook (45) ran before this one */
		.msi_compose = dma_interrupts_remapped() ? fn_msi_compose : NULL,
		.compose_ctx = pp,
	};
	for (uint32_t k = 0; k < a->pci_count && k < DEV_MAX_PCI; k++) {
		const struct pci_function *f = pci_find(e, a->pci[k]);
		struct pci_assign_msix_entry *msix = NULL;
		struct pci_assign_desc d;
		char why[120];

		if (!f) {
			fmt_snprintf(err, errlen, "partition '%s': pci: %02x:%02x.%x: not found at "
				     "boot", p->cfg->name, PCI_BDF_BUS(a->pci[k]),
				     PCI_BDF_DEV(a->pci[k]), PCI_BDF_FN(a->pci[k]));
			return -1;
		}
		if (pp->dev_first + k >= 32) {
			fmt_snprintf(err, errlen, "partition '%s': pci: %u channels and %u functions "
				     "do not fit one bus's 31 devices", p->cfg->name,
				     p->channel_count, a->pci_count);
			return -1;
		}
		desc_of(f, &d);
		if (dma_interrupts_remapped())
			irte_blocks(pp, k, f);
		if (f->msix_entries)
			msix = hv_pages_alloc(ALIGN_UP(f->msix_entries * sizeof(*msix), 0x1000),
					      "MSI-X shadow");
		if (!pci_assign_init(&pp->fn[k], &d, &pp->env, msix, f->msix_entries, why,
				     sizeof(why))) {
			fmt_snprintf(err, errlen, "partition '%s': pci: %02x:%02x.%x: %s",
				     p->cfg->name, PCI_BDF_BUS(f->bdf), PCI_BDF_DEV(f->bdf),
				     PCI_BDF_FN(f->bdf), why);
			return -1;
		}
		pp->count++;
		for (uint32_t b = 0; b < PCI_TYPE0_BARS; b++) {
			struct pci_assign_window w = pci_assign_window(&pp->fn[k], b);

			if (bar_map(pp, k, b, err, errlen))
				return -1;
			if (w.io && w.size &&
			    devices_pass_ports(p, (uint16_t)w.gpa, (uint16_t)(w.gpa + w.size - 1),
					       err, errlen))
				return -1;
		}
		log_info("Partition '%s': pci %02x:%02x.%x %04x:%04x is its 00:%02x.0, INTx line %u\n",
			 p->cfg->name, PCI_BDF_BUS(f->bdf), PCI_BDF_DEV(f->bdf), PCI_BDF_FN(f->bdf),
			 f->vendor, f->device, pp->dev_first + k, d.interrupt_line);
	}
	return 0;
}

/* Its functions quiet (bus master off, MSI and MSI-X off) before its RAM is reused. */
static void pcifn_part_stop(struct partition *p)
{
	struct part_pci *pp = &part_pci[p->id];

	take(pp);
	for (uint32_t k = 0; k < pp->count; k++) {
		pci_assign_quiesce(&pp->fn[k]);
		/*
		 * and its remapping entries absent: a device that ignores the
		 * MSI enables it was just told to clear would still reach the
		 * stopped partition's vectors on its core through them
		 */
		dma_irte_block_clear(pp->irte_msi[k], pp->irte_msi_count[k]);
		dma_irte_block_clear(pp->irte_msix[k], pp->irte_msix_count[k]);
	}
	give(pp);
}

/* A restart: the functions as at boot, their regions where the reset BARs are. */
static void pcifn_part_reset(struct partition *p)
{
	struct part_pci *pp = &part_pci[p->id];
	struct pci_assign_event ev;

	/* as the channels' lock: no vCPU is left, unless a fault ended one inside it */
	spin_unlock(&pp->lock);
	take(pp);
	for (uint32_t k = 0; k < pp->count; k++) {
		pci_assign_reset(&pp->fn[k], &ev);
		for (uint32_t b = 0; b < PCI_TYPE0_BARS; b++)
			region_follow(pp, k, b);
	}
	give(pp);
}

/* After the channels (40: the bus's device numbers) and the assigned ports (50: the bitmap). */
PART_HOOK(52, pcifn, .init = pcifn_part_init, .reset = pcifn_part_reset,
	  .stop = pcifn_part_stop);
