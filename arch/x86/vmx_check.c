// SPDX-License-Identifier: MIT
/*
 * The VMCS checker on every VM entry of a TEMPO_VMCS_CHECK build
 * (arch/x86/vmx_check.h): the image from arch/x86/vmcs_image.c, the rules
 * from hv/lib/vmcs_check.c, the lines and counts here.
 */
#include "arch/x86/vmx_check.h"

#ifdef TEMPO_VMCS_CHECK

#include <stdbool.h>

#include "arch/x86/cpu.h"
#include "arch/x86/vmcs_image.h"
#include "arch/x86/vmx.h"
#include "hv/lib/log.h"
#include "hv/lib/vmcs_check.h"
#include "hv/upcalls.h"

static struct vmcs_caps caps;

uint64_t vmcs_steady_writes;

/* What the summary line counts; any CPU adds to them. */
static struct {
	uint64_t launches, resumes, asides;
	uint64_t failed_entries, violations, unreadable;
	uint64_t tsc, tsc_max;	/* the checks' cost, in TSC ticks (Bochs: instructions) */
} counts;

static void count(uint64_t *c, uint64_t n)
{
	__atomic_fetch_add(c, n, __ATOMIC_RELAXED);
}

void vmx_check_boot(void)
{
	vmcs_image_caps(&caps);
	/* what a run that never reaches its summary line (ended from outside) is judged by */
	log_info("VMCS checker: on, every VM entry checked first (SDM Vol. 3C 26.2, 26.3)\n");
}

/* One VMCS_CHECK line per broken rule; a rule past the kept violations still gets its line. */
static void report(const struct vmcs_image *img, const struct vmcs_check_result *r,
		   const char *entry, bool full)
{
	uint32_t kept = r->count < VMCS_CHECK_KEPT ? r->count : VMCS_CHECK_KEPT;
	uint64_t shown[sizeof(r->rules) / sizeof(r->rules[0])] = { 0 };

	for (uint32_t i = 0; i < kept; i++) {
		const struct vmcs_violation *v = &r->v[i];
		const struct vmcs_rule_desc *d = vmcs_rule_desc(v->rule);

		shown[v->rule / 64] |= 1ull << (v->rule % 64);
		if (v->field2 == VMCS_F_NONE)
			log_emerg("VMCS_CHECK rule=%s sdm=%s field=%s value=0x%lx entry=%s "
				  "vmcs=0x%lx\n", d->id, d->sdm, vmcs_field_name(v->field),
				  v->value, entry, img->current_vmcs);
		else
			log_emerg("VMCS_CHECK rule=%s sdm=%s field=%s value=0x%lx field2=%s "
				  "value2=0x%lx entry=%s vmcs=0x%lx\n", d->id, d->sdm,
				  vmcs_field_name(v->field), v->value, vmcs_field_name(v->field2),
				  v->value2, entry, img->current_vmcs);
	}
	for (uint32_t rule = 0; rule < VMCS_RULE_COUNT; rule++)
		if (vmcs_check_broke(r, rule) && !(shown[rule / 64] >> (rule % 64) & 1))
			log_emerg("VMCS_CHECK rule=%s sdm=%s field=na value=na entry=%s "
				  "vmcs=0x%lx\n", vmcs_rule_desc(rule)->id, vmcs_rule_desc(rule)->sdm,
				  entry, img->current_vmcs);
	/* full=1: the check was the one in FULL_CHECK_EVERY that reads and runs everything */
	log_emerg("VMCS_CHECK_FAIL violations=%u entry=%s vmcs=0x%lx guest_rip=0x%lx "
		  "exit_reason=0x%lx full=%u\n", r->count, entry, img->current_vmcs,
		  img->guest.rip, vmread(VMCS_EXIT_REASON), full ? 1u : 0u);
	count(&counts.failed_entries, 1);
	count(&counts.violations, r->count);
}

/* A VMREAD the CPU refused: the image is not the VMCS, so nothing is checked. */
static void report_unreadable(uint32_t encoding, const struct vmcs_image *img, const char *entry)
{
	log_emerg("VMCS_CHECK_ERROR why=vmread_refused encoding=0x%x entry=%s vmcs=0x%lx\n",
		  encoding, entry, img->current_vmcs);
	count(&counts.unreadable, 1);
}

