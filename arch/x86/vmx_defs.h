/* SPDX-License-Identifier: MIT */
/*
 * VMX architecture constants, each named once: VMCS field encodings (SDM Vol.
 * 3D Appendix B), exit reasons (Appendix C) and VM-instruction errors (Vol.
 * 3C 31.4). The control bits are in hv/lib/vmx_ctls.h, where the VMCS
 * checker (hv/lib/vmcs_check.c) can read them too.
 */
#ifndef TEMPO_ARCH_X86_VMX_DEFS_H
#define TEMPO_ARCH_X86_VMX_DEFS_H

/* the control bits, interruption information and activity states */
#include "hv/lib/vmx_ctls.h"

/* 16-bit fields */
#define VMCS_VPID			0x0000
#define VMCS_POSTED_INTR_NV		0x0002	/* the notification vector */
#define VMCS_GUEST_ES_SEL		0x0800
#define VMCS_GUEST_CS_SEL		0x0802
#define VMCS_GUEST_SS_SEL		0x0804
#define VMCS_GUEST_DS_SEL		0x0806
#define VMCS_GUEST_FS_SEL		0x0808
#define VMCS_GUEST_GS_SEL		0x080a
#define VMCS_GUEST_LDTR_SEL		0x080c
#define VMCS_GUEST_TR_SEL		0x080e
#define VMCS_GUEST_INTR_STATUS		0x0810	/* RVI in 7:0, SVI in 15:8 */
#define VMCS_HOST_ES_SEL		0x0c00
#define VMCS_HOST_CS_SEL		0x0c02
#define VMCS_HOST_SS_SEL		0x0c04
#define VMCS_HOST_DS_SEL		0x0c06
#define VMCS_HOST_FS_SEL		0x0c08
#define VMCS_HOST_GS_SEL		0x0c0a
#define VMCS_HOST_TR_SEL		0x0c0c

/* 64-bit fields */
#define VMCS_IO_BITMAP_A		0x2000
#define VMCS_IO_BITMAP_B		0x2002
#define VMCS_MSR_BITMAP			0x2004
#define VMCS_EXIT_MSR_STORE_ADDR	0x2006
#define VMCS_EXIT_MSR_LOAD_ADDR		0x2008
#define VMCS_ENTRY_MSR_LOAD_ADDR	0x200a
#define VMCS_PML_ADDR			0x200e
#define VMCS_TSC_OFFSET			0x2010
#define VMCS_VIRTUAL_APIC_ADDR		0x2012
#define VMCS_APIC_ACCESS_ADDR		0x2014
#define VMCS_POSTED_INTR_DESC		0x2016	/* the descriptor, 64-byte aligned */
#define VMCS_VMFUNC_CONTROLS		0x2018
#define VMCS_EOI_EXIT_BITMAP0		0x201c	/* 0x201c, 0x201e, 0x2020, 0x2022 */
#define VMCS_EPT_POINTER		0x201a
#define VMCS_EPTP_LIST_ADDR		0x2024
#define VMCS_VMREAD_BITMAP		0x2026
#define VMCS_VMWRITE_BITMAP		0x2028
#define VMCS_VE_INFO_ADDR		0x202a
#define VMCS_XSS_EXIT_BITMAP		0x202c	/* with PROC2_ENABLE_XSAVES */
#define VMCS_SPPTP			0x2030
#define VMCS_GUEST_PHYS_ADDR		0x2400
#define VMCS_LINK_POINTER		0x2800
#define VMCS_GUEST_DEBUGCTL		0x2802
#define VMCS_GUEST_PAT			0x2804
#define VMCS_GUEST_EFER			0x2806
#define VMCS_GUEST_PDPTE0		0x280a	/* 0x280a, 0x280c, 0x280e, 0x2810 */
#define VMCS_GUEST_BNDCFGS		0x2812
#define VMCS_GUEST_PKRS			0x2818
#define VMCS_HOST_PAT			0x2c00
#define VMCS_HOST_EFER			0x2c02
#define VMCS_HOST_PKRS			0x2c06

