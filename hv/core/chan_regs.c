// SPDX-License-Identifier: MIT
/* A channel function's BAR0 registers (hv/core/chan_pci_abi.h). */
#include "hv/core/chan_regs.h"

#include "hv/lib/lib.h"

#define NAME_END	(TEMPO_CHAN_NAME + TEMPO_CHAN_NAME_LEN)

_Static_assert(NAME_END <= TEMPO_CHAN_PEER_NAMES, "NAME ends before PEER_NAMES");
_Static_assert(CHAN_REGS_PEER_NAMES_END <= TEMPO_PCI_BAR0_SIZE, "the names fit in BAR0");
_Static_assert(TEMPO_CHAN_RECEIVED < TEMPO_CHAN_NAME, "the registers end before NAME");

/* Copy @s NUL-padded into @dst, keeping a NUL at the end. */
static void name_copy(char dst[TEMPO_CHAN_NAME_LEN], const char *s)
{
	memset(dst, 0, TEMPO_CHAN_NAME_LEN);
	if (s)
		memcpy(dst, s, strnlen(s, TEMPO_CHAN_NAME_LEN - 1));
}

void chan_regs_reset(struct chan_regs *r)
{
	r->intr_mask = 0;
	r->ring_result = 0;
	__atomic_store_n(&r->intr_status, 0, __ATOMIC_RELEASE);
	__atomic_store_n(&r->received, 0, __ATOMIC_RELEASE);
}

bool chan_regs_init(struct chan_regs *r, const struct chan_regs_desc *d)
{
	memset(r, 0, sizeof(*r));
	if (!d->peer_count || d->peer_count > TEMPO_CHANNEL_MAX_PEERS || d->self >= d->peer_count)
		return false;
	r->self = d->self;
	r->peer_count = d->peer_count;
	r->access = d->access;
	r->doorbell_limit = d->doorbell_limit;
	r->size = d->size;
	name_copy(r->name, d->name);
	for (uint32_t i = 0; i < d->peer_count; i++)
		name_copy(r->peer_names[i], d->peer_names[i]);
	chan_regs_reset(r);
	return true;
}

void chan_regs_ring_done(struct chan_regs *r, int32_t result)
{
	r->ring_result = result;
}

void chan_regs_doorbell(struct chan_regs *r)
{
	__atomic_fetch_or(&r->intr_status, 1u, __ATOMIC_RELEASE);
	__atomic_fetch_add(&r->received, 1u, __ATOMIC_RELEASE);
}

/* The bytes [offset, offset + size) of @area, which starts at BAR0 offset @base. */
static uint64_t bytes_of(const void *area, uint32_t base, uint32_t offset, uint8_t size)
{
	uint64_t v = 0;

	memcpy(&v, (const uint8_t *)area + (offset - base), size);	/* little-endian */
	return v;
}

/* Inside [first, end)? @size is at most 8, so no sum here wraps. */
static bool inside(uint32_t offset, uint8_t size, uint32_t first, uint32_t end)
{
	return offset >= first && offset + size <= end;
}

static uint32_t reg_read(struct chan_regs *r, uint32_t offset)
{
	switch (offset) {
	case TEMPO_CHAN_INTR_MASK:
		return r->intr_mask;
	case TEMPO_CHAN_INTR_STATUS:
		return __atomic_exchange_n(&r->intr_status, 0, __ATOMIC_ACQ_REL);
	case TEMPO_CHAN_IV_POSITION:
		return r->self;
	case TEMPO_CHAN_MAGIC:
		return TEMPO_CHAN_MAGIC_VALUE;
	case TEMPO_CHAN_VERSION:
		return TEMPO_CHAN_VERSION_VALUE;
	case TEMPO_CHAN_PEER_COUNT:
		return r->peer_count;
	case TEMPO_CHAN_ACCESS:
		return r->access;
	case TEMPO_CHAN_SIZE_LO:
		return (uint32_t)r->size;
	case TEMPO_CHAN_SIZE_HI:
		return (uint32_t)(r->size >> 32);
	case TEMPO_CHAN_DOORBELL_LIMIT:
		return r->doorbell_limit;
	case TEMPO_CHAN_RING_RESULT:
		return (uint32_t)r->ring_result;
	case TEMPO_CHAN_RECEIVED:
		return __atomic_load_n(&r->received, __ATOMIC_ACQUIRE);
	}
	return 0;	/* DOORBELL is write-only; the rest is unused */
}

uint64_t chan_regs_read(struct chan_regs *r, uint32_t offset, uint8_t size)
{
	if (size != 1 && size != 2 && size != 4 && size != 8)
		return 0;
	if (offset >= TEMPO_PCI_BAR0_SIZE)
		return 0;
	if (inside(offset, size, TEMPO_CHAN_NAME, NAME_END))
		return bytes_of(r->name, TEMPO_CHAN_NAME, offset, size);
	if (inside(offset, size, TEMPO_CHAN_PEER_NAMES, CHAN_REGS_PEER_NAMES_END))
		return bytes_of(r->peer_names, TEMPO_CHAN_PEER_NAMES, offset, size);
	if (size != 4 || offset & 3)
		return 0;
	return reg_read(r, offset);
}

struct chan_ring chan_regs_write(struct chan_regs *r, uint32_t offset, uint8_t size,
				 uint64_t value)
{
	struct chan_ring ring = { .ring = false, .peer = 0 };
	uint32_t peer;

	if (size != 4 || offset & 3)
		return ring;
	switch (offset) {
	case TEMPO_CHAN_INTR_MASK:
		r->intr_mask = (uint32_t)value;
		break;
	case TEMPO_CHAN_DOORBELL:
		peer = ((uint32_t)value >> 16) & 0xffff;
		ring.ring = true;
		ring.peer = peer == TEMPO_CHAN_DOORBELL_ALL ? TEMPO_CHANNEL_ALL_PEERS : peer;
		break;
	}
	return ring;
}
