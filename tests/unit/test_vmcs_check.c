// SPDX-License-Identifier: MIT
/*
 * hv/lib/vmcs_check.c: the images Tempo builds pass with no violation, and
 * for every rule one image, broken from a valid one, breaks that rule and
 * no other. test_every_rule_has_a_case keeps the list complete.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <cmocka.h>

#include "hv/core/single_step.h"
#include "hv/lib/vmcs_check.h"
#include "hv/lib/vmx_ctls.h"
#include "tests/unit/vmcs_images.h"
#include "tests/unit/xorshift.h"

#define RF_TF		(1ull << 8)
#define RF_IF		(1ull << 9)
#define RF_VM		(1ull << 17)
#define BS		(1ull << 14)
#define INJECT(type, vec) (INTR_INFO_VALID | (type) | (vec))
#define HOST32(m)	((m)->root_efer = 0, (m)->exit &= ~EXIT_HOST_ADDR_SPACE_SIZE, \
			 (m)->host.efer = 0, (m)->host.cr4 &= ~IMG_CR4_PAE)
#define NO_UG(m)	((m)->proc2 &= ~PROC2_UNRESTRICTED_GUEST)
#define SEG(m, s)	((m)->guest.seg[VMCS_SEG_##s])

enum base { PROT, SIPI, LONG, APICV, V86, BASE_COUNT };

static struct vmcs_image base_image(enum base b)
{
	switch (b) {
	case SIPI:
		return img_sipi();
	case LONG:
		return img_long64();
	case APICV:
		return img_apicv();
	case V86:
		return img_v86();
	default:
		return img_protected();
	}
}

/*
 * One case per line: a name, the valid image it starts from, the one rule
 * it must break, and the damage (an expression on m).
 */
