// SPDX-License-Identifier: MIT
/*
 * The configuration-space filter of an assigned PCI function
 * (hv/core/pci_assign.h).
 *
 * A guest access is taken apart by dword and byte lane: each register
 * gets exactly the bytes the guest wrote, so a 16-bit write to the command
 * register never writes the status register's write-one-to-clear bits
 * back, and a pass-through write reaches the function with the guest's
 * own bytes only.
 *
 * References: PCI Local Bus Specification 3.0: 6.2.2 (command), 6.2.5
 * (BARs and sizing), 6.2.5.2 (expansion ROM), 6.7 (capabilities), 6.8.1
 * (MSI), 6.8.2 (MSI-X: an entry is masked while its message changes);
 * PCI Express Base 4.0, 7.5.3.4 (device control, initiate FLR); SDM
 * Vol. 3A 11.11 (the x86 MSI message).
 */
#include "hv/core/pci_assign.h"

#include "hv/lib/fmt.h"
#include "hv/lib/lib.h"
#include "hv/lib/pci_cap.h"

#define ALL_ONES		0xffffffffu
#define PAGE_BYTES		0x1000ull
/* The command bits the guest controls (bus master only with confined DMA). */
#define GUEST_COMMAND		(PCI_COMMAND_IO | PCI_COMMAND_MEMORY | PCI_COMMAND_MASTER | \
				 PCI_COMMAND_PARITY | PCI_COMMAND_SERR | PCI_COMMAND_INTX_DISABLE)
#define DECODE			(PCI_COMMAND_IO | PCI_COMMAND_MEMORY)
#define MSI_GUEST_CONTROL	(PCI_MSI_FLAGS_ENABLE | PCI_MSI_FLAGS_QSIZE)
#define MSI_HW_CONTROL		(PCI_MSI_FLAGS_64BIT | PCI_MSI_FLAGS_MASKBIT | \
				 PCI_MSI_FLAGS_QMASK)
#define MSIX_GUEST_CONTROL	(PCI_MSIX_FLAGS_ENABLE | PCI_MSIX_FLAGS_MASKALL)
#define MSIX_ENTRY_DWORDS	4
#define MSIX_CTRL		3	/* the vector-control dword of an entry */

/* Byte lanes of a dword access: bit i is byte i. */
#define LANES_LOW16		0x3u
#define LANES_HIGH16		0xcu

static const char *const refusal_names[PCI_ASSIGN_REFUSED_COUNT] = {
	[PCI_ASSIGN_REFUSED_BAR_FORBIDDEN] = "bar-forbidden",
	[PCI_ASSIGN_REFUSED_BAR_IO_MOVE] = "bar-io-move",
	[PCI_ASSIGN_REFUSED_BUS_MASTER] = "bus-master",
	[PCI_ASSIGN_REFUSED_MSI] = "msi",
	[PCI_ASSIGN_REFUSED_MSIX] = "msix",
	[PCI_ASSIGN_REFUSED_FLR] = "flr",
	[PCI_ASSIGN_REFUSED_WRITE] = "write",
};

const char *pci_assign_refusal_name(enum pci_assign_refusal r)
{
	return (unsigned int)r < PCI_ASSIGN_REFUSED_COUNT ? refusal_names[r] : "unknown";
}

bool pci_requesters_alone(const uint16_t *mine, uint32_t n, const uint16_t *others, uint32_t m,
			  const uint16_t *reserved, uint32_t r, uint16_t *culprit)
{
	for (uint32_t i = 0; i < n; i++) {
		for (uint32_t j = 0; j < m; j++) {
			if (PCI_BDF_BUS(mine[i]) == PCI_BDF_BUS(others[j])) {
				*culprit = mine[i];
				return false;
			}
		}
		for (uint32_t k = 0; k < r; k++) {
			if (mine[i] == reserved[k]) {
				*culprit = mine[i];
				return false;
			}
		}
	}
	return true;
}

enum pci_dma_confinement pci_dma_confinement(bool units_ready, bool has_domain, bool translating,
					     bool interrupts_remapped, bool requesters_alone)
{
	if (!units_ready)
		return PCI_DMA_NO_IOMMU;
	if (!has_domain)
		return PCI_DMA_NO_DOMAIN;
	if (!translating)
		return PCI_DMA_NOT_TRANSLATING;
	if (!interrupts_remapped)
		return PCI_DMA_NO_INTERRUPT_REMAP;
	if (!requesters_alone)
		return PCI_DMA_REQUESTER_SHARED;
	return PCI_DMA_CONFINED;
}

static const char *const confinement_texts[PCI_DMA_CONFINEMENT_COUNT] = {
	[PCI_DMA_CONFINED] = "bus master allowed (DMA and interrupts confined)",
	[PCI_DMA_NO_IOMMU] = "no IOMMU confines its DMA",
	[PCI_DMA_NO_DOMAIN] = "no DMA domain of its own",
	[PCI_DMA_NOT_TRANSLATING] = "DMA translation off",
	[PCI_DMA_NO_INTERRUPT_REMAP] = "interrupts not remapped",
	[PCI_DMA_REQUESTER_SHARED] = ("a function shares its bus with another partition's or "
				      "has an IOAPIC's requester id"),
};

const char *pci_dma_confinement_text(enum pci_dma_confinement c)
{
	return (unsigned int)c < PCI_DMA_CONFINEMENT_COUNT ? confinement_texts[c] : "unknown";
}

/* ---- the physical function ---- */

static uint32_t phys_read(const struct pci_assign_fn *fn, uint32_t offset, uint8_t size)
{
	const struct pci_cfg_ops *o = fn->env->cfg;

	return o->read(o->ctx, fn->bdf, offset, size);
}

static void phys_write(const struct pci_assign_fn *fn, uint32_t offset, uint8_t size,
		       uint32_t value)
{
	const struct pci_cfg_ops *o = fn->env->cfg;

	o->write(o->ctx, fn->bdf, offset, size, value);
}

