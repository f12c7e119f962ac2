// SPDX-License-Identifier: MIT
/*
 * Port I/O exits: whoever registered the port in the partition's registry
 * (hv/state/region.h; the PC's fixed devices in hv/dev/platform.c, the PCI
 * bus in hv/dev/channel.c) answers; a port nobody registered has no
 * device: reads float high (all ones), writes are dropped.
 */
#include "hv/core/io_policy.h"
#include "hv/exit/exit.h"

enum exit_action exit_io(struct vcpu *v, struct exit_ctx *x)
{
	uint64_t q = vmread(VMCS_EXIT_QUALIFICATION);
	uint8_t size = (uint8_t)((q & 7) + 1);
	bool in = q & 8;
	uint16_t port = (uint16_t)(q >> 16);
	uint32_t mask = size == 4 ? 0xffffffffu : (1u << (8 * size)) - 1;
	uint32_t value = in ? io_float() : (uint32_t)v->arch.regs.rax & mask;
	const struct port_region *r;

	if (q & 16)
		return exit_stop(x, "string_io", q, "INS/OUTS are not emulated");
	r = port_region_find(v->part, port);
	if (r) {
		enum exit_action a = r->fn(v, x, port, size, in, &value, r->opaque);

		if (a != EXIT_RESUME)
			return a;
	}
	if (in) {
		if (size == 1)
			v->arch.regs.rax = (v->arch.regs.rax & ~0xffull) | (value & 0xff);
		else if (size == 2)
			v->arch.regs.rax = (v->arch.regs.rax & ~0xffffull) | (value & 0xffff);
		else
			v->arch.regs.rax = value;
	}
	skip_instruction();
	return EXIT_RESUME;
}
