/* SPDX-License-Identifier: MIT */
/*
 * Trapped MMIO (hv/guest/mmio.c): the EPT-violation handler finds which device
 * model answers for a guest-physical page and hands the access to
 * mmio_emulate, which decodes the guest's instruction and calls the model.
 */
#ifndef TEMPO_HV_MMIO_H
#define TEMPO_HV_MMIO_H

#include <stdint.h>

#include "hv/state/exit_ctx.h"

struct vcpu;

struct mmio_device {
	/* a load of @size bytes (1, 2, 4, 8) at @gpa */
	uint64_t (*read)(struct vcpu *v, void *ctx, uint64_t gpa, uint8_t size);
	/* a store of the low @size bytes of @value at @gpa */
	void (*write)(struct vcpu *v, void *ctx, uint64_t gpa, uint8_t size, uint64_t value);
	void *ctx;
};

/*
 * The EPT violation at @gpa is @dev's: emulate the instruction (a MOV of
 * 1-8 bytes) and step past it. Anything else (a fetch, an access during
 * event delivery or a page walk, an instruction that is not a plain MOV, a
 * direction the exit does not confirm) stops the partition, reason "mmio".
 */
enum exit_action mmio_emulate(struct vcpu *v, struct exit_ctx *x, uint64_t gpa,
			      const struct mmio_device *dev);

#endif