/* The guest's bytes @lanes of dword @v, written to register @reg as they are. */
static void phys_write_lanes(const struct pci_assign_fn *fn, uint32_t reg, uint32_t v,
			     uint32_t lanes)
{
	if (lanes == 0xf) {
		phys_write(fn, reg, 4, v);
		return;
	}
	for (uint32_t i = 0; i < 4; i++) {
		if ((lanes >> i & 3) == 3 && !(i & 1)) {
			phys_write(fn, reg + i, 2, (v >> (8 * i)) & 0xffff);
			i++;
		} else if (lanes >> i & 1) {
			phys_write(fn, reg + i, 1, (v >> (8 * i)) & 0xff);
		}
	}
}

static uint32_t lane_mask(uint32_t lanes)
{
	uint32_t m = 0;

	for (uint32_t i = 0; i < 4; i++)
		if (lanes >> i & 1)
			m |= 0xffu << (8 * i);
	return m;
}

/* @old with the guest's bytes of @v in @lanes. */
static uint32_t merge(uint32_t old, uint32_t v, uint32_t lanes)
{
	uint32_t m = lane_mask(lanes);

	return (old & ~m) | (v & m);
}

static uint64_t mmio_read(const struct pci_assign_fn *fn, uint64_t hpa, uint8_t size)
{
	return fn->env->mmio_read(fn->env->mmio_ctx, hpa, size);
}

static void mmio_write(const struct pci_assign_fn *fn, uint64_t hpa, uint8_t size, uint64_t v)
{
	fn->env->mmio_write(fn->env->mmio_ctx, hpa, size, v);
}

/* ---- BARs ---- */

static bool bar_upper(const struct pci_assign_fn *fn, uint32_t i)
{
	return i && fn->bar[i].kind == PCI_ASSIGN_BAR_NONE &&
	       fn->bar[i - 1].kind == PCI_ASSIGN_BAR_MEM64;
}

static bool bar_mem(const struct pci_assign_bar *b)
{
	return b->kind == PCI_ASSIGN_BAR_MEM32 || b->kind == PCI_ASSIGN_BAR_MEM64;
}

/* The address bits software can write: the rest reads 0 (6.2.5.1). */
static uint64_t bar_addr_mask(const struct pci_assign_bar *b)
{
	uint64_t m = ~(b->size - 1);

	if (b->kind == PCI_ASSIGN_BAR_IO)
		return m & 0xfffffffcull;
	if (b->kind == PCI_ASSIGN_BAR_MEM32)
		return m & 0xfffffff0ull;
	return m & ~0xfull;
}

static uint32_t bar_type_bits(const struct pci_assign_bar *b)
{
	switch (b->kind) {
	case PCI_ASSIGN_BAR_IO:
		return PCI_BAR_SPACE_IO;
	case PCI_ASSIGN_BAR_MEM64:
		return PCI_BAR_MEM_TYPE_64 | (b->prefetch ? PCI_BAR_MEM_PREFETCH : 0);
	case PCI_ASSIGN_BAR_MEM32:
		return b->prefetch ? PCI_BAR_MEM_PREFETCH : 0;
	default:
		return 0;
	}
}

/* A dword holding all of its writable bits set: software is sizing the BAR. */
static bool probing_dword(uint32_t value, uint32_t writable)
{
	return writable && (value & writable) == writable;
}

static bool bar_probing(const struct pci_assign_bar *b)
{
	uint64_t m = bar_addr_mask(b);

	return probing_dword((uint32_t)b->guest, (uint32_t)m) ||
	       (b->kind == PCI_ASSIGN_BAR_MEM64 &&
		probing_dword((uint32_t)(b->guest >> 32), (uint32_t)(m >> 32)));
}

static bool ranges_overlap(uint64_t a, uint64_t an, uint64_t b, uint64_t bn)
{
	return an && bn && a <= b + (bn - 1) && b <= a + (an - 1);
}

/* A memory BAR that would decode if memory space were on: placed, not sizing, no wrap. */
static bool bar_candidate(const struct pci_assign_bar *b)
{
	return bar_mem(b) && b->guest && !bar_probing(b) && b->guest <= UINT64_MAX - (b->size - 1);
}

/* Does memory BAR @i at its guest address stay off every forbidden range and its siblings? */
static bool bar_placement_ok(const struct pci_assign_fn *fn, uint32_t i)
{
	const struct pci_assign_bar *b = &fn->bar[i];
	const struct pci_assign_env *env = fn->env;

	for (uint32_t k = 0; k < env->forbidden_count; k++)
		if (ranges_overlap(b->guest, b->size, env->forbidden[k].base,
				   env->forbidden[k].size))
			return false;
	for (uint32_t j = 0; j < PCI_TYPE0_BARS; j++)
		if (j != i && bar_candidate(&fn->bar[j]) &&
		    ranges_overlap(b->guest, b->size, fn->bar[j].guest, fn->bar[j].size))
			return false;
	return true;
}

struct pci_assign_window pci_assign_window(const struct pci_assign_fn *fn, uint32_t i)
{
	struct pci_assign_window w = { 0 };
	const struct pci_assign_bar *b;

	if (i >= PCI_TYPE0_BARS)
		return w;
	b = &fn->bar[i];
	w.gpa = b->guest;
	w.hpa = b->host;
	w.size = b->kind == PCI_ASSIGN_BAR_NONE ? 0 : b->size;
	w.io = b->kind == PCI_ASSIGN_BAR_IO;
	if (w.io) {
		w.live = (fn->command & PCI_COMMAND_IO) && b->guest == b->host;
	} else if (bar_mem(b)) {
		w.live = (fn->command & PCI_COMMAND_MEMORY) && bar_candidate(b) &&
			 bar_placement_ok(fn, i);
		w.trap_all = b->size < PAGE_BYTES || (b->host & (PAGE_BYTES - 1));
	}
	return w;
}

static uint32_t bar_read(const struct pci_assign_fn *fn, uint32_t i)
{
	const struct pci_assign_bar *b = &fn->bar[i];

	if (bar_upper(fn, i))
		return (uint32_t)(fn->bar[i - 1].guest >> 32);
	if (b->kind == PCI_ASSIGN_BAR_NONE)
		return 0;
	return (uint32_t)b->guest | bar_type_bits(b);
}

