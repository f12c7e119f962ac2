/* SPDX-License-Identifier: MIT */
/*
 * Exact latency statistics for up to 2^32 samples in fixed memory. Values in
 * [0, LAT_EXACT_TICKS) are counted in a histogram one tick wide; the rest
 * (negative: an early interrupt, or very late) are kept one by one in an
 * outlier list and sorted at the end. Any rank (p99, the median) is then the
 * exact sample value, as if all samples had been sorted, unless the outlier
 * list overflowed on the side the rank falls on (lat_rank says so).
 *
 * Pure C, no hardware: built into the guest and into the host unit tests.
 */
#ifndef TEMPO_GUESTS_RTBENCH_LATSTAT_H
#define TEMPO_GUESTS_RTBENCH_LATSTAT_H

#include <stdbool.h>
#include <stdint.h>

/* 2^18 ticks: ~87 us at 3 GHz, 5 ms in Bochs at 50M ips. 1 MiB of counters. */
#define LAT_EXACT_TICKS		(1u << 18)
/* Log2 buckets: [0] < 0, [1] = 0, [k] = [2^(k-2), 2^(k-1)) up to 2^63. */
#define LAT_LOG2_BUCKETS	65

struct lat_stats {
	uint32_t *exact;		/* LAT_EXACT_TICKS counters */
	int64_t *outliers;		/* values outside the exact range */
	uint32_t outliers_max;
	uint32_t outliers_n;
	uint64_t dropped_low;		/* negative outliers that did not fit */
	uint64_t dropped_high;		/* large outliers that did not fit */
	bool sorted;
	uint64_t n;
	int64_t min, max;
	int64_t sum;
	uint64_t log2[LAT_LOG2_BUCKETS];
};

/* @exact: LAT_EXACT_TICKS counters; @outliers: room for @outliers_max values. */
void lat_init(struct lat_stats *s, uint32_t *exact, int64_t *outliers, uint32_t outliers_max);
void lat_add(struct lat_stats *s, int64_t ticks);
/* Sorts the outliers; call once all samples are in, before lat_rank(). */
void lat_finish(struct lat_stats *s);
/*
 * The sample at 1-based @rank in sorted order (1 <= rank <= n). Returns false
 * when that sample is one the outlier list could not keep.
 */
bool lat_rank(const struct lat_stats *s, uint64_t rank, int64_t *value);
/* Nearest-rank percentile: the sample at rank ceil(pct * n / 100); n > 0. */
bool lat_percentile(const struct lat_stats *s, uint32_t pct, int64_t *value);
/* Mean rounded toward zero; n > 0. */
int64_t lat_avg(const struct lat_stats *s);
/* Which log2 bucket @ticks falls in, and the bucket's bounds (inclusive). */
unsigned int lat_log2_bucket(int64_t ticks);
void lat_log2_bounds(unsigned int bucket, int64_t *lo, int64_t *hi);

/* In-place ascending heapsort (O(n log n), no recursion, no extra memory). */
void lat_heapsort(int64_t *v, uint32_t n);

#endif
