// SPDX-License-Identifier: MIT
/* Exceptions into the guest, and the event an exit interrupted. */
#include "hv/guest/inject.h"

#include "arch/x86/vmx.h"
#include "hv/core/debug_trap.h"

#define CR0_PE		(1ull << 0)

/*
 * A real-mode vCPU (an AP in its trampoline, with unrestricted guest) takes
 * exceptions through the IVT, which has no error codes: VM entry refuses an
 * error code unless CR0.PE = 1 (SDM Vol. 3C 26.2.1.3). A fault pushes RF
 * set, which VM entry leaves to us (exception_sets_rf); the IVT's 16-bit
 * FLAGS image has no RF to carry.
 */
void inject_exception(uint32_t vector, bool has_error, uint32_t error)
{
	uint32_t info = INTR_INFO_VALID | INTR_TYPE_HW_EXCEPTION | vector;
	bool protected_mode = vmread(VMCS_GUEST_CR0) & CR0_PE;

	if (has_error && protected_mode) {
		info |= INTR_INFO_DELIVER_CODE;
		vmwrite(VMCS_ENTRY_EXCEPTION_ERROR, error);
	}
	if (protected_mode && exception_sets_rf(vector))
		vmwrite(VMCS_GUEST_RFLAGS, vmread(VMCS_GUEST_RFLAGS) | DT_RFLAGS_RF);
	vmwrite(VMCS_ENTRY_INTR_INFO, info);
}

/* An exit during event delivery: deliver that event again (SDM 27.2.4). */
void reinject_vectoring(void)
{
	uint32_t info = (uint32_t)vmread(VMCS_IDT_VECTORING_INFO);

	if (!(info & INTR_INFO_VALID))
		return;
	if (info & INTR_INFO_DELIVER_CODE)
		vmwrite(VMCS_ENTRY_EXCEPTION_ERROR, vmread(VMCS_IDT_VECTORING_ERROR));
	vmwrite(VMCS_ENTRY_INTR_INFO, info & ~(1u << 12));
}
