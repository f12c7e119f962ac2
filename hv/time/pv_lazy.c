// SPDX-License-Identifier: MIT
/*
 * pv-lazy: the page a guest of the pv-lazy timer mode (timer_mode()->pv_page)
 * shares with the hypervisor. It publishes its next deadline there and traps
 * (writes IA32_TSC_DEADLINE) only when that deadline comes earlier than the
 * exit the hypervisor has armed, which it reads back from the page.
 */
#include "arch/x86/cpu.h"
#include "hv/state/partition.h"
#include "hv/time/time.h"

/* TEMPO_HC_PV_TIMER: the decoder checked the mode and that the page is guest RAM. */
void pv_register(struct vcpu *v, uint64_t gpa)
{
	struct tempo_pv_timer *page = gpa_to_hva(v->part, gpa, sizeof(*page));

	v->pv.page = page;
	v->pv.seen = page->next;
}

/*
 * A deadline the guest published without trapping (it moved later than the
 * exit we had armed) is taken here, on every entry and after every expiry.
 * The exit armed for the old deadline comes after it, so the guest may have
 * published after the old one expired: one already due fires first
 * (vtimer_replace_deadline), one not yet due never fires.
 */
void pv_sync(struct vcpu *v)
{
	uint64_t next;

	if (!v->pv.page)
		return;
	next = v->pv.page->next;
	if (next != v->pv.seen) {
		uint64_t now = rdtsc();

		v->pv.seen = next;
		v->stats.pv_updates++;
		vcpu_trace(v, TRACE_PV_UPDATE, next, now);
		vtimer_replace_deadline(&v->vt, next, now);
	}
}

/* A trapped deadline write: the guest published this one before trapping. */
void pv_trapped(struct vcpu *v)
{
	if (v->pv.page)
		v->pv.seen = v->pv.page->next;
}

/* Before entry: the exit now armed, for the guest to compare its next deadline with. */
void pv_publish_armed(struct vcpu *v)
{
	if (v->pv.page)
		v->pv.page->armed = vtimer_next(&v->vt) == TIMER_NO_EVENT ? 0 : vtimer_next(&v->vt);
}
