// SPDX-License-Identifier: MIT
/*
 * VMX operation on each core and the VMCS of each vCPU. Controls are fixed
 * once at boot from the capability MSRs (TRUE controls when offered, SDM Vol.
 * 3D A.3) and a missing required control is named. The guest starts the way
 * a loader leaves it (hv decides which state, where); CR0.NE and CR4.VMXE,
 * which VMX forces on, are masked and shadowed so the guest sees its own.
 */
#include "arch/x86/vmx.h"

#include "arch/x86/cpu.h"
#include "arch/x86/msr.h"
#include "arch/x86/smp.h"
#include "arch/x86/spec_ctl.h"
#include "arch/x86/trap.h"
#include "arch/x86/vmx_check.h"
#include "hv/lib/fmt.h"
#include "hv/lib/lib.h"
#include "hv/lib/log.h"
#include "hv/upcalls.h"

#include <stddef.h>

/* what vmx_entry.S reads (EA_*, vmx_defs.h) */
#define EA_AT(f, off) _Static_assert(offsetof(struct vmx_exit_area, f) == (off), #f)
EA_AT(arch, EA_ARCH);
EA_AT(owner, EA_OWNER);
EA_AT(deadline.value, EA_DEADLINE);
EA_AT(tsc.value, EA_TSC);
EA_AT(aside.lo, EA_LO);
EA_AT(aside.closed, EA_CLOSED);
EA_AT(aside.span, EA_SPAN);
EA_AT(aside.ptv, EA_PTV);
EA_AT(aside.bias, EA_BIAS);
EA_AT(aside.irr_msr, EA_IRR_MSR);
EA_AT(aside.irr_mask, EA_IRR_MASK);
EA_AT(aside.hits, EA_HITS);
EA_AT(aside.vclass, EA_VCLASS);
EA_AT(aside.vmul, EA_VMUL);
EA_AT(rax, EA_RAX);
EA_AT(rcx, EA_RCX);
EA_AT(rdx, EA_RDX);
/* MSR-store entries are 16-byte aligned (SDM Vol. 3C 26.2.1.2), as is the area */
_Static_assert(offsetof(struct vmx_exit_area, tsc) % 16 == 0, "tsc");
_Static_assert(sizeof(struct vmx_exit_area) <= EA_SIZE && EA_SIZE % 16 == 0, "EA_SIZE");
EA_AT(prof_stub, EA_PROF_STUB);
EA_AT(prof_entry, EA_PROF_ENTRY);
EA_AT(stub.open, EA_ST_OPEN);
EA_AT(stub.left, EA_ST_LEFT);
EA_AT(stub.due, EA_ST_DUE);
EA_AT(stub.next, EA_ST_NEXT);
EA_AT(stub.far, EA_ST_FAR);
EA_AT(stub.period, EA_ST_PERIOD);
EA_AT(stub.rate, EA_ST_RATE);
EA_AT(stub.taken, EA_ST_TAKEN);
EA_AT(stub.busy, EA_ST_BUSY);
EA_AT(stub.late_sum, EA_ST_LATE_SUM);
EA_AT(stub.late_max, EA_ST_LATE_MAX);
EA_AT(stub.last_now, EA_ST_LAST_NOW);
EA_AT(stub.round, EA_ST_ROUND);
EA_AT(stub.last_d, EA_ST_LAST_D);
EA_AT(stub.irr_msr, EA_ST_IRR_MSR);
EA_AT(stub.irr_mask, EA_ST_IRR_MASK);
_Static_assert(offsetof(struct vcpu_arch, host_slot) == VA_HOST_SLOT, "host_slot");
/* the stub's one 64-bit INC carries into closed: it must sit just above lo */
_Static_assert(offsetof(struct vmx_exit_area, deadline) == offsetof(struct vmx_exit_area, tsc) + 16,
	       "the MSR-store area: tsc, then deadline");
_Static_assert(EA_CLOSED == EA_LO + 4, "EA_CLOSED");

#define CR0_PE	(1ull << 0)
#define CR0_ET	(1ull << 4)
#define CR0_NE	(1ull << 5)
#define CR0_NW	(1ull << 29)
#define CR0_CD	(1ull << 30)
#define CR0_PG	(1ull << 31)
#define CR4_PAE	(1ull << 5)
#define EFER_LME (1ull << 8)
#define EFER_LMA (1ull << 10)

struct vmx_controls vmx_ctl;

extern char vmx_exit_stub[], vmx_exit_aside_none[], vmx_exit_aside_l1d[], vmx_exit_aside_verw[];
extern char vmx_exit_aside_none_scaled[], vmx_exit_aside_l1d_scaled[], vmx_exit_aside_verw_scaled[];
uint32_t vmx_enter(struct vcpu_arch *a, int launched);

static bool adjust(const char *what, uint64_t cap, uint32_t required, uint32_t optional,
		   uint32_t *out, char *err, unsigned long errlen)
{
	uint32_t allowed0 = (uint32_t)cap, allowed1 = (uint32_t)(cap >> 32);
	uint32_t v = ((required | optional) | allowed0) & allowed1;

	if ((v & required) != required) {
		fmt_snprintf(err, errlen, "VMX: this CPU cannot set %s control bits 0x%x "
			     "(allowed-1 0x%x)", what, required & ~v, allowed1);
		return false;
	}
	*out = v;
	return true;
}

