/* SPDX-License-Identifier: MIT */
/*
 * The VMCS checker: the checks VM entry makes on the VMX controls, the
 * host-state area and the guest-state area (SDM Vol. 3C 26.2 and 26.3),
 * as a pure function over a copy of the fields an entry depends on.
 * Bochs checks many of these rules but not all, and accepts some states
 * that hardware refuses: a Tempo that passes the checker on every entry in
 * Bochs enters the same way on a server.
 *
 * Pure (no hardware, no memory but the image): arch/x86/vmcs_image.c fills
 * an image from the current VMCS with VMREADs, the unit tests build their
 * own. In hv/lib, not hv/core, because arch runs it before each VM entry and
 * arch may include only hv/lib (docs/architecture.md).
 */
#ifndef TEMPO_HV_LIB_VMCS_CHECK_H
#define TEMPO_HV_LIB_VMCS_CHECK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* How many MSR-store entries an image holds: Tempo's list has two. */
#define VMCS_MSR_STORE_READ	4

/* The capability MSRs and CPU facts the checks read (SDM Vol. 3D Appendix A). */
struct vmcs_caps {
	uint64_t basic;			/* IA32_VMX_BASIC */
	/* IA32_VMX_{PINBASED,PROCBASED,EXIT,ENTRY}_CTLS */
	uint64_t pinbased, procbased, exit, entry;
	/* the TRUE variants, which govern where IA32_VMX_BASIC[55] is 1 */
	uint64_t true_pinbased, true_procbased, true_exit, true_entry;
	uint64_t procbased2;		/* IA32_VMX_PROCBASED_CTLS2, 0 where absent */
	uint64_t ept_vpid;		/* IA32_VMX_EPT_VPID_CAP, 0 where absent */
	uint64_t misc;			/* IA32_VMX_MISC */
	uint64_t vmfunc;		/* IA32_VMX_VMFUNC, 0 where absent */
	uint64_t cr0_fixed0, cr0_fixed1, cr4_fixed0, cr4_fixed1;
	uint8_t maxphyaddr;		/* CPUID 0x80000008 EAX[7:0] */
	uint8_t linear_bits;		/* CPUID 0x80000008 EAX[15:8]: 48, or 57 with LA57 */
};

/* One segment register of the guest-state area (SDM Vol. 3C 24.4.1). */
struct vmcs_segment {
	uint16_t sel;
	uint32_t limit;
	uint32_t ar;			/* access rights, bit 16 = unusable */
	uint64_t base;
};

/* The guest's segment registers in the order of their VMCS encodings. */
enum vmcs_seg {
	VMCS_SEG_ES,
	VMCS_SEG_CS,
	VMCS_SEG_SS,
	VMCS_SEG_DS,
	VMCS_SEG_FS,
	VMCS_SEG_GS,
	VMCS_SEG_LDTR,
	VMCS_SEG_TR,
	VMCS_SEG_COUNT,
};

/*
 * Every field a VM entry checks, by name. A field a check needs only when a
 * control is set (the APIC-access address, the PML address...) is read
 * only then: elsewhere its value here is never looked at.
 *
 * In two parts. The steady part, up to `entry`, is what neither a VM exit
 * nor the guest changes: the capabilities, the logical processor's
 * IA32_EFER and current VMCS, the MSR-store list's indexes, and the
 * control and host fields Tempo writes (a VM exit writes none of them,
 * SDM Vol. 3C 27.2, 27.3); the rest, from `entry`, is per entry. The rules
 * that read only the steady part (VMCS_CHECK_STEADY) give the same answer
 * until one of its fields changes, and so do those of the guest's control
 * registers and of its segments (VMCS_CHECK_GUEST_REGS, _SEGMENTS) until
 * theirs do: the checker before each VM entry runs a part only then
 * (vmcs_check_since, arch/x86/vmx_check.c). A steady rule reads nothing
 * past VMCS_IMAGE_STEADY_END, and each part nothing but its inputs: the
 * unit tests and the fuzzer hold them to that.
 */
struct vmcs_image {
	struct vmcs_caps cap;

	/* the logical processor doing the entry (not VMCS fields) */
	uint64_t root_efer;		/* IA32_EFER: LMA says IA-32e mode (26.2.4) */
	uint64_t current_vmcs;		/* VMPTRST: the link pointer may not be it */

	/* VM-execution control fields (SDM Vol. 3C 24.6) */
	uint32_t pin, proc, proc2;
	uint32_t cr3_target_count;
	uint64_t io_bitmap_a, io_bitmap_b, msr_bitmap;
	uint64_t virtual_apic;		/* with the TPR shadow */
	uint32_t tpr_threshold;
	uint64_t apic_access;
	uint16_t posted_intr_nv;
	uint64_t posted_intr_desc;
	uint16_t vpid;
	uint64_t eptp;
	uint64_t pml_addr;
	uint64_t vmfunc_controls, eptp_list;
	uint64_t vmread_bitmap, vmwrite_bitmap;
	uint64_t ve_info;
	uint64_t spptp;

	/* VM-exit control fields (24.7) */
	uint32_t exit;
	uint32_t exit_msr_store_count, exit_msr_load_count;
	uint64_t exit_msr_store_addr, exit_msr_load_addr;
	/*
	 * The first msr_store_read entries of the MSR-store list, each one's
	 * low 8 bytes (the MSR's index, bits 31:0, and reserved bits 63:32)
	 * as memory holds them (arch/x86/vmcs_image.c reads them).
	 */
	uint32_t msr_store_read;
	uint64_t msr_store[VMCS_MSR_STORE_READ];

