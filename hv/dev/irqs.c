// SPDX-License-Identifier: MIT
/*
 * A partition's IOAPIC inputs (irqs =): the virtual IOAPIC its guest
 * programs at 0xFEC00000 (hv/core/vioapic.c), and the physical entries
 * behind it (drivers/ioapic.c), which Tempo owns. The guest's pin n is GSI
 * n of the machine.
 *
 * Delivery follows the partition's timer mode (fixed for its life: a
 * partition with inputs cannot switch modes, hv/time/mode.c):
 * - direct: the physical entry carries the guest's own vector to the
 *   physical APIC id of its own core, whose guest takes it in its IDT with
 *   no exit (external-interrupt exiting is off, arch/x86/vmx.c); its EOI
 *   reaches the IOAPIC as on bare metal (the local APIC's broadcast, or its
 *   write to the virtual IOAPIC's EOI register, passed on);
 * - the others: the entry carries a vector of Tempo's, one per input and
 *   vCPU (hv/state/devirq.h). The external-interrupt exit hands it here
 *   (irq_taken), the guest's vector goes into that vCPU's virtual LAPIC,
 *   or waits for its window on a shared core (counted). A level-triggered
 *   input is held masked from then until the guest's EOI
 *   (vioapic_level_taken, vioapic_eoi), so Tempo's own EOI does not let a
 *   line still asserted fire again at once.
 *
 * An input that fires faster than irq_storm_per_ms ([hypervisor], 50 by
 * default) in a millisecond on
 * the exit path is masked until the guest writes its entry again, and
 * counted: it would otherwise spend its core (or a shared core's other
 * partitions' windows) on exits. On the direct path a storm reaches only
 * the partition's own core, where the VMX-preemption timer still takes
 * Tempo's ticks whatever the guest's interrupts do.
 *
 * A partition that stops or restarts has every physical entry masked at
 * once (the .stop hook), before its RAM is zeroed or reused; a direct
 * level-triggered entry left in service (remote IRR set: the guest stopped
 * inside its handler) is ended first, masked, or the next owner of the
 * input would never get an interrupt on it.
 *
 * A physical device vector belongs to one partition at a time, machine-wide
 * (irq_vector_owners in hv/core/irq_route.h): a direct guest's vector is
 * taken when its entry first goes live and kept until its partition's
 * reset (an entry refused because another partition holds the vector is
 * masked and counted as filtered); the exit path's vectors are taken at
 * build time, each chosen free of every other partition's. So no guest's
 * EOI, broadcast or written to the IOAPIC's EOI register, ends another
 * partition's level interrupt.
 */
#include "arch/x86/trap.h"
#include "drivers/ioapic.h"
#include "hv/apic/apic.h"
#include "hv/core/timer_modes.h"
#include "hv/core/vioapic.h"
#include "hv/dev/devices.h"
#include "hv/dev/dma.h"
#include "hv/guest/mmio.h"
#include "hv/lib/apic_defs.h"
#include "hv/lib/fmt.h"
#include "hv/lib/lib.h"
#include "hv/lib/log.h"
#include "hv/lib/spin.h"
#include "hv/lib/x86.h"
#include "hv/state/devirq.h"
#include "hv/state/hooks.h"
#include "hv/state/partition.h"
#include "hv/state/platform.h"

#define VIOAPIC_PINS_PC		24	/* a PC's first IOAPIC: what guests expect at least */

struct dev_input {
	uint32_t gsi;
	int8_t polarity_low;		/* the machine's, where its MADT says: 1, 0; -1 */
	uint8_t claimed;		/* direct: the physical vector it holds (0: none) */
	uint8_t hw_vector;		/* the vector its entry last went live on (0: never) */
	uint8_t vec[CONFIG_MAX_VCPUS];	/* Tempo's vector on each vCPU's core (not direct) */
	bool storm_masked;		/* past the rate: masked until the guest writes it */
	uint8_t reported;		/* the verdict last counted as filtered */
	uint64_t window_tsc;		/* the storm window's start */
	uint32_t window_count;
	volatile uint64_t taken;	/* interrupts the exit path took */
};

