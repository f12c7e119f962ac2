/* SPDX-License-Identifier: MIT */
/*
 * The debug rules of an instruction Tempo completes or an exception it
 * injects, where the CPU would have applied them itself had the
 * instruction not exited: the resume flag of an injected fault, and the
 * data breakpoints (DR0-DR3, DR7) an emulated MMIO access hits. The rule
 * for I/O breakpoints (R/W 10 with CR4.DE) is here and tested, but the
 * port I/O exit does not raise them: the DR7 read would lengthen that
 * exit past its budget (tests/bench/budget.txt, full:io). Pure,
 * unit-tested in tests/unit/test_debug_trap.c; the single-step trap's rule
 * is hv/core/single_step.h's, and hv/guest/insn.h raises both in one #DB.
 */
#ifndef TEMPO_HV_DEBUG_TRAP_H
#define TEMPO_HV_DEBUG_TRAP_H

#include <stdbool.h>
#include <stdint.h>

#define DT_RFLAGS_RF		(1ull << 16)

/*
 * Whether delivering exception @vector as a hardware exception pushes
 * RFLAGS with RF set: every fault-class exception but #DB (SDM Vol. 3A
 * Table 6-1 gives the classes; 6.8.3 and Vol. 3B 17.3.1.1 say a fault's
 * image has RF set so that IRET does not re-take an instruction breakpoint
 * on the restarted instruction; a #DB leaves RF as it is). The CPU does
 * this on its own, but VM entry pushes the guest-state RFLAGS unchanged
 * whatever it injects (SDM Vol. 3C 26.6.1.1), so a hypervisor that injects
 * a fault sets RF first (KVM does the same).
 */
static inline bool exception_sets_rf(uint32_t vector)
{
	switch (vector) {
	case 0:		/* #DE */
	case 5:		/* #BR */
	case 6:		/* #UD */
	case 7:		/* #NM */
	case 10:	/* #TS */
	case 11:	/* #NP */
	case 12:	/* #SS */
	case 13:	/* #GP */
	case 14:	/* #PF */
	case 16:	/* #MF */
	case 17:	/* #AC */
	case 19:	/* #XM */
	case 20:	/* #VE */
	case 21:	/* #CP */
		return true;
	default:	/* #DB, NMI, #BP and #OF (traps), #DF and #MC (aborts), reserved */
		return false;
	}
}

#define DT_DR6_B_MASK		0xfull		/* B0-B3: which breakpoint matched */
#define DT_DR7_ENABLE_MASK	0xffull		/* L0, G0 ... L3, G3 */
#define DT_CR4_DE		(1ull << 3)

/* DR7.R/Wn: what breakpoint n watches (SDM Vol. 3B 17.2.4) */
#define DT_RW_EXEC		0u
#define DT_RW_WRITE		1u
#define DT_RW_IO		2u	/* with CR4.DE = 1; undefined without */
#define DT_RW_READ_WRITE	3u

enum dt_access {
	DT_ACCESS_READ,
	DT_ACCESS_WRITE,
	DT_ACCESS_IO,		/* IN, OUT: @addr is the port */
};

/* DR7.LENn in bytes: 00 one, 01 two, 10 eight, 11 four (SDM Vol. 3B 17.2.5) */
static inline uint64_t dt_len_bytes(uint64_t dr7, uint32_t n)
{
	static const uint8_t bytes[4] = { 1, 2, 8, 4 };

	return bytes[(dr7 >> (18 + 4 * n)) & 3];
}

/*
 * The DR6.B0-B3 bits an access of @size_bytes at @addr (a linear address,
 * or a port for DT_ACCESS_IO) sets: breakpoint n counts when it is enabled
 * (Ln or Gn), watches this kind of access (a write: R/W 01 or 11; a read:
 * 11; a port: 10 with CR4.DE = 1) and any byte of the access falls in the
 * range it watches, DRn with its low bits ignored per LENn (SDM Vol. 3B
 * 17.2.5: an unaligned DRn is taken as aligned down). 0: no #DB is owed.
 * An execute breakpoint (R/W 00) is the CPU's own to raise, before the
 * instruction, and never matches here.
 */
static inline uint64_t data_breakpoints_hit(uint64_t dr7, const uint64_t dr[4], uint64_t cr4,
					    enum dt_access access, uint64_t addr,
					    uint32_t size_bytes)
{
	uint64_t hit = 0;

	if (!(dr7 & DT_DR7_ENABLE_MASK) || !size_bytes)
		return 0;
	for (uint32_t n = 0; n < 4; n++) {
		uint32_t rw = (dr7 >> (16 + 4 * n)) & 3;
		uint64_t len = dt_len_bytes(dr7, n);
		uint64_t start = dr[n] & ~(len - 1);
		bool kind;

		if (!(dr7 & (3ull << (2 * n))))
			continue;
		if (access == DT_ACCESS_IO)
			kind = rw == DT_RW_IO && (cr4 & DT_CR4_DE);
		else if (access == DT_ACCESS_WRITE)
			kind = rw == DT_RW_WRITE || rw == DT_RW_READ_WRITE;
		else
			kind = rw == DT_RW_READ_WRITE;
		/* the two ranges overlap; written without an end that could wrap */
		if (kind && (addr - start < len || start - addr < size_bytes))
			hit |= 1ull << n;
	}
	return hit;
}

/*
 * DR6 as the #DB of an emulated instruction leaves it: the data breakpoints
 * it hit in B0-B3 (the CPU may clear the others, SDM Vol. 3B 17.2.3; the
 * hit set replaces them, as Bochs does), BS when its single-step trap is
 * owed too (one #DB reports both, 17.3.1.2 and 17.3.1.4), the rest kept.
 */
static inline uint64_t debug_trap_dr6(uint64_t dr6, uint64_t hit, bool single_step)
{
	if (hit)
		dr6 = (dr6 & ~DT_DR6_B_MASK) | hit;
	if (single_step)
		dr6 |= 1ull << 14;
	return dr6;
}

#endif
