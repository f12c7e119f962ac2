// SPDX-License-Identifier: MIT
/*
 * Channels (hv/dev/channel.h, docs/channels.md): the memory, mapped into each
 * peer with its own access, and the doorbells, which reach a `direct`
 * receiver as a physical fixed IPI on its own core (no exit on its side) and
 * the others through the path of an IPI inside a partition (vcpu_send_fixed).
 */
#include "hv/dev/channel.h"

#include "arch/x86/cpu.h"
#include "hv/apic/apic.h"
#include "hv/core/chan_pci_abi.h"
#include "hv/core/hypercall_abi.h"
#include "hv/core/io_policy.h"
#include "hv/dev/pcifn.h"
#include "hv/guest/mmio.h"
#include "hv/lib/apic_defs.h"
#include "hv/lib/fmt.h"
#include "hv/lib/lib.h"
#include "hv/lib/log.h"
#include "hv/lib/spin.h"
#include "hv/state/ept.h"
#include "hv/state/hooks.h"
#include "hv/state/partition.h"
#include "hv/state/platform.h"

#define MIB2		(2ull << 20)
#define THROTTLE_COUNT_BITS	24
#define THROTTLE_COUNT_MASK	((1ull << THROTTLE_COUNT_BITS) - 1)

_Static_assert(CONFIG_MAX_DOORBELL_LIMIT <= THROTTLE_COUNT_MASK, "a limit fits the count");
_Static_assert(CONFIG_MAX_PEERS <= TEMPO_CHANNEL_MAX_PEERS, "the ABI lists every peer");
_Static_assert(CONFIG_MAX_CHANNELS <= 256, "local indexes fit a byte");
_Static_assert(CONFIG_MAX_CHANNELS <= VPCI_MAX_CHANNELS, "a PCI function for every channel");

static uint64_t tsc_per_ms;

int channels_build(const struct hv_config *cfg, struct memplan *mp, char *err, size_t errlen)
{
	tsc_per_ms = platform.tsc_hz / 1000 ? platform.tsc_hz / 1000 : 1;
	for (uint32_t i = 0; i < cfg->channel_count; i++) {
		const struct channel_config *cc = &cfg->channels[i];
		struct channel *ch = &channels[i];
		uint64_t bytes = ALIGN_UP(cc->size, MIB2);

		ch->cfg = cc;
		ch->hpa = memplan_alloc(mp, bytes, MIB2);
		if (!ch->hpa) {
			fmt_snprintf(err, errlen, "channel '%s' (line %u): no %lu KiB of free RAM "
				     "(%lu MiB left)", cc->name, cc->line, cc->size >> 10,
				     memplan_free_bytes(mp) >> 20);
			return -1;
		}
		zero_ram((void *)(uintptr_t)ch->hpa, bytes);
		log_info("Channel '%s': %lu KiB at 0x%lx, doorbell_limit %u/ms\n", cc->name,
			 cc->size >> 10, ch->hpa, cc->doorbell_limit);
		for (uint32_t k = 0; k < cc->peer_count; k++) {
			const struct channel_peer *pe = &cc->peers[k];
			struct partition *p = &partitions[pe->partition];

			/*
			 * Write-back whatever the peer's PAT says: peers mapping one
			 * page with different types would break coherence between
			 * them (SDM Vol. 3A 12.12.4, aliases). config_parse kept the
			 * ranges apart: a clash here is Tempo's bug.
			 */
			if (ept_map(p, pe->gpa, ch->hpa, cc->size, EPT_IGNORE_PAT |
				    (pe->writable ? EPT_READ | EPT_WRITE : EPT_READ))) {
				fmt_snprintf(err, errlen, "channel '%s': peer '%s' at 0x%lx overlaps "
					     "what it has mapped already", cc->name, p->cfg->name,
					     pe->gpa);
				return -1;
			}
			log_info("Channel '%s': peer %u '%s' %s at gpa 0x%lx-0x%lx\n", cc->name, k,
				 p->cfg->name, pe->writable ? "rw" : "ro", pe->gpa,
				 pe->gpa + cc->size - 1);
		}
		channel_count++;
	}
	return 0;
}

static bool chan_bar0_mmio(struct vcpu *v, struct exit_ctx *x, uint64_t gpa, void *opaque,
			   enum exit_action *a);
static enum exit_action chan_pci_port(struct vcpu *v, struct exit_ctx *x, uint16_t port,
				      uint8_t size, bool in, uint32_t *value, void *opaque);

/* Each channel function's BAR0 region where its BAR decodes now (none where it does not). */
static void chan_regions_follow(struct partition *p)
{
	for (uint32_t i = 0; i < p->channel_count; i++) {
		struct vpci_window w = vpci_bar0(&p->pci.fn[i]);

		mmio_region_set(p, p->chan_region[i], w.gpa, w.decodes ? w.size : 0);
	}
}