/* 32-bit fields */
#define VMCS_PIN_CONTROLS		0x4000
#define VMCS_PROC_CONTROLS		0x4002
#define VMCS_EXCEPTION_BITMAP		0x4004
#define VMCS_PF_ERROR_MASK		0x4006
#define VMCS_PF_ERROR_MATCH		0x4008
#define VMCS_CR3_TARGET_COUNT		0x400a
#define VMCS_EXIT_CONTROLS		0x400c
#define VMCS_EXIT_MSR_STORE_COUNT	0x400e
#define VMCS_EXIT_MSR_LOAD_COUNT	0x4010
#define VMCS_ENTRY_CONTROLS		0x4012
#define VMCS_ENTRY_MSR_LOAD_COUNT	0x4014
#define VMCS_ENTRY_INTR_INFO		0x4016
#define VMCS_ENTRY_EXCEPTION_ERROR	0x4018
#define VMCS_ENTRY_INSTR_LEN		0x401a
#define VMCS_TPR_THRESHOLD		0x401c
#define VMCS_PROC_CONTROLS2		0x401e
#define VMCS_INSTR_ERROR		0x4400
#define VMCS_EXIT_REASON		0x4402
#define VMCS_EXIT_INTR_INFO		0x4404
#define VMCS_EXIT_INTR_ERROR		0x4406
#define VMCS_IDT_VECTORING_INFO		0x4408
#define VMCS_IDT_VECTORING_ERROR	0x440a
#define VMCS_EXIT_INSTR_LEN		0x440c
#define VMCS_EXIT_INSTR_INFO		0x440e
#define VMCS_GUEST_ES_LIMIT		0x4800
#define VMCS_GUEST_CS_LIMIT		0x4802
#define VMCS_GUEST_SS_LIMIT		0x4804
#define VMCS_GUEST_DS_LIMIT		0x4806
#define VMCS_GUEST_FS_LIMIT		0x4808
#define VMCS_GUEST_GS_LIMIT		0x480a
#define VMCS_GUEST_LDTR_LIMIT		0x480c
#define VMCS_GUEST_TR_LIMIT		0x480e
#define VMCS_GUEST_GDTR_LIMIT		0x4810
#define VMCS_GUEST_IDTR_LIMIT		0x4812
#define VMCS_GUEST_ES_AR		0x4814
#define VMCS_GUEST_CS_AR		0x4816
#define VMCS_GUEST_SS_AR		0x4818
#define VMCS_GUEST_DS_AR		0x481a
#define VMCS_GUEST_FS_AR		0x481c
#define VMCS_GUEST_GS_AR		0x481e
#define VMCS_GUEST_LDTR_AR		0x4820
#define VMCS_GUEST_TR_AR		0x4822
#define VMCS_GUEST_INTERRUPTIBILITY	0x4824
#define VMCS_GUEST_ACTIVITY_STATE	0x4826
#define VMCS_GUEST_SYSENTER_CS		0x482a
#define VMCS_PREEMPTION_TIMER_VALUE	0x482e
#define VMCS_HOST_SYSENTER_CS		0x4c00

/* Natural-width fields */
#define VMCS_CR0_GUEST_HOST_MASK	0x6000
#define VMCS_CR4_GUEST_HOST_MASK	0x6002
#define VMCS_CR0_READ_SHADOW		0x6004
#define VMCS_CR4_READ_SHADOW		0x6006
#define VMCS_EXIT_QUALIFICATION		0x6400
#define VMCS_GUEST_LINEAR_ADDR		0x640a
#define VMCS_GUEST_CR0			0x6800
#define VMCS_GUEST_CR3			0x6802
#define VMCS_GUEST_CR4			0x6804
#define VMCS_GUEST_ES_BASE		0x6806
#define VMCS_GUEST_CS_BASE		0x6808
#define VMCS_GUEST_SS_BASE		0x680a
#define VMCS_GUEST_DS_BASE		0x680c
#define VMCS_GUEST_FS_BASE		0x680e
#define VMCS_GUEST_GS_BASE		0x6810
#define VMCS_GUEST_LDTR_BASE		0x6812
#define VMCS_GUEST_TR_BASE		0x6814
#define VMCS_GUEST_GDTR_BASE		0x6816
#define VMCS_GUEST_IDTR_BASE		0x6818
#define VMCS_GUEST_DR7			0x681a
#define VMCS_GUEST_RSP			0x681c
#define VMCS_GUEST_RIP			0x681e
#define VMCS_GUEST_RFLAGS		0x6820
#define VMCS_GUEST_PENDING_DBG		0x6822
#define VMCS_GUEST_SYSENTER_ESP		0x6824
#define VMCS_GUEST_SYSENTER_EIP		0x6826
#define VMCS_HOST_CR0			0x6c00
#define VMCS_HOST_CR3			0x6c02
#define VMCS_HOST_CR4			0x6c04
#define VMCS_HOST_FS_BASE		0x6c06
#define VMCS_HOST_GS_BASE		0x6c08
#define VMCS_HOST_TR_BASE		0x6c0a
#define VMCS_HOST_GDTR_BASE		0x6c0c
#define VMCS_HOST_IDTR_BASE		0x6c0e
#define VMCS_HOST_SYSENTER_ESP		0x6c10
#define VMCS_HOST_SYSENTER_EIP		0x6c12
#define VMCS_HOST_RSP			0x6c14
#define VMCS_HOST_RIP			0x6c16