bool vmx_controls_init(const struct vmx_caps *caps, char *err, unsigned long errlen)
{
	struct vmx_controls *c = &vmx_ctl;

	/* Host ticks ride on the preemption timer, which no guest can touch. */
	if (!adjust("pin-based", caps->pinbased, PIN_NMI_EXITING | PIN_PREEMPTION_TIMER,
		    PIN_VIRTUAL_NMIS, &c->pin, err, errlen))
		return false;
	/*
	 * Every port exits (unconditional I/O exiting): the guest's UART is
	 * virtual and every other port reads all-ones; a partition given
	 * ports has I/O bitmaps instead, with only those clear (setup_controls). MWAIT and MONITOR exit
	 * so no guest parks its core in a C-state where the preemption timer
	 * stops (DESIGN.md). HLT does not exit: on a dedicated core the guest
	 * may sleep until its own interrupt.
	 */
	if (!adjust("processor-based", caps->procbased,
		    PROC_UNCOND_IO_EXITING | PROC_USE_MSR_BITMAPS | PROC_MWAIT_EXITING |
			    PROC_MONITOR_EXITING | PROC_SECONDARY_CONTROLS,
		    0, &c->proc, err, errlen))
		return false;
	if (!adjust("secondary processor-based", caps->procbased2,
		    PROC2_ENABLE_EPT | PROC2_ENABLE_VPID | PROC2_UNRESTRICTED_GUEST,
		    PROC2_ENABLE_RDTSCP | PROC2_ENABLE_INVPCID | PROC2_ENABLE_XSAVES, &c->proc2,
		    err, errlen))
		return false;
	if (!adjust("VM-exit", caps->exit,
		    EXIT_HOST_ADDR_SPACE_SIZE | EXIT_SAVE_EFER | EXIT_LOAD_EFER | EXIT_SAVE_PAT |
			    EXIT_LOAD_PAT | EXIT_SAVE_DEBUG_CONTROLS,
		    0, &c->exit, err, errlen))
		return false;
	/*
	 * DR7 and IA32_DEBUGCTL are the guest's: saved on exit and loaded on
	 * entry (SDM 27.3.1, 26.3.2.1), so the guest keeps its breakpoints and
	 * root mode runs with DR7 = 0x400 and DEBUGCTL = 0 (27.5.1).
	 */
	if (!adjust("VM-entry", caps->entry,
		    ENTRY_LOAD_EFER | ENTRY_LOAD_PAT | ENTRY_LOAD_DEBUG_CONTROLS, 0, &c->entry,
		    err, errlen))
		return false;
	/* The guest decides long mode; it is set per vCPU (and read back on exit). */
	c->entry &= ~ENTRY_IA32E_MODE_GUEST;
	c->has_apicv = ((caps->procbased >> 32) & PROC_TPR_SHADOW) &&
		       ((caps->procbased2 >> 32) & PROC2_VIRT_X2APIC_MODE) &&
		       ((caps->procbased2 >> 32) & PROC2_VIRT_INTR_DELIVERY) &&
		       ((caps->pinbased >> 32) & PIN_EXTINT_EXITING);
	c->has_posted = c->has_apicv && ((caps->pinbased >> 32) & PIN_POSTED_INTR) &&
			((caps->exit >> 32) & EXIT_ACK_INTR_ON_EXIT);
	c->has_io_bitmaps = (caps->procbased >> 32) & PROC_USE_IO_BITMAPS;
	c->has_rdtscp = c->proc2 & PROC2_ENABLE_RDTSCP;
	c->has_invpcid = c->proc2 & PROC2_ENABLE_INVPCID;
	/*
	 * XSAVES for guests only where the CPU also says it has it (CPUID
	 * 0xD.1 EAX[3]): IA32_XSS, cleared on every core (vmx_cpu_enable),
	 * exists only there, and a nested VMM may offer the control alone.
	 */
	if (cpuid(0, 0).eax < 0xd || !(cpuid(0xd, 1).eax & (1u << 3)))
		c->proc2 &= ~PROC2_ENABLE_XSAVES;
	c->has_xsaves = c->proc2 & PROC2_ENABLE_XSAVES;
	c->cr0_fixed0 = rdmsr(MSR_IA32_VMX_CR0_FIXED0);
	c->cr0_fixed1 = rdmsr(MSR_IA32_VMX_CR0_FIXED1);
	c->cr4_fixed0 = rdmsr(MSR_IA32_VMX_CR4_FIXED0);
	c->cr4_fixed1 = rdmsr(MSR_IA32_VMX_CR4_FIXED1);
	c->preemption_timer_rate = caps->preemption_timer_rate;
	vmx_check_boot();
	return true;
}

