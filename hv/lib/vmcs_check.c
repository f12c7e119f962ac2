// SPDX-License-Identifier: MIT
/*
 * The checks of VM entry (SDM Vol. 3C 26.2, 26.3) over a struct vmcs_image,
 * in the SDM's order within each part: the steady rules (26.2 but three),
 * then the per-entry ones (those three, 26.2.1.3, 26.3; vmcs_check.h).
 * Every rule is tried, whatever broke before it: a
 * VMCS with three problems reports three lines. Nothing here trusts the
 * image (a fuzzer feeds it anything): every shift and every index is
 * bounded.
 *
 * Left out, and why:
 * - What needs memory the image does not hold: the VMCS revision in the
 *   page the link pointer names (26.3.1.5; Tempo's link pointer is all
 *   ones), the PDPTEs that VM entry loads from guest memory when EPT is off
 *   (26.3.1.6; Tempo always has EPT), and each entry of the MSR-load
 *   lists (26.4, 27.6: checked as the entry or exit uses them, not
 *   before; Tempo's are empty). What is read from memory arrives in the
 *   image (arch/x86/vmcs_image.c reads it): VTPR, which a control check
 *   reads, and the first VMCS_MSR_STORE_READ entries of the MSR-store
 *   list, which the exit would check (27.4) with a VMX abort, checked
 *   here. Of that list, not checked: entries past those, a list that is
 *   unaligned (refused by its own rule) or does not end below 4 GiB (not
 *   read), an MSR whose RDMSR would #GP on this model, other MSRs readable
 *   only in SMM than IA32_SMBASE, and refusals "for model-specific
 *   reasons" other than the microcode MSRs.
 * - What needs CPUID facts beyond MAXPHYADDR and the linear-address width:
 *   the reserved bits of IA32_PERF_GLOBAL_CTRL (the number of counters),
 *   IA32_RTIT_CTL and IA32_LBR_CTL, the RTM support that pending RTM debug
 *   exceptions need and the SGX support that enclave interruption needs
 *   (26.3.1.5: the rest of those two rules is checked).
 * - State that Tempo never loads and no Bochs model offers: CET (S_CET, SSP,
 *   the interrupt SSP table), user interrupts (UINV), the tertiary
 *   controls (IA32_VMX_PROCBASED_CTLS3) and the secondary VM-exit
 *   controls. Setting any of those controls is still checked against the
 *   capability MSR that allows it.
 * - SMM: Tempo runs outside SMM and never uses the dual-monitor treatment,
 *   so the rules for entries from SMM are checked in their outside-SMM
 *   form (entry to SMM and blocking by SMI must be 0), which also covers
 *   "no wait-for-SIPI with entry to SMM", and the executive-VMCS pointer
 *   is not.
 * - IA32_DEBUGCTL's reserved bits are the architectural ones (5:3, 63:16):
 *   a model may reserve more (bit 2, bus-lock detection, exists only on
 *   some), which only that model's hardware can say.
 */
#include "hv/lib/vmcs_check.h"

#include "hv/lib/vmx_ctls.h"

#define CR0_PE		(1ull << 0)
#define CR0_WP		(1ull << 16)
#define CR0_NW		(1ull << 29)
#define CR0_CD		(1ull << 30)
#define CR0_PG		(1ull << 31)
#define CR4_PAE		(1ull << 5)
#define CR4_PCIDE	(1ull << 17)
#define CR4_CET		(1ull << 23)
#define EFER_LME	(1ull << 8)
#define EFER_LMA	(1ull << 10)
/* IA32_EFER: SCE, LME, LMA, NXE; the rest is reserved on Intel CPUs */
#define EFER_RESERVED	(~((1ull << 0) | EFER_LME | EFER_LMA | (1ull << 11)))
/* IA32_DEBUGCTL: bits 5:3 and 63:16 (see the top of this file) */
#define DEBUGCTL_RESERVED (0x38ull | ~0xffffull)
#define DEBUGCTL_BTF	(1ull << 1)
#define RFLAGS_TF	(1ull << 8)
#define RFLAGS_IF	(1ull << 9)
#define RFLAGS_VM	(1ull << 17)
/* bits 63:22, 15, 5 and 3 */
#define RFLAGS_RESERVED	(~0x3fffffull | (1ull << 15) | (1ull << 5) | (1ull << 3))
#define RFLAGS_FIXED1	(1ull << 1)
#define PENDING_DBG_RESERVED (0xff0ull | (1ull << 13) | (1ull << 15) | ~0x1ffffull)
#define PENDING_DBG_BS	(1ull << 14)
#define PENDING_DBG_EB	(1ull << 12)	/* enabled breakpoint */
#define PENDING_DBG_RTM	(1ull << 16)
#define BNDCFGS_RESERVED (0xffcull)	/* bits 11:2 */
#define LINK_PTR_NONE	(~0ull)

/* access rights (SDM Vol. 3C 24.4.1, Table 24-2) */
#define AR_TYPE(ar)	((ar) & 0xf)
#define AR_S		(1u << 4)
#define AR_DPL(ar)	(((ar) >> 5) & 3)
#define AR_P		(1u << 7)
#define AR_RESERVED	(0xf00u | 0xfffe0000u)	/* bits 11:8, 31:17 */
#define AR_L		(1u << 13)
#define AR_DB		(1u << 14)
#define AR_G		(1u << 15)
#define AR_UNUSABLE	(1u << 16)
#define SEL_RPL(sel)	((sel) & 3)
#define SEL_TI		(1u << 2)

/* EPTP (SDM Vol. 3C 24.6.11) */
#define EPTP_MEMTYPE(p)	((p) & 7)
#define EPTP_WALK(p)	(((p) >> 3) & 7)
#define EPTP_AD		(1ull << 6)
#define EPTP_RESERVED	(0xf80ull)	/* bits 11:7 */
#define EPT_MEMTYPE_UC	0
#define EPT_MEMTYPE_WB	6

/* PAE-paging PDPTE (SDM Vol. 3A 4.4.1) */
#define PDPTE_P		(1ull << 0)
#define PDPTE_RESERVED	(0x6ull | 0x1e0ull)	/* bits 2:1, 8:5 */

