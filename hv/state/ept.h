/* SPDX-License-Identifier: MIT */
/* A partition's EPT (hv/state/ept.c): its guest-physical map, built at boot and never changed. */
#ifndef TEMPO_HV_STATE_EPT_H
#define TEMPO_HV_STATE_EPT_H

#include <stdint.h>

struct partition;

/* An empty EPT for @p (p->eptp). */
void ept_create(struct partition *p);

/*
 * Map guest-physical [gpa, gpa + size) of @p onto host-physical @hpa with
 * EPT permissions @perm (4 KiB aligned; 2 MiB pages where aligned). -1 if
 * part of it is mapped already.
 */
int ept_map(struct partition *p, uint64_t gpa, uint64_t hpa, uint64_t size, uint64_t perm);
/* The same, uncached whatever the guest's PAT says: a device's registers (mmio =). */
int ept_map_uc(struct partition *p, uint64_t gpa, uint64_t hpa, uint64_t size, uint64_t perm);

#endif
