// SPDX-License-Identifier: MIT
/*
 * Filling a struct vmcs_image from the current VMCS. The fields every entry
 * depends on are read through one table; the ones that exist or matter
 * only under a control are read only when it is set (a VMREAD of a field
 * the CPU does not have fails). A failed VMREAD is reported, not guessed
 * at.
 */
#include "arch/x86/vmcs_image.h"

#include <stdbool.h>
#include <stddef.h>

#include "arch/x86/cpu.h"
#include "arch/x86/msr.h"
#include "arch/x86/vmx_defs.h"

/*
 * The fields every entry depends on, as (encoding, member): read in a
 * straight line (three to six instructions a field, FAST below, where a
 * table walk took fifteen: every entry of a VMCS_CHECK build pays it), and
 * walked one by one only to name the field a failed VMREAD was. The steady
 * part of the image (hv/lib/vmcs_check.h), each compared with what it held
 * as it is read, so that the checker knows whether its steady rules would
 * answer as before (STEADY_FIELDS: read with FAST_STEADY); then the entry
 * controls of the per-entry part that a VM exit leaves alone.
 */
#define STEADY_FIELDS(F)                                                                  \
	F(VMCS_PIN_CONTROLS, pin)                                                         \
	F(VMCS_PROC_CONTROLS, proc)                                                       \
	F(VMCS_CR3_TARGET_COUNT, cr3_target_count)                                        \
	F(VMCS_EXIT_CONTROLS, exit)                                                       \
	F(VMCS_EXIT_MSR_STORE_COUNT, exit_msr_store_count)                                \
	F(VMCS_EXIT_MSR_STORE_ADDR, exit_msr_store_addr)                                  \
	F(VMCS_EXIT_MSR_LOAD_COUNT, exit_msr_load_count)                                  \
	F(VMCS_EXIT_MSR_LOAD_ADDR, exit_msr_load_addr)                                    \
	F(VMCS_HOST_CR0, host.cr0)                                                        \
	F(VMCS_HOST_CR3, host.cr3)                                                        \
	F(VMCS_HOST_CR4, host.cr4)                                                        \
	F(VMCS_HOST_ES_SEL, host.es_sel)                                                  \
	F(VMCS_HOST_CS_SEL, host.cs_sel)                                                  \
	F(VMCS_HOST_SS_SEL, host.ss_sel)                                                  \
	F(VMCS_HOST_DS_SEL, host.ds_sel)                                                  \
	F(VMCS_HOST_FS_SEL, host.fs_sel)                                                  \
	F(VMCS_HOST_GS_SEL, host.gs_sel)                                                  \
	F(VMCS_HOST_TR_SEL, host.tr_sel)                                                  \
	F(VMCS_HOST_FS_BASE, host.fs_base)                                                \
	F(VMCS_HOST_GS_BASE, host.gs_base)                                                \
	F(VMCS_HOST_TR_BASE, host.tr_base)                                                \
	F(VMCS_HOST_GDTR_BASE, host.gdtr_base)                                            \
	F(VMCS_HOST_IDTR_BASE, host.idtr_base)                                            \
	F(VMCS_HOST_SYSENTER_ESP, host.sysenter_esp)                                      \
	F(VMCS_HOST_SYSENTER_EIP, host.sysenter_eip)                                      \
	F(VMCS_HOST_RIP, host.rip)

#define ENTRY_CONTROL_FIELDS(F)                                                           \
	F(VMCS_ENTRY_MSR_LOAD_COUNT, entry_msr_load_count)                                \
	F(VMCS_ENTRY_MSR_LOAD_ADDR, entry_msr_load_addr)                                  \
	F(VMCS_ENTRY_EXCEPTION_ERROR, entry_exception_error)                              \
	F(VMCS_ENTRY_INSTR_LEN, entry_instr_len)