	/* host-state area (24.5) */
	struct {
		uint64_t cr0, cr3, cr4;
		uint16_t es_sel, cs_sel, ss_sel, ds_sel, fs_sel, gs_sel, tr_sel;
		uint64_t fs_base, gs_base, tr_base, gdtr_base, idtr_base;
		uint64_t sysenter_esp, sysenter_eip;
		uint64_t pat, efer, pkrs;
		uint64_t rip;
	} host;

	/*
	 * ---- the per-entry part (VMCS_IMAGE_STEADY_END) ----
	 * VM-entry control fields (24.8): a VM exit writes the IA-32e mode
	 * guest control and the valid bit (27.2), and Tempo the injection
	 * fields before many entries.
	 */
	uint32_t entry;
	uint32_t entry_msr_load_count;
	uint64_t entry_msr_load_addr;
	uint32_t entry_intr_info, entry_exception_error, entry_instr_len;
	/* byte 0x80 of the virtual-APIC page, which the guest writes (see vmcs_check.c) */
	uint8_t vtpr;

	/* guest-state area (24.4) */
	struct {
		uint64_t cr0, cr3, cr4, dr7;
		uint64_t rip, rflags;
		struct vmcs_segment seg[VMCS_SEG_COUNT];
		uint64_t gdtr_base, idtr_base;
		uint32_t gdtr_limit, idtr_limit;
		uint64_t debugctl, sysenter_esp, sysenter_eip;
		uint64_t pat, efer, bndcfgs, pkrs;
		uint32_t activity, interruptibility;
		uint64_t pending_dbg;
		uint64_t link_ptr;
		uint64_t pdpte[4];
	} guest;
};

/* Where the per-entry part of struct vmcs_image starts. */
#define VMCS_IMAGE_STEADY_END	offsetof(struct vmcs_image, entry)

/*
 * The rules, in the order the SDM lists them. R(name, id, SDM section,
 * what must hold). The id is what a VMCS_CHECK line prints.
 */