static const struct vmcs_rule_desc rule_descs[VMCS_RULE_COUNT] = {
#define VMCS_RULE_DESC(name, rid, section, text) \
	[VMCS_RULE_##name] = { .id = rid, .sdm = section, .what = text },
	VMCS_RULES(VMCS_RULE_DESC)
#undef VMCS_RULE_DESC
};

static const char *const field_names[VMCS_F_COUNT] = {
#define VMCS_FIELD_NAME(name) [VMCS_F_##name] = #name,
	VMCS_FIELDS(VMCS_FIELD_NAME)
#undef VMCS_FIELD_NAME
};

static const struct vmcs_rule_desc rule_unknown = { "?", "?", "not a rule" };

const struct vmcs_rule_desc *vmcs_rule_desc(uint32_t rule)
{
	return rule < VMCS_RULE_COUNT ? &rule_descs[rule] : &rule_unknown;
}

const char *vmcs_field_name(uint32_t field)
{
	return field < VMCS_F_COUNT ? field_names[field] : "?";
}

bool vmcs_check_broke(const struct vmcs_check_result *res, enum vmcs_rule rule)
{
	return (uint32_t)rule < VMCS_RULE_COUNT && (res->rules[rule / 64] >> (rule % 64)) & 1;
}

/* What every check needs: the image, the result, and the controls in force. */
struct ctx {
	const struct vmcs_image *m;
	struct vmcs_check_result *res;
	uint32_t proc2;		/* 0 unless the secondary controls are activated (26.2.1.1) */
	bool ug;		/* unrestricted guest */
	bool ia32e;		/* the IA-32e mode guest entry control */
	bool v86;		/* the guest will be in virtual-8086 mode */
	bool intr_valid;	/* an event is injected */
	uint32_t intr_type;	/* its type (INTR_TYPE_*) and vector */
	uint32_t intr_vector;
};

static void fail2(struct ctx *c, enum vmcs_rule rule, enum vmcs_field f, uint64_t v,
		  enum vmcs_field f2, uint64_t v2)
{
	struct vmcs_check_result *r = c->res;

	if (r->count < VMCS_CHECK_KEPT)
		r->v[r->count] = (struct vmcs_violation){ .rule = rule, .field = f, .value = v,
							  .field2 = f2, .value2 = v2 };
	r->count++;
	r->rules[rule / 64] |= 1ull << (rule % 64);
}

static void fail(struct ctx *c, enum vmcs_rule rule, enum vmcs_field f, uint64_t v)
{
	fail2(c, rule, f, v, VMCS_F_NONE, 0);
}

/* No bit at or above MAXPHYADDR (an absurd width above 63 limits nothing). */
static bool in_width(const struct ctx *c, uint64_t pa)
{
	uint8_t w = c->m->cap.maxphyaddr;

	return w >= 64 || (pa >> w) == 0;
}

static bool page_ok(const struct ctx *c, uint64_t pa)
{
	return (pa & 0xfff) == 0 && in_width(c, pa);
}

/* Bits 63:N-1 all equal, N the linear-address width (0 or 64 up: no check). */
static bool canonical(const struct ctx *c, uint64_t la)
{
	uint8_t n = c->m->cap.linear_bits;
	uint64_t high;

	if (n == 0 || n >= 64)
		return true;
	high = la >> (n - 1);
	return high == 0 || high == (~0ull >> (n - 1));
}

/* A control word against its capability MSR: allowed-0 in 31:0, allowed-1 in 63:32. */
static bool ctls_ok(uint32_t v, uint64_t cap)
{
	uint32_t must1 = (uint32_t)cap, may1 = (uint32_t)(cap >> 32);

	return (v & must1) == must1 && (v & ~may1) == 0;
}

/* Each byte a memory type WRMSR takes: UC, WC, WT, WP, WB, UC-. */
static bool pat_ok(uint64_t pat)
{
	for (int i = 0; i < 8; i++) {
		uint8_t t = (uint8_t)(pat >> (8 * i));

		if (t == 2 || t == 3 || t > 7)
			return false;
	}
	return true;
}

/* A 16-byte aligned list of @count 16-byte entries, its last byte below MAXPHYADDR. */
static bool msr_area_ok(const struct ctx *c, uint64_t addr, uint32_t count)
{
	uint64_t last = addr + (uint64_t)count * 16 - 1;

	return count == 0 || ((addr & 0xf) == 0 && in_width(c, addr) && last >= addr &&
			      in_width(c, last));
}

static bool fixed_ok(uint64_t v, uint64_t fixed0, uint64_t fixed1)
{
	return (v & fixed0) == fixed0 && (v & ~fixed1) == 0;
}

/* The CR0/CR4 violation, with the FIXED0 MSR if a bit it needs is clear, else FIXED1. */
static void fail_fixed(struct ctx *c, enum vmcs_rule rule, enum vmcs_field f, uint64_t v,
		       uint64_t fixed0, enum vmcs_field f0, uint64_t fixed0_msr,
		       enum vmcs_field f1, uint64_t fixed1_msr)
{
	if ((v & fixed0) != fixed0)
		fail2(c, rule, f, v, f0, fixed0_msr);
	else
		fail2(c, rule, f, v, f1, fixed1_msr);
}

/* ---- 26.2.1.1 VM-execution control fields ---- */

static void check_exec_controls(struct ctx *c)
{
	const struct vmcs_image *m = c->m;
	bool true_ctls = m->cap.basic & VMX_BASIC_TRUE_CTLS;
	uint64_t pin_cap = true_ctls ? m->cap.true_pinbased : m->cap.pinbased;
	uint64_t proc_cap = true_ctls ? m->cap.true_procbased : m->cap.procbased;
	uint32_t p2 = c->proc2;
	bool tpr_shadow = m->proc & PROC_TPR_SHADOW;
	bool ept = p2 & PROC2_ENABLE_EPT;

	if (!ctls_ok(m->pin, pin_cap))
		fail2(c, VMCS_RULE_PIN_RESERVED, VMCS_F_PIN_CONTROLS, m->pin,
		      true_ctls ? VMCS_F_IA32_VMX_TRUE_PINBASED_CTLS : VMCS_F_IA32_VMX_PINBASED_CTLS,
		      pin_cap);
	if (!ctls_ok(m->proc, proc_cap))
		fail2(c, VMCS_RULE_PROC_RESERVED, VMCS_F_PROC_CONTROLS, m->proc,
		      true_ctls ? VMCS_F_IA32_VMX_TRUE_PROCBASED_CTLS : VMCS_F_IA32_VMX_PROCBASED_CTLS,
		      proc_cap);
	/* the secondary controls are checked only where activated (26.2.1.1) */
	if ((m->proc & PROC_SECONDARY_CONTROLS) && !ctls_ok(m->proc2, m->cap.procbased2))
		fail2(c, VMCS_RULE_PROC2_RESERVED, VMCS_F_PROC_CONTROLS2, m->proc2,
		      VMCS_F_IA32_VMX_PROCBASED_CTLS2, m->cap.procbased2);
	if (m->cr3_target_count > ((m->cap.misc >> 16) & 0x1ff))
		fail2(c, VMCS_RULE_CR3_TARGET_COUNT, VMCS_F_CR3_TARGET_COUNT, m->cr3_target_count,
		      VMCS_F_IA32_VMX_MISC, m->cap.misc);
	if (m->proc & PROC_USE_IO_BITMAPS) {
		if (!page_ok(c, m->io_bitmap_a))
			fail(c, VMCS_RULE_IO_BITMAP_ADDR, VMCS_F_IO_BITMAP_A, m->io_bitmap_a);
		if (!page_ok(c, m->io_bitmap_b))
			fail(c, VMCS_RULE_IO_BITMAP_ADDR, VMCS_F_IO_BITMAP_B, m->io_bitmap_b);
	}
	if ((m->proc & PROC_USE_MSR_BITMAPS) && !page_ok(c, m->msr_bitmap))
		fail(c, VMCS_RULE_MSR_BITMAP_ADDR, VMCS_F_MSR_BITMAP, m->msr_bitmap);
	if (tpr_shadow) {
		if (!page_ok(c, m->virtual_apic))
			fail(c, VMCS_RULE_VIRTUAL_APIC_ADDR, VMCS_F_VIRTUAL_APIC_ADDR,
			     m->virtual_apic);
		if (!(p2 & PROC2_VIRT_INTR_DELIVERY) && (m->tpr_threshold >> 4))
			fail(c, VMCS_RULE_TPR_THRESHOLD_HIGH, VMCS_F_TPR_THRESHOLD,
			     m->tpr_threshold);
		/* TPR_THRESHOLD_VTPR: check_steady_with_per_entry (VTPR is the guest's) */
	} else if (p2 & (PROC2_VIRT_X2APIC_MODE | PROC2_APIC_REGISTER_VIRT |
			 PROC2_VIRT_INTR_DELIVERY)) {
		fail2(c, VMCS_RULE_APICV_WITHOUT_TPR_SHADOW, VMCS_F_PROC_CONTROLS2, m->proc2,
		      VMCS_F_PROC_CONTROLS, m->proc);
	}
	if (!(m->pin & PIN_NMI_EXITING) && (m->pin & PIN_VIRTUAL_NMIS))
		fail(c, VMCS_RULE_VNMI_WITHOUT_NMI_EXITING, VMCS_F_PIN_CONTROLS, m->pin);
	if (!(m->pin & PIN_VIRTUAL_NMIS) && (m->proc & PROC_NMI_WINDOW_EXITING))
		fail2(c, VMCS_RULE_NMI_WINDOW_WITHOUT_VNMI, VMCS_F_PROC_CONTROLS, m->proc,
		      VMCS_F_PIN_CONTROLS, m->pin);
	if ((p2 & PROC2_VIRT_APIC_ACCESSES) && !page_ok(c, m->apic_access))
		fail(c, VMCS_RULE_APIC_ACCESS_ADDR, VMCS_F_APIC_ACCESS_ADDR, m->apic_access);
	if ((p2 & PROC2_VIRT_X2APIC_MODE) && (p2 & PROC2_VIRT_APIC_ACCESSES))
		fail(c, VMCS_RULE_X2APIC_AND_APIC_ACCESS, VMCS_F_PROC_CONTROLS2, m->proc2);
	if ((p2 & PROC2_VIRT_INTR_DELIVERY) && !(m->pin & PIN_EXTINT_EXITING))
		fail2(c, VMCS_RULE_VID_WITHOUT_EXTINT_EXITING, VMCS_F_PIN_CONTROLS, m->pin,
		      VMCS_F_PROC_CONTROLS2, m->proc2);
	if (m->pin & PIN_POSTED_INTR) {
		if (!(p2 & PROC2_VIRT_INTR_DELIVERY))
			fail2(c, VMCS_RULE_POSTED_WITHOUT_VID, VMCS_F_PIN_CONTROLS, m->pin,
			      VMCS_F_PROC_CONTROLS2, m->proc2);
		if (!(m->exit & EXIT_ACK_INTR_ON_EXIT))
			fail2(c, VMCS_RULE_POSTED_WITHOUT_ACK, VMCS_F_PIN_CONTROLS, m->pin,
			      VMCS_F_EXIT_CONTROLS, m->exit);
		if (m->posted_intr_nv & 0xff00)
			fail(c, VMCS_RULE_POSTED_VECTOR, VMCS_F_POSTED_INTR_NV, m->posted_intr_nv);
		if ((m->posted_intr_desc & 0x3f) || !in_width(c, m->posted_intr_desc))
			fail(c, VMCS_RULE_POSTED_DESC_ADDR, VMCS_F_POSTED_INTR_DESC,
			     m->posted_intr_desc);
	}
	if ((p2 & PROC2_ENABLE_VPID) && m->vpid == 0)
		fail(c, VMCS_RULE_VPID_ZERO, VMCS_F_VPID, m->vpid);
	if (ept) {
		uint64_t cap = m->cap.ept_vpid, p = m->eptp;
		uint32_t mt = EPTP_MEMTYPE(p), walk = EPTP_WALK(p);

		if (!((mt == EPT_MEMTYPE_UC && (cap & EPT_CAP_MEMTYPE_UC)) ||
		      (mt == EPT_MEMTYPE_WB && (cap & EPT_CAP_MEMTYPE_WB))))
			fail2(c, VMCS_RULE_EPTP_MEMTYPE, VMCS_F_EPT_POINTER, p,
			      VMCS_F_IA32_VMX_EPT_VPID_CAP, cap);
		if (!((walk == 3 && (cap & EPT_CAP_WALK_4)) || (walk == 4 && (cap & EPT_CAP_WALK_5))))
			fail2(c, VMCS_RULE_EPTP_WALK, VMCS_F_EPT_POINTER, p,
			      VMCS_F_IA32_VMX_EPT_VPID_CAP, cap);
		if ((p & EPTP_AD) && !(cap & EPT_CAP_AD))
			fail2(c, VMCS_RULE_EPTP_AD, VMCS_F_EPT_POINTER, p,
			      VMCS_F_IA32_VMX_EPT_VPID_CAP, cap);
		if ((p & EPTP_RESERVED) || !in_width(c, p))
			fail(c, VMCS_RULE_EPTP_RESERVED, VMCS_F_EPT_POINTER, p);
	}
	if (p2 & PROC2_ENABLE_PML) {
		if (!ept)
			fail(c, VMCS_RULE_PML_WITHOUT_EPT, VMCS_F_PROC_CONTROLS2, m->proc2);
		if (!page_ok(c, m->pml_addr))
			fail(c, VMCS_RULE_PML_ADDR, VMCS_F_PML_ADDR, m->pml_addr);
	}
	if ((p2 & PROC2_UNRESTRICTED_GUEST) && !ept)
		fail(c, VMCS_RULE_UG_WITHOUT_EPT, VMCS_F_PROC_CONTROLS2, m->proc2);
	if ((p2 & PROC2_MODE_BASED_EPT_EXEC) && !ept)
		fail(c, VMCS_RULE_MBEC_WITHOUT_EPT, VMCS_F_PROC_CONTROLS2, m->proc2);
	if (p2 & PROC2_SUBPAGE_WRITE) {
		if (!ept)
			fail(c, VMCS_RULE_SPP_WITHOUT_EPT, VMCS_F_PROC_CONTROLS2, m->proc2);
		if (!page_ok(c, m->spptp))
			fail(c, VMCS_RULE_SPPTP_ADDR, VMCS_F_SPPTP, m->spptp);
	}
	if (p2 & PROC2_ENABLE_VMFUNC) {
		if (m->vmfunc_controls & ~m->cap.vmfunc)
			fail2(c, VMCS_RULE_VMFUNC_RESERVED, VMCS_F_VMFUNC_CONTROLS,
			      m->vmfunc_controls, VMCS_F_IA32_VMX_VMFUNC, m->cap.vmfunc);
		if (m->vmfunc_controls & VMFUNC_EPTP_SWITCHING) {
			if (!ept)
				fail2(c, VMCS_RULE_EPTP_SWITCHING_WITHOUT_EPT,
				      VMCS_F_VMFUNC_CONTROLS, m->vmfunc_controls,
				      VMCS_F_PROC_CONTROLS2, m->proc2);
			if (!page_ok(c, m->eptp_list))
				fail(c, VMCS_RULE_EPTP_LIST_ADDR, VMCS_F_EPTP_LIST_ADDR,
				     m->eptp_list);
		}
	}
	if (p2 & PROC2_VMCS_SHADOWING) {
		if (!page_ok(c, m->vmread_bitmap))
			fail(c, VMCS_RULE_SHADOW_BITMAP_ADDR, VMCS_F_VMREAD_BITMAP,
			     m->vmread_bitmap);
		if (!page_ok(c, m->vmwrite_bitmap))
			fail(c, VMCS_RULE_SHADOW_BITMAP_ADDR, VMCS_F_VMWRITE_BITMAP,
			     m->vmwrite_bitmap);
	}
	if ((p2 & PROC2_EPT_VIOLATION_VE) && !page_ok(c, m->ve_info))
		fail(c, VMCS_RULE_VE_INFO_ADDR, VMCS_F_VE_INFO_ADDR, m->ve_info);
	/* PT_GPA_CONTROLS: check_steady_with_per_entry (it reads the entry controls) */
}

/* ---- 26.2.1.2 VM-exit control fields ---- */

/* Appendix A.6: IA32_VMX_MISC[27:25] gives the recommended maximum, 512 * (N + 1). */
static void check_msr_count(struct ctx *c, enum vmcs_field f, uint32_t count)
{
	uint32_t max = 512 * ((uint32_t)((c->m->cap.misc >> 25) & 7) + 1);

	if (count > max)
		fail2(c, VMCS_RULE_MSR_LIST_COUNT, f, count, VMCS_F_IA32_VMX_MISC, c->m->cap.misc);
}

/*
 * The MSR-store list's entries, checked before the entry, not at the exit
 * that stores them: there a bad entry is a VMX abort (27.4, 27.7), which
 * stops the logical processor, not one partition. The entries the image
 * holds (msr_store_read, at most VMCS_MSR_STORE_READ; a list in memory
 * the image could not read holds none). An x2APIC MSR (800H-8FFH) is
 * refused whatever the APIC's mode (outside x2APIC mode its RDMSR would
 * #GP, which fails the entry too); IA32_SMBASE cannot be stored outside
 * SMM, nor, on the processors that prevent it for "model-specific
 * reasons", the microcode update MSRs: the strict reading refuses them on
 * every model.
 */
static void check_msr_store_entries(struct ctx *c)
{
	const struct vmcs_image *m = c->m;
	uint32_t n = m->msr_store_read, i;

	if (n > m->exit_msr_store_count)
		n = m->exit_msr_store_count;
	if (n > VMCS_MSR_STORE_READ)
		n = VMCS_MSR_STORE_READ;
	for (i = 0; i < n; i++) {
		uint64_t e = m->msr_store[i];
		uint32_t index = (uint32_t)e;

		if ((e >> 32) || (index >> 8) == 0x8 || index == 0x9e ||
		    index == 0x79 || index == 0x8b)
			fail2(c, VMCS_RULE_EXIT_MSR_STORE_ENTRY, VMCS_F_MSR_STORE_ENTRY, i,
			      VMCS_F_MSR_STORE_INDEX, e);
	}
}

static void check_exit_controls(struct ctx *c)
{
	const struct vmcs_image *m = c->m;
	bool true_ctls = m->cap.basic & VMX_BASIC_TRUE_CTLS;
	uint64_t cap = true_ctls ? m->cap.true_exit : m->cap.exit;

	if (!ctls_ok(m->exit, cap))
		fail2(c, VMCS_RULE_EXIT_RESERVED, VMCS_F_EXIT_CONTROLS, m->exit,
		      true_ctls ? VMCS_F_IA32_VMX_TRUE_EXIT_CTLS : VMCS_F_IA32_VMX_EXIT_CTLS, cap);
	if (!(m->pin & PIN_PREEMPTION_TIMER) && (m->exit & EXIT_SAVE_PREEMPTION_TIMER))
		fail2(c, VMCS_RULE_SAVE_TIMER_WITHOUT_TIMER, VMCS_F_EXIT_CONTROLS, m->exit,
		      VMCS_F_PIN_CONTROLS, m->pin);
	if (!msr_area_ok(c, m->exit_msr_store_addr, m->exit_msr_store_count))
		fail2(c, VMCS_RULE_EXIT_MSR_STORE_ADDR, VMCS_F_EXIT_MSR_STORE_ADDR,
		      m->exit_msr_store_addr, VMCS_F_EXIT_MSR_STORE_COUNT, m->exit_msr_store_count);
	check_msr_count(c, VMCS_F_EXIT_MSR_STORE_COUNT, m->exit_msr_store_count);
	check_msr_store_entries(c);
	if (!msr_area_ok(c, m->exit_msr_load_addr, m->exit_msr_load_count))
		fail2(c, VMCS_RULE_EXIT_MSR_LOAD_ADDR, VMCS_F_EXIT_MSR_LOAD_ADDR,
		      m->exit_msr_load_addr, VMCS_F_EXIT_MSR_LOAD_COUNT, m->exit_msr_load_count);
	check_msr_count(c, VMCS_F_EXIT_MSR_LOAD_COUNT, m->exit_msr_load_count);
}

/* ---- 26.2.1.3 VM-entry control fields ---- */

/*
 * The exceptions that push an error code (SDM Vol. 3A 6.15); #CP (21) only
 * with CET, which no Tempo guest has (see the top of this file).
 */
static bool has_error_code(uint32_t vector)
{
	return vector == 8 || (vector >= 10 && vector <= 14) || vector == 17;
}

static void check_event_injection(struct ctx *c)
{
	const struct vmcs_image *m = c->m;
	uint32_t info = m->entry_intr_info, type = c->intr_type, vector = c->intr_vector;
	bool mtf = (m->cap.procbased >> 32) & PROC_MONITOR_TRAP_FLAG;
	bool code = info & INTR_INFO_DELIVER_CODE;
	/* without unrestricted guest CR0.PE is 1 anyway (26.3.1.1): protected mode */
	bool prot = !c->ug || (m->guest.cr0 & CR0_PE);
	bool want_code;

	if (!c->intr_valid)
		return;
	if (type == INTR_TYPE_RESERVED || (type == INTR_TYPE_OTHER_EVENT && !mtf))
		fail(c, VMCS_RULE_INTR_TYPE, VMCS_F_ENTRY_INTR_INFO, info);
	if ((type == INTR_TYPE_NMI && vector != 2) ||
	    (type == INTR_TYPE_HW_EXCEPTION && vector > 31) ||
	    (type == INTR_TYPE_OTHER_EVENT && vector != 0))
		fail(c, VMCS_RULE_INTR_VECTOR, VMCS_F_ENTRY_INTR_INFO, info);
	/*
	 * With IA32_VMX_BASIC[56] any hardware exception may carry a code; it
	 * must still be a hardware exception in protected mode.
	 */
	want_code = type == INTR_TYPE_HW_EXCEPTION && prot && has_error_code(vector);
	if (m->cap.basic & VMX_BASIC_NO_ERRCODE_CHECK) {
		if (code && !(type == INTR_TYPE_HW_EXCEPTION && prot))
			fail2(c, VMCS_RULE_INTR_ERROR_CODE, VMCS_F_ENTRY_INTR_INFO, info,
			      VMCS_F_GUEST_CR0, m->guest.cr0);
	} else if (code != want_code) {
		fail2(c, VMCS_RULE_INTR_ERROR_CODE, VMCS_F_ENTRY_INTR_INFO, info, VMCS_F_GUEST_CR0,
		      m->guest.cr0);
	}
	if (code && (m->entry_exception_error & 0xffff0000u))
		fail(c, VMCS_RULE_INTR_ERROR_CODE_HIGH, VMCS_F_ENTRY_EXCEPTION_ERROR,
		     m->entry_exception_error);
	if (info & 0x7ffff000u)
		fail(c, VMCS_RULE_INTR_RESERVED, VMCS_F_ENTRY_INTR_INFO, info);
	if ((type == INTR_TYPE_SW_INTR || type == INTR_TYPE_PRIV_SW_EXCEPTION ||
	     type == INTR_TYPE_SW_EXCEPTION) &&
	    (m->entry_instr_len > 15 ||
	     (m->entry_instr_len == 0 && !(m->cap.misc & VMX_MISC_ZERO_LEN_INJECT))))
		fail(c, VMCS_RULE_INTR_INSTR_LEN, VMCS_F_ENTRY_INSTR_LEN, m->entry_instr_len);
}

static void check_entry_controls(struct ctx *c)
{
	const struct vmcs_image *m = c->m;
	bool true_ctls = m->cap.basic & VMX_BASIC_TRUE_CTLS;
	uint64_t cap = true_ctls ? m->cap.true_entry : m->cap.entry;

	if (!ctls_ok(m->entry, cap))
		fail2(c, VMCS_RULE_ENTRY_RESERVED, VMCS_F_ENTRY_CONTROLS, m->entry,
		      true_ctls ? VMCS_F_IA32_VMX_TRUE_ENTRY_CTLS : VMCS_F_IA32_VMX_ENTRY_CTLS, cap);
	if (m->entry & (ENTRY_TO_SMM | ENTRY_DEACT_DUAL_MONITOR))
		fail(c, VMCS_RULE_ENTRY_SMM, VMCS_F_ENTRY_CONTROLS, m->entry);
	check_event_injection(c);
	if (!msr_area_ok(c, m->entry_msr_load_addr, m->entry_msr_load_count))
		fail2(c, VMCS_RULE_ENTRY_MSR_LOAD_ADDR, VMCS_F_ENTRY_MSR_LOAD_ADDR,
		      m->entry_msr_load_addr, VMCS_F_ENTRY_MSR_LOAD_COUNT, m->entry_msr_load_count);
	check_msr_count(c, VMCS_F_ENTRY_MSR_LOAD_COUNT, m->entry_msr_load_count);
}

/* ---- 26.2.2 - 26.2.4 the host-state area ---- */

static void check_host_state(struct ctx *c)
{
	const struct vmcs_image *m = c->m;
	bool host64 = m->exit & EXIT_HOST_ADDR_SPACE_SIZE;
	const struct {
		enum vmcs_field f;
		uint16_t sel;
	} sels[] = {
		{ VMCS_F_HOST_ES_SEL, m->host.es_sel }, { VMCS_F_HOST_CS_SEL, m->host.cs_sel },
		{ VMCS_F_HOST_SS_SEL, m->host.ss_sel }, { VMCS_F_HOST_DS_SEL, m->host.ds_sel },
		{ VMCS_F_HOST_FS_SEL, m->host.fs_sel }, { VMCS_F_HOST_GS_SEL, m->host.gs_sel },
		{ VMCS_F_HOST_TR_SEL, m->host.tr_sel },
	};
	const struct {
		enum vmcs_field f;
		uint64_t base;
	} bases[] = {
		{ VMCS_F_HOST_FS_BASE, m->host.fs_base }, { VMCS_F_HOST_GS_BASE, m->host.gs_base },
		{ VMCS_F_HOST_TR_BASE, m->host.tr_base }, { VMCS_F_HOST_GDTR_BASE, m->host.gdtr_base },
		{ VMCS_F_HOST_IDTR_BASE, m->host.idtr_base },
	};
	bool root_ia32e = m->root_efer & EFER_LMA;

	/* 26.2.2 */
	if (!fixed_ok(m->host.cr0, m->cap.cr0_fixed0, m->cap.cr0_fixed1))
		fail_fixed(c, VMCS_RULE_HOST_CR0_FIXED, VMCS_F_HOST_CR0, m->host.cr0,
			   m->cap.cr0_fixed0, VMCS_F_IA32_VMX_CR0_FIXED0, m->cap.cr0_fixed0,
			   VMCS_F_IA32_VMX_CR0_FIXED1, m->cap.cr0_fixed1);
	if (!fixed_ok(m->host.cr4, m->cap.cr4_fixed0, m->cap.cr4_fixed1))
		fail_fixed(c, VMCS_RULE_HOST_CR4_FIXED, VMCS_F_HOST_CR4, m->host.cr4,
			   m->cap.cr4_fixed0, VMCS_F_IA32_VMX_CR4_FIXED0, m->cap.cr4_fixed0,
			   VMCS_F_IA32_VMX_CR4_FIXED1, m->cap.cr4_fixed1);
	if ((m->host.cr4 & CR4_CET) && !(m->host.cr0 & CR0_WP))
		fail2(c, VMCS_RULE_HOST_CET_WP, VMCS_F_HOST_CR4, m->host.cr4, VMCS_F_HOST_CR0,
		      m->host.cr0);
	if (!in_width(c, m->host.cr3))
		fail(c, VMCS_RULE_HOST_CR3_WIDTH, VMCS_F_HOST_CR3, m->host.cr3);
	if (!canonical(c, m->host.sysenter_esp))
		fail(c, VMCS_RULE_HOST_SYSENTER_CANONICAL, VMCS_F_HOST_SYSENTER_ESP,
		     m->host.sysenter_esp);
	if (!canonical(c, m->host.sysenter_eip))
		fail(c, VMCS_RULE_HOST_SYSENTER_CANONICAL, VMCS_F_HOST_SYSENTER_EIP,
		     m->host.sysenter_eip);
	if ((m->exit & EXIT_LOAD_PAT) && !pat_ok(m->host.pat))
		fail(c, VMCS_RULE_HOST_PAT, VMCS_F_HOST_PAT, m->host.pat);
	if (m->exit & EXIT_LOAD_EFER) {
		if (m->host.efer & EFER_RESERVED)
			fail(c, VMCS_RULE_HOST_EFER_RESERVED, VMCS_F_HOST_EFER, m->host.efer);
		if (!!(m->host.efer & EFER_LMA) != host64 || !!(m->host.efer & EFER_LME) != host64)
			fail2(c, VMCS_RULE_HOST_EFER_LMA, VMCS_F_HOST_EFER, m->host.efer,
			      VMCS_F_EXIT_CONTROLS, m->exit);
	}
	if ((m->exit & EXIT_LOAD_PKRS) && (m->host.pkrs >> 32))
		fail(c, VMCS_RULE_HOST_PKRS, VMCS_F_HOST_PKRS, m->host.pkrs);

	/* 26.2.3 */
	for (unsigned int i = 0; i < sizeof(sels) / sizeof(sels[0]); i++)
		if (sels[i].sel & (SEL_TI | 3))
			fail(c, VMCS_RULE_HOST_SEL_RPL_TI, sels[i].f, sels[i].sel);
	if (m->host.cs_sel == 0)
		fail(c, VMCS_RULE_HOST_CS_NULL, VMCS_F_HOST_CS_SEL, 0);
	if (m->host.tr_sel == 0)
		fail(c, VMCS_RULE_HOST_TR_NULL, VMCS_F_HOST_TR_SEL, 0);
	if (!host64 && m->host.ss_sel == 0)
		fail2(c, VMCS_RULE_HOST_SS_NULL, VMCS_F_HOST_SS_SEL, 0, VMCS_F_EXIT_CONTROLS,
		      m->exit);
	for (unsigned int i = 0; i < sizeof(bases) / sizeof(bases[0]); i++)
		if (!canonical(c, bases[i].base))
			fail(c, VMCS_RULE_HOST_BASE_CANONICAL, bases[i].f, bases[i].base);

	/* 26.2.4 */
	/*
	 * Outside IA-32e mode the SDM also forbids an IA-32e mode guest; with
	 * the 32-bit host it requires, that is host32_ia32e_guest (in
	 * check_steady_with_per_entry), so it is reported once.
	 */
	if (!root_ia32e && host64)
		fail2(c, VMCS_RULE_ROOT_NOT_IA32E, VMCS_F_ROOT_IA32_EFER, m->root_efer,
		      VMCS_F_EXIT_CONTROLS, m->exit);
	if (root_ia32e && !host64)
		fail2(c, VMCS_RULE_ROOT_IA32E_HOST32, VMCS_F_EXIT_CONTROLS, m->exit,
		      VMCS_F_ROOT_IA32_EFER, m->root_efer);
	/* HOST32_IA32E_GUEST: check_steady_with_per_entry (the IA-32e mode guest control) */
	if (!host64) {
		if (m->host.cr4 & CR4_PCIDE)
			fail(c, VMCS_RULE_HOST32_PCIDE, VMCS_F_HOST_CR4, m->host.cr4);
		if (m->host.rip >> 32)
			fail(c, VMCS_RULE_HOST32_RIP, VMCS_F_HOST_RIP, m->host.rip);
	} else {
		if (!(m->host.cr4 & CR4_PAE))
			fail(c, VMCS_RULE_HOST64_PAE, VMCS_F_HOST_CR4, m->host.cr4);
		if (!canonical(c, m->host.rip))
			fail(c, VMCS_RULE_HOST64_RIP, VMCS_F_HOST_RIP, m->host.rip);
	}
}

/*
 * The three control and host rules that also read the per-entry part of
 * the image (struct vmcs_image): they run before every entry, the rest of
 * 26.2 only when the steady part changed.
 */
static void check_steady_with_per_entry(struct ctx *c)
{
	const struct vmcs_image *m = c->m;
	uint32_t p2 = c->proc2;

	/* 26.2.1.1: VTPR, byte 0x80 of the virtual-APIC page, the guest writes */
	if ((m->proc & PROC_TPR_SHADOW) &&
	    !(p2 & (PROC2_VIRT_APIC_ACCESSES | PROC2_VIRT_INTR_DELIVERY)) &&
	    (m->tpr_threshold & 0xf) > (uint32_t)(m->vtpr >> 4))
		fail2(c, VMCS_RULE_TPR_THRESHOLD_VTPR, VMCS_F_TPR_THRESHOLD, m->tpr_threshold,
		      VMCS_F_VTPR, m->vtpr);
	/* 26.2.1.1: Intel PT using guest-physical addresses */
	if ((p2 & PROC2_PT_USES_GPA) &&
	    (!(p2 & PROC2_ENABLE_EPT) || !(m->entry & ENTRY_LOAD_RTIT_CTL) ||
	     !(m->exit & EXIT_CLEAR_RTIT_CTL)))
		fail(c, VMCS_RULE_PT_GPA_CONTROLS, VMCS_F_PROC_CONTROLS2, m->proc2);
	/* 26.2.4: a 32-bit host takes no IA-32e mode guest */
	if (!(m->exit & EXIT_HOST_ADDR_SPACE_SIZE) && c->ia32e)
		fail2(c, VMCS_RULE_HOST32_IA32E_GUEST, VMCS_F_ENTRY_CONTROLS, m->entry,
		      VMCS_F_EXIT_CONTROLS, m->exit);
}

/* ---- 26.3.1.1 guest control registers, debug registers, MSRs ---- */

static void check_guest_regs(struct ctx *c)
{
	const struct vmcs_image *m = c->m;
	uint64_t cr0 = m->guest.cr0, cr4 = m->guest.cr4, efer = m->guest.efer;
	/* CD and NW are never checked: VM entry does not change them (26.3.1.1) */
	uint64_t free0 = CR0_CD | CR0_NW | (c->ug ? CR0_PE | CR0_PG : 0);

	if (!fixed_ok(cr0 & ~free0, m->cap.cr0_fixed0 & ~free0, m->cap.cr0_fixed1 | free0))
		fail_fixed(c, VMCS_RULE_GUEST_CR0_FIXED, VMCS_F_GUEST_CR0, cr0,
			   m->cap.cr0_fixed0 & ~free0, VMCS_F_IA32_VMX_CR0_FIXED0,
			   m->cap.cr0_fixed0, VMCS_F_IA32_VMX_CR0_FIXED1, m->cap.cr0_fixed1);
	if ((cr0 & CR0_PG) && !(cr0 & CR0_PE))
		fail(c, VMCS_RULE_GUEST_PG_WITHOUT_PE, VMCS_F_GUEST_CR0, cr0);
	if (!fixed_ok(cr4, m->cap.cr4_fixed0, m->cap.cr4_fixed1))
		fail_fixed(c, VMCS_RULE_GUEST_CR4_FIXED, VMCS_F_GUEST_CR4, cr4, m->cap.cr4_fixed0,
			   VMCS_F_IA32_VMX_CR4_FIXED0, m->cap.cr4_fixed0,
			   VMCS_F_IA32_VMX_CR4_FIXED1, m->cap.cr4_fixed1);
	if ((cr4 & CR4_CET) && !(cr0 & CR0_WP))
		fail2(c, VMCS_RULE_GUEST_CET_WP, VMCS_F_GUEST_CR4, cr4, VMCS_F_GUEST_CR0, cr0);
	if ((m->entry & ENTRY_LOAD_DEBUG_CONTROLS) && (m->guest.debugctl & DEBUGCTL_RESERVED))
		fail(c, VMCS_RULE_GUEST_DEBUGCTL, VMCS_F_GUEST_DEBUGCTL, m->guest.debugctl);
	if (c->ia32e && (!(cr0 & CR0_PG) || !(cr4 & CR4_PAE)))
		fail2(c, VMCS_RULE_GUEST_IA32E_PAGING, VMCS_F_GUEST_CR0, cr0, VMCS_F_GUEST_CR4,
		      cr4);
	if (!c->ia32e && (cr4 & CR4_PCIDE))
		fail2(c, VMCS_RULE_GUEST_PCIDE, VMCS_F_GUEST_CR4, cr4, VMCS_F_ENTRY_CONTROLS,
		      m->entry);
	if (!in_width(c, m->guest.cr3))
		fail(c, VMCS_RULE_GUEST_CR3_WIDTH, VMCS_F_GUEST_CR3, m->guest.cr3);
	if ((m->entry & ENTRY_LOAD_DEBUG_CONTROLS) && (m->guest.dr7 >> 32))
		fail(c, VMCS_RULE_GUEST_DR7, VMCS_F_GUEST_DR7, m->guest.dr7);
	if (!canonical(c, m->guest.sysenter_esp))
		fail(c, VMCS_RULE_GUEST_SYSENTER_CANONICAL, VMCS_F_GUEST_SYSENTER_ESP,
		     m->guest.sysenter_esp);
	if (!canonical(c, m->guest.sysenter_eip))
		fail(c, VMCS_RULE_GUEST_SYSENTER_CANONICAL, VMCS_F_GUEST_SYSENTER_EIP,
		     m->guest.sysenter_eip);
	if ((m->entry & ENTRY_LOAD_PAT) && !pat_ok(m->guest.pat))
		fail(c, VMCS_RULE_GUEST_PAT, VMCS_F_GUEST_PAT, m->guest.pat);
	if (m->entry & ENTRY_LOAD_EFER) {
		if (efer & EFER_RESERVED)
			fail(c, VMCS_RULE_GUEST_EFER_RESERVED, VMCS_F_GUEST_EFER, efer);
		if (!!(efer & EFER_LMA) != c->ia32e)
			fail2(c, VMCS_RULE_GUEST_EFER_LMA, VMCS_F_GUEST_EFER, efer,
			      VMCS_F_ENTRY_CONTROLS, m->entry);
		if ((cr0 & CR0_PG) && !!(efer & EFER_LME) != !!(efer & EFER_LMA))
			fail2(c, VMCS_RULE_GUEST_EFER_LME, VMCS_F_GUEST_EFER, efer,
			      VMCS_F_GUEST_CR0, cr0);
	}
	if ((m->entry & ENTRY_LOAD_BNDCFGS) &&
	    ((m->guest.bndcfgs & BNDCFGS_RESERVED) || !canonical(c, m->guest.bndcfgs & ~0xfffull)))
		fail(c, VMCS_RULE_GUEST_BNDCFGS, VMCS_F_GUEST_BNDCFGS, m->guest.bndcfgs);
	if ((m->entry & ENTRY_LOAD_PKRS) && (m->guest.pkrs >> 32))
		fail(c, VMCS_RULE_GUEST_PKRS, VMCS_F_GUEST_PKRS, m->guest.pkrs);
}

/* ---- 26.3.1.2 guest segment registers ---- */

static enum vmcs_field seg_field(enum vmcs_field first, unsigned int seg)
{
	return (enum vmcs_field)(first + seg);
}

/* G against the limit: bits 11:0 not all ones need G 0, bits 31:20 not all zeroes G 1. */
static bool granularity_ok(const struct vmcs_segment *s)
{
	if ((s->limit & 0xfff) != 0xfff && (s->ar & AR_G))
		return false;
	if ((s->limit >> 20) && !(s->ar & AR_G))
		return false;
	return true;
}

static void check_v86_segments(struct ctx *c)
{
	const struct vmcs_image *m = c->m;

	for (unsigned int i = VMCS_SEG_ES; i <= VMCS_SEG_GS; i++) {
		const struct vmcs_segment *s = &m->guest.seg[i];

		if (s->base != (uint64_t)s->sel << 4)
			fail2(c, VMCS_RULE_SEG_V86_BASE, seg_field(VMCS_F_GUEST_ES_BASE, i), s->base,
			      seg_field(VMCS_F_GUEST_ES_SEL, i), s->sel);
		if (s->limit != 0xffff)
			fail(c, VMCS_RULE_SEG_V86_LIMIT, seg_field(VMCS_F_GUEST_ES_LIMIT, i),
			     s->limit);
		if (s->ar != 0xf3)
			fail(c, VMCS_RULE_SEG_V86_AR, seg_field(VMCS_F_GUEST_ES_AR, i), s->ar);
	}
}

static void check_cs_ss(struct ctx *c)
{
	const struct vmcs_image *m = c->m;
	const struct vmcs_segment *cs = &m->guest.seg[VMCS_SEG_CS];
	const struct vmcs_segment *ss = &m->guest.seg[VMCS_SEG_SS];
	uint32_t cs_type = AR_TYPE(cs->ar), ss_type = AR_TYPE(ss->ar);
	bool cs_code = cs_type == 9 || cs_type == 11 || cs_type == 13 || cs_type == 15;
	bool ss_usable = !(ss->ar & AR_UNUSABLE);

	if (!cs_code && !(c->ug && cs_type == 3))
		fail(c, VMCS_RULE_SEG_CS_TYPE, VMCS_F_GUEST_CS_AR, cs->ar);
	if (ss_usable && ss_type != 3 && ss_type != 7)
		fail(c, VMCS_RULE_SEG_SS_TYPE, VMCS_F_GUEST_SS_AR, ss->ar);
	if ((cs_type == 3 && AR_DPL(cs->ar) != 0) ||
	    ((cs_type == 9 || cs_type == 11) && AR_DPL(cs->ar) != AR_DPL(ss->ar)) ||
	    ((cs_type == 13 || cs_type == 15) && AR_DPL(cs->ar) > AR_DPL(ss->ar)))
		fail2(c, VMCS_RULE_SEG_CS_DPL, VMCS_F_GUEST_CS_AR, cs->ar, VMCS_F_GUEST_SS_AR,
		      ss->ar);
	if (!c->ug && AR_DPL(ss->ar) != SEL_RPL(ss->sel))
		fail2(c, VMCS_RULE_SEG_SS_DPL_RPL, VMCS_F_GUEST_SS_AR, ss->ar, VMCS_F_GUEST_SS_SEL,
		      ss->sel);
	if ((cs_type == 3 || !(m->guest.cr0 & CR0_PE)) && AR_DPL(ss->ar) != 0)
		fail2(c, VMCS_RULE_SEG_SS_DPL_REAL, VMCS_F_GUEST_SS_AR, ss->ar, VMCS_F_GUEST_CR0,
		      m->guest.cr0);
	if (c->ia32e && (cs->ar & AR_L) && (cs->ar & AR_DB))
		fail(c, VMCS_RULE_SEG_CS_DB, VMCS_F_GUEST_CS_AR, cs->ar);
}

/* CS and the usable data segments: S, P, reserved bits, G (and DS-GS: type, DPL). */
static void check_code_data_ar(struct ctx *c)
{
	const struct vmcs_image *m = c->m;

	for (unsigned int i = VMCS_SEG_ES; i <= VMCS_SEG_GS; i++) {
		const struct vmcs_segment *s = &m->guest.seg[i];
		enum vmcs_field f = seg_field(VMCS_F_GUEST_ES_AR, i);
		uint32_t type = AR_TYPE(s->ar);

		if (i != VMCS_SEG_CS && (s->ar & AR_UNUSABLE))
			continue;
		if (i != VMCS_SEG_CS && i != VMCS_SEG_SS) {
			if (!(type & 1) || ((type & 8) && !(type & 2)))
				fail(c, VMCS_RULE_SEG_DATA_TYPE, f, s->ar);
			if (!c->ug && type <= 11 && AR_DPL(s->ar) < SEL_RPL(s->sel))
				fail2(c, VMCS_RULE_SEG_DATA_DPL, f, s->ar,
				      seg_field(VMCS_F_GUEST_ES_SEL, i), s->sel);
		}
		if (!(s->ar & AR_S))
			fail(c, VMCS_RULE_SEG_S, f, s->ar);
		if (!(s->ar & AR_P))
			fail(c, VMCS_RULE_SEG_P, f, s->ar);
		if (s->ar & AR_RESERVED)
			fail(c, VMCS_RULE_SEG_AR_RESERVED, f, s->ar);
		if (!granularity_ok(s))
			fail2(c, VMCS_RULE_SEG_G, f, s->ar, seg_field(VMCS_F_GUEST_ES_LIMIT, i),
			      s->limit);
	}
}

static void check_tr_ldtr(struct ctx *c)
{
	const struct vmcs_image *m = c->m;
	const struct vmcs_segment *tr = &m->guest.seg[VMCS_SEG_TR];
	const struct vmcs_segment *ldtr = &m->guest.seg[VMCS_SEG_LDTR];
	uint32_t tr_type = AR_TYPE(tr->ar);

	if ((tr_type != 11 && (c->ia32e || tr_type != 3)))
		fail2(c, VMCS_RULE_SEG_TR_TYPE, VMCS_F_GUEST_TR_AR, tr->ar, VMCS_F_ENTRY_CONTROLS,
		      m->entry);
	if (tr->ar & AR_S)
		fail(c, VMCS_RULE_SEG_SYSTEM_S, VMCS_F_GUEST_TR_AR, tr->ar);
	if (!(tr->ar & AR_P))
		fail(c, VMCS_RULE_SEG_P, VMCS_F_GUEST_TR_AR, tr->ar);
	if (tr->ar & AR_RESERVED)
		fail(c, VMCS_RULE_SEG_AR_RESERVED, VMCS_F_GUEST_TR_AR, tr->ar);
	if (!granularity_ok(tr))
		fail2(c, VMCS_RULE_SEG_G, VMCS_F_GUEST_TR_AR, tr->ar, VMCS_F_GUEST_TR_LIMIT,
		      tr->limit);
	if (tr->ar & AR_UNUSABLE)
		fail(c, VMCS_RULE_SEG_TR_UNUSABLE, VMCS_F_GUEST_TR_AR, tr->ar);
	if (ldtr->ar & AR_UNUSABLE)
		return;
	if (AR_TYPE(ldtr->ar) != 2)
		fail(c, VMCS_RULE_SEG_LDTR_TYPE, VMCS_F_GUEST_LDTR_AR, ldtr->ar);
	if (ldtr->ar & AR_S)
		fail(c, VMCS_RULE_SEG_SYSTEM_S, VMCS_F_GUEST_LDTR_AR, ldtr->ar);
	if (!(ldtr->ar & AR_P))
		fail(c, VMCS_RULE_SEG_P, VMCS_F_GUEST_LDTR_AR, ldtr->ar);
	if (ldtr->ar & AR_RESERVED)
		fail(c, VMCS_RULE_SEG_AR_RESERVED, VMCS_F_GUEST_LDTR_AR, ldtr->ar);
	if (!granularity_ok(ldtr))
		fail2(c, VMCS_RULE_SEG_G, VMCS_F_GUEST_LDTR_AR, ldtr->ar, VMCS_F_GUEST_LDTR_LIMIT,
		      ldtr->limit);
}

static void check_guest_segments(struct ctx *c)
{
	const struct vmcs_image *m = c->m;
	const struct vmcs_segment *seg = m->guest.seg;
	bool ldtr_usable = !(seg[VMCS_SEG_LDTR].ar & AR_UNUSABLE);

	/* selectors */
	if (seg[VMCS_SEG_TR].sel & SEL_TI)
		fail(c, VMCS_RULE_SEG_TR_TI, VMCS_F_GUEST_TR_SEL, seg[VMCS_SEG_TR].sel);
	if (ldtr_usable && (seg[VMCS_SEG_LDTR].sel & SEL_TI))
		fail(c, VMCS_RULE_SEG_LDTR_TI, VMCS_F_GUEST_LDTR_SEL, seg[VMCS_SEG_LDTR].sel);
	if (!c->v86 && !c->ug && SEL_RPL(seg[VMCS_SEG_SS].sel) != SEL_RPL(seg[VMCS_SEG_CS].sel))
		fail2(c, VMCS_RULE_SEG_SS_RPL, VMCS_F_GUEST_SS_SEL, seg[VMCS_SEG_SS].sel,
		      VMCS_F_GUEST_CS_SEL, seg[VMCS_SEG_CS].sel);

	/* bases (the virtual-8086 ones with the limits and access rights below) */
	if (!canonical(c, seg[VMCS_SEG_TR].base))
		fail(c, VMCS_RULE_SEG_BASE_CANONICAL, VMCS_F_GUEST_TR_BASE, seg[VMCS_SEG_TR].base);
	if (!canonical(c, seg[VMCS_SEG_FS].base))
		fail(c, VMCS_RULE_SEG_BASE_CANONICAL, VMCS_F_GUEST_FS_BASE, seg[VMCS_SEG_FS].base);
	if (!canonical(c, seg[VMCS_SEG_GS].base))
		fail(c, VMCS_RULE_SEG_BASE_CANONICAL, VMCS_F_GUEST_GS_BASE, seg[VMCS_SEG_GS].base);
	if (ldtr_usable && !canonical(c, seg[VMCS_SEG_LDTR].base))
		fail(c, VMCS_RULE_SEG_BASE_CANONICAL, VMCS_F_GUEST_LDTR_BASE,
		     seg[VMCS_SEG_LDTR].base);
	if (seg[VMCS_SEG_CS].base >> 32)
		fail(c, VMCS_RULE_SEG_BASE_HIGH, VMCS_F_GUEST_CS_BASE, seg[VMCS_SEG_CS].base);
	for (unsigned int i = VMCS_SEG_ES; i <= VMCS_SEG_DS; i++) {
		if (i == VMCS_SEG_CS || (seg[i].ar & AR_UNUSABLE))
			continue;
		if (seg[i].base >> 32)
			fail(c, VMCS_RULE_SEG_BASE_HIGH, seg_field(VMCS_F_GUEST_ES_BASE, i),
			     seg[i].base);
	}

	/* limits and access rights */
	if (c->v86) {
		check_v86_segments(c);
	} else {
		check_cs_ss(c);
		check_code_data_ar(c);
	}
	check_tr_ldtr(c);
}

/* ---- 26.3.1.3 descriptor tables, 26.3.1.4 RIP and RFLAGS ---- */

static void check_guest_dt_rip_rflags(struct ctx *c)
{
	const struct vmcs_image *m = c->m;
	uint64_t rflags = m->guest.rflags;
	bool long64 = c->ia32e && (m->guest.seg[VMCS_SEG_CS].ar & AR_L);

	if (!canonical(c, m->guest.gdtr_base))
		fail(c, VMCS_RULE_DT_BASE_CANONICAL, VMCS_F_GUEST_GDTR_BASE, m->guest.gdtr_base);
	if (!canonical(c, m->guest.idtr_base))
		fail(c, VMCS_RULE_DT_BASE_CANONICAL, VMCS_F_GUEST_IDTR_BASE, m->guest.idtr_base);
	if (m->guest.gdtr_limit >> 16)
		fail(c, VMCS_RULE_DT_LIMIT, VMCS_F_GUEST_GDTR_LIMIT, m->guest.gdtr_limit);
	if (m->guest.idtr_limit >> 16)
		fail(c, VMCS_RULE_DT_LIMIT, VMCS_F_GUEST_IDTR_LIMIT, m->guest.idtr_limit);

	if (!long64 && (m->guest.rip >> 32))
		fail2(c, VMCS_RULE_RIP_HIGH, VMCS_F_GUEST_RIP, m->guest.rip, VMCS_F_GUEST_CS_AR,
		      m->guest.seg[VMCS_SEG_CS].ar);
	if (long64 && !canonical(c, m->guest.rip))
		fail(c, VMCS_RULE_RIP_CANONICAL, VMCS_F_GUEST_RIP, m->guest.rip);
	if ((rflags & RFLAGS_RESERVED) || !(rflags & RFLAGS_FIXED1))
		fail(c, VMCS_RULE_RFLAGS_RESERVED, VMCS_F_GUEST_RFLAGS, rflags);
	if ((rflags & RFLAGS_VM) && (c->ia32e || !(m->guest.cr0 & CR0_PE)))
		fail2(c, VMCS_RULE_RFLAGS_VM, VMCS_F_GUEST_RFLAGS, rflags,
		      c->ia32e ? VMCS_F_ENTRY_CONTROLS : VMCS_F_GUEST_CR0,
		      c->ia32e ? m->entry : m->guest.cr0);
	if (c->intr_valid && c->intr_type == INTR_TYPE_EXT_INTR && !(rflags & RFLAGS_IF))
		fail2(c, VMCS_RULE_RFLAGS_IF_EXTINT, VMCS_F_GUEST_RFLAGS, rflags,
		      VMCS_F_ENTRY_INTR_INFO, m->entry_intr_info);
}

/* ---- 26.3.1.5 non-register state ---- */

/* Whether an injected event of @type and @vector may wake @activity (26.3.1.5). */
static bool event_allowed(uint32_t activity, uint32_t type, uint32_t vector)
{
	switch (activity) {
	case ACTIVITY_ACTIVE:
		return true;
	case ACTIVITY_HLT:
		return type == INTR_TYPE_EXT_INTR || type == INTR_TYPE_NMI ||
		       (type == INTR_TYPE_HW_EXCEPTION && (vector == 1 || vector == 18)) ||
		       (type == INTR_TYPE_OTHER_EVENT && vector == 0);
	case ACTIVITY_SHUTDOWN:
		return type == INTR_TYPE_NMI || (type == INTR_TYPE_HW_EXCEPTION && vector == 18);
	default:
		return false;	/* wait-for-SIPI takes none */
	}
}

static void check_activity(struct ctx *c)
{
	const struct vmcs_image *m = c->m;
	uint32_t act = m->guest.activity, intr = m->guest.interruptibility;
	static const uint64_t offered[4] = {
		0, VMX_MISC_ACTIVITY_HLT, VMX_MISC_ACTIVITY_SHUTDOWN, VMX_MISC_ACTIVITY_WAIT_SIPI,
	};

	if (act > ACTIVITY_WAIT_SIPI || (act != ACTIVITY_ACTIVE && !(m->cap.misc & offered[act])))
		fail2(c, VMCS_RULE_ACTIVITY_VALUE, VMCS_F_GUEST_ACTIVITY_STATE, act,
		      VMCS_F_IA32_VMX_MISC, m->cap.misc);
	if (act == ACTIVITY_HLT && AR_DPL(m->guest.seg[VMCS_SEG_SS].ar) != 0)
		fail2(c, VMCS_RULE_ACTIVITY_HLT_DPL, VMCS_F_GUEST_ACTIVITY_STATE, act,
		      VMCS_F_GUEST_SS_AR, m->guest.seg[VMCS_SEG_SS].ar);
	if (act != ACTIVITY_ACTIVE && (intr & (INTERRUPTIBILITY_STI | INTERRUPTIBILITY_MOV_SS)))
		fail2(c, VMCS_RULE_ACTIVITY_BLOCKING, VMCS_F_GUEST_ACTIVITY_STATE, act,
		      VMCS_F_GUEST_INTERRUPTIBILITY, intr);
	if (c->intr_valid && act <= ACTIVITY_WAIT_SIPI &&
	    !event_allowed(act, c->intr_type, c->intr_vector))
		fail2(c, VMCS_RULE_ACTIVITY_EVENT, VMCS_F_GUEST_ACTIVITY_STATE, act,
		      VMCS_F_ENTRY_INTR_INFO, m->entry_intr_info);
}

static void check_interruptibility(struct ctx *c)
{
	const struct vmcs_image *m = c->m;
	uint32_t intr = m->guest.interruptibility, info = m->entry_intr_info;
	bool sti = intr & INTERRUPTIBILITY_STI, movss = intr & INTERRUPTIBILITY_MOV_SS;
	bool nmi_in = c->intr_valid && c->intr_type == INTR_TYPE_NMI;

	if (intr & ~0x1fu)
		fail(c, VMCS_RULE_INTERRUPTIBILITY_RESERVED, VMCS_F_GUEST_INTERRUPTIBILITY, intr);
	if (sti && movss)
		fail(c, VMCS_RULE_INTERRUPTIBILITY_STI_MOVSS, VMCS_F_GUEST_INTERRUPTIBILITY, intr);
	if (sti && !(m->guest.rflags & RFLAGS_IF))
		fail2(c, VMCS_RULE_INTERRUPTIBILITY_STI_IF, VMCS_F_GUEST_INTERRUPTIBILITY, intr,
		      VMCS_F_GUEST_RFLAGS, m->guest.rflags);
	if (c->intr_valid && c->intr_type == INTR_TYPE_EXT_INTR && (sti || movss))
		fail2(c, VMCS_RULE_INTERRUPTIBILITY_EXTINT, VMCS_F_GUEST_INTERRUPTIBILITY, intr,
		      VMCS_F_ENTRY_INTR_INFO, info);
	if (nmi_in && movss)
		fail2(c, VMCS_RULE_INTERRUPTIBILITY_NMI_MOVSS, VMCS_F_GUEST_INTERRUPTIBILITY, intr,
		      VMCS_F_ENTRY_INTR_INFO, info);
	/* "a processor may require" it: the strict reading, as the processors that do */
	if (nmi_in && sti)
		fail2(c, VMCS_RULE_INTERRUPTIBILITY_NMI_STI, VMCS_F_GUEST_INTERRUPTIBILITY, intr,
		      VMCS_F_ENTRY_INTR_INFO, info);
	if (intr & INTERRUPTIBILITY_SMI)
		fail(c, VMCS_RULE_INTERRUPTIBILITY_SMI, VMCS_F_GUEST_INTERRUPTIBILITY, intr);
	if (nmi_in && (m->pin & PIN_VIRTUAL_NMIS) && (intr & INTERRUPTIBILITY_NMI))
		fail2(c, VMCS_RULE_INTERRUPTIBILITY_VNMI, VMCS_F_GUEST_INTERRUPTIBILITY, intr,
		      VMCS_F_ENTRY_INTR_INFO, info);
	if ((intr & INTERRUPTIBILITY_ENCLAVE) && movss)
		fail(c, VMCS_RULE_INTERRUPTIBILITY_ENCLAVE, VMCS_F_GUEST_INTERRUPTIBILITY, intr);
}

/*
 * The single-step trap a shadow or HLT holds back must be pending exactly
 * when TF (with BTF 0) says it is owed (26.3.1.5). The DEBUGCTL that counts
 * is the guest-state field's: with the debug controls loaded, the one the
 * guest will run with.
 */
static void check_pending_dbg(struct ctx *c)
{
	const struct vmcs_image *m = c->m;
	uint64_t pd = m->guest.pending_dbg, rflags = m->guest.rflags;
	uint32_t intr = m->guest.interruptibility;
	bool held = (intr & (INTERRUPTIBILITY_STI | INTERRUPTIBILITY_MOV_SS)) ||
		    m->guest.activity == ACTIVITY_HLT;
	bool stepping = (rflags & RFLAGS_TF) && !(m->guest.debugctl & DEBUGCTL_BTF);

	if (pd & PENDING_DBG_RESERVED)
		fail(c, VMCS_RULE_PENDING_DBG_RESERVED, VMCS_F_GUEST_PENDING_DBG, pd);
	if (held && stepping && !(pd & PENDING_DBG_BS))
		fail2(c, VMCS_RULE_PENDING_DBG_BS_SET, VMCS_F_GUEST_PENDING_DBG, pd,
		      VMCS_F_GUEST_RFLAGS, rflags);
	if (held && !stepping && (pd & PENDING_DBG_BS))
		fail2(c, VMCS_RULE_PENDING_DBG_BS_CLEAR, VMCS_F_GUEST_PENDING_DBG, pd,
		      VMCS_F_GUEST_RFLAGS, rflags);
	if ((pd & PENDING_DBG_RTM) &&
	    ((pd & 0xfffull) || (pd & 0xe000ull) || !(pd & PENDING_DBG_EB) ||
	     (intr & INTERRUPTIBILITY_MOV_SS)))
		fail2(c, VMCS_RULE_PENDING_DBG_RTM, VMCS_F_GUEST_PENDING_DBG, pd,
		      VMCS_F_GUEST_INTERRUPTIBILITY, intr);
}

static void check_link_ptr(struct ctx *c)
{
	const struct vmcs_image *m = c->m;
	uint64_t p = m->guest.link_ptr;

	if (p == LINK_PTR_NONE)
		return;
	if (!page_ok(c, p))
		fail(c, VMCS_RULE_LINK_PTR_ADDR, VMCS_F_LINK_POINTER, p);
	if (p == m->current_vmcs)
		fail2(c, VMCS_RULE_LINK_PTR_CURRENT, VMCS_F_LINK_POINTER, p, VMCS_F_CURRENT_VMCS,
		      m->current_vmcs);
}

/* ---- 26.3.1.6 PDPTEs: with EPT, VM entry loads PAE paging's from the VMCS ---- */

static void check_pdptes(struct ctx *c)
{
	const struct vmcs_image *m = c->m;

	if (!(c->proc2 & PROC2_ENABLE_EPT) || !(m->guest.cr0 & CR0_PG) ||
	    !(m->guest.cr4 & CR4_PAE) || c->ia32e)
		return;
	for (unsigned int i = 0; i < 4; i++) {
		uint64_t e = m->guest.pdpte[i];

		/* PAE paging's PDPTEs have no XD bit: bit 63 is reserved too */
		if ((e & PDPTE_P) && ((e & PDPTE_RESERVED) || !in_width(c, e)))
			fail(c, VMCS_RULE_PDPTE_RESERVED, seg_field(VMCS_F_GUEST_PDPTE0, i), e);
	}
}

/* @res emptied, and what the checks need besides the image: the controls in force, the mode. */
static void ctx_init(struct ctx *c, const struct vmcs_image *img,
		     struct vmcs_check_result *res)
{
	*c = (struct ctx){ .m = img, .res = res };

	/* only what says how much is kept: zeroing it all would be most of an entry's check */
	res->count = 0;
	for (unsigned int w = 0; w < sizeof(res->rules) / sizeof(res->rules[0]); w++)
		res->rules[w] = 0;
	c->proc2 = (img->proc & PROC_SECONDARY_CONTROLS) ? img->proc2 : 0;
	c->ug = c->proc2 & PROC2_UNRESTRICTED_GUEST;
	c->ia32e = img->entry & ENTRY_IA32E_MODE_GUEST;
	/*
	 * RFLAGS.VM makes a virtual-8086 guest only in protected mode outside
	 * IA-32e mode; elsewhere rflags_vm refuses it, and the segments are
	 * checked as the mode the other fields say.
	 */
	c->v86 = (img->guest.rflags & RFLAGS_VM) && !c->ia32e && (img->guest.cr0 & CR0_PE);
	c->intr_valid = img->entry_intr_info & INTR_INFO_VALID;
	c->intr_type = img->entry_intr_info & INTR_TYPE_MASK;
	c->intr_vector = img->entry_intr_info & INTR_INFO_VECTOR_MASK;
}

/*
 * What the segment checks' verdict depends on besides guest.seg[] and the
 * steady part: IA-32e mode, virtual-8086 mode, CR0.PE (the values the
 * violations print aside).
 */
static uint32_t seg_mode(const struct ctx *c)
{
	return (uint32_t)c->ia32e | (uint32_t)c->v86 << 1 |
	       (uint32_t)!!(c->m->guest.cr0 & CR0_PE) << 2;
}

static uint32_t run_parts(struct ctx *c, uint32_t parts)
{
	if (parts & VMCS_CHECK_STEADY) {
		check_exec_controls(c);
		check_exit_controls(c);
		check_host_state(c);
	}
	if (parts & VMCS_CHECK_REST) {
		check_steady_with_per_entry(c);
		check_entry_controls(c);
	}
	if (parts & VMCS_CHECK_GUEST_REGS)
		check_guest_regs(c);
	if (parts & VMCS_CHECK_SEGMENTS)
		check_guest_segments(c);
	if (parts & VMCS_CHECK_REST) {
		check_guest_dt_rip_rflags(c);
		check_activity(c);
		check_interruptibility(c);
		check_pending_dbg(c);
		check_link_ptr(c);
		check_pdptes(c);
	}
	return c->res->count;
}

uint32_t vmcs_check_parts(const struct vmcs_image *img, struct vmcs_check_result *res,
			  uint32_t parts)
{
	struct ctx c;

	ctx_init(&c, img, res);
	return run_parts(&c, parts);
}

uint32_t vmcs_check_since(const struct vmcs_image *img, struct vmcs_check_result *res,
			  struct vmcs_check_memo *memo, uint32_t same)
{
	struct ctx c;
	uint32_t mode, skip = 0;

	ctx_init(&c, img, res);
	mode = seg_mode(&c);
	skip = same & memo->passed & VMCS_CHECK_STEADY;
	/*
	 * Of the steady part, the guest registers' and segments' rules read
	 * only the capabilities and unrestricted guest: a change elsewhere in
	 * it (an interrupt-window control) leaves their answer as it was.
	 */
	if ((same & VMCS_CHECK_SAME_CAPS) && c.ug == memo->ug) {
		skip |= same & memo->passed & VMCS_CHECK_GUEST_REGS;
		if ((same & memo->passed & VMCS_CHECK_SEGMENTS) && mode == memo->seg_mode)
			skip |= VMCS_CHECK_SEGMENTS;
	}
	memo->passed = run_parts(&c, VMCS_CHECK_ALL & ~skip) ? 0 : VMCS_CHECK_ALL;
	memo->seg_mode = mode;
	memo->ug = c.ug;
	return res->count;
}

uint32_t vmcs_check(const struct vmcs_image *img, struct vmcs_check_result *res)
{
	return vmcs_check_parts(img, res, VMCS_CHECK_ALL);
}
