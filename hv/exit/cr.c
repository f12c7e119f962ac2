// SPDX-License-Identifier: MIT
/* Control-register exits: MOV to CR0/CR4, MOV to/from CR8, and XSETBV (XCR0). */
#include "arch/x86/cpu.h"
#include "hv/core/cr4_policy.h"
#include "hv/core/guest_walk.h"
#include "hv/core/xcr0.h"
#include "hv/exit/exit.h"
#include "hv/state/platform.h"

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
#define SEG_AR_L	(1u << 13)	/* a code segment's L bit, in the VMCS access rights */
#define TR_TYPE_BUSY16	3		/* a busy 16-bit TSS */

enum pdpte_load { PDPTE_OK, PDPTE_RESERVED, PDPTE_NOT_RAM };

/*
 * With EPT, 32-bit PAE paging takes its PDPTEs from the VMCS (SDM 26.3.2.4).
 * A present one with a reserved bit is the guest's #GP(0), as the CPU's own
 * load would be (SDM Vol. 3A 4.4.1); in the VMCS it would fail the entry
 * (26.3.1.6; Bochs checks that too: attack pae_pdpte_reserved). Nothing is
 * written unless all four are good.
 */
static enum pdpte_load load_pdptes(struct vcpu *v, uint64_t cr3)
{
	const uint64_t *pdpte = gpa_to_hva(v->part, cr3 & 0xffffffe0ull, 32);
	uint8_t maxphyaddr = platform.maxphyaddr;
	uint64_t e[4];

	if (!pdpte)
		return PDPTE_NOT_RAM;
	for (int i = 0; i < 4; i++) {
		e[i] = pdpte[i];	/* once: the guest's other vCPUs may be writing */
		if (gw_pdpte_reserved(e[i], maxphyaddr))
			return PDPTE_RESERVED;
	}
	for (int i = 0; i < 4; i++)
		vmwrite(VMCS_GUEST_PDPTE0 + 2 * i, e[i]);
	return PDPTE_OK;
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

static enum exit_action write_cr0(struct vcpu *v, struct exit_ctx *x, uint64_t value)
{
	uint64_t old = vmread(VMCS_GUEST_CR0), efer = vmread(VMCS_GUEST_EFER);
	uint32_t entry = (uint32_t)vmread(VMCS_ENTRY_CONTROLS);
	bool ia32e_on = !(old & CR0_PG) && (value & CR0_PG) && (efer & EFER_LME);

