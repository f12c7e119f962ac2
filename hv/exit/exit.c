// SPDX-License-Identifier: MIT
/*
 * VM-exit dispatch: one row per basic exit reason, in a table. A handler
 * completes the guest's instruction and returns what happens next (enum
 * exit_action, hv/state/exit_ctx.h): the vCPU resumes, or the dispatcher
 * stops the partition with the handler's report, ends it as the guest
 * asked, or switches the core. Anything not in the table stops the
 * partition too: an exit we did not plan for is never ignored.
 *
 * A row marked fast may finish without the generic work of the full path
 * (the vectoring check, the mailbox, the window end, the console): its
 * handler runs first with ctx.fast set and either finishes the exit or
 * answers EXIT_SLOW, and then the full path runs it again.
 *
 * The families are in files of their own: CPUID (cpuid.c), MSRs (msr.c)
 * and the xAPIC page (xapic_page.c), port I/O (io.c), control registers
 * (cr.c), hypercalls (hypercall.c); time's exits are hv/time/'s. An access
 * outside the partition's RAM goes to whoever registered its page
 * (hv/state/region.h).
 */
#include "arch/x86/cpu.h"
#include "arch/x86/vmx.h"
#include "hv/apic/apic.h"
#include "hv/exit/exit.h"
#include "hv/lib/fmt.h"
#include "hv/ops/monitor.h"
#include "hv/ops/prof.h"
#include "hv/run/run.h"
#include "hv/time/time.h"
#include "hv/upcalls.h"

/* ---- the exits that only stop, or only complete ---- */

static enum exit_action exit_nmi_or_exception(struct vcpu *v, struct exit_ctx *x)
{
	uint32_t info = (uint32_t)vmread(VMCS_EXIT_INTR_INFO);

	if ((info & INTR_TYPE_MASK) == INTR_TYPE_NMI) {
		nmi_unblock();		/* or the next kick would wait for an IRET */
		v->pcpu->nmis++;	/* a kick: the mailbox is read before resuming */
		return hv_stopping ? EXIT_HALT : EXIT_RESUME;
	}
	return exit_stop(x, "exception", info, "unexpected exception exit");
}

static enum exit_action exit_triple_fault(struct vcpu *v, struct exit_ctx *x)
{
	(void)v;
	return exit_stop(x, "triple_fault", 0, "the guest triple-faulted");
}

/* EPT-violation qualification bits 5:3: the page's read/write/execute rights (SDM 28.2.1) */
#define EPT_Q_MAPPED	(7ull << 3)

/*
 * Outside its RAM and channels: a device's registers (trapped MMIO, the
 * region registry says whose), or a stop. Only an unmapped page can be a
 * device's: a right missing on a mapped one (a ro channel's write) stops
 * the partition, wherever a guest has put a BAR.
 */
static enum exit_action exit_ept_violation(struct vcpu *v, struct exit_ctx *x)
{
	uint64_t gpa = vmread(VMCS_GUEST_PHYS_ADDR), q = vmread(VMCS_EXIT_QUALIFICATION);
	const struct mmio_region *r;
	enum exit_action a;

	if (!(q & EPT_Q_MAPPED) && (r = mmio_region_find(v->part, v, gpa)) &&
	    r->fn(v, x, gpa, r->opaque, &a))
		return a;
	fmt_snprintf(x->detail_buf, sizeof(x->detail_buf), "gpa=0x%lx", gpa);
	return exit_stop(x, "ept_violation", q, x->detail_buf);
}

static enum exit_action exit_ept_misconfig(struct vcpu *v, struct exit_ctx *x)
{
	(void)v;
	return exit_stop(x, "ept_misconfig", vmread(VMCS_GUEST_PHYS_ADDR), "hypervisor EPT bug");
}

static enum exit_action exit_vmx_instruction(struct vcpu *v, struct exit_ctx *x)
{
	uint32_t reason = x->reason & 0xffff;

	(void)v;
	return exit_stop(x, "vmx_instruction", reason, vmx_exit_reason_name(reason));
}

static enum exit_action exit_nop(struct vcpu *v, struct exit_ctx *x)
{
	(void)v;
	(void)x;
	skip_instruction();	/* MONITOR, MWAIT, INVD, WBINVD: harmless as no-ops */
	return EXIT_RESUME;
}

