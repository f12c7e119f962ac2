/* SPDX-License-Identifier: MIT */
/*
 * VMCS images as Tempo builds them (arch/x86/vmx.c: vmx_controls_init,
 * setup_controls, setup_host_state, the three setup_guest_* and
 * vmx_set_interrupt_model), on a CPU whose capability MSRs are those of a
 * recent server part, for tests/unit/test_vmcs_check.c and
 * tests/fuzz/fuzz_vmcs_check.c. Each must pass the checker with no
 * violation; the tests break them one rule at a time.
 */
#ifndef TEMPO_TESTS_VMCS_IMAGES_H
#define TEMPO_TESTS_VMCS_IMAGES_H

#include <stdbool.h>
#include <string.h>

#include "hv/lib/vmcs_check.h"
#include "hv/lib/vmx_ctls.h"

#define IMG_CR0_PE	(1ull << 0)
#define IMG_CR0_ET	(1ull << 4)
#define IMG_CR0_NE	(1ull << 5)
#define IMG_CR0_WP	(1ull << 16)
#define IMG_CR0_PG	(1ull << 31)
#define IMG_CR4_PAE	(1ull << 5)
#define IMG_CR4_PGE	(1ull << 7)
#define IMG_CR4_VMXE	(1ull << 13)
#define IMG_CR4_PCIDE	(1ull << 17)
#define IMG_CR4_CET	(1ull << 23)
#define IMG_EFER_SCE	(1ull << 0)
#define IMG_EFER_LME	(1ull << 8)
#define IMG_EFER_LMA	(1ull << 10)
#define IMG_EFER_NXE	(1ull << 11)
#define IMG_PAT_POWER_ON 0x0007040600070406ull

/* Whether two results agree: count, broken rules and every kept violation. */
static inline int img_results_same(const struct vmcs_check_result *a,
				   const struct vmcs_check_result *b)
{
	uint32_t kept = a->count < VMCS_CHECK_KEPT ? a->count : VMCS_CHECK_KEPT;

	if (a->count != b->count || memcmp(a->rules, b->rules, sizeof(a->rules)) != 0)
		return 0;
	for (uint32_t i = 0; i < kept; i++)
		if (a->v[i].rule != b->v[i].rule || a->v[i].field != b->v[i].field ||
		    a->v[i].value != b->v[i].value || a->v[i].field2 != b->v[i].field2 ||
		    a->v[i].value2 != b->v[i].value2)
			return 0;
	return 1;
}

/* The parts whose inputs (vmcs_check.h) are the same in @a and @b. */
static inline uint32_t img_same_parts(const struct vmcs_image *a, const struct vmcs_image *b)
{
	uint32_t same = 0;
	bool regs = true;

	if (memcmp(a, b, VMCS_IMAGE_STEADY_END) == 0)
		same |= VMCS_CHECK_STEADY;
	if (memcmp(&a->cap, &b->cap, sizeof(a->cap)) == 0)
		same |= VMCS_CHECK_SAME_CAPS;
	if (memcmp(a->guest.seg, b->guest.seg, sizeof(a->guest.seg)) == 0)
		same |= VMCS_CHECK_SEGMENTS;
#define SAME_INPUT(member) regs &= memcmp(&a->member, &b->member, sizeof(a->member)) == 0;
	VMCS_GUEST_REGS_INPUTS(SAME_INPUT)
#undef SAME_INPUT
	if (regs)
		same |= VMCS_CHECK_GUEST_REGS;
	return same;
}

/* Capability MSRs of a server CPU with TRUE controls, EPT (4-level, UC/WB, A/D), 39-bit PAs. */
static inline struct vmcs_caps img_caps(void)
{
	return (struct vmcs_caps){
		.basic = 0x00da040000000004ull,		/* [55] TRUE controls, [56] clear */
		.pinbased = 0x000000ff00000016ull,
		.true_pinbased = 0x000000ff00000016ull,
		.procbased = 0xfff9fffe0401e172ull,	/* CR3-load/store exiting default1 */
		.true_procbased = 0xfff9fffe04006172ull,
		.procbased2 = 0x01ffffff00000000ull,	/* bits 24:0 */
		.exit = 0x3fffffff00036dffull,
		.true_exit = 0x3fffffff00036dfbull,
		.entry = 0x007fffff000011ffull,
		.true_entry = 0x007fffff000011fbull,
		.misc = 0x7004c1e7ull,	/* HLT, shutdown, SIPI; 4 CR3 targets; 512 MSRs; [30] */
		.ept_vpid = 0x00000f0106734141ull,
		.vmfunc = 1,		/* EPTP switching */
		.cr0_fixed0 = 0x80000021ull,
		.cr0_fixed1 = 0xffffffffull,
		.cr4_fixed0 = 0x2000ull,
		.cr4_fixed1 = 0xb767ffull,	/* no UMIP (11), no LA57 (12) */
		.maxphyaddr = 39,
		.linear_bits = 48,
	};
}

