/* SPDX-License-Identifier: MIT */
/*
 * Speculative-execution hygiene: which mitigations this CPU needs, decided
 * once at boot from CPUID leaf 7 EDX and IA32_ARCH_CAPABILITIES, and the SMT
 * sibling test of the config check. Pure (tests/unit/test_spec.c); the
 * entry-mode constants are in hv/lib/spec_defs.h, shared with arch/.
 */
#ifndef TEMPO_HV_SPEC_H
#define TEMPO_HV_SPEC_H

/* SPEC_ENTRY_*, PRED_CMD_IBPB, FLUSH_CMD_L1D: shared with arch/ */
#include "hv/lib/spec_defs.h"

#ifndef __ASSEMBLER__
#include <stdbool.h>
#include <stdint.h>

#include "hv/core/cpuset.h"

/* CPUID.(EAX=7,ECX=0):EDX (SDM Vol. 2A; Intel "Speculative Execution Side Channel
 * Mitigations") */
#define CPUID_7_EDX_SRBDS_CTRL		(1u << 9)
#define CPUID_7_EDX_MD_CLEAR		(1u << 10)
#define CPUID_7_EDX_TSX_FORCE_ABORT	(1u << 13)
#define CPUID_7_EDX_IBRS_IBPB		(1u << 26)	/* IA32_SPEC_CTRL, IA32_PRED_CMD */
#define CPUID_7_EDX_STIBP		(1u << 27)
#define CPUID_7_EDX_L1D_FLUSH		(1u << 28)	/* IA32_FLUSH_CMD */
#define CPUID_7_EDX_ARCH_CAPS		(1u << 29)	/* IA32_ARCH_CAPABILITIES */
#define CPUID_7_EDX_CORE_CAPS		(1u << 30)
#define CPUID_7_EDX_SSBD		(1u << 31)

/* IA32_ARCH_CAPABILITIES (MSR 0x10A) bits (SDM Vol. 4 Table 2-2) */
#define ARCH_CAP_RDCL_NO		(1ull << 0)
#define ARCH_CAP_SKIP_L1DFL_VMENTRY	(1ull << 3)
#define ARCH_CAP_MDS_NO			(1ull << 5)
#define ARCH_CAP_TSX_CTRL		(1ull << 7)	/* IA32_TSX_CTRL exists */
#define ARCH_CAP_TAA_NO			(1ull << 8)
#define ARCH_CAP_RFDS_NO		(1ull << 27)
#define ARCH_CAP_RFDS_CLEAR		(1ull << 28)
#define CPUID_7_EBX_RTM			(1u << 11)
#define ARCH_CAP_MCU_CONTROL		(1ull << 9)	/* IA32_MCU_CONTROL exists */
#define ARCH_CAP_DOITM			(1ull << 12)	/* IA32_UARCH_MISC_CTL exists */
#define ARCH_CAP_FB_CLEAR_CTRL		(1ull << 18)	/* IA32_MCU_OPT_CTRL bit 3 */

/* CPUID.(EAX=0BH,ECX=0) level type in ECX[15:8]: 1 = SMT (SDM Vol. 2A) */
#define CPUID_B_LEVEL_SMT		1u

struct spec_plan {
	bool spec_ctrl;		/* IA32_SPEC_CTRL exists: switched on a shared core */
	bool pred_cmd;		/* IA32_PRED_CMD exists: IBPB when a core changes guests */
	bool flush_cmd;		/* IA32_FLUSH_CMD exists */
	bool arch_caps;		/* IA32_ARCH_CAPABILITIES exists (a guest may read it) */
	uint8_t entry;		/* SPEC_ENTRY_*: what every VM entry does */
};

/*
 * The plan for a CPU with CPUID 7 EDX @edx7 and IA32_ARCH_CAPABILITIES
 * @arch_caps (0 where the MSR is absent). L1D flush on entry unless the CPU
 * is not affected by L1TF (RDCL_NO) or flushes itself (SKIP_L1DFL_VMENTRY);
 * otherwise VERW where MD_CLEAR says it clears buffers and MDS_NO is not set.
 */
struct spec_plan spec_plan_make(uint32_t edx7, uint32_t ebx7, uint64_t arch_caps);

/* The CPUID 7 EDX a guest sees: command/control MSRs Tempo has no row for are hidden. */
uint32_t spec_guest_cpuid7_edx(uint32_t edx7);
/* The IA32_ARCH_CAPABILITIES a guest reads: bits that name MSRs it may not use cleared. */
uint64_t spec_guest_arch_caps(uint64_t host);
/* A guest's write to IA32_PRED_CMD / IA32_FLUSH_CMD: reserved bits #GP. */
bool spec_pred_cmd_valid(uint64_t value);
bool spec_flush_cmd_valid(uint64_t value);

/*
 * SMT: how many low x2APIC-id bits name the thread within a core, from
 * CPUID 0xB sub-leaf 0 (EAX[4:0] when ECX[15:8] is the SMT level); 0 when
 * the leaf says nothing (no leaf 0xB, or no SMT level).
 */
uint32_t spec_smt_shift(uint32_t max_basic_leaf, uint32_t eax_b0, uint32_t ecx_b0);
/* Two different CPUs are threads of one core: their ids differ only in the SMT bits. */
bool spec_smt_siblings(uint32_t apic_a, uint32_t apic_b, uint32_t smt_shift);
/*
 * Would CPUs @a and @b, siblings, run different partitions at once?
 * @sets[i] is partition i's CPUs (Tempo's indexes). True when the
 * partitions on the two CPUs together are more than one.
 */
bool spec_cpus_split(const struct cpuset *const *sets, uint32_t count, uint32_t a, uint32_t b);

#endif /* __ASSEMBLER__ */
#endif
