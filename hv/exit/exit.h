/* SPDX-License-Identifier: MIT */
/*
 * VM-exit handling, shared between its files: the dispatcher (hv/exit/exit.c)
 * and one file per concern (cpuid.c, msr.c, x2apic.c, io.c, cr.c,
 * hypercall_exit.c, timer_exit.c, inject.c, pv_lazy.c).
 *
 * A handler never leaves the exit itself: it returns what happens next
 * (enum exit_action) and the dispatcher acts on it, in one place. A stop
 * carries its report in struct exit_ctx (exit_stop()).
 */
#ifndef TEMPO_HV_EXIT_H
#define TEMPO_HV_EXIT_H

#include <stdbool.h>
#include <stdint.h>

#include "arch/x86/vmx.h"
#include "hv/core/single_step.h"
#include "hv/state/partition.h"

enum exit_action {
	EXIT_RESUME = 0,	/* back into the guest */
	EXIT_LEAVE,		/* the vCPU leaves its core for good (vcpu_leave) */
	EXIT_SWITCH,		/* a shared core: the window ended, the next vCPU runs */
	EXIT_STOP,		/* stop the partition: ctx.stop_* is the report */
	EXIT_SHUTDOWN,		/* the guest asked to end: ctx.code */
	EXIT_POWEROFF,		/* the guest powered off (ACPI S5) */
	EXIT_RESET,		/* the guest reset its machine: ctx.stop_detail says how */
	EXIT_INIT,		/* an INIT IPI reached the vCPU: it resets and waits for SIPI */
	EXIT_HALT,		/* the hypervisor is stopping: this core halts */
	/* only from a fast row's handler on the fast path: not finished, take the full path */
	EXIT_SLOW,
};

struct exit_ctx {
	uint32_t reason;	/* VMCS_EXIT_REASON, all of it */
	/*
	 * A fast row's handler runs first with this set, off the console
	 * core and with an empty mailbox, before any of the generic work
	 * (hv/exit/exit.c). It finishes the exit (EXIT_RESUME) or returns
	 * EXIT_SLOW, having changed nothing the full path would not redo.
	 */
	bool fast;
	/* EXIT_STOP */
	const char *stop_reason;
	uint64_t stop_qual;
	const char *stop_detail;
	char detail_buf[64];
	/* EXIT_SHUTDOWN */
	int64_t code;
};

typedef enum exit_action (*exit_handler_t)(struct vcpu *v, struct exit_ctx *x);

static inline enum exit_action exit_stop(struct exit_ctx *x, const char *reason, uint64_t qual,
					 const char *detail)
{
	x->stop_reason = reason;
	x->stop_qual = qual;
	x->stop_detail = detail;
	return EXIT_STOP;
}

#define VEC_UD		6
#define VEC_GP		13

/* ---- the guest's instruction and registers ---- */

#define VEC_DB		1

/*
 * The single-step #DB an instruction Tempo completed for the guest owes it
 * (hv/core/single_step.h), injected with DR6.BS set (DR6 is the guest's
 * while it exits: MOV DR does not exit, hv/run/switch.c). Injected as an
 * exception, not as a pending debug exception, so an interrupt or NMI Tempo
 * wants to deliver waits for its window behind it, as it would behind the
 * real trap (SDM Vol. 3A 6.9: traps of the previous instruction come before
 * NMIs and interrupts).
 */
static inline bool single_step_trap(void)
{
	uint64_t rflags = vmread(VMCS_GUEST_RFLAGS), dr6;

	/* TF is almost never set: one VMREAD on the way out */
	if (!(rflags & SS_RFLAGS_TF) ||
	    !single_step_due(rflags, vmread(VMCS_GUEST_DEBUGCTL), (uint32_t)vmread(VMCS_ENTRY_INTR_INFO)))
		return false;
	asm volatile("mov %%dr6, %0" : "=r"(dr6));
	asm volatile("mov %0, %%dr6" : : "r"(single_step_dr6(dr6)));
	vmwrite(VMCS_ENTRY_INTR_INFO, INTR_INFO_VALID | INTR_TYPE_HW_EXCEPTION | VEC_DB);
	return true;
}