#define CASES(C)									\
	/* 26.2.1.1 */									\
	C(pin_default1_clear, PROT, PIN_RESERVED, m->pin &= ~2u)			\
	C(proc_bit0, PROT, PROC_RESERVED, m->proc |= 1u)				\
	C(proc2_bit31, PROT, PROC2_RESERVED, m->proc2 |= 1u << 31)			\
	C(cr3_targets_5, PROT, CR3_TARGET_COUNT, m->cr3_target_count = 5)		\
	C(io_bitmap_b_unaligned, PROT, IO_BITMAP_ADDR,					\
	  (m->proc |= PROC_USE_IO_BITMAPS, m->io_bitmap_a = 0x1000, m->io_bitmap_b = 0x2001)) \
	C(io_bitmap_a_too_high, PROT, IO_BITMAP_ADDR,					\
	  (m->proc |= PROC_USE_IO_BITMAPS, m->io_bitmap_a = 1ull << 39, m->io_bitmap_b = 0x2000)) \
	C(msr_bitmap_unaligned, PROT, MSR_BITMAP_ADDR, m->msr_bitmap = 0x3004)	\
	C(vapic_unaligned, APICV, VIRTUAL_APIC_ADDR, m->virtual_apic = 0x5008)	\
	C(tpr_threshold_high, PROT, TPR_THRESHOLD_HIGH,					\
	  (m->proc |= PROC_TPR_SHADOW, m->virtual_apic = 0x5000, m->tpr_threshold = 0x10, \
	   m->vtpr = 0xf0))								\
	C(tpr_threshold_above_vtpr, PROT, TPR_THRESHOLD_VTPR,				\
	  (m->proc |= PROC_TPR_SHADOW, m->virtual_apic = 0x5000, m->tpr_threshold = 5,	\
	   m->vtpr = 0x40))								\
	C(apicv_no_tpr_shadow, APICV, APICV_WITHOUT_TPR_SHADOW, m->proc &= ~PROC_TPR_SHADOW) \
	C(vnmi_no_nmi_exiting, PROT, VNMI_WITHOUT_NMI_EXITING, m->pin &= ~PIN_NMI_EXITING) \
	C(nmi_window_no_vnmi, PROT, NMI_WINDOW_WITHOUT_VNMI,				\
	  (m->pin &= ~PIN_VIRTUAL_NMIS, m->proc |= PROC_NMI_WINDOW_EXITING))		\
	C(apic_access_unaligned, PROT, APIC_ACCESS_ADDR,				\
	  (m->proc2 |= PROC2_VIRT_APIC_ACCESSES, m->apic_access = 0xfee00001))	\
	C(x2apic_and_apic_access, APICV, X2APIC_AND_APIC_ACCESS,			\
	  (m->proc2 |= PROC2_VIRT_APIC_ACCESSES, m->apic_access = 0xfee00000))	\
	C(vid_no_extint_exiting, APICV, VID_WITHOUT_EXTINT_EXITING,			\
	  m->pin &= ~PIN_EXTINT_EXITING)						\
	C(posted_no_vid, APICV, POSTED_WITHOUT_VID, m->proc2 &= ~PROC2_VIRT_INTR_DELIVERY) \
	C(posted_no_ack, APICV, POSTED_WITHOUT_ACK, m->exit &= ~EXIT_ACK_INTR_ON_EXIT)	\
	C(posted_vector_wide, APICV, POSTED_VECTOR, m->posted_intr_nv = 0x1f2)	\
	C(posted_desc_unaligned, APICV, POSTED_DESC_ADDR, m->posted_intr_desc = 0x6020) \
	C(vpid_zero, PROT, VPID_ZERO, m->vpid = 0)					\
	C(eptp_wc, PROT, EPTP_MEMTYPE, m->eptp = (m->eptp & ~7ull) | 1)		\
	C(eptp_uc_not_offered, PROT, EPTP_MEMTYPE,					\
	  (m->eptp &= ~7ull, m->cap.ept_vpid &= ~EPT_CAP_MEMTYPE_UC))			\
	C(eptp_5_level, PROT, EPTP_WALK, m->eptp = (m->eptp & ~0x38ull) | (4 << 3))	\
	C(eptp_ad_not_offered, PROT, EPTP_AD,						\
	  (m->eptp |= 1 << 6, m->cap.ept_vpid &= ~EPT_CAP_AD))			\
	C(eptp_bit8, PROT, EPTP_RESERVED, m->eptp |= 1 << 8)				\
	C(eptp_above_width, PROT, EPTP_RESERVED, m->eptp |= 1ull << 40)		\
	C(pml_no_ept, LONG, PML_WITHOUT_EPT,						\
	  (m->proc2 = (m->proc2 | PROC2_ENABLE_PML) & ~(PROC2_ENABLE_EPT | PROC2_UNRESTRICTED_GUEST), \
	   m->pml_addr = 0x7000))							\
	C(pml_unaligned, PROT, PML_ADDR, (m->proc2 |= PROC2_ENABLE_PML, m->pml_addr = 0x7010)) \
	C(ug_no_ept, PROT, UG_WITHOUT_EPT, m->proc2 &= ~PROC2_ENABLE_EPT)		\
	C(mbec_no_ept, LONG, MBEC_WITHOUT_EPT,						\
	  m->proc2 = (m->proc2 | PROC2_MODE_BASED_EPT_EXEC) &				\
		     ~(PROC2_ENABLE_EPT | PROC2_UNRESTRICTED_GUEST))			\
	C(spp_no_ept, LONG, SPP_WITHOUT_EPT,						\
	  (m->proc2 = (m->proc2 | PROC2_SUBPAGE_WRITE) &				\
		      ~(PROC2_ENABLE_EPT | PROC2_UNRESTRICTED_GUEST), m->spptp = 0x8000))	\
	C(spptp_unaligned, PROT, SPPTP_ADDR, (m->proc2 |= PROC2_SUBPAGE_WRITE, m->spptp = 0x8800)) \
	C(vmfunc_bit1, PROT, VMFUNC_RESERVED,						\
	  (m->proc2 |= PROC2_ENABLE_VMFUNC, m->vmfunc_controls = 2))			\
	C(eptp_switching_no_ept, LONG, EPTP_SWITCHING_WITHOUT_EPT,			\
	  (m->proc2 = (m->proc2 | PROC2_ENABLE_VMFUNC) &				\
		      ~(PROC2_ENABLE_EPT | PROC2_UNRESTRICTED_GUEST),			\
	   m->vmfunc_controls = 1, m->eptp_list = 0x9000))				\
	C(eptp_list_unaligned, PROT, EPTP_LIST_ADDR,					\
	  (m->proc2 |= PROC2_ENABLE_VMFUNC, m->vmfunc_controls = 1, m->eptp_list = 0x9008)) \
	C(vmwrite_bitmap_unaligned, PROT, SHADOW_BITMAP_ADDR,				\
	  (m->proc2 |= PROC2_VMCS_SHADOWING, m->vmread_bitmap = 0xa000,		\
	   m->vmwrite_bitmap = 0xb004))						\
	C(ve_info_unaligned, PROT, VE_INFO_ADDR,					\
	  (m->proc2 |= PROC2_EPT_VIOLATION_VE, m->ve_info = 0xc002))			\
	C(pt_gpa_without_rtit, PROT, PT_GPA_CONTROLS, m->proc2 |= PROC2_PT_USES_GPA)	\
	/* 26.2.1.2 */									\
	C(exit_default1_clear, PROT, EXIT_RESERVED, m->exit &= ~1u)			\
	C(save_timer_no_timer, PROT, SAVE_TIMER_WITHOUT_TIMER,				\
	  (m->pin &= ~PIN_PREEMPTION_TIMER, m->exit |= EXIT_SAVE_PREEMPTION_TIMER))	\
	C(msr_store_unaligned, PROT, EXIT_MSR_STORE_ADDR, m->exit_msr_store_addr = 0x1ffff98) \
	C(msr_store_reserved_high, PROT, EXIT_MSR_STORE_ENTRY, m->msr_store[1] |= 1ull << 32) \
	C(msr_store_x2apic_first, PROT, EXIT_MSR_STORE_ENTRY, m->msr_store[0] = 0x800) \
	C(msr_store_x2apic_last, PROT, EXIT_MSR_STORE_ENTRY, m->msr_store[1] = 0x8ff)	\
	C(msr_store_smbase, PROT, EXIT_MSR_STORE_ENTRY, m->msr_store[1] = 0x9e)	\
	C(msr_store_ucode_trigger, PROT, EXIT_MSR_STORE_ENTRY, m->msr_store[0] = 0x79) \
	C(msr_store_ucode_rev, PROT, EXIT_MSR_STORE_ENTRY, m->msr_store[1] = 0x8b)	\
	C(msr_load_last_byte_high, PROT, EXIT_MSR_LOAD_ADDR,				\
	  (m->exit_msr_load_count = 2, m->exit_msr_load_addr = (1ull << 39) - 16))	\
	C(msr_load_513, PROT, MSR_LIST_COUNT,						\
	  (m->exit_msr_load_count = 513, m->exit_msr_load_addr = 0x10000))		\
	/* 26.2.1.3 */									\
	C(entry_bit31, PROT, ENTRY_RESERVED, m->entry |= 1u << 31)			\
	C(entry_to_smm, PROT, ENTRY_SMM, m->entry |= ENTRY_TO_SMM)			\
	C(inject_type1, PROT, INTR_TYPE, m->entry_intr_info = INJECT(INTR_TYPE_RESERVED, 0x20)) \
	C(inject_mtf_unoffered, PROT, INTR_TYPE,					\
	  (m->entry_intr_info = INJECT(INTR_TYPE_OTHER_EVENT, 0),			\
	   m->cap.procbased &= ~((uint64_t)PROC_MONITOR_TRAP_FLAG << 32),		\
	   m->cap.true_procbased &= ~((uint64_t)PROC_MONITOR_TRAP_FLAG << 32)))	\
	C(inject_nmi_vector3, PROT, INTR_VECTOR, m->entry_intr_info = INJECT(INTR_TYPE_NMI, 3)) \
	C(inject_exception_32, PROT, INTR_VECTOR,					\
	  m->entry_intr_info = INJECT(INTR_TYPE_HW_EXCEPTION, 32))			\
	C(inject_gp_no_code, PROT, INTR_ERROR_CODE,					\
	  m->entry_intr_info = INJECT(INTR_TYPE_HW_EXCEPTION, 13))			\
	C(inject_ud_with_code, PROT, INTR_ERROR_CODE,					\
	  m->entry_intr_info = INJECT(INTR_TYPE_HW_EXCEPTION, 6) | INTR_INFO_DELIVER_CODE) \
	C(inject_gp_code_real_mode, SIPI, INTR_ERROR_CODE,				\
	  m->entry_intr_info = INJECT(INTR_TYPE_HW_EXCEPTION, 13) | INTR_INFO_DELIVER_CODE) \
	C(inject_code_high, PROT, INTR_ERROR_CODE_HIGH,					\
	  (m->entry_intr_info = INJECT(INTR_TYPE_HW_EXCEPTION, 13) | INTR_INFO_DELIVER_CODE, \
	   m->entry_exception_error = 0x10000))					\
	C(inject_bit12, PROT, INTR_RESERVED,						\
	  (m->entry_intr_info = INJECT(INTR_TYPE_EXT_INTR, 0x30) | (1u << 12),	\
	   m->guest.rflags |= RF_IF))							\
	C(inject_int_len16, PROT, INTR_INSTR_LEN,					\
	  (m->entry_intr_info = INJECT(INTR_TYPE_SW_INTR, 0x80), m->entry_instr_len = 16)) \
	C(inject_int_len0, PROT, INTR_INSTR_LEN,					\
	  (m->entry_intr_info = INJECT(INTR_TYPE_SW_EXCEPTION, 3), m->entry_instr_len = 0, \
	   m->cap.misc &= ~VMX_MISC_ZERO_LEN_INJECT))					\
	C(entry_msr_load_unaligned, PROT, ENTRY_MSR_LOAD_ADDR,				\
	  (m->entry_msr_load_count = 1, m->entry_msr_load_addr = 0x4001))		\
	/* 26.2.2 */									\
	C(host_cr0_no_ne, PROT, HOST_CR0_FIXED, m->host.cr0 &= ~IMG_CR0_NE)		\
	C(host_cr4_no_vmxe, PROT, HOST_CR4_FIXED, m->host.cr4 &= ~IMG_CR4_VMXE)		\
	C(host_cr4_la57, PROT, HOST_CR4_FIXED, m->host.cr4 |= 1ull << 12)		\
	C(host_cet_no_wp, PROT, HOST_CET_WP,						\
	  (m->host.cr4 |= IMG_CR4_CET, m->host.cr0 &= ~IMG_CR0_WP))			\
	C(host_cr3_high, PROT, HOST_CR3_WIDTH, m->host.cr3 = 1ull << 40)		\
	C(host_sysenter_eip, PROT, HOST_SYSENTER_CANONICAL,				\
	  m->host.sysenter_eip = 0x0000800000000000ull)				\
	C(host_pat_type2, PROT, HOST_PAT, m->host.pat = 0x0007040600070402ull)	\
	C(host_efer_bit1, PROT, HOST_EFER_RESERVED, m->host.efer |= 2)			\
	C(host_efer_no_lma, PROT, HOST_EFER_LMA, m->host.efer &= ~IMG_EFER_LMA)	\
	C(host_pkrs_high, PROT, HOST_PKRS,						\
	  (m->exit |= EXIT_LOAD_PKRS, m->host.pkrs = 1ull << 32))			\
	/* 26.2.3 */									\
	C(host_ds_rpl3, PROT, HOST_SEL_RPL_TI, m->host.ds_sel = 0x13)			\
	C(host_tr_ti, PROT, HOST_SEL_RPL_TI, m->host.tr_sel = 0x1c)			\
	C(host_cs_null, PROT, HOST_CS_NULL, m->host.cs_sel = 0)			\
	C(host_tr_null, PROT, HOST_TR_NULL, m->host.tr_sel = 0)			\
	C(host32_ss_null, PROT, HOST_SS_NULL, (HOST32(m), m->host.ss_sel = 0))		\
	C(host_gs_base, PROT, HOST_BASE_CANONICAL, m->host.gs_base = 0x0000900000000000ull) \
	/* 26.2.4 */									\
	C(root_32bit_host64, PROT, ROOT_NOT_IA32E, m->root_efer = 0)			\
	C(root_64bit_host32, PROT, ROOT_IA32E_HOST32,					\
	  (m->exit &= ~EXIT_HOST_ADDR_SPACE_SIZE, m->host.efer = 0))			\
	C(host32_ia32e_guest, LONG, HOST32_IA32E_GUEST, HOST32(m))			\
	C(host32_pcide, PROT, HOST32_PCIDE, (HOST32(m), m->host.cr4 |= IMG_CR4_PCIDE))	\
	C(host32_rip, PROT, HOST32_RIP, (HOST32(m), m->host.rip = 1ull << 32))	\
	C(host64_no_pae, PROT, HOST64_PAE, m->host.cr4 &= ~IMG_CR4_PAE)		\
	C(host64_rip, PROT, HOST64_RIP, m->host.rip = 0x0000800000000000ull)		\
	/* 26.3.1.1 */									\
	C(guest_cr0_no_ne, PROT, GUEST_CR0_FIXED, m->guest.cr0 &= ~IMG_CR0_NE)		\
	C(guest_pe_clear_no_ug, LONG, GUEST_CR0_FIXED,					\
	  (NO_UG(m), m->guest.cr0 &= ~IMG_CR0_PE, m->guest.cr0 &= ~IMG_CR0_PG,		\
	   m->entry &= ~ENTRY_IA32E_MODE_GUEST, m->guest.efer = 0,			\
	   SEG(m, CS).ar = 0xc09b))							\
	C(guest_pg_no_pe, SIPI, GUEST_PG_WITHOUT_PE, m->guest.cr0 |= IMG_CR0_PG)	\
	C(guest_cr4_no_vmxe, PROT, GUEST_CR4_FIXED, m->guest.cr4 &= ~IMG_CR4_VMXE)	\
	C(guest_cr4_umip, PROT, GUEST_CR4_FIXED, m->guest.cr4 |= 1ull << 11)		\
	C(guest_cet_no_wp, PROT, GUEST_CET_WP, m->guest.cr4 |= IMG_CR4_CET)		\
	C(guest_debugctl_bit3, PROT, GUEST_DEBUGCTL, m->guest.debugctl = 1 << 3)	\
	C(guest_ia32e_no_pae, LONG, GUEST_IA32E_PAGING, m->guest.cr4 &= ~IMG_CR4_PAE)	\
	C(guest_pcide_32bit, PROT, GUEST_PCIDE, m->guest.cr4 |= IMG_CR4_PCIDE)		\
	C(guest_cr3_high, PROT, GUEST_CR3_WIDTH, m->guest.cr3 = 1ull << 45)		\
	C(guest_dr7_high, PROT, GUEST_DR7, m->guest.dr7 = (1ull << 32) | 0x400)	\
	C(guest_sysenter_esp, PROT, GUEST_SYSENTER_CANONICAL,				\
	  m->guest.sysenter_esp = 1ull << 47)						\
	C(guest_pat_type3, PROT, GUEST_PAT, m->guest.pat = 0x0707070707070703ull)	\
	C(guest_efer_bit2, PROT, GUEST_EFER_RESERVED, m->guest.efer |= 4)		\
	C(guest_efer_lma_32bit, PROT, GUEST_EFER_LMA, m->guest.efer |= IMG_EFER_LMA)	\
	C(guest_efer_no_lme, LONG, GUEST_EFER_LME, m->guest.efer &= ~IMG_EFER_LME)	\
	C(guest_bndcfgs_bit2, PROT, GUEST_BNDCFGS,					\
	  (m->entry |= ENTRY_LOAD_BNDCFGS, m->guest.bndcfgs = 4))			\
	C(guest_pkrs_high, PROT, GUEST_PKRS,						\
	  (m->entry |= ENTRY_LOAD_PKRS, m->guest.pkrs = 1ull << 33))			\
	/* 26.3.1.2 */									\
	C(tr_ti, PROT, SEG_TR_TI, SEG(m, TR).sel = 0x1c)				\
	C(ldtr_ti, PROT, SEG_LDTR_TI,							\
	  (SEG(m, LDTR).sel = 0x24, SEG(m, LDTR).ar = 0x82, SEG(m, LDTR).limit = 0xffff)) \
	C(ss_rpl3_cs_rpl0, PROT, SEG_SS_RPL,						\
	  (NO_UG(m), SEG(m, CS).ar = 0xc09f, SEG(m, SS).sel = 0x13, SEG(m, SS).ar = 0xc0f3, \
	   m->guest.cr0 |= IMG_CR0_PG, m->guest.cr4 |= IMG_CR4_PAE))			\
	C(v86_base, V86, SEG_V86_BASE, SEG(m, DS).base = 0x1234)			\
	C(fs_base, PROT, SEG_BASE_CANONICAL, SEG(m, FS).base = 1ull << 47)		\
	C(ds_base_high, PROT, SEG_BASE_HIGH, SEG(m, DS).base = 1ull << 32)		\
	C(v86_limit, V86, SEG_V86_LIMIT, SEG(m, ES).limit = 0xfffff)			\
	C(v86_ar, V86, SEG_V86_AR, SEG(m, GS).ar = 0xf2)				\
	C(cs_type1, PROT, SEG_CS_TYPE, SEG(m, CS).ar = 0xc091)				\
	C(cs_type3_no_ug, LONG, SEG_CS_TYPE, (NO_UG(m), SEG(m, CS).ar = 0xa093))	\
	C(ss_type1, PROT, SEG_SS_TYPE, SEG(m, SS).ar = 0xc091)				\
	C(ds_not_accessed, PROT, SEG_DATA_TYPE, SEG(m, DS).ar = 0xc092)		\
	C(es_code_unreadable, PROT, SEG_DATA_TYPE, SEG(m, ES).ar = 0xc099)		\
	C(ds_system, PROT, SEG_S, SEG(m, DS).ar = 0xc083)				\
	C(cs_dpl1_ss_dpl0, PROT, SEG_CS_DPL, SEG(m, CS).ar = 0xc0bb)			\
	C(cs_type3_dpl3, SIPI, SEG_CS_DPL, SEG(m, CS).ar = 0xf3)			\
	C(ss_dpl1_rpl0, LONG, SEG_SS_DPL_RPL,						\
	  (NO_UG(m), SEG(m, CS).ar = 0xa09f, SEG(m, SS).ar = 0xc0b3))			\
	C(ss_dpl1_real_mode, SIPI, SEG_SS_DPL_REAL, (SEG(m, CS).ar = 0x9f, SEG(m, SS).ar = 0xb3))		\
	C(ds_dpl0_rpl3, LONG, SEG_DATA_DPL, (NO_UG(m), SEG(m, DS).sel = 0x1b))		\
	C(ds_not_present, PROT, SEG_P, SEG(m, DS).ar = 0xc013)				\
	C(tr_not_present, PROT, SEG_P, SEG(m, TR).ar = 0x0b)				\
	C(ds_ar_bit8, PROT, SEG_AR_RESERVED, SEG(m, DS).ar |= 0x100)			\
	C(cs_ar_bit20, PROT, SEG_AR_RESERVED, SEG(m, CS).ar |= 1u << 20)		\
	C(cs_long_and_db, LONG, SEG_CS_DB, SEG(m, CS).ar = 0xe09b)			\
	C(ds_g_with_short_page, PROT, SEG_G, SEG(m, DS).limit = 0xfff00)		\
	C(ss_big_limit_no_g, PROT, SEG_G, SEG(m, SS).ar = 0x4093)			\
	C(tr_16bit_long_mode, LONG, SEG_TR_TYPE, SEG(m, TR).ar = 0x83)			\
	C(tr_available, PROT, SEG_TR_TYPE, SEG(m, TR).ar = 0x89)			\
	C(tr_s, PROT, SEG_SYSTEM_S, SEG(m, TR).ar = 0x9b)				\
	C(tr_unusable, PROT, SEG_TR_UNUSABLE, SEG(m, TR).ar |= 0x10000)		\
	C(ldtr_type3, PROT, SEG_LDTR_TYPE, SEG(m, LDTR).ar = 0x83)			\
	/* 26.3.1.3 */									\
	C(gdtr_base, PROT, DT_BASE_CANONICAL, m->guest.gdtr_base = 1ull << 50)		\
	C(idtr_limit, PROT, DT_LIMIT, m->guest.idtr_limit = 0x10000)			\
	/* 26.3.1.4 */									\
	C(rip_high_32bit, PROT, RIP_HIGH, m->guest.rip = 1ull << 32)			\
	C(rip_high_compat, LONG, RIP_HIGH, (SEG(m, CS).ar = 0xc09b, m->guest.rip = 1ull << 32)) \
	C(rip_noncanonical, LONG, RIP_CANONICAL, m->guest.rip = 1ull << 47)		\
	C(rflags_bit3, PROT, RFLAGS_RESERVED, m->guest.rflags |= 1 << 3)		\
	C(rflags_bit1_clear, PROT, RFLAGS_RESERVED, m->guest.rflags = 0)		\
	C(rflags_vm_long, LONG, RFLAGS_VM, m->guest.rflags |= RF_VM)			\
	C(rflags_vm_real, SIPI, RFLAGS_VM, m->guest.rflags |= RF_VM)			\
	C(extint_if0, PROT, RFLAGS_IF_EXTINT,						\
	  m->entry_intr_info = INJECT(INTR_TYPE_EXT_INTR, 0x30))			\
	/* 26.3.1.5 */									\
	C(activity_4, PROT, ACTIVITY_VALUE, m->guest.activity = 4)			\
	C(shutdown_unoffered, PROT, ACTIVITY_VALUE,					\
	  (m->guest.activity = ACTIVITY_SHUTDOWN, m->cap.misc &= ~VMX_MISC_ACTIVITY_SHUTDOWN)) \
	C(hlt_dpl3, PROT, ACTIVITY_HLT_DPL,						\
	  (m->guest.activity = ACTIVITY_HLT, SEG(m, CS).ar = 0xc0fb, SEG(m, SS).ar = 0xc0f3)) \
	C(hlt_in_sti_shadow, PROT, ACTIVITY_BLOCKING,					\
	  (m->guest.activity = ACTIVITY_HLT, m->guest.rflags |= RF_IF,			\
	   m->guest.interruptibility = INTERRUPTIBILITY_STI))				\
	C(hlt_inject_gp, PROT, ACTIVITY_EVENT,						\
	  (m->guest.activity = ACTIVITY_HLT,						\
	   m->entry_intr_info = INJECT(INTR_TYPE_HW_EXCEPTION, 13) | INTR_INFO_DELIVER_CODE)) \
	C(sipi_inject_nmi, PROT, ACTIVITY_EVENT,					\
	  (m->guest.activity = ACTIVITY_WAIT_SIPI, m->entry_intr_info = INJECT(INTR_TYPE_NMI, 2))) \
	C(shutdown_inject_extint, PROT, ACTIVITY_EVENT,					\
	  (m->guest.activity = ACTIVITY_SHUTDOWN, m->guest.rflags |= RF_IF,		\
	   m->entry_intr_info = INJECT(INTR_TYPE_EXT_INTR, 0x30)))			\
	C(intr_bit5, PROT, INTERRUPTIBILITY_RESERVED, m->guest.interruptibility = 1u << 5) \
	C(sti_and_movss, PROT, INTERRUPTIBILITY_STI_MOVSS,				\
	  (m->guest.rflags |= RF_IF, m->guest.interruptibility = 3))			\
	C(sti_if0, PROT, INTERRUPTIBILITY_STI_IF,					\
	  m->guest.interruptibility = INTERRUPTIBILITY_STI)				\
	C(extint_in_movss_shadow, PROT, INTERRUPTIBILITY_EXTINT,			\
	  (m->guest.rflags |= RF_IF, m->guest.interruptibility = INTERRUPTIBILITY_MOV_SS, \
	   m->entry_intr_info = INJECT(INTR_TYPE_EXT_INTR, 0x30)))			\
	C(nmi_in_movss_shadow, PROT, INTERRUPTIBILITY_NMI_MOVSS,			\
	  (m->guest.interruptibility = INTERRUPTIBILITY_MOV_SS,			\
	   m->entry_intr_info = INJECT(INTR_TYPE_NMI, 2)))				\
	C(nmi_in_sti_shadow, PROT, INTERRUPTIBILITY_NMI_STI,				\
	  (m->guest.rflags |= RF_IF, m->guest.interruptibility = INTERRUPTIBILITY_STI,	\
	   m->entry_intr_info = INJECT(INTR_TYPE_NMI, 2)))				\
	C(smi_blocking, PROT, INTERRUPTIBILITY_SMI, m->guest.interruptibility = INTERRUPTIBILITY_SMI) \
	C(vnmi_blocked_inject_nmi, PROT, INTERRUPTIBILITY_VNMI,				\
	  (m->guest.interruptibility = INTERRUPTIBILITY_NMI,				\
	   m->entry_intr_info = INJECT(INTR_TYPE_NMI, 2)))				\
	C(enclave_in_movss, PROT, INTERRUPTIBILITY_ENCLAVE,				\
	  m->guest.interruptibility = INTERRUPTIBILITY_ENCLAVE | INTERRUPTIBILITY_MOV_SS) \
	C(pending_bit4, PROT, PENDING_DBG_RESERVED, m->guest.pending_dbg = 1 << 4)	\
	C(movss_tf_no_bs, PROT, PENDING_DBG_BS_SET,					\
	  (m->guest.interruptibility = INTERRUPTIBILITY_MOV_SS, m->guest.rflags |= RF_TF)) \
	C(hlt_tf_no_bs, PROT, PENDING_DBG_BS_SET,					\
	  (m->guest.activity = ACTIVITY_HLT, m->guest.rflags |= RF_TF))		\
	C(hlt_bs_no_tf, PROT, PENDING_DBG_BS_CLEAR,					\
	  (m->guest.activity = ACTIVITY_HLT, m->guest.pending_dbg = BS))		\
	C(sti_bs_with_btf, PROT, PENDING_DBG_BS_CLEAR,					\
	  (m->guest.rflags |= RF_IF | RF_TF, m->guest.interruptibility = INTERRUPTIBILITY_STI, \
	   m->guest.debugctl = 2, m->guest.pending_dbg = BS))				\
	C(rtm_without_eb, PROT, PENDING_DBG_RTM, m->guest.pending_dbg = 1ull << 16)	\
	C(rtm_in_movss, PROT, PENDING_DBG_RTM,						\
	  (m->guest.pending_dbg = (1ull << 16) | (1ull << 12),				\
	   m->guest.interruptibility = INTERRUPTIBILITY_MOV_SS))			\
	C(link_ptr_unaligned, PROT, LINK_PTR_ADDR, m->guest.link_ptr = 0x1234)		\
	C(link_ptr_current, PROT, LINK_PTR_CURRENT, m->guest.link_ptr = m->current_vmcs) \
	/* 26.3.1.6 */									\
	C(pdpte_bit1, PROT, PDPTE_RESERVED,						\
	  (m->guest.cr0 |= IMG_CR0_PG, m->guest.cr4 |= IMG_CR4_PAE, m->guest.pdpte[2] = 0x3)) \
	C(pdpte_xd, PROT, PDPTE_RESERVED,						\
	  (m->guest.cr0 |= IMG_CR0_PG, m->guest.cr4 |= IMG_CR4_PAE,			\
	   m->guest.pdpte[0] = (1ull << 63) | 0x1001))