/*
 * A vCPU's last checked image, and what its check remembers: which parts
 * of the rules passed on it. A part answers the same until one of its
 * inputs changes (hv/lib/vmcs_check.h), so until then each entry leaves it
 * out: the steady part (26.2 but three rules), the guest's control
 * registers and MSRs, its segments (2,125 Bochs ticks a check before,
 * 1,100 to 1,450 now).
 */
struct vmx_checked {
	struct vmcs_image img;
	struct vmcs_check_memo memo;
	uint8_t since_full;	/* checks since the last that ran every rule */
	/*
	 * vmcs_steady_writes when img's steady part was read: while it holds,
	 * no VMWRITE changed that part, and the next read leaves it out.
	 */
	uint64_t steady_writes;
};

/*
 * Every this many checks read every field and run every rule: should a
 * field ever be written past vmcs_steady_writes or vmcs_image.c's
 * tracking, a rule it breaks is still caught that soon.
 */
#define FULL_CHECK_EVERY	64

/* Whether @ck's check now is the one in FULL_CHECK_EVERY that leaves nothing out. */
static bool full_due(struct vmx_checked *ck)
{
	if (++ck->since_full < FULL_CHECK_EVERY)
		return false;
	ck->since_full = 0;
	return true;
}

/* @a's, one page from the pool at its first check. */
static struct vmx_checked *checked_of(struct vcpu_arch *a)
{
	if (!a->checked) {
		a->checked = hv_pages_alloc(sizeof(*a->checked), "VMCS check image");
		a->checked->img.cap = caps;
		a->checked->memo = (struct vmcs_check_memo){ 0 };
		a->checked->since_full = 0;
	}
	return a->checked;
}

/*
 * hv armed the VMX-preemption timer for an absolute due time before the
 * check ran, and the timer counts from the entry: the check's own time
 * would make every host tick that late. Take it off the value (SDM Vol. 3C
 * 25.5.1: the timer counts TSC bit IA32_VMX_MISC[4:0] toggles), so a
 * checking build keeps hv's schedule; 0 stays 0 (exit at once). Guest
 * latencies through an exit still carry the check. A kick's NMI that sets
 * 0 between the VMREAD and the VMWRITE here waits for the timer instead:
 * one tick late at most, and only in this build.
 */
static void preemption_timer_compensate(uint64_t ticks)
{
	uint64_t spent = ticks >> (caps.misc & 0x1f);
	uint64_t value = vmread(VMCS_PREEMPTION_TIMER_VALUE);

	if (value)
		vmwrite(VMCS_PREEMPTION_TIMER_VALUE, value > spent ? value - spent : 0);
}

/*
 * The check's ticks since @start: counted, and taken off the preemption
 * timer. One RDTSC for both (in SMP Bochs each ends a trace, and the other
 * CPUs take a turn).
 */
static void check_done(const struct vmx_checked *ck, uint64_t start)
{
	uint64_t t = rdtsc() - start, max = __atomic_load_n(&counts.tsc_max, __ATOMIC_RELAXED);

	count(&counts.tsc, t);
	while (t > max && !__atomic_compare_exchange_n(&counts.tsc_max, &max, t, false,
						       __ATOMIC_RELAXED, __ATOMIC_RELAXED))
		;
	if (ck->img.pin & PIN_PREEMPTION_TIMER)
		preemption_timer_compensate(t);
}

/*
 * Check @ck's image, leaving out the parts that passed at its last check
 * and whose inputs read back the same (@same, from vmcs_image_read), but
 * every FULL_CHECK_EVERY checks; nonzero when it breaks a rule (the lines
 * are out).
 */
static uint32_t check(struct vmx_checked *ck, uint32_t refused, uint32_t same, bool full,
		      const char *entry)
{
	struct vmcs_check_result r;

	if (full)
		same = 0;
	if (refused != VMCS_IMAGE_ALL_READ) {
		ck->memo.passed = 0;
		report_unreadable(refused, &ck->img, entry);
		return 0;
	}
	if (vmcs_check_since(&ck->img, &r, &ck->memo, same) == 0)
		return 0;
	report(&ck->img, &r, entry, full);
	return VMX_ERR_VMCS_CHECK;
}

/* test=vmcs_break: resumes left before the one it breaks (0: none), and which fields */
static int break_countdown;
static bool break_guest;

bool vmx_check_test_break(bool guest)
{
	break_guest = guest;
	__atomic_store_n(&break_countdown, 100, __ATOMIC_RELAXED);
	return true;
}

