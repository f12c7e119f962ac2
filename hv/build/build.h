/* SPDX-License-Identifier: MIT */
#ifndef TEMPO_HV_PARTITION_BUILD_H
#define TEMPO_HV_PARTITION_BUILD_H

#include <stddef.h>
#include <stdint.h>

#include "hv/core/boot_info.h"
#include "hv/core/config.h"
#include "hv/core/memplan.h"

/*
 * Carve RAM, build the EPT, load the image and the boot information of every
 * partition in @cfg, and hand its vCPUs to their cores. Returns 0, or -1 with
 * the reason in @err (nothing has run yet then).
 */
int partitions_build(const struct hv_config *cfg, const struct boot_info *bi,
		     struct memplan *mp, char *err, size_t errlen);

struct partition;

/*
 * Map guest-physical [gpa, gpa + size) of @p onto host-physical @hpa with
 * EPT permissions @perm (4 KiB aligned; 2 MiB pages where aligned). -1 if
 * part of it is mapped already.
 */
int ept_map(struct partition *p, uint64_t gpa, uint64_t hpa, uint64_t size, uint64_t perm);

#endif