static inline void img_segment(struct vmcs_image *m, unsigned int seg, uint16_t sel,
			       uint64_t base, uint32_t limit, uint32_t ar)
{
	m->guest.seg[seg] = (struct vmcs_segment){ .sel = sel, .base = base, .limit = limit,
						   .ar = ar };
}

/* Controls, host state and the guest state every vCPU starts with (the direct interrupt model). */
static inline struct vmcs_image img_common(void)
{
	struct vmcs_image m;

	memset(&m, 0, sizeof(m));
	m.cap = img_caps();
	m.root_efer = IMG_EFER_SCE | IMG_EFER_LME | IMG_EFER_LMA | IMG_EFER_NXE;
	m.current_vmcs = 0x300000;

	/* vmx_controls_init: the required and optional bits over TRUE allowed-0 */
	m.pin = 0x16 | PIN_NMI_EXITING | PIN_PREEMPTION_TIMER | PIN_VIRTUAL_NMIS;
	m.proc = 0x04006172 | PROC_UNCOND_IO_EXITING | PROC_USE_MSR_BITMAPS |
		 PROC_MWAIT_EXITING | PROC_MONITOR_EXITING | PROC_SECONDARY_CONTROLS;
	m.proc2 = PROC2_ENABLE_EPT | PROC2_ENABLE_VPID | PROC2_UNRESTRICTED_GUEST |
		  PROC2_ENABLE_RDTSCP | PROC2_ENABLE_INVPCID | PROC2_ENABLE_XSAVES;
	m.exit = 0x36dfb | EXIT_HOST_ADDR_SPACE_SIZE | EXIT_SAVE_EFER | EXIT_LOAD_EFER |
		 EXIT_SAVE_PAT | EXIT_LOAD_PAT | EXIT_SAVE_DEBUG_CONTROLS;
	m.entry = 0x11fb | ENTRY_LOAD_EFER | ENTRY_LOAD_PAT | ENTRY_LOAD_DEBUG_CONTROLS;
	m.entry &= ~ENTRY_IA32E_MODE_GUEST;
	m.msr_bitmap = 0x2000000;
	m.eptp = 0x2100000 | 6 | (3 << 3);	/* WB, 4-level walk */
	m.vpid = 1;
	/* the step-aside's MSR-store entries, IA32_TSC and IA32_TSC_DEADLINE, in the CPU's exit area */
	m.exit_msr_store_count = 2;
	m.exit_msr_store_addr = 0x1ffff90;
	m.msr_store_read = 2;
	m.msr_store[0] = 0x10;
	m.msr_store[1] = 0x6e0;

	/* setup_host_state */
	m.host.cr0 = 0x80050033;	/* PG AM WP NE ET MP PE */
	m.host.cr3 = 0x1000000;
	m.host.cr4 = IMG_CR4_PAE | IMG_CR4_PGE | IMG_CR4_VMXE;
	m.host.cs_sel = 0x08;
	m.host.ss_sel = m.host.ds_sel = m.host.es_sel = 0x10;
	m.host.tr_sel = 0x18;
	m.host.gs_base = 0x1f00000;
	m.host.tr_base = 0x1e00000;
	m.host.gdtr_base = 0x1e01000;
	m.host.idtr_base = 0x1e02000;
	m.host.pat = IMG_PAT_POWER_ON;
	m.host.efer = m.root_efer;
	m.host.rip = 0x105000;

	/* vmx_vmcs_setup: what every vCPU starts with */
	img_segment(&m, VMCS_SEG_LDTR, 0, 0, 0, 0x10000);	/* unusable */
	img_segment(&m, VMCS_SEG_TR, 0, 0, 0xff, 0x8b);	/* busy 32-bit TSS */
	m.guest.gdtr_limit = 0xffff;
	m.guest.idtr_limit = 0xffff;
	m.guest.dr7 = 0x400;
	m.guest.rflags = 0x2;
	m.guest.activity = ACTIVITY_ACTIVE;
	m.guest.pat = IMG_PAT_POWER_ON;
	m.guest.link_ptr = ~0ull;
	return m;
}

