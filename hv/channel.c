// SPDX-License-Identifier: MIT
/*
 * Channels (hv/channel.h, docs/channels.md): the memory, mapped into each
 * peer with its own access, and the doorbells, which reach a `direct`
 * receiver as a physical fixed IPI on its own core (no exit on its side) and
 * the others through the path of an IPI inside a partition (vcpu_send_fixed).
 */
#include "hv/channel.h"

#include "arch/x86/cpu.h"
#include "hv/core/hypercall_abi.h"
#include "hv/exit.h"
#include "hv/lib/fmt.h"
#include "hv/lib/lib.h"
#include "hv/lib/log.h"
#include "hv/partition.h"
#include "hv/partition_build.h"
#include "hv/platform.h"

#define MIB2		(2ull << 20)
#define THROTTLE_COUNT_BITS	24
#define THROTTLE_COUNT_MASK	((1ull << THROTTLE_COUNT_BITS) - 1)

_Static_assert(CONFIG_MAX_DOORBELL_LIMIT <= THROTTLE_COUNT_MASK, "a limit fits the count");
_Static_assert(CONFIG_MAX_PEERS <= TEMPO_CHANNEL_MAX_PEERS, "the ABI lists every peer");
_Static_assert(CONFIG_MAX_CHANNELS <= 256, "local indexes fit a byte");

struct channel channels[CONFIG_MAX_CHANNELS];
uint32_t channel_count;
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
				     "below 4 GiB (%lu MiB left)", cc->name, cc->line, cc->size >> 10,
				     memplan_free_bytes(mp) >> 20);
			return -1;
		}
		memset((void *)(uintptr_t)ch->hpa, 0, bytes);
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
			p->channel_of[p->channel_count] = (uint8_t)i;
			p->channel_self[p->channel_count++] = (uint8_t)k;
			log_info("Channel '%s': peer %u '%s' %s at gpa 0x%lx-0x%lx\n", cc->name, k,
				 p->cfg->name, pe->writable ? "rw" : "ro", pe->gpa,
				 pe->gpa + cc->size - 1);
		}
		channel_count++;
	}
	return 0;
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

void channels_partition_reset(struct partition *p)
{
	for (uint32_t i = 0; i < p->channel_count; i++)
		__atomic_store_n(&channels[p->channel_of[i]].peers[p->channel_self[i]].bound, 0,
				 __ATOMIC_RELEASE);
}

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

	if (!bound || __atomic_load_n(&t->state, __ATOMIC_ACQUIRE) != PART_RUNNING ||
	    !vcpu_send_fixed(from, t->vcpus[bound >> 8], (uint8_t)bound)) {
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