/* The host addresses back into the physical BARs (before decode goes on). */
static void bars_restore(const struct pci_assign_fn *fn)
{
	for (uint32_t i = 0; i < PCI_TYPE0_BARS; i++) {
		const struct pci_assign_bar *b = &fn->bar[i];

		if (b->kind == PCI_ASSIGN_BAR_NONE)
			continue;
		phys_write(fn, PCI_BAR0 + 4 * i, 4, (uint32_t)b->host | bar_type_bits(b));
		if (b->kind == PCI_ASSIGN_BAR_MEM64)
			phys_write(fn, PCI_BAR0 + 4 * (i + 1), 4, (uint32_t)(b->host >> 32));
	}
}

/* After any change: what decodes is where it was allowed last. */
static void bars_note_allowed(struct pci_assign_fn *fn)
{
	for (uint32_t i = 0; i < PCI_TYPE0_BARS; i++)
		if (bar_mem(&fn->bar[i]) && pci_assign_window(fn, i).live)
			fn->bar[i].allowed = fn->bar[i].guest;
}

static void bar_write(struct pci_assign_fn *fn, uint32_t i, uint32_t v,
		      struct pci_assign_event *ev)
{
	uint32_t owner = bar_upper(fn, i) ? i - 1 : i;
	struct pci_assign_bar *b = &fn->bar[owner];
	uint64_t old = b->guest, mask = bar_addr_mask(b);

	if (b->kind == PCI_ASSIGN_BAR_NONE)
		return;		/* not implemented: reads 0, as the hardware's does */
	if (owner != i)
		b->guest = ((uint64_t)v << 32 | (uint32_t)b->guest) & mask;
	else
		b->guest = ((b->guest & ~0xffffffffull) | v) & mask;
	if (b->kind == PCI_ASSIGN_BAR_IO) {
		/* sizing reads the mask; any other address than the host's is a move */
		if (!bar_probing(b) && b->guest != b->host) {
			b->guest = old;
			ev->refused |= 1u << PCI_ASSIGN_REFUSED_BAR_IO_MOVE;
		}
		return;
	}
	/* decoding: never onto a forbidden range, not even for one access */
	if ((fn->command & PCI_COMMAND_MEMORY) && bar_candidate(b) &&
	    !bar_placement_ok(fn, owner)) {
		b->guest = old;
		ev->refused |= 1u << PCI_ASSIGN_REFUSED_BAR_FORBIDDEN;
	}
}

/* Memory decode went on: a BAR moved onto a forbidden range goes back. */
static void bars_decode_on(struct pci_assign_fn *fn, struct pci_assign_event *ev)
{
	for (uint32_t i = 0; i < PCI_TYPE0_BARS; i++) {
		struct pci_assign_bar *b = &fn->bar[i];

		if (!bar_candidate(b) || bar_placement_ok(fn, i))
			continue;
		b->guest = b->allowed;
		ev->refused |= 1u << PCI_ASSIGN_REFUSED_BAR_FORBIDDEN;
	}
}

/* ---- MSI ---- */

static uint8_t msi_len(const struct pci_assign_fn *fn)
{
	return fn->msi_mask_off ? (uint8_t)(fn->msi_mask_off + 8) : (uint8_t)(fn->msi_data_off + 2);
}

/* The physical message for @t, through the remapping hook where there is one. */
static enum irq_verdict compose(const struct pci_assign_fn *fn, uint32_t index, uint32_t vectors,
				const struct irq_target *t, uint32_t msg[3])
{
	const struct pci_assign_env *env = fn->env;

	if (!env->msi_compose) {
		if (t->apic_id > 0xff)
			return IRQ_DEST_WIDE;
		irq_target_msi(t, &msg[0], &msg[1], &msg[2]);
		return IRQ_OK;
	}
	if (!env->msi_compose(env->compose_ctx, fn->bdf, index, vectors, t, &msg[0], &msg[1],
			      &msg[2]))
		return IRQ_REMAP_REFUSED;
	return IRQ_OK;
}

/* irq_route() for one message; the physical message in @msg when it passes. */
static enum irq_verdict route_message(const struct pci_assign_fn *fn, uint32_t index,
				      uint32_t lo, uint32_t hi, uint32_t data, uint32_t vectors,
				      uint32_t msg[3])
{
	struct irq_request rq;
	struct irq_target t, first = { 0 };
	enum irq_verdict v = irq_request_from_msi(lo, hi, data, &rq);
	uint8_t base = (uint8_t)(rq.vector & ~(vectors - 1));

	if (v != IRQ_OK)
		return v;
	/* a multiple-message function sets the low bits of the vector itself */
	for (uint32_t k = 0; k < vectors; k++) {
		rq.vector = (uint8_t)(base + k);
		v = irq_route(fn->env->cpus, fn->env->vectors, &rq, &t);
		if (v != IRQ_OK)
			return v;
		if (!k)
			first = t;
	}
	return compose(fn, index, vectors, &first, msg);
}

static uint32_t msi_vectors(uint16_t control)
{
	return 1u << ((control & PCI_MSI_FLAGS_QSIZE) >> PCI_MSI_FLAGS_QSIZE_SHIFT);
}

/* The physical capability as the guest's shadow says it must be. */
static void msi_sync(struct pci_assign_fn *fn, struct pci_assign_event *ev)
{
	uint32_t msg[3] = { fn->msi_phys[0], fn->msi_phys[1], fn->msi_phys[2] };
	uint16_t control = 0;
	enum irq_verdict v = IRQ_OK;
	uint8_t cap = fn->msi_cap;

	if (!cap)
		return;
	if (fn->msi_control & PCI_MSI_FLAGS_ENABLE) {
		v = route_message(fn, PCI_ASSIGN_MSI_INDEX, fn->msi_addr_lo, fn->msi_addr_hi,
				  fn->msi_data, msi_vectors(fn->msi_control), msg);
		if (v == IRQ_OK)
			control = fn->msi_control & MSI_GUEST_CONTROL;
		else
			ev->refused |= 1u << PCI_ASSIGN_REFUSED_MSI;
	}
	fn->msi_verdict = (uint8_t)v;
	if (msg[0] != fn->msi_phys[0] || msg[1] != fn->msi_phys[1] || msg[2] != fn->msi_phys[2]) {
		/* never a half-written message while the function may send it */
		if (fn->msi_phys_control & PCI_MSI_FLAGS_ENABLE) {
			fn->msi_phys_control &= (uint16_t)~PCI_MSI_FLAGS_ENABLE;
			phys_write(fn, cap + PCI_MSI_FLAGS, 2, fn->msi_phys_control);
		}
		phys_write(fn, cap + PCI_MSI_ADDRESS_LO, 4, msg[0]);
		if (fn->msi_flags_hw & PCI_MSI_FLAGS_64BIT)
			phys_write(fn, cap + PCI_MSI_ADDRESS_HI, 4, msg[1]);
		phys_write(fn, cap + fn->msi_data_off, 2, msg[2] & 0xffff);
		memcpy(fn->msi_phys, msg, sizeof(msg));
		ev->changed |= PCI_ASSIGN_EV_MSI;
	}
	if (control != fn->msi_phys_control) {
		phys_write(fn, cap + PCI_MSI_FLAGS, 2, control);
		fn->msi_phys_control = control;
		ev->changed |= PCI_ASSIGN_EV_MSI;
	}
}