/* Exit reasons (basic exit reason, bits 15:0) */
#define EXIT_REASON_EXCEPTION_NMI	0
#define EXIT_REASON_EXTERNAL_INTR	1
#define EXIT_REASON_TRIPLE_FAULT	2
#define EXIT_REASON_INIT		3
#define EXIT_REASON_SIPI		4
#define EXIT_REASON_INTR_WINDOW		7
#define EXIT_REASON_NMI_WINDOW		8
#define EXIT_REASON_TASK_SWITCH		9
#define EXIT_REASON_CPUID		10
#define EXIT_REASON_GETSEC		11
#define EXIT_REASON_HLT			12
#define EXIT_REASON_INVD		13
#define EXIT_REASON_INVLPG		14
#define EXIT_REASON_RDPMC		15
#define EXIT_REASON_RDTSC		16
#define EXIT_REASON_RSM			17
#define EXIT_REASON_VMCALL		18
#define EXIT_REASON_VMCLEAR		19
#define EXIT_REASON_VMLAUNCH		20
#define EXIT_REASON_VMPTRLD		21
#define EXIT_REASON_VMPTRST		22
#define EXIT_REASON_VMREAD		23
#define EXIT_REASON_VMRESUME		24
#define EXIT_REASON_VMWRITE		25
#define EXIT_REASON_VMXOFF		26
#define EXIT_REASON_VMXON		27
#define EXIT_REASON_CR_ACCESS		28
#define EXIT_REASON_DR_ACCESS		29
#define EXIT_REASON_IO			30
#define EXIT_REASON_RDMSR		31
#define EXIT_REASON_WRMSR		32
#define EXIT_REASON_INVALID_GUEST_STATE	33
#define EXIT_REASON_MSR_LOADING		34
#define EXIT_REASON_MWAIT		36
#define EXIT_REASON_MTF			37
#define EXIT_REASON_MONITOR		39
#define EXIT_REASON_PAUSE		40
#define EXIT_REASON_MACHINE_CHECK	41
#define EXIT_REASON_TPR_BELOW		43
#define EXIT_REASON_APIC_ACCESS		44
#define EXIT_REASON_VIRT_EOI		45
#define EXIT_REASON_GDTR_IDTR		46
#define EXIT_REASON_LDTR_TR		47
#define EXIT_REASON_EPT_VIOLATION	48
#define EXIT_REASON_EPT_MISCONFIG	49
#define EXIT_REASON_INVEPT		50
#define EXIT_REASON_RDTSCP		51
#define EXIT_REASON_PREEMPTION_TIMER	52
#define EXIT_REASON_INVVPID		53
#define EXIT_REASON_WBINVD		54
#define EXIT_REASON_XSETBV		55
#define EXIT_REASON_APIC_WRITE		56
#define EXIT_REASON_RDRAND		57
#define EXIT_REASON_INVPCID		58
#define EXIT_REASON_VMFUNC		59
#define EXIT_REASON_RDSEED		61
#define EXIT_REASON_XSAVES		63
#define EXIT_REASON_XRSTORS		64
#define EXIT_REASON_COUNT		65
#define EXIT_REASON_ENTRY_FAILURE	(1u << 31)

/* EPT (SDM Vol. 3C 29.3) */
#define EPT_READ			(1ull << 0)
#define EPT_WRITE			(1ull << 1)
#define EPT_EXEC			(1ull << 2)
#define EPT_RWX				(EPT_READ | EPT_WRITE | EPT_EXEC)
#define EPT_MEMTYPE_UC			(0ull << 3)
#define EPT_MEMTYPE_WB			(6ull << 3)
#define EPT_IGNORE_PAT			(1ull << 6)	/* leaf: the EPT type wins over the guest's PAT */
#define EPT_LARGE_PAGE			(1ull << 7)
#define EPTP_MEMTYPE_WB			6ull
#define EPTP_WALK_4			(3ull << 3)

/*
 * struct vmx_exit_area (arch/x86/vmx.h) as the exit stub reads it, from
 * HOST_RSP; arch/x86/vmx.c checks the offsets against the struct.
 */