/*
 * The resume test=vmcs_break breaks: pending debug exceptions bit 4,
 * reserved (26.3.1.5), checked at every entry, and a field of a part of the
 * checks that an unchanged image lets the checker leave out, written after
 * entries that left it out, for the check to see changed: test=vmcs_break,
 * a CR3-target count one above IA32_VMX_MISC[24:16] (26.2.1.1, the steady
 * part, after which every part runs); test=vmcs_break_regs, guest CR3 bit
 * 62, above MAXPHYADDR (26.3.1.1), and a reserved bit of TR's access
 * rights (26.3.1.2).
 */
static bool test_break(void)
{
	if (__atomic_load_n(&break_countdown, __ATOMIC_RELAXED) <= 0 ||
	    __atomic_sub_fetch(&break_countdown, 1, __ATOMIC_RELAXED) != 0)
		return false;
	vmwrite(VMCS_GUEST_PENDING_DBG, vmread(VMCS_GUEST_PENDING_DBG) | (1ull << 4));
	if (!break_guest) {
		vmwrite(VMCS_CR3_TARGET_COUNT, ((caps.misc >> 16) & 0x1ff) + 1);
		return true;
	}
	vmwrite(VMCS_GUEST_CR3, vmread(VMCS_GUEST_CR3) | (1ull << 62));
	vmwrite(VMCS_GUEST_TR_AR, vmread(VMCS_GUEST_TR_AR) | (1u << 8));
	return true;
}

uint32_t vmx_check_entry(struct vcpu_arch *a, int launched)
{
	uint64_t start, writes;
	struct vmx_checked *ck;
	uint32_t error, refused, same;
	bool full;

	start = rdtsc();
	ck = checked_of(a);
	/* the broken entry's check must be one that leaves out what did not change */
	if (launched && test_break())
		ck->since_full = 0;

	count(launched ? &counts.resumes : &counts.launches, 1);
	/*
	 * The steady part's fields are read again after a VMWRITE to one
	 * (on any CPU), at the 64th check, and after a check that did not
	 * pass it (or read nothing: a fresh image's memo passed nothing).
	 */
	full = full_due(ck);
	writes = __atomic_load_n(&vmcs_steady_writes, __ATOMIC_RELAXED);
	refused = vmcs_image_read(&ck->img, &same,
				  full || writes != ck->steady_writes ||
					  !(ck->memo.passed & VMCS_CHECK_STEADY));
	ck->steady_writes = writes;
	error = check(ck, refused, same, full, launched ? "vmresume" : "vmlaunch");
	check_done(ck, start);
	return error;
}

int vmx_check_aside(struct vmx_exit_area *area)
{
	uint64_t start;
	struct vcpu_arch *a = (struct vcpu_arch *)(uintptr_t)area->arch;
	bool fresh = !a->checked;
	struct vmx_checked *ck;
	uint32_t refused, same;

	start = rdtsc();
	ck = checked_of(a);
	count(&counts.asides, 1);
	/*
	 * The step-aside is armed only after a checked entry: a fresh image is
	 * read whole; otherwise the steady part is the one that entry read.
	 */
	if (fresh)
		ck->steady_writes = __atomic_load_n(&vmcs_steady_writes, __ATOMIC_RELAXED);
	refused = fresh ? vmcs_image_read(&ck->img, &same, true)
			: vmcs_image_read_guest(&ck->img, &same);
	/*
	 * A step-aside counts toward the full check but leaves it to the next
	 * checked VMLAUNCH or VMRESUME, the one that reads every field: it
	 * reads only the guest state, and a run of step-asides must not keep
	 * the turn from hv's entries.
	 */
	if (ck->since_full < FULL_CHECK_EVERY - 1)
		ck->since_full++;
	refused = check(ck, refused, same, false, "aside");
	check_done(ck, start);
	return refused != 0;
}

void vmx_check_report(void)
{
	uint64_t entries = counts.launches + counts.resumes + counts.asides;

	log_emerg("VMCS_CHECK violations=%lu entries=%lu launches=%lu resumes=%lu asides=%lu "
		  "refused_entries=%lu unreadable=%lu check_avg_ticks=%lu check_max_ticks=%lu\n",
		  counts.violations, entries, counts.launches, counts.resumes, counts.asides,
		  counts.failed_entries, counts.unreadable, entries ? counts.tsc / entries : 0,
		  counts.tsc_max);
}

#endif
