/* SPDX-License-Identifier: MIT */
/* VMX operation: VMXON per CPU, the VMCS of a vCPU, entering the guest. */
#ifndef TEMPO_ARCH_X86_VMX_H
#define TEMPO_ARCH_X86_VMX_H

#include <stdbool.h>
#include <stdint.h>

#include "arch/x86/cpu_report.h"
#include "arch/x86/vmx_defs.h"

/* Guest general-purpose registers; arch/x86/vmx_entry.S relies on this order. */
struct guest_regs {
	uint64_t rax, rbx, rcx, rdx, rsi, rdi, rbp;
	uint64_t r8, r9, r10, r11, r12, r13, r14, r15;
};

/* hv's vCPU: opaque here, only handed back through the upcalls (hv/upcalls.h). */
struct vcpu;
struct vmx_checked;

/*
 * The exit stub's tick step-aside (arch/x86/vmx_entry.S,
 * exit_aside). hv arms it before an entry (closed = 0) when the next
 * preemption-timer exit is a host tick of a direct-mode vCPU, whose
 * IA32_TSC_DEADLINE is the guest's. At that exit the stub reads the guest's
 * deadline D and the exit's own time (the VM exit stored both: struct
 * vmx_exit_area deadline and tsc); if D is in the window, or D is 0
 * (hardware clears it on fire) with the guest's vector pending in the
 * physical IRR where the guest would take it now (IF set, no STI or MOV-SS
 * shadow, its class above the PPR), the tick's exit would meet D: the stub
 * loads D's place in the window x (below; span for a D of 0) into the
 * preemption timer (the tick comes bias past D), keeps it in ptv for hv,
 * counts the step and re-enters at once, without saving the guest's
 * registers or calling hv. A deadline that falls in that exit waits
 * EA_STEP_TICKS instructions at most (vmx_defs.h; more with an entry
 * mitigation), not the whole tick's. hv folds the steps (and the hits:
 * steps whose D came before their re-entry, or had fired with the vector
 * pending) into its figures at the next exit that reaches it.
 *
 * The window, in the low 32 bits of the TSC: x = D - the exit's time +
 * bias, below span (32-bit arithmetic: a D up to bias behind the exit's
 * time is in it). lo counts the steps, one each, from hv's start
 * (host_timer_aside_plan lo0 = 2^32 - steps): lo and closed are one 64-bit
 * word, so the last step carries into closed, which the next exit tests
 * first. A D under the step's length (EA_STEP_TICKS) after the exit's
 * time comes before the step's re-entry: a hit, counted in hits, as is a
 * step for a fired D (0) with the vector pending.
 *
 * It lives in the CPU's exit area (struct vmx_exit_area), which the stub
 * reads off its stack pointer with no load: each of its instructions is one
 * more that a deadline falling in the exit waits for. Offsets: EA_*
 * (vmx_defs.h).
 */
struct vmx_tick_aside {
	uint32_t lo;		/* the steps, from 2^32 - steps: each adds 1, the last carries */
	uint32_t closed;	/* 0: armed; the last step carries into it, hv sets it */
	uint64_t span;		/* the window's length */
	uint64_t ptv;		/* the stub's: its last step's preemption-timer value */
	uint32_t bias;		/* added to D - the exit's time: the window starts two margins before */
	uint32_t irr_msr;	/* the x2APIC IRR word of the guest's timer vector */
	uint32_t irr_mask;	/* and its bit there */
	uint32_t hits;		/* steps a deadline came in (or had fired before, pending): hits */
	uint32_t vclass;	/* the vector's priority class (vector & 0xf0), against the PPR */
	uint32_t pad;
	uint64_t vmul;		/* 2^(32 - rate): the scaled stubs' x >> rate, as a product */
};

/*
 * The exit stub's own host tick (arch/x86/vmx_entry.S, exit_aside, 18:):
 * hv arms it before an entry (open = 1) when the next preemption-timer
 * exit is a host tick of a direct-mode vCPU on a core of its own (the same
 * vCPUs as the step-aside). At that exit, if the guest's deadline D (as the
 * exit stored it) is 0 (its timer vector not pending) or at or past far,
 * where hv would put the next tick on its grid whatever its placement
 * rules say (hv/core/timer.h host_timer_stub_plan), and the guest runs or
 * halts with interrupts on,
 * the stub does the tick itself: it counts it, loads the preemption timer
 * for next, moves due, next and far on by a period and re-enters, without
 * saving the guest's registers or calling hv. 69 instructions where
 * hv's tick exit is some 600: a device's interrupt to a direct guest that
 * arrives in the exit waits for all of it (the devirq rows). At most left
 * ticks in a row; the first exit that reaches hv folds what the stub did
 * (hv/time/aside.c stub_tick_fold) and closes it. A kick's NMI in root mode
 * closes it too (open = 0), and the stub, having written its value, then
 * writes 0: the kick's exit comes at once, not a tick later.
 *
 * In the CPU's exit area, after the step-aside's words: EA_ST_* (vmx_defs.h).
 */