static enum exit_action exit_ud(struct vcpu *v, struct exit_ctx *x)
{
	(void)v;
	(void)x;
	inject_exception(VEC_UD, false, 0);	/* GETSEC: SMX is hidden */
	return EXIT_RESUME;
}

static enum exit_action exit_init_signal(struct vcpu *v, struct exit_ctx *x)
{
	(void)v;
	return exit_stop(x, "init_signal", 0, "unexpected INIT");
}

/* The guest can take the NMI it waits for: exit_tail injects it. */
static enum exit_action exit_nmi_window(struct vcpu *v, struct exit_ctx *x)
{
	(void)x;
	vmx_proc_write(&v->arch, v->arch.proc & ~PROC_NMI_WINDOW_EXITING);
	return EXIT_RESUME;
}

static enum exit_action exit_invalid_state(struct vcpu *v, struct exit_ctx *x)
{
	(void)v;
	return exit_stop(x, "invalid_guest_state", vmread(VMCS_EXIT_QUALIFICATION),
			 "VM entry refused the guest state");
}

/* ---- the table ---- */

struct exit_row {
	exit_handler_t handler;
	/* may finish on the fast path (see the top of this file) */
	bool fast;
};

static const struct exit_row exit_rows[EXIT_REASON_COUNT] = {
	[EXIT_REASON_EXCEPTION_NMI] = { exit_nmi_or_exception },
	[EXIT_REASON_TRIPLE_FAULT] = { exit_triple_fault },
	[EXIT_REASON_INIT] = { exit_init_signal },
	[EXIT_REASON_CPUID] = { exit_cpuid },
	[EXIT_REASON_GETSEC] = { exit_ud },
	[EXIT_REASON_INVD] = { exit_nop },
	[EXIT_REASON_VMCALL] = { exit_vmcall },
	[EXIT_REASON_VMCLEAR] = { exit_vmx_instruction },
	[EXIT_REASON_VMLAUNCH] = { exit_vmx_instruction },
	[EXIT_REASON_VMPTRLD] = { exit_vmx_instruction },
	[EXIT_REASON_VMPTRST] = { exit_vmx_instruction },
	[EXIT_REASON_VMREAD] = { exit_vmx_instruction },
	[EXIT_REASON_VMRESUME] = { exit_vmx_instruction },
	[EXIT_REASON_VMWRITE] = { exit_vmx_instruction },
	[EXIT_REASON_VMXOFF] = { exit_vmx_instruction },
	[EXIT_REASON_VMXON] = { exit_vmx_instruction },
	[EXIT_REASON_CR_ACCESS] = { exit_cr_access },
	[EXIT_REASON_IO] = { exit_io },
	[EXIT_REASON_RDMSR] = { exit_rdmsr },
	/* the software deadline's writes */
	[EXIT_REASON_WRMSR] = { exit_wrmsr, .fast = true },
	[EXIT_REASON_INVALID_GUEST_STATE] = { exit_invalid_state },
	[EXIT_REASON_MWAIT] = { exit_nop },
	[EXIT_REASON_MONITOR] = { exit_nop },
	[EXIT_REASON_EPT_VIOLATION] = { exit_ept_violation },
	[EXIT_REASON_EPT_MISCONFIG] = { exit_ept_misconfig },
	[EXIT_REASON_INVEPT] = { exit_vmx_instruction },
	[EXIT_REASON_INVVPID] = { exit_vmx_instruction },
	[EXIT_REASON_VMFUNC] = { exit_vmx_instruction },
	[EXIT_REASON_WBINVD] = { exit_nop },
	[EXIT_REASON_XSETBV] = { exit_xsetbv },
	/* the software deadline's expiry (a placed tick deferred: tick_exit_early, first) */
	[EXIT_REASON_PREEMPTION_TIMER] = { exit_preemption_timer, .fast = true },
	[EXIT_REASON_EXTERNAL_INTR] = { exit_external_interrupt },
	[EXIT_REASON_INTR_WINDOW] = { exit_interrupt_window },
	[EXIT_REASON_NMI_WINDOW] = { exit_nmi_window },
	[EXIT_REASON_HLT] = { exit_hlt },
};

/* ---- acting on the answer ---- */

