/* SPDX-License-Identifier: MIT */
/*
 * Building partitions (hv/build/build.c): their RAM, EPT, images and boot
 * information, vCPUs and shared cores' schedules, and the same again, but
 * the carving, at a restart.
 */
#ifndef TEMPO_HV_BUILD_BUILD_H
#define TEMPO_HV_BUILD_BUILD_H

#include <stddef.h>
#include <stdint.h>

#include "hv/core/boot_info.h"
#include "hv/core/config.h"
#include "hv/core/memplan.h"

struct partition;
struct vcpu;

/*
 * Carve RAM, build the EPT, load the image and the boot information of every
 * partition in @cfg, and hand its vCPUs to their cores. Returns 0, or -1 with
 * the reason in @err (nothing has run yet then).
 */
int partitions_build(const struct hv_config *cfg, const struct boot_info *bi,
		     struct memplan *mp, char *err, size_t errlen);

/* @v's registers, timer, APIC and SIPI state at reset. */
void vcpu_reset(struct vcpu *v);

/*
 * A restart once every vCPU has left and @p's RAM is zeroed: its image and
 * boot information loaded again, its vCPUs out of reset. 0, or -1 with the
 * reason in @err.
 */
int partition_rebuild(struct partition *p, char *err, size_t errlen);

#endif