#define CASE_FN(name, base, rule, damage)						\
	static void damage_##name(struct vmcs_image *m)				\
	{										\
		(void)(damage);								\
	}
CASES(CASE_FN)
#undef CASE_FN

struct damage_case {
	const char *name;
	enum base base;
	enum vmcs_rule rule;
	void (*damage)(struct vmcs_image *m);
};

static const struct damage_case cases[] = {
#define CASE_ROW(name, b, r, damage) { #name, b, VMCS_RULE_##r, damage_##name },
	CASES(CASE_ROW)
#undef CASE_ROW
};

static void print_result(const char *what, const struct vmcs_check_result *r)
{
	for (uint32_t i = 0; i < r->count && i < VMCS_CHECK_KEPT; i++)
		printf("  %s: rule=%s sdm=%s field=%s value=0x%llx\n", what,
		       vmcs_rule_desc(r->v[i].rule)->id, vmcs_rule_desc(r->v[i].rule)->sdm,
		       vmcs_field_name(r->v[i].field), (unsigned long long)r->v[i].value);
}

static void assert_valid(const char *what, const struct vmcs_image *m)
{
	struct vmcs_check_result r;

	if (vmcs_check(m, &r) != 0)
		print_result(what, &r);
	assert_int_equal(r.count, 0);
}