	/*
	 * The #GP cases of MOV to CR0 (SDM Vol. 2B MOV—Move to/from Control
	 * Registers): bits 63:32 set, PG without PE, NW without CD, PG with
	 * EFER.LME but no CR4.PAE, or activating IA-32e mode with CS.L set or
	 * TR a 16-bit TSS, PG cleared in 64-bit code or with CR4.PCIDE, WP
	 * cleared with CR4.CET. A value VM entry would refuse (SDM 26.3.1.1;
	 * in IA-32e mode CS.L with CS.D and a TR other than a busy 64-bit
	 * TSS, 26.3.1.2) must never reach the VMCS.
	 */
	if ((value >> 32) || ((value & CR0_PG) && !(value & CR0_PE)) ||
	    ((value & CR0_NW) && !(value & CR0_CD)) ||
	    (ia32e_on && (!(vmread(VMCS_GUEST_CR4) & CR4_PAE) ||
			  (vmread(VMCS_GUEST_CS_AR) & SEG_AR_L) ||
			  (vmread(VMCS_GUEST_TR_AR) & 0xf) == TR_TYPE_BUSY16)) ||
	    ((old & CR0_PG) && !(value & CR0_PG) &&
	     (guest_64bit_code() || (vmread(VMCS_GUEST_CR4) & CR4_PCIDE))) ||
	    (!(value & CR0_WP) && (vmread(VMCS_GUEST_CR4) & CR4_CET))) {
		inject_exception(VEC_GP, true, 0);
		return EXIT_RESUME;
	}
	/* The write exited, so the CPU did none of it: do what it would do. */
	if (ia32e_on) {
		efer |= EFER_LMA;
		entry |= ENTRY_IA32E_MODE_GUEST;
	} else if ((old & CR0_PG) && !(value & CR0_PG) && (efer & EFER_LMA)) {
		efer &= ~EFER_LMA;
		entry &= ~ENTRY_IA32E_MODE_GUEST;
	}
	/*
	 * Loaded only by a MOV to CR0 that changes PG, CD or NW (SDM Vol. 3A
	 * 4.4.1), not NE alone. The guest's CD and NW are in the shadow (the
	 * VMCS keeps the cache on); its PG is the VMCS's, not the shadow's: PG
	 * is not in the CR0 mask, so the guest turns paging off and on
	 * without an exit, and the shadow keeps the PG of the last write that
	 * exited.
	 */
	if ((value & CR0_PG) && !(efer & EFER_LMA) && (vmread(VMCS_GUEST_CR4) & CR4_PAE) &&
	    (((value ^ old) & CR0_PG) || ((value ^ v->arch.cr0_shadow) & (CR0_CD | CR0_NW)))) {
		switch (load_pdptes(v, vmread(VMCS_GUEST_CR3))) {
		case PDPTE_NOT_RAM:
			return exit_stop(x, "bad_pdpte", vmread(VMCS_GUEST_CR3),
					 "PAE PDPTEs outside RAM");
		case PDPTE_RESERVED:
			inject_exception(VEC_GP, true, 0);
			return EXIT_RESUME;
		case PDPTE_OK:
			break;
		}
	}
	vmwrite(VMCS_GUEST_EFER, efer);
	vmwrite(VMCS_ENTRY_CONTROLS, entry);
	v->arch.cr0_shadow = value;
	vmwrite(VMCS_CR0_READ_SHADOW, value);
	vmwrite(VMCS_GUEST_CR0, vmx_guest_cr0(value));
	skip_instruction();
	return EXIT_RESUME;
}

static enum exit_action write_cr4(struct vcpu *v, uint64_t value)
{
	/* only bits the guest owns (hv/core/cr4_policy.h): the rest are #GP */
	if (!cr4_write_ok(value, (xsave_plan.xcr0_allowed & XCR0_PKRU) != 0)) {
		inject_exception(VEC_GP, true, 0);
		return EXIT_RESUME;
	}
	v->arch.cr4_shadow = value;
	vmwrite(VMCS_CR4_READ_SHADOW, value);
	vmwrite(VMCS_GUEST_CR4, vmx_guest_cr4(value));
	skip_instruction();
	return EXIT_RESUME;
}

enum exit_action exit_cr_access(struct vcpu *v, struct exit_ctx *x)
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
			return EXIT_RESUME;
		}
		if (type == 0)
			vlapic_set_tpr(&v->vt.vlapic, (uint8_t)((read_gpr(v, reg) & 15) << 4));
		else if ((reg & 15) == 4)
			vmwrite(VMCS_GUEST_RSP, v->vt.vlapic.tpr >> 4);
		else
			*gpr(v, reg) = v->vt.vlapic.tpr >> 4;
		skip_instruction();
		return EXIT_RESUME;
	}
	if (type == 0 && cr == 0)
		return write_cr0(v, x, cr_operand(v, reg));
	if (type == 0 && cr == 4)
		return write_cr4(v, cr_operand(v, reg));
	return exit_stop(x, "cr_access", q, "unexpected control-register access");
}

enum exit_action exit_xsetbv(struct vcpu *v, struct exit_ctx *x)
{
	uint64_t value = guest_edx_eax(v);

	(void)x;
	/*
	 * The SDM's rules (hv/core/xcr0.c) within what the XSAVE area holds; and
	 * should this CPU still refuse the value, the #GP is the guest's, not
	 * the hypervisor's end (SDM Vol. 2B XSETBV).
	 */
	if (!xsetbv_legal((uint32_t)v->arch.regs.rcx, guest_cpl(), value, xsave_plan.xcr0_allowed) ||
	    !xsetbv_safe(0, value)) {
		inject_exception(VEC_GP, true, 0);
		return EXIT_RESUME;
	}
	skip_instruction();
	return EXIT_RESUME;
}