/*
 * Whatever firmware or a previous VMM left in the TLBs under EPT or a VPID
 * must not serve a partition: after VMXON, invalidate every EPT context and
 * every VPID, where the CPU offers the all-context types (IA32_VMX_EPT_VPID_CAP
 * bits 20/26 and 32/42; SDM Vol. 3C 29.4.3.3, 30.3).
 */
#define EPT_CAP_INVEPT		(1ull << 20)
#define EPT_CAP_INVEPT_ALL	(1ull << 26)
#define VPID_CAP_INVVPID	(1ull << 32)
#define VPID_CAP_INVVPID_ALL	(1ull << 42)
#define INV_ALL_CONTEXT		2ull

static void flush_all_translations(void)
{
	uint64_t cap = rdmsr(MSR_IA32_VMX_EPT_VPID_CAP);
	struct { uint64_t a, b; } desc = { 0, 0 };

	if ((cap & EPT_CAP_INVEPT) && (cap & EPT_CAP_INVEPT_ALL))
		asm volatile("invept %0, %1" : : "m"(desc), "r"(INV_ALL_CONTEXT) : "cc", "memory");
	if ((cap & VPID_CAP_INVVPID) && (cap & VPID_CAP_INVVPID_ALL))
		asm volatile("invvpid %0, %1" : : "m"(desc), "r"(INV_ALL_CONTEXT) : "cc", "memory");
}

#define VPID_CAP_INVVPID_SINGLE	(1ull << 41)
#define INV_SINGLE_CONTEXT	1ull

void vmx_flush_vpid(uint16_t vpid)
{
	uint64_t cap = rdmsr(MSR_IA32_VMX_EPT_VPID_CAP);
	struct { uint64_t a, b; } desc = { vpid, 0 };

	if (!(cap & VPID_CAP_INVVPID))
		return;
	if (cap & VPID_CAP_INVVPID_SINGLE)
		asm volatile("invvpid %0, %1" : : "m"(desc), "r"(INV_SINGLE_CONTEXT) : "cc", "memory");
	else if (cap & VPID_CAP_INVVPID_ALL)
		asm volatile("invvpid %0, %1" : : "m"(desc), "r"(INV_ALL_CONTEXT) : "cc", "memory");
}

bool vmx_cpu_enable(uint32_t cpu, uint64_t vmxon_pa, char *err, unsigned long errlen)
{
	uint64_t fc = rdmsr(MSR_IA32_FEATURE_CONTROL);
	uint64_t cr0, cr4;
	uint8_t fail;

	if (!(fc & FEATURE_CONTROL_LOCK)) {
		/* Bochs and some firmware leave it unlocked: enable and lock. */
		wrmsr(MSR_IA32_FEATURE_CONTROL,
		      fc | FEATURE_CONTROL_LOCK | FEATURE_CONTROL_VMX_OUTSIDE_SMX);
	} else if (!(fc & FEATURE_CONTROL_VMX_OUTSIDE_SMX)) {
		fmt_snprintf(err, errlen, "CPU %u: VMX is disabled and locked by the firmware "
			     "(IA32_FEATURE_CONTROL 0x%lx): enable VT-x in the BIOS", cpu, fc);
		return false;
	}
	asm volatile("mov %%cr0, %0" : "=r"(cr0));
	cr0 = (cr0 | vmx_ctl.cr0_fixed0) & vmx_ctl.cr0_fixed1;
	asm volatile("mov %0, %%cr0" : : "r"(cr0));
	asm volatile("mov %%cr4, %0" : "=r"(cr4));
	cr4 = (cr4 | vmx_ctl.cr4_fixed0 | CR4_VMXE) & vmx_ctl.cr4_fixed1;
	asm volatile("mov %0, %%cr4" : : "r"(cr4));

	*(volatile uint32_t *)vmxon_pa = (uint32_t)rdmsr(MSR_IA32_VMX_BASIC) & 0x7fffffff;
	asm volatile("vmxon %1; setna %0" : "=q"(fail) : "m"(vmxon_pa) : "cc", "memory");
	if (fail) {
		/* CR4.VMXE then says whether this CPU is in VMX operation (vmx_cpu_off) */
		asm volatile("mov %0, %%cr4" : : "r"(cr4 & ~CR4_VMXE));
		fmt_snprintf(err, errlen, "CPU %u: VMXON failed (CR0 0x%lx CR4 0x%lx)", cpu,
			     cr0, cr4);
		return false;
	}
	flush_all_translations();
	/*
	 * A guest's XSAVES and XRSTORS (where VMX enables them) work on
	 * XCR0 | IA32_XSS, and IA32_XSS is not in the VMCS: it stays this
	 * core's. So it is 0 here whatever the firmware left (a supervisor
	 * component such as Intel PT's would otherwise be the guest's to load),
	 * and guests see it as 0 (hv/exit/msr.c).
	 */
	if (vmx_ctl.has_xsaves && !wrmsr_safe(MSR_IA32_XSS, 0)) {
		fmt_snprintf(err, errlen, "CPU %u: IA32_XSS cannot be cleared", cpu);
		return false;
	}
	return true;
}