struct part_irqs {
	struct partition *p;
	bool on;			/* the partition has inputs */
	bool direct;			/* its vCPUs own their LAPICs */
	volatile uint32_t lock;		/* the model and the physical entries */
	struct vioapic vio;
	uint32_t input_count;
	struct dev_input in[DEV_MAX_IRQS];
	int8_t input_of_pin[VIOAPIC_MAX_PINS];	/* -1: no input behind the pin */
	volatile uint64_t waited;	/* taken outside the target's window (shared cores) */
	volatile uint64_t filtered;	/* entries the guest unmasked that irq_route refused */
	volatile uint64_t storms;	/* inputs masked for their rate */
	uint32_t storm_per_ms;		/* [hypervisor] irq_storm_per_ms */
	volatile uint64_t eois;		/* guest EOIs passed on to the IOAPIC (direct) */
	volatile uint64_t stop_eois;	/* entries left in service at a stop, ended by Tempo */
};

static struct part_irqs part_irqs[CONFIG_MAX_PARTITIONS];

static struct irq_vector_owners vector_owners;
static volatile uint32_t vector_owners_lock;

static uint16_t owner_of(const struct part_irqs *d)
{
	return (uint16_t)(d->p->id + 1);
}

static void vectors_take(void)
{
	spin_lock(&vector_owners_lock);
}

static void vectors_give(void)
{
	spin_unlock(&vector_owners_lock);
}

/* Direct: input @in's live entry on @vector, if no other partition holds that vector. */
static bool direct_vector_claim(struct part_irqs *d, struct dev_input *in, uint8_t vector)
{
	bool ok = true;

	if (in->claimed == vector)
		return true;
	vectors_take();
	if (irq_vector_claim(&vector_owners, vector, owner_of(d))) {
		if (in->claimed)
			irq_vector_release(&vector_owners, in->claimed, owner_of(d));
		in->claimed = vector;
	} else {
		ok = false;
	}
	vectors_give();
	return ok;
}

static void take(struct part_irqs *d)
{
	spin_lock(&d->lock);
}

static void give(struct part_irqs *d)
{
	spin_unlock(&d->lock);
}

/*
 * The polarity of @gsi's line where the machine's MADT says it (an
 * interrupt source override's flags, ACPI 6.5 5.2.12.5: 01 high, 11 low):
 * -1 where it does not (the device's own: the guest's entry decides). A
 * guest is told what its own tables say (a function's INTx: level,
 * active low, as PCI is) and may write anything, but an entry whose
 * polarity is not the line's sees the idle line as asserted: where the
 * firmware says, the physical entry carries the machine's (Bochs and
 * QEMU route PCI INTx to their IOAPIC active high, with an override).
 */
static int machine_polarity_low(uint32_t gsi)
{
	for (uint32_t i = 0; i < platform.isa_override_count; i++) {
		const struct guest_irq_override *o = &platform.isa_overrides[i];

		if (o->gsi == gsi && (o->flags & 3) == 1)
			return 0;
		if (o->gsi == gsi && (o->flags & 3) == 3)
			return 1;
	}
	return -1;
}

/* Pin @pin's physical entry, as the model and the delivery path make it (under the lock). */
static void program(struct part_irqs *d, uint32_t pin)
{
	int32_t k = pin < VIOAPIC_MAX_PINS ? d->input_of_pin[pin] : -1;
	uint64_t rte = vioapic_phys_rte(&d->vio, pin);
	enum irq_verdict why = vioapic_pin_verdict(&d->vio, pin);
	struct dev_input *in;
	struct irq_target t;

	if (k < 0)
		return;
	in = &d->in[k];
	/*
	 * A vCPU running out its partition's stop must neither unmask what the
	 * stop hook masked nor claim a vector it released (same lock).
	 */
	if (__atomic_load_n(&d->p->state, __ATOMIC_ACQUIRE) != PART_RUNNING)
		rte |= IOAPIC_RTE_MASKED;
	if (!(rte & IOAPIC_RTE_MASKED) && d->direct &&
	    !direct_vector_claim(d, in, (uint8_t)rte)) {
		why = IRQ_VECTOR_TAKEN;
		rte |= IOAPIC_RTE_MASKED;
	}
	if (why != IRQ_OK && why != in->reported)
		d->filtered++;
	in->reported = (uint8_t)why;
	if (!(rte & IOAPIC_RTE_MASKED) && !d->direct) {
		if (vioapic_pin_target(&d->vio, pin, &t) && t.cpu < d->p->vcpu_count)
			rte = (rte & ~IOAPIC_RTE_VECTOR_MASK) | in->vec[t.cpu];
		else
			rte |= IOAPIC_RTE_MASKED;
	}
	if (in->storm_masked)
		rte |= IOAPIC_RTE_MASKED;
	if (in->polarity_low >= 0)
		rte = (rte & ~IOAPIC_RTE_ACTIVE_LOW) | (in->polarity_low ? IOAPIC_RTE_ACTIVE_LOW : 0);
	dma_ioapic_rte_write(in->gsi, irq_rte_keep_vector(rte, &in->hw_vector));
}

