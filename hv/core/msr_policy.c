// SPDX-License-Identifier: MIT
#include "hv/core/msr_policy.h"

#include "hv/lib/lib.h"

/*
 * first, last, read, write, EMULATE's handler, which modes go elsewhere, who
 * keeps a guest's value when another vCPU takes the core, why
 */
#define R(a, b, r, w, h, v, k, s) \
	{ (a), (b), MSR_##r, MSR_##w, MSR_H_##h, MSR_VIRT_##v, MSR_KEPT_##k, s }

/*
 * Ranges are sorted and disjoint (the unit tests check). The x2APIC block is
 * spelled out register by register (DESIGN.md): ICR, SVR and every LVT are
 * checked, the rest of the guest's own APIC state passes through on the
 * dedicated cores of direct mode.
 *
 * Off direct mode (APIC in the virt column) the physical APIC belongs to no
 * guest (its core may be shared, its LVT timer carries the hypervisor's
 * vector): every register that holds or raises interrupt state is the
 * virtual LAPIC's. TPR, PPR, EOI, SVR, ISR/TMR/IRR, ESR, every LVT, the
 * count-down timer (TMICT, TMCCT, TDCR) and SELF_IPI. The ICR is checked in
 * every mode; ID, version and LDR read as the hardware's.
 */
static const struct msr_rule rules[] = {
	R(0x0010, 0x0010, PASS, IGNORE, NONE, NONE, NONE,
	  "IA32_TIME_STAMP_COUNTER: the host's TSC, not settable"),
	R(0x001b, 0x001b, EMULATE, EMULATE, APIC_BASE, NONE, NONE,
	  "IA32_APIC_BASE: the SDM's states (x2APIC, xAPIC, disabled); the page never on memory"),
	R(0x003a, 0x003a, EMULATE, GP, FEATURE_CONTROL, NONE, NONE,
	  "IA32_FEATURE_CONTROL: locked, VMX off"),
	R(0x003b, 0x003b, IGNORE, IGNORE, NONE, NONE, NONE,
	  "IA32_TSC_ADJUST: offset stays 0 (CPUID bit hidden)"),
	R(0x0048, 0x0048, PASS, PASS, NONE, NONE, OWN,
	  "IA32_SPEC_CTRL: the guest's, switched on a shared core"),
	R(0x0049, 0x0049, GP, EMULATE, PRED_CMD, NONE, NONE,
	  "IA32_PRED_CMD: IBPB only, where CPUID 7.EDX[26]"),
	R(0x0079, 0x0079, GP, IGNORE, NONE, NONE, NONE, "IA32_BIOS_UPDT_TRIG: no microcode loads"),
	R(0x008b, 0x008b, IGNORE, IGNORE, NONE, NONE, NONE,
	  "IA32_BIOS_SIGN_ID: microcode revision reads 0"),
	R(0x00ce, 0x00ce, PASS, GP, NONE, NONE, NONE, "MSR_PLATFORM_INFO: read-only"),
	R(0x00e7, 0x00e8, PASS, GP, NONE, NONE, NONE, "IA32_MPERF/APERF: read-only for guests"),
	R(0x00fe, 0x00fe, EMULATE, GP, MTRR, NONE, NONE,
	  "IA32_MTRRCAP: 8 variable ranges, fixed ranges, WC (the guest's own; EPT sets its types)"),
	R(0x010a, 0x010a, EMULATE, GP, ARCH_CAPS, NONE, NONE,
	  "IA32_ARCH_CAPABILITIES: the host's, less control MSRs"),
	R(0x010b, 0x010b, GP, EMULATE, FLUSH_CMD, NONE, NONE,
	  "IA32_FLUSH_CMD: L1D_FLUSH only, where CPUID 7.EDX[28]"),
	R(0x0174, 0x0176, PASS, PASS, NONE, NONE, VMCS,
	  "IA32_SYSENTER_CS/ESP/EIP: in the VMCS guest state"),
	/*
	 * Machine checks are the host's and CPUID hides MCE/MCA; a guest that
	 * reads these anyway (kvm-unit-tests' msr test: KVM always offers
	 * MCA) finds a machine-check architecture with no bank and no
	 * MCG_CTL (SDM Vol. 3B 16.3.1), never the host's banks.
	 */
	R(0x0179, 0x0179, IGNORE, GP, NONE, NONE, NONE,
	  "IA32_MCG_CAP: 0, no bank, no MCG_CTL; read-only"),
	R(0x017a, 0x017a, IGNORE, IGNORE, NONE, NONE, NONE,
	  "IA32_MCG_STATUS: no machine check in progress"),
	R(0x01a0, 0x01a0, EMULATE, EMULATE, MISC_ENABLE, NONE, NONE,
	  "IA32_MISC_ENABLE: the host's at reset; the OS's bits read back, others #GP if changed"),
	R(0x0200, 0x020f, EMULATE, EMULATE, MTRR, NONE, NONE,
	  "MTRR PHYSBASE/PHYSMASK 0-7: the guest's own, checked; not the host's"),
	R(0x0210, 0x024f, IGNORE, IGNORE, NONE, NONE, NONE, "no MTRRs beyond MTRRCAP's count"),
	R(0x0250, 0x0250, EMULATE, EMULATE, MTRR, NONE, NONE, "MTRR FIX64K_00000: the guest's own"),
	R(0x0251, 0x0257, IGNORE, IGNORE, NONE, NONE, NONE, "not MTRRs"),
	R(0x0258, 0x0259, EMULATE, EMULATE, MTRR, NONE, NONE, "MTRR FIX16K: the guest's own"),
	R(0x025a, 0x0267, IGNORE, IGNORE, NONE, NONE, NONE, "not MTRRs"),
	R(0x0268, 0x026f, EMULATE, EMULATE, MTRR, NONE, NONE, "MTRR FIX4K: the guest's own"),
	R(0x0270, 0x0276, IGNORE, IGNORE, NONE, NONE, NONE, "not MTRRs"),
	R(0x0277, 0x0277, PASS, PASS, NONE, NONE, VMCS, "IA32_PAT: loaded and saved by the VMCS"),
	R(0x0278, 0x02fe, IGNORE, IGNORE, NONE, NONE, NONE, "not MTRRs (MCi_CTL2 among them)"),
	R(0x02ff, 0x02ff, EMULATE, EMULATE, MTRR, NONE, NONE,
	  "IA32_MTRR_DEF_TYPE: the guest's own, enabled and write-back at reset; checked"),
	R(0x0480, 0x0491, GP, GP, NONE, NONE, NONE, "VMX capability MSRs: VMX is hidden"),
	R(0x06e0, 0x06e0, PASS, PASS, NONE, DEADLINE, OWN,
	  "IA32_TSC_DEADLINE: direct, no exit; the software timer's in its modes"),
	R(0x0802, 0x0803, PASS, GP, NONE, NONE, NONE, "x2APIC ID, version"),
	R(0x0808, 0x0808, PASS, PASS, NONE, APIC, NONE, "x2APIC TPR"),
	R(0x080a, 0x080a, PASS, GP, NONE, APIC, NONE, "x2APIC PPR"),
	R(0x080b, 0x080b, GP, PASS, NONE, APIC, NONE, "x2APIC EOI"),
	R(0x080d, 0x080d, EMULATE, GP, LDR, NONE, NONE, "x2APIC LDR: derived from the x2APIC id"),
	R(0x080f, 0x080f, PASS, EMULATE, SVR, APIC, NONE,
	  "x2APIC SVR: the APIC cannot be software-disabled"),
	R(0x0810, 0x0827, PASS, GP, NONE, APIC, NONE, "x2APIC ISR, TMR, IRR"),
	R(0x0828, 0x0828, PASS, PASS, NONE, APIC, NONE, "x2APIC ESR"),
	R(0x082f, 0x082f, PASS, EMULATE, LVT, APIC, NONE, "x2APIC LVT CMCI: fixed delivery only"),
	R(0x0830, 0x0830, EMULATE, EMULATE, ICR, NONE, NONE,
	  "x2APIC ICR: only the partition's own CPUs; reads give the vCPU's own last write"),
	R(0x0832, 0x0832, PASS, EMULATE, LVT_TIMER, APIC, NONE, "x2APIC LVT timer"),
	R(0x0833, 0x0837, PASS, EMULATE, LVT, APIC, NONE,
	  "x2APIC LVT thermal, PMC, LINT0/1, error"),
	R(0x0838, 0x0838, PASS, PASS, NONE, APIC, NONE, "x2APIC timer initial count"),
	R(0x0839, 0x0839, PASS, GP, NONE, APIC, NONE, "x2APIC timer current count"),
	R(0x083e, 0x083e, PASS, PASS, NONE, APIC, NONE, "x2APIC timer divide configuration"),
	R(0x083f, 0x083f, GP, PASS, NONE, APIC, NONE, "x2APIC SELF IPI: reaches only this CPU"),
	R(0x0da0, 0x0da0, EMULATE, EMULATE, XSS, NONE, NONE,
	  "IA32_XSS: where XSAVES is offered; 0, no supervisor state component"),
	R(0xc0000080, 0xc0000080, EMULATE, EMULATE, EFER, NONE, NONE,
	  "IA32_EFER: in the VMCS, LMA kept"),
	R(0xc0000081, 0xc0000084, PASS, PASS, NONE, NONE, ROOT,
	  "STAR, LSTAR, CSTAR, FMASK: unused by the host"),
	R(0xc0000100, 0xc0000101, PASS, PASS, NONE, NONE, VMCS,
	  "FS_BASE, GS_BASE: in the VMCS guest state"),
	R(0xc0000102, 0xc0000103, PASS, PASS, NONE, NONE, ROOT,
	  "KERNEL_GS_BASE, TSC_AUX: unused by the host"),
};

static const struct msr_rule gp_rule = {
	0, 0, MSR_GP, MSR_GP, MSR_H_NONE, MSR_VIRT_NONE, MSR_KEPT_NONE, "not in the table: #GP"
};

const struct msr_rule *msr_rules(unsigned int *count)
{
	*count = ARRAY_SIZE(rules);
	return rules;
}

const struct msr_rule *msr_rule_find(uint32_t msr)
{
	unsigned int lo = 0, hi = ARRAY_SIZE(rules);

	while (lo < hi) {
		unsigned int mid = (lo + hi) / 2;

		if (msr < rules[mid].first)
			hi = mid;
		else if (msr > rules[mid].last)
			lo = mid + 1;
		else
			return &rules[mid];
	}
	return &gp_rule;
}

enum msr_action msr_action(const struct msr_rule *r, const struct timer_mode_desc *mode,
			   bool write)
{
	if (r->virt == MSR_VIRT_APIC && !mode->owns_lapic)
		return MSR_VAPIC;
	if (r->virt == MSR_VIRT_DEADLINE && mode->soft_deadline)
		return MSR_SOFT_DEADLINE;
	return (enum msr_action)(write ? r->write : r->read);
}

int msr_virtual_apic(uint32_t msr)
{
	return msr_rule_find(msr)->virt == MSR_VIRT_APIC;
}

unsigned int msr_root_switched(uint32_t *out, unsigned int max)
{
	unsigned int n = 0;

	for (unsigned int i = 0; i < ARRAY_SIZE(rules); i++) {
		const struct msr_rule *r = &rules[i];

		if (r->kept != MSR_KEPT_ROOT)
			continue;
		for (uint32_t m = r->first; m <= r->last && m >= r->first; m++) {
			if (n < max)
				out[n] = m;
			n++;
		}
	}
	return n;
}

static void clear_bit(uint8_t *bitmap, uint32_t msr, int write)
{
	uint32_t base;

	/* Bitmap layout: read low, read high, write low, write high; 1 KiB each. */
	if (msr <= 0x1fff)
		base = 0;
	else if (msr >= 0xc0000000 && msr <= 0xc0001fff)
		base = 1024;
	else
		return;	/* outside both windows: always exits */
	base += write ? 2048 : 0;
	msr &= 0x1fff;
	bitmap[base + msr / 8] &= (uint8_t) ~(1u << (msr % 8));
}

void msr_bitmap_build_mode(uint8_t bitmap[4096], const struct timer_mode_desc *mode)
{
	memset(bitmap, 0xff, 4096);
	for (unsigned int i = 0; i < ARRAY_SIZE(rules); i++) {
		const struct msr_rule *r = &rules[i];

		for (uint32_t m = r->first; m <= r->last && m >= r->first; m++) {
			if (msr_action(r, mode, false) == MSR_PASS)
				clear_bit(bitmap, m, 0);
			if (msr_action(r, mode, true) == MSR_PASS)
				clear_bit(bitmap, m, 1);
		}
	}
}

void msr_bitmap_trap(uint8_t bitmap[4096], uint32_t first, uint32_t last)
{
	for (uint32_t m = first; m <= last && m >= first; m++) {
		if (m <= 0x1fff || (m >= 0xc0000000 && m <= 0xc0001fff)) {
			uint32_t bit = m & 0x1fff, base = m <= 0x1fff ? 0 : 1024;

			bitmap[base + bit / 8] |= (uint8_t)(1u << (bit % 8));		/* read */
			bitmap[base + 2048 + bit / 8] |= (uint8_t)(1u << (bit % 8));	/* write */
		}
	}
}

void msr_bitmap_build(uint8_t bitmap[4096])
{
	msr_bitmap_build_mode(bitmap, timer_mode(TIMER_DIRECT));
}

void msr_bitmap_build_virtual(uint8_t bitmap[4096], int trap_deadline)
{
	const struct timer_mode_desc virt = { .soft_deadline = trap_deadline != 0 };

	msr_bitmap_build_mode(bitmap, &virt);
}