#define SEGMENT_FIELDS(F, i)                                                              \
	F(VMCS_GUEST_ES_SEL + 2 * (i), guest.seg[i].sel)                                  \
	F(VMCS_GUEST_ES_BASE + 2 * (i), guest.seg[i].base)                                \
	F(VMCS_GUEST_ES_LIMIT + 2 * (i), guest.seg[i].limit)                              \
	F(VMCS_GUEST_ES_AR + 2 * (i), guest.seg[i].ar)

/*
 * The guest state a VM exit writes (SDM Vol. 3C 27.3), and the two entry
 * fields it updates: IA-32e mode guest and the valid bit (27.2). In three
 * lists, as the checker's parts read them (hv/lib/vmcs_check.h): what
 * VMCS_CHECK_GUEST_REGS reads (VMCS_GUEST_REGS_INPUTS, but those of
 * GUEST_REGS_OPTIONAL below), the segments, the rest.
 */
#define GUEST_REGS_FIELDS(F)                                                              \
	F(VMCS_ENTRY_CONTROLS, entry)                                                     \
	F(VMCS_GUEST_CR0, guest.cr0)                                                      \
	F(VMCS_GUEST_CR3, guest.cr3)                                                      \
	F(VMCS_GUEST_CR4, guest.cr4)                                                      \
	F(VMCS_GUEST_DR7, guest.dr7)                                                      \
	F(VMCS_GUEST_DEBUGCTL, guest.debugctl)                                            \
	F(VMCS_GUEST_SYSENTER_ESP, guest.sysenter_esp)                                    \
	F(VMCS_GUEST_SYSENTER_EIP, guest.sysenter_eip)

/*
 * GUEST_REGS_FIELDS and GUEST_REGS_OPTIONAL (read only under their entry
 * control, read_guest_optional) are VMCS_GUEST_REGS_INPUTS (hv/lib/vmcs_check.h), the members
 * whose change the checker's guest-register rules need to see: the two
 * lists are checked to name the same members (their count, the sums of
 * their offsets and of their squares), so that one cannot grow alone.
 */
#define GUEST_REGS_OPTIONAL(F)                                                            \
	F(ENTRY_LOAD_PAT, VMCS_GUEST_PAT, guest.pat)                                      \
	F(ENTRY_LOAD_EFER, VMCS_GUEST_EFER, guest.efer)                                   \
	F(ENTRY_LOAD_BNDCFGS, VMCS_GUEST_BNDCFGS, guest.bndcfgs)                          \
	F(ENTRY_LOAD_PKRS, VMCS_GUEST_PKRS, guest.pkrs)

#define INPUT_ONE(member) +1
#define INPUT_OFFSET(member) +offsetof(struct vmcs_image, member)
#define INPUT_SQUARE(member)                                                              \
	+offsetof(struct vmcs_image, member) * offsetof(struct vmcs_image, member)
#define FIELD_ONE(enc, member) INPUT_ONE(member)
#define FIELD_OFFSET(enc, member) INPUT_OFFSET(member)
#define FIELD_SQUARE(enc, member) INPUT_SQUARE(member)
#define OPTIONAL_ONE(ctl, enc, member) INPUT_ONE(member)
#define OPTIONAL_OFFSET(ctl, enc, member) INPUT_OFFSET(member)
#define OPTIONAL_SQUARE(ctl, enc, member) INPUT_SQUARE(member)
#define SAME_SUM(IN, F, OPT)                                                              \
	((0 VMCS_GUEST_REGS_INPUTS(IN)) == (0 GUEST_REGS_FIELDS(F) GUEST_REGS_OPTIONAL(OPT)))
_Static_assert(SAME_SUM(INPUT_ONE, FIELD_ONE, OPTIONAL_ONE) &&
		       SAME_SUM(INPUT_OFFSET, FIELD_OFFSET, OPTIONAL_OFFSET) &&
		       SAME_SUM(INPUT_SQUARE, FIELD_SQUARE, OPTIONAL_SQUARE),
	       "vmcs_image.c's guest-register fields are not VMCS_GUEST_REGS_INPUTS");