void vmx_load(struct vcpu_arch *a)
{
	uint64_t pa = a->vmcs_pa;
	uint8_t fail;

	asm volatile("vmptrld %1; setna %0" : "=q"(fail) : "m"(pa) : "cc", "memory");
	if (fail) {
		log_err("VMX: VMPTRLD of 0x%lx failed\n", pa);
		hv_stop(STOP_FAILURE, "VMCS load failed");
	}
}

static void vmclear_ptrld(uint64_t pa)
{
	uint8_t fail;

	*(volatile uint32_t *)pa = (uint32_t)rdmsr(MSR_IA32_VMX_BASIC) & 0x7fffffff;
	asm volatile("vmclear %1; setna %0" : "=q"(fail) : "m"(pa) : "cc", "memory");
	if (!fail)
		asm volatile("vmptrld %1; setna %0" : "=q"(fail) : "m"(pa) : "cc", "memory");
	if (fail) {
		log_err("VMX: VMCLEAR/VMPTRLD of 0x%lx failed\n", pa);
		hv_stop(STOP_FAILURE, "VMCS load failed");
	}
}

static void setup_host_state(struct vcpu_arch *a, uint32_t cpu, bool tick_aside)
{
	const struct cpu_arch *c = &smp_cpus[cpu];
	struct vmx_exit_area *area;
	uint64_t gdt, tss, idt, cr, rip;

	trap_cpu_tables(cpu, &gdt, &tss, &idt);
	asm volatile("mov %%cr0, %0" : "=r"(cr));
	vmwrite(VMCS_HOST_CR0, cr);
	asm volatile("mov %%cr3, %0" : "=r"(cr));
	vmwrite(VMCS_HOST_CR3, cr);
	asm volatile("mov %%cr4, %0" : "=r"(cr));
	vmwrite(VMCS_HOST_CR4, cr);
	vmwrite(VMCS_HOST_CS_SEL, 0x08);
	vmwrite(VMCS_HOST_SS_SEL, 0x10);
	vmwrite(VMCS_HOST_DS_SEL, 0x10);
	vmwrite(VMCS_HOST_ES_SEL, 0x10);
	vmwrite(VMCS_HOST_FS_SEL, 0);
	vmwrite(VMCS_HOST_GS_SEL, 0);
	vmwrite(VMCS_HOST_TR_SEL, 0x18);
	vmwrite(VMCS_HOST_FS_BASE, 0);
	vmwrite(VMCS_HOST_GS_BASE, (uint64_t)c->local);	/* hv's per-CPU block */
	vmwrite(VMCS_HOST_TR_BASE, tss);
	vmwrite(VMCS_HOST_GDTR_BASE, gdt);
	vmwrite(VMCS_HOST_IDTR_BASE, idt);
	vmwrite(VMCS_HOST_SYSENTER_CS, 0);
	vmwrite(VMCS_HOST_SYSENTER_ESP, 0);
	vmwrite(VMCS_HOST_SYSENTER_EIP, 0);
	vmwrite(VMCS_HOST_EFER, rdmsr(MSR_IA32_EFER));
	vmwrite(VMCS_HOST_PAT, rdmsr(MSR_IA32_PAT));
	/*
	 * The exit stub finds the vCPU in the CPU's exit area, HOST_RSP (vmx_run
	 * fills it: a shared core's vCPUs share it), and the step-aside there,
	 * closed until hv arms it. A vCPU that may step aside gets the stub that
	 * can, with the entry mitigation decided at boot (spec_boot, before any
	 * vCPU is built).
	 */
	area = (struct vmx_exit_area *)(uintptr_t)c->stack_top;
	area->aside.closed = 1;
	/* closed, and nothing left to fold (a failed VMRESUME after a stub tick folds nothing) */
	area->stub = (struct vmx_stub_tick){ 0 };
	a->host_slot = c->stack_top;
	a->aside = &area->aside;
	a->stub = &area->stub;
	/* the stub reads the guest's deadline, and the exit's time, as the exit stored them */
	area->tsc = (struct vmx_msr_entry){ .index = MSR_IA32_TSC };
	area->deadline = (struct vmx_msr_entry){ .index = MSR_IA32_TSC_DEADLINE };
	vmwrite(VMCS_EXIT_MSR_STORE_ADDR, (uint64_t)(uintptr_t)&area->tsc);
	vmwrite(VMCS_EXIT_MSR_STORE_COUNT, tick_aside ? 2 : 0);
	/* the timer's rate picks the step's arithmetic: x, or x >> rate */
	if (!tick_aside)
		rip = (uint64_t)vmx_exit_stub;
	else if (spec_entry_mode == SPEC_ENTRY_L1D_FLUSH)
		rip = (uint64_t)(vmx_ctl.preemption_timer_rate ? vmx_exit_aside_l1d_scaled
							       : vmx_exit_aside_l1d);
	else if (spec_entry_mode == SPEC_ENTRY_VERW)
		rip = (uint64_t)(vmx_ctl.preemption_timer_rate ? vmx_exit_aside_verw_scaled
							       : vmx_exit_aside_verw);
	else
		rip = (uint64_t)(vmx_ctl.preemption_timer_rate ? vmx_exit_aside_none_scaled
							       : vmx_exit_aside_none);
	vmwrite(VMCS_HOST_RSP, a->host_slot);
	vmwrite(VMCS_HOST_RIP, rip);
}