/* Completes the exiting instruction; true if its single-step #DB is on its way in. */
static inline bool skip_instruction(void)
{
	uint64_t rip = vmread(VMCS_GUEST_RIP) + vmread(VMCS_EXIT_INSTR_LEN);
	uint64_t intr = vmread(VMCS_GUEST_INTERRUPTIBILITY);

	vmwrite(VMCS_GUEST_RIP, rip);
	/* the emulated instruction ends STI / MOV SS blocking (SDM 25.4.2) */
	if (intr & 3)
		vmwrite(VMCS_GUEST_INTERRUPTIBILITY, intr & ~3ull);
	return single_step_trap();
}

static inline bool guest_long_mode(void)
{
	return vmread(VMCS_ENTRY_CONTROLS) & ENTRY_IA32E_MODE_GUEST;
}

/* CPL is SS.DPL (SDM Vol. 3A 5.5) */
static inline uint32_t guest_cpl(void)
{
	return (vmread(VMCS_GUEST_SS_AR) >> 5) & 3;
}

static inline uint64_t *gpr(struct vcpu *v, uint32_t index)
{
	/* SDM encoding: rax, rcx, rdx, rbx, rsp, rbp, rsi, rdi, r8-r15 */
	static const uint8_t offset[16] = { 0, 2, 3, 1, 0xff, 6, 4, 5,
					    7, 8, 9, 10, 11, 12, 13, 14 };

	return &((uint64_t *)&v->arch.regs)[offset[index & 15]];
}

static inline uint64_t read_gpr(struct vcpu *v, uint32_t index)
{
	return (index & 15) == 4 ? vmread(VMCS_GUEST_RSP) : *gpr(v, index);
}

/* EDX:EAX, as WRMSR and XSETBV take it */
static inline uint64_t guest_edx_eax(const struct vcpu *v)
{
	return ((v->arch.regs.rdx & 0xffffffff) << 32) | (v->arch.regs.rax & 0xffffffff);
}

/* ---- the handlers, by file ---- */

/* hv/exit/cpuid.c */
enum exit_action exit_cpuid(struct vcpu *v, struct exit_ctx *x);

/* hv/exit/msr.c */
enum exit_action exit_rdmsr(struct vcpu *v, struct exit_ctx *x);
enum exit_action exit_wrmsr(struct vcpu *v, struct exit_ctx *x);
/*
 * The MSR table's answer for @msr in @v's timer mode, as RDMSR and WRMSR
 * exits take it (the xAPIC page runs its registers through these too).
 * False means #GP; a write that stops the partition fills @x.
 */
bool msr_read(struct vcpu *v, uint32_t msr, uint64_t *value);
bool msr_write(struct vcpu *v, struct exit_ctx *x, uint32_t msr, uint64_t value);

/* hv/exit/io.c */
enum exit_action exit_io(struct vcpu *v, struct exit_ctx *x);

/* hv/exit/cr.c */
enum exit_action exit_cr_access(struct vcpu *v, struct exit_ctx *x);
enum exit_action exit_xsetbv(struct vcpu *v, struct exit_ctx *x);

/* hv/exit/hypercall.c */
enum exit_action exit_vmcall(struct vcpu *v, struct exit_ctx *x);
/* a copy of @v's counters for the console core (VCPU_STATS); false if the ring is full */
bool snapshot_vcpu(struct vcpu *v);
/* Switch @v's timer mode at its exit (the hypercall, the monitor); TEMPO_HC_OK or EBUSY. */
int64_t vcpu_timer_mode_set(struct vcpu *v, uint32_t mode);
/* @v's counters now (read from any core: the monitor's stats). */
void vcpu_snapshot_fill(const struct vcpu *v, struct vcpu_snapshot *s);

/* hv/time/timer_exit.c */
enum exit_action exit_preemption_timer(struct vcpu *v, struct exit_ctx *x);
enum exit_action exit_external_interrupt(struct vcpu *v, struct exit_ctx *x);
enum exit_action exit_interrupt_window(struct vcpu *v, struct exit_ctx *x);
enum exit_action exit_hlt(struct vcpu *v, struct exit_ctx *x);
/* At the end of a host-tick exit: did the guest's timer fire meanwhile? */
void count_tick_hit(struct vcpu *v);
/* Issue 14: a placed tick's exit that only steps aside, before the generic work (true: re-enter). */
bool tick_defer_early(struct vcpu *v);
/*
 * The exit stub's tick step-aside: planned for a tick placed at @due and the
 * guest's timer vector @vec (tick_aside_arm, hv/time/vcpu_timer.c, arms it), and
 * what it did folded in at the next exit that reaches hv (@reason: that
 * exit's), before anything else.
 */