static uint32_t msi_read(const struct pci_assign_fn *fn, uint32_t r, uint32_t reg)
{
	bool is64 = fn->msi_flags_hw & PCI_MSI_FLAGS_64BIT;

	if (r == 0)
		return phys_read(fn, reg, 2) |
		       (uint32_t)(fn->msi_flags_hw | fn->msi_control) << 16;
	if (r == PCI_MSI_ADDRESS_LO)
		return fn->msi_addr_lo;
	if (r == PCI_MSI_ADDRESS_HI && is64)
		return fn->msi_addr_hi;
	if (r == fn->msi_data_off)
		return fn->msi_data;
	return phys_read(fn, reg, 4);	/* mask and pending bits */
}

static void msi_write(struct pci_assign_fn *fn, uint32_t r, uint32_t reg, uint32_t v,
		      uint32_t lanes, struct pci_assign_event *ev)
{
	uint32_t now = msi_read(fn, r, reg), merged = merge(now, v, lanes);
	bool is64 = fn->msi_flags_hw & PCI_MSI_FLAGS_64BIT;

	if (r == 0) {
		uint16_t c = (uint16_t)(merged >> 16) & MSI_GUEST_CONTROL;
		uint32_t mmc =
		    (fn->msi_flags_hw & PCI_MSI_FLAGS_QMASK) >> PCI_MSI_FLAGS_QMASK_SHIFT;
		uint32_t mme = (c & PCI_MSI_FLAGS_QSIZE) >> PCI_MSI_FLAGS_QSIZE_SHIFT;

		if (!(lanes & LANES_HIGH16))
			return;
		/* more vectors than the function has: what it has (6.8.1.3) */
		if (mme > mmc)
			c = (uint16_t)((c & ~PCI_MSI_FLAGS_QSIZE) |
				       mmc << PCI_MSI_FLAGS_QSIZE_SHIFT);
		fn->msi_control = c;
	} else if (r == PCI_MSI_ADDRESS_LO) {
		fn->msi_addr_lo = merged & ~3u;
	} else if (r == PCI_MSI_ADDRESS_HI && is64) {
		fn->msi_addr_hi = merged;
	} else if (r == fn->msi_data_off) {
		if (!(lanes & LANES_LOW16))
			return;
		fn->msi_data = (uint16_t)merged;
	} else if (fn->msi_mask_off && r == fn->msi_mask_off) {
		phys_write_lanes(fn, reg, v, lanes);
		return;
	} else {
		return;		/* pending bits: read-only */
	}
	msi_sync(fn, ev);
}

/* ---- MSI-X ---- */

static uint64_t msix_entry_hpa(const struct pci_assign_fn *fn, uint32_t i, uint32_t dword)
{
	return fn->bar[fn->msix_bar].host + fn->msix_offset + (uint64_t)i * PCI_MSIX_ENTRY_SIZE +
	       dword * 4u;
}

static void msix_phys_write(struct pci_assign_fn *fn, uint32_t i, uint32_t dword, uint32_t v)
{
	mmio_write(fn, msix_entry_hpa(fn, i, dword), 4, v);
	fn->msix[i].phys[dword] = v;
}

/*
 * Entry @i's physical state from its shadow: the routed message, masked
 * as the guest masks it, or masked while the message is refused. The
 * message is only rewritten while the entry is masked (6.8.2.9).
 * @force: write everything (the table may have lost it: decode was off).
 */
static void msix_sync(struct pci_assign_fn *fn, uint32_t i, bool force,
		      struct pci_assign_event *ev)
{
	struct pci_assign_msix_entry *e = &fn->msix[i];
	uint32_t msg[3] = { e->phys[0], e->phys[1], e->phys[2] };
	uint32_t mask = e->guest[MSIX_CTRL] & PCI_MSIX_ENTRY_CTRL_MASKBIT;
	enum irq_verdict v;

	v = route_message(fn, i, e->guest[0], e->guest[1], e->guest[2], 1, msg);
	/* a masked entry is off: nothing to say about a message it never sends */
	e->verdict = (uint8_t)(mask ? IRQ_OK : v);
	if (v != IRQ_OK) {
		mask = PCI_MSIX_ENTRY_CTRL_MASKBIT;
		if (!(e->guest[MSIX_CTRL] & PCI_MSIX_ENTRY_CTRL_MASKBIT))
			ev->refused |= 1u << PCI_ASSIGN_REFUSED_MSIX;
	}
	if (force || msg[0] != e->phys[0] || msg[1] != e->phys[1] || msg[2] != e->phys[2]) {
		if (force || !(e->phys[MSIX_CTRL] & PCI_MSIX_ENTRY_CTRL_MASKBIT))
			msix_phys_write(fn, i, MSIX_CTRL, PCI_MSIX_ENTRY_CTRL_MASKBIT);
		for (uint32_t d = 0; d < 3; d++)
			msix_phys_write(fn, i, d, msg[d]);
		ev->changed |= PCI_ASSIGN_EV_MSIX;
	}
	if (force || mask != (e->phys[MSIX_CTRL] & PCI_MSIX_ENTRY_CTRL_MASKBIT)) {
		msix_phys_write(fn, i, MSIX_CTRL, mask);
		ev->changed |= PCI_ASSIGN_EV_MSIX;
	}
}