static void setup_controls(struct vcpu_arch *a, const struct vmx_vcpu_setup *s)
{
	uint32_t proc = vmx_ctl.proc;

	if (s->io_bitmap_pa && vmx_ctl.has_io_bitmaps) {
		proc = (proc & ~PROC_UNCOND_IO_EXITING) | PROC_USE_IO_BITMAPS;
		vmwrite(VMCS_IO_BITMAP_A, s->io_bitmap_pa);
		vmwrite(VMCS_IO_BITMAP_B, s->io_bitmap_pa + 0x1000);
	}
	vmwrite(VMCS_PIN_CONTROLS, vmx_ctl.pin);
	vmwrite(VMCS_PROC_CONTROLS, proc);
	a->proc = proc;
	vmwrite(VMCS_PROC_CONTROLS2, vmx_ctl.proc2);
	/* guest XSAVES/XRSTORS run on IA32_XSS = 0 (vmx_cpu_enable): nothing to trap */
	if (vmx_ctl.has_xsaves)
		vmwrite(VMCS_XSS_EXIT_BITMAP, 0);
	vmwrite(VMCS_EXIT_CONTROLS, vmx_ctl.exit);
	vmwrite(VMCS_ENTRY_CONTROLS, vmx_ctl.entry);
	vmwrite(VMCS_EXCEPTION_BITMAP, 0);
	vmwrite(VMCS_PF_ERROR_MASK, 0);
	vmwrite(VMCS_PF_ERROR_MATCH, 0);
	vmwrite(VMCS_CR3_TARGET_COUNT, 0);
	vmwrite(VMCS_EXIT_MSR_STORE_COUNT, 0);
	vmwrite(VMCS_EXIT_MSR_LOAD_COUNT, 0);
	vmwrite(VMCS_ENTRY_MSR_LOAD_COUNT, 0);
	vmwrite(VMCS_ENTRY_INTR_INFO, 0);
	vmwrite(VMCS_EPT_POINTER, s->eptp);
	vmwrite(VMCS_VPID, a->vpid);
	vmwrite(VMCS_TSC_OFFSET, 0);	/* the guest's TSC is the host's */
	vmwrite(VMCS_LINK_POINTER, ~0ull);
	/*
	 * NE is forced on by VMX. CD and NW are the core's, not the guest's:
	 * VM entry and exit leave them as they are (SDM 26.3.2.1, 27.5.1), so a
	 * guest that set them would leave root mode and the next partition on
	 * the core running uncached. The guest sees what it wrote.
	 */
	vmwrite(VMCS_CR0_GUEST_HOST_MASK, CR0_NE | CR0_CD | CR0_NW);
	/*
	 * VMXE is forced on. Only the bits the guest owns are its own; the
	 * rest exit and are #GP (hv/core/cr4_policy.h decides, hv/run/loop.c
	 * passes the mask).
	 */
	vmwrite(VMCS_CR4_GUEST_HOST_MASK, s->cr4_mask);
}

/* What the CPU runs for a guest CR0 value: VMX-forced bits on (PE/PG exempt). */
uint64_t vmx_guest_cr0(uint64_t want)
{
	uint64_t fixed0 = vmx_ctl.cr0_fixed0 & ~(CR0_PE | CR0_PG);

	return (want | fixed0 | CR0_ET) & (vmx_ctl.cr0_fixed1 | CR0_PE | CR0_PG) &
	       ~(CR0_CD | CR0_NW);
}

uint64_t vmx_guest_cr4(uint64_t want)
{
	return (want | vmx_ctl.cr4_fixed0) & vmx_ctl.cr4_fixed1;
}

static void set_segment(uint32_t sel_field, uint16_t sel, uint64_t base, uint32_t limit,
			uint32_t ar)
{
	/* ES, CS, SS, DS, FS, GS, LDTR, TR fields share one layout (Appendix B) */
	uint32_t i = (sel_field - VMCS_GUEST_ES_SEL) / 2;

	vmwrite(sel_field, sel);
	vmwrite(VMCS_GUEST_ES_BASE + 2 * i, base);
	vmwrite(VMCS_GUEST_ES_LIMIT + 2 * i, limit);
	vmwrite(VMCS_GUEST_ES_AR + 2 * i, ar);
}

/*
 * The state GRUB leaves for a multiboot kernel (Multiboot2 spec 3.3): 32-bit
 * protected mode, paging off, flat 4 GiB code and data segments.
 */
static void setup_guest_protected(struct vcpu_arch *a, uint64_t entry)
{
	a->cr0_shadow = CR0_PE | CR0_ET;
	a->cr4_shadow = 0;
	set_segment(VMCS_GUEST_CS_SEL, 0x08, 0, 0xffffffff, 0xc09b);
	for (uint32_t f = VMCS_GUEST_ES_SEL; f <= VMCS_GUEST_GS_SEL; f += 2)
		if (f != VMCS_GUEST_CS_SEL)
			set_segment(f, 0x10, 0, 0xffffffff, 0xc093);
	vmwrite(VMCS_GUEST_RIP, entry);
}

