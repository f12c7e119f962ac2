// SPDX-License-Identifier: MIT
/*
 * VM-exit dispatch: one handler per basic exit reason, in a table. A handler
 * either completes the guest's instruction (and the vCPU resumes at once) or
 * stops the partition with a report. Anything not in the table stops the
 * partition too: an exit we did not plan for is never ignored.
 */
#include "arch/x86/apic.h"
#include "arch/x86/cpu.h"
#include "arch/x86/msr.h"
#include "arch/x86/spec_ctl.h"
#include "arch/x86/vmx.h"
#include "hv/lib/fmt.h"
#include "hv/core/guest_boot.h"
#include "hv/core/halt.h"
#include "hv/core/hypercall.h"
#include "hv/core/hypercall_abi.h"
#include "hv/core/icr.h"
#include "hv/core/lapic_rules.h"
#include "hv/lib/lib.h"
#include "hv/lib/log.h"
#include "hv/core/msr_policy.h"
#include "hv/partition.h"
#include "hv/platform.h"
#include "hv/upcalls.h"
#include "hv/core/xcr0.h"

#define CR0_PE		(1ull << 0)
#define CR0_NE		(1ull << 5)
#define CR0_NW		(1ull << 29)
#define CR0_CD		(1ull << 30)
#define CR0_PG		(1ull << 31)
#define CR4_PAE		(1ull << 5)
#define CR4_VMXE	(1ull << 13)
#define CR4_OSXSAVE	(1ull << 18)
#define CR4_PCIDE	(1ull << 17)
#define CR4_PKE		(1ull << 22)
#define CR4_CET		(1ull << 23)
#define CR0_WP		(1ull << 16)
#define EFER_SCE	(1ull << 0)
#define EFER_LME	(1ull << 8)
#define EFER_LMA	(1ull << 10)
#define EFER_NXE	(1ull << 11)

#define VEC_UD		6
#define VEC_GP		13

uint64_t vmx_guest_cr0(uint64_t want);
uint64_t vmx_guest_cr4(uint64_t want);

typedef void (*exit_handler_t)(struct vcpu *v);

static void deliver_virtual(struct vcpu *v);

static void skip_instruction(void)
{
	uint64_t rip = vmread(VMCS_GUEST_RIP) + vmread(VMCS_EXIT_INSTR_LEN);
	uint64_t intr = vmread(VMCS_GUEST_INTERRUPTIBILITY);

	vmwrite(VMCS_GUEST_RIP, rip);
	/* the emulated instruction ends STI / MOV SS blocking (SDM 25.4.2) */
	if (intr & 3)
		vmwrite(VMCS_GUEST_INTERRUPTIBILITY, intr & ~3ull);
}

/*
 * A real-mode vCPU (an AP in its trampoline, with unrestricted guest) takes
 * exceptions through the IVT, which has no error codes: VM entry refuses an
 * error code unless CR0.PE = 1 (SDM Vol. 3C 26.2.1.3).
 */
static void inject_exception(uint32_t vector, bool has_error, uint32_t error)
{
	uint32_t info = INTR_INFO_VALID | INTR_TYPE_HW_EXCEPTION | vector;

	if (has_error && (vmread(VMCS_GUEST_CR0) & CR0_PE)) {
		info |= INTR_INFO_DELIVER_CODE;
		vmwrite(VMCS_ENTRY_EXCEPTION_ERROR, error);
	}
	vmwrite(VMCS_ENTRY_INTR_INFO, info);
}

static bool guest_long_mode(void)
{
	return vmread(VMCS_ENTRY_CONTROLS) & ENTRY_IA32E_MODE_GUEST;
}

/* CPL is SS.DPL (SDM Vol. 3A 5.5) */
static uint32_t guest_cpl(void)
{
	return (vmread(VMCS_GUEST_SS_AR) >> 5) & 3;
}

static uint64_t *gpr(struct vcpu *v, uint32_t index)
{
	/* SDM encoding: rax, rcx, rdx, rbx, rsp, rbp, rsi, rdi, r8-r15 */
	static const uint8_t offset[16] = { 0, 2, 3, 1, 0xff, 6, 4, 5,
					    7, 8, 9, 10, 11, 12, 13, 14 };

	return &((uint64_t *)&v->arch.regs)[offset[index & 15]];
}

static uint64_t read_gpr(struct vcpu *v, uint32_t index)
{
	return (index & 15) == 4 ? vmread(VMCS_GUEST_RSP) : *gpr(v, index);
}

/* ---- CPUID ---- */

static bool snapshot_vcpu(struct vcpu *v);

static void handle_cpuid(struct vcpu *v)
{
	uint32_t leaf = (uint32_t)v->arch.regs.rax, sub = (uint32_t)v->arch.regs.rcx;
	struct cpuid_regs r = { 0, 0, 0, 0 };
	uint64_t tsc_hz = platform.tsc_hz;

	if (leaf == HV_TEST_FAULT_LEAF && hv_test_exit_fault)
		asm volatile("ud2");
	if (leaf >= TEMPO_CPUID_BASE && leaf <= 0x4fffffff) {
		if (leaf == TEMPO_CPUID_BASE) {
			r.eax = TEMPO_CPUID_STATS;
			r.ebx = TEMPO_CPUID_SIG_EBX;
			r.ecx = TEMPO_CPUID_SIG_ECX;
			r.edx = TEMPO_CPUID_SIG_EDX;
		} else if (leaf == TEMPO_CPUID_BASE + 1) {
			r.eax = TEMPO_FEATURE_PV_LAZY_TIMER;
		} else if (leaf == TEMPO_CPUID_STATS) {
			r.eax = snapshot_vcpu(v);
		} else if (leaf == TEMPO_CPUID_TIMING) {
			r.eax = (uint32_t)(tsc_hz / 1000);
			r.ebx = 0;	/* LAPIC bus frequency: not known */
		}
	} else if (leaf == 0x15 && platform.cpuid_max_basic < 0x15) {
		goto synth15;
	} else if (leaf == 0x16 && platform.cpuid_max_basic < 0x16) {
		goto synth16;
	} else if (leaf > platform.cpuid_max_basic && leaf < 0x15) {
		/* raised maximum (below): the leaves in between are empty, not the
		 * host's highest leaf repeated as a CPU answers out of range */
	} else {
		r = cpuid(leaf, sub);
	}

	switch (leaf) {
	case 0:
		if (r.eax < 0x16)
			r.eax = 0x16;	/* so guests read the TSC frequency (0x15/0x16) */
		break;
	case 1:
		r.ecx &= ~((1u << 3) |	/* MONITOR/MWAIT: MWAIT exits, hide it */
			   (1u << 5) |	/* VMX */
			   (1u << 6));	/* SMX */
		/*
		 * Thermal, power and debug-store features whose MSRs a guest
		 * may not touch (Linux would program them with unchecked
		 * WRMSRs): DTES64, DS-CPL, EST, TM2, xTPR, PDCM; DS, ACPI, TM, PBE.
		 * Machine checks (MCE, MCA) are the host's: a guest that saw them
		 * would poll banks some CPUs do not have (Bochs), and Linux
		 * panics on a #GP there.
		 */
		r.ecx &= ~((1u << 2) | (1u << 4) | (1u << 7) | (1u << 8) | (1u << 14) |
			   (1u << 15));
		r.edx &= ~((1u << 7) | (1u << 14) | (1u << 21) | (1u << 22) | (1u << 29) |
			   (1u << 31));
		r.ecx |= 1u << 31;	/* hypervisor present */
		/* OSXSAVE mirrors CR4.OSXSAVE: the guest's, not root mode's */
		r.ecx &= ~(1u << 27);
		if (vmread(VMCS_GUEST_CR4) & CR4_OSXSAVE)
			r.ecx |= 1u << 27;
		break;
	case 5:
	case 0xa:	/* architectural PMU: the counters are the host's */
		r.eax = r.ebx = r.ecx = r.edx = 0;
		break;
	case 6:		/* power management: only ARAT (the APIC timer runs in C-states) */
		r.eax &= 1u << 2;
		r.ebx = r.ecx = r.edx = 0;
		break;
	case 7:
		if (sub == 0) {
			r.ebx &= ~(1u << 1);	/* IA32_TSC_ADJUST: writes are ignored */
			if (!vmx_ctl.has_invpcid)
				r.ebx &= ~(1u << 10);
			r.ecx &= ~(1u << 5);	/* WAITPKG: UMWAIT would sleep unseen */
			/* OSPKE mirrors the guest's CR4.PKE */
			r.ecx &= ~(1u << 4);
			if (vmread(VMCS_GUEST_CR4) & CR4_PKE)
				r.ecx |= 1u << 4;
			/* speculation controls: only those whose MSRs have a row */
			r.edx = spec_guest_cpuid7_edx(r.edx);
		}
		break;
	case 0xd:
		if (sub == 1 && !vmx_ctl.has_xsaves)
			r.eax &= ~(1u << 3);
		break;
	case 0x15:
		if (tsc_hz) {
synth15:
			/* TSC = crystal * EBX / EAX: give the frequency as the crystal */
			r.eax = 1;
			r.ebx = 1;
			r.ecx = (uint32_t)tsc_hz;
			r.edx = 0;
			if (tsc_hz > 0xffffffffull) {
				r.ebx = 1000;
				r.ecx = (uint32_t)(tsc_hz / 1000);
			}
		}
		break;
	case 0x16:
		if (tsc_hz) {
synth16:
			r.eax = r.ebx = (uint32_t)(tsc_hz / 1000000);
			r.ecx = 100;
			r.edx = 0;
		}
		break;
	case 0x80000001:
		r.ecx &= ~(1u << 2);	/* SVM */
		if (!vmx_ctl.has_rdtscp)
			r.edx &= ~(1u << 27);
		break;
	}
	/* XSAVE state the per-vCPU area cannot hold is not offered (hv/core/xcr0.c) */
	xcr0_filter_cpuid(xsave_plan.xcr0_allowed, xsave_plan.area_bytes, leaf, sub, &r.eax,
			  &r.ebx, &r.ecx, &r.edx);
	v->arch.regs.rax = r.eax;
	v->arch.regs.rbx = r.ebx;
	v->arch.regs.rcx = r.ecx;
	v->arch.regs.rdx = r.edx;
	skip_instruction();
}