/*
 * The partition's side of the config, before its image loads: local
 * indexes, a PCI function for each channel, their BAR0 regions and the
 * configuration ports of the bus.
 */
static int chan_part_init(struct partition *p, const struct hv_config *cfg, char *err,
			  size_t errlen)
{
	struct vpci_chan_desc descs[CONFIG_MAX_CHANNELS];
	int id;

	p->channel_count = 0;
	for (uint32_t i = 0; i < cfg->channel_count; i++) {
		const struct channel_config *cc = &cfg->channels[i];

		for (uint32_t k = 0; k < cc->peer_count; k++) {
			const struct channel_peer *pe = &cc->peers[k];
			struct chan_regs_desc d = {
				.self = k,
				.peer_count = cc->peer_count,
				.access = pe->writable ? TEMPO_CHANNEL_RW : TEMPO_CHANNEL_RO,
				.doorbell_limit = cc->doorbell_limit,
				.size = cc->size,
				.name = cc->name,
			};
			uint32_t local = p->channel_count;

			if (pe->partition != p->id)
				continue;
			for (uint32_t j = 0; j < cc->peer_count; j++)
				d.peer_names[j] = cfg->partitions[cc->peers[j].partition].name;
			chan_regs_init(&p->chan_regs[local], &d);
			descs[local] = (struct vpci_chan_desc){ cc->size, pe->gpa };
			channels[i].peers[k].local = (uint8_t)local;
			p->channel_of[local] = (uint8_t)i;
			p->channel_self[local] = (uint8_t)k;
			p->channel_count++;
		}
	}
	if (!vpci_init(&p->pci, descs, p->channel_count)) {
		fmt_snprintf(err, errlen, "partition '%s': a channel's address cannot be a PCI "
			     "BAR (config_parse should have refused it)", p->cfg->name);
		return -1;
	}
	/* the bus is there for its channels and for its assigned functions (hv/dev/pcifn.c) */
	if (!p->channel_count && !p->cfg->dev.pci_count)
		return 0;
	for (uint32_t i = 0; i < p->channel_count; i++) {
		p->chan_region[i] = mmio_region_add(p, NULL, 0, 0, chan_bar0_mmio,
						    (void *)(uintptr_t)i, "channel BAR0");
		if (p->chan_region[i] < 0)
			goto full;
	}
	chan_regions_follow(p);
	/*
	 * CONFIG_ADDRESS is a dword at 0xCF8, and only that: a byte at 0xCF9
	 * is the reset control register (hv/core/io_policy.h, io_split).
	 */
	id = port_region_add(p, TEMPO_PCI_CF8, TEMPO_PCI_CF8, chan_pci_port, NULL, "PCI");
	port_region_whole(p, id, 4);
	if (id < 0 ||
	    port_region_add(p, TEMPO_PCI_CFC, TEMPO_PCI_CFC + 3, chan_pci_port, NULL, "PCI") < 0)
		goto full;
	return 0;
full:
	fmt_snprintf(err, errlen, "partition '%s': its region table is full", p->cfg->name);
	return -1;
}

void channel_info(const struct vcpu *v, uint32_t local, void *dst)
{
	const struct partition *p = v->part;
	const struct channel_config *cc = channels[p->channel_of[local]].cfg;
	uint32_t self = p->channel_self[local];
	struct tempo_channel_info info;

	memset(&info, 0, sizeof(info));
	str_copy(info.name, sizeof(info.name), cc->name, CONFIG_NAME_LEN);
	info.gpa = cc->peers[self].gpa;
	info.size = cc->size;
	info.access = cc->peers[self].writable ? TEMPO_CHANNEL_RW : TEMPO_CHANNEL_RO;
	info.peer_count = cc->peer_count;
	info.self = self;
	info.doorbell_limit = cc->doorbell_limit;
	for (uint32_t k = 0; k < cc->peer_count; k++)
		str_copy(info.peers[k], sizeof(info.peers[k]),
			 partitions[cc->peers[k].partition].cfg->name, CONFIG_NAME_LEN);
	memcpy(dst, &info, sizeof(info));
}

void channel_bind(struct vcpu *v, uint32_t local, uint32_t vector, uint32_t vcpu)
{
	const struct partition *p = v->part;

	__atomic_store_n(&channels[p->channel_of[local]].peers[p->channel_self[local]].bound,
			 vector ? vector | vcpu << 8 : 0, __ATOMIC_RELEASE);
}

