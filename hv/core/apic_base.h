/* SPDX-License-Identifier: MIT */
/*
 * A guest's IA32_APIC_BASE (MSR 0x1b): the local APIC's mode (disabled,
 * xAPIC, x2APIC), the base of its xAPIC register page and the BSP flag, and
 * what a WRMSR to it does. SDM Vol. 3A 11.4.4 (the MSR, figure 11-5), 11.4.3
 * (disabling the APIC) and 11.12.5 (the x2APIC state transitions, figure
 * 11-27). Pure and host-testable (tests/unit/test_xapic.c).
 *
 *   from \ written  EN=0 EXTD=0   EN=0 EXTD=1   EN=1 EXTD=0   EN=1 EXTD=1
 *   disabled        stays         #GP invalid   xAPIC         #GP
 *   xAPIC           disabled (*)  #GP invalid   stays         x2APIC
 *   x2APIC          disabled (*)  #GP invalid   #GP           stays
 *
 * (*) the APIC returns to its power-up state (11.4.3; 11.12.5.1: only the
 * x2APIC id survives). Every accepted write may also move the base.
 *
 * Where the SDM leaves room:
 *  - BSP (bit 8) is not reserved, so a write that flips it is not a #GP; it
 *    is ignored: the bit keeps the partition's choice of boot vCPU, which
 *    INIT/SIPI and the restart code rely on. (KVM stores the bit; software
 *    read-modify-writes it, so the two differ only for a guest that lies
 *    about being the BSP.)
 *  - The xAPIC page is decoded only in xAPIC mode. Disabled (11.4.3: "as a
 *    processor without an on-chip APIC") and in x2APIC mode (11.12.2: "similar
 *    to that of a legacy xAPIC in globally disabled state") nothing answers
 *    at the page: reads return all ones and writes are dropped, as for an
 *    unclaimed port (hv/core/io_policy.c). kvm-unit-tests' apic test checks
 *    exactly that (verify_disabled_apic_mmio).
 */
#ifndef TEMPO_HV_APIC_BASE_H
#define TEMPO_HV_APIC_BASE_H

#include <stdbool.h>
#include <stdint.h>

enum apic_mode {
	APIC_MODE_DISABLED,	/* EN=0, EXTD=0 */
	APIC_MODE_XAPIC,	/* EN=1, EXTD=0: the register page at base */
	APIC_MODE_X2APIC,	/* EN=1, EXTD=1: the MSRs 0x800-0x8ff */
};

struct apic_base_state {
	enum apic_mode mode;
	uint64_t base;		/* the page's physical address: bits 12 .. MAXPHYADDR-1 */
	bool bsp;
};

/* What the vCPU's CPUID tells it, which decides what is reserved. */
struct apic_base_caps {
	uint32_t maxphyaddr;	/* CPUID 0x80000008 EAX[7:0]: bits from it up are reserved */
	bool x2apic;		/* CPUID 1 ECX[21]: without it EXTD is reserved */
};

enum apic_base_fault {
	APIC_BASE_OK,
	APIC_BASE_GP_RESERVED,	/* bits 0-7, 9, >= MAXPHYADDR; EXTD without x2APIC */
	APIC_BASE_GP_INVALID,	/* EXTD=1 with EN=0: the invalid state */
	APIC_BASE_GP_X2APIC_TO_XAPIC,	/* x2APIC -> xAPIC: only through disabled */
	APIC_BASE_GP_DISABLED_TO_X2APIC,	/* disabled -> x2APIC: only through xAPIC */
};

struct apic_base_write {
	enum apic_base_fault fault;	/* APIC_BASE_OK, or #GP and nothing changes */
	const char *why;	/* for a fault */
	struct apic_base_state state;	/* the state after the write (the old one on #GP) */
	bool mode_changed;
	bool base_moved;	/* the page is trapped at a new address (state.base) */
	/*
	 * The APIC was disabled: every register back to its power-up value
	 * (11.4.7.1, 11.12.5.1) but the x2APIC id; the xAPIC id becomes its
	 * low 8 bits; a count-down timer stops; pending and in-service
	 * interrupts are gone.
	 */
	bool reset;
};

/* The state after reset or at a partition's start: @mode at 0xfee00000. */
void apic_base_init(struct apic_base_state *s, enum apic_mode mode, bool bsp);

/* What RDMSR IA32_APIC_BASE returns. */
uint64_t apic_base_value(const struct apic_base_state *s);

/* A WRMSR of @value, judged from @s (which it does not change). */
struct apic_base_write apic_base_write(const struct apic_base_state *s, uint64_t value,
				       const struct apic_base_caps *caps);

/* Whether the xAPIC page at s->base answers (only in xAPIC mode; see above). */
bool apic_base_page_decoded(const struct apic_base_state *s);

/* What a read of the undecoded page returns (all ones, @size_bytes 1..8). */
uint64_t apic_base_undecoded_read(uint32_t size_bytes);

#endif