#define EA_ARCH			0
#define EA_OWNER		8
#define EA_TSC			24	/* the MSR-store entries' values: IA32_TSC, the exit's time (index at 16) */
#define EA_DEADLINE		40	/* then IA32_TSC_DEADLINE (its index at 32) */
#define EA_LO			48	/* and EA_CLOSED above it: one 64-bit word */
#define EA_CLOSED		52
#define EA_SPAN			56
#define EA_PTV			64
#define EA_BIAS			72
#define EA_IRR_MSR		76
#define EA_IRR_MASK		80
#define EA_HITS			84	/* steps whose D came before their re-entry: hits */
#define EA_VCLASS		88
#define EA_VMUL			96	/* 2^(32 - rate): the scaled stubs' x >> rate */
#define EA_RAX			104
#define EA_RCX			112
#define EA_RDX			120
/* TEMPO_PROFILE builds (hv/ops/prof.h): the TSC at the stub's start, and at the last entry */
#define EA_PROF_STUB		128
#define EA_PROF_ENTRY		136
/* struct vmx_stub_tick: the stub's own host tick */
#define EA_ST_OPEN		144
#define EA_ST_LEFT		148
#define EA_ST_DUE		152
#define EA_ST_NEXT		160
#define EA_ST_FAR		168
#define EA_ST_PERIOD		176
#define EA_ST_RATE		184
#define EA_ST_TAKEN		188
#define EA_ST_BUSY		192
#define EA_ST_ROUND		196
#define EA_ST_LATE_SUM		200
#define EA_ST_LATE_MAX		208
#define EA_ST_LAST_NOW		216
#define EA_ST_LAST_D		224
#define EA_ST_IRR_MSR		232
#define EA_ST_IRR_MASK		236
/*
 * The step's length in instructions, from the exit to its VMRESUME
 * (exit_aside; tests/bench/guard.sh counts each stub's): a deadline less
 * than this after the exit's stored TSC comes before the entry, a tick the
 * guest felt, counted in hits. In Bochs one TSC tick an instruction (the
 * VMRESUME's own trace end, and the other CPUs' turns after it, are not
 * counted); on hardware the exit and the entry themselves cost hundreds of
 * cycles more, which the count does not see. Each entry mitigation's stub
 * is longer by its own work; a TEMPO_PROFILE build's by its TSC stamp
 * (EA_STEP_PROF); a TEMPO_VMCS_CHECK build's step calls the checker, which
 * the count leaves out.
 */
#define EA_STEP_TICKS		20
#define EA_STEP_TICKS_L1D	(EA_STEP_TICKS + 8)	/* RAX and RDX kept, the flush's four */
#define EA_STEP_TICKS_VERW	(EA_STEP_TICKS + 1)
/* a preemption-timer rate other than 0 (the _scaled stubs): x >> rate, an IMUL and a SHR */
#define EA_STEP_SCALE		2
#define EA_STEP_TICKS_SCALED	(EA_STEP_TICKS + EA_STEP_SCALE)
#define EA_STEP_TICKS_L1D_SCALED	(EA_STEP_TICKS_L1D + EA_STEP_SCALE)
#define EA_STEP_TICKS_VERW_SCALED	(EA_STEP_TICKS_VERW + EA_STEP_SCALE)
#define EA_STEP_PROF		7
/* the longest step of any stub: hv plans none for a narrower margin (hv/time/aside.c) */
#define EA_STEP_TICKS_MAX	(EA_STEP_TICKS_L1D_SCALED + EA_STEP_PROF)
#define EA_SIZE			240	/* a multiple of 16, below the stack pages' end: HOST_RSP stays aligned */
/*
 * A field the VMCS checker's steady part may read (hv/lib/vmcs_check.h), as
 * its encoding says: every control field (bits 11:10 = 0) but the VM-entry
 * ones the checker reads at every entry, and every host-state field (3). A
 * VMCS_CHECK build's vmwrite() counts writes to them (arch/x86/vmx.h);
 * arch/x86/vmcs_image.c asserts that each steady field it reads is one.
 */
#define VMCS_FIELD_STEADY(f)                                                              \
	((((f) >> 10) & 3) == 3 ||                                                        \
	 ((((f) >> 10) & 3) == 0 &&                                                       \
	  !((f) >= VMCS_ENTRY_CONTROLS && (f) <= VMCS_ENTRY_INSTR_LEN) &&                 \
	  ((f) & ~1ull) != VMCS_ENTRY_MSR_LOAD_ADDR))

/* struct vcpu_arch's host_slot: its CPU's exit area (arch/x86/vmx.h) */
#define VA_HOST_SLOT		136

#endif
