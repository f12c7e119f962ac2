// SPDX-License-Identifier: MIT
/*
 * The exit path's profile (TEMPO_PROFILE builds, hv/ops/prof.h): each
 * exit that reaches hv closes the previous one of its vCPU (whose entry
 * stamp arch took just before VMRESUME) and sums its segments by reason and
 * path. A segment whose end point the exit did not pass (no virtual
 * delivery in direct mode, say) counts 0. The end of the run prints them
 * (prof_report). Each stamp costs a few instructions of its own, measured
 * once (prof_stamp_ticks) and taken off every segment.
 */
#include "hv/ops/prof.h"

#include "arch/x86/vmx.h"
#include "hv/lib/fmt.h"
#include "hv/lib/lib.h"
#include "hv/lib/log.h"
#include "hv/state/partition.h"

#ifdef TEMPO_PROFILE

static uint64_t prof_stamp_ticks;

static const char *const path_names[PROF_PATHS] = { "full", "fast", "quick" };

static const char *const segment_names[PROF_SEGMENTS] = {
	"stub", "dispatch", "handler", "tail", "delivery", "arm", "entry",
};

static void prof_close(struct vcpu *v)
{
	struct vcpu_prof *p = &v->stats.prof;
	struct prof_path *path;
	uint64_t total;

	if (!p->open || p->reason >= EXIT_REASON_COUNT)
		return;
	path = &p->paths[p->reason][p->path];
	/* a point not passed takes the next one's stamp: its segment is 0 */
	for (int i = PROF_POINTS - 2; i >= 0; i--)
		if (!p->t[i])
			p->t[i] = p->t[i + 1];
	for (int i = 0; i < PROF_SEGMENTS; i++) {
		uint64_t d = p->t[i + 1] - p->t[i], own = prof_stamp_ticks;

		/* prof_exit's own bookkeeping ran inside the dispatch segment */
		if (i == PROF_HV)
			own += p->bookkeeping;
		path->sum[i] += d > own ? d - own : 0;
	}
	total = p->t[PROF_ENTRY] - p->t[PROF_STUB] - p->bookkeeping;
	if (p->reason == EXIT_REASON_PREEMPTION_TIMER && p->t[PROF_STUB] >= p->due_armed) {
		uint64_t late = p->t[PROF_STUB] - p->due_armed;

		path->late_sum += late;
		if (late > path->late_max)
			path->late_max = late;
	}
	if (total > path->max_total)
		path->max_total = total;
	path->exits++;
}

void prof_exit(struct vcpu *v)
{
	struct vcpu_prof *p = &v->stats.prof;
	uint64_t now = rdtsc_profile(), stub, entry;

	if (!prof_stamp_ticks)
		prof_stamp_ticks = rdtsc_profile() - now;
	vmx_prof_stamps(&v->arch, &stub, &entry);
	if (p->open && entry > p->t[PROF_DONE]) {
		p->t[PROF_ENTRY] = entry;
		prof_close(v);
	}
	for (int i = 0; i < PROF_POINTS; i++)
		p->t[i] = 0;
	p->t[PROF_STUB] = stub;
	p->t[PROF_HV] = now;
	p->due_armed = p->due;
	p->open = true;
	p->reason = EXIT_REASON_COUNT;	/* until PROF_KIND says */
	p->bookkeeping = rdtsc_profile() - now;
}

void prof_report(void)
{
	log_printf(LOG_EMERG, "Exit path profile (instructions per exit, Bochs: one TSC tick each; "
		   "stamps' own %lu taken off each segment)\n", prof_stamp_ticks);
	for (uint32_t i = 0; i < partition_count; i++)
		for (uint32_t k = 0; k < partitions[i].vcpu_count; k++) {
			const struct vcpu *v = partitions[i].vcpus[k];

			for (uint32_t r = 0; r < EXIT_REASON_COUNT; r++)
				for (int f = PROF_PATHS - 1; f >= 0; f--) {
					const struct prof_path *path = &v->stats.prof.paths[r][f];
					char line[400];
					int n;
					uint64_t total = 0;

					if (!path->exits)
						continue;
					n = fmt_snprintf(line, sizeof(line), "BENCH_PATH partition=%s "
							 "vcpu=%u path=%s reason=%s exits=%lu",
							 partitions[i].cfg->name, k, path_names[f],
							 vmx_exit_reason_name(r), path->exits);
					for (int s = 0; s < PROF_SEGMENTS; s++) {
						uint64_t avg = path->sum[s] / path->exits;

						total += avg;
						n += fmt_snprintf(line + n, sizeof(line) - (size_t)n,
								  " %s_instr=%lu", segment_names[s], avg);
					}
					n += fmt_snprintf(line + n, sizeof(line) - (size_t)n,
							  " total_instr=%lu max_total_instr=%lu", total,
							  path->max_total);
					if (r == EXIT_REASON_PREEMPTION_TIMER)
						fmt_snprintf(line + n, sizeof(line) - (size_t)n,
							     " exit_late_avg_ticks=%lu exit_late_max_ticks=%lu",
							     path->late_sum / path->exits, path->late_max);
					fmt_snprintf(line + strlen(line), sizeof(line) - strlen(line), "\n");
					log_printf(LOG_EMERG, "%s", line);
				}
		}
}

#endif
