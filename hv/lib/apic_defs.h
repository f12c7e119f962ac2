/* SPDX-License-Identifier: MIT */
/*
 * The local APIC's architectural registers and fields: the x2APIC MSRs
 * (SDM Vol. 3A 11.12) and the xAPIC page (SDM Vol. 3A 11.4.1, table 11-1),
 * definitions only: the core's policy, arch's drivers and the tests share
 * them.
 */
#ifndef TEMPO_HV_LIB_APIC_DEFS_H
#define TEMPO_HV_LIB_APIC_DEFS_H

#include <stdint.h>

#define APIC_BASE_BSP		(1ull << 8)
#define APIC_BASE_EXTD		(1ull << 10)	/* x2APIC mode */
#define APIC_BASE_EN		(1ull << 11)
#define APIC_BASE_ADDR_SHIFT	12	/* bits 12 .. MAXPHYADDR-1: the page's base */
#define APIC_BASE_DEFAULT	0xfee00000ull	/* the base after reset (SDM 11.4.4) */

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

/*
 * The xAPIC register page: one 32-bit register at the start of each 16-byte
 * slot, at offset (x2APIC MSR - 0x800) << 4 where both forms exist (SDM
 * table 11-1; table 11-6 for the x2APIC side).
 */
#define XAPIC_PAGE_SIZE		0x1000u
#define XAPIC_SLOT_SIZE		16u
#define XAPIC_ID		0x020u
#define XAPIC_VERSION		0x030u
#define XAPIC_TPR		0x080u
#define XAPIC_APR		0x090u	/* arbitration priority: xAPIC only */
#define XAPIC_PPR		0x0a0u
#define XAPIC_EOI		0x0b0u
#define XAPIC_RRD		0x0c0u	/* remote read: xAPIC only */
#define XAPIC_LDR		0x0d0u
#define XAPIC_DFR		0x0e0u	/* destination format: xAPIC only */
#define XAPIC_SVR		0x0f0u
#define XAPIC_ISR0		0x100u
#define XAPIC_TMR0		0x180u
#define XAPIC_IRR0		0x200u
#define XAPIC_ESR		0x280u
#define XAPIC_LVT_CMCI		0x2f0u
#define XAPIC_ICR_LOW		0x300u
#define XAPIC_ICR_HIGH		0x310u	/* xAPIC only: the ICR's bits 63:32 */
#define XAPIC_LVT_TIMER		0x320u
#define XAPIC_LVT_THERMAL	0x330u
#define XAPIC_LVT_PMC		0x340u
#define XAPIC_LVT_LINT0		0x350u
#define XAPIC_LVT_LINT1		0x360u
#define XAPIC_LVT_ERROR		0x370u
#define XAPIC_TIMER_ICR		0x380u
#define XAPIC_TIMER_CCR		0x390u
#define XAPIC_TIMER_DCR		0x3e0u

#define XAPIC_ID_SHIFT		24	/* ID and LDR: the 8-bit id in bits 31:24 */
#define XAPIC_ICR_DEST_SHIFT	24	/* ICR_HIGH: the 8-bit destination in bits 31:24 */
#define XAPIC_DFR_MODEL_MASK	0xf0000000u	/* bits 31:28: 1111b flat, 0000b cluster */
#define XAPIC_DFR_FLAT		0xffffffffu
#define XAPIC_DFR_CLUSTER	0x0fffffffu
#define XAPIC_BROADCAST_ID	0xffu	/* physical and logical: every APIC (SDM 11.6.2) */

#define APIC_SVR_ENABLE		(1u << 8)
#define APIC_LVT_MASKED		(1u << 16)
#define APIC_LVT_DELIVERY_MASK	(7u << 8)
#define APIC_LVT_TIMER_MODE_MASK (3u << 17)
#define APIC_LVT_TIMER_ONE_SHOT	(0u << 17)
#define APIC_LVT_TIMER_PERIODIC	(1u << 17)
#define APIC_LVT_TIMER_TSC_DEADLINE (2u << 17)
/* The divide configuration: bits 0, 1 and 3 (figure 11-10) */
#define APIC_TDCR_MASK		0xbu

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
#define ICR_DELIVERY_STATUS	(1u << 12)	/* read-only: 1 while the IPI is being sent */
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