/* The images Tempo builds pass: the checker does not cry wolf. */
static void test_tempo_images_pass(void **state)
{
	struct vmcs_image m;

	(void)state;
	m = img_protected();
	assert_valid("protected", &m);
	m = img_sipi();
	assert_valid("sipi", &m);
	m = img_long64();
	assert_valid("long64", &m);
	m = img_apicv();
	assert_valid("apicv", &m);
	m = img_v86();
	assert_valid("v86", &m);
	/* a vCPU without the step-aside's MSR-store entry */
	m = img_protected();
	m.exit_msr_store_count = 0;
	m.exit_msr_store_addr = 0;
	assert_valid("no msr store", &m);
}

/*
 * The MSR-store entries: the x2APIC range is 800H-8FFH and no wider, and
 * only the entries the list has and the image read are looked at (a bad
 * one past the count, or past what was read, is not an entry).
 */
static void test_msr_store_entries_bounds(void **state)
{
	struct vmcs_image m;
	struct vmcs_check_result r;

	(void)state;
	m = img_protected();
	m.msr_store[0] = 0x7ff;
	m.msr_store[1] = 0x900;
	assert_valid("the MSRs either side of the x2APIC range", &m);
	m = img_protected();
	m.msr_store[2] = 0x9e;
	m.msr_store_read = 3;
	assert_valid("bad entry read, past the count", &m);
	m.msr_store_read = 2;
	m.exit_msr_store_count = 3;
	assert_valid("bad entry past what was read", &m);
	m.msr_store_read = 3;
	vmcs_check(&m, &r);
	assert_int_equal(r.count, 1);
	assert_int_equal(r.v[0].rule, VMCS_RULE_EXIT_MSR_STORE_ENTRY);
	assert_int_equal(r.v[0].value, 2);
	assert_int_equal(r.v[0].value2, 0x9e);
	m.msr_store_read = 1000;	/* an absurd count reads no further than the array */
	m.exit_msr_store_count = 5;
	vmcs_check(&m, &r);
	assert_int_equal(r.count, 1);
}