struct vmx_stub_tick {
	uint32_t open;		/* 1: hv armed it for this entry; hv (or a kick) sets 0 */
	uint32_t left;		/* ticks it may still take in a row */
	uint64_t due;		/* the coming tick: an exit 52 at or after it is that tick */
	uint64_t next;		/* the tick after it, on the grid */
	uint64_t far;		/* a guest deadline at or past this, or 0: the stub may take the tick */
	uint64_t period;	/* the grid's period (TSC ticks) */
	uint32_t rate;		/* the preemption timer's rate: a TSC shift */
	uint32_t taken;		/* ticks it took since hv last folded */
	uint32_t busy;		/* of those, the ones that found the guest running */
	uint32_t round;		/* 2^rate - 1: the value rounded as ptimer_value does */
	uint64_t late_sum;	/* their lateness: TSC at the exit less the grid time (next - period) */
	uint64_t late_max;
	uint64_t last_now;	/* the TSC at the last one */
	uint64_t last_d;	/* and the guest's deadline there */
	/*
	 * The x2APIC IRR word of the guest's timer vector, and its bit (0: it
	 * has none): with D = 0 (hardware clears a fired deadline) the bit
	 * set means it fired at the exit, and hv defers for it.
	 */
	uint32_t irr_msr;
	uint32_t irr_mask;
};

/*
 * One entry of a VM-exit MSR-store area (SDM Vol. 3C 25.7.2, 28.4): the
 * processor writes the MSR's value there at every VM exit.
 */
struct vmx_msr_entry {
	uint32_t index;
	uint32_t reserved;	/* must be 0 */
	uint64_t value;
};

/*
 * Where HOST_RSP points: the top of the CPU's stack, above whatever runs
 * on it (struct cpu_arch stack_top). vmx_run fills arch and owner before each
 * entry (a shared core's vCPUs share the area); the stub finds both there
 * without a lookup, and keeps there the guest registers its paths use (a
 * step RCX alone; its other paths RAX and RDX too).
 */
struct vmx_exit_area {
	uint64_t arch;		/* struct vcpu_arch * */
	uint64_t owner;		/* hv's struct vcpu *, opaque here */
	/*
	 * A vCPU with the step-aside stub: its VM-exit MSR-store area, the
	 * TSC at the exit (IA32_TSC) and then the guest's IA32_TSC_DEADLINE,
	 * stored in that order (SDM Vol. 3C 28.4): a deadline that fires
	 * between the two stores reads 0 on hardware (and goes to the stub's
	 * IRR test), so a nonzero one stored is at or after the time stored.
	 * The stub reads both with MOVs, not an RDTSC and an RDMSR: in SMP
	 * Bochs each of those ends a trace, which a turn of the other CPUs
	 * follows (some 5 TSC ticks more for a deadline in the exit to wait);
	 * on hardware the stores are part of the exit.
	 */
	struct vmx_msr_entry tsc;
	struct vmx_msr_entry deadline;
	struct vmx_tick_aside aside;
	uint64_t rax, rcx, rdx;	/* the guest's, while the step-aside runs */
	uint64_t prof_stub, prof_entry;	/* TEMPO_PROFILE: the TSC at the stub's start, at the entry */
	struct vmx_stub_tick stub;
};

/*
 * What VMX keeps per vCPU, embedded in hv's struct vcpu as `arch`. hv fills
 * owner, vmcs_pa and vpid when it builds the vCPU; the rest is arch's.
 */
struct vcpu_arch {
	struct guest_regs regs;	/* must stay first (vmx_entry.S) */
	struct vcpu *owner;	/* what hv_exit_handler and hv_resume_failed are given */
	uint64_t vmcs_pa;
	uint64_t host_slot;	/* HOST_RSP: its CPU's struct vmx_exit_area */
	uint16_t vpid;
	bool launched;
	bool vmcs_ready;	/* built once (vmx_vmcs_setup); later runs only vmx_load it */
	uint64_t cr0_shadow, cr4_shadow;	/* what the guest believes it wrote */
	/*
	 * The primary processor-based controls as written last: the CPU never
	 * changes them, so the exit path reads this instead of a VMREAD and
	 * writes the field only when it changes (vmx_proc_write).
	 */
	uint32_t proc;
	struct vmx_tick_aside *aside;	/* in its CPU's exit area: the stub's (EA_*) */
	struct vmx_stub_tick *stub;	/* the same area's stub tick (EA_ST_*) */
#ifdef TEMPO_VMCS_CHECK
	/* its last checked entry, which the next check starts from (vmx_check.c) */
	struct vmx_checked *checked;
#endif
};