/* @p restarts: its doorbells are unbound until its new instance binds them. */
static void chan_part_reset(struct partition *p)
{
	for (uint32_t i = 0; i < p->channel_count; i++) {
		__atomic_store_n(&channels[p->channel_of[i]].peers[p->channel_self[i]].bound, 0,
				 __ATOMIC_RELEASE);
		chan_regs_reset(&p->chan_regs[i]);
	}
	vpci_reset(&p->pci);
	chan_regions_follow(p);
	/*
	 * Every vCPU has left: none holds the lock, unless a hypervisor fault
	 * ended one inside it (hv_exit_fault), which must not hang the restart.
	 */
	spin_unlock(&p->pci_lock);
}

PART_HOOK(40, channels, .init = chan_part_init, .reset = chan_part_reset);

/* One more ring in this millisecond, unless @limit are spent already. */
static bool throttle_take(struct channel_peer_state *s, uint32_t limit)
{
	uint64_t ms = rdtsc() / tsc_per_ms, old = __atomic_load_n(&s->throttle, __ATOMIC_RELAXED);

	for (;;) {
		uint64_t next;

		if (old >> THROTTLE_COUNT_BITS != (ms << THROTTLE_COUNT_BITS) >> THROTTLE_COUNT_BITS)
			next = ms << THROTTLE_COUNT_BITS | 1;	/* a new millisecond */
		else if ((old & THROTTLE_COUNT_MASK) >= limit)
			return false;
		else
			next = old + 1;
		if (__atomic_compare_exchange_n(&s->throttle, &old, next, false, __ATOMIC_RELAXED,
						__ATOMIC_RELAXED))
			return true;
	}
}

/* A doorbell for peer @k of @ch: to its bound vCPU, or dropped and counted. */
static bool doorbell(struct vcpu *from, struct channel *ch, uint32_t k)
{
	struct channel_peer_state *s = &ch->peers[k];
	struct partition *t = &partitions[ch->cfg->peers[k].partition];
	uint32_t bound = __atomic_load_n(&s->bound, __ATOMIC_ACQUIRE);

	struct vcpu *tv = bound ? t->vcpus[bound >> 8] : NULL;

	/* the status first: the guest's handler reads it (chan_regs.h) */
	if (!tv || __atomic_load_n(&t->state, __ATOMIC_ACQUIRE) != PART_RUNNING ||
	    tv->state != VCPU_RUNNING) {
		__atomic_fetch_add(&s->dropped, 1, __ATOMIC_RELAXED);
		return false;
	}
	chan_regs_doorbell(&t->chan_regs[s->local]);
	if (!vcpu_send_fixed(from, tv, (uint8_t)bound)) {
		__atomic_fetch_add(&s->dropped, 1, __ATOMIC_RELAXED);
		return false;
	}
	__atomic_fetch_add(&s->delivered, 1, __ATOMIC_RELAXED);
	return true;
}

int64_t channel_ring(struct vcpu *v, uint32_t local, uint64_t peer)
{
	const struct partition *p = v->part;
	struct channel *ch = &channels[p->channel_of[local]];
	uint32_t self = p->channel_self[local], n = ch->cfg->peer_count;
	struct channel_peer_state *me = &ch->peers[self];
	int64_t sent = 0;

	/* all peers: 0xffffffff, or -1 from a 64-bit guest */
	if (peer == ~0ull)
		peer = TEMPO_CHANNEL_ALL_PEERS;
	if (peer != TEMPO_CHANNEL_ALL_PEERS && (peer >= n || peer == self))
		return TEMPO_HC_EINVAL;
	if (!throttle_take(me, ch->cfg->doorbell_limit)) {
		__atomic_fetch_add(&me->throttled, 1, __ATOMIC_RELAXED);
		return TEMPO_HC_EAGAIN;
	}
	__atomic_fetch_add(&me->rings, 1, __ATOMIC_RELAXED);
	for (uint32_t k = 0; k < n; k++)
		if (k != self && (peer == TEMPO_CHANNEL_ALL_PEERS || k == peer))
			sent += doorbell(v, ch, k);
	return sent;
}

/* ---- the channels as PCI functions (hv/core/vpci.h, hv/core/chan_regs.h) ---- */

static void pci_lock(struct partition *p)
{
	spin_lock(&p->pci_lock);
}

static void pci_unlock(struct partition *p)
{
	spin_unlock(&p->pci_lock);
}

/* x2APIC mode, no interrupt remapping: an MSI's 8-bit logical destination is cluster 0's. */
static bool msi_logical_match(uint32_t apic_id, uint8_t dest)
{
	uint32_t ldr = x2apic_logical_id(apic_id);

	return !(ldr >> 16) && (ldr & dest);
}

/* The MSI the guest programmed is where the channel's doorbells go (as a bind). */
static void msi_follow(struct partition *p, uint32_t local)
{
	uint32_t bound = 0;
	uint8_t vector, dest;
	bool logical;

	if (vpci_msi_target(&p->pci.fn[local], &vector, &dest, &logical))
		for (uint32_t i = 0; i < p->vcpu_count; i++) {
			uint32_t id = p->vcpus[i]->apic_id;

			if (logical ? msi_logical_match(id, dest) : id == dest) {
				bound = vector | i << 8;
				break;
			}
		}
	__atomic_store_n(&channels[p->channel_of[local]].peers[p->channel_self[local]].bound,
			 bound, __ATOMIC_RELEASE);
}