void tick_aside_plan(struct vcpu *v, uint64_t due, uint8_t vec);
void tick_aside_fold(struct vcpu *v, uint32_t reason);
/*
 * A kick's exit at once: the stub takes none of its exits aside. _disarm
 * before the entry (nothing was stepped yet); _close from hv_root_nmi, which
 * may come while the guest runs after steps the next exit still folds.
 */
void tick_aside_disarm(struct vcpu *v);
void tick_aside_close(struct vcpu *v);

/* hv/apic/inject.c */
void inject_exception(uint32_t vector, bool has_error, uint32_t error);
void reinject_vectoring(void);
void deliver_virtual(struct vcpu *v);
/* An NMI IPI from @v's partition: injected, or at the NMI window. */
void deliver_nmi(struct vcpu *v);
/* A LAPIC-owning vCPU: the IPIs that waited in its bitmap go to its own APIC. */
void deliver_pending_to_apic(struct vcpu *v);

/* hv/time/pv_lazy.c: the page a pv-lazy guest publishes its deadlines on */
void pv_register(struct vcpu *v, uint64_t gpa);
void pv_sync(struct vcpu *v);
void pv_trapped(struct vcpu *v);
void pv_publish_armed(struct vcpu *v);

/*
 * hv/apic/x2apic.c: the x2APIC MSRs' handlers. The EMULATE ones are named by
 * hv/core/msr_policy.h (enum msr_handler) and listed in hv/exit/msr.c; the
 * virtual LAPIC's and the software deadline's are the MSR_VAPIC and
 * MSR_SOFT_DEADLINE actions. False means #GP.
 */
bool apic_base_rdmsr(struct vcpu *v, uint32_t msr, uint64_t *value);
bool apic_base_wrmsr(struct vcpu *v, struct exit_ctx *x, uint32_t msr, uint64_t value);
bool ldr_rdmsr(struct vcpu *v, uint32_t msr, uint64_t *value);
bool svr_wrmsr(struct vcpu *v, struct exit_ctx *x, uint32_t msr, uint64_t value);
bool lvt_wrmsr(struct vcpu *v, struct exit_ctx *x, uint32_t msr, uint64_t value);
bool lvt_timer_wrmsr(struct vcpu *v, struct exit_ctx *x, uint32_t msr, uint64_t value);
bool icr_rdmsr(struct vcpu *v, uint32_t msr, uint64_t *value);
bool icr_wrmsr(struct vcpu *v, struct exit_ctx *x, uint32_t msr, uint64_t value);
bool vapic_rdmsr(struct vcpu *v, uint32_t msr, uint64_t *value);
bool vapic_wrmsr(struct vcpu *v, struct exit_ctx *x, uint32_t msr, uint64_t value);
bool soft_deadline_rdmsr(struct vcpu *v, uint32_t msr, uint64_t *value);
bool soft_deadline_wrmsr(struct vcpu *v, struct exit_ctx *x, uint32_t msr, uint64_t value);
/* The timer mode changed from @old_mode: the APIC state moves between hardware and vLAPIC. */
void x2apic_move_state(struct vcpu *v, enum timer_mode old_mode);
/* The physical LAPIC back to Tempo's settings (leaving direct mode, a restart). */
void x2apic_give_back(void);
/* An EPT violation on @v's xAPIC page: emulated (*@a what happens next), or false if not its page. */
bool xapic_mmio(struct vcpu *v, struct exit_ctx *x, uint64_t gpa, enum exit_action *a);
/* @v's APIC registers at power-up (not IA32_APIC_BASE): at build and each restart. */
void vcpu_apic_reset(struct vcpu *v);
/* A fixed interrupt for @t from @from (an IPI, a doorbell); false: @t cannot take it now. */
bool vcpu_send_fixed(struct vcpu *from, struct vcpu *t, uint8_t vector);

#endif