/* The state a vCPU starts in (vmx_vmcs_setup). */
enum vmx_start {
	VMX_START_PROTECTED,	/* multiboot: 32-bit protected mode, paging off, at rip */
	VMX_START_LONG64,	/* Linux 64-bit boot protocol at rip, with cr3 and the GDT */
	VMX_START_SIPI,		/* an AP after its SIPI: real mode at sipi_vector << 12 */
};

struct vmx_vcpu_setup {
	uint32_t cpu;		/* the core it runs on (its GDT, TSS, IDT, stack, GS base) */
	uint64_t eptp;
	uint64_t cr4_mask;	/* the CR4 guest/host mask: every bit the guest does not own */
	enum vmx_start start;
	uint64_t rip;		/* PROTECTED, LONG64 */
	uint32_t sipi_vector;	/* SIPI */
	uint64_t cr3;		/* LONG64: the identity map */
	uint64_t gdt_base;	/* LONG64: GDT with 0x10 = 64-bit code, 0x18 = data */
	uint32_t gdt_limit;
	bool tick_aside;	/* the exit stub that can step host ticks aside (vmx_tick_aside) */
	/*
	 * Two 4 KiB I/O bitmaps, A (ports 0-0x7FFF) then B: a port whose bit
	 * is clear passes through (SDM Vol. 3C 25.6.4); 0: every port exits.
	 */
	uint64_t io_bitmap_pa;
};

/* The control words every VMCS uses, fixed once at boot from the caps. */
struct vmx_controls {
	uint32_t pin, proc, proc2, exit, entry;
	uint64_t cr0_fixed0, cr0_fixed1, cr4_fixed0, cr4_fixed1;
	uint32_t preemption_timer_rate;
	bool has_rdtscp, has_invpcid, has_xsaves;
	bool has_io_bitmaps;	/* a partition's assigned ports may pass through */
	/*
	 * Virtual-interrupt delivery with x2APIC virtualization (the TPR
	 * shadow, SDM Vol. 3C 29.1-29.2, 29.5): the modes that deliver
	 * through the virtual LAPIC post their vectors in a virtual-APIC page
	 * and the guest's EOI costs no exit. Off where any of them is missing.
	 */
	bool has_apicv;
	/*
	 * Posted interrupts (SDM Vol. 3C 29.6) on top of it, where the CPU
	 * has them; used only with Tempo's `posted=on` (hv/core/posted.h).
	 */
	bool has_posted;
};

extern struct vmx_controls vmx_ctl;

/*
 * Compute the controls from @caps; on a missing required control write its
 * name into @err and return false.
 */
bool vmx_controls_init(const struct vmx_caps *caps, char *err, unsigned long errlen);

/* IA32_FEATURE_CONTROL, CR0/CR4 fixed bits, VMXON of the page at @vmxon_pa on CPU @cpu. */
bool vmx_cpu_enable(uint32_t cpu, uint64_t vmxon_pa, char *err, unsigned long errlen);

#define CR4_VMXE	(1ull << 13)

/*
 * Leave VMX operation, if this CPU is in it: a CPU in VMX root operation
 * blocks INIT (SDM Vol. 3C 25.8), which some resets (the keyboard
 * controller's on many chipsets) are delivered as. CR4.VMXE cannot be
 * cleared in VMX operation and is cleared when VMXON fails, so it tells.
 * Inline: the NMI handler (trap.c) calls it, and vmx.c calls into trap.c.
 */
static inline void vmx_cpu_off(void)
{
	uint64_t cr4;

	asm volatile("mov %%cr4, %0" : "=r"(cr4));
	if (!(cr4 & CR4_VMXE))
		return;
	asm volatile("vmxoff" : : : "cc", "memory");
	asm volatile("mov %0, %%cr4" : : "r"(cr4 & ~CR4_VMXE));
}

/*
 * Build @a's VMCS on this CPU (VMCLEAR, VMPTRLD, every field) and leave it
 * current. The interrupt model is the caller's to set next
 * (vmx_set_interrupt_model): until then the VMCS has the direct one.
 */
void vmx_vmcs_setup(struct vcpu_arch *a, const struct vmx_vcpu_setup *s);