static void apply(struct part_irqs *d, const struct vioapic_event *ev)
{
	for (uint32_t w = 0; w < VIOAPIC_PIN_WORDS; w++)
		for (uint64_t bits = ev->pins.bits[w]; bits; bits &= bits - 1)
			program(d, w * 64 + (uint32_t)__builtin_ctzll(bits));
	/*
	 * The guest's write to the EOI register: on the direct path the
	 * physical IOAPIC holds remote IRR for it (the injected path's
	 * physical EOI was Tempo's, and the model took this one).
	 */
	if (ev->eoi_vector_valid && d->direct)
		for (uint32_t k = 0; k < d->input_count; k++) {
			uint64_t rte = d->vio.rte[d->in[k].gsi];

			/*
			 * Only a vector this partition holds: an IOAPIC's EOI
			 * register ends every entry with that vector, so one
			 * the rule refused (another partition's) must not reach
			 * it, or that partition's line would deliver again.
			 */
			if ((rte & IOAPIC_RTE_LEVEL) && (uint8_t)rte == ev->eoi_vector &&
			    d->in[k].claimed == ev->eoi_vector) {
				ioapic_eoi(d->in[k].gsi, ev->eoi_vector);
				d->eois++;
			}
		}
}

/* ---- the guest's register page ---- */

/*
 * The guest's CPUs as a logical destination names them now: each xAPIC
 * vCPU's LDR, the model its DFR says (Linux in xAPIC mode aims its IOAPIC
 * entries at flat logical IDs); x2APIC vCPUs answer no 8-bit logical
 * destination (docs/devices.md). Taken at each write of the register page,
 * which is where a guest programs entries, after its APIC is set up.
 */
static void cpus_follow(struct part_irqs *d)
{
	struct irq_cpus cpus = { .count = MIN(d->p->vcpu_count, (uint32_t)IRQ_MAX_CPUS),
				 .logical_model = IRQ_LOGICAL_FLAT };
	struct vioapic_event ev;

	for (uint32_t i = 0; i < cpus.count; i++) {
		const struct vcpu *v = d->p->vcpus[i];

		cpus.apic_id[i] = v->apic_id;
		if (v->apic.base.mode != APIC_MODE_XAPIC)
			continue;
		cpus.logical_id[i] = (uint8_t)(v->apic.xapic.ldr >> 24);
		if (i == 0 && !(v->apic.xapic.dfr & XAPIC_DFR_MODEL_MASK))
			cpus.logical_model = IRQ_LOGICAL_CLUSTER;
	}
	vioapic_set_cpus(&d->vio, &cpus, &ev);
	apply(d, &ev);
}

static uint64_t vio_read(struct vcpu *v, void *ctx, uint64_t gpa, uint8_t size)
{
	struct part_irqs *d = ctx;
	uint32_t value;

	(void)v;
	take(d);
	value = vioapic_mmio_read(&d->vio, (uint32_t)(gpa & (VIOAPIC_MMIO_SIZE - 1)), size);
	give(d);
	return size == 8 ? ~0ull : value;
}

static void vio_write(struct vcpu *v, void *ctx, uint64_t gpa, uint8_t size, uint64_t value)
{
	struct part_irqs *d = ctx;
	uint32_t off = (uint32_t)(gpa & (VIOAPIC_MMIO_SIZE - 1));
	struct vioapic_event ev;

	(void)v;
	if (size == 8)
		return;		/* no register takes 8 bytes: dropped, as the model drops odd widths */
	take(d);
	cpus_follow(d);
	/* the guest's own write of an entry takes it out of a storm's mask */
	if (off == VIOAPIC_WINDOW && d->vio.regsel >= VIOAPIC_REG_RTE) {
		uint32_t pin = (uint32_t)(d->vio.regsel - VIOAPIC_REG_RTE) / 2;

		if (pin < VIOAPIC_MAX_PINS && d->input_of_pin[pin] >= 0)
			d->in[d->input_of_pin[pin]].storm_masked = false;
	}
	vioapic_mmio_write(&d->vio, off, size, (uint32_t)value, &ev);
	apply(d, &ev);
	give(d);
}

