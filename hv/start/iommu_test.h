/* SPDX-License-Identifier: MIT */
/*
 * test=iommu-dma, test=iommu-ir: the VT-d driver (drivers/vtd.c) driven against QEMU's
 * intel-iommu and its edu test device, in root mode, before the VMX
 * checks (QEMU's TCG has no VMX). See docs/devices.md, section VT-d, and
 * the qemu_iommu_* tests (tests/emu/tests.sh).
 */
#ifndef TEMPO_HV_START_IOMMU_TEST_H
#define TEMPO_HV_START_IOMMU_TEST_H

#include <stdint.h>

#include "drivers/acpi.h"
#include "hv/core/boot_info.h"

/*
 * Run self-test @which ("iommu-dma" or "iommu-ir") and end the run:
 * STOP_OK when every check passed.
 */
void __attribute__((noreturn)) iommu_self_test(const char *which, const struct acpi_info *ai,
					       const struct boot_info *bi, uint64_t tsc_hz);

#endif