#define VMCS_RULES(R)									\
	/* 26.2.1.1 VM-execution control fields */					\
	R(PIN_RESERVED, "exec.pin_reserved", "26.2.1.1",				\
	  "pin-based controls as IA32_VMX_(TRUE_)PINBASED_CTLS allow")		\
	R(PROC_RESERVED, "exec.proc_reserved", "26.2.1.1",				\
	  "primary processor-based controls as IA32_VMX_(TRUE_)PROCBASED_CTLS allow") \
	R(PROC2_RESERVED, "exec.proc2_reserved", "26.2.1.1",				\
	  "secondary processor-based controls as IA32_VMX_PROCBASED_CTLS2 allows")	\
	R(CR3_TARGET_COUNT, "exec.cr3_target_count", "26.2.1.1",			\
	  "CR3-target count at most IA32_VMX_MISC[24:16]")				\
	R(IO_BITMAP_ADDR, "exec.io_bitmap_addr", "26.2.1.1",				\
	  "I/O bitmaps 4-KiB aligned, below MAXPHYADDR")				\
	R(MSR_BITMAP_ADDR, "exec.msr_bitmap_addr", "26.2.1.1",				\
	  "MSR bitmap 4-KiB aligned, below MAXPHYADDR")				\
	R(VIRTUAL_APIC_ADDR, "exec.virtual_apic_addr", "26.2.1.1",			\
	  "TPR shadow: virtual-APIC page 4-KiB aligned, below MAXPHYADDR")		\
	R(TPR_THRESHOLD_HIGH, "exec.tpr_threshold_high", "26.2.1.1",			\
	  "TPR shadow without virtual-interrupt delivery: TPR threshold bits 31:4 zero") \
	R(TPR_THRESHOLD_VTPR, "exec.tpr_threshold_vtpr", "26.2.1.1",			\
	  "TPR shadow alone: TPR threshold bits 3:0 not above VTPR bits 7:4")	\
	R(APICV_WITHOUT_TPR_SHADOW, "exec.apicv_without_tpr_shadow", "26.2.1.1",	\
	  "x2APIC virtualization, APIC-register virtualization and virtual-interrupt " \
	  "delivery only with the TPR shadow")					\
	R(VNMI_WITHOUT_NMI_EXITING, "exec.vnmi_without_nmi_exiting", "26.2.1.1",	\
	  "virtual NMIs only with NMI exiting")					\
	R(NMI_WINDOW_WITHOUT_VNMI, "exec.nmi_window_without_vnmi", "26.2.1.1",		\
	  "NMI-window exiting only with virtual NMIs")				\
	R(APIC_ACCESS_ADDR, "exec.apic_access_addr", "26.2.1.1",			\
	  "APIC-access page 4-KiB aligned, below MAXPHYADDR")			\
	R(X2APIC_AND_APIC_ACCESS, "exec.x2apic_and_apic_access", "26.2.1.1",		\
	  "not both x2APIC virtualization and APIC-access virtualization")		\
	R(VID_WITHOUT_EXTINT_EXITING, "exec.vid_without_extint_exiting", "26.2.1.1",	\
	  "virtual-interrupt delivery only with external-interrupt exiting")	\
	R(POSTED_WITHOUT_VID, "exec.posted_without_vid", "26.2.1.1",			\
	  "posted interrupts only with virtual-interrupt delivery")		\
	R(POSTED_WITHOUT_ACK, "exec.posted_without_ack", "26.2.1.1",			\
	  "posted interrupts only with acknowledge-interrupt-on-exit")		\
	R(POSTED_VECTOR, "exec.posted_vector", "26.2.1.1",				\
	  "posted-interrupt notification vector bits 15:8 zero")			\
	R(POSTED_DESC_ADDR, "exec.posted_desc_addr", "26.2.1.1",			\
	  "posted-interrupt descriptor 64-byte aligned, below MAXPHYADDR")		\
	R(VPID_ZERO, "exec.vpid_zero", "26.2.1.1", "with VPIDs enabled, a VPID other than 0") \
	R(EPTP_MEMTYPE, "exec.eptp_memtype", "26.2.1.1",				\
	  "EPTP memory type one that IA32_VMX_EPT_VPID_CAP offers")		\
	R(EPTP_WALK, "exec.eptp_walk", "26.2.1.1",					\
	  "EPTP page-walk length one that IA32_VMX_EPT_VPID_CAP offers")		\
	R(EPTP_AD, "exec.eptp_ad", "26.2.1.1",						\
	  "EPTP accessed/dirty enable only where IA32_VMX_EPT_VPID_CAP[21]")		\
	R(EPTP_RESERVED, "exec.eptp_reserved", "26.2.1.1",				\
	  "EPTP bits 11:7 and from MAXPHYADDR up zero")				\
	R(PML_WITHOUT_EPT, "exec.pml_without_ept", "26.2.1.1", "PML only with EPT")	\
	R(PML_ADDR, "exec.pml_addr", "26.2.1.1",					\
	  "PML address 4-KiB aligned, below MAXPHYADDR")				\
	R(UG_WITHOUT_EPT, "exec.ug_without_ept", "26.2.1.1",				\
	  "unrestricted guest only with EPT")					\
	R(MBEC_WITHOUT_EPT, "exec.mbec_without_ept", "26.2.1.1",			\
	  "mode-based execute control only with EPT")				\
	R(SPP_WITHOUT_EPT, "exec.spp_without_ept", "26.2.1.1",				\
	  "sub-page write permissions only with EPT")				\
	R(SPPTP_ADDR, "exec.spptp_addr", "26.2.1.1",					\
	  "SPPTP 4-KiB aligned, below MAXPHYADDR")					\
	R(VMFUNC_RESERVED, "exec.vmfunc_reserved", "26.2.1.1",				\
	  "VM-function controls as IA32_VMX_VMFUNC allows")			\
	R(EPTP_SWITCHING_WITHOUT_EPT, "exec.eptp_switching_without_ept", "26.2.1.1",	\
	  "EPTP switching only with EPT")						\
	R(EPTP_LIST_ADDR, "exec.eptp_list_addr", "26.2.1.1",				\
	  "EPTP list 4-KiB aligned, below MAXPHYADDR")				\
	R(SHADOW_BITMAP_ADDR, "exec.shadow_bitmap_addr", "26.2.1.1",			\
	  "VMCS shadowing: VMREAD and VMWRITE bitmaps 4-KiB aligned, below MAXPHYADDR") \
	R(VE_INFO_ADDR, "exec.ve_info_addr", "26.2.1.1",				\
	  "EPT-violation #VE: information page 4-KiB aligned, below MAXPHYADDR")	\
	R(PT_GPA_CONTROLS, "exec.pt_gpa_controls", "26.2.1.1",				\
	  "Intel PT using guest-physical addresses only with EPT, load IA32_RTIT_CTL " \
	  "on entry and clear it on exit")					\
	/* 26.2.1.2 VM-exit control fields */						\
	R(EXIT_RESERVED, "exit.reserved", "26.2.1.2",					\
	  "VM-exit controls as IA32_VMX_(TRUE_)EXIT_CTLS allow")			\
	R(SAVE_TIMER_WITHOUT_TIMER, "exit.save_timer_without_timer", "26.2.1.2",	\
	  "save the preemption timer only with the preemption timer")		\
	R(EXIT_MSR_STORE_ADDR, "exit.msr_store_addr", "26.2.1.2",			\
	  "VM-exit MSR-store area 16-byte aligned, its last byte below MAXPHYADDR")	\
	R(EXIT_MSR_STORE_ENTRY, "exit.msr_store_entry", "27.4",			\
	  "VM-exit MSR-store entries storable: bits 63:32 zero, no x2APIC MSR "	\
	  "(800H-8FFH), not IA32_SMBASE nor the microcode MSRs 79H and 8BH "	\
	  "(a VMX abort at the exit otherwise)")					\
	R(EXIT_MSR_LOAD_ADDR, "exit.msr_load_addr", "26.2.1.2",			\
	  "VM-exit MSR-load area 16-byte aligned, its last byte below MAXPHYADDR")	\
	R(MSR_LIST_COUNT, "msr_list.count", "A.6",					\
	  "an MSR list at most 512 * (IA32_VMX_MISC[27:25] + 1) entries")		\
	/* 26.2.1.3 VM-entry control fields */						\
	R(ENTRY_RESERVED, "entry.reserved", "26.2.1.3",				\
	  "VM-entry controls as IA32_VMX_(TRUE_)ENTRY_CTLS allow")			\
	R(ENTRY_SMM, "entry.smm", "26.2.1.3",						\
	  "outside SMM: no entry to SMM, no deactivating dual-monitor treatment")	\
	R(INTR_TYPE, "entry.intr_type", "26.2.1.3",					\
	  "injected event type not 1, and 7 only with the monitor trap flag")	\
	R(INTR_VECTOR, "entry.intr_vector", "26.2.1.3",				\
	  "injected vector fits its type: NMI 2, exception 0-31, other event 0")	\
	R(INTR_ERROR_CODE, "entry.intr_error_code", "26.2.1.3",			\
	  "error code delivered exactly for a protected-mode #DF #TS #NP #SS #GP #PF #AC") \
	R(INTR_ERROR_CODE_HIGH, "entry.intr_error_code_high", "26.2.1.3",		\
	  "a delivered error code has bits 31:16 zero")				\
	R(INTR_RESERVED, "entry.intr_reserved", "26.2.1.3",				\
	  "VM-entry interruption-information bits 30:12 zero")			\
	R(INTR_INSTR_LEN, "entry.intr_instr_len", "26.2.1.3",				\
	  "software interrupt or exception: instruction length 1-15 (0 where " \
	  "IA32_VMX_MISC[30])")							\
	R(ENTRY_MSR_LOAD_ADDR, "entry.msr_load_addr", "26.2.1.3",			\
	  "VM-entry MSR-load area 16-byte aligned, its last byte below MAXPHYADDR")	\
	/* 26.2.2 host control registers and MSRs */					\
	R(HOST_CR0_FIXED, "host.cr0_fixed", "26.2.2",					\
	  "host CR0 as IA32_VMX_CR0_FIXED0/1 require")				\
	R(HOST_CR4_FIXED, "host.cr4_fixed", "26.2.2",					\
	  "host CR4 as IA32_VMX_CR4_FIXED0/1 require")				\
	R(HOST_CET_WP, "host.cet_wp", "26.2.2", "host CR4.CET only with CR0.WP")	\
	R(HOST_CR3_WIDTH, "host.cr3_width", "26.2.2", "host CR3 below MAXPHYADDR")	\
	R(HOST_SYSENTER_CANONICAL, "host.sysenter_canonical", "26.2.2",		\
	  "host IA32_SYSENTER_ESP and _EIP canonical")				\
	R(HOST_PAT, "host.pat", "26.2.2",						\
	  "loaded host IA32_PAT: each byte 0, 1, 4, 5, 6 or 7")			\
	R(HOST_EFER_RESERVED, "host.efer_reserved", "26.2.2",				\
	  "loaded host IA32_EFER: reserved bits zero")				\
	R(HOST_EFER_LMA, "host.efer_lma", "26.2.2",					\
	  "loaded host IA32_EFER: LMA and LME equal the host address-space size")	\
	R(HOST_PKRS, "host.pkrs", "26.2.2", "loaded host IA32_PKRS: bits 63:32 zero")	\
	/* 26.2.3 host segment and descriptor-table registers */			\
	R(HOST_SEL_RPL_TI, "host.sel_rpl_ti", "26.2.3",				\
	  "host selectors with RPL 0 and TI 0")					\
	R(HOST_CS_NULL, "host.cs_null", "26.2.3", "host CS selector not 0")		\
	R(HOST_TR_NULL, "host.tr_null", "26.2.3", "host TR selector not 0")		\
	R(HOST_SS_NULL, "host.ss_null", "26.2.3",					\
	  "host SS selector not 0 for a 32-bit host")				\
	R(HOST_BASE_CANONICAL, "host.base_canonical", "26.2.3",			\
	  "host FS, GS, TR, GDTR, IDTR bases canonical")				\
	/* 26.2.4 address-space size */						\
	R(ROOT_NOT_IA32E, "addr.root_not_ia32e", "26.2.4",				\
	  "outside IA-32e mode: a 32-bit host")					\
	R(ROOT_IA32E_HOST32, "addr.root_ia32e_host32", "26.2.4",			\
	  "in IA-32e mode: a 64-bit host")						\
	R(HOST32_IA32E_GUEST, "addr.host32_ia32e_guest", "26.2.4",			\
	  "32-bit host: no IA-32e guest")						\
	R(HOST32_PCIDE, "addr.host32_pcide", "26.2.4", "32-bit host: CR4.PCIDE 0")	\
	R(HOST32_RIP, "addr.host32_rip", "26.2.4", "32-bit host: RIP bits 63:32 zero") \
	R(HOST64_PAE, "addr.host64_pae", "26.2.4", "64-bit host: CR4.PAE 1")		\
	R(HOST64_RIP, "addr.host64_rip", "26.2.4", "64-bit host: RIP canonical")	\
	/* 26.3.1.1 guest control registers, debug registers and MSRs */		\
	R(GUEST_CR0_FIXED, "guest.cr0_fixed", "26.3.1.1",				\
	  "guest CR0 as IA32_VMX_CR0_FIXED0/1 require (PE, PG free with unrestricted " \
	  "guest; CD, NW never checked)")						\
	R(GUEST_PG_WITHOUT_PE, "guest.pg_without_pe", "26.3.1.1",			\
	  "guest CR0.PG only with CR0.PE")						\
	R(GUEST_CR4_FIXED, "guest.cr4_fixed", "26.3.1.1",				\
	  "guest CR4 as IA32_VMX_CR4_FIXED0/1 require")				\
	R(GUEST_CET_WP, "guest.cet_wp", "26.3.1.1", "guest CR4.CET only with CR0.WP")	\
	R(GUEST_DEBUGCTL, "guest.debugctl", "26.3.1.1",				\
	  "loaded guest IA32_DEBUGCTL: reserved bits zero")			\
	R(GUEST_IA32E_PAGING, "guest.ia32e_paging", "26.3.1.1",			\
	  "IA-32e mode guest: CR0.PG and CR4.PAE set")				\
	R(GUEST_PCIDE, "guest.pcide", "26.3.1.1",					\
	  "CR4.PCIDE only in an IA-32e mode guest")					\
	R(GUEST_CR3_WIDTH, "guest.cr3_width", "26.3.1.1", "guest CR3 below MAXPHYADDR") \
	R(GUEST_DR7, "guest.dr7", "26.3.1.1", "loaded guest DR7: bits 63:32 zero")	\
	R(GUEST_SYSENTER_CANONICAL, "guest.sysenter_canonical", "26.3.1.1",		\
	  "guest IA32_SYSENTER_ESP and _EIP canonical")				\
	R(GUEST_PAT, "guest.pat", "26.3.1.1",						\
	  "loaded guest IA32_PAT: each byte 0, 1, 4, 5, 6 or 7")			\
	R(GUEST_EFER_RESERVED, "guest.efer_reserved", "26.3.1.1",			\
	  "loaded guest IA32_EFER: reserved bits zero")				\
	R(GUEST_EFER_LMA, "guest.efer_lma", "26.3.1.1",				\
	  "loaded guest IA32_EFER: LMA equals the IA-32e mode guest control")	\
	R(GUEST_EFER_LME, "guest.efer_lme", "26.3.1.1",				\
	  "loaded guest IA32_EFER with CR0.PG: LME equals LMA")			\
	R(GUEST_BNDCFGS, "guest.bndcfgs", "26.3.1.1",					\
	  "loaded guest IA32_BNDCFGS: bits 11:2 zero, base canonical")		\
	R(GUEST_PKRS, "guest.pkrs", "26.3.1.1", "loaded guest IA32_PKRS: bits 63:32 zero") \
	/* 26.3.1.2 guest segment registers */					\
	R(SEG_TR_TI, "guest.tr_ti", "26.3.1.2", "TR selector TI 0")			\
	R(SEG_LDTR_TI, "guest.ldtr_ti", "26.3.1.2", "usable LDTR selector TI 0")	\
	R(SEG_SS_RPL, "guest.ss_rpl", "26.3.1.2",					\
	  "SS RPL equals CS RPL (not virtual-8086, no unrestricted guest)")		\
	R(SEG_V86_BASE, "guest.v86_base", "26.3.1.2",					\
	  "virtual-8086: segment base is the selector times 16")			\
	R(SEG_BASE_CANONICAL, "guest.base_canonical", "26.3.1.2",			\
	  "TR, FS, GS and usable LDTR bases canonical")				\
	R(SEG_BASE_HIGH, "guest.base_high", "26.3.1.2",				\
	  "CS and usable SS, DS, ES bases below 4 GiB")				\
	R(SEG_V86_LIMIT, "guest.v86_limit", "26.3.1.2", "virtual-8086: limit 0xffff")	\
	R(SEG_V86_AR, "guest.v86_ar", "26.3.1.2", "virtual-8086: access rights 0xf3")	\
	R(SEG_CS_TYPE, "guest.cs_type", "26.3.1.2",					\
	  "CS an accessed code segment (or type 3 with unrestricted guest)")	\
	R(SEG_SS_TYPE, "guest.ss_type", "26.3.1.2",					\
	  "usable SS an accessed read/write data segment")				\
	R(SEG_DATA_TYPE, "guest.data_type", "26.3.1.2",				\
	  "usable DS, ES, FS, GS accessed, and readable if code")			\
	R(SEG_S, "guest.seg_s", "26.3.1.2", "CS and usable data segments: S 1")	\
	R(SEG_CS_DPL, "guest.cs_dpl", "26.3.1.2",					\
	  "CS DPL: 0 for type 3, SS DPL if non-conforming, at most SS DPL if conforming") \
	R(SEG_SS_DPL_RPL, "guest.ss_dpl_rpl", "26.3.1.2",				\
	  "SS DPL equals its RPL (no unrestricted guest)")				\
	R(SEG_SS_DPL_REAL, "guest.ss_dpl_real", "26.3.1.2",				\
	  "SS DPL 0 when CS is type 3 or CR0.PE is 0")				\
	R(SEG_DATA_DPL, "guest.data_dpl", "26.3.1.2",					\
	  "usable data or non-conforming code segment: DPL not below RPL (no " \
	  "unrestricted guest)")							\
	R(SEG_P, "guest.seg_p", "26.3.1.2", "CS, TR and usable segments present")	\
	R(SEG_AR_RESERVED, "guest.ar_reserved", "26.3.1.2",				\
	  "access rights bits 11:8 and 31:17 zero (CS, TR, usable segments)")	\
	R(SEG_CS_DB, "guest.cs_db", "26.3.1.2",					\
	  "IA-32e mode guest with CS.L: CS.D/B 0")					\
	R(SEG_G, "guest.seg_g", "26.3.1.2",						\
	  "granularity fits the limit: G 0 if limit bits 11:0 not all 1, G 1 if bits " \
	  "31:20 not all 0")							\
	R(SEG_TR_TYPE, "guest.tr_type", "26.3.1.2",					\
	  "TR a busy TSS: 3 or 11, and 11 in an IA-32e mode guest")		\
	R(SEG_SYSTEM_S, "guest.system_s", "26.3.1.2", "TR and usable LDTR: S 0")	\
	R(SEG_TR_UNUSABLE, "guest.tr_unusable", "26.3.1.2", "TR usable")		\
	R(SEG_LDTR_TYPE, "guest.ldtr_type", "26.3.1.2", "usable LDTR type 2 (LDT)")	\
	/* 26.3.1.3 guest descriptor-table registers */				\
	R(DT_BASE_CANONICAL, "guest.dt_base_canonical", "26.3.1.3",			\
	  "GDTR and IDTR bases canonical")						\
	R(DT_LIMIT, "guest.dt_limit", "26.3.1.3", "GDTR and IDTR limits bits 31:16 zero") \
	/* 26.3.1.4 guest RIP and RFLAGS */						\
	R(RIP_HIGH, "guest.rip_high", "26.3.1.4",					\
	  "RIP bits 63:32 zero outside 64-bit mode (no IA-32e guest or CS.L 0)")	\
	R(RIP_CANONICAL, "guest.rip_canonical", "26.3.1.4",				\
	  "RIP canonical in 64-bit mode")						\
	R(RFLAGS_RESERVED, "guest.rflags_reserved", "26.3.1.4",			\
	  "RFLAGS bits 63:22, 15, 5, 3 zero and bit 1 one")			\
	R(RFLAGS_VM, "guest.rflags_vm", "26.3.1.4",					\
	  "RFLAGS.VM 0 in an IA-32e mode guest or with CR0.PE 0")			\
	R(RFLAGS_IF_EXTINT, "guest.rflags_if_extint", "26.3.1.4",			\
	  "RFLAGS.IF 1 when an external interrupt is injected")			\
	/* 26.3.1.5 guest non-register state */					\
	R(ACTIVITY_VALUE, "guest.activity_value", "26.3.1.5",				\
	  "activity state 0-3, and one IA32_VMX_MISC[8:6] offers")		\
	R(ACTIVITY_HLT_DPL, "guest.activity_hlt_dpl", "26.3.1.5",			\
	  "HLT state only with SS DPL 0")						\
	R(ACTIVITY_BLOCKING, "guest.activity_blocking", "26.3.1.5",			\
	  "active state under blocking by STI or MOV SS")				\
	R(ACTIVITY_EVENT, "guest.activity_event", "26.3.1.5",				\
	  "the injected event is one the activity state allows")			\
	R(INTERRUPTIBILITY_RESERVED, "guest.intr_reserved", "26.3.1.5",		\
	  "interruptibility bits 31:5 zero")					\
	R(INTERRUPTIBILITY_STI_MOVSS, "guest.intr_sti_movss", "26.3.1.5",		\
	  "not both blocking by STI and by MOV SS")					\
	R(INTERRUPTIBILITY_STI_IF, "guest.intr_sti_if", "26.3.1.5",			\
	  "blocking by STI only with RFLAGS.IF 1")					\
	R(INTERRUPTIBILITY_EXTINT, "guest.intr_extint", "26.3.1.5",			\
	  "no STI or MOV-SS blocking when an external interrupt is injected")	\
	R(INTERRUPTIBILITY_NMI_MOVSS, "guest.intr_nmi_movss", "26.3.1.5",		\
	  "no MOV-SS blocking when an NMI is injected")				\
	R(INTERRUPTIBILITY_NMI_STI, "guest.intr_nmi_sti", "26.3.1.5",			\
	  "no STI blocking when an NMI is injected (some processors require it)")	\
	R(INTERRUPTIBILITY_SMI, "guest.intr_smi", "26.3.1.5",				\
	  "blocking by SMI 0 outside SMM (1 only with entry to SMM)")		\
	R(INTERRUPTIBILITY_VNMI, "guest.intr_vnmi", "26.3.1.5",			\
	  "virtual NMIs: no NMI blocking when an NMI is injected")			\
	R(INTERRUPTIBILITY_ENCLAVE, "guest.intr_enclave", "26.3.1.5",			\
	  "enclave interruption only without MOV-SS blocking")			\
	R(PENDING_DBG_RESERVED, "guest.pending_dbg_reserved", "26.3.1.5",		\
	  "pending debug exceptions bits 11:4, 13, 15, 63:17 zero")		\
	R(PENDING_DBG_BS_SET, "guest.pending_dbg_bs_set", "26.3.1.5",			\
	  "in an STI or MOV-SS shadow or HLT with TF 1 and BTF 0: BS pending")	\
	R(PENDING_DBG_BS_CLEAR, "guest.pending_dbg_bs_clear", "26.3.1.5",		\
	  "in an STI or MOV-SS shadow or HLT with TF 0 or BTF 1: BS not pending")	\
	R(PENDING_DBG_RTM, "guest.pending_dbg_rtm", "26.3.1.5",			\
	  "RTM pending: bits 11:0 and 15:13 zero, bit 12 one, no MOV-SS blocking")	\
	R(LINK_PTR_ADDR, "guest.link_ptr_addr", "26.3.1.5",				\
	  "VMCS link pointer all ones, or 4-KiB aligned below MAXPHYADDR")		\
	R(LINK_PTR_CURRENT, "guest.link_ptr_current", "26.3.1.5",			\
	  "VMCS link pointer not the current VMCS")					\
	/* 26.3.1.6 guest PDPTEs */							\
	R(PDPTE_RESERVED, "guest.pdpte_reserved", "26.3.1.6",				\
	  "EPT and PAE paging: present PDPTEs with bits 2:1, 8:5 and from MAXPHYADDR " \
	  "up zero")

