/* SPDX-License-Identifier: MIT */
/*
 * Channels: shared memory between partitions, with doorbells
 * (docs/channels.md). The memory is carved and zeroed at boot and mapped by
 * EPT into the peers only; a peer's restart leaves it as it is. Each peer
 * sees each channel as a PCI function on its own bus (struct channel and
 * channels[] are the state room's: hv/state/partition.h).
 */
#ifndef TEMPO_HV_CHANNEL_H
#define TEMPO_HV_CHANNEL_H

#include <stddef.h>
#include <stdint.h>

#include "hv/core/config.h"
#include "hv/core/memplan.h"

struct vcpu;

/*
 * Carve, zero and map every channel of @cfg into its peers' EPT (after
 * partitions_build). Returns 0, or -1 with the reason in @err.
 */
int channels_build(const struct hv_config *cfg, struct memplan *mp, char *err, size_t errlen);

/* The hypercalls, their arguments checked by hypercall_decode (local index < count). */
void channel_info(const struct vcpu *v, uint32_t local, void *dst);
void channel_bind(struct vcpu *v, uint32_t local, uint32_t vector, uint32_t vcpu);
int64_t channel_ring(struct vcpu *v, uint32_t local, uint64_t peer);

/* CHANNEL lines, one per peer, at the end of the run. */
void channels_report(void);

#endif