/* ---- MSRs ---- */

static uint64_t apic_base_value(struct vcpu *v)
{
	return 0xfee00000ull | APIC_BASE_EN | APIC_BASE_EXTD | (v->index == 0 ? APIC_BASE_BSP : 0);
}

static bool emulate_rdmsr(struct vcpu *v, uint32_t msr, uint64_t *value)
{
	switch (msr) {
	case MSR_IA32_APIC_BASE:
		*value = apic_base_value(v);
		return true;
	case MSR_IA32_FEATURE_CONTROL:
		*value = FEATURE_CONTROL_LOCK;	/* locked with VMX off */
		return true;
	case MSR_IA32_EFER:
		*value = vmread(VMCS_GUEST_EFER);
		return true;
	case X2APIC_ICR:
		/*
		 * The physical ICR holds the last IPI this core sent, which on a
		 * shared core may be another partition's (or a kick): each
		 * vCPU reads what it wrote (SDM 11.12.9, delivery status 0).
		 */
		*value = v->icr_last;
		return true;
	case X2APIC_LDR:
		/*
		 * Read-only in x2APIC mode and defined by the id (SDM 11.12.10.2):
		 * cluster in 31:16, one bit in 15:0. Some CPUs (Bochs) read 0,
		 * and Linux's cluster mode then sends its IPIs to logical 0.
		 */
		*value = x2apic_logical_id(v->apic_id);
		return true;
	case MSR_IA32_MISC_ENABLE:
		/*
		 * Some CPU models (Bochs' Ivy Bridge) lack it; Linux reads it
		 * unchecked on every Intel CPU. Then: fast strings on, BTS and
		 * PEBS unavailable.
		 */
		if (!rdmsr_safe(msr, value))
			*value = (1ull << 0) | (1ull << 11) | (1ull << 12);
		return true;
	case MSR_IA32_ARCH_CAPABILITIES:
		/* what the CPU is not affected by, less the control MSRs hidden here */
		*value = spec_guest_arch_caps(spec_arch_caps);
		return spec_plan.arch_caps;
	}
	return false;
}

static void handle_icr(struct vcpu *v, uint64_t value);

/* SVR: the APIC cannot be software-disabled (bit 8 forced); 31:13, 11:10 reserved */
#define SVR_WRITABLE	0x13ffull

static bool svr_write_ok(uint64_t value)
{
	return !(value & ~SVR_WRITABLE);
}

/* The vLAPIC's shadow of an LVT entry other than the timer (lapic_is_lvt). */
static uint32_t *vlapic_lvt_shadow(struct vlapic *l, uint32_t msr)
{
	return &l->lvt[msr == X2APIC_LVT_CMCI ? 0 : msr - X2APIC_LVT_THERMAL + 1];
}

/* CMCI, thermal, PMC, LINT0/1, error: the physical entry in direct mode, the vLAPIC's otherwise */
static bool write_other_lvt(struct vcpu *v, uint32_t msr, uint64_t value)
{
	uint32_t filtered;

	if (!lapic_lvt_write_ok(msr, value))
		return false;
	filtered = lapic_lvt_filter(msr, (uint32_t)value);
	if (v->vt.mode == TIMER_DIRECT)
		return wrmsr_safe(msr, filtered);
	*vlapic_lvt_shadow(&v->vt.vlapic, msr) = filtered;
	return true;
}