enum vmcs_rule {
#define VMCS_RULE_ENUM(name, id, sdm, what) VMCS_RULE_##name,
	VMCS_RULES(VMCS_RULE_ENUM)
#undef VMCS_RULE_ENUM
	VMCS_RULE_COUNT
};

/* The fields a violation names, with the VMCS_* names of arch/x86/vmx_defs.h. */
#define VMCS_FIELDS(F)									\
	F(NONE) F(PIN_CONTROLS) F(PROC_CONTROLS) F(PROC_CONTROLS2) F(EXIT_CONTROLS)	\
	F(ENTRY_CONTROLS) F(CR3_TARGET_COUNT) F(IO_BITMAP_A) F(IO_BITMAP_B)		\
	F(MSR_BITMAP) F(VIRTUAL_APIC_ADDR) F(TPR_THRESHOLD) F(VTPR) F(APIC_ACCESS_ADDR)	\
	F(POSTED_INTR_NV) F(POSTED_INTR_DESC) F(VPID) F(EPT_POINTER) F(PML_ADDR)	\
	F(VMFUNC_CONTROLS) F(EPTP_LIST_ADDR) F(VMREAD_BITMAP) F(VMWRITE_BITMAP)		\
	F(VE_INFO_ADDR) F(SPPTP) F(EXIT_MSR_STORE_COUNT) F(EXIT_MSR_STORE_ADDR)		\
	F(EXIT_MSR_LOAD_COUNT) F(EXIT_MSR_LOAD_ADDR) F(ENTRY_MSR_LOAD_COUNT)		\
	F(ENTRY_MSR_LOAD_ADDR) F(ENTRY_INTR_INFO) F(ENTRY_EXCEPTION_ERROR)		\
	F(ENTRY_INSTR_LEN) F(HOST_CR0) F(HOST_CR3) F(HOST_CR4) F(HOST_ES_SEL)		\
	F(HOST_CS_SEL) F(HOST_SS_SEL) F(HOST_DS_SEL) F(HOST_FS_SEL) F(HOST_GS_SEL)	\
	F(HOST_TR_SEL) F(HOST_FS_BASE) F(HOST_GS_BASE) F(HOST_TR_BASE)			\
	F(HOST_GDTR_BASE) F(HOST_IDTR_BASE) F(HOST_SYSENTER_ESP) F(HOST_SYSENTER_EIP)	\
	F(HOST_PAT) F(HOST_EFER) F(HOST_PKRS) F(HOST_RIP) F(GUEST_CR0) F(GUEST_CR3)	\
	F(GUEST_CR4) F(GUEST_DR7) F(GUEST_RIP) F(GUEST_RFLAGS)				\
	F(GUEST_ES_SEL) F(GUEST_CS_SEL) F(GUEST_SS_SEL) F(GUEST_DS_SEL)			\
	F(GUEST_FS_SEL) F(GUEST_GS_SEL) F(GUEST_LDTR_SEL) F(GUEST_TR_SEL)		\
	F(GUEST_ES_BASE) F(GUEST_CS_BASE) F(GUEST_SS_BASE) F(GUEST_DS_BASE)		\
	F(GUEST_FS_BASE) F(GUEST_GS_BASE) F(GUEST_LDTR_BASE) F(GUEST_TR_BASE)		\
	F(GUEST_ES_LIMIT) F(GUEST_CS_LIMIT) F(GUEST_SS_LIMIT) F(GUEST_DS_LIMIT)		\
	F(GUEST_FS_LIMIT) F(GUEST_GS_LIMIT) F(GUEST_LDTR_LIMIT) F(GUEST_TR_LIMIT)	\
	F(GUEST_ES_AR) F(GUEST_CS_AR) F(GUEST_SS_AR) F(GUEST_DS_AR)			\
	F(GUEST_FS_AR) F(GUEST_GS_AR) F(GUEST_LDTR_AR) F(GUEST_TR_AR)			\
	F(GUEST_GDTR_BASE) F(GUEST_IDTR_BASE) F(GUEST_GDTR_LIMIT) F(GUEST_IDTR_LIMIT)	\
	F(GUEST_DEBUGCTL) F(GUEST_SYSENTER_ESP) F(GUEST_SYSENTER_EIP) F(GUEST_PAT)	\
	F(GUEST_EFER) F(GUEST_BNDCFGS) F(GUEST_PKRS) F(GUEST_ACTIVITY_STATE)		\
	F(GUEST_INTERRUPTIBILITY) F(GUEST_PENDING_DBG) F(LINK_POINTER)			\
	F(GUEST_PDPTE0) F(GUEST_PDPTE1) F(GUEST_PDPTE2) F(GUEST_PDPTE3)			\
	F(IA32_VMX_PINBASED_CTLS) F(IA32_VMX_PROCBASED_CTLS) F(IA32_VMX_PROCBASED_CTLS2) \
	F(IA32_VMX_EXIT_CTLS) F(IA32_VMX_ENTRY_CTLS) F(IA32_VMX_TRUE_PINBASED_CTLS)	\
	F(IA32_VMX_TRUE_PROCBASED_CTLS) F(IA32_VMX_TRUE_EXIT_CTLS)			\
	F(IA32_VMX_TRUE_ENTRY_CTLS) F(IA32_VMX_MISC) F(IA32_VMX_EPT_VPID_CAP)		\
	F(IA32_VMX_VMFUNC) F(IA32_VMX_CR0_FIXED0) F(IA32_VMX_CR0_FIXED1)		\
	F(IA32_VMX_CR4_FIXED0) F(IA32_VMX_CR4_FIXED1) F(ROOT_IA32_EFER)		\
	F(MSR_STORE_ENTRY) F(MSR_STORE_INDEX) F(CURRENT_VMCS)