static bool vio_region(struct vcpu *v, struct exit_ctx *x, uint64_t gpa, void *opaque,
		       enum exit_action *a)
{
	struct mmio_device dev = { vio_read, vio_write, opaque };

	*a = mmio_emulate(v, x, gpa, &dev);
	return true;
}

/* ---- the exit path (not direct) ---- */

static void irq_taken(struct vcpu *running, const struct devirq_slot *s)
{
	struct part_irqs *d = s->owner;
	struct dev_input *in = &d->in[s->input];
	struct vcpu *t = s->vcpu;
	uint64_t now = rdtsc(), rte;
	struct vioapic_event ev;
	uint8_t vector;

	take(d);
	rte = d->vio.rte[in->gsi];
	vector = (uint8_t)rte;
	if (rte & IOAPIC_RTE_LEVEL) {
		vioapic_level_taken(&d->vio, vector, t->index, &ev);
		apply(d, &ev);
	}
	if (now - in->window_tsc >= platform.tsc_hz / 1000) {
		in->window_tsc = now;
		in->window_count = 0;
	}
	if (++in->window_count > d->storm_per_ms && !in->storm_masked) {
		in->storm_masked = true;
		d->storms++;
		program(d, in->gsi);
	}
	give(d);
	in->taken++;
	if (t == running) {
		/* a globally disabled APIC takes no interrupt (SDM Vol. 3A 11.4.3) */
		if (t->apic.base.mode != APIC_MODE_DISABLED)
			vlapic_raise(&t->vt.vlapic, vector);
	} else {
		/* its core runs another partition's window: it waits for its own */
		__atomic_fetch_add(&d->waited, 1, __ATOMIC_RELAXED);
		vcpu_send_fixed(running, t, vector);
	}
}

/* The guest's virtual EOI (hv/apic/regs.c): a level input held for it is unmasked. */
static void irq_eoi(struct vcpu *v, uint8_t vector)
{
	struct part_irqs *d = &part_irqs[v->part->id];
	struct vioapic_event ev;

	take(d);
	vioapic_eoi(&d->vio, vector, &ev);
	apply(d, &ev);
	give(d);
}

/* ---- hooks ---- */

/* The exit path's vector @vector, for build time: free of every other partition's, then held. */
static bool inject_vector_usable(uint8_t vector, void *ctx)
{
	struct part_irqs *d = ctx;
	bool ok;

	vectors_take();
	ok = irq_vector_claim(&vector_owners, vector, owner_of(d));
	vectors_give();
	return ok;
}