/*
 * Ports 0xCF8 and 0xCFC-0xCFF: the configuration mechanism, for the access
 * widths hv/core/vpci.c takes (others read all ones and are dropped).
 */
static enum exit_action chan_pci_port(struct vcpu *v, struct exit_ctx *x, uint16_t port,
				      uint8_t size, bool in, uint32_t *value, void *opaque)
{
	struct partition *p = v->part;
	struct vpci_event ev;
	uint32_t bdf, offset;
	bool other;

	(void)x;
	(void)opaque;
	if (!vpci_claims(port, size))
		return EXIT_RESUME;
	pci_lock(p);
	other = vpci_data_target(&p->pci, port, size, &bdf, &offset);
	pci_unlock(p);
	/* an assigned function's register: its filter, under its own lock */
	if (other && pcifn_cfg(p, bdf, offset, size, in, value))
		return EXIT_RESUME;
	pci_lock(p);
	if (in) {
		*value = vpci_io_read(&p->pci, port, size);
	} else {
		/*
		 * BAR2 is not followed: the channel stays mapped where the boot
		 * put it (the address the BAR reads at reset, as firmware leaves
		 * it), so nothing a guest writes makes root mode map, unmap or
		 * allocate EPT tables. A guest that moves BAR2 finds nothing at the
		 * new place (an access there stops it, as any access outside its
		 * RAM and channels). BAR0 is emulated: its region follows.
		 */
		if (vpci_io_write(&p->pci, port, size, *value, &ev) & VPCI_EV_MSI)
			msi_follow(p, ev.chan);
		chan_regions_follow(p);
	}
	pci_unlock(p);
	return EXIT_RESUME;
}

/* The BAR0 an EPT violation hit. */
struct bar0_hit {
	uint32_t local;
	uint64_t base;
};

static uint64_t bar0_read(struct vcpu *v, void *ctx, uint64_t gpa, uint8_t size)
{
	const struct bar0_hit *h = ctx;
	uint64_t value;

	pci_lock(v->part);
	value = chan_regs_read(&v->part->chan_regs[h->local], (uint32_t)(gpa - h->base), size);
	pci_unlock(v->part);
	return value;
}

static void bar0_write(struct vcpu *v, void *ctx, uint64_t gpa, uint8_t size, uint64_t value)
{
	const struct bar0_hit *h = ctx;
	struct chan_regs *r = &v->part->chan_regs[h->local];
	struct chan_ring ring;
	int64_t sent;

	pci_lock(v->part);
	ring = chan_regs_write(r, (uint32_t)(gpa - h->base), size, value);
	pci_unlock(v->part);
	if (!ring.ring)
		return;
	/* as the ring hypercall: one exit on the sender, the same checks and limit */
	sent = channel_ring(v, h->local, ring.peer);
	pci_lock(v->part);
	chan_regs_ring_done(r, (int32_t)sent);
	pci_unlock(v->part);
}

/* An access to a channel function's BAR0 region: its registers (hv/core/chan_regs.h). */
static bool chan_bar0_mmio(struct vcpu *v, struct exit_ctx *x, uint64_t gpa, void *opaque,
			   enum exit_action *a)
{
	struct partition *p = v->part;
	struct bar0_hit hit;
	struct mmio_device dev = { bar0_read, bar0_write, &hit };
	uint32_t offset;
	int32_t local;

	(void)opaque;
	/* the region follows the BAR, but a sibling may move it meanwhile: ask the bus */
	pci_lock(p);
	local = vpci_find_bar0(&p->pci, gpa, &offset);
	pci_unlock(p);
	if (local < 0)
		return false;
	hit.local = (uint32_t)local;
	hit.base = gpa - offset;
	*a = mmio_emulate(v, x, gpa, &dev);
	return true;
}

void channels_report(void)
{
	for (uint32_t i = 0; i < channel_count; i++) {
		const struct channel *ch = &channels[i];

		for (uint32_t k = 0; k < ch->cfg->peer_count; k++) {
			const struct channel_peer_state *s = &ch->peers[k];

			log_printf(LOG_EMERG, "CHANNEL name=%s peer=%s access=%s rings=%lu "
				   "throttled=%lu delivered=%lu dropped=%lu\n", ch->cfg->name,
				   partitions[ch->cfg->peers[k].partition].cfg->name,
				   ch->cfg->peers[k].writable ? "rw" : "ro", s->rings, s->throttled,
				   s->delivered, s->dropped);
		}
	}
}