/*
 * Forget the guest-linear translations cached under @vpid on this core (a
 * restarted partition's new instance must not use its old one's), by
 * single-context INVVPID where the CPU has it, else all-context.
 */
void vmx_flush_vpid(uint16_t vpid);

/* Make @a's VMCS current again (a shared core switching vCPUs). */
void vmx_load(struct vcpu_arch *a);

/*
 * The interrupt model of the current VMCS. Physical (@virtual_intr false):
 * the guest's interrupts reach its IDT with no exit. Virtual: every physical
 * interrupt exits, acknowledged, for hv to deliver; CR8 exits too; with
 * @vapic_pa (a virtual-APIC page, only where vmx_ctl.has_apicv) hv posts
 * the vectors there and the CPU delivers them and retires their EOIs, the
 * x2APIC EOI MSR virtualized when @x2apic; with @pi_desc_pa too (only where
 * vmx_ctl.has_posted) posted interrupts on @pi_vector into that
 * descriptor. Either way @msr_bitmap_pa is the MSR bitmap.
 */
void vmx_set_interrupt_model(bool virtual_intr, uint64_t msr_bitmap_pa, uint64_t vapic_pa,
			     bool x2apic, uint64_t pi_desc_pa, uint8_t pi_vector);

/*
 * Enter @a (VMLAUNCH the first time, VMRESUME after): exits go to
 * hv_exit_handler(@a->owner). Returns only if the entry failed, with the
 * VM-instruction error (SDM Vol. 3C 31.4). The caller has armed the
 * preemption timer (vmx_set_preemption_timer).
 */
uint32_t vmx_run(struct vcpu_arch *a);

/* What the CPU runs for a guest CR0/CR4 value: the VMX-forced bits on. */
uint64_t vmx_guest_cr0(uint64_t want);
uint64_t vmx_guest_cr4(uint64_t want);

/* TEMPO_PROFILE builds: the TSC the exit stub and the last entry of @a stamped. */
void vmx_prof_stamps(const struct vcpu_arch *a, uint64_t *stub, uint64_t *entry);

const char *vmx_exit_reason_name(uint32_t reason);
const char *vmx_instr_error_name(uint32_t err);

static inline uint64_t vmread(uint64_t field)
{
	uint64_t v;

	asm volatile("vmread %1, %0" : "=r"(v) : "r"(field) : "cc");
	return v;
}

#ifdef TEMPO_VMCS_CHECK
/*
 * VMWRITEs, on any CPU, to a field the VMCS checker's steady part may read
 * (VMCS_FIELD_STEADY): the checker reads that part again only after one
 * (arch/x86/vmx_check.c). A VM exit writes none of them (SDM Vol. 3C 27.2:
 * guest state, exit information and two entry fields); VMFUNC's EPTP
 * switching would write the EPT pointer, so with VM functions on the
 * checker reads that part at every entry (Tempo turns them on nowhere).
 */
extern uint64_t vmcs_steady_writes;
#endif

static inline void vmwrite(uint64_t field, uint64_t value)
{
	asm volatile("vmwrite %1, %0" : : "r"(field), "r"(value) : "cc", "memory");
#ifdef TEMPO_VMCS_CHECK
	if (VMCS_FIELD_STEADY(field))
		__atomic_fetch_add(&vmcs_steady_writes, 1, __ATOMIC_RELAXED);
#endif
}

/*
 * The VMX-preemption timer of the current VMCS: the guest exits after
 * @value ticks of vmx_ctl.preemption_timer_rate (0: at once, at the next
 * entry). Converting a TSC deadline to ticks is hv's (ptimer_value).
 */
static inline void vmx_set_preemption_timer(uint32_t value)
{
	vmwrite(VMCS_PREEMPTION_TIMER_VALUE, value);
}

/*
 * A vCPU with the step-aside stub (vmx_vcpu_setup tick_aside): the guest's
 * IA32_TSC_DEADLINE as its last VM exit stored it (the exit's MSR-store
 * area, struct vmx_exit_area deadline). Since then only a fire can have
 * changed the MSR, which hardware clears (SDM Vol. 3A 11.5.4.1): the value
 * is the MSR's at the exit, read with a MOV, not an RDMSR.
 */
static inline uint64_t vmx_exit_tsc_deadline(const struct vcpu_arch *a)
{
	return ((const struct vmx_exit_area *)(uintptr_t)a->host_slot)->deadline.value;
}

/* @a's primary processor-based controls (its VMCS current) become @proc. */
static inline void vmx_proc_write(struct vcpu_arch *a, uint32_t proc)
{
	if (proc != a->proc) {
		a->proc = proc;
		vmwrite(VMCS_PROC_CONTROLS, proc);
	}
}

#endif