/* Each case breaks its rule, and only its rule. */
static void test_each_rule_broken_alone(void **state)
{
	unsigned int bad = 0;

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct vmcs_image m = base_image(cases[i].base);
		struct vmcs_check_result r;
		bool only = true;

		cases[i].damage(&m);
		vmcs_check(&m, &r);
		for (unsigned int w = 0; w < sizeof(r.rules) / sizeof(r.rules[0]); w++) {
			uint64_t want = cases[i].rule / 64 == w ? 1ull << (cases[i].rule % 64) : 0;

			only &= r.rules[w] == want;
		}
		if (r.count == 0 || !only || r.v[0].rule != cases[i].rule) {
			printf("case %s: wanted %s, got %u violation(s)\n", cases[i].name,
			       vmcs_rule_desc(cases[i].rule)->id, r.count);
			print_result(cases[i].name, &r);
			bad++;
		}
	}
	assert_int_equal(bad, 0);
}

/*
 * The checker before a VM entry runs the steady rules only when the
 * steady part of the image changed (arch/x86/vmx_check.c): that is right
 * only if they read nothing else. Every case's image, with the per-entry
 * part replaced by anything at all, must get the same steady answer; and
 * the two parts together are vmcs_check.
 */
static void test_steady_rules_read_only_the_steady_part(void **state)
{
	uint64_t seed = 0x2545f4914f6cdd1dull;
	unsigned int bad = 0;

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct vmcs_image m = base_image(cases[i].base);
		struct vmcs_check_result all, steady, per_entry;

		cases[i].damage(&m);
		vmcs_check(&m, &all);
		vmcs_check_parts(&m, &steady, VMCS_CHECK_STEADY);
		vmcs_check_parts(&m, &per_entry, VMCS_CHECK_PER_ENTRY);
		assert_int_equal(all.count, steady.count + per_entry.count);
		for (unsigned int w = 0; w < sizeof(all.rules) / sizeof(all.rules[0]); w++)
			assert_true(all.rules[w] == (steady.rules[w] | per_entry.rules[w]));
		for (unsigned int n = 0; n < 64; n++) {
			struct vmcs_image other = m;
			struct vmcs_check_result again;
			uint8_t *p = (uint8_t *)&other;

			for (size_t b = VMCS_IMAGE_STEADY_END; b < sizeof(other); b++)
				p[b] = (uint8_t)xorshift64(&seed);
			vmcs_check_parts(&other, &again, VMCS_CHECK_STEADY);
			if (!img_results_same(&steady, &again)) {
				printf("case %s: the steady rules changed their answer with the "
				       "per-entry part (%u violation(s), then %u)\n",
				       cases[i].name, steady.count, again.count);
				print_result("then", &again);
				bad++;
				break;
			}
		}
	}
	assert_int_equal(bad, 0);
}

