/* SPDX-License-Identifier: MIT */
/* The local APIC in x2APIC mode (SDM Vol. 3A 11.12). */
#ifndef TEMPO_ARCH_X86_APIC_H
#define TEMPO_ARCH_X86_APIC_H

#include <stdbool.h>
#include <stdint.h>

#include "arch/x86/cpu.h"
#include "arch/x86/msr.h"

#include "hv/lib/apic_defs.h"

static inline void x2apic_enable(void)
{
	uint64_t base = rdmsr(MSR_IA32_APIC_BASE);

	/* xAPIC must be enabled before x2APIC (SDM Vol. 3A 11.12.1) */
	if (!(base & APIC_BASE_EN))
		wrmsr(MSR_IA32_APIC_BASE, base | APIC_BASE_EN);
	wrmsr(MSR_IA32_APIC_BASE, base | APIC_BASE_EN | APIC_BASE_EXTD);
}

/* Is @vector pending in the IRR: bit v % 32 of IRR register v / 32 (SDM 11.12.1). */
static inline bool x2apic_irr_test(uint8_t vector)
{
	return rdmsr(X2APIC_IRR0 + vector / 32) & (1u << (vector % 32));
}

/*
 * EOI every vector in service, highest first (an EOI clears the highest ISR
 * bit, SDM 11.8.5): what a guest that owned the LAPIC took and never ended
 * would otherwise block its class and those below for the next guest.
 */
static inline void x2apic_eoi_all(void)
{
	for (int i = 0; i < 256; i++) {
		bool any = false;

		for (uint32_t r = 0; r < 8; r++)
			any = any || rdmsr(X2APIC_ISR0 + r) != 0;
		if (!any)
			return;
		wrmsr(X2APIC_EOI, 0);
	}
}

static inline uint32_t x2apic_id(void)
{
	return (uint32_t)rdmsr(X2APIC_ID);
}

/*
 * A WRMSR to an x2APIC register is not serializing and may complete before
 * this core's earlier stores are globally visible (SDM Vol. 3A, "MSR
 * Access in x2APIC Mode"): the target could take the IPI and read the flag
 * or ring it announces as it was. MFENCE makes the stores visible, LFENCE
 * keeps the WRMSR from starting before that. Bochs runs instructions in
 * order, so no run here can show the race: tests/tools/icr_fences.py
 * checks that every ICR write in tempo.elf has the pair in front of it.
 */
static inline void x2apic_send(uint32_t dest, uint32_t icr_low)
{
	__asm__ volatile("mfence; lfence" ::: "memory");
	wrmsr(X2APIC_ICR, ((uint64_t)dest << 32) | icr_low);
}

static inline void x2apic_send_nmi(uint32_t dest)
{
	x2apic_send(dest, ICR_DELIVERY_NMI | ICR_LEVEL_ASSERT);
}

#endif
