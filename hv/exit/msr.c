// SPDX-License-Identifier: MIT
/*
 * RDMSR and WRMSR exits: the action hv/core/msr_policy.c gives the MSR in
 * this vCPU's timer mode, and for EMULATE the row's named handler (the
 * table below; the x2APIC ones are hv/apic/'s, the timer's hv/time/'s).
 */
#include "arch/x86/cpu.h"
#include "arch/x86/msr.h"
#include "arch/x86/spec_ctl.h"
#include "hv/apic/apic.h"
#include "hv/core/guest_msrs.h"
#include "hv/core/msr_policy.h"
#include "hv/core/spec.h"
#include "hv/exit/exit.h"
#include "hv/lib/apic_defs.h"
#include "hv/state/hooks.h"
#include "hv/state/pages.h"
#include "hv/state/partition.h"
#include "hv/state/platform.h"
#include "hv/time/time.h"

#define CR0_PG		(1ull << 31)
#define EFER_SCE	(1ull << 0)
#define EFER_LME	(1ull << 8)
#define EFER_LMA	(1ull << 10)
#define EFER_NXE	(1ull << 11)

/* ---- the EMULATE handlers that are not the x2APIC's ---- */

static bool feature_control_rdmsr(struct vcpu *v, uint32_t msr, uint64_t *value)
{
	(void)v;
	(void)msr;
	*value = FEATURE_CONTROL_LOCK;	/* locked with VMX off */
	return true;
}

static bool misc_enable_rdmsr(struct vcpu *v, uint32_t msr, uint64_t *value)
{
	(void)msr;
	*value = v->msrs.misc_enable;
	return true;
}

static bool misc_enable_wrmsr(struct vcpu *v, struct exit_ctx *x, uint32_t msr, uint64_t value)
{
	(void)x;
	(void)msr;
	return guest_misc_enable_write(&v->msrs, value);
}

static bool arch_caps_rdmsr(struct vcpu *v, uint32_t msr, uint64_t *value)
{
	(void)v;
	(void)msr;
	/* what the CPU is not affected by, less the control MSRs hidden here */
	*value = spec_guest_arch_caps(spec_arch_caps);
	return spec_plan.arch_caps;
}

static bool pred_cmd_wrmsr(struct vcpu *v, struct exit_ctx *x, uint32_t msr, uint64_t value)
{
	(void)v;
	(void)x;
	/* IBPB for the guest's own processes; reserved bits #GP (SDM Vol. 4) */
	return spec_plan.pred_cmd && spec_pred_cmd_valid(value) && wrmsr_safe(msr, value);
}

static bool flush_cmd_wrmsr(struct vcpu *v, struct exit_ctx *x, uint32_t msr, uint64_t value)
{
	(void)v;
	(void)x;
	return spec_plan.flush_cmd && spec_flush_cmd_valid(value) && wrmsr_safe(msr, value);
}

static bool efer_rdmsr(struct vcpu *v, uint32_t msr, uint64_t *value)
{
	(void)v;
	(void)msr;
	*value = vmread(VMCS_GUEST_EFER);
	return true;
}

static bool efer_wrmsr(struct vcpu *v, struct exit_ctx *x, uint32_t msr, uint64_t value)
{
	uint64_t cur = vmread(VMCS_GUEST_EFER);

	(void)v;
	(void)x;
	(void)msr;
	if (value & ~(EFER_SCE | EFER_LME | EFER_LMA | EFER_NXE))
		return false;
	/* NXE on a CPU without NX would fail the next VM entry */
	if ((value & EFER_NXE) && !platform.has_nx)
		return false;
	/* LMA belongs to the CPU; LME may not change while paging is on */
	if ((vmread(VMCS_GUEST_CR0) & CR0_PG) && ((value ^ cur) & EFER_LME))
		return false;
	vmwrite(VMCS_GUEST_EFER, (value & ~EFER_LMA) | (cur & EFER_LMA));
	return true;
}

static bool mtrr_rdmsr(struct vcpu *v, uint32_t msr, uint64_t *value)
{
	return guest_mtrr_read(&v->msrs, msr, value);
}

static bool mtrr_wrmsr(struct vcpu *v, struct exit_ctx *x, uint32_t msr, uint64_t value)
{
	(void)x;
	return guest_mtrr_write(&v->msrs, msr, value, (uint8_t)cpuid(0x80000008, 0).eax);
}

/*
 * IA32_XSS exists where CPUID shows XSAVES (SDM Vol. 4), which is where VMX
 * enables it. The physical one is 0 on every core (vmx_cpu_enable) and not
 * the guest's to set: CPUID (0xD, 1) ECX:EDX offers no bit for it.
 */
static bool xss_rdmsr(struct vcpu *v, uint32_t msr, uint64_t *value)
{
	(void)v;
	(void)msr;
	*value = 0;
	return vmx_ctl.has_xsaves;
}

static bool xss_wrmsr(struct vcpu *v, struct exit_ctx *x, uint32_t msr, uint64_t value)
{
	(void)v;
	(void)x;
	(void)msr;
	return vmx_ctl.has_xsaves && !value;
}