/*
 * vmcs_check_since leaves out the parts whose inputs did not change since
 * they passed: its answer must be vmcs_check's whatever changed. Chains of
 * images, each a few random bytes from the one before (any field, the
 * per-entry part more often), checked both ways. A part that read a field
 * its input list lacks would answer from the memo where vmcs_check does
 * not.
 */
#define GUEST_PARTS (VMCS_CHECK_GUEST_REGS | VMCS_CHECK_SEGMENTS)

static void test_since_agrees_with_full_check(void **state)
{
	uint64_t seed = 0x853c49e6748fea9bull;
	unsigned int bad = 0, skipped_runs = 0, skipped_steady_changed = 0;

	(void)state;
	for (unsigned int n = 0; n < 6000 && bad < 5; n++) {
		struct vmcs_image prev = base_image((enum base)(n % BASE_COUNT));
		struct vmcs_check_memo memo = { 0 };
		struct vmcs_check_result since, full;

		/*
		 * Valid images on which a change elsewhere bites: protected-mode
		 * chains in ring 3 (the segments' DPL rules), with a 64-bit CS
		 * whose D/B is set, or a 16-bit TSS (both refused in IA-32e mode
		 * alone); every third chain loads BNDCFGS and PKRS.
		 */
		if (n % BASE_COUNT == PROT) {
			switch (n / BASE_COUNT % 3) {
			case 0:
				SEG(&prev, CS).ar = 0xc0fb;
				SEG(&prev, CS).sel |= 3;
				SEG(&prev, SS).ar = 0xc0f3;
				SEG(&prev, SS).sel |= 3;
				break;
			case 1:
				SEG(&prev, CS).ar |= 1u << 13;
				break;
			default:
				SEG(&prev, TR).ar = 0x83;
				break;
			}
		}
		if (n % 3 == 0)
			prev.entry |= ENTRY_LOAD_BNDCFGS | ENTRY_LOAD_PKRS;
		assert_int_equal(vmcs_check_since(&prev, &since, &memo, 0), 0);
		for (unsigned int step = 0; step < 4; step++) {
			struct vmcs_image cur = prev;
			uint8_t *p = (uint8_t *)&cur;
			unsigned int flips = 1 + (unsigned int)(xorshift64(&seed) % 4);
			uint32_t same;

			for (unsigned int f = 0; f < flips; f++) {
				size_t at = xorshift64(&seed) % sizeof(cur);

				if (xorshift64(&seed) & 1)
					at = VMCS_IMAGE_STEADY_END +
					     at % (sizeof(cur) - VMCS_IMAGE_STEADY_END);
				p[at] ^= (uint8_t)(1u << (xorshift64(&seed) % 8));
			}
			/* and now and then a bit of the mode the segments are checked in */
			switch (xorshift64(&seed) % 8) {
			case 0:
				cur.guest.cr0 ^= IMG_CR0_PE;
				break;
			case 1:
				cur.entry ^= ENTRY_IA32E_MODE_GUEST;
				break;
			case 2:
				cur.guest.rflags ^= RF_VM;
				break;
			/*
			 * or of the steady part: unrestricted guest (directly
			 * or through the secondary controls' activation), a
			 * capability, a control no guest rule reads
			 */
			case 3:
				cur.proc2 ^= PROC2_UNRESTRICTED_GUEST;
				break;
			case 4:
				cur.proc ^= PROC_SECONDARY_CONTROLS;
				break;
			case 5:
				cur.cap.cr0_fixed0 ^= IMG_CR0_PE;
				break;
			case 6:
				cur.proc ^= 1u << 2;	/* interrupt-window exiting */
				break;
			}
			same = img_same_parts(&prev, &cur);
			/* a part left out: the steady part and that part the same, and it passed */
			skipped_runs += (same & VMCS_CHECK_STEADY) &&
					(memo.passed & same & GUEST_PARTS);
			/* or the steady part changed but not the capabilities or UG */
			skipped_steady_changed +=
				!(same & VMCS_CHECK_STEADY) && (same & VMCS_CHECK_SAME_CAPS) &&
				!((prev.proc ^ cur.proc) & PROC_SECONDARY_CONTROLS) &&
				!((prev.proc2 ^ cur.proc2) & PROC2_UNRESTRICTED_GUEST) &&
				(memo.passed & same & GUEST_PARTS);
			vmcs_check_since(&cur, &since, &memo, same);
			vmcs_check(&cur, &full);
			if (!img_results_same(&since, &full)) {
				printf("chain %u step %u (same=0x%x): %u violation(s), not %u\n",
				       n, step, same, since.count, full.count);
				print_result("full", &full);
				bad++;
				break;
			}
			prev = cur;
		}
	}
	assert_int_equal(bad, 0);
	/* and it did leave parts out, with the steady part the same and not */
	printf("parts left out: %u checks, %u with the steady part changed\n", skipped_runs,
	       skipped_steady_changed);
	assert_true(skipped_runs > 800);
	assert_true(skipped_steady_changed > 800);
}