enum vmcs_field {
#define VMCS_FIELD_ENUM(name) VMCS_F_##name,
	VMCS_FIELDS(VMCS_FIELD_ENUM)
#undef VMCS_FIELD_ENUM
	VMCS_F_COUNT
};

/*
 * One broken rule: the field that breaks it and its value, and where the
 * rule compares two fields, the other one (field2 VMCS_F_NONE otherwise).
 */
struct vmcs_violation {
	uint16_t rule;			/* enum vmcs_rule */
	uint16_t field, field2;		/* enum vmcs_field */
	uint64_t value, value2;
};

#define VMCS_CHECK_KEPT		32

/*
 * What vmcs_check found: every violation is counted, the first
 * VMCS_CHECK_KEPT are kept in the checks' order (vmcs_check.c), and every
 * broken rule has its bit in rules[], so none is lost when more break than
 * are kept.
 */
struct vmcs_check_result {
	uint32_t count;
	struct vmcs_violation v[VMCS_CHECK_KEPT];
	uint64_t rules[(VMCS_RULE_COUNT + 63) / 64];
};

struct vmcs_rule_desc {
	const char *id;			/* "guest.pending_dbg_bs_set" */
	const char *sdm;		/* "26.3.1.5" */
	const char *what;		/* what must hold */
};