static bool emulate_wrmsr(struct vcpu *v, uint32_t msr, uint64_t value)
{
	switch (msr) {
	case MSR_IA32_APIC_BASE:
		/* Disabling, leaving x2APIC mode or moving the APIC is refused. */
		return value == apic_base_value(v);
	case MSR_IA32_EFER: {
		uint64_t cur = vmread(VMCS_GUEST_EFER);

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
	case MSR_IA32_PRED_CMD:
		/* IBPB for the guest's own processes; reserved bits #GP (SDM Vol. 4) */
		return spec_plan.pred_cmd && spec_pred_cmd_valid(value) && wrmsr_safe(msr, value);
	case MSR_IA32_FLUSH_CMD:
		return spec_plan.flush_cmd && spec_flush_cmd_valid(value) &&
		       wrmsr_safe(msr, value);
	case X2APIC_SVR:
		if (!svr_write_ok(value))
			return false;
		/* bit 12 (EOI-broadcast suppression) is refused by CPUs without it */
		return wrmsr_safe(msr, (value | APIC_SVR_ENABLE) & 0x11ff);
	case X2APIC_ICR:
		v->icr_last = value & ~(1ull << 12);
		handle_icr(v, value);
		return true;
	case X2APIC_LVT_TIMER:
		if (!lapic_lvt_write_ok(msr, value))
			return false;
		/* an expiry before this write is judged by the old LVT */
		if (timer_mode_software(v->vt.mode))
			vtimer_check(&v->vt, rdtsc());
		vtimer_write_lvt(&v->vt, lapic_lvt_filter(msr, (uint32_t)value));
		vcpu_trace(v, TRACE_LVT, v->vt.lvt, rdtsc());
		timer_program_lvt(v);
		return true;
	case X2APIC_LVT_CMCI:
	case X2APIC_LVT_THERMAL:
	case X2APIC_LVT_PMC:
	case X2APIC_LVT_LINT0:
	case X2APIC_LVT_LINT1:
	case X2APIC_LVT_ERROR:
		return write_other_lvt(v, msr, value);
	}
	return false;
}


/*
 * inject/emulated: the guest's interrupt state is the virtual LAPIC's, so
 * TPR, PPR, EOI, ISR/TMR/IRR and the LVT timer's reads come here (the
 * bitmap of those modes traps them), and in emulated mode the deadline.
 */
static bool vapic_rdmsr(struct vcpu *v, uint32_t msr, uint64_t *value)
{
	const struct vlapic *l = &v->vt.vlapic;

	if (msr >= X2APIC_ISR0 && msr < X2APIC_ISR0 + 8)
		*value = l->isr[msr - X2APIC_ISR0];
	else if (msr >= X2APIC_TMR0 && msr < X2APIC_TMR0 + 8)
		*value = 0;	/* edge-triggered only */
	else if (msr >= X2APIC_IRR0 && msr < X2APIC_IRR0 + 8)
		*value = l->irr[msr - X2APIC_IRR0];
	else if (msr == X2APIC_TPR)
		*value = l->tpr;
	else if (msr == X2APIC_PPR)
		*value = vlapic_ppr(l);
	else if (msr == X2APIC_LVT_TIMER)
		*value = v->vt.lvt;
	else if (lapic_is_lvt(msr))
		*value = *vlapic_lvt_shadow((struct vlapic *)l, msr);
	else if (msr == X2APIC_SVR)
		*value = l->svr;
	else if (msr == X2APIC_ESR)
		*value = l->esr;
	else if (msr == X2APIC_TIMER_ICR)
		*value = l->timer_initial_count;
	else if (msr == X2APIC_TIMER_CCR)
		*value = 0;	/* the count-down timer never counts (vlapic.h) */
	else if (msr == X2APIC_TIMER_DCR)
		*value = l->timer_divide;
	else if (msr == MSR_IA32_TSC_DEADLINE)
		*value = vtimer_read_deadline(&v->vt);
	else
		return false;	/* EOI and SELF_IPI are write-only: #GP */
	return true;
}

static bool vapic_wrmsr(struct vcpu *v, uint32_t msr, uint64_t value)
{
	switch (msr) {
	case X2APIC_TPR:
		if (value > 0xff)
			return false;
		vlapic_set_tpr(&v->vt.vlapic, (uint8_t)value);
		return true;
	case X2APIC_EOI:
		if (value)
			return false;	/* x2APIC EOI takes 0 only (SDM 11.12.1.2) */
		v->eoi_exits++;
		vlapic_eoi(&v->vt.vlapic);
		return true;
	case X2APIC_LVT_TIMER:
		return emulate_wrmsr(v, msr, value);
	case X2APIC_LVT_CMCI:
	case X2APIC_LVT_THERMAL:
	case X2APIC_LVT_PMC:
	case X2APIC_LVT_LINT0:
	case X2APIC_LVT_LINT1:
	case X2APIC_LVT_ERROR:
		return write_other_lvt(v, msr, value);
	case X2APIC_SVR:
		if (!svr_write_ok(value))
			return false;
		v->vt.vlapic.svr = (uint32_t)(value | APIC_SVR_ENABLE);
		return true;
	case X2APIC_ESR:
		/* x2APIC: a write of 0 latches the errors, anything else #GP (11.12.1.2) */
		return value == 0;
	case X2APIC_TIMER_ICR:
		if (value >> 32)
			return false;
		v->vt.vlapic.timer_initial_count = (uint32_t)value;
		return true;
	case X2APIC_TIMER_DCR:
		if (value & ~0xbull)	/* bits 0, 1, 3 (SDM figure 11-10) */
			return false;
		v->vt.vlapic.timer_divide = (uint32_t)value;
		return true;
	case X2APIC_SELF_IPI:
		/*
		 * Into this vCPU's own vLAPIC: on a shared core the physical
		 * APIC would deliver it to whoever has the next window.
		 */
		if (value & ~0xffull)
			return false;
		vlapic_raise(&v->vt.vlapic, (uint8_t)value);
		return true;
	case MSR_IA32_TSC_DEADLINE: {
		uint64_t now = rdtsc();

		v->deadline_write_exits++;
		vcpu_trace(v, TRACE_DEADLINE_WRITE, value, now);
		vtimer_write_deadline(&v->vt, value, now);
		if (v->pv)
			v->pv_seen = v->pv->next;	/* it published this one before trapping */
		return true;
	}
	}
	return false;	/* read-only registers */
}

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

static void handle_rdmsr(struct vcpu *v)
{
	uint32_t msr = (uint32_t)v->arch.regs.rcx;
	const struct msr_rule *rule = msr_rule_find(msr);
	uint64_t value = 0;
	bool ok;

	if (v->vt.mode != TIMER_DIRECT &&
	    (msr_virtual_apic(msr) || (msr == MSR_IA32_TSC_DEADLINE && timer_mode_software(v->vt.mode)))) {
		ok = vapic_rdmsr(v, msr, &value);
		goto done;
	}
	switch (rule->read) {
	case MSR_PASS:
		ok = pass_rdmsr(msr, &value);
		break;
	case MSR_IGNORE:
		ok = true;
		break;
	case MSR_EMULATE:
		ok = emulate_rdmsr(v, msr, &value);
		break;
	default:
		ok = false;
		break;
	}
done:
	if (!ok) {
		inject_exception(VEC_GP, true, 0);
		return;
	}
	v->arch.regs.rax = (uint32_t)value;
	v->arch.regs.rdx = value >> 32;
	skip_instruction();
}

static void handle_wrmsr(struct vcpu *v)
{
	uint32_t msr = (uint32_t)v->arch.regs.rcx;
	uint64_t value = ((v->arch.regs.rdx & 0xffffffff) << 32) | (v->arch.regs.rax & 0xffffffff);
	const struct msr_rule *rule = msr_rule_find(msr);
	bool ok;

	if (v->vt.mode != TIMER_DIRECT &&
	    (msr_virtual_apic(msr) || (msr == MSR_IA32_TSC_DEADLINE && timer_mode_software(v->vt.mode)))) {
		ok = vapic_wrmsr(v, msr, value);
		goto done;
	}
	switch (rule->write) {
	case MSR_PASS:
		ok = pass_wrmsr(msr, value);
		break;
	case MSR_IGNORE:
		ok = true;
		break;
	case MSR_EMULATE:
		ok = emulate_wrmsr(v, msr, value);
		break;
	default:
		ok = false;
		break;
	}
done:
	if (!ok) {
		inject_exception(VEC_GP, true, 0);
		return;
	}
	skip_instruction();
}

/* ---- x2APIC ICR ---- */

static void handle_icr(struct vcpu *v, uint64_t value)
{
	struct partition *p = v->part;
	uint32_t ids[MAX_VCPUS_PER_PART];
	struct icr_route r;

	for (uint32_t i = 0; i < p->vcpu_count; i++)
		ids[i] = p->vcpus[i]->apic_id;
	r = icr_route(ids, p->vcpu_count, v->index, value);
	if (r.verdict == ICR_DENY)
		partition_stop(v, "icr_denied", value, r.why);
	for (uint32_t i = 0; i < p->vcpu_count; i++) {
		struct vcpu *t = p->vcpus[i];

		if (!(r.targets & (1ull << i)))
			continue;
		switch (r.verdict) {
		case ICR_SEND:
			/*
			 * An AP waiting for SIPI ignores fixed interrupts (SDM
			 * 9.4.4); its core idles in root mode, which must never
			 * see a guest's vector.
			 */
			if (t->state != VCPU_RUNNING) {
				v->ipis_dropped++;
				break;
			}
			if (t->pcpu->shared) {
				/*
				 * A shared core's physical APIC does not know whose
				 * window it is: the vector waits in the vCPU's own
				 * bitmap, merged into its vLAPIC before it next enters.
				 */
				__atomic_fetch_or(&t->ipi_pending[r.vector / 32],
						  1u << (r.vector % 32), __ATOMIC_RELEASE);
				if (t != v) {
					__atomic_fetch_or(&t->pcpu->mailbox, MAILBOX_IPI,
							  __ATOMIC_RELEASE);
					x2apic_send_nmi(t->pcpu->apic_id);
				}
			} else {
				x2apic_send(t->apic_id, ICR_DELIVERY_FIXED | r.vector |
							ICR_LEVEL_ASSERT);
			}
			break;
		case ICR_SIPI:
			/* only a vCPU waiting for SIPI starts, as on hardware */
			if (t->state == VCPU_WAIT_SIPI && !t->sipi_pending) {
				t->sipi_vector = r.vector;
				__atomic_store_n(&t->sipi_pending, true, __ATOMIC_RELEASE);
			}
			break;
		case ICR_INIT:
			/* a vCPU already running is not reset (documented limitation) */
			break;
		default:
			break;
		}
	}
}

/* ---- port I/O ---- */

static void handle_io(struct vcpu *v)
{
	uint64_t q = vmread(VMCS_EXIT_QUALIFICATION);
	uint32_t size = (q & 7) + 1;
	bool in = q & 8;
	uint16_t port = (uint16_t)(q >> 16);
	uint64_t value;

	if (q & 16)
		partition_stop(v, "string_io", q, "INS/OUTS are not emulated");
	if (in) {
		if (vuart_owns_port(port))
			value = vuart_read(&v->part->uart, port);
		else
			value = 0xffffffff;	/* no device: the bus floats high */
		if (size == 1)
			v->arch.regs.rax = (v->arch.regs.rax & ~0xffull) | (value & 0xff);
		else if (size == 2)
			v->arch.regs.rax = (v->arch.regs.rax & ~0xffffull) | (value & 0xffff);
		else
			v->arch.regs.rax = value & 0xffffffff;
	} else if (vuart_owns_port(port)) {
		vuart_write(&v->part->uart, port, (uint8_t)v->arch.regs.rax);
	} else if (port == GUEST_ACPI_PM_PORT && v->part->linux_boot &&
		   guest_acpi_is_poweroff((uint8_t)v->arch.regs.rax)) {
		partition_poweroff(v);
	}
	/* any other port: the write is dropped (documented) */
	skip_instruction();
}

/* ---- hypercalls ---- */

/*
 * hv/core/hypercall.c decodes and checks the arguments; these only act on them.
 * A checked range is inside the guest's RAM, so gpa_to_hva() cannot fail.
 */
static int64_t hc_console_write(struct vcpu *v, uint64_t gpa, uint64_t len)
{
	vuart_put(&v->part->uart, gpa_to_hva(v->part, gpa, len), (uint32_t)len);
	return (int64_t)len;
}

static int64_t hc_partition_info(struct vcpu *v, uint64_t gpa)
{
	struct tempo_partition_info info, *dst = gpa_to_hva(v->part, gpa, sizeof(info));

	memset(&info, 0, sizeof(info));
	str_copy(info.name, sizeof(info.name), v->part->cfg->name, CONFIG_NAME_LEN);
	info.partition_id = v->part->id;
	info.vcpu_count = v->part->vcpu_count;
	info.vcpu_index = v->index;
	info.timer_mode = v->part->cfg->timer;
	info.memory_bytes = v->part->mem_size;
	info.tsc_khz = platform.tsc_hz / 1000;
	memcpy(dst, &info, sizeof(info));
	return TEMPO_HC_OK;
}

/* Nothing in service or pending in the physical APIC (no guest vector left). */
static bool physical_apic_idle(void)
{
	for (uint32_t i = 0; i < 8; i++)
		if (rdmsr(X2APIC_ISR0 + i) || rdmsr(X2APIC_IRR0 + i))
			return false;
	return true;
}

/*
 * Only with nothing in service, physical or virtual (DESIGN.md). A deadline
 * in the hardware is taken out by the save protocol and put back, or kept in
 * software, by the new mode. @mode is valid for this core (decoder).
 */
/*
 * The guest's TPR lives in the physical APIC in direct mode and in the
 * vLAPIC otherwise: it moves with the mode, and the physical one is 0 off
 * direct mode, or it would block the hypervisor's own vector (SDM 11.8.3.1).
 * The physical count-down timer stops too: off direct mode it is never the
 * guest's (timer_program_lvt puts the LVT in TSC-deadline mode, which also
 * disarms it, SDM 11.5.4.1).
 */
static const uint32_t shadowed_lvts[VLAPIC_LVT_SHADOWS] = {
	X2APIC_LVT_CMCI, X2APIC_LVT_THERMAL, X2APIC_LVT_PMC,
	X2APIC_LVT_LINT0, X2APIC_LVT_LINT1, X2APIC_LVT_ERROR,
};

/*
 * The same for the registers the vLAPIC only shadows (SVR, the other LVTs):
 * what the guest wrote in one mode reads back in the other. Values going to
 * the hardware were checked and filtered when written; wrmsr_safe all the
 * same, since a CPU may lack an LVT (CMCI, thermal).
 */
static void move_tpr(struct vcpu *v, enum timer_mode old_mode)
{
	struct vlapic *l = &v->vt.vlapic;
	uint64_t value;

	if (old_mode == TIMER_DIRECT) {
		vlapic_set_tpr(l, (uint8_t)rdmsr(X2APIC_TPR));
		wrmsr(X2APIC_TPR, 0);
		wrmsr(X2APIC_TIMER_ICR, 0);
		l->svr = (uint32_t)rdmsr(X2APIC_SVR);
		for (int i = 0; i < VLAPIC_LVT_SHADOWS; i++)
			if (rdmsr_safe(shadowed_lvts[i], &value))
				l->lvt[i] = (uint32_t)value;
	} else if (v->vt.mode == TIMER_DIRECT) {
		wrmsr(X2APIC_TPR, l->tpr);
		wrmsr_safe(X2APIC_SVR, l->svr & 0x11ff);
		for (int i = 0; i < VLAPIC_LVT_SHADOWS; i++)
			wrmsr_safe(shadowed_lvts[i], l->lvt[i]);
	}
}

static int64_t hc_timer_mode_set(struct vcpu *v, uint32_t mode)
{
	struct vtimer *t = &v->vt;
	enum timer_mode old_mode;

	if (mode == t->mode)
		return TEMPO_HC_OK;
	if (vlapic_in_service(&t->vlapic) || !physical_apic_idle())
		return TEMPO_HC_EBUSY;
	old_mode = t->mode;
	/* a fire since the check above is found in the IRR (and taken, inject) */
	if (!timer_mode_software(t->mode))
		timer_save_hw(v);
	if (!vtimer_switch_mode(t, (enum timer_mode)mode, rdtsc())) {
		/* refused after the save: the deadline goes back where it was */
		if (!timer_mode_software(t->mode))
			wrmsr(MSR_IA32_TSC_DEADLINE, vtimer_restore(t));
		return TEMPO_HC_EBUSY;
	}
	vcpu_trace(v, TRACE_MODE, mode, rdtsc());
	move_tpr(v, old_mode);
	vcpu_timer_apply_mode(v);
	timer_program_lvt(v);
	if (!timer_mode_software(t->mode))
		wrmsr(MSR_IA32_TSC_DEADLINE, vtimer_restore(t));	/* after the LVT */
	v->pv = NULL;	/* a pv-lazy page is registered again in that mode */
	return TEMPO_HC_OK;
}

static bool snapshot_vcpu(struct vcpu *v);

static int64_t hc_pv_timer(struct vcpu *v, uint64_t gpa)
{
	struct tempo_pv_timer *page = gpa_to_hva(v->part, gpa, sizeof(*page));

	v->pv = page;
	v->pv_seen = page->next;
	return TEMPO_HC_OK;
}

static void handle_vmcall(struct vcpu *v)
{
	struct hc_regs r = {
		.rax = v->arch.regs.rax, .rdi = v->arch.regs.rdi, .rsi = v->arch.regs.rsi,
		.long_mode = guest_long_mode(), .cpl = guest_cpl(),
	};
	struct hc_context c = {
		.mem_size = v->part->mem_size, .timer_mode = v->vt.mode,
		.shared_core = v->pcpu->shared,
	};
	struct hc_decision d;
	int64_t ret;

	hypercall_decode(&r, &c, &d);
	switch (d.action) {
	case HC_ACT_UD:
		inject_exception(VEC_UD, false, 0);
		return;
	case HC_ACT_CONSOLE_WRITE:
		ret = hc_console_write(v, d.gpa, d.len);
		break;
	case HC_ACT_PARTITION_INFO:
		ret = hc_partition_info(v, d.gpa);
		break;
	case HC_ACT_TIMER_MODE_SET:
		ret = hc_timer_mode_set(v, d.mode);
		break;
	case HC_ACT_TIMER_MODE_GET:
		ret = v->vt.mode;
		break;
	case HC_ACT_PV_TIMER:
		ret = hc_pv_timer(v, d.gpa);
		break;
	case HC_ACT_STATS:
		snapshot_vcpu(v);
		ret = TEMPO_HC_OK;
		break;
	case HC_ACT_SHUTDOWN:
		partition_shutdown(v, d.exit_code);
	case HC_ACT_RETURN:
	default:
		ret = d.ret;
		break;
	}
	v->arch.regs.rax = (uint64_t)ret;
	skip_instruction();
}

/*
 * On demand (hypercall): a copy of the counters, a few dozen instructions on
 * the guest's core; the console core formats it later (a VCPU_STATS line a
 * script can difference between two calls). A full ring drops the copy.
 */
static bool snapshot_vcpu(struct vcpu *v)
{
	uint32_t head = v->snap_head;
	struct vcpu_snapshot *s;

	if (head - __atomic_load_n(&v->snap_tail, __ATOMIC_ACQUIRE) >= VCPU_SNAPSHOTS)
		return false;
	s = &v->snaps[head % VCPU_SNAPSHOTS];
	s->tsc = rdtsc();
	s->exits = v->exits_total;
	s->tick_exits = v->host_tick_exits;
	s->timer_exits = v->exits[EXIT_REASON_PREEMPTION_TIMER];
	s->deadline_write_exits = v->deadline_write_exits;
	s->extint_exits = v->exits[EXIT_REASON_EXTERNAL_INTR];
	s->eoi_exits = v->eoi_exits;
	s->fast_exits = v->fast_exits;
	s->host_ticks = v->pcpu->ht.ticks;
	s->tick_late_max = v->pcpu->ht.late_max;
	s->tick_hits = v->tick_hits;
	s->tick_defer_exits = v->tick_defer_exits;
	s->timer = v->vt.stats;
	s->mode = v->vt.mode;
	__atomic_store_n(&v->snap_head, head + 1, __ATOMIC_RELEASE);
	return true;
}

/* ---- control registers ---- */

/* With EPT, 32-bit PAE paging takes its PDPTEs from the VMCS (SDM 26.3.2.4). */
static bool load_pdptes(struct vcpu *v, uint64_t cr3)
{
	const uint64_t *pdpte = gpa_to_hva(v->part, cr3 & 0xffffffe0ull, 32);

	if (!pdpte)
		return false;
	for (int i = 0; i < 4; i++)
		vmwrite(VMCS_GUEST_PDPTE0 + 2 * i, pdpte[i]);
	return true;
}

/* Executing 64-bit code: IA-32e mode and CS.L (SDM Vol. 3A 5.2.1). */
static bool guest_64bit_code(void)
{
	return guest_long_mode() && (vmread(VMCS_GUEST_CS_AR) & (1u << 13));
}

/* Outside 64-bit code, MOV to CR takes a 32-bit register: its upper half is not the guest's. */
static uint64_t cr_operand(struct vcpu *v, uint32_t reg)
{
	uint64_t value = read_gpr(v, reg);

	return guest_64bit_code() ? value : (uint32_t)value;
}

static void write_cr0(struct vcpu *v, uint64_t value)
{
	uint64_t old = vmread(VMCS_GUEST_CR0), efer = vmread(VMCS_GUEST_EFER);
	uint32_t entry = (uint32_t)vmread(VMCS_ENTRY_CONTROLS);

	/*
	 * The #GP cases of MOV to CR0 (SDM Vol. 2B MOV—Move to/from Control
	 * Registers): bits 63:32 set, PG without PE, NW without CD, PG with
	 * EFER.LME but no CR4.PAE, PG cleared in 64-bit code or with
	 * CR4.PCIDE, WP cleared with CR4.CET. A value VM entry would refuse
	 * (SDM 26.3.1.1) must never reach the VMCS.
	 */
	if ((value >> 32) || ((value & CR0_PG) && !(value & CR0_PE)) ||
	    ((value & CR0_NW) && !(value & CR0_CD)) ||
	    (!(old & CR0_PG) && (value & CR0_PG) && (efer & EFER_LME) &&
	     !(vmread(VMCS_GUEST_CR4) & CR4_PAE)) ||
	    ((old & CR0_PG) && !(value & CR0_PG) &&
	     (guest_64bit_code() || (vmread(VMCS_GUEST_CR4) & CR4_PCIDE))) ||
	    (!(value & CR0_WP) && (vmread(VMCS_GUEST_CR4) & CR4_CET))) {
		inject_exception(VEC_GP, true, 0);
		return;
	}
	/* The write exited, so the CPU did none of it: do what it would do. */
	if (!(old & CR0_PG) && (value & CR0_PG) && (efer & EFER_LME)) {
		efer |= EFER_LMA;
		entry |= ENTRY_IA32E_MODE_GUEST;
	} else if ((old & CR0_PG) && !(value & CR0_PG) && (efer & EFER_LMA)) {
		efer &= ~EFER_LMA;
		entry &= ~ENTRY_IA32E_MODE_GUEST;
	}
	if ((value & CR0_PG) && !(efer & EFER_LMA) && (vmread(VMCS_GUEST_CR4) & CR4_PAE) &&
	    !load_pdptes(v, vmread(VMCS_GUEST_CR3)))
		partition_stop(v, "bad_pdpte", vmread(VMCS_GUEST_CR3), "PAE PDPTEs outside RAM");
	vmwrite(VMCS_GUEST_EFER, efer);
	vmwrite(VMCS_ENTRY_CONTROLS, entry);
	v->arch.cr0_shadow = value;
	vmwrite(VMCS_CR0_READ_SHADOW, value);
	vmwrite(VMCS_GUEST_CR0, vmx_guest_cr0(value));
	skip_instruction();
}

static void write_cr4(struct vcpu *v, uint64_t value)
{
	/* VMX is not offered; PKE only where PKRU is switched (vmx.c's CR4 mask) */
	if ((value & CR4_VMXE) || ((value & CR4_PKE) && !(xsave_plan.xcr0_allowed & XCR0_PKRU))) {
		inject_exception(VEC_GP, true, 0);
		return;
	}
	v->arch.cr4_shadow = value;
	vmwrite(VMCS_CR4_READ_SHADOW, value);
	vmwrite(VMCS_GUEST_CR4, vmx_guest_cr4(value));
	skip_instruction();
}

static void handle_cr_access(struct vcpu *v)
{
	uint64_t q = vmread(VMCS_EXIT_QUALIFICATION);
	uint32_t cr = q & 15, type = (q >> 4) & 3, reg = (q >> 8) & 15;

	if (cr == 8 && type <= 1) {
		/*
		 * CR8 is TPR[7:4] (SDM 11.8.6); it exits only off direct mode.
		 * Bits 63:4 are reserved: MOV to CR8 with any set is #GP(0)
		 * (found by guests/fuzz).
		 */
		if (type == 0 && (read_gpr(v, reg) & ~0xfull)) {
			inject_exception(VEC_GP, true, 0);
			return;
		}
		if (type == 0)
			vlapic_set_tpr(&v->vt.vlapic, (uint8_t)((read_gpr(v, reg) & 15) << 4));
		else if ((reg & 15) == 4)
			vmwrite(VMCS_GUEST_RSP, v->vt.vlapic.tpr >> 4);
		else
			*gpr(v, reg) = v->vt.vlapic.tpr >> 4;
		skip_instruction();
	} else if (type == 0 && cr == 0)
		write_cr0(v, cr_operand(v, reg));
	else if (type == 0 && cr == 4)
		write_cr4(v, cr_operand(v, reg));
	else
		partition_stop(v, "cr_access", q, "unexpected control-register access");
}

/* ---- the rest ---- */

static void handle_nmi_or_exception(struct vcpu *v)
{
	uint32_t info = (uint32_t)vmread(VMCS_EXIT_INTR_INFO);

	if ((info & INTR_TYPE_MASK) == INTR_TYPE_NMI) {
		v->pcpu->nmis++;	/* a kick: the mailbox is read before resuming */
		if (hv_stopping)
			halt_forever();
		return;
	}
	partition_stop(v, "exception", info, "unexpected exception exit");
}

static void handle_triple_fault(struct vcpu *v)
{
	partition_stop(v, "triple_fault", 0, "the guest triple-faulted");
}

static void handle_ept_violation(struct vcpu *v)
{
	char detail[64];

	fmt_snprintf(detail, sizeof(detail), "gpa=0x%lx", vmread(VMCS_GUEST_PHYS_ADDR));
	partition_stop(v, "ept_violation", vmread(VMCS_EXIT_QUALIFICATION), detail);
}

static void handle_ept_misconfig(struct vcpu *v)
{
	partition_stop(v, "ept_misconfig", vmread(VMCS_GUEST_PHYS_ADDR), "hypervisor EPT bug");
}

static void handle_vmx_instruction(struct vcpu *v)
{
	uint32_t reason = (uint32_t)vmread(VMCS_EXIT_REASON) & 0xffff;

	partition_stop(v, "vmx_instruction", reason, vmx_exit_reason_name(reason));
}

static void handle_nop(struct vcpu *v)
{
	(void)v;
	skip_instruction();	/* MONITOR, MWAIT, INVD, WBINVD: harmless as no-ops */
}

static void handle_ud(struct vcpu *v)
{
	(void)v;
	inject_exception(VEC_UD, false, 0);	/* GETSEC: SMX is hidden */
}

static void handle_xsetbv(struct vcpu *v)
{
	uint64_t value = ((v->arch.regs.rdx & 0xffffffff) << 32) | (v->arch.regs.rax & 0xffffffff);

	/*
	 * The SDM's rules (hv/core/xcr0.c) within what the XSAVE area holds; and
	 * should this CPU still refuse the value, the #GP is the guest's, not
	 * the hypervisor's end (SDM Vol. 2B XSETBV).
	 */
	if (!xsetbv_legal((uint32_t)v->arch.regs.rcx, guest_cpl(), value, xsave_plan.xcr0_allowed) ||
	    !xsetbv_safe(0, value)) {
		inject_exception(VEC_GP, true, 0);
		return;
	}
	skip_instruction();
}

/*
 * At a host tick: stop the partition once every vCPU is halted for ever.
 * A vCPU seen so stays so (nothing can wake it), so the flags other cores
 * set at their own ticks are never stale. Almost every tick finds the vCPU
 * active: one VMREAD, then back to the guest.
 */
static void check_halted_forever(struct vcpu *v)
{
	struct partition *p = v->part;
	enum halt_view views[MAX_VCPUS_PER_PART];
	uint32_t activity = (uint32_t)vmread(VMCS_GUEST_ACTIVITY_STATE);

	if (activity != HALT_ACTIVITY_HLT ||
	    !halt_vcpu_forever(activity, vmread(VMCS_GUEST_RFLAGS),
			       (uint32_t)vmread(VMCS_ENTRY_INTR_INFO)))
		return;
	__atomic_store_n(&v->halted_forever, true, __ATOMIC_RELEASE);
	for (uint32_t i = 0; i < p->vcpu_count; i++) {
		struct vcpu *t = p->vcpus[i];

		if (t->state == VCPU_RUNNING)
			views[i] = __atomic_load_n(&t->halted_forever, __ATOMIC_ACQUIRE) ?
					   HALT_FOREVER : HALT_LIVE;
		else if (t->state == VCPU_WAIT_SIPI)
			views[i] = __atomic_load_n(&t->sipi_pending, __ATOMIC_ACQUIRE) ?
					   HALT_LIVE : HALT_ASLEEP;
		else
			views[i] = HALT_GONE;
	}
	if (halt_partition_forever(views, p->vcpu_count))
		partition_stop(v, "halted_forever", 0,
			       "every vCPU is halted with interrupts off and cannot wake");
}

/*
 * Issue 14: a direct (or inject) guest's deadline that falls in a host-tick
 * exit waits for the VM entry. In these modes IA32_TSC_DEADLINE is the
 * guest's (passed through), so one RDMSR here, at the tick only, tells where
 * its next fire is; host_timer_place puts the next tick just after it, or
 * phase-locked to it, within tick_slack_us. Short exits read nothing.
 */
/*
 * In inject mode the guest's interrupt reaches its handler two exits after
 * the deadline (the external interrupt, then the injection's VM entry), so
 * its tick keeps three margins away.
 */
static uint64_t tick_margin(const struct vcpu *v)
{
	return v->vt.mode == TIMER_INJECT ? 3 * host_tick_margin_tsc : host_tick_margin_tsc;
}

/*
 * Direct mode only: measured in inject mode, placing ticks cut the p99 but
 * raised tick_hits (3 to 10 in 1000 fixed events; docs/timer-modes.md),
 * since its fire already costs an exit of its own. Inject counts its hits.
 */
static bool tick_placed(const struct vcpu *v)
{
	return v->vt.mode == TIMER_DIRECT && v->vt.in_hw && v->pcpu->ht.slack_tsc;
}

/*
 * At the end of a host-tick exit: is the timer's vector (the guest's LVT
 * vector in direct mode, the hypervisor's in inject mode) pending in the
 * physical IRR (x2APIC IRR at 0x820 + vector / 32, SDM Vol. 3A 11.12.1.2)?
 * Then the guest's timer fired while this exit ran (IF=0 in root mode) and
 * waits for the entry: a tick the guest felt.
 */
static void count_tick_hit(struct vcpu *v)
{
	uint8_t vec = v->vt.mode == TIMER_DIRECT ? vtimer_vector(&v->vt) : HV_TIMER_VECTOR;

	v->tick_exit = false;
	if (!v->vt.in_hw || vec < 16)
		return;
	if (x2apic_irr_test(vec))
		v->tick_hits++;
}

/* Exit 52: compare the TSC with what is due (a clamped value fires early). */
static void handle_preemption_timer(struct vcpu *v)
{
	struct host_timer *h = &v->pcpu->ht;
	uint64_t now = rdtsc(), deadline = 0;
	bool placed = tick_placed(v);

	if (placed && now >= h->fire_tick) {
		deadline = v->tick_deadline_valid ? v->tick_deadline :
						    rdmsr(MSR_IA32_TSC_DEADLINE);
		v->tick_deadline_valid = false;
		if (host_timer_defer(h, now, deadline, tick_margin(v))) {
			v->tick_exit = true;	/* this exit may delay the guest too */
			v->tick_defer_exits++;
			return;
		}
	}
	/* a host tick, or (emulated mode) the guest's deadline: the tail fires it */
	if (host_timer_run(h, now)) {
		v->host_tick_exits++;
		check_halted_forever(v);
		if (v->vt.mode == TIMER_DIRECT || v->vt.mode == TIMER_INJECT)
			v->tick_exit = true;
		if (placed)
			host_timer_place(h, deadline, tick_margin(v));
	}
}

/* inject/emulated: a physical interrupt, acknowledged on exit (SDM 27.2.2). */
static void handle_external_interrupt(struct vcpu *v)
{
	uint8_t vector = (uint8_t)vmread(VMCS_EXIT_INTR_INFO);

	wrmsr(X2APIC_EOI, 0);
	if (vector == HV_TIMER_VECTOR) {
		vcpu_trace(v, TRACE_HW_FIRE, 0, rdtsc());
		vtimer_hw_fired(&v->vt);
	} else
		vlapic_raise(&v->vt.vlapic, vector);
}

static void handle_interrupt_window(struct vcpu *v)
{
	(void)v;	/* the tail injects what is pending */
}

/*
 * HLT exits only while deliver_virtual holds a vector the guest could not
 * take yet (IF=0, an STI or MOV-SS shadow): the guest's `sti; hlt` must wake
 * on it. The interrupt-window exit alone is not enough: Bochs does not take
 * it once the guest is in HLT (an idle `sti; hlt` then slept until the next
 * exit, a host tick or another deadline, ~1 ms later). HLT completes here,
 * and its STI shadow with it (skip_instruction); the tail then injects the
 * vector if the guest can take it (the interrupt wakes HLT, SDM Vol. 3A
 * 6.3), else the guest halts as it asked.
 */
static void handle_hlt(struct vcpu *v)
{
	skip_instruction();
	if (!(vmread(VMCS_GUEST_RFLAGS) & (1u << 9)) || vlapic_pending(&v->vt.vlapic) < 0)
		vmwrite(VMCS_GUEST_ACTIVITY_STATE, ACTIVITY_HLT);
}

static void handle_init_signal(struct vcpu *v)
{
	partition_stop(v, "init_signal", 0, "unexpected INIT");
}

static void handle_invalid_state(struct vcpu *v)
{
	partition_stop(v, "invalid_guest_state", vmread(VMCS_EXIT_QUALIFICATION),
		       "VM entry refused the guest state");
}

static const exit_handler_t exit_handlers[EXIT_REASON_COUNT] = {
	[EXIT_REASON_EXCEPTION_NMI] = handle_nmi_or_exception,
	[EXIT_REASON_TRIPLE_FAULT] = handle_triple_fault,
	[EXIT_REASON_INIT] = handle_init_signal,
	[EXIT_REASON_CPUID] = handle_cpuid,
	[EXIT_REASON_GETSEC] = handle_ud,
	[EXIT_REASON_INVD] = handle_nop,
	[EXIT_REASON_VMCALL] = handle_vmcall,
	[EXIT_REASON_VMCLEAR] = handle_vmx_instruction,
	[EXIT_REASON_VMLAUNCH] = handle_vmx_instruction,
	[EXIT_REASON_VMPTRLD] = handle_vmx_instruction,
	[EXIT_REASON_VMPTRST] = handle_vmx_instruction,
	[EXIT_REASON_VMREAD] = handle_vmx_instruction,
	[EXIT_REASON_VMRESUME] = handle_vmx_instruction,
	[EXIT_REASON_VMWRITE] = handle_vmx_instruction,
	[EXIT_REASON_VMXOFF] = handle_vmx_instruction,
	[EXIT_REASON_VMXON] = handle_vmx_instruction,
	[EXIT_REASON_CR_ACCESS] = handle_cr_access,
	[EXIT_REASON_IO] = handle_io,
	[EXIT_REASON_RDMSR] = handle_rdmsr,
	[EXIT_REASON_WRMSR] = handle_wrmsr,
	[EXIT_REASON_INVALID_GUEST_STATE] = handle_invalid_state,
	[EXIT_REASON_MWAIT] = handle_nop,
	[EXIT_REASON_MONITOR] = handle_nop,
	[EXIT_REASON_EPT_VIOLATION] = handle_ept_violation,
	[EXIT_REASON_EPT_MISCONFIG] = handle_ept_misconfig,
	[EXIT_REASON_INVEPT] = handle_vmx_instruction,
	[EXIT_REASON_INVVPID] = handle_vmx_instruction,
	[EXIT_REASON_VMFUNC] = handle_vmx_instruction,
	[EXIT_REASON_WBINVD] = handle_nop,
	[EXIT_REASON_XSETBV] = handle_xsetbv,
	[EXIT_REASON_PREEMPTION_TIMER] = handle_preemption_timer,
	[EXIT_REASON_EXTERNAL_INTR] = handle_external_interrupt,
	[EXIT_REASON_INTR_WINDOW] = handle_interrupt_window,
	[EXIT_REASON_HLT] = handle_hlt,
};

/*
 * Off direct mode, before every entry: an expired software deadline fires,
 * and the highest deliverable vector is injected when the guest can take it,
 * else the interrupt window is opened so the guest exits when it can.
 */
void hv_deliver_virtual(struct vcpu *v)
{
	if (v->vt.mode != TIMER_DIRECT)
		deliver_virtual(v);
}

/*
 * pv-lazy: a deadline the guest published without trapping (it moved later
 * than the exit we had armed) is taken here, on every entry and after every
 * expiry. The exit armed for the old deadline comes after it, so the guest
 * may have published after the old one expired: one already due fires
 * first (vtimer_replace_deadline), one not yet due never fires.
 */
static void pv_sync(struct vcpu *v)
{
	uint64_t next = v->pv->next;

	if (next != v->pv_seen) {
		uint64_t now = rdtsc();

		v->pv_seen = next;
		v->pv_updates++;
		vcpu_trace(v, TRACE_PV_UPDATE, next, now);
		vtimer_replace_deadline(&v->vt, next, now);
	}
}

static void deliver_virtual(struct vcpu *v)
{
	uint32_t proc = (uint32_t)vmread(VMCS_PROC_CONTROLS);
	int vector;

	if (v->pv)
		pv_sync(v);
	/* the IPI kick is read here: cleared before the bitmaps, so none is missed */
	if (v->pcpu->shared && (__atomic_load_n(&v->pcpu->mailbox, __ATOMIC_ACQUIRE) & MAILBOX_IPI))
		__atomic_fetch_and(&v->pcpu->mailbox, ~MAILBOX_IPI, __ATOMIC_ACQ_REL);
	for (uint32_t i = 0; v->pcpu->shared && i < 8; i++) {
		uint32_t bits = __atomic_exchange_n(&v->ipi_pending[i], 0, __ATOMIC_ACQUIRE);

		while (bits) {
			vlapic_raise(&v->vt.vlapic, (uint8_t)(i * 32 + __builtin_ctz(bits)));
			bits &= bits - 1;
		}
	}
	if (v->vt.mode != TIMER_INJECT)
		vtimer_check(&v->vt, rdtsc());
	if (v->pv)
		v->pv->armed = vtimer_next(&v->vt) == TIMER_NO_EVENT ? 0 : vtimer_next(&v->vt);
	vector = vlapic_pending(&v->vt.vlapic);
	if (vector >= 0 && !(vmread(VMCS_ENTRY_INTR_INFO) & INTR_INFO_VALID)) {
		if ((vmread(VMCS_GUEST_RFLAGS) & (1u << 9)) &&
		    !(vmread(VMCS_GUEST_INTERRUPTIBILITY) & 3)) {
			vmwrite(VMCS_ENTRY_INTR_INFO,
				INTR_INFO_VALID | INTR_TYPE_EXT_INTR | (uint32_t)vector);
			vlapic_accept(&v->vt.vlapic, (uint8_t)vector);
			vcpu_trace(v, TRACE_INJECT, (uint64_t)vector, rdtsc());
			/* an interrupt ends HLT (SDM 26.6.3 allows injecting into it) */
			if (vmread(VMCS_GUEST_ACTIVITY_STATE) == ACTIVITY_HLT)
				vmwrite(VMCS_GUEST_ACTIVITY_STATE, ACTIVITY_ACTIVE);
			vector = vlapic_pending(&v->vt.vlapic);
		}
	}
	/* and HLT exiting, so a `sti; hlt` wakes on it (handle_hlt) */
	if (vector >= 0)
		proc |= PROC_INTR_WINDOW_EXITING | PROC_HLT_EXITING;
	else
		proc &= ~(PROC_INTR_WINDOW_EXITING | PROC_HLT_EXITING);
	vmwrite(VMCS_PROC_CONTROLS, proc);
}

/* An exit during event delivery: deliver that event again (SDM 27.2.4). */
static void reinject_vectoring(void)
{
	uint32_t info = (uint32_t)vmread(VMCS_IDT_VECTORING_INFO);

	if (!(info & INTR_INFO_VALID))
		return;
	if (info & INTR_INFO_DELIVER_CODE)
		vmwrite(VMCS_ENTRY_EXCEPTION_ERROR, vmread(VMCS_IDT_VECTORING_ERROR));
	vmwrite(VMCS_ENTRY_INTR_INFO, info & ~(1u << 12));
}

/*
 * The fast path (KVM's "tscdeadline fastpath" idea): a trapped deadline
 * write or a preemption-timer expiry of a software-deadline vCPU on a
 * dedicated core is finished here and the vCPU re-entered without the
 * generic tail (no vectoring check: neither exit happens during event
 * delivery; kicks come as NMI exits, so the mailbox can wait). Returns false
 * when the exit is not one of those.
 */
static bool exit_fast_path(struct vcpu *v, uint32_t reason)
{
	if (v->pcpu->shared || v->pcpu->console || !timer_mode_software(v->vt.mode) ||
	    __atomic_load_n(&v->pcpu->mailbox, __ATOMIC_ACQUIRE))
		return false;	/* a kick is read by the full path */
	if (reason == EXIT_REASON_WRMSR && (uint32_t)v->arch.regs.rcx == MSR_IA32_TSC_DEADLINE) {
		uint64_t value = ((v->arch.regs.rdx & 0xffffffff) << 32) | (v->arch.regs.rax & 0xffffffff);

		if (!vapic_wrmsr(v, MSR_IA32_TSC_DEADLINE, value))
			return false;
		skip_instruction();
	} else if (reason == EXIT_REASON_PREEMPTION_TIMER) {
		handle_preemption_timer(v);
	} else {
		return false;
	}
	v->exits_total++;
	v->exits[reason]++;
	v->fast_exits++;
	deliver_virtual(v);
	vcpu_timer_arm(v);
	return true;
}

/*
 * Issue 14: a tick whose exit finds the guest's deadline about to fire moves
 * past it (host_timer_defer) and must re-enter before that deadline, so it
 * skips the generic path as the fast path above does: a preemption-timer
 * exit never comes during event delivery (SDM Vol. 3C 26.5.1: it is taken
 * at an instruction boundary), and a kick is read by the next full exit, at
 * the latest the tick's own. Its one RDMSR is kept for handle_preemption_timer
 * when the tick is not deferred.
 */
static bool tick_defer_fast(struct vcpu *v, uint32_t reason)
{
	struct host_timer *h = &v->pcpu->ht;
	uint64_t now;

	if (reason != EXIT_REASON_PREEMPTION_TIMER || !tick_placed(v) || v->pcpu->console ||
	    __atomic_load_n(&v->pcpu->mailbox, __ATOMIC_ACQUIRE))
		return false;
	now = rdtsc();
	if (now < h->fire_tick)
		return false;
	v->tick_deadline = rdmsr(MSR_IA32_TSC_DEADLINE);
	v->tick_deadline_valid = true;
	if (!host_timer_defer(h, now, v->tick_deadline, tick_margin(v)))
		return false;
	v->tick_deadline_valid = false;
	v->exits_total++;
	v->exits[reason]++;
	v->tick_defer_exits++;
	count_tick_hit(v);
	vcpu_timer_arm(v);
	return true;
}

struct vcpu *hv_exit_handler(struct vcpu *v);
struct vcpu *hv_exit_handler(struct vcpu *v)
{
	uint32_t reason = (uint32_t)vmread(VMCS_EXIT_REASON);
	uint32_t basic = reason & 0xffff;
	exit_handler_t h;

	if (exit_fast_path(v, reason) || tick_defer_fast(v, reason))
		return v;
	v->pcpu->exit_vcpu = v;	/* a fault from here on stops this partition only */
	h = basic < EXIT_REASON_COUNT ? exit_handlers[basic] : NULL;
	v->exits_total++;
	if (basic < EXIT_REASON_COUNT)
		v->exits[basic]++;
	if ((reason & EXIT_REASON_ENTRY_FAILURE) && basic != EXIT_REASON_INVALID_GUEST_STATE)
		partition_stop(v, "vm_entry_failed", reason, vmx_exit_reason_name(basic));
	if (!h)
		partition_stop(v, "unhandled_exit", basic, vmx_exit_reason_name(basic));
	reinject_vectoring();
	h(v);

	/* a stop request names a partition, not a vCPU: a shared core checks whose */
	if ((__atomic_load_n(&v->pcpu->mailbox, __ATOMIC_ACQUIRE) & MAILBOX_STOP_VCPU) &&
	    v->part->state != PART_RUNNING)
		vcpu_leave(v);
	if (v->pcpu->shared && rdtsc() >= sched_window_end(&v->pcpu->sched))
		hv_switch_window(v);
	if (v->pcpu->console)
		console_drain_all(false);
	if (v->vt.mode != TIMER_DIRECT)
		deliver_virtual(v);
	if (v->tick_exit)
		count_tick_hit(v);
	vcpu_timer_arm(v);
	v->pcpu->exit_vcpu = NULL;
	return v;
}
