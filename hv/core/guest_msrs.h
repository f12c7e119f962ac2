/* SPDX-License-Identifier: MIT */
/*
 * The MSRs a guest owns outright but that set nothing in the hardware: the
 * memory-type range registers and IA32_MISC_ENABLE. Under EPT the guest's
 * MTRRs give no memory type (EPT's type does, with the guest's PAT), and
 * the host's describe host memory; but a guest that programs its MTRRs
 * (Linux's mtrr code, a firmware, kvm-unit-tests) expects a CPU's rules:
 * a reserved memory type or a reserved bit is #GP (SDM Vol. 3A 12.11.2,
 * 12.11.2.2, 12.11.2.3), everything else reads back as written. Likewise
 * the IA32_MISC_ENABLE bits an OS may set (SDM Vol. 4, Table 2-2). Kept per
 * vCPU, as the CPU keeps them per logical processor, and checked here:
 * pure, unit-tested in tests/unit/test_guest_msrs.c.
 */
#ifndef TEMPO_HV_GUEST_MSRS_H
#define TEMPO_HV_GUEST_MSRS_H

#include <stdbool.h>
#include <stdint.h>

#define MSR_MTRRCAP		0x0feu
#define MSR_MISC_ENABLE		0x1a0u
#define MSR_MTRR_PHYSBASE0	0x200u
#define MSR_MTRR_FIX64K_00000	0x250u
#define MSR_MTRR_FIX16K_80000	0x258u
#define MSR_MTRR_FIX16K_A0000	0x259u
#define MSR_MTRR_FIX4K_C0000	0x268u
#define MSR_MTRR_FIX4K_F8000	0x26fu
#define MSR_MTRR_DEF_TYPE	0x2ffu

/* Variable ranges offered: as many as KVM offers, so guests tested there see the same */
#define GUEST_MTRR_VARIABLE	8u
#define GUEST_MTRR_FIXED	11u	/* 64K_00000, 16K_80000/A0000, 4K_C0000..F8000 */

/* IA32_MTRRCAP (SDM Vol. 3A 12.11.1): VCNT, fixed ranges (bit 8), write-combining (bit 10) */
#define GUEST_MTRRCAP		(GUEST_MTRR_VARIABLE | (1ull << 8) | (1ull << 10))

/*
 * IA32_MTRR_DEF_TYPE out of reset, as the guest reads it before it writes
 * one: MTRRs enabled (bit 11), fixed ranges off, default write-back (6).
 * A CPU comes out of reset with MTRRs off (everything uncachable) and its
 * firmware enables them; a partition has no firmware, and a default of UC
 * made Linux drop the RAM no range covered ("CPU MTRRs don't cover all of
 * memory").
 */
#define GUEST_MTRR_DEF_TYPE	0x806ull

/* IA32_MISC_ENABLE bits (SDM Vol. 4, Table 2-2) */
#define MISC_FAST_STRINGS	(1ull << 0)
#define MISC_AUTO_THERMAL	(1ull << 3)
#define MISC_PERF_MON		(1ull << 7)
#define MISC_BTS_UNAVAIL	(1ull << 11)
#define MISC_PEBS_UNAVAIL	(1ull << 12)
#define MISC_EIST		(1ull << 16)
#define MISC_MONITOR		(1ull << 18)
#define MISC_LIMIT_CPUID	(1ull << 22)
#define MISC_XTPR_DISABLE	(1ull << 23)
#define MISC_XD_DISABLE		(1ull << 34)
#define MISC_TURBO_DISABLE	(1ull << 38)

/*
 * What a guest may change and read back, per vCPU (the R/W bits of SDM
 * Vol. 4 Table 2-2 an OS writes): fast strings, automatic thermal control,
 * Enhanced SpeedStep, ENABLE MONITOR FSM, limit CPUID maxval, xTPR message
 * disable, XD bit disable and turbo disable. None reaches the physical MSR:
 * it is the core's, shared with the host and with the next partition on a
 * shared core, and every one of these either tunes power management the
 * partition does not own or changes what CPUID shows. Their effects are not
 * modelled: CPUID stays as Tempo shows it (MONITOR/MWAIT hidden, the full
 * basic range, NX as the host has it), as under KVM. Linux clears
 * LIMIT_CPUID and XD_DISABLE when it finds them set and reads CPUID again,
 * which is what it finds either way.
 */
#define MISC_GUEST_WRITABLE	(MISC_FAST_STRINGS | MISC_AUTO_THERMAL | MISC_EIST | \
				 MISC_MONITOR | MISC_LIMIT_CPUID | MISC_XTPR_DISABLE | \
				 MISC_XD_DISABLE | MISC_TURBO_DISABLE)
/*
 * Written, kept as they are, no #GP: the read-only status bits (performance
 * monitoring, BTS and PEBS unavailable), which a read-modify-write carries.
 */
#define MISC_GUEST_KEPT		(MISC_PERF_MON | MISC_BTS_UNAVAIL | MISC_PEBS_UNAVAIL)

/* Without the MSR on the host (Bochs' Ivy Bridge): fast strings on, BTS and PEBS unavailable */
#define MISC_ENABLE_DEFAULT	(MISC_FAST_STRINGS | MISC_BTS_UNAVAIL | MISC_PEBS_UNAVAIL)

struct guest_msrs {
	uint64_t mtrr_def_type;
	uint64_t mtrr_var[2 * GUEST_MTRR_VARIABLE];	/* PHYSBASE0, PHYSMASK0, PHYSBASE1, ... */
	uint64_t mtrr_fixed[GUEST_MTRR_FIXED];
	uint64_t misc_enable;
};

/*
 * The state out of reset: the MTRRs as above (no range valid, fixed ranges
 * uncachable and off), MISC_ENABLE @misc_enable (the host's, or
 * MISC_ENABLE_DEFAULT).
 */
void guest_msrs_reset(struct guest_msrs *m, uint64_t misc_enable);

/* Whether @msr is one of the MTRRs kept here (MTRRCAP, the ranges, DEF_TYPE). */
bool guest_mtrr_msr(uint32_t msr);

/*
 * RDMSR of an MTRR: true with *@value, or false: no such MSR here (#GP).
 * @maxphyaddr (CPUID 0x80000008 EAX[7:0], 0 means 36) bounds the range
 * registers' address bits.
 */
bool guest_mtrr_read(const struct guest_msrs *m, uint32_t msr, uint64_t *value);
/* WRMSR of an MTRR: false (#GP, nothing changed) for a reserved type or bit, or MTRRCAP. */
bool guest_mtrr_write(struct guest_msrs *m, uint32_t msr, uint64_t value, uint8_t maxphyaddr);

/* WRMSR IA32_MISC_ENABLE: false (#GP, nothing changed) when a bit it may not change changes. */
bool guest_misc_enable_write(struct guest_msrs *m, uint64_t value);

/* A memory type a range or the default may hold: UC 0, WC 1, WT 4, WP 5, WB 6 (SDM Table 12-8). */
bool mtrr_type_valid(uint64_t type);

#endif