static void msix_mask_all(struct pci_assign_fn *fn)
{
	for (uint32_t i = 0; i < fn->msix_count; i++)
		msix_phys_write(fn, i, MSIX_CTRL, PCI_MSIX_ENTRY_CTRL_MASKBIT);
}

static void msix_resync(struct pci_assign_fn *fn, struct pci_assign_event *ev)
{
	for (uint32_t i = 0; i < fn->msix_count; i++)
		msix_sync(fn, i, true, ev);
}

static uint32_t msix_cap_read(const struct pci_assign_fn *fn, uint32_t r, uint32_t reg)
{
	uint32_t phys = phys_read(fn, reg, 4);

	if (r == 0)
		return (phys & ~((uint32_t)MSIX_GUEST_CONTROL << 16)) |
		       (uint32_t)fn->msix_control << 16;
	return phys;	/* table and PBA offsets */
}

static void msix_cap_write(struct pci_assign_fn *fn, uint32_t r, uint32_t reg, uint32_t v,
			   uint32_t lanes, struct pci_assign_event *ev)
{
	uint16_t c;

	if (r != 0 || !(lanes & LANES_HIGH16))
		return;		/* the offsets are read-only */
	c = (uint16_t)(merge(msix_cap_read(fn, r, reg), v, lanes) >> 16) & MSIX_GUEST_CONTROL;
	if (c == fn->msix_control)
		return;
	fn->msix_control = c;
	phys_write(fn, reg + PCI_MSIX_FLAGS, 2, c);
	ev->changed |= PCI_ASSIGN_EV_MSIX;
}

bool pci_assign_msix_hole(const struct pci_assign_fn *fn, uint32_t *bar, uint64_t *offset,
			  uint64_t *len)
{
	uint64_t start, end, size;

	if (!fn->msix_cap)
		return false;
	size = fn->bar[fn->msix_bar].size;
	start = fn->msix_offset & ~(PAGE_BYTES - 1);
	end = ALIGN_UP((uint64_t)fn->msix_offset + (uint64_t)fn->msix_count * PCI_MSIX_ENTRY_SIZE,
		       PAGE_BYTES);
	*bar = fn->msix_bar;
	*offset = start;
	*len = MIN(end, MAX(size, start)) - start;
	return true;
}

/* The table entry dword at @offset of the MSI-X BAR, or false. */
static bool in_msix_table(const struct pci_assign_fn *fn, uint32_t bar, uint64_t offset,
			  uint8_t size)
{
	uint64_t end = (uint64_t)fn->msix_offset + (uint64_t)fn->msix_count * PCI_MSIX_ENTRY_SIZE;

	return fn->msix_cap && bar == fn->msix_bar && offset + size > fn->msix_offset &&
	       offset < end;
}

static bool aligned_access(uint64_t offset, uint8_t size)
{
	return (size == 1 || size == 2 || size == 4 || size == 8) && !(offset & (size - 1));
}

uint64_t pci_assign_bar_read(struct pci_assign_fn *fn, uint32_t bar, uint64_t offset,
			     uint8_t size)
{
	uint64_t rel;
	const struct pci_assign_msix_entry *e;

	if (bar >= PCI_TYPE0_BARS || !bar_mem(&fn->bar[bar]) || !aligned_access(offset, size) ||
	    offset >= fn->bar[bar].size || size > fn->bar[bar].size - offset)
		return size >= 8 ? ~0ull : (1ull << (size * 8)) - 1;
	if (!in_msix_table(fn, bar, offset, size))
		return mmio_read(fn, fn->bar[bar].host + offset, size);
	rel = offset - fn->msix_offset;
	if (offset < fn->msix_offset || size < 4 || (rel + size - 1) / 16 != rel / 16)
		return size >= 8 ? ~0ull : (1ull << (size * 8)) - 1;
	e = &fn->msix[rel / 16];
	if (size == 8)
		return e->guest[rel % 16 / 4] | (uint64_t)e->guest[rel % 16 / 4 + 1] << 32;
	return e->guest[rel % 16 / 4];
}

static void msix_entry_write(struct pci_assign_fn *fn, uint32_t i, uint32_t dword, uint32_t v)
{
	struct pci_assign_msix_entry *e = &fn->msix[i];

	if (dword == 0)
		v &= ~3u;	/* the address is dword-aligned */
	else if (dword == MSIX_CTRL)
		v &= PCI_MSIX_ENTRY_CTRL_MASKBIT;
	e->guest[dword] = v;
}

void pci_assign_bar_write(struct pci_assign_fn *fn, uint32_t bar, uint64_t offset, uint8_t size,
			  uint64_t value, struct pci_assign_event *ev)
{
	uint64_t rel;
	uint32_t i;

	memset(ev, 0, sizeof(*ev));
	if (bar >= PCI_TYPE0_BARS || !bar_mem(&fn->bar[bar]) || !aligned_access(offset, size) ||
	    offset >= fn->bar[bar].size || size > fn->bar[bar].size - offset)
		return;
	if (!in_msix_table(fn, bar, offset, size)) {
		mmio_write(fn, fn->bar[bar].host + offset, size, value);
		return;
	}
	rel = offset - fn->msix_offset;
	if (offset < fn->msix_offset || size < 4 || (rel + size - 1) / 16 != rel / 16)
		return;
	i = (uint32_t)(rel / 16);
	msix_entry_write(fn, i, (uint32_t)(rel % 16 / 4), (uint32_t)value);
	if (size == 8)
		msix_entry_write(fn, i, (uint32_t)(rel % 16 / 4 + 1), (uint32_t)(value >> 32));
	msix_sync(fn, i, false, ev);
}

/* ---- power management and PCI Express: the registers a driver needs ---- */

static void pm_write(struct pci_assign_fn *fn, uint32_t r, uint32_t reg, uint32_t v,
		     uint32_t lanes, struct pci_assign_event *ev)
{
	if (r == PCI_PM_CTRL && (lanes & LANES_LOW16))
		phys_write_lanes(fn, reg, v, lanes & LANES_LOW16);	/* PMCSR: the D-state */
	if (r != PCI_PM_CTRL || (lanes & LANES_HIGH16))
		ev->refused |= 1u << PCI_ASSIGN_REFUSED_WRITE;
}