/*
 * SDM Vol. 3A 11.4.4, 11.12.5: IA32_APIC_BASE's state machine (hv/apic/);
 * what it changes reaches the rooms that hold it: a disabled APIC's timer
 * first (nothing due fires into the new state), then its registers, then
 * the LVT the hardware holds; its MSR bitmap for the new APIC mode; its
 * xAPIC page where it moved to.
 */
static bool apic_base_wrmsr(struct vcpu *v, struct exit_ctx *x, uint32_t msr, uint64_t value)
{
	struct apic_base_effect e;

	(void)x;
	(void)msr;
	if (!apic_base_take(v, value, &e))
		return false;
	if (e.reset) {
		timer_reset_live(v);
		apic_reset_live(v);
		timer_reset(v);
		timer_program_lvt(v);
	}
	if (e.mode_changed) {
		apic_apply_model(v);
		timer_quick_update(v);
	}
	if (e.base_moved && v->apic.xapic_region)
		mmio_region_set(v->part, v->apic.xapic_region - 1, v->apic.base.base, PAGE_SIZE);
	return true;
}

/*
 * One entry per enum msr_handler: the rows' EMULATE actions. A missing
 * direction is #GP (the unit tests check that every EMULATE row names a
 * handler).
 */
static const struct {
	bool (*rd)(struct vcpu *v, uint32_t msr, uint64_t *value);
	bool (*wr)(struct vcpu *v, struct exit_ctx *x, uint32_t msr, uint64_t value);
} emulation[MSR_H_COUNT] = {
	[MSR_H_APIC_BASE] = { apic_base_rdmsr, apic_base_wrmsr },
	[MSR_H_FEATURE_CONTROL] = { feature_control_rdmsr, NULL },
	[MSR_H_PRED_CMD] = { NULL, pred_cmd_wrmsr },
	[MSR_H_ARCH_CAPS] = { arch_caps_rdmsr, NULL },
	[MSR_H_FLUSH_CMD] = { NULL, flush_cmd_wrmsr },
	[MSR_H_MISC_ENABLE] = { misc_enable_rdmsr, misc_enable_wrmsr },
	[MSR_H_LDR] = { ldr_rdmsr, NULL },
	[MSR_H_SVR] = { NULL, svr_wrmsr },
	[MSR_H_LVT] = { NULL, lvt_wrmsr },
	[MSR_H_ICR] = { icr_rdmsr, icr_wrmsr },
	[MSR_H_LVT_TIMER] = { NULL, lvt_timer_wrmsr },
	[MSR_H_EFER] = { efer_rdmsr, efer_wrmsr },
	[MSR_H_MTRR] = { mtrr_rdmsr, mtrr_wrmsr },
	[MSR_H_XSS] = { xss_rdmsr, xss_wrmsr },
};

/* ---- PASS ---- */

/*
 * A PASS MSR never exits (its bitmap bits are clear), except through a
 * bitmap bug; should one exit anyway, root mode must not touch the host's
 * copy of an MSR the VMCS switches (FS/GS base, SYSENTER, PAT: writing the
 * host's GS base would break this_pcpu()), and a value the CPU refuses must
 * become the guest's #GP. Those go to the VMCS guest field, checked.
 */
static uint64_t vmcs_msr_field(uint32_t msr)
{
	switch (msr) {
	case 0x174: return VMCS_GUEST_SYSENTER_CS;
	case 0x175: return VMCS_GUEST_SYSENTER_ESP;
	case 0x176: return VMCS_GUEST_SYSENTER_EIP;
	case 0x277: return VMCS_GUEST_PAT;
	case 0xc0000100: return VMCS_GUEST_FS_BASE;
	case 0xc0000101: return VMCS_GUEST_GS_BASE;
	}
	return 0;
}

static bool canonical(uint64_t a)
{
	return (uint64_t)(((int64_t)a << 16) >> 16) == a;
}

/* PAT entries: UC, WC, WT, WP, WB, UC- (0, 1, 4, 5, 6, 7); 2 and 3 reserved (SDM 13.12.2) */
static bool pat_valid(uint64_t pat)
{
	for (int i = 0; i < 8; i++) {
		uint8_t t = (uint8_t)(pat >> (8 * i));

		if (t > 7 || t == 2 || t == 3)
			return false;
	}
	return true;
}

static bool pass_rdmsr(uint32_t msr, uint64_t *value)
{
	uint64_t field = vmcs_msr_field(msr);

	if (field) {
		*value = vmread(field);
		return true;
	}
	return rdmsr_safe(msr, value);
}

static bool pass_wrmsr(uint32_t msr, uint64_t value)
{
	uint64_t field = vmcs_msr_field(msr);

	if (!field)
		return wrmsr_safe(msr, value);
	if ((msr == 0x174 && value >> 32) || (msr == 0x277 && !pat_valid(value)) ||
	    (msr != 0x174 && msr != 0x277 && !canonical(value)))
		return false;
	vmwrite(field, value);
	return true;
}

/* ---- the exits ---- */

