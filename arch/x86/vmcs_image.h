/* SPDX-License-Identifier: MIT */
/*
 * The current VMCS as a struct vmcs_image (hv/lib/vmcs_check.h), for the
 * VMCS checker: the VMX capability MSRs once, the fields with VMREAD before
 * each entry.
 */
#ifndef TEMPO_ARCH_X86_VMCS_IMAGE_H
#define TEMPO_ARCH_X86_VMCS_IMAGE_H

#include <stdbool.h>
#include <stdint.h>

#include "hv/lib/vmcs_check.h"

/* The capability MSRs and the CPUID widths the checks read (RDMSR, CPUID). */
void vmcs_image_caps(struct vmcs_caps *caps);

/*
 * Fill @img from the current VMCS and this CPU (VMREAD, VMPTRST, IA32_EFER),
 * @img->cap being already set. A field is read only where the controls
 * make a check read it (the APIC-access address only with APIC-access
 * virtualization...), so no field the CPU lacks is asked for. Returns the
 * encoding of the first field VMREAD refused (its value is then 0), or
 * VMCS_IMAGE_ALL_READ.
 */
#define VMCS_IMAGE_ALL_READ	0xffffffffu
/*
 * @same: the parts of the checker (VMCS_CHECK_STEADY, _GUEST_REGS,
 * _SEGMENTS) whose inputs all read back what @img held, so that their
 * answer is the one they gave before (vmcs_check_since). Every write to
 * those inputs here goes through SET_TRACKED (or FAST_TRACKED), but on the
 * slow path after a refused VMREAD, which first marks them all changed.
 *
 * @steady false: the steady part's VMCS fields are not read again, only
 * the processor's (VMPTRST, IA32_EFER) and the MSR-store list's memory,
 * where @img already holds what this VMCS's fields are: the caller knows
 * none was written since @img read them (vmcs_steady_writes,
 * arch/x86/vmx.h). A VMCS other than the one @img read is read whole.
 */
uint32_t vmcs_image_read(struct vmcs_image *img, uint32_t *same, bool steady);

/*
 * Only the guest-state fields, after a VM exit that changed nothing else
 * (@same then has VMCS_CHECK_STEADY: that part was not read again).
 */
uint32_t vmcs_image_read_guest(struct vmcs_image *img, uint32_t *same);

#endif
