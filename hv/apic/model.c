// SPDX-License-Identifier: MIT
/*
 * The VMCS interrupt model of a vCPU, from its timer mode's row
 * (hv/core/timer_modes.h) and its APIC mode: the MSR bitmap, whether
 * physical interrupts exit, virtual-interrupt delivery and posted
 * interrupts. hv decides; arch/x86/vmx.c loads (vmx_set_interrupt_model).
 */
#include "arch/x86/apic.h"
#include "arch/x86/trap.h"
#include "arch/x86/vmx.h"
#include "hv/apic/apic.h"
#include "hv/core/msr_policy.h"
#include "hv/state/pages.h"
#include "hv/state/partition.h"
#include "hv/state/platform.h"

bool posted_enabled;
bool posted_soft;

static uint64_t msr_bitmaps[TIMER_MODE_COUNT];
/* the same with the x2APIC EOI write let through, virtualized (vmx_ctl.has_apicv) */
static uint64_t msr_bitmaps_apicv[TIMER_MODE_COUNT];
/* the same, for a guest whose APIC is not in x2APIC mode: 0x800-0x8ff all #GP (hv/exit/msr.c) */
static uint64_t msr_bitmaps_no_x2apic[TIMER_MODE_COUNT];

void apic_model_boot(void)
{
	for (int m = 0; m < TIMER_MODE_COUNT; m++) {
		uint8_t *bm = hv_pages_alloc(PAGE_SIZE, "MSR bitmap");

		msr_bitmap_build_mode(bm, &timer_modes[m]);
		msr_bitmaps[m] = (uint64_t)bm;
		bm = hv_pages_alloc(PAGE_SIZE, "MSR bitmap");
		msr_bitmap_build_mode(bm, &timer_modes[m]);
		msr_bitmap_trap(bm, X2APIC_MSR_FIRST, X2APIC_MSR_LAST);
		msr_bitmaps_no_x2apic[m] = (uint64_t)bm;
		if (!vmx_ctl.has_apicv || timer_modes[m].owns_lapic)
			continue;
		bm = hv_pages_alloc(PAGE_SIZE, "MSR bitmap");
		msr_bitmap_build_mode(bm, &timer_modes[m]);
		/* the write half of the low range starts at byte 2048 (SDM Vol. 3C 25.6.9) */
		bm[2048 + X2APIC_EOI / 8] &= (uint8_t)~(1u << (X2APIC_EOI % 8));
		msr_bitmaps_apicv[m] = (uint64_t)bm;
	}
}

/*
 * Whether @v takes posted interrupts whenever its mode has virtual-interrupt
 * delivery (hv/core/posted.h pi_usable): fixed for its partition's life.
 * The descriptor must also pass the VM-entry checks with the controls
 * vmx_set_interrupt_model will set (64-byte aligned, below MAXPHYADDR); one
 * that does not leaves this vCPU on the interrupt path.
 */
bool vcpu_takes_posted(const struct vcpu *v)
{
	if (!pi_usable(posted_enabled, v->apic.page != NULL, v->pcpu->shared,
		       timer_mode(v->part->cfg->timer)->owns_lapic))
		return false;
	return posted_soft ||
	       pi_controls_ok(vmx_ctl.pin | PIN_EXTINT_EXITING | PIN_POSTED_INTR,
			      vmx_ctl.exit | EXIT_ACK_INTR_ON_EXIT,
			      vmx_ctl.proc2 | PROC2_VIRT_INTR_DELIVERY, TRAP_POSTED_VECTOR,
			      (uint64_t)(uintptr_t)&v->apic.pi, platform.maxphyaddr);
}

void apic_apply_model(struct vcpu *v)
{
	bool virtual_intr = !timer_mode(v->vt.mode)->owns_lapic;
	bool x2apic = v->apic.base.mode == APIC_MODE_X2APIC;

	/*
	 * Shared cores too: each vCPU has its own VMCS and virtual-APIC page,
	 * and what another core sends it waits in its IPI bitmap, merged into
	 * the vLAPIC (and so the page) before it enters.
	 */
	/*
	 * Not for a partition with IOAPIC inputs: a level-triggered one waits
	 * for the guest's EOI (hv/dev/irqs.c), which virtual-interrupt
	 * delivery would retire with no exit (the EOI-exit bitmap is 0).
	 */
	v->apic.apicv = virtual_intr && v->apic.page && !v->part->cfg->dev.irq_count;
	/* set before senders may see the VMCS's: a post now is taken before entry */
	__atomic_store_n(&v->apic.pi_on, vcpu_takes_posted(v) && v->apic.apicv, __ATOMIC_SEQ_CST);
	vmx_set_interrupt_model(virtual_intr,
				!x2apic ? msr_bitmaps_no_x2apic[v->vt.mode] :
				v->apic.apicv ? msr_bitmaps_apicv[v->vt.mode] : msr_bitmaps[v->vt.mode],
				v->apic.apicv ? (uint64_t)(uintptr_t)v->apic.page : 0, x2apic,
				v->apic.pi_on && !posted_soft ? (uint64_t)(uintptr_t)&v->apic.pi : 0,
				TRAP_POSTED_VECTOR);
	v->arch.proc = (uint32_t)vmread(VMCS_PROC_CONTROLS);	/* what the model wrote */
	if (v->apic.apicv) {
		v->vt.vlapic.dirty = VLAPIC_DIRTY_ALL;	/* a new VMCS, or back from direct: all of it */
		apicv_sync_out(v);
	}
}