static void exp_write(struct pci_assign_fn *fn, uint32_t r, uint32_t reg, uint32_t v,
		      uint32_t lanes, struct pci_assign_event *ev)
{
	switch (r) {
	case PCI_EXP_DEVCTL:
		/* initiate FLR would reset the BARs and MSI behind the shadow */
		if ((lanes & 0x2) && (v & PCI_EXP_DEVCTL_BCR_FLR)) {
			v &= ~(uint32_t)PCI_EXP_DEVCTL_BCR_FLR;
			ev->refused |= 1u << PCI_ASSIGN_REFUSED_FLR;
		}
		phys_write_lanes(fn, reg, v, lanes);	/* and device status (RW1C) */
		break;
	case PCI_EXP_LNKCTL:
		phys_write_lanes(fn, reg, v, lanes);	/* and link status */
		break;
	case PCI_EXP_DEVCTL2:
		phys_write_lanes(fn, reg, v, lanes & LANES_LOW16);
		if (lanes & LANES_HIGH16)
			ev->refused |= 1u << PCI_ASSIGN_REFUSED_WRITE;
		break;
	default:
		ev->refused |= 1u << PCI_ASSIGN_REFUSED_WRITE;
	}
}

/* ---- the command register ---- */

static void command_write(struct pci_assign_fn *fn, uint16_t value, struct pci_assign_event *ev)
{
	uint16_t want = value & GUEST_COMMAND, was = fn->command;
	uint16_t phys = (uint16_t)phys_read(fn, PCI_COMMAND, 2), next;

	if ((want & PCI_COMMAND_MASTER) && !fn->env->dma_confined) {
		ev->refused |= 1u << PCI_ASSIGN_REFUSED_BUS_MASTER;
		want &= (uint16_t)~PCI_COMMAND_MASTER;
	}
	next = (uint16_t)((phys & ~GUEST_COMMAND) | want);
	/* the BARs as Tempo placed them before anything decodes them again */
	if ((next & DECODE) & ~(phys & DECODE))
		bars_restore(fn);
	fn->command = want;
	if ((want & PCI_COMMAND_MEMORY) && !(was & PCI_COMMAND_MEMORY))
		bars_decode_on(fn, ev);
	if (next != phys)
		phys_write(fn, PCI_COMMAND, 2, next);
	/* a table written while the function did not decode never reached it */
	if ((next & PCI_COMMAND_MEMORY) && !(phys & PCI_COMMAND_MEMORY))
		msix_resync(fn, ev);
}

/* ---- configuration space ---- */

static bool in_cap(uint8_t cap, uint32_t len, uint32_t reg)
{
	return cap && reg >= cap && reg < (uint32_t)cap + len;
}

static uint32_t read_dword(struct pci_assign_fn *fn, uint32_t reg)
{
	if (reg >= PCI_BAR0 && reg <= PCI_BAR5)
		return bar_read(fn, (reg - PCI_BAR0) / 4);
	if (reg == PCI_ROM_ADDRESS)
		return 0;
	if (reg == PCI_INTERRUPT_LINE)
		return (phys_read(fn, reg, 4) & ~0xffu) | fn->interrupt_line;
	if (in_cap(fn->msi_cap, msi_len(fn), reg))
		return msi_read(fn, reg - fn->msi_cap, reg);
	if (in_cap(fn->msix_cap, 12, reg))
		return msix_cap_read(fn, reg - fn->msix_cap, reg);
	return phys_read(fn, reg, 4);
}

static bool access_valid(uint32_t offset, uint8_t size)
{
	return (size == 1 || size == 2 || size == 4) && offset < PCI_EXT_CONFIG_SIZE &&
	       (offset & 3) + size <= 4;
}

static uint32_t width_mask(uint8_t size)
{
	return size >= 4 ? ALL_ONES : (1u << (size * 8)) - 1;
}

uint32_t pci_assign_cfg_read(struct pci_assign_fn *fn, uint32_t offset, uint8_t size)
{
	if (!access_valid(offset, size))
		return width_mask(size);
	return (read_dword(fn, offset & ~3u) >> (offset & 3) * 8) & width_mask(size);
}

static void window_snapshot(const struct pci_assign_fn *fn, struct pci_assign_window *w)
{
	for (uint32_t i = 0; i < PCI_TYPE0_BARS; i++)
		w[i] = pci_assign_window(fn, i);
}

static bool window_differs(struct pci_assign_window a, struct pci_assign_window b)
{
	if (a.live != b.live)
		return true;
	return a.live && (a.gpa != b.gpa || a.hpa != b.hpa);
}

/* The windows before and after: which the hypervisor must remap. */
static void windows_event(struct pci_assign_fn *fn, struct pci_assign_event *ev)
{
	window_snapshot(fn, ev->now);
	for (uint32_t i = 0; i < PCI_TYPE0_BARS; i++)
		if (window_differs(ev->was[i], ev->now[i]))
			ev->bars_changed |= 1u << i;
	if (ev->bars_changed)
		ev->changed |= PCI_ASSIGN_EV_BARS;
	bars_note_allowed(fn);
}

static void write_dword(struct pci_assign_fn *fn, uint32_t reg, uint32_t v, uint32_t lanes,
			struct pci_assign_event *ev)
{
	if (reg == PCI_COMMAND) {
		if (lanes & LANES_LOW16)
			command_write(fn, (uint16_t)merge(phys_read(fn, reg, 2), v, lanes),
				      ev);
		if (lanes & LANES_HIGH16)
			phys_write_lanes(fn, reg, v, lanes & LANES_HIGH16); /* status: RW1C */
	} else if (reg == PCI_CACHE_LINE_SIZE) {
		phys_write_lanes(fn, reg, v, lanes & LANES_LOW16);	/* and latency timer */
		if (lanes & LANES_HIGH16)
			ev->refused |= 1u << PCI_ASSIGN_REFUSED_WRITE;	/* BIST */
	} else if (reg >= PCI_BAR0 && reg <= PCI_BAR5) {
		bar_write(fn, (reg - PCI_BAR0) / 4, merge(bar_read(fn, (reg - PCI_BAR0) / 4), v,
							  lanes), ev);
	} else if (reg == PCI_INTERRUPT_LINE) {
		if (lanes & 1)
			fn->interrupt_line = (uint8_t)v;
		if (lanes & ~1u)
			ev->refused |= 1u << PCI_ASSIGN_REFUSED_WRITE;
	} else if (in_cap(fn->msi_cap, msi_len(fn), reg)) {
		msi_write(fn, reg - fn->msi_cap, reg, v, lanes, ev);
	} else if (in_cap(fn->msix_cap, 12, reg)) {
		msix_cap_write(fn, reg - fn->msix_cap, reg, v, lanes, ev);
	} else if (in_cap(fn->pm_cap, 8, reg)) {
		pm_write(fn, reg - fn->pm_cap, reg, v, lanes, ev);
	} else if (in_cap(fn->exp_cap, 0x3c, reg)) {
		exp_write(fn, reg - fn->exp_cap, reg, v, lanes, ev);
	} else {
		ev->refused |= 1u << PCI_ASSIGN_REFUSED_WRITE;	/* IDs, ROM, the rest */
	}
}

