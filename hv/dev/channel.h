/* SPDX-License-Identifier: MIT */
/*
 * Channels: shared memory between partitions, with doorbells
 * (docs/channels.md). The memory is carved and zeroed at boot and mapped by
 * EPT into the peers only; a peer's restart leaves it as it is.
 */
#ifndef TEMPO_HV_CHANNEL_H
#define TEMPO_HV_CHANNEL_H

#include <stddef.h>
#include <stdint.h>

#include "hv/core/config.h"
#include "hv/core/memplan.h"
#include "hv/exit/exit.h"

struct partition;

/* One peer's side of a channel: its doorbell and its counters. */
struct channel_peer_state {
	/* the vector it takes doorbells on | the vCPU index << 8; 0: none */
	volatile uint32_t bound;
	uint8_t local;			/* the channel's local index in that partition */
	/* its rings in the current millisecond: (ms << 24) | count */
	volatile uint64_t throttle;
	volatile uint64_t rings;	/* ring hypercalls that sent (as a sender) */
	volatile uint64_t throttled;	/* ring hypercalls refused by doorbell_limit */
	volatile uint64_t delivered;	/* doorbells that reached it */
	volatile uint64_t dropped;	/* doorbells for it while it had no vector or was not running */
};

struct channel {
	const struct channel_config *cfg;
	uint64_t hpa;			/* host-physical base of its memory */
	struct channel_peer_state peers[CONFIG_MAX_PEERS];
};

extern struct channel channels[CONFIG_MAX_CHANNELS];
extern uint32_t channel_count;

/*
 * Carve, zero and map every channel of @cfg into its peers' EPT (after
 * partitions_build). Returns 0, or -1 with the reason in @err.
 */
int channels_build(const struct hv_config *cfg, struct memplan *mp, char *err, size_t errlen);

/*
 * Before @p's image loads (and its ACPI tables, which describe its PCI
 * bus): its channels by local index, and a PCI function for each.
 */
int channels_partition_init(struct partition *p, const struct hv_config *cfg, char *err,
			    size_t errlen);

/* The hypercalls, their arguments checked by hypercall_decode (local index < count). */
void channel_info(const struct vcpu *v, uint32_t local, void *dst);
void channel_bind(struct vcpu *v, uint32_t local, uint32_t vector, uint32_t vcpu);
int64_t channel_ring(struct vcpu *v, uint32_t local, uint64_t peer);

/* @p restarts: its doorbells are unbound until its new instance binds them. */
void channels_partition_reset(struct partition *p);

/* Ports 0xCF8-0xCFF of a partition with channels, accesses vpci_claims() takes. */
uint32_t channel_pci_in(struct vcpu *v, uint16_t port, uint8_t size);
void channel_pci_out(struct vcpu *v, uint16_t port, uint8_t size, uint32_t value);

/* An EPT violation at @gpa: a channel function's BAR0? Then *@a is what happens next. */
bool channel_mmio(struct vcpu *v, struct exit_ctx *x, uint64_t gpa, enum exit_action *a);

/* CHANNEL lines, one per peer, at the end of the run. */
void channels_report(void);

#endif