/*
 * The skip itself, seen: after a passing check, a change of the steady
 * part that no guest rule reads (interrupt-window exiting) with the guest
 * registers said to be the same leaves their rules out, so a CR3 broken
 * behind the caller's back goes unreported; the same with unrestricted
 * guest changed too, or without the capabilities said to be the same,
 * runs them and reports it.
 */
static void test_since_skips_through_a_steady_change(void **state)
{
	const uint32_t regs_same = VMCS_CHECK_GUEST_REGS | VMCS_CHECK_SEGMENTS;
	struct vmcs_image first = base_image(PROT);
	struct vmcs_check_result res;

	(void)state;
	for (unsigned int how = 0; how < 3; how++) {
		struct vmcs_check_memo memo = { 0 };
		struct vmcs_image m = first;
		uint32_t same = regs_same | VMCS_CHECK_SAME_CAPS, want = 0;

		assert_int_equal(vmcs_check_since(&m, &res, &memo, 0), 0);
		m.proc ^= 1u << 2;			/* interrupt-window exiting */
		m.guest.cr3 |= 1ull << 62;		/* above MAXPHYADDR: 26.3.1.1 */
		if (how == 1) {
			m.proc2 ^= PROC2_UNRESTRICTED_GUEST;	/* and CR0.PG=0 needs it */
			want = 2;
		} else if (how == 2) {
			same &= ~VMCS_CHECK_SAME_CAPS;
			want = 1;
		}
		assert_int_equal(vmcs_check_since(&m, &res, &memo, same), want);
		if (want)
			assert_true(vmcs_check_broke(&res, VMCS_RULE_GUEST_CR3_WIDTH));
	}
}

/* Every rule of VMCS_RULES has a case above: a new rule cannot go untested. */
static void test_every_rule_has_a_case(void **state)
{
	bool seen[VMCS_RULE_COUNT] = { false };
	unsigned int missing = 0;

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		seen[cases[i].rule] = true;
	for (unsigned int r = 0; r < VMCS_RULE_COUNT; r++)
		if (!seen[r]) {
			printf("rule %s has no case\n", vmcs_rule_desc(r)->id);
			missing++;
		}
	assert_int_equal(missing, 0);
}

/* Every violation is reported, not just the first, with the fields and values. */
static void test_all_violations_reported(void **state)
{
	struct vmcs_image m = img_protected();
	struct vmcs_check_result r;

	(void)state;
	m.vpid = 0;
	m.host.cs_sel = 0;
	m.guest.rflags |= RF_TF;
	m.guest.activity = ACTIVITY_HLT;
	assert_int_equal(vmcs_check(&m, &r), 3);
	assert_int_equal(r.v[0].rule, VMCS_RULE_VPID_ZERO);
	assert_int_equal(r.v[0].field, VMCS_F_VPID);
	assert_int_equal(r.v[1].rule, VMCS_RULE_HOST_CS_NULL);
	assert_int_equal(r.v[2].rule, VMCS_RULE_PENDING_DBG_BS_SET);
	assert_int_equal(r.v[2].field, VMCS_F_GUEST_PENDING_DBG);
	assert_int_equal(r.v[2].value, 0);
	assert_int_equal(r.v[2].field2, VMCS_F_GUEST_RFLAGS);
	assert_int_equal(r.v[2].value2, 0x102);
	assert_string_equal(vmcs_rule_desc(r.v[2].rule)->id, "guest.pending_dbg_bs_set");
	assert_string_equal(vmcs_rule_desc(r.v[2].rule)->sdm, "26.3.1.5");
	assert_string_equal(vmcs_field_name(r.v[2].field), "GUEST_PENDING_DBG");
	assert_true(vmcs_check_broke(&r, VMCS_RULE_HOST_CS_NULL));
	assert_false(vmcs_check_broke(&r, VMCS_RULE_HOST_TR_NULL));
	assert_false(vmcs_check_broke(&r, (enum vmcs_rule)VMCS_RULE_COUNT));
}

/* More violations than are kept: all counted, every broken rule still flagged. */
static void test_overflow_keeps_every_rule(void **state)
{
	struct vmcs_image m;
	struct vmcs_check_result r;

	(void)state;
	memset(&m, 0xff, sizeof(m));
	m.cap = img_caps();
	vmcs_check(&m, &r);
	assert_true(r.count > VMCS_CHECK_KEPT);
	assert_true(vmcs_check_broke(&r, VMCS_RULE_PIN_RESERVED));
	/* the last rules of the SDM's order, long past the kept ones */
	assert_true(vmcs_check_broke(&r, VMCS_RULE_PENDING_DBG_RESERVED));
	assert_true(vmcs_check_broke(&r, VMCS_RULE_INTERRUPTIBILITY_RESERVED));
	assert_int_equal(r.v[0].rule, VMCS_RULE_PIN_RESERVED);
}

/* Out-of-range numbers name nothing instead of reading past the tables. */
static void test_names_out_of_range(void **state)
{
	(void)state;
	assert_string_equal(vmcs_rule_desc(VMCS_RULE_COUNT)->id, "?");
	assert_string_equal(vmcs_rule_desc(0xffffffff)->sdm, "?");
	assert_string_equal(vmcs_field_name(VMCS_F_COUNT), "?");
	for (uint32_t r = 0; r < VMCS_RULE_COUNT; r++) {
		assert_non_null(vmcs_rule_desc(r)->id);
		assert_non_null(vmcs_rule_desc(r)->what);
	}
	for (uint32_t f = 0; f < VMCS_F_COUNT; f++)
		assert_non_null(vmcs_field_name(f));
}