/*
 * Every action but EXIT_RESUME leaves the exit: the partition's end is
 * recorded (hv/state/partition.c), the vCPU leaves its core (hv/run/), and
 * the exit stub returns to the core's loop (NULL), or with a shared core's
 * next window of the same vCPU resumes it.
 */
static struct vcpu *exit_leave(struct vcpu *v, enum exit_action a, const struct exit_ctx *x)
{
	switch (a) {
	case EXIT_LEAVE:
		break;
	case EXIT_SWITCH:
		return vcpu_switch_window(v);
	case EXIT_SHUTDOWN:
		partition_shutdown(v, x->code);
		break;
	case EXIT_POWEROFF:
		partition_poweroff(v);
		break;
	case EXIT_RESET:
		partition_reset(v, x->stop_detail);
		break;
	case EXIT_INIT:
		/* the BSP at INIT starts over at the reset vector: the partition's reset */
		if (!v->index) {
			partition_reset(v, "INIT IPI to the boot vCPU");
			break;
		}
		vcpu_init_reset(v);
		return NULL;
	case EXIT_HALT:
		/*
		 * Out of VMX operation first: INIT is blocked in root mode
		 * (SDM Vol. 3C 25.8), and the reset after a stop may be
		 * carried to this core as INIT (the 8042's, some chipsets')
		 */
		vmx_cpu_off();
		halt_forever();
	case EXIT_STOP:
		partition_stop(v, x->stop_reason, x->stop_qual, x->stop_detail);
		break;
	case EXIT_RESUME:
	case EXIT_SLOW:
	default:
		partition_stop(v, "exit_action", a, "a handler answered an unknown action");
		break;
	}
	vcpu_leave(v);
	return NULL;
}

/*
 * The fast path: a fast row, on a core with nothing else to do first.
 * EXIT_SLOW: the full path takes the exit; else the handler's answer, the
 * exit counted and, for EXIT_RESUME, the entry prepared.
 */
static enum exit_action exit_fast(struct vcpu *v, const struct exit_row *row, struct exit_ctx *x)
{
	enum exit_action a;

	/* a kick is read by the full path, a shared core's window end too */
	if (!row->fast || v->pcpu->console || v->pcpu->shared ||
	    __atomic_load_n(&v->pcpu->mailbox, __ATOMIC_ACQUIRE))
		return EXIT_SLOW;
	x->fast = true;
	PROF(v, PROF_ROW);
	a = row->handler(v, x);
	PROF(v, PROF_ROW_DONE);
	x->fast = false;
	if (a != EXIT_RESUME)
		return a;
	PROF_KIND(v, x->reason, PROF_FAST);
	v->stats.exits_total++;
	v->stats.exits[x->reason]++;
	PROF(v, PROF_DELIVER);
	if (!timer_mode(v->vt.mode)->owns_lapic)
		deliver_virtual(v);
	PROF(v, PROF_ARM);
	vcpu_timer_arm(v);
	return EXIT_RESUME;
}

/*
 * After the handler, before the entry: a stop request names a partition,
 * not a vCPU, so a shared core checks whose; a shared core's window may
 * have ended.
 */
static enum exit_action exit_tail(struct vcpu *v)
{
	uint32_t mail = __atomic_load_n(&v->pcpu->mailbox, __ATOMIC_ACQUIRE);