/*
 * The state the Linux 64-bit boot protocol asks for (boot.rst, "64-bit Boot
 * Protocol"): long mode with paging on and an identity map covering the
 * kernel, the zero page and the command line; a GDT whose 0x10 is a 64-bit
 * code segment (__BOOT_CS) and 0x18 a flat data segment (__BOOT_DS), loaded
 * into CS and DS/ES/SS; interrupts off; RSI = the zero page (set by the
 * loader, which wrote the GDT and page tables where @s says).
 */
static void setup_guest_long64(struct vcpu_arch *a, const struct vmx_vcpu_setup *s)
{
	a->cr0_shadow = CR0_PE | CR0_ET | CR0_PG;
	a->cr4_shadow = CR4_PAE;
	set_segment(VMCS_GUEST_CS_SEL, 0x10, 0, 0xffffffff, 0xa09b);	/* L=1, D=0 */
	for (uint32_t f = VMCS_GUEST_ES_SEL; f <= VMCS_GUEST_GS_SEL; f += 2)
		if (f != VMCS_GUEST_CS_SEL)
			set_segment(f, 0x18, 0, 0xffffffff, 0xc093);
	vmwrite(VMCS_GUEST_RIP, s->rip);
	vmwrite(VMCS_GUEST_CR3, s->cr3);
	vmwrite(VMCS_GUEST_EFER, EFER_LME | EFER_LMA);
	vmwrite(VMCS_ENTRY_CONTROLS, vmx_ctl.entry | ENTRY_IA32E_MODE_GUEST);
	vmwrite(VMCS_GUEST_GDTR_BASE, s->gdt_base);
	vmwrite(VMCS_GUEST_GDTR_LIMIT, s->gdt_limit);
}

/* Real mode at CS:IP = (vector << 8):0, as a SIPI leaves an AP (SDM 9.4.4). */
static void setup_guest_sipi(struct vcpu_arch *a, uint32_t vector)
{
	a->cr0_shadow = CR0_ET;
	a->cr4_shadow = 0;
	set_segment(VMCS_GUEST_CS_SEL, (uint16_t)(vector << 8), (uint64_t)vector << 12, 0xffff,
		    0x9b);
	for (uint32_t f = VMCS_GUEST_ES_SEL; f <= VMCS_GUEST_GS_SEL; f += 2)
		if (f != VMCS_GUEST_CS_SEL)
			set_segment(f, 0, 0, 0xffff, 0x93);
	vmwrite(VMCS_GUEST_RIP, 0);
}

void vmx_vmcs_setup(struct vcpu_arch *a, const struct vmx_vcpu_setup *s)
{
	vmclear_ptrld(a->vmcs_pa);
	setup_controls(a, s);
	setup_host_state(a, s->cpu, s->tick_aside);

	/* what every vCPU starts with; its entry state below changes some */
	vmwrite(VMCS_GUEST_CR3, 0);
	vmwrite(VMCS_GUEST_EFER, 0);
	set_segment(VMCS_GUEST_LDTR_SEL, 0, 0, 0, 0x10000);	/* unusable */
	set_segment(VMCS_GUEST_TR_SEL, 0, 0, 0xff, 0x8b);	/* busy 32-bit TSS */
	vmwrite(VMCS_GUEST_GDTR_BASE, 0);
	vmwrite(VMCS_GUEST_GDTR_LIMIT, 0xffff);
	if (s->start == VMX_START_LONG64)
		setup_guest_long64(a, s);
	else if (s->start == VMX_START_PROTECTED)
		setup_guest_protected(a, s->rip);
	else
		setup_guest_sipi(a, s->sipi_vector);
	vmwrite(VMCS_GUEST_CR0, vmx_guest_cr0(a->cr0_shadow));
	vmwrite(VMCS_CR0_READ_SHADOW, a->cr0_shadow);
	vmwrite(VMCS_GUEST_CR4, vmx_guest_cr4(a->cr4_shadow));
	vmwrite(VMCS_CR4_READ_SHADOW, a->cr4_shadow);
	vmwrite(VMCS_GUEST_IDTR_BASE, 0);
	vmwrite(VMCS_GUEST_IDTR_LIMIT, 0xffff);
	vmwrite(VMCS_GUEST_DR7, 0x400);
	vmwrite(VMCS_GUEST_RSP, 0);
	vmwrite(VMCS_GUEST_RFLAGS, 0x2);
	vmwrite(VMCS_GUEST_PENDING_DBG, 0);
	vmwrite(VMCS_GUEST_INTERRUPTIBILITY, 0);
	vmwrite(VMCS_GUEST_ACTIVITY_STATE, ACTIVITY_ACTIVE);
	vmwrite(VMCS_GUEST_SYSENTER_CS, 0);
	vmwrite(VMCS_GUEST_SYSENTER_ESP, 0);
	vmwrite(VMCS_GUEST_SYSENTER_EIP, 0);
	vmwrite(VMCS_GUEST_DEBUGCTL, 0);
	vmwrite(VMCS_GUEST_PAT, 0x0007040600070406ull);	/* the power-on PAT */
	a->launched = false;
	a->vmcs_ready = true;
}

