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
 * @steady_same: whether every field of the image's steady part read back
 * what @img held (so VMCS_CHECK_STEADY's answer is the one it gave
 * before). Every write to the steady part here goes through SET_STEADY.
 */
uint32_t vmcs_image_read(struct vmcs_image *img, bool *steady_same);

/* Only the guest-state fields, after a VM exit that changed nothing else. */
uint32_t vmcs_image_read_guest(struct vmcs_image *img);

#endif