	if (mail & (MAILBOX_STOP_VCPU | MAILBOX_MODE | MAILBOX_EVENT)) {
		if ((mail & MAILBOX_STOP_VCPU) && v->part->state != PART_RUNNING)
			return EXIT_LEAVE;
		if (mail & MAILBOX_MODE)
			vcpu_mode_request_take(v);
		if (mail & MAILBOX_EVENT)	/* the flags below say whose */
			__atomic_fetch_and(&v->pcpu->mailbox, ~MAILBOX_EVENT, __ATOMIC_ACQ_REL);
	}
	/*
	 * An INIT or NMI from the partition (hv/apic/ipi.c, vcpu_send_event),
	 * or a shared core's kick (hv/apic/parts.h; a dedicated core's vCPU
	 * never has it set). The kick is cleared, with a full barrier, before
	 * the INIT and NMI flags are read again here and the IPI bitmap in
	 * deliver_virtual, so a kick after those reads is seen by
	 * timer_arm_due or hv_root_nmi and this entry exits at once.
	 */
	if (__builtin_expect(v->apic.init_pending | v->apic.nmi_pending |
			     __atomic_load_n(&v->apic.kicked, __ATOMIC_ACQUIRE), 0)) {
		if (v->apic.kicked)
			__atomic_store_n(&v->apic.kicked, 0, __ATOMIC_SEQ_CST);
		if (v->apic.init_pending)
			return EXIT_INIT;
		if (v->apic.nmi_pending)
			deliver_nmi(v);
	}
	if (v->pcpu->shared && rdtsc() >= sched_window_end(&v->pcpu->sched))
		return EXIT_SWITCH;
	if (v->pcpu->console)
		operator_service();
	PROF(v, PROF_DELIVER);
	if (!timer_mode(v->vt.mode)->owns_lapic)
		deliver_virtual(v);
	else if (__atomic_load_n(&v->pcpu->mailbox, __ATOMIC_ACQUIRE) & MAILBOX_IPI)
		deliver_pending_to_apic(v);
	if (v->aside.tick_exit)
		count_tick_hit(v);
	return EXIT_RESUME;
}

struct vcpu *hv_exit_handler(struct vcpu *v)
{
	struct exit_ctx x;	/* not zeroed whole: its buffer is for stops alone */

	prof_exit(v);
	x.reason = (uint32_t)vmread(VMCS_EXIT_REASON);
	v->aside.decided = false;
	if (v->aside.armed)
		tick_aside_fold(v, x.reason);
	/* first: this exit's length is what a guest deadline that falls in it waits */
	if (time_exit_quick(v, x.reason)) {
		PROF_KIND(v, x.reason, PROF_QUICK);
		PROF(v, PROF_DONE);
		return v;
	}
	x.fast = false;
	x.stop_reason = NULL;
	x.stop_qual = 0;
	x.stop_detail = NULL;
	x.code = 0;
	uint32_t basic = x.reason & 0xffff;
	const struct exit_row *row = basic < EXIT_REASON_COUNT ? &exit_rows[basic] : NULL;
	enum exit_action a;

	/* what the CPU delivered and retired in the virtual-APIC page */
	if (v->apic.apicv)
		apicv_sync_in(v);
	/* a fast exit's reason is its basic reason: no entry failure */
	if (row && row->handler && x.reason == basic) {
		a = exit_fast(v, row, &x);
		if (a == EXIT_RESUME) {
			PROF(v, PROF_DONE);
			return v;
		}
		if (a != EXIT_SLOW)
			return exit_leave(v, a, &x);
	}
	v->pcpu->exit_vcpu = v;	/* as since its entry (vcpu_entry_prepare): a fault stops it only */
	v->stats.exits_total++;
	if (basic < EXIT_REASON_COUNT)
		v->stats.exits[basic]++;
	if ((x.reason & EXIT_REASON_ENTRY_FAILURE) && basic != EXIT_REASON_INVALID_GUEST_STATE)
		return exit_leave(v, exit_stop(&x, "vm_entry_failed", x.reason,
					       vmx_exit_reason_name(basic)), &x);
	if (!row || !row->handler)
		return exit_leave(v, exit_stop(&x, "unhandled_exit", basic,
					       vmx_exit_reason_name(basic)), &x);
	reinject_vectoring();
	PROF_KIND(v, basic, PROF_FULL);
	PROF(v, PROF_ROW);
	a = row->handler(v, &x);
	PROF(v, PROF_ROW_DONE);
	if (a == EXIT_RESUME)
		a = exit_tail(v);
	if (a != EXIT_RESUME)
		return exit_leave(v, a, &x);
	PROF(v, PROF_ARM);
	vcpu_timer_arm(v);
	PROF(v, PROF_DONE);
	return v;	/* exit_vcpu stays: its next exit's fault is its own too */
}

/*
 * The VM entry that resumed @v failed (VMfailValid, @error): arch's exit
 * stub hands it back here as an exit that stops the partition.
 */
struct vcpu *hv_resume_failed(struct vcpu *v, uint32_t error)
{
	struct exit_ctx x = { 0 };

	return exit_leave(v, exit_stop(&x, "vm_entry_failed", error, vmx_instr_error_name(error)),
			  &x);
}
