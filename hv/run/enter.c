// SPDX-License-Identifier: MIT
/*
 * Entering a vCPU: its VMCS built on its core the first time (and after a
 * restart), what every entry needs, and the core's state that the VMCS
 * does not load when a vCPU (re)starts there.
 */
#include "arch/x86/apic.h"
#include "arch/x86/cpu.h"
#include "arch/x86/msr.h"
#include "arch/x86/vmx.h"
#include "hv/apic/apic.h"
#include "hv/core/bzimage.h"
#include "hv/core/cr4_policy.h"
#include "hv/guest/fpu.h"
#include "hv/lib/log.h"
#include "hv/run/run.h"
#include "hv/state/partition.h"
#include "hv/state/platform.h"
#include "hv/time/time.h"

/* Where @v starts: the boot vCPU as its loader left it, an AP at its SIPI. */
static void vmx_setup_of(const struct vcpu *v, struct vmx_vcpu_setup *s)
{
	const struct partition *p = v->part;

	*s = (struct vmx_vcpu_setup){
		.cpu = v->pcpu->index,
		.eptp = p->eptp,
		.cr4_mask = cr4_guest_host_mask((xsave_plan.xcr0_allowed & XCR0_PKRU) != 0),
		.start = VMX_START_SIPI,
		.sipi_vector = v->sipi_vector,
		.io_bitmap_pa = p->io_bitmap_pa,
	};
	if (v->index == 0 && p->linux_boot) {
		s->start = VMX_START_LONG64;
		s->rip = p->entry;
		s->cr3 = LINUX_PT_GPA;
		s->gdt_base = LINUX_GDT_GPA;
		s->gdt_limit = LINUX_GDT_SIZE - 1;
	} else if (v->index == 0) {
		s->start = VMX_START_PROTECTED;
		s->rip = p->entry;
	}
}

void vcpu_vmcs_setup(struct vcpu *v)
{
	struct vmx_vcpu_setup s;

	const struct timer_mode_desc *m = timer_mode(v->part->cfg->timer);

	vmx_setup_of(v, &s);
	/* the stub that can step ticks aside: direct mode on a core of its own (tick_aside_arm) */
	v->aside.enabled = m->places_ticks && m->owns_lapic && !v->pcpu->shared && !v->pcpu->console;
	s.tick_aside = v->aside.enabled;
	vmx_vmcs_setup(&v->arch, &s);
	v->pcpu->vmcs_loaded = true;
	if (v->restarted) {
		vmx_flush_vpid(v->arch.vpid);	/* the old instance's translations */
		v->restarted = false;
	}
	apic_apply_model(v);
	timer_quick_update(v);
	timer_program_lvt(v);
	/*
	 * direct/inject: the deadline lives in the hardware from the first
	 * entry on (vtimer_restore marks it so), or the first save would skip it
	 * and lose what the guest wrote in its first window.
	 */
	if (!timer_mode_software(v->vt.mode))
		wrmsr(MSR_IA32_TSC_DEADLINE, vtimer_restore(&v->vt));
}

void vcpu_entry_prepare(struct vcpu *v)
{
	/*
	 * From here until it leaves its core, a root-mode fault on this core
	 * is this vCPU's: its quick and fast exits (hv/time/quick.c,
	 * exit_fast) set nothing, so they cost nothing for it.
	 */
	v->pcpu->exit_vcpu = v;
	/*
	 * posted while it was out, the notification perhaps taken in a
	 * root-mode STI window (vcpu_leave's): ON stays set and no other
	 * notification would come
	 */
	if (v->apic.pi_on && pi_pending(&v->apic.pi) && !timer_mode(v->vt.mode)->owns_lapic)
		deliver_virtual(v);
	if (v->apic.apicv)
		apicv_sync_out(v);	/* the vLAPIC may have changed while it was out (INIT, restart) */
	vcpu_timer_arm(v);
}

void vcpu_enter(struct vcpu *v)
{
	uint32_t error;

	vcpu_entry_prepare(v);
	error = vmx_run(&v->arch);
	log_err("VMX: VM entry of partition '%s' vCPU %u failed: VM-instruction error %u (%s)\n",
		v->part->cfg->name, v->index, error, vmx_instr_error_name(error));
	partition_stop(v, "vm_entry_failed", error, vmx_instr_error_name(error));
	vcpu_leave(v);
}

static const uint32_t switched_msrs[6] = {
	0xc0000081, 0xc0000082, 0xc0000083, 0xc0000084,	/* STAR, LSTAR, CSTAR, FMASK */
	0xc0000102, 0xc0000103,				/* KERNEL_GS_BASE, TSC_AUX */
};

/*
 * DR0-3 and DR6 are not in the VMCS (DR7 and DEBUGCTL are, loaded and saved
 * with the debug controls): on a shared core one partition's breakpoint
 * addresses and debug status would be the next one's. Root mode runs with
 * DR7 = 0x400 after every exit (SDM 27.5.1), so they never fire there.
 */
static void debug_regs_restore(struct vcpu *v)
{
	asm volatile("mov %0, %%dr0" : : "r"(v->saved.dr[0]));
	asm volatile("mov %0, %%dr1" : : "r"(v->saved.dr[1]));
	asm volatile("mov %0, %%dr2" : : "r"(v->saved.dr[2]));
	asm volatile("mov %0, %%dr3" : : "r"(v->saved.dr[3]));
	asm volatile("mov %0, %%dr6" : : "r"(v->saved.dr6));
}

void vcpu_saved_restore(struct vcpu *v)
{
	for (int i = 0; i < 6; i++)
		wrmsr(switched_msrs[i], v->saved.msrs[i]);
	asm volatile("mov %0, %%cr2" : : "r"(v->saved.cr2));
	debug_regs_restore(v);
}

/*
 * What the VMCS does not load is still the old instance's (MSRs, CR2,
 * debug registers, SPEC_CTRL, FPU and XCR0, vectors a direct-mode guest
 * left in service). vcpu_reset zeroed the vCPU's copies; they go in as a
 * shared core's switch_in loads them.
 */
void vcpu_restart_cpu(struct vcpu *v)
{
	vcpu_saved_restore(v);
	if (spec_plan.spec_ctrl)
		wrmsr(MSR_IA32_SPEC_CTRL, v->saved.spec_ctrl);
	fpu_reset_core();
	x2apic_give_back();
	x2apic_eoi_all();
}
