// SPDX-License-Identifier: MIT
/*
 * Port I/O exits: whoever registered the port in the partition's registry
 * (hv/state/region.h; the PC's fixed devices in hv/dev/platform.c, the PCI
 * bus in hv/dev/channel.c) answers, byte by byte as a chipset decodes an
 * access that straddles ranges (hv/core/io_policy.h, io_split); a port
 * nobody registered has no device: reads float high (all ones), writes are
 * dropped.
 */
#include "hv/core/io_policy.h"
#include "hv/exit/exit.h"

/*
 * The access's bytes by the range each one's port is in (io_split): one
 * call per range, each with its own bytes of the value; the bytes no range
 * holds float high or are dropped.
 */
static __attribute__((noinline)) enum exit_action io_ranges(struct vcpu *v, struct exit_ctx *x, uint16_t port,
				  uint8_t size, bool in, uint32_t *value)
{
	const struct port_region *reg[IO_ACCESS_MAX] = { 0 };
	struct io_byte_owner owner[IO_ACCESS_MAX];
	uint8_t in_space = io_bytes_in_space(port, size);
	struct io_split split;

	for (uint8_t i = 0; i < IO_ACCESS_MAX; i++) {
		if (i < in_space)
			reg[i] = port_region_find(v->part, (uint16_t)(port + i));
		owner[i] = (struct io_byte_owner){
			.range = reg[i] ? (int)(reg[i] - v->part->regions.ports) : -1,
			.refuses = reg[i] && reg[i]->refuses,
			.whole = i == 0 && reg[0] && reg[0]->whole_size == size &&
				 port == reg[0]->first,
		};
	}
	if (!io_split(port, size, owner, &split))
		return exit_stop(x, "io_size", size, "port access of an impossible width");
	if (split.refused >= 0) {
		const struct port_region *r = reg[split.refused];

		return r->fn(v, x, (uint16_t)(port + split.refused), size, in, value, r->opaque);
	}
	for (uint8_t i = 0; i < split.count; i++) {
		const struct io_piece *pc = &split.piece[i];
		const struct port_region *r = reg[pc->shift];
		uint32_t mask = pc->size == 4 ? 0xffffffffu : (1u << (8 * pc->size)) - 1;
		uint32_t part = in ? io_float() : (*value >> (8 * pc->shift)) & mask;
		enum exit_action a = r->fn(v, x, pc->port, pc->size, in, &part, r->opaque);

		if (a != EXIT_RESUME)
			return a;
		if (in)
			*value = (*value & ~(mask << (8 * pc->shift))) |
				 ((part & mask) << (8 * pc->shift));
	}
	return EXIT_RESUME;
}

enum exit_action exit_io(struct vcpu *v, struct exit_ctx *x)
{
	uint64_t q = vmread(VMCS_EXIT_QUALIFICATION);
	uint8_t size = (uint8_t)((q & 7) + 1);
	bool in = q & 8;
	uint16_t port = (uint16_t)(q >> 16);
	uint32_t mask = size == 4 ? 0xffffffffu : (1u << (8 * size)) - 1;
	uint32_t value = in ? io_float() : (uint32_t)v->arch.regs.rax & mask;
	const struct port_region *r;
	enum exit_action a;

	if (q & 16)
		return exit_stop(x, "string_io", q, "INS/OUTS are not emulated");
	/*
	 * Every byte in the first byte's range (a byte access always is): one
	 * call, what io_split would answer, without a lookup a byte, so the
	 * commonest accesses (a console's OUT) keep their short path.
	 */
	r = port_region_find(v->part, port);
	if (r && (uint32_t)port + size - 1 <= r->last)
		a = r->fn(v, x, port, size, in, &value, r->opaque);
	else if (!r && size == 1)
		a = EXIT_RESUME;	/* no device: the read floats, the write is dropped */
	else
		a = io_ranges(v, x, port, size, in, &value);
	if (a != EXIT_RESUME)
		return a;
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
