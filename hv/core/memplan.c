// SPDX-License-Identifier: MIT
/*
 * Physical memory planning over a small sorted table of free ranges.
 *
 * Invariant after every call: free[0..count) is sorted by base, every range
 * is non-empty, below the limit, and no two ranges overlap or touch (add
 * merges neighbours; the other operations only shrink or split ranges, which
 * cannot make two touch). Ends are exclusive and at most UINT64_MAX, so a
 * range never wraps; a base + length that would wrap is clipped to the top.
 *
 * When splitting a range needs a table slot and there is none, the smaller
 * remaining piece is dropped: losing a little free memory is safe, while
 * leaving reserved or allocated memory on the free list is not.
 */
#include "hv/core/memplan.h"
#include "hv/lib/lib.h"

/* base + length, clipped to the top of the address space instead of wrapping. */
static uint64_t clip_end(uint64_t base, uint64_t length)
{
	return length > UINT64_MAX - base ? UINT64_MAX : base + length;
}

static void remove_at(struct memplan *mp, uint32_t i, uint32_t n)
{
	memmove(&mp->free[i], &mp->free[i + n], (mp->count - i - n) * sizeof(mp->free[0]));
	mp->count -= n;
}

static void insert_at(struct memplan *mp, uint32_t i, uint64_t base, uint64_t end)
{
	memmove(&mp->free[i + 1], &mp->free[i], (mp->count - i) * sizeof(mp->free[0]));
	mp->free[i].base = base;
	mp->free[i].end = end;
	mp->count++;
}

void memplan_init(struct memplan *mp, uint64_t limit)
{
	memset(mp, 0, sizeof(*mp));
	mp->limit = limit;
}

void memplan_raise_limit(struct memplan *mp, uint64_t limit)
{
	if (limit > mp->limit)
		mp->limit = limit;
}

bool memplan_add(struct memplan *mp, uint64_t base, uint64_t length)
{
	uint64_t end = MIN(clip_end(base, length), mp->limit);
	uint32_t i, j;

	if (base >= end)
		return true;	/* empty once clipped: nothing to add */
	/* [i, j): the ranges that overlap or touch [base, end). */
	for (i = 0; i < mp->count && mp->free[i].end < base; i++)
		;
	for (j = i; j < mp->count && mp->free[j].base <= end; j++)
		;
	if (i == j) {
		if (mp->count >= MEMPLAN_MAX_RANGES)
			return false;
		insert_at(mp, i, base, end);
		return true;
	}
	mp->free[i].base = MIN(mp->free[i].base, base);
	mp->free[i].end = MAX(mp->free[j - 1].end, end);
	remove_at(mp, i + 1, j - i - 1);
	return true;
}

/*
 * Remove [base, end) from range @i, which it lies inside and which it
 * shares at least a byte with. Returns false when a split found the table
 * full and the smaller leftover was dropped.
 */
static bool cut(struct memplan *mp, uint32_t i, uint64_t base, uint64_t end)
{
	struct mem_range *r = &mp->free[i];
	bool low = r->base < base, high = end < r->end;

	if (low && high) {
		if (mp->count < MEMPLAN_MAX_RANGES) {
			insert_at(mp, i + 1, end, mp->free[i].end);
			mp->free[i].end = base;
			return true;
		}
		/* Keep the larger piece; ties keep the higher one. */
		if (base - r->base > r->end - end)
			r->end = base;
		else
			r->base = end;
		return false;
	}
	if (low)
		r->end = base;
	else if (high)
		r->base = end;
	else
		remove_at(mp, i, 1);
	return true;
}

bool memplan_reserve(struct memplan *mp, uint64_t base, uint64_t length)
{
	uint64_t end = clip_end(base, length);
	bool ok = true;
	uint32_t i = 0;

	while (i < mp->count && base < end) {
		struct mem_range *r = &mp->free[i];
		uint32_t before = mp->count;

		if (r->end <= base) {
			i++;
			continue;
		}
		if (r->base >= end)
			break;
		ok &= cut(mp, i, MAX(r->base, base), MIN(r->end, end));
		/*
		 * The next candidate: after a removal it moved to index i;
		 * otherwise what is left of this range lies outside [base, end)
		 * (or is the upper half, which starts at end), so move on.
		 */
		if (mp->count >= before)
			i++;
	}
	return ok;
}

uint64_t memplan_alloc(struct memplan *mp, uint64_t size, uint64_t align)
{
	if (!align)
		align = 1;
	if (!size || (align & (align - 1)))
		return 0;
	for (uint32_t k = mp->count; k-- > 0;) {
		struct mem_range *r = &mp->free[k];
		uint64_t base;

		if (size > r->end - r->base)
			continue;
		base = (r->end - size) & ~(align - 1);
		/* 0 is the failure value, so a block at address 0 is never handed out. */
		if (base < r->base || !base)
			continue;
		cut(mp, k, base, base + size);
		return base;
	}
	return 0;
}

bool memplan_take(struct memplan *mp, uint64_t base, uint64_t size)
{
	if (!size || size > UINT64_MAX - base)
		return false;
	for (uint32_t i = 0; i < mp->count; i++) {
		const struct mem_range *r = &mp->free[i];

		if (r->base <= base && base + size <= r->end) {
			cut(mp, i, base, base + size);
			return true;
		}
		if (r->base > base)
			break;
	}
	return false;
}

uint64_t memplan_free_bytes(const struct memplan *mp)
{
	uint64_t n = 0;

	for (uint32_t i = 0; i < mp->count; i++)
		n += mp->free[i].end - mp->free[i].base;
	return n;
}

uint64_t memplan_largest(const struct memplan *mp, uint64_t align)
{
	uint64_t best = 0;

	if (!align)
		align = 1;
	for (uint32_t i = 0; i < mp->count; i++) {
		uint64_t base = (mp->free[i].base + align - 1) & ~(align - 1);
		uint64_t end = mp->free[i].end & ~(align - 1);

		if (base >= mp->free[i].base && end > base && end - base > best)
			best = end - base;
	}
	return best;
}