/* The boot vCPU of a multiboot partition: 32-bit protected mode, paging off. */
static inline struct vmcs_image img_protected(void)
{
	struct vmcs_image m = img_common();

	img_segment(&m, VMCS_SEG_CS, 0x08, 0, 0xffffffff, 0xc09b);
	for (unsigned int s = VMCS_SEG_ES; s <= VMCS_SEG_GS; s++)
		if (s != VMCS_SEG_CS)
			img_segment(&m, s, 0x10, 0, 0xffffffff, 0xc093);
	m.guest.rip = 0x100000;
	m.guest.cr0 = IMG_CR0_PE | IMG_CR0_ET | IMG_CR0_NE;	/* vmx_guest_cr0(PE | ET) */
	m.guest.cr4 = IMG_CR4_VMXE;				/* vmx_guest_cr4(0) */
	return m;
}

/* An AP after its SIPI (vector 0x9a): real mode, run by the unrestricted guest control. */
static inline struct vmcs_image img_sipi(void)
{
	struct vmcs_image m = img_common();

	img_segment(&m, VMCS_SEG_CS, 0x9a00, 0x9a000, 0xffff, 0x9b);
	for (unsigned int s = VMCS_SEG_ES; s <= VMCS_SEG_GS; s++)
		if (s != VMCS_SEG_CS)
			img_segment(&m, s, 0, 0, 0xffff, 0x93);
	m.guest.rip = 0;
	m.guest.cr0 = IMG_CR0_ET | IMG_CR0_NE;
	m.guest.cr4 = IMG_CR4_VMXE;
	return m;
}

/* Linux's 64-bit boot protocol: long mode, __BOOT_CS 0x10, __BOOT_DS 0x18. */
static inline struct vmcs_image img_long64(void)
{
	struct vmcs_image m = img_common();

	img_segment(&m, VMCS_SEG_CS, 0x10, 0, 0xffffffff, 0xa09b);	/* L=1, D=0 */
	for (unsigned int s = VMCS_SEG_ES; s <= VMCS_SEG_GS; s++)
		if (s != VMCS_SEG_CS)
			img_segment(&m, s, 0x18, 0, 0xffffffff, 0xc093);
	m.guest.rip = 0x1000000;
	m.guest.cr3 = 0x9000;
	m.guest.cr0 = IMG_CR0_PE | IMG_CR0_ET | IMG_CR0_NE | IMG_CR0_PG;
	m.guest.cr4 = IMG_CR4_PAE | IMG_CR4_VMXE;
	m.guest.efer = IMG_EFER_LME | IMG_EFER_LMA;
	m.entry |= ENTRY_IA32E_MODE_GUEST;
	m.guest.gdtr_base = 0x8000;
	m.guest.gdtr_limit = 0x1f;
	return m;
}

/* The protected-mode vCPU with virtual interrupts: APIC virtualization and posted interrupts. */
static inline struct vmcs_image img_apicv(void)
{
	struct vmcs_image m = img_protected();

	m.pin |= PIN_EXTINT_EXITING | PIN_POSTED_INTR;
	m.exit |= EXIT_ACK_INTR_ON_EXIT;
	m.proc |= PROC_CR8_LOAD_EXITING | PROC_CR8_STORE_EXITING | PROC_TPR_SHADOW;
	m.proc2 |= PROC2_VIRT_INTR_DELIVERY | PROC2_VIRT_X2APIC_MODE;
	m.virtual_apic = 0x2200000;
	m.tpr_threshold = 0;
	m.posted_intr_nv = 0xf2;
	m.posted_intr_desc = 0x2201040;
	return m;
}

/* Not one Tempo builds, for the virtual-8086 rules: a valid virtual-8086 guest. */
static inline struct vmcs_image img_v86(void)
{
	struct vmcs_image m = img_protected();

	for (unsigned int s = VMCS_SEG_ES; s <= VMCS_SEG_GS; s++)
		img_segment(&m, s, (uint16_t)(0x1000 + 0x100 * s), (0x1000ull + 0x100 * s) << 4,
			    0xffff, 0xf3);
	m.guest.rflags = 0x20002;
	m.guest.rip = 0x100;
	return m;
}

#endif
