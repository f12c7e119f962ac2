/* SPDX-License-Identifier: MIT */
/*
 * VMX control bits, interruption-information bits and activity states,
 * definitions only (SDM Vol. 3C 25.4.2, 25.6-25.8). Here rather than in
 * arch/x86/vmx_defs.h because the VMCS checker (hv/lib/vmcs_check.c), which
 * every layer may call, reads them too; vmx_defs.h includes this file, so
 * each bit is still named once.
 */
#ifndef TEMPO_HV_LIB_VMX_CTLS_H
#define TEMPO_HV_LIB_VMX_CTLS_H

/* Pin-based controls */
#define PIN_EXTINT_EXITING		(1u << 0)
#define PIN_NMI_EXITING			(1u << 3)
#define PIN_VIRTUAL_NMIS		(1u << 5)
#define PIN_PREEMPTION_TIMER		(1u << 6)
#define PIN_POSTED_INTR			(1u << 7)

/* Primary processor-based controls */
#define PROC_INTR_WINDOW_EXITING	(1u << 2)
#define PROC_HLT_EXITING		(1u << 7)
#define PROC_INVLPG_EXITING		(1u << 9)
#define PROC_MWAIT_EXITING		(1u << 10)
#define PROC_RDPMC_EXITING		(1u << 11)
#define PROC_RDTSC_EXITING		(1u << 12)
#define PROC_CR3_LOAD_EXITING		(1u << 15)
#define PROC_CR3_STORE_EXITING		(1u << 16)
#define PROC_TERTIARY_CONTROLS		(1u << 17)
#define PROC_CR8_LOAD_EXITING		(1u << 19)
#define PROC_CR8_STORE_EXITING		(1u << 20)
#define PROC_TPR_SHADOW			(1u << 21)
#define PROC_NMI_WINDOW_EXITING		(1u << 22)
#define PROC_MOV_DR_EXITING		(1u << 23)
#define PROC_UNCOND_IO_EXITING		(1u << 24)
#define PROC_USE_IO_BITMAPS		(1u << 25)
#define PROC_MONITOR_TRAP_FLAG		(1u << 27)
#define PROC_USE_MSR_BITMAPS		(1u << 28)
#define PROC_MONITOR_EXITING		(1u << 29)
#define PROC_PAUSE_EXITING		(1u << 30)
#define PROC_SECONDARY_CONTROLS		(1u << 31)

/* Secondary processor-based controls */
#define PROC2_VIRT_APIC_ACCESSES	(1u << 0)
#define PROC2_ENABLE_EPT		(1u << 1)
#define PROC2_ENABLE_RDTSCP		(1u << 3)
#define PROC2_VIRT_X2APIC_MODE		(1u << 4)
#define PROC2_ENABLE_VPID		(1u << 5)
#define PROC2_WBINVD_EXITING		(1u << 6)
#define PROC2_UNRESTRICTED_GUEST	(1u << 7)
#define PROC2_APIC_REGISTER_VIRT	(1u << 8)
#define PROC2_VIRT_INTR_DELIVERY	(1u << 9)
#define PROC2_ENABLE_INVPCID		(1u << 12)
#define PROC2_ENABLE_VMFUNC		(1u << 13)
#define PROC2_VMCS_SHADOWING		(1u << 14)
#define PROC2_ENABLE_PML		(1u << 17)
#define PROC2_EPT_VIOLATION_VE		(1u << 18)
#define PROC2_ENABLE_XSAVES		(1u << 20)
#define PROC2_MODE_BASED_EPT_EXEC	(1u << 22)
#define PROC2_SUBPAGE_WRITE		(1u << 23)
#define PROC2_PT_USES_GPA		(1u << 24)

/* VM-function controls */
#define VMFUNC_EPTP_SWITCHING		(1ull << 0)

/* VM-exit controls */
#define EXIT_SAVE_DEBUG_CONTROLS	(1u << 2)
#define EXIT_HOST_ADDR_SPACE_SIZE	(1u << 9)
#define EXIT_ACK_INTR_ON_EXIT		(1u << 15)
#define EXIT_SAVE_PAT			(1u << 18)
#define EXIT_LOAD_PAT			(1u << 19)
#define EXIT_SAVE_EFER			(1u << 20)
#define EXIT_LOAD_EFER			(1u << 21)
#define EXIT_SAVE_PREEMPTION_TIMER	(1u << 22)
#define EXIT_CLEAR_RTIT_CTL		(1u << 25)
#define EXIT_LOAD_PKRS			(1u << 29)

/* VM-entry controls */
#define ENTRY_LOAD_DEBUG_CONTROLS	(1u << 2)
#define ENTRY_IA32E_MODE_GUEST		(1u << 9)
#define ENTRY_TO_SMM			(1u << 10)
#define ENTRY_DEACT_DUAL_MONITOR	(1u << 11)
#define ENTRY_LOAD_PAT			(1u << 14)
#define ENTRY_LOAD_EFER			(1u << 15)
#define ENTRY_LOAD_BNDCFGS		(1u << 16)
#define ENTRY_LOAD_RTIT_CTL		(1u << 18)
#define ENTRY_LOAD_PKRS			(1u << 22)

/* Interruption information (entry and exit) */
#define INTR_INFO_VECTOR_MASK		0xffu
#define INTR_INFO_VALID			(1u << 31)
#define INTR_INFO_DELIVER_CODE		(1u << 11)
#define INTR_TYPE_EXT_INTR		(0u << 8)
#define INTR_TYPE_RESERVED		(1u << 8)
#define INTR_TYPE_NMI			(2u << 8)
#define INTR_TYPE_HW_EXCEPTION		(3u << 8)
#define INTR_TYPE_SW_INTR		(4u << 8)
#define INTR_TYPE_PRIV_SW_EXCEPTION	(5u << 8)
#define INTR_TYPE_SW_EXCEPTION		(6u << 8)
#define INTR_TYPE_OTHER_EVENT		(7u << 8)
#define INTR_TYPE_MASK			(7u << 8)

/* Guest activity states */
#define ACTIVITY_ACTIVE			0
#define ACTIVITY_HLT			1
#define ACTIVITY_SHUTDOWN		2
#define ACTIVITY_WAIT_SIPI		3

/* Guest interruptibility state */
#define INTERRUPTIBILITY_STI		(1u << 0)
#define INTERRUPTIBILITY_MOV_SS		(1u << 1)
#define INTERRUPTIBILITY_SMI		(1u << 2)
#define INTERRUPTIBILITY_NMI		(1u << 3)
#define INTERRUPTIBILITY_ENCLAVE	(1u << 4)

/* Capability MSR bits (SDM Vol. 3D A.1, A.6, A.10) */
#define VMX_BASIC_TRUE_CTLS		(1ull << 55)
#define VMX_BASIC_NO_ERRCODE_CHECK	(1ull << 56)	/* any vector may carry an error code */
#define VMX_MISC_ACTIVITY_HLT		(1ull << 6)
#define VMX_MISC_ACTIVITY_SHUTDOWN	(1ull << 7)
#define VMX_MISC_ACTIVITY_WAIT_SIPI	(1ull << 8)
#define VMX_MISC_ZERO_LEN_INJECT	(1ull << 30)
#define EPT_CAP_WALK_4			(1ull << 6)
#define EPT_CAP_WALK_5			(1ull << 7)
#define EPT_CAP_MEMTYPE_UC		(1ull << 8)
#define EPT_CAP_MEMTYPE_WB		(1ull << 14)
#define EPT_CAP_AD			(1ull << 21)

#endif
