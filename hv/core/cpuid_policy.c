// SPDX-License-Identifier: MIT
#include "hv/core/cpuid_policy.h"

#include "hv/core/hypercall_abi.h"
#include "hv/core/spec.h"
#include "hv/core/xcr0.h"
#include "hv/lib/lib.h"

#define B(n)	(1u << (n))
#define ALL	0xffffffffu
#define ROW(l, s, r, o, w, bits, why) \
	{ (l), (s), CPUID_##r, CPUID_##o, CPUID_##w, (bits), (why) }
#define ANY	CPUID_ANY_SUB

/*
 * Sorted by leaf (the unit tests check); within a leaf the rows apply in
 * order. Leaves with no row are the CPU's, less what xcr0_filter_cpuid
 * takes out.
 */
static const struct cpuid_rule rules[] = {
	ROW(0, ANY, EAX, AT_LEAST, ALWAYS, CPUID_GUEST_MAX_BASIC,
	    "maximum leaf: so guests read the TSC frequency (0x15/0x16)"),

	ROW(1, ANY, ECX, CLEAR, ALWAYS, B(3), "MONITOR/MWAIT: MWAIT exits, hide it"),
	ROW(1, ANY, ECX, CLEAR, ALWAYS, B(5), "VMX: no nested virtualisation"),
	ROW(1, ANY, ECX, CLEAR, ALWAYS, B(6), "SMX: GETSEC is #UD"),
	/*
	 * Thermal, power and debug-store features whose MSRs a guest may not
	 * touch (Linux would program them with unchecked WRMSRs).
	 */
	ROW(1, ANY, ECX, CLEAR, ALWAYS, B(2) | B(4) | B(7) | B(8) | B(14) | B(15),
	    "DTES64, DS-CPL, EST, TM2, xTPR, PDCM: their MSRs are the host's"),
	/*
	 * Machine checks (MCE, MCA) are the host's: a guest that saw them
	 * would poll banks some CPUs do not have (Bochs), and Linux panics on
	 * a #GP there.
	 */
	ROW(1, ANY, EDX, CLEAR, ALWAYS, B(7) | B(14) | B(21) | B(22) | B(29) | B(31),
	    "MCE, MCA, DS, ACPI, TM, PBE: the host's"),
	ROW(1, ANY, ECX, CLEAR, ALWAYS, B(18), "DCA: its MSRs are the host's"),
	ROW(1, ANY, ECX, SET, ALWAYS, B(31), "hypervisor present"),
	ROW(1, ANY, ECX, MIRROR, GUEST_OSXSAVE, B(27),
	    "OSXSAVE mirrors CR4.OSXSAVE: the guest's, not root mode's"),
	ROW(1, ANY, EDX, MIRROR, GUEST_APIC_ON, B(9),
	    "APIC follows IA32_APIC_BASE's enable bit, as on hardware (SDM 11.4.3)"),

	ROW(5, ANY, EAX, CLEAR, ALWAYS, ALL, "MONITOR/MWAIT leaf: MWAIT is hidden"),
	ROW(5, ANY, EBX, CLEAR, ALWAYS, ALL, "MONITOR/MWAIT leaf"),
	ROW(5, ANY, ECX, CLEAR, ALWAYS, ALL, "MONITOR/MWAIT leaf"),
	ROW(5, ANY, EDX, CLEAR, ALWAYS, ALL, "MONITOR/MWAIT leaf"),

	ROW(6, ANY, EAX, KEEP, ALWAYS, B(2),
	    "power management: only ARAT (the APIC timer runs in C-states)"),
	ROW(6, ANY, EBX, CLEAR, ALWAYS, ALL, "power management: the host's"),
	ROW(6, ANY, ECX, CLEAR, ALWAYS, ALL, "power management: the host's"),
	ROW(6, ANY, EDX, CLEAR, ALWAYS, ALL, "power management: the host's"),

	ROW(7, 0, EBX, CLEAR, ALWAYS, B(1), "IA32_TSC_ADJUST: writes are ignored"),
	ROW(7, 0, EBX, CLEAR, NO_INVPCID, B(10), "INVPCID: only where VMX enables it"),
	ROW(7, 0, ECX, CLEAR, ALWAYS, B(5), "WAITPKG: UMWAIT would sleep unseen"),
	/*
	 * Features whose MSRs have no row (#GP) and whose state no VMCS field
	 * or XSAVE component Tempo switches: a guest that saw the bit would
	 * touch the MSR unchecked (Linux: TME_ACTIVATE at boot, PQR_ASSOC for
	 * resctrl, S_CET for kernel IBT). Attack feature_msrs_cpuid. (MPX
	 * goes with its XCR0 components: xsave_plan_make, xcr0_filter_cpuid.)
	 */
	ROW(7, 0, EBX, CLEAR, ALWAYS, B(2) | B(12) | B(15) | B(25),
	    "SGX, RDT-M, RDT-A, Intel PT: EPC, PQR_ASSOC, RTIT_* are the host's"),
	ROW(7, 0, ECX, CLEAR, ALWAYS, B(7) | B(13) | B(23) | B(24) | B(29) | B(30) | B(31),
	    "CET_SS, TME, Key Locker (a per-core key), bus-lock detect (DEBUGCTL), ENQCMD, "
	    "SGX_LC, PKS: their state is the host's"),
	ROW(7, 0, ECX, CLEAR, NO_RDTSCP, B(22), "RDPID: #UD where VMX does not enable RDTSCP"),
	ROW(7, 0, EDX, CLEAR, ALWAYS, B(5) | B(18) | B(19) | B(20),
	    "UINTR, PCONFIG, architectural LBR, CET_IBT: their MSRs are the host's"),
	ROW(7, 0, ECX, MIRROR, GUEST_PKE, B(4), "OSPKE mirrors the guest's CR4.PKE"),
	ROW(7, 0, EDX, CLEAR, ALWAYS,
	    CPUID_7_EDX_SRBDS_CTRL | CPUID_7_EDX_TSX_FORCE_ABORT | CPUID_7_EDX_CORE_CAPS,
	    "speculation controls: only those whose MSRs have a row (spec_guest_cpuid7_edx)"),
	ROW(7, 1, EAX, CLEAR, ALWAYS, B(8) | B(17) | B(20) | B(22) | B(27),
	    "ArchPerfmonExt, FRED (and its NMI source), HRESET, MSRLIST: MSRs the host's"),
	ROW(7, 1, EBX, CLEAR, ALWAYS, B(0), "PPIN: the host's (a machine-unique number)"),
	ROW(7, 1, EDX, CLEAR, ALWAYS, B(15), "USER_MSR: its MSR is the host's"),
	ROW(7, 2, EDX, CLEAR, ALWAYS, B(6), "UC_LOCK_DISABLE (MSR 0x33): the host's"),

	ROW(0xa, ANY, EAX, CLEAR, ALWAYS, ALL, "architectural PMU: the counters are the host's"),
	ROW(0xa, ANY, EBX, CLEAR, ALWAYS, ALL, "architectural PMU"),
	ROW(0xa, ANY, ECX, CLEAR, ALWAYS, ALL, "architectural PMU"),
	ROW(0xa, ANY, EDX, CLEAR, ALWAYS, ALL, "architectural PMU"),

	ROW(0xd, 1, EAX, CLEAR, NO_XSAVES, B(3), "XSAVES/XRSTORS: only where VMX enables them"),
	ROW(0xd, 1, ECX, CLEAR, ALWAYS, ALL, "IA32_XSS: no supervisor state component (it stays 0)"),
	ROW(0xd, 1, EDX, CLEAR, ALWAYS, ALL, "IA32_XSS: no supervisor state component"),

	/* TSC = crystal * EBX / EAX: the frequency given as the crystal */
	ROW(0x15, ANY, EAX, VALUE, TSC_OURS, 1, "TSC/crystal ratio denominator"),
	ROW(0x15, ANY, EBX, SYNTH, TSC_OURS, CPUID_SYN_TSC15_EBX, "ratio numerator: 1, or 1000"),
	ROW(0x15, ANY, ECX, SYNTH, TSC_OURS, CPUID_SYN_TSC15_ECX,
	    "crystal: the TSC frequency, in kHz above 4 GHz"),
	ROW(0x15, ANY, EDX, VALUE, TSC_OURS, 0, "reserved"),
	ROW(0x16, ANY, EAX, SYNTH, TSC_OURS, CPUID_SYN_TSC_MHZ, "base frequency (MHz)"),
	ROW(0x16, ANY, EBX, SYNTH, TSC_OURS, CPUID_SYN_TSC_MHZ, "maximum frequency (MHz)"),
	ROW(0x16, ANY, ECX, VALUE, TSC_OURS, 100, "bus frequency (MHz)"),
	ROW(0x16, ANY, EDX, VALUE, TSC_OURS, 0, "reserved"),

	ROW(TEMPO_CPUID_BASE, ANY, EAX, VALUE, ALWAYS, TEMPO_CPUID_STATS, "Tempo: highest leaf"),
	ROW(TEMPO_CPUID_BASE, ANY, EBX, VALUE, ALWAYS, TEMPO_CPUID_SIG_EBX, "signature \"Temp\""),
	ROW(TEMPO_CPUID_BASE, ANY, ECX, VALUE, ALWAYS, TEMPO_CPUID_SIG_ECX, "signature \"o-RT\""),
	ROW(TEMPO_CPUID_BASE, ANY, EDX, VALUE, ALWAYS, TEMPO_CPUID_SIG_EDX, "signature \"-HV \""),
	ROW(TEMPO_CPUID_BASE + 1, ANY, EAX, VALUE, ALWAYS, TEMPO_FEATURE_PV_LAZY_TIMER,
	    "Tempo features"),
	ROW(TEMPO_CPUID_TIMING, ANY, EAX, SYNTH, ALWAYS, CPUID_SYN_TSC_KHZ, "TSC frequency (kHz)"),
	ROW(TEMPO_CPUID_TIMING, ANY, EBX, VALUE, ALWAYS, 0, "LAPIC bus frequency: not known"),
	ROW(TEMPO_CPUID_STATS, ANY, EAX, SYNTH, ALWAYS, CPUID_SYN_STATS,
	    "a VCPU_STATS snapshot: 1 if taken, 0 if the ring is full"),

	ROW(0x80000001, ANY, ECX, CLEAR, ALWAYS, B(2), "SVM: no nested virtualisation"),
	ROW(0x80000001, ANY, EDX, CLEAR, NO_RDTSCP, B(27), "RDTSCP: only where VMX enables it"),
};

const struct cpuid_rule *cpuid_rules(unsigned int *count)
{
	*count = ARRAY_SIZE(rules);
	return rules;
}

enum cpuid_source cpuid_policy_source(const struct cpuid_facts *f, uint32_t leaf)
{
	if (leaf >= CPUID_TEMPO_FIRST && leaf <= CPUID_TEMPO_LAST)
		return CPUID_SRC_ZERO;
	/*
	 * Above the host's maximum (raised to CPUID_GUEST_MAX_BASIC, leaf 0):
	 * the TSC leaves are synthesised and those in between are empty, not
	 * the host's highest leaf repeated as a CPU answers out of range.
	 */
	if (leaf > f->max_basic && leaf <= CPUID_GUEST_MAX_BASIC)
		return CPUID_SRC_ZERO;
	/*
	 * Leaves of features hidden in leaf 7 (above), empty as on a CPU
	 * without them: Linux keys RDT monitoring on leaf 0xF alone.
	 */
	switch (leaf) {
	case 0xf:	/* RDT monitoring */
	case 0x10:	/* RDT allocation */
	case 0x12:	/* SGX */
	case 0x14:	/* Intel PT */
	case 0x19:	/* Key Locker */
	case 0x1b:	/* PCONFIG */
	case 0x1c:	/* architectural LBR */
	case 0x20:	/* HRESET */
	case 0x23:	/* ArchPerfmonExt */
		return CPUID_SRC_ZERO;
	}
	return CPUID_SRC_HOST;
}

static bool cpuid_fact(const struct cpuid_facts *f, uint32_t leaf, enum cpuid_fact w)
{
	switch (w) {
	case CPUID_ALWAYS:
		return true;
	case CPUID_NO_INVPCID:
		return !f->has_invpcid;
	case CPUID_NO_XSAVES:
		return !f->has_xsaves;
	case CPUID_NO_RDTSCP:
		return !f->has_rdtscp;
	case CPUID_TSC_OURS:
		return f->tsc_hz || leaf > f->max_basic;
	case CPUID_GUEST_OSXSAVE:
		return f->guest_osxsave;
	case CPUID_GUEST_PKE:
		return f->guest_pke;
	case CPUID_GUEST_APIC_ON:
		return f->guest_apic_on;
	}
	return false;
}

static uint32_t cpuid_synth(const struct cpuid_facts *f, enum cpuid_synth s)
{
	bool big = f->tsc_hz > 0xffffffffull;

	switch (s) {
	case CPUID_SYN_TSC15_EBX:
		return big ? 1000 : 1;
	case CPUID_SYN_TSC15_ECX:
		return big ? (uint32_t)(f->tsc_hz / 1000) : (uint32_t)f->tsc_hz;
	case CPUID_SYN_TSC_MHZ:
		return (uint32_t)(f->tsc_hz / 1000000);
	case CPUID_SYN_TSC_KHZ:
		return (uint32_t)(f->tsc_hz / 1000);
	case CPUID_SYN_STATS:
		return f->stats ? f->stats(f->stats_ctx) : 0;
	}
	return 0;
}

void cpuid_policy_apply(const struct cpuid_facts *f, uint32_t leaf, uint32_t sub,
			struct cpuid_out *r)
{
	for (unsigned int i = 0; i < ARRAY_SIZE(rules) && rules[i].leaf <= leaf; i++) {
		const struct cpuid_rule *row = &rules[i];
		uint32_t *reg = &r->reg[row->reg & 3];
		bool fact;

		if (row->leaf != leaf || (row->sub != CPUID_ANY_SUB && row->sub != sub))
			continue;
		fact = cpuid_fact(f, leaf, (enum cpuid_fact)row->when);
		if (row->op == CPUID_MIRROR) {
			*reg = fact ? *reg | row->bits : *reg & ~row->bits;
			continue;
		}
		if (!fact)
			continue;
		switch (row->op) {
		case CPUID_CLEAR:
			*reg &= ~row->bits;
			break;
		case CPUID_SET:
			*reg |= row->bits;
			break;
		case CPUID_KEEP:
			*reg &= row->bits;
			break;
		case CPUID_AT_LEAST:
			if (*reg < row->bits)
				*reg = row->bits;
			break;
		case CPUID_VALUE:
			*reg = row->bits;
			break;
		case CPUID_SYNTH:
			*reg = cpuid_synth(f, (enum cpuid_synth)row->bits);
			break;
		}
	}
	/* XSAVE state the per-vCPU area cannot hold is not offered (hv/core/xcr0.c) */
	xcr0_filter_cpuid(f->xcr0_allowed, f->xsave_area_bytes, leaf, sub, &r->reg[CPUID_EAX],
			  &r->reg[CPUID_EBX], &r->reg[CPUID_ECX], &r->reg[CPUID_EDX]);
}
