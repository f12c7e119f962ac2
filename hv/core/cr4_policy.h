/* SPDX-License-Identifier: MIT */
/*
 * Which CR4 bits a guest owns: written without an exit, as on hardware.
 * They are the bits whose state is all in CR4 and the VMCS (or the vCPU's
 * XSAVE area), so a guest that sets them leaves nothing on the core for the
 * next partition of a shared core. Every other bit is in the CR4
 * guest/host mask, reads 0 from the read shadow, and setting it is #GP,
 * as on a CPU without the feature:
 *   VMXE (13), SMXE (14)          VMX and SMX are hidden
 *   KL (19)                       Key Locker: the wrapping key is per core
 *   CET (23), PKS (24)            their MSRs (S_CET, PKRS) are the host's
 *   UINTR (25)                    UIF is per core and not in the VMCS
 *   FRED (32) and later bits      FRED's MSRs are the host's; unknown bits
 *                                 default to #GP, not to the guest
 * PKE (22) is the guest's only where its XSAVE area switches PKRU. Pure and
 * host-testable (tests/unit/test_cr4_policy.c).
 */
#ifndef TEMPO_HV_CORE_CR4_POLICY_H
#define TEMPO_HV_CORE_CR4_POLICY_H

#include <stdbool.h>
#include <stdint.h>

#define CR4_POLICY_PKE	(1ull << 22)

/*
 * VME PVI TSD DE PSE PAE MCE PGE PCE OSFXSR OSXMMEXCPT UMIP LA57 (0-12),
 * FSGSBASE PCIDE OSXSAVE (16-18), SMEP SMAP (20-21), LASS LAM_SUP (27-28)
 */
#define CR4_GUEST_OWNED								\
	(0x1fffull | (1ull << 16) | (1ull << 17) | (1ull << 18) | (1ull << 20) |	\
	 (1ull << 21) | (1ull << 27) | (1ull << 28))

/* The CR4 guest/host mask for a vCPU: @guest_pke when its area switches PKRU. */
static inline uint64_t cr4_guest_host_mask(bool guest_pke)
{
	return ~(CR4_GUEST_OWNED | (guest_pke ? CR4_POLICY_PKE : 0));
}

/* A MOV to CR4 that exited: false (#GP) if @value sets a bit the guest does not own. */
static inline bool cr4_write_ok(uint64_t value, bool guest_pke)
{
	return !(value & cr4_guest_host_mask(guest_pke));
}

#endif