void vmx_set_interrupt_model(bool virtual_intr, uint64_t msr_bitmap_pa, uint64_t vapic_pa,
			     bool x2apic, uint64_t pi_desc_pa, uint8_t pi_vector)
{
	const uint32_t io = PROC_UNCOND_IO_EXITING | PROC_USE_IO_BITMAPS;
	uint32_t pin = vmx_ctl.pin, exit = vmx_ctl.exit;
	/* the ports' controls are the vCPU's (setup_controls), not the model's */
	uint32_t proc = (vmx_ctl.proc & ~io) | ((uint32_t)vmread(VMCS_PROC_CONTROLS) & io);
	uint32_t proc2 = vmx_ctl.proc2;

	if (virtual_intr) {
		pin |= PIN_EXTINT_EXITING;
		exit |= EXIT_ACK_INTR_ON_EXIT;
		proc |= PROC_CR8_LOAD_EXITING | PROC_CR8_STORE_EXITING;
	}
	/*
	 * Virtual-interrupt delivery: vectors are posted in the page (VIRR,
	 * RVI) and delivered by the CPU, EOIs retire them there. The TPR
	 * shadow is required for it; CR8 still exits (the vLAPIC's TPR, which
	 * hv copies into the page). The EOI-exit bitmap is 0: every vector is
	 * edge-triggered. x2APIC virtualization only in x2APIC mode, where the
	 * MSR bitmap lets the EOI MSR through (an xAPIC guest's EOI is an MMIO
	 * exit, as before). SDM Vol. 3C 26.2.1.1 for the checks.
	 */
	if (virtual_intr && vapic_pa) {
		proc |= PROC_TPR_SHADOW;
		proc2 |= PROC2_VIRT_INTR_DELIVERY | (x2apic ? PROC2_VIRT_X2APIC_MODE : 0);
		vmwrite(VMCS_VIRTUAL_APIC_ADDR, vapic_pa);
		vmwrite(VMCS_TPR_THRESHOLD, 0);
		for (uint32_t i = 0; i < 4; i++)
			vmwrite(VMCS_EOI_EXIT_BITMAP0 + 2 * i, 0);
		/*
		 * Posted interrupts: the notification vector is taken by the
		 * CPU in non-root mode, the descriptor's PIR merged into VIRR
		 * (SDM Vol. 3C 29.6); needs external-interrupt exiting,
		 * acknowledge on exit and virtual-interrupt delivery, all set
		 * above.
		 */
		if (pi_desc_pa) {
			pin |= PIN_POSTED_INTR;
			vmwrite(VMCS_POSTED_INTR_NV, pi_vector);
			vmwrite(VMCS_POSTED_INTR_DESC, pi_desc_pa);
		}
	}
	vmwrite(VMCS_PIN_CONTROLS, pin);
	vmwrite(VMCS_EXIT_CONTROLS, exit);
	vmwrite(VMCS_PROC_CONTROLS, proc);
	vmwrite(VMCS_PROC_CONTROLS2, proc2);
	vmwrite(VMCS_MSR_BITMAP, msr_bitmap_pa);
}

uint32_t vmx_run(struct vcpu_arch *a)
{
	bool launched = a->launched;
	struct vmx_exit_area *area = (struct vmx_exit_area *)(uintptr_t)a->host_slot;

	/* the exit stub's: where to save the registers, and whom to tell */
	area->arch = (uint64_t)(uintptr_t)a;
	area->owner = (uint64_t)(uintptr_t)a->owner;
	a->launched = true;
	return vmx_enter(a, launched);
}

void vmx_prof_stamps(const struct vcpu_arch *a, uint64_t *stub, uint64_t *entry)
{
	const struct vmx_exit_area *area = (const struct vmx_exit_area *)(uintptr_t)a->host_slot;

	*stub = area->prof_stub;
	*entry = area->prof_entry;
}

const char *vmx_instr_error_name(uint32_t err)
{
	static const char *const names[] = {
		[1] = "VMCALL in VMX root operation",
		[2] = "VMCLEAR with invalid physical address",
		[3] = "VMCLEAR with VMXON pointer",
		[4] = "VMLAUNCH with non-clear VMCS",
		[5] = "VMRESUME with non-launched VMCS",
		[6] = "VMRESUME after VMXOFF",
		[7] = "VM entry with invalid control fields",
		[8] = "VM entry with invalid host-state fields",
		[9] = "VMPTRLD with invalid physical address",
		[10] = "VMPTRLD with VMXON pointer",
		[11] = "VMPTRLD with incorrect VMCS revision identifier",
		[12] = "VMREAD/VMWRITE of unsupported VMCS component",
		[13] = "VMWRITE to read-only VMCS component",
		[15] = "VMXON executed in VMX root operation",
		[16] = "VM entry with invalid executive-VMCS pointer",
		[17] = "VM entry with non-launched executive VMCS",
		[18] = "VM entry with executive-VMCS pointer not VMXON pointer",
		[19] = "VMCALL with non-clear VMCS",
		[20] = "VMCALL with invalid VM-exit control fields",
		[22] = "VMCALL with incorrect MSEG revision identifier",
		[23] = "VMXOFF under dual-monitor treatment",
		[24] = "VMCALL with invalid SMM-monitor features",
		[25] = "VM entry with invalid VM-execution control fields in executive VMCS",
		[26] = "VM entry with events blocked by MOV SS",
		[28] = "invalid operand to INVEPT/INVVPID",
	};

	if (err < ARRAY_SIZE(names) && names[err])
		return names[err];
	if (err == VMX_ERR_VMCS_CHECK)
		return "the VMCS checker refused the entry (VMCS_CHECK lines)";
	return "unknown VM-instruction error";
}

