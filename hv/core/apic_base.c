// SPDX-License-Identifier: MIT
/* IA32_APIC_BASE: the mode state machine of SDM Vol. 3A 11.12.5 (apic_base.h). */
#include "hv/core/apic_base.h"

#include "hv/lib/apic_defs.h"

/* Bits 0-7 and 9 are reserved in every mode (figure 11-5). */
#define APIC_BASE_LOW_RESERVED	0x2ffull

void apic_base_init(struct apic_base_state *s, enum apic_mode mode, bool bsp)
{
	s->mode = mode;
	s->base = APIC_BASE_DEFAULT;
	s->bsp = bsp;
}

uint64_t apic_base_value(const struct apic_base_state *s)
{
	uint64_t v = s->base | (s->bsp ? APIC_BASE_BSP : 0);

	if (s->mode != APIC_MODE_DISABLED)
		v |= APIC_BASE_EN;
	if (s->mode == APIC_MODE_X2APIC)
		v |= APIC_BASE_EXTD;
	return v;
}

/* Bits at and above MAXPHYADDR (clamped to 12..63: 12 and below leave no base). */
static uint64_t high_reserved(uint32_t maxphyaddr)
{
	if (maxphyaddr >= 64)
		return 0;
	if (maxphyaddr < APIC_BASE_ADDR_SHIFT)
		maxphyaddr = APIC_BASE_ADDR_SHIFT;
	return ~0ull << maxphyaddr;
}

static struct apic_base_write gp(const struct apic_base_state *s, enum apic_base_fault f,
				 const char *why)
{
	return (struct apic_base_write){ .fault = f, .why = why, .state = *s };
}

struct apic_base_write apic_base_write(const struct apic_base_state *s, uint64_t value,
				       const struct apic_base_caps *caps)
{
	uint64_t reserved = APIC_BASE_LOW_RESERVED | high_reserved(caps->maxphyaddr);
	bool en = value & APIC_BASE_EN, extd = value & APIC_BASE_EXTD;
	struct apic_base_write w = { .fault = APIC_BASE_OK, .state = *s };
	enum apic_mode to;

	if (!caps->x2apic)
		reserved |= APIC_BASE_EXTD;
	if (value & reserved)
		return gp(s, APIC_BASE_GP_RESERVED, "reserved bit set");
	if (extd && !en)
		return gp(s, APIC_BASE_GP_INVALID, "EXTD without EN is the invalid state");
	to = !en ? APIC_MODE_DISABLED : extd ? APIC_MODE_X2APIC : APIC_MODE_XAPIC;
	if (s->mode == APIC_MODE_X2APIC && to == APIC_MODE_XAPIC)
		return gp(s, APIC_BASE_GP_X2APIC_TO_XAPIC,
			  "x2APIC to xAPIC: only through the disabled state");
	if (s->mode == APIC_MODE_DISABLED && to == APIC_MODE_X2APIC)
		return gp(s, APIC_BASE_GP_DISABLED_TO_X2APIC,
			  "disabled to x2APIC: only through xAPIC mode");

	/* BSP: not reserved, not writable (apic_base.h); bits 63:12 less reserved: the base */
	w.state.mode = to;
	w.state.base = value & ~0xfffull;
	w.mode_changed = to != s->mode;
	w.base_moved = w.state.base != s->base;
	w.reset = w.mode_changed && to == APIC_MODE_DISABLED;
	return w;
}

bool apic_base_page_decoded(const struct apic_base_state *s)
{
	return s->mode == APIC_MODE_XAPIC;
}

uint64_t apic_base_undecoded_read(uint32_t size_bytes)
{
	if (size_bytes >= 8)
		return ~0ull;
	return (1ull << (size_bytes * 8)) - 1;
}