/* The controls that decide which rules apply. */
static void test_capabilities_in_force(void **state)
{
	struct vmcs_image m;
	struct vmcs_check_result r;

	(void)state;
	/* without TRUE controls the plain MSR's default-1 CR3 exiting binds */
	m = img_protected();
	m.cap.basic &= ~(1ull << 55);
	assert_int_equal(vmcs_check(&m, &r), 1);
	assert_int_equal(r.v[0].rule, VMCS_RULE_PROC_RESERVED);
	assert_int_equal(r.v[0].field2, VMCS_F_IA32_VMX_PROCBASED_CTLS);
	m.proc |= PROC_CR3_LOAD_EXITING | PROC_CR3_STORE_EXITING;
	assert_valid("plain controls", &m);

	/* secondary controls not activated: not checked, and as if all 0 */
	m = img_long64();
	m.proc &= ~PROC_SECONDARY_CONTROLS;
	m.proc2 = 0xffffffff;
	m.vpid = 0;
	m.eptp = 0;
	assert_valid("no secondary controls", &m);

	/* IA32_VMX_BASIC[56]: any hardware exception may carry a code */
	m = img_protected();
	m.entry_intr_info = INJECT(INTR_TYPE_HW_EXCEPTION, 6) | INTR_INFO_DELIVER_CODE;
	m.cap.basic |= 1ull << 56;
	assert_valid("basic[56] #UD with code", &m);
	m.entry_intr_info = INJECT(INTR_TYPE_HW_EXCEPTION, 13);
	assert_valid("basic[56] #GP without code", &m);
	m.entry_intr_info = INJECT(INTR_TYPE_NMI, 2) | INTR_INFO_DELIVER_CODE;
	assert_int_equal(vmcs_check(&m, &r), 1);
	assert_int_equal(r.v[0].rule, VMCS_RULE_INTR_ERROR_CODE);

	/* a real-mode #GP takes no code */
	m = img_sipi();
	m.entry_intr_info = INJECT(INTR_TYPE_HW_EXCEPTION, 13);
	assert_valid("real-mode #GP", &m);

	/* 57-bit linear addresses: canonical up to bit 56 */
	m = img_long64();
	m.guest.rip = 0x00ff000000000000ull;
	assert_int_equal(vmcs_check(&m, &r), 1);
	m.cap.linear_bits = 57;
	assert_valid("la57 rip", &m);

	/* unrestricted guest: PE and PG free, CD and NW never checked */
	m = img_sipi();
	m.cap.cr0_fixed1 &= ~((1ull << 29) | (1ull << 30));
	m.guest.cr0 |= (1ull << 29) | (1ull << 30);
	assert_valid("cd nw", &m);

	/* zero-length software-interrupt injection where IA32_VMX_MISC[30] */
	m = img_protected();
	m.entry_intr_info = INJECT(INTR_TYPE_SW_INTR, 0x80);
	m.entry_instr_len = 0;
	assert_valid("zero-length int", &m);

	/* TPR shadow with virtual-interrupt delivery: the threshold is free */
	m = img_apicv();
	m.tpr_threshold = 0xff;
	assert_valid("vid threshold", &m);
}

/* The pending-debug rule agrees with hv/core/single_step.h's, which Tempo's HLT path uses. */
static void test_agrees_with_single_step_rule(void **state)
{
	(void)state;
	for (uint32_t bits = 0; bits < 64; bits++) {
		struct vmcs_image m = img_protected();
		struct vmcs_check_result r;
		uint32_t activity = (bits & 1) ? ACTIVITY_HLT : ACTIVITY_ACTIVE;
		uint32_t intr = (bits >> 1) & 3;
		uint64_t rflags = 2 | RF_IF | ((bits & 8) ? RF_TF : 0);
		uint64_t debugctl = (bits & 16) ? 2 : 0;
		uint64_t pending = (bits & 32) ? BS : 0;

		if (intr == 3 || (activity == ACTIVITY_HLT && intr))
			continue;	/* other rules */
		m.guest.activity = activity;
		m.guest.interruptibility = intr;
		m.guest.rflags = rflags;
		m.guest.debugctl = debugctl;
		m.guest.pending_dbg = pending;
		vmcs_check(&m, &r);
		assert_int_equal(!vmcs_check_broke(&r, VMCS_RULE_PENDING_DBG_BS_SET),
				 ss_entry_debug_ok(activity, intr, rflags, debugctl, pending));
	}
}

/* Hostile images never crash the checker, and what it returns is consistent. */
static void test_random_images(void **state)
{
	uint64_t seed = 0x9e3779b97f4a7c15ull;

	(void)state;
	for (unsigned int n = 0; n < 20000; n++) {
		struct vmcs_image m = (n & 1) ? img_long64() : img_protected();
		struct vmcs_check_result r;
		uint8_t *p = (uint8_t *)&m;
		unsigned int flips = 1 + (unsigned int)(xorshift64(&seed) % 8), kept = 0;

		/* anything at all, or a few bytes of a valid image */
		if (n % 4 == 0) {
			for (size_t i = 0; i < sizeof(m); i++)
				p[i] = (uint8_t)xorshift64(&seed);
		} else {
			for (unsigned int f = 0; f < flips; f++)
				p[xorshift64(&seed) % sizeof(m)] = (uint8_t)xorshift64(&seed);
		}
		uint32_t count = vmcs_check(&m, &r);

		assert_int_equal(count, r.count);
		for (uint32_t i = 0; i < r.count && i < VMCS_CHECK_KEPT; i++) {
			assert_true(r.v[i].rule < VMCS_RULE_COUNT);
			assert_true(r.v[i].field < VMCS_F_COUNT);
			assert_true(vmcs_check_broke(&r, (enum vmcs_rule)r.v[i].rule));
			kept++;
		}
		assert_int_equal(kept, r.count < VMCS_CHECK_KEPT ? r.count : VMCS_CHECK_KEPT);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_tempo_images_pass),
		cmocka_unit_test(test_msr_store_entries_bounds),
		cmocka_unit_test(test_each_rule_broken_alone),
		cmocka_unit_test(test_every_rule_has_a_case),
		cmocka_unit_test(test_steady_rules_read_only_the_steady_part),
		cmocka_unit_test(test_since_agrees_with_full_check),
		cmocka_unit_test(test_since_skips_through_a_steady_change),
		cmocka_unit_test(test_all_violations_reported),
		cmocka_unit_test(test_overflow_keeps_every_rule),
		cmocka_unit_test(test_names_out_of_range),
		cmocka_unit_test(test_capabilities_in_force),
		cmocka_unit_test(test_agrees_with_single_step_rule),
		cmocka_unit_test(test_random_images),
	};

	return cmocka_run_group_tests_name("vmcs_check", tests, NULL, NULL);
}