static int irqs_part_init(struct partition *p, const struct hv_config *cfg, char *err,
			  size_t errlen)
{
	const struct dev_assignment *a = &p->cfg->dev;
	struct part_irqs *d = &part_irqs[p->id];
	struct vioapic_pins pins = { { 0 } };
	struct irq_vector_set forbidden = { { 0 } };
	struct irq_cpus cpus = { .count = p->vcpu_count, .logical_model = IRQ_LOGICAL_FLAT };
	uint32_t pin_count = VIOAPIC_PINS_PC;

	memset(d, 0, sizeof(*d));
	d->p = p;
	d->storm_per_ms = cfg->irq_storm_per_ms;
	if (!a->irq_count)
		return 0;
	memset(d->input_of_pin, -1, sizeof(d->input_of_pin));
	for (uint32_t k = 0; k < a->irq_count && k < DEV_MAX_IRQS; k++) {
		uint32_t gsi = a->irqs[k];

		if (gsi >= VIOAPIC_MAX_PINS || !ioapic_has_gsi(gsi)) {
			fmt_snprintf(err, errlen, "partition '%s': irqs: GSI %u: %s", p->cfg->name,
				     gsi, gsi >= VIOAPIC_MAX_PINS ? "past the virtual IOAPIC's 120 "
				     "inputs" : "no IOAPIC Tempo can reach has it");
			return -1;
		}
		vioapic_pin_add(&pins, gsi);
		d->input_of_pin[gsi] = (int8_t)k;
		d->in[k].gsi = gsi;
		d->in[k].polarity_low = (int8_t)machine_polarity_low(gsi);
		pin_count = MAX(pin_count, gsi + 1);
	}
	d->input_count = MIN(a->irq_count, (uint32_t)DEV_MAX_IRQS);
	for (uint32_t i = 0; i < p->vcpu_count && i < IRQ_MAX_CPUS; i++)
		cpus.apic_id[i] = p->vcpus[i]->apic_id;
	for (uint32_t vec = TRAP_HV_VECTOR_FIRST; vec <= TRAP_HV_VECTOR_LAST; vec++)
		irq_vector_add(&forbidden, (uint8_t)vec);
	if (!vioapic_init(&d->vio, 0, pin_count, &pins, &cpus, &forbidden)) {
		fmt_snprintf(err, errlen, "partition '%s': irqs: its virtual IOAPIC could not be "
			     "made (%u vCPUs, %u inputs)", p->cfg->name, p->vcpu_count, pin_count);
		return -1;
	}
	d->direct = timer_mode(p->cfg->timer)->owns_lapic;
	for (uint32_t k = 0; k < d->input_count && !d->direct; k++)
		for (uint32_t i = 0; i < p->vcpu_count; i++) {
			struct vcpu *v = p->vcpus[i];

			d->in[k].vec[i] = devirq_alloc(v->pcpu->index, irq_taken, d, v, k,
						       inject_vector_usable, d);
			if (!d->in[k].vec[i]) {
				fmt_snprintf(err, errlen, "partition '%s': irqs: CPU %u has no device "
					     "vector left (%u for all inputs that exit, each "
					     "partition's its own)",
					     p->cfg->name, v->pcpu->index, DEVIRQ_VECTORS);
				return -1;
			}
		}
	if (mmio_region_add(p, NULL, CONFIG_GUEST_IOAPIC_BASE, VIOAPIC_MMIO_SIZE, vio_region, d,
			    "the virtual IOAPIC") < 0) {
		fmt_snprintf(err, errlen, "partition '%s': no room for its virtual IOAPIC's page",
			     p->cfg->name);
		return -1;
	}
	if (!d->direct)
		p->dev_eoi = irq_eoi;
	d->on = true;
	for (uint32_t k = 0; k < d->input_count; k++)
		dma_ioapic_rte_write(d->in[k].gsi, IOAPIC_RTE_MASKED);
	return 0;
}

/* Every input masked, the model at reset: before anything else runs on the partition's RAM. */
static void irqs_quiet(struct partition *p)
{
	struct part_irqs *d = &part_irqs[p->id];
	struct vioapic_event ev;

	if (!d->on)
		return;
	take(d);
	for (uint32_t k = 0; k < d->input_count; k++) {
		struct dev_input *in = &d->in[k];
		uint64_t masked;
		uint8_t vector;

		in->storm_masked = false;
		/*
		 * in service on the direct path: ended while masked, before its
		 * vector goes (the entry's: its own, irq_rte_keep_vector)
		 */
		if (d->direct && irq_rte_stop_eoi(ioapic_rte_read(in->gsi), &masked, &vector)) {
			dma_ioapic_rte_write(in->gsi, masked);
			ioapic_eoi(in->gsi, vector);
			d->stop_eois++;
		}
		in->hw_vector = 0;	/* the reset entry is blank */
	}
	vioapic_reset(&d->vio, &ev);
	apply(d, &ev);
	if (d->direct) {
		vectors_take();
		irq_vector_release_all(&vector_owners, owner_of(d));
		vectors_give();
		for (uint32_t k = 0; k < d->input_count; k++)
			d->in[k].claimed = 0;
	}
	give(d);
}

PART_HOOK(55, irqs, .init = irqs_part_init, .reset = irqs_quiet, .stop = irqs_quiet);

void irqs_report_line(const struct partition *p, char *buf, size_t len)
{
	const struct part_irqs *d = &part_irqs[p->id];
	uint64_t taken = 0;

	buf[0] = 0;
	if (!d->on)
		return;
	for (uint32_t k = 0; k < d->input_count; k++)
		taken += d->in[k].taken;
	fmt_snprintf(buf, len, " irqs=%u irq_path=%s irq_exits=%lu irq_waited=%lu irq_filtered=%lu "
		     "irq_storms=%lu irq_eois=%lu irq_stop_eois=%lu", d->input_count,
		     d->direct ? "direct" : "exit", taken, d->waited, d->filtered, d->storms, d->eois,
		     d->stop_eois);
}