/* In x2APIC mode only (SDM Vol. 3A 11.12.1.2): elsewhere the whole range is #GP. */
static bool x2apic_msr_gone(const struct vcpu *v, uint32_t msr)
{
	return msr >= X2APIC_MSR_FIRST && msr <= X2APIC_MSR_LAST &&
	       v->apic.base.mode != APIC_MODE_X2APIC;
}

bool msr_read(struct vcpu *v, uint32_t msr, uint64_t *value)
{
	const struct msr_rule *rule = msr_rule_find(msr);

	*value = 0;
	switch (msr_action(rule, timer_mode(v->vt.mode), false)) {
	case MSR_PASS:
		return pass_rdmsr(msr, value);
	case MSR_IGNORE:
		return true;
	case MSR_EMULATE:
		return rule->handler < MSR_H_COUNT && emulation[rule->handler].rd &&
		       emulation[rule->handler].rd(v, msr, value);
	case MSR_VAPIC:	/* the timer's registers are the time room's */
		return timer_reg_is(msr) ? timer_reg_rdmsr(v, msr, value) :
					   vapic_rdmsr(v, msr, value);
	case MSR_SOFT_DEADLINE:
		return soft_deadline_rdmsr(v, msr, value);
	default:
		return false;
	}
}

bool msr_write(struct vcpu *v, struct exit_ctx *x, uint32_t msr, uint64_t value)
{
	const struct msr_rule *rule = msr_rule_find(msr);

	switch (msr_action(rule, timer_mode(v->vt.mode), true)) {
	case MSR_PASS:
		return pass_wrmsr(msr, value);
	case MSR_IGNORE:
		return true;
	case MSR_EMULATE:
		return rule->handler < MSR_H_COUNT && emulation[rule->handler].wr &&
		       emulation[rule->handler].wr(v, x, msr, value);
	case MSR_VAPIC:
		return timer_reg_is(msr) ? timer_reg_wrmsr(v, x, msr, value) :
					   vapic_wrmsr(v, x, msr, value);
	case MSR_SOFT_DEADLINE:
		return soft_deadline_wrmsr(v, x, msr, value);
	default:
		return false;
	}
}

enum exit_action exit_rdmsr(struct vcpu *v, struct exit_ctx *x)
{
	uint32_t msr = (uint32_t)v->arch.regs.rcx;
	uint64_t value;

	(void)x;
	if (x2apic_msr_gone(v, msr) || !msr_read(v, msr, &value)) {
		inject_exception(VEC_GP, true, 0);
		return EXIT_RESUME;
	}
	v->arch.regs.rax = (uint32_t)value;
	v->arch.regs.rdx = value >> 32;
	skip_instruction();
	return EXIT_RESUME;
}

/*
 * A fast row: on the fast path only a write to the software deadline (the
 * trapped IA32_TSC_DEADLINE of the soft_deadline modes) on a dedicated core
 * is finished here; any other WRMSR takes the full path.
 */
enum exit_action exit_wrmsr(struct vcpu *v, struct exit_ctx *x)
{
	uint32_t msr = (uint32_t)v->arch.regs.rcx;
	uint64_t value = guest_edx_eax(v);
	bool ok;

	/*
	 * The fast row: only the software deadline's write, which is the table's
	 * MSR_SOFT_DEADLINE action (the one MSR_VIRT_DEADLINE row) in a
	 * soft_deadline mode, asked directly: it comes on every deadline write.
	 */
	if (x->fast) {
		if (msr != MSR_IA32_TSC_DEADLINE || !timer_mode(v->vt.mode)->soft_deadline ||
		    v->pcpu->shared || !soft_deadline_wrmsr(v, x, msr, value))
			return EXIT_SLOW;
		skip_instruction();
		v->stats.fast_exits++;
		return EXIT_RESUME;
	}
	ok = !x2apic_msr_gone(v, msr) && msr_write(v, x, msr, value);
	/* a handler that stopped the partition (a denied ICR) filled x */
	if (x->stop_reason)
		return EXIT_STOP;
	if (!ok) {
		inject_exception(VEC_GP, true, 0);
		return EXIT_RESUME;
	}
	skip_instruction();
	return EXIT_RESUME;
}

/*
 * The MTRRs and MISC_ENABLE out of reset: at the partition's build and at
 * each restart, not at an INIT, which keeps them (SDM Vol. 3A Table 10-1).
 * MISC_ENABLE starts as the host's; some CPU models (Bochs' Ivy Bridge)
 * lack it, and Linux reads it unchecked on every Intel CPU.
 */
static void guest_msrs_part_reset(struct partition *p)
{
	uint64_t misc;

	if (!rdmsr_safe(MSR_MISC_ENABLE, &misc))
		misc = MISC_ENABLE_DEFAULT;
	for (uint32_t i = 0; i < p->vcpu_count; i++)
		guest_msrs_reset(&p->vcpus[i]->msrs, misc);
}

static int guest_msrs_part_init(struct partition *p, const struct hv_config *cfg, char *err,
				size_t errlen)
{
	(void)cfg;
	(void)err;
	(void)errlen;
	guest_msrs_part_reset(p);
	return 0;
}

PART_HOOK(50, guest_msrs, .init = guest_msrs_part_init, .reset = guest_msrs_part_reset);