/* Check @img against every rule; fills @res and returns the violation count. */
uint32_t vmcs_check(const struct vmcs_image *img, struct vmcs_check_result *res);

/*
 * Which rules vmcs_check_parts runs: those that read only the steady part
 * of the image (struct vmcs_image), and those that read the per-entry
 * part, in three: the guest's control registers and MSRs (26.3.1.1), its
 * segment registers (26.3.1.2), and the rest. All together are
 * vmcs_check, in the same order.
 */
#define VMCS_CHECK_STEADY	1u
#define VMCS_CHECK_GUEST_REGS	2u
#define VMCS_CHECK_SEGMENTS	4u
#define VMCS_CHECK_REST		8u
#define VMCS_CHECK_PER_ENTRY	(VMCS_CHECK_GUEST_REGS | VMCS_CHECK_SEGMENTS | VMCS_CHECK_REST)
#define VMCS_CHECK_ALL		(VMCS_CHECK_STEADY | VMCS_CHECK_PER_ENTRY)
uint32_t vmcs_check_parts(const struct vmcs_image *img, struct vmcs_check_result *res,
			  uint32_t parts);

/*
 * What each part reads: VMCS_CHECK_GUEST_REGS these members;
 * VMCS_CHECK_SEGMENTS guest.seg[] and the mode (vmcs_check_since keeps
 * it); of the steady part, both only the capabilities (cap) and
 * unrestricted guest (vmcs_check_since keeps it); VMCS_CHECK_REST
 * anything. arch/x86/vmcs_image.c notes a change in each as it reads it;
 * the unit tests hold the rules to these lists.
 */
