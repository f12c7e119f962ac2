/* SPDX-License-Identifier: MIT */
/*
 * The x2APIC's architectural registers and fields (SDM Vol. 3A 11.12),
 * definitions only: the core's policy, arch's drivers and the tests share
 * them.
 */
#ifndef TEMPO_HV_LIB_APIC_DEFS_H
#define TEMPO_HV_LIB_APIC_DEFS_H

#include <stdint.h>

#define APIC_BASE_BSP		(1ull << 8)
#define APIC_BASE_EXTD		(1ull << 10)	/* x2APIC mode */
#define APIC_BASE_EN		(1ull << 11)

/* x2APIC MSRs: 0x800 + (xAPIC MMIO offset >> 4) */
#define X2APIC_MSR_FIRST	0x800
#define X2APIC_MSR_LAST		0x8ff
#define X2APIC_ID		0x802
#define X2APIC_VERSION		0x803
#define X2APIC_TPR		0x808
#define X2APIC_PPR		0x80a
#define X2APIC_EOI		0x80b
#define X2APIC_LDR		0x80d
#define X2APIC_SVR		0x80f
#define X2APIC_ISR0		0x810
#define X2APIC_TMR0		0x818
#define X2APIC_IRR0		0x820
#define X2APIC_ESR		0x828
#define X2APIC_LVT_CMCI		0x82f
#define X2APIC_ICR		0x830
#define X2APIC_LVT_TIMER	0x832
#define X2APIC_LVT_THERMAL	0x833
#define X2APIC_LVT_PMC		0x834
#define X2APIC_LVT_LINT0	0x835
#define X2APIC_LVT_LINT1	0x836
#define X2APIC_LVT_ERROR	0x837
#define X2APIC_TIMER_ICR	0x838
#define X2APIC_TIMER_CCR	0x839
#define X2APIC_TIMER_DCR	0x83e
#define X2APIC_SELF_IPI		0x83f

#define APIC_SVR_ENABLE		(1u << 8)
#define APIC_LVT_MASKED		(1u << 16)
#define APIC_LVT_DELIVERY_MASK	(7u << 8)
#define APIC_LVT_TIMER_MODE_MASK (3u << 17)
#define APIC_LVT_TIMER_TSC_DEADLINE (2u << 17)

/* ICR (low half) */
#define ICR_VECTOR_MASK		0xffu
#define ICR_DELIVERY_MASK	(7u << 8)
#define ICR_DELIVERY_FIXED	(0u << 8)
#define ICR_DELIVERY_LOWEST	(1u << 8)
#define ICR_DELIVERY_SMI	(2u << 8)
#define ICR_DELIVERY_NMI	(4u << 8)
#define ICR_DELIVERY_INIT	(5u << 8)
#define ICR_DELIVERY_SIPI	(6u << 8)
#define ICR_DEST_LOGICAL	(1u << 11)
#define ICR_LEVEL_ASSERT	(1u << 14)
#define ICR_TRIGGER_LEVEL	(1u << 15)
#define ICR_SHORTHAND_MASK	(3u << 18)
#define ICR_SHORTHAND_NONE	(0u << 18)
#define ICR_SHORTHAND_SELF	(1u << 18)
#define ICR_SHORTHAND_ALL	(2u << 18)
#define ICR_SHORTHAND_OTHERS	(3u << 18)

/* The logical x2APIC id the hardware derives from an APIC id (SDM 11.12.10.2). */
static inline uint32_t x2apic_logical_id(uint32_t apic_id)
{
	return ((apic_id >> 4) << 16) | (1u << (apic_id & 0xf));
}

#endif