#define GUEST_SEGMENT_FIELDS(F)                                                           \
	SEGMENT_FIELDS(F, VMCS_SEG_ES)                                                    \
	SEGMENT_FIELDS(F, VMCS_SEG_CS)                                                    \
	SEGMENT_FIELDS(F, VMCS_SEG_SS)                                                    \
	SEGMENT_FIELDS(F, VMCS_SEG_DS)                                                    \
	SEGMENT_FIELDS(F, VMCS_SEG_FS)                                                    \
	SEGMENT_FIELDS(F, VMCS_SEG_GS)                                                    \
	SEGMENT_FIELDS(F, VMCS_SEG_LDTR)                                                  \
	SEGMENT_FIELDS(F, VMCS_SEG_TR)

#define GUEST_REST_FIELDS(F)                                                              \
	F(VMCS_ENTRY_INTR_INFO, entry_intr_info)                                          \
	F(VMCS_GUEST_RIP, guest.rip)                                                      \
	F(VMCS_GUEST_RFLAGS, guest.rflags)                                                \
	F(VMCS_GUEST_GDTR_BASE, guest.gdtr_base)                                          \
	F(VMCS_GUEST_GDTR_LIMIT, guest.gdtr_limit)                                        \
	F(VMCS_GUEST_IDTR_BASE, guest.idtr_base)                                          \
	F(VMCS_GUEST_IDTR_LIMIT, guest.idtr_limit)                                        \
	F(VMCS_GUEST_ACTIVITY_STATE, guest.activity)                                      \
	F(VMCS_GUEST_INTERRUPTIBILITY, guest.interruptibility)                            \
	F(VMCS_GUEST_PENDING_DBG, guest.pending_dbg)                                      \
	F(VMCS_LINK_POINTER, guest.link_ptr)

struct reader {
	struct vmcs_image *img;
	uint8_t failed;		/* a VMREAD failed (VMfailInvalid or VMfailValid) */
	uint32_t refused;	/* the first encoding VMREAD refused, or VMCS_IMAGE_ALL_READ */
	/*
	 * Nonzero once a field read differs from what the image held: one of
	 * the steady part, of VMCS_GUEST_REGS_INPUTS, of the segments.
	 */
	uint64_t steady_diff, regs_diff, seg_diff;
};

/* VMREAD @encoding; 0 and noted if the CPU refuses it. */
static inline uint64_t field(struct reader *r, uint32_t encoding)
{
	uint64_t v = 0;
	uint8_t fail;

	asm volatile("vmread %2, %0; setna %1" : "+r"(v), "=qm"(fail) : "r"((uint64_t)encoding)
		     : "cc");
	r->failed |= fail;
	return v;
}

#define READ_FIELD(enc, member) r->img->member = (__typeof__(r->img->member))field(r, (enc));

/* @value into @member, noting a change in @diff (two instructions more). */
#define SET_TRACKED(r, diff, member, value)                                               \
	do {                                                                              \
		__typeof__((r)->img->member) v_ = (__typeof__((r)->img->member))(value);  \
		(r)->diff |= (uint64_t)((r)->img->member ^ v_);                           \
		(r)->img->member = v_;                                                    \
	} while (0)
#define SET_STEADY(r, member, value) SET_TRACKED(r, steady_diff, member, value)

/* The slow path, after a failure: which field it was. */
#define FIND_REFUSED(enc, member)                                                         \
	if (r->refused == VMCS_IMAGE_ALL_READ) {                                          \
		r->failed = 0;                                                            \
		(void)field(r, (enc));                                                    \
		if (r->failed)                                                            \
			r->refused = (enc);                                               \
	}

/*
 * The straight line's VMREAD: a refusal (CF or ZF set) jumps to the
 * function's label `refused`, which reads every field again the slow way
 * (field, above) to name it. Three instructions a field fewer than field:
 * no zeroed output, no flag saved per field and ORed at the end. Volatile
 * though an asm goto is so already: GCC before 14 forgets it for one with
 * outputs (its bug 113921), and the VMREADs must stay where they are.
 */