void pci_assign_cfg_write(struct pci_assign_fn *fn, uint32_t offset, uint8_t size,
			  uint32_t value, struct pci_assign_event *ev)
{
	uint32_t shift = (offset & 3) * 8, lanes;

	memset(ev, 0, sizeof(*ev));
	window_snapshot(fn, ev->was);
	if (!access_valid(offset, size)) {
		memcpy(ev->now, ev->was, sizeof(ev->now));
		return;
	}
	lanes = ((1u << size) - 1) << (offset & 3);
	write_dword(fn, offset & ~3u, value << shift, lanes, ev);
	windows_event(fn, ev);
}

enum irq_verdict pci_assign_msi_verdict(const struct pci_assign_fn *fn)
{
	return (enum irq_verdict)fn->msi_verdict;
}

enum irq_verdict pci_assign_msix_verdict(const struct pci_assign_fn *fn, uint32_t i)
{
	return i < fn->msix_count ? (enum irq_verdict)fn->msix[i].verdict : IRQ_OK;
}

/* ---- taking the function, stopping it, restarting it ---- */

static bool pow2(uint64_t x)
{
	return x && !(x & (x - 1));
}

static bool desc_valid(const struct pci_assign_desc *d, char *err, size_t errlen)
{
	for (uint32_t i = 0; i < PCI_TYPE0_BARS; i++) {
		const struct pci_assign_bar_desc *b = &d->bar[i];
		bool io = b->kind == PCI_ASSIGN_BAR_IO;

		if (b->kind == PCI_ASSIGN_BAR_NONE)
			continue;
		if (b->kind > PCI_ASSIGN_BAR_MEM64 || !pow2(b->size) ||
		    (io ? b->size < 4 || b->size > 256 : b->size < 16) ||
		    (b->host & (b->size - 1)) || (b->guest & (b->size - 1)) ||
		    (io && b->guest != b->host) ||
		    (b->kind != PCI_ASSIGN_BAR_MEM64 && (b->host | b->guest) >> 32) ||
		    (io && b->host > 0xffff)) {
			fmt_snprintf(err, errlen, "BAR%u: kind %u, size 0x%llx at 0x%llx (guest "
				     "0x%llx) is not a BAR", i, b->kind,
				     (unsigned long long)b->size, (unsigned long long)b->host,
				     (unsigned long long)b->guest);
			return false;
		}
		if (b->kind == PCI_ASSIGN_BAR_MEM64 &&
		    (i == PCI_TYPE0_BARS - 1 || d->bar[i + 1].kind != PCI_ASSIGN_BAR_NONE)) {
			fmt_snprintf(err, errlen, "BAR%u: a 64-bit BAR needs BAR%u as its upper "
				     "half", i, i + 1);
			return false;
		}
	}
	return true;
}

static void msi_probe(struct pci_assign_fn *fn)
{
	uint16_t control = (uint16_t)phys_read(fn, fn->msi_cap + PCI_MSI_FLAGS, 2);
	bool is64 = control & PCI_MSI_FLAGS_64BIT;

	fn->msi_flags_hw = control & MSI_HW_CONTROL;
	fn->msi_data_off = is64 ? PCI_MSI_DATA_64 : PCI_MSI_DATA_32;
	fn->msi_mask_off = 0;
	if (control & PCI_MSI_FLAGS_MASKBIT)
		fn->msi_mask_off = is64 ? PCI_MSI_MASK_64 : PCI_MSI_MASK_32;
	/* what the function holds, so the first sync writes only what differs */
	fn->msi_phys[0] = phys_read(fn, fn->msi_cap + PCI_MSI_ADDRESS_LO, 4);
	fn->msi_phys[1] = is64 ? phys_read(fn, fn->msi_cap + PCI_MSI_ADDRESS_HI, 4) : 0;
	fn->msi_phys[2] = phys_read(fn, fn->msi_cap + fn->msi_data_off, 2);
}

static bool msix_probe(struct pci_assign_fn *fn, uint32_t cap_entries, char *err,
		       size_t errlen)
{
	uint16_t control = (uint16_t)phys_read(fn, fn->msix_cap + PCI_MSIX_FLAGS, 2);
	uint32_t table = phys_read(fn, fn->msix_cap + PCI_MSIX_TABLE, 4);
	uint32_t bir = table & PCI_MSIX_BIR_MASK;
	uint64_t end;

	fn->msix_count = (control & PCI_MSIX_FLAGS_QSIZE) + 1u;
	fn->msix_offset = table & PCI_MSIX_OFFSET_MASK;
	end = (uint64_t)fn->msix_offset + (uint64_t)fn->msix_count * PCI_MSIX_ENTRY_SIZE;
	if (bir >= PCI_TYPE0_BARS || !bar_mem(&fn->bar[bir]) || end > fn->bar[bir].size) {
		fmt_snprintf(err, errlen, "its MSI-X table (BIR %u, offset 0x%x, %u entries) is "
			     "not inside a memory BAR", bir, fn->msix_offset, fn->msix_count);
		return false;
	}
	if (fn->msix_count > cap_entries || !fn->msix) {
		fmt_snprintf(err, errlen, "its MSI-X table has %u entries, room for %u",
			     fn->msix_count, cap_entries);
		return false;
	}
	fn->msix_bar = (uint8_t)bir;
	return true;
}