#define VMCS_GUEST_REGS_INPUTS(F)							\
	F(entry) F(guest.cr0) F(guest.cr3) F(guest.cr4) F(guest.dr7) F(guest.debugctl)	\
	F(guest.sysenter_esp) F(guest.sysenter_eip) F(guest.pat) F(guest.efer)		\
	F(guest.bndcfgs) F(guest.pkrs)

/* What vmcs_check_since remembers of a vCPU's last check. */
struct vmcs_check_memo {
	uint32_t passed;	/* the parts that passed (VMCS_CHECK_*), 0 after a failure */
	uint32_t seg_mode;	/* the mode the segments were checked in */
	uint32_t ug;		/* unrestricted guest, as it was then */
};

/*
 * In vmcs_check_since's @same besides the parts: the capabilities (cap)
 * are those of the last check (within the steady part, which may have
 * changed elsewhere).
 */
#define VMCS_CHECK_SAME_CAPS	16u

/*
 * vmcs_check on @img, leaving out the parts that passed at @memo's last
 * check and whose inputs did not change since: @same says which parts'
 * inputs (above) the caller saw unchanged, VMCS_CHECK_STEADY the steady
 * part, VMCS_CHECK_SAME_CAPS the capabilities. The guest registers and
 * segments are left out when theirs are the same, the steady part changed
 * or not; the steady rules only when it is the same. The answer is
 * vmcs_check's; @memo is updated.
 */
uint32_t vmcs_check_since(const struct vmcs_image *img, struct vmcs_check_result *res,
			  struct vmcs_check_memo *memo, uint32_t same);

/* Whether @res holds a violation of @rule. */
bool vmcs_check_broke(const struct vmcs_check_result *res, enum vmcs_rule rule);

/* The description of @rule; a placeholder for a number out of range. */
const struct vmcs_rule_desc *vmcs_rule_desc(uint32_t rule);

/* "GUEST_CS_AR"; "?" for a number out of range. */
const char *vmcs_field_name(uint32_t field);

#endif