#define FAST(enc, out)                                                                    \
	asm volatile goto("vmread %1, %0; jna %l[refused]" : "=r"(out)                    \
			  : "r"((uint64_t)(enc)) : "cc" : refused)
#define FAST_FIELD(enc, member)                                                           \
	{                                                                                 \
		uint64_t v_;                                                              \
		FAST(enc, v_);                                                            \
		m->member = (__typeof__(m->member))v_;                                    \
	}
/*
 * Into @member of the function's image m, ORing what changed into the
 * function's local @diff (a register: no store a field). The empty asm
 * makes the OR happen here: otherwise GCC sinks every field's XOR past the
 * VMREADs after it (they may jump away) and spills them, 15 instructions
 * a field where this takes 7.
 */
#define FAST_TRACKED(enc, member, diff)                                                   \
	{                                                                                 \
		uint64_t w_;                                                              \
		__typeof__(m->member) v_;                                                 \
		FAST(enc, w_);                                                            \
		v_ = (__typeof__(m->member))w_;                                           \
		(diff) |= (uint64_t)(m->member ^ v_);                                     \
		asm("" : "+r"(diff));                                                     \
		m->member = v_;                                                           \
	}
/* a steady field: one vmwrite() counts (else a write to it would go unread) */
#define ASSERT_COUNTED(enc)                                                               \
	_Static_assert(VMCS_FIELD_STEADY(enc), #enc " is not a field vmwrite() counts")
#define FAST_STEADY(enc, member)                                                          \
	{                                                                                 \
		ASSERT_COUNTED(enc);                                                      \
		FAST_TRACKED(enc, member, steady)                                         \
	}
#define FAST_REGS(enc, member) FAST_TRACKED(enc, member, regs)
#define FAST_SEG(enc, member) FAST_TRACKED(enc, member, seg)

static void read_steady(struct reader *r)
{
	struct vmcs_image *m = r->img;
	uint64_t steady = 0;

	STEADY_FIELDS(FAST_STEADY)
	r->steady_diff |= steady;
	return;
refused:
	/* the image is not the VMCS: the entry is reported, not checked */
	r->steady_diff = 1;
	STEADY_FIELDS(READ_FIELD)
	STEADY_FIELDS(FIND_REFUSED)
}

static void read_entry_controls(struct reader *r)
{
	struct vmcs_image *m = r->img;

	ENTRY_CONTROL_FIELDS(FAST_FIELD)
	return;
refused:
	ENTRY_CONTROL_FIELDS(READ_FIELD)
	ENTRY_CONTROL_FIELDS(FIND_REFUSED)
}

static void read_guest(struct reader *r)
{
	struct vmcs_image *m = r->img;
	uint64_t regs = 0, seg = 0;

	GUEST_REGS_FIELDS(FAST_REGS)
	GUEST_SEGMENT_FIELDS(FAST_SEG)
	GUEST_REST_FIELDS(FAST_FIELD)
	r->regs_diff |= regs;
	r->seg_diff |= seg;
	return;
refused:
	r->regs_diff = r->seg_diff = 1;
	GUEST_REGS_FIELDS(READ_FIELD)
	GUEST_SEGMENT_FIELDS(READ_FIELD)
	GUEST_REST_FIELDS(READ_FIELD)
	GUEST_REGS_FIELDS(FIND_REFUSED)
	GUEST_SEGMENT_FIELDS(FIND_REFUSED)
	GUEST_REST_FIELDS(FIND_REFUSED)
}

/* A field read on its own (under a control): named at once if refused. */
static uint64_t field_named(struct reader *r, uint32_t encoding)
{
	struct reader one = { .img = r->img, .refused = VMCS_IMAGE_ALL_READ };
	uint64_t v = field(&one, encoding);

	if (one.failed && r->refused == VMCS_IMAGE_ALL_READ)
		r->refused = encoding;
	return v;
}

/* The guest fields that exist or are checked only under a control. */
static void read_guest_optional(struct reader *r)
{
	struct vmcs_image *m = r->img;
	uint32_t proc2 = (m->proc & PROC_SECONDARY_CONTROLS) ? m->proc2 : 0;

#define READ_UNDER(ctl, enc, member)                                                      \
	if (m->entry & (ctl))                                                             \
		SET_TRACKED(r, regs_diff, member, field_named(r, (enc)));
	GUEST_REGS_OPTIONAL(READ_UNDER)
#undef READ_UNDER
	/* PAE paging under EPT: VM entry loads the PDPTEs from these (26.3.1.6) */
	if ((proc2 & PROC2_ENABLE_EPT) && (m->guest.cr0 & (1ull << 31)) &&
	    (m->guest.cr4 & (1ull << 5)) && !(m->entry & ENTRY_IA32E_MODE_GUEST))
		for (unsigned int i = 0; i < 4; i++)
			m->guest.pdpte[i] = field_named(r, VMCS_GUEST_PDPTE0 + 2 * i);
}

/*
 * VTPR, for the one control check that reads memory (the guest writes it:
 * read at every entry): only a page-aligned address below 4 GiB, which the
 * boot tables map one to one; elsewhere 0xff, which passes (the address
 * itself is checked).
 */
static void read_vtpr(struct vmcs_image *m)
{
	uint32_t proc2 = (m->proc & PROC_SECONDARY_CONTROLS) ? m->proc2 : 0;

	m->vtpr = 0xff;
	if ((m->proc & PROC_TPR_SHADOW) &&
	    !(proc2 & (PROC2_VIRT_APIC_ACCESSES | PROC2_VIRT_INTR_DELIVERY)) &&
	    !(m->virtual_apic & 0xfff) && m->virtual_apic < (1ull << 32))
		m->vtpr = *(volatile uint8_t *)(uintptr_t)(m->virtual_apic + 0x80);
}

/*
 * The control fields that exist or are checked only under a control (the
 * steady part: each noted if it changed, each one vmwrite() counts).
 */
#define STEADY_NAMED(r, enc)                                                              \
	({                                                                                \
		ASSERT_COUNTED(enc);                                                      \
		field_named((r), (enc));                                                  \
	})
static void read_steady_optional(struct reader *r)
{
	struct vmcs_image *m = r->img;
	uint32_t proc2;

	if (m->proc & PROC_SECONDARY_CONTROLS)
		SET_STEADY(r, proc2, STEADY_NAMED(r, VMCS_PROC_CONTROLS2));
	proc2 = (m->proc & PROC_SECONDARY_CONTROLS) ? m->proc2 : 0;
	if (m->proc & PROC_USE_IO_BITMAPS) {
		SET_STEADY(r, io_bitmap_a, STEADY_NAMED(r, VMCS_IO_BITMAP_A));
		SET_STEADY(r, io_bitmap_b, STEADY_NAMED(r, VMCS_IO_BITMAP_B));
	}
	if (m->proc & PROC_USE_MSR_BITMAPS)
		SET_STEADY(r, msr_bitmap, STEADY_NAMED(r, VMCS_MSR_BITMAP));
	if (m->proc & PROC_TPR_SHADOW) {
		SET_STEADY(r, virtual_apic, STEADY_NAMED(r, VMCS_VIRTUAL_APIC_ADDR));
		SET_STEADY(r, tpr_threshold, STEADY_NAMED(r, VMCS_TPR_THRESHOLD));
	}
	if (proc2 & PROC2_VIRT_APIC_ACCESSES)
		SET_STEADY(r, apic_access, STEADY_NAMED(r, VMCS_APIC_ACCESS_ADDR));
	if (m->pin & PIN_POSTED_INTR) {
		SET_STEADY(r, posted_intr_nv, STEADY_NAMED(r, VMCS_POSTED_INTR_NV));
		SET_STEADY(r, posted_intr_desc, STEADY_NAMED(r, VMCS_POSTED_INTR_DESC));
	}
	if (proc2 & PROC2_ENABLE_VPID)
		SET_STEADY(r, vpid, STEADY_NAMED(r, VMCS_VPID));
	if (proc2 & PROC2_ENABLE_EPT)
		SET_STEADY(r, eptp, STEADY_NAMED(r, VMCS_EPT_POINTER));
	if (proc2 & PROC2_ENABLE_PML)
		SET_STEADY(r, pml_addr, STEADY_NAMED(r, VMCS_PML_ADDR));
	if (proc2 & PROC2_ENABLE_VMFUNC) {
		SET_STEADY(r, vmfunc_controls, STEADY_NAMED(r, VMCS_VMFUNC_CONTROLS));
		if (m->vmfunc_controls & VMFUNC_EPTP_SWITCHING)
			SET_STEADY(r, eptp_list, STEADY_NAMED(r, VMCS_EPTP_LIST_ADDR));
	}
	if (proc2 & PROC2_VMCS_SHADOWING) {
		SET_STEADY(r, vmread_bitmap, STEADY_NAMED(r, VMCS_VMREAD_BITMAP));
		SET_STEADY(r, vmwrite_bitmap, STEADY_NAMED(r, VMCS_VMWRITE_BITMAP));
	}
	if (proc2 & PROC2_EPT_VIOLATION_VE)
		SET_STEADY(r, ve_info, STEADY_NAMED(r, VMCS_VE_INFO_ADDR));
	if (proc2 & PROC2_SUBPAGE_WRITE)
		SET_STEADY(r, spptp, STEADY_NAMED(r, VMCS_SPPTP));
	if (m->exit & EXIT_LOAD_PAT)
		SET_STEADY(r, host.pat, STEADY_NAMED(r, VMCS_HOST_PAT));
	if (m->exit & EXIT_LOAD_EFER)
		SET_STEADY(r, host.efer, STEADY_NAMED(r, VMCS_HOST_EFER));
	if (m->exit & EXIT_LOAD_PKRS)
		SET_STEADY(r, host.pkrs, STEADY_NAMED(r, VMCS_HOST_PKRS));
}

/*
 * The parts (VMCS_CHECK_*) whose inputs @r read back unchanged; the
 * capabilities are the image's since its first check (vmx_check.c).
 */
static uint32_t same_parts(const struct reader *r)
{
	return VMCS_CHECK_SAME_CAPS | (r->steady_diff ? 0 : VMCS_CHECK_STEADY) |
	       (r->regs_diff ? 0 : VMCS_CHECK_GUEST_REGS) |
	       (r->seg_diff ? 0 : VMCS_CHECK_SEGMENTS);
}

uint32_t vmcs_image_read_guest(struct vmcs_image *img, uint32_t *same)
{
	struct reader r = { .img = img, .refused = VMCS_IMAGE_ALL_READ };

	read_guest(&r);
	read_guest_optional(&r);
	*same = same_parts(&r);
	return r.refused;
}

/*
 * The MSR-store list's first entries, for the rule the exit would check
 * (27.4): only a 16-byte-aligned list that ends below 4 GiB, which the boot
 * tables map one to one (Tempo's is in the CPU's exit area); elsewhere
 * none is read (the list's address is checked itself).
 */
static void read_msr_store(struct reader *r)
{
	struct vmcs_image *m = r->img;
	uint32_t n = m->exit_msr_store_count, i;

	if (n > VMCS_MSR_STORE_READ)
		n = VMCS_MSR_STORE_READ;
	if (!n || (m->exit_msr_store_addr & 0xf) ||
	    m->exit_msr_store_addr > (1ull << 32) - 16ull * n)
		n = 0;
	for (i = 0; i < n; i++)
		SET_STEADY(r, msr_store[i],
			   *(volatile uint64_t *)(uintptr_t)(m->exit_msr_store_addr + 16ull * i));
	SET_STEADY(r, msr_store_read, n);
}

uint32_t vmcs_image_read(struct vmcs_image *img, uint32_t *same, bool steady)
{
	struct reader r = { .img = img, .refused = VMCS_IMAGE_ALL_READ };
	uint64_t vmcs_pa;

	/*
	 * another VMCS than the image's: its steady part too; and with VM
	 * functions on, whose EPTP switching writes the EPT pointer
	 * (arch/x86/vmx.h)
	 */
	asm volatile("vmptrst %0" : "=m"(vmcs_pa) : : "memory");
	SET_STEADY(&r, current_vmcs, vmcs_pa);
	if (steady || r.steady_diff ||
	    ((img->proc & PROC_SECONDARY_CONTROLS) && (img->proc2 & PROC2_ENABLE_VMFUNC))) {
		read_steady(&r);
		read_steady_optional(&r);
	}
	read_entry_controls(&r);
	read_vtpr(img);
	read_guest(&r);
	read_guest_optional(&r);
	SET_STEADY(&r, root_efer, rdmsr(MSR_IA32_EFER));
	read_msr_store(&r);
	*same = same_parts(&r);
	return r.refused;
}

/* An MSR the CPU may not have, as 0 when it does not. */
static uint64_t rdmsr_or_0(uint32_t msr)
{
	uint64_t v;

	return rdmsr_safe(msr, &v) ? v : 0;
}

void vmcs_image_caps(struct vmcs_caps *c)
{
	struct cpuid_regs widths = { 0 };

	*c = (struct vmcs_caps){ 0 };
	c->basic = rdmsr(MSR_IA32_VMX_BASIC);
	c->pinbased = rdmsr(MSR_IA32_VMX_PINBASED_CTLS);
	c->procbased = rdmsr(MSR_IA32_VMX_PROCBASED_CTLS);
	c->exit = rdmsr(MSR_IA32_VMX_EXIT_CTLS);
	c->entry = rdmsr(MSR_IA32_VMX_ENTRY_CTLS);
	c->misc = rdmsr(MSR_IA32_VMX_MISC);
	c->cr0_fixed0 = rdmsr(MSR_IA32_VMX_CR0_FIXED0);
	c->cr0_fixed1 = rdmsr(MSR_IA32_VMX_CR0_FIXED1);
	c->cr4_fixed0 = rdmsr(MSR_IA32_VMX_CR4_FIXED0);
	c->cr4_fixed1 = rdmsr(MSR_IA32_VMX_CR4_FIXED1);
	/* each exists only where the one before says so (SDM Vol. 3D A.1, A.3.3, A.10, A.11) */
	if (c->basic & VMX_BASIC_TRUE_CTLS) {
		c->true_pinbased = rdmsr_or_0(MSR_IA32_VMX_TRUE_PINBASED_CTLS);
		c->true_procbased = rdmsr_or_0(MSR_IA32_VMX_TRUE_PROCBASED_CTLS);
		c->true_exit = rdmsr_or_0(MSR_IA32_VMX_TRUE_EXIT_CTLS);
		c->true_entry = rdmsr_or_0(MSR_IA32_VMX_TRUE_ENTRY_CTLS);
	}
	if ((c->procbased >> 32) & PROC_SECONDARY_CONTROLS)
		c->procbased2 = rdmsr_or_0(MSR_IA32_VMX_PROCBASED_CTLS2);
	if ((c->procbased2 >> 32) & (PROC2_ENABLE_EPT | PROC2_ENABLE_VPID))
		c->ept_vpid = rdmsr_or_0(MSR_IA32_VMX_EPT_VPID_CAP);
	if ((c->procbased2 >> 32) & PROC2_ENABLE_VMFUNC)
		c->vmfunc = rdmsr_or_0(MSR_IA32_VMX_VMFUNC);
	if (cpuid(0x80000000, 0).eax >= 0x80000008)
		widths = cpuid(0x80000008, 0);
	c->maxphyaddr = widths.eax ? (uint8_t)widths.eax : 36;
	c->linear_bits = widths.eax ? (uint8_t)(widths.eax >> 8) : 48;
}