/* Shadow state at reset; nothing physical. */
static void shadow_reset(struct pci_assign_fn *fn)
{
	for (uint32_t i = 0; i < PCI_TYPE0_BARS; i++) {
		const struct pci_assign_bar_desc *d = &fn->desc.bar[i];
		struct pci_assign_bar *b = &fn->bar[i];

		b->kind = d->kind;
		b->prefetch = d->prefetch;
		b->size = d->kind == PCI_ASSIGN_BAR_NONE ? 0 : d->size;
		b->host = d->host;
		b->guest = d->guest;
		b->allowed = d->guest;
	}
	fn->command = fn->desc.command & DECODE;
	fn->interrupt_line = fn->desc.interrupt_line;
	fn->msi_control = 0;
	fn->msi_addr_lo = fn->msi_addr_hi = 0;
	fn->msi_data = 0;
	fn->msi_verdict = IRQ_OK;
	fn->msix_control = 0;
	for (uint32_t i = 0; i < fn->msix_count; i++) {
		memset(fn->msix[i].guest, 0, sizeof(fn->msix[i].guest));
		fn->msix[i].guest[MSIX_CTRL] = PCI_MSIX_ENTRY_CTRL_MASKBIT;	/* 6.8.2.9 */
		fn->msix[i].verdict = IRQ_OK;
	}
}

void pci_assign_quiesce(struct pci_assign_fn *fn)
{
	uint16_t cmd = (uint16_t)phys_read(fn, PCI_COMMAND, 2);

	cmd &= (uint16_t)~PCI_COMMAND_MASTER;
	phys_write(fn, PCI_COMMAND, 2, cmd);
	if (fn->msi_cap) {
		fn->msi_phys_control = 0;
		phys_write(fn, fn->msi_cap + PCI_MSI_FLAGS, 2, 0);
	}
	if (fn->msix_cap) {
		phys_write(fn, fn->msix_cap + PCI_MSIX_FLAGS, 2, 0);
		/* the table is memory: the function must decode it to be masked */
		if (!(cmd & PCI_COMMAND_MEMORY)) {
			bars_restore(fn);
			phys_write(fn, PCI_COMMAND, 2, cmd | PCI_COMMAND_MEMORY);
		}
		msix_mask_all(fn);
		if (!(cmd & PCI_COMMAND_MEMORY))
			phys_write(fn, PCI_COMMAND, 2, cmd);
	}
}

bool pci_assign_init(struct pci_assign_fn *fn, const struct pci_assign_desc *desc,
		     const struct pci_assign_env *env, struct pci_assign_msix_entry *msix,
		     uint32_t msix_cap, char *err, size_t errlen)
{
	struct pci_cap_list caps;
	uint8_t type;

	memset(fn, 0, sizeof(*fn));
	if (errlen)
		err[0] = 0;
	fn->bdf = desc->bdf & 0xffff;
	fn->env = env;
	type = (uint8_t)phys_read(fn, PCI_HEADER_TYPE, 1);
	if ((uint16_t)phys_read(fn, PCI_VENDOR_ID, 2) == 0xffff) {
		fmt_snprintf(err, errlen, "no function answers there");
		return false;
	}
	if ((type & PCI_HEADER_TYPE_MASK) != PCI_HEADER_TYPE_NORMAL) {
		fmt_snprintf(err, errlen, "header type %u: only endpoints (type 0) are assigned",
			     type & PCI_HEADER_TYPE_MASK);
		return false;
	}
	if (!desc_valid(desc, err, errlen))
		return false;
	fn->desc = *desc;
	fn->msix = msix;
	shadow_reset(fn);
	pci_cap_walk(env->cfg, fn->bdf, type, &caps);
	fn->msi_cap = pci_cap_find(&caps, PCI_CAP_ID_MSI);
	fn->msix_cap = pci_cap_find(&caps, PCI_CAP_ID_MSIX);
	fn->pm_cap = pci_cap_find(&caps, PCI_CAP_ID_PM);
	fn->exp_cap = pci_cap_find(&caps, PCI_CAP_ID_EXP);
	if (fn->msi_cap)
		msi_probe(fn);
	if (fn->msix_cap && !msix_probe(fn, msix_cap, err, errlen))
		return false;
	shadow_reset(fn);
	for (uint32_t i = 0; i < fn->msix_count; i++) {
		for (uint32_t d = 0; d < 3; d++)
			fn->msix[i].phys[d] = (uint32_t)mmio_read(fn, msix_entry_hpa(fn, i, d), 4);
		fn->msix[i].phys[MSIX_CTRL] = PCI_MSIX_ENTRY_CTRL_MASKBIT;
	}
	pci_assign_quiesce(fn);
	/*
	 * A function whose MSI, MSI-X or bus master does not clear is one Tempo
	 * could never quiet at a stop either (its message stays whatever firmware
	 * left there): it is not assigned.
	 */
	if ((phys_read(fn, PCI_COMMAND, 2) & PCI_COMMAND_MASTER) ||
	    (fn->msi_cap && (phys_read(fn, fn->msi_cap + PCI_MSI_FLAGS, 2) & PCI_MSI_FLAGS_ENABLE)) ||
	    (fn->msix_cap &&
	     (phys_read(fn, fn->msix_cap + PCI_MSIX_FLAGS, 2) & PCI_MSIX_FLAGS_ENABLE))) {
		fmt_snprintf(err, errlen, "its bus master, MSI or MSI-X enable stays on after Tempo "
			     "cleared it: a function that cannot be quieted is not assigned");
		return false;
	}
	return true;
}

void pci_assign_reset(struct pci_assign_fn *fn, struct pci_assign_event *ev)
{
	uint16_t cmd;

	memset(ev, 0, sizeof(*ev));
	window_snapshot(fn, ev->was);
	pci_assign_quiesce(fn);
	shadow_reset(fn);
	bars_restore(fn);
	cmd = (uint16_t)phys_read(fn, PCI_COMMAND, 2);
	cmd = (uint16_t)((cmd & ~GUEST_COMMAND) | fn->command);
	phys_write(fn, PCI_COMMAND, 2, cmd);
	windows_event(fn, ev);
}