const char *vmx_exit_reason_name(uint32_t reason)
{
	static const char *const names[EXIT_REASON_COUNT] = {
		[EXIT_REASON_EXCEPTION_NMI] = "exception_nmi",
		[EXIT_REASON_EXTERNAL_INTR] = "external_interrupt",
		[EXIT_REASON_TRIPLE_FAULT] = "triple_fault",
		[EXIT_REASON_INIT] = "init_signal",
		[EXIT_REASON_SIPI] = "sipi",
		[EXIT_REASON_INTR_WINDOW] = "interrupt_window",
		[EXIT_REASON_NMI_WINDOW] = "nmi_window",
		[EXIT_REASON_TASK_SWITCH] = "task_switch",
		[EXIT_REASON_CPUID] = "cpuid",
		[EXIT_REASON_GETSEC] = "getsec",
		[EXIT_REASON_HLT] = "hlt",
		[EXIT_REASON_INVD] = "invd",
		[EXIT_REASON_INVLPG] = "invlpg",
		[EXIT_REASON_RDPMC] = "rdpmc",
		[EXIT_REASON_RDTSC] = "rdtsc",
		[EXIT_REASON_RSM] = "rsm",
		[EXIT_REASON_VMCALL] = "vmcall",
		[EXIT_REASON_VMCLEAR] = "vmclear",
		[EXIT_REASON_VMLAUNCH] = "vmlaunch",
		[EXIT_REASON_VMPTRLD] = "vmptrld",
		[EXIT_REASON_VMPTRST] = "vmptrst",
		[EXIT_REASON_VMREAD] = "vmread",
		[EXIT_REASON_VMRESUME] = "vmresume",
		[EXIT_REASON_VMWRITE] = "vmwrite",
		[EXIT_REASON_VMXOFF] = "vmxoff",
		[EXIT_REASON_VMXON] = "vmxon",
		[EXIT_REASON_CR_ACCESS] = "cr_access",
		[EXIT_REASON_DR_ACCESS] = "dr_access",
		[EXIT_REASON_IO] = "io",
		[EXIT_REASON_RDMSR] = "rdmsr",
		[EXIT_REASON_WRMSR] = "wrmsr",
		[EXIT_REASON_INVALID_GUEST_STATE] = "invalid_guest_state",
		[EXIT_REASON_MSR_LOADING] = "msr_loading",
		[EXIT_REASON_MWAIT] = "mwait",
		[EXIT_REASON_MTF] = "monitor_trap_flag",
		[EXIT_REASON_MONITOR] = "monitor",
		[EXIT_REASON_PAUSE] = "pause",
		[EXIT_REASON_MACHINE_CHECK] = "machine_check",
		[EXIT_REASON_TPR_BELOW] = "tpr_below_threshold",
		[EXIT_REASON_APIC_ACCESS] = "apic_access",
		[EXIT_REASON_VIRT_EOI] = "virtualized_eoi",
		[EXIT_REASON_GDTR_IDTR] = "gdtr_idtr",
		[EXIT_REASON_LDTR_TR] = "ldtr_tr",
		[EXIT_REASON_EPT_VIOLATION] = "ept_violation",
		[EXIT_REASON_EPT_MISCONFIG] = "ept_misconfig",
		[EXIT_REASON_INVEPT] = "invept",
		[EXIT_REASON_RDTSCP] = "rdtscp",
		[EXIT_REASON_PREEMPTION_TIMER] = "preemption_timer",
		[EXIT_REASON_INVVPID] = "invvpid",
		[EXIT_REASON_WBINVD] = "wbinvd",
		[EXIT_REASON_XSETBV] = "xsetbv",
		[EXIT_REASON_APIC_WRITE] = "apic_write",
		[EXIT_REASON_RDRAND] = "rdrand",
		[EXIT_REASON_INVPCID] = "invpcid",
		[EXIT_REASON_VMFUNC] = "vmfunc",
		[EXIT_REASON_RDSEED] = "rdseed",
		[EXIT_REASON_XSAVES] = "xsaves",
		[EXIT_REASON_XRSTORS] = "xrstors",
	};

	if (reason < EXIT_REASON_COUNT && names[reason])
		return names[reason];
	return "unknown";
}
