// SPDX-License-Identifier: MIT
#include "guests/rtbench/latstat.h"

#include "hv/lib/div64.h"

void lat_init(struct lat_stats *s, uint32_t *exact, int64_t *outliers, uint32_t outliers_max)
{
	s->exact = exact;
	s->outliers = outliers;
	s->outliers_max = outliers_max;
	s->outliers_n = 0;
	s->dropped_low = 0;
	s->dropped_high = 0;
	s->sorted = true;
	s->n = 0;
	s->min = INT64_MAX;
	s->max = INT64_MIN;
	s->sum = 0;
	for (uint32_t i = 0; i < LAT_EXACT_TICKS; i++)
		exact[i] = 0;
	for (unsigned int i = 0; i < LAT_LOG2_BUCKETS; i++)
		s->log2[i] = 0;
}

unsigned int lat_log2_bucket(int64_t ticks)
{
	if (ticks < 0)
		return 0;
	if (ticks == 0)
		return 1;
	return 2 + 63 - (unsigned int)__builtin_clzll((uint64_t)ticks);
}

void lat_log2_bounds(unsigned int bucket, int64_t *lo, int64_t *hi)
{
	if (bucket == 0) {
		*lo = INT64_MIN;
		*hi = -1;
	} else if (bucket == 1) {
		*lo = 0;
		*hi = 0;
	} else {
		*lo = (int64_t)(1ull << (bucket - 2));
		*hi = (int64_t)((1ull << (bucket - 1)) - 1);
	}
}

void lat_add(struct lat_stats *s, int64_t ticks)
{
	s->n++;
	s->sum += ticks;
	if (ticks < s->min)
		s->min = ticks;
	if (ticks > s->max)
		s->max = ticks;
	s->log2[lat_log2_bucket(ticks)]++;
	if (ticks >= 0 && ticks < (int64_t)LAT_EXACT_TICKS) {
		s->exact[ticks]++;
	} else if (s->outliers_n < s->outliers_max) {
		s->outliers[s->outliers_n++] = ticks;
		s->sorted = false;
	} else if (ticks < 0) {
		s->dropped_low++;
	} else {
		s->dropped_high++;
	}
}

static void sift_down(int64_t *v, uint32_t root, uint32_t n)
{
	for (;;) {
		uint32_t child = 2 * root + 1;
		int64_t t;

		if (child >= n)
			return;
		if (child + 1 < n && v[child + 1] > v[child])
			child++;
		if (v[root] >= v[child])
			return;
		t = v[root];
		v[root] = v[child];
		v[child] = t;
		root = child;
	}
}

void lat_heapsort(int64_t *v, uint32_t n)
{
	if (n < 2)
		return;
	for (uint32_t i = n / 2; i-- > 0;)
		sift_down(v, i, n);
	for (uint32_t end = n - 1; end > 0; end--) {
		int64_t t = v[0];

		v[0] = v[end];
		v[end] = t;
		sift_down(v, 0, end);
	}
}

void lat_finish(struct lat_stats *s)
{
	if (!s->sorted)
		lat_heapsort(s->outliers, s->outliers_n);
	s->sorted = true;
}

bool lat_rank(const struct lat_stats *s, uint64_t rank, int64_t *value)
{
	uint32_t low_kept = 0, i;
	uint64_t seen;

	if (!s->sorted || rank < 1 || rank > s->n)
		return false;
	/* Sorted order: negative outliers, the exact range, large outliers. */
	while (low_kept < s->outliers_n && s->outliers[low_kept] < 0)
		low_kept++;
	if (rank <= low_kept + s->dropped_low) {
		if (s->dropped_low)
			return false;	/* which negative values were dropped is unknown */
		*value = s->outliers[rank - 1];
		return true;
	}
	seen = low_kept + s->dropped_low;
	for (i = 0; i < LAT_EXACT_TICKS; i++) {
		seen += s->exact[i];
		if (seen >= rank) {
			*value = i;
			return true;
		}
	}
	/* Among the large outliers: the kept ones are the first of them in time, not in value. */
	if (s->dropped_high)
		return false;
	*value = s->outliers[low_kept + (rank - seen - 1)];
	return true;
}

bool lat_percentile(const struct lat_stats *s, uint32_t pct, int64_t *value)
{
	uint32_t rem;
	uint64_t rank = div_u64_rem((uint64_t)pct * s->n, 100, &rem);

	if (rem)
		rank++;
	if (rank < 1)
		rank = 1;
	return lat_rank(s, rank, value);
}

int64_t lat_avg(const struct lat_stats *s)
{
	if (!s->n)
		return 0;
	/* n fits 32 bits: the guest counts events in a uint32_t. */
	return div_s64(s->sum, (uint32_t)s->n);
}
