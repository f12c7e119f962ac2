/* SPDX-License-Identifier: MIT */
/*
 * What a guest's CPUID answers: one table (hv/core/cpuid_policy.c) of rows
 * "leaf, sub-leaf, register: bits cleared / set / mirrored / synthesised,
 * and why". hv/exit/cpuid.c executes the real CPUID (or not, cpuid_policy_source)
 * and hands the answer to cpuid_policy_apply with the facts the rows need.
 * A new rule is a new row; a new kind of fact is one enum value and one case
 * in cpuid_fact(). Pure.
 */
#ifndef TEMPO_HV_CORE_CPUID_POLICY_H
#define TEMPO_HV_CORE_CPUID_POLICY_H

#include <stdbool.h>
#include <stdint.h>

enum cpuid_reg { CPUID_EAX, CPUID_EBX, CPUID_ECX, CPUID_EDX };

struct cpuid_out {
	uint32_t reg[4];	/* enum cpuid_reg */
};

/* Where the answer to a leaf starts from, before the rows. */
enum cpuid_source {
	CPUID_SRC_HOST,		/* the CPU's own answer */
	CPUID_SRC_ZERO,		/* zeros: Tempo's leaves, the empty ones, the synthesised */
};

/* What a row may depend on: the CPU, VMX, the boot's plans and the guest's CR4. */
struct cpuid_facts {
	uint32_t max_basic;		/* the host's highest basic leaf */
	uint64_t tsc_hz;		/* 0: not known */
	uint64_t xcr0_allowed;		/* xsave_plan */
	uint32_t xsave_area_bytes;
	bool has_invpcid, has_xsaves, has_rdtscp;	/* VMX can enable them */
	bool guest_osxsave, guest_pke;	/* the guest's CR4.OSXSAVE, CR4.PKE */
	bool guest_apic_on;	/* its IA32_APIC_BASE enable bit (EN) */
	/* TEMPO_CPUID_STATS: take a snapshot, 1 if it was (hv/exit/hypercall.c) */
	uint32_t (*stats)(void *ctx);
	void *stats_ctx;
};

enum cpuid_op {
	CPUID_CLEAR,	/* reg &= ~bits */
	CPUID_SET,	/* reg |= bits */
	CPUID_KEEP,	/* reg &= bits */
	CPUID_MIRROR,	/* the bits become the fact: set if it holds, else clear */
	CPUID_AT_LEAST,	/* reg = max(reg, bits) */
	CPUID_VALUE,	/* reg = bits */
	CPUID_SYNTH,	/* reg = a value computed from the facts (enum cpuid_synth in bits) */
};

/* A row applies when its fact holds (CPUID_MIRROR: the fact it mirrors). */
enum cpuid_fact {
	CPUID_ALWAYS,
	CPUID_NO_INVPCID,	/* VMX cannot enable INVPCID for the guest */
	CPUID_NO_XSAVES,
	CPUID_NO_RDTSCP,
	CPUID_TSC_OURS,		/* the TSC leaves 0x15/0x16 are Tempo's: known or absent */
	CPUID_GUEST_OSXSAVE,
	CPUID_GUEST_PKE,
	CPUID_GUEST_APIC_ON,
};

enum cpuid_synth {
	CPUID_SYN_TSC15_EBX,	/* TSC = crystal * EBX / EAX (EAX = 1) */
	CPUID_SYN_TSC15_ECX,	/* the crystal: the TSC frequency itself, or in kHz */
	CPUID_SYN_TSC_MHZ,	/* leaf 0x16 base and maximum frequency */
	CPUID_SYN_TSC_KHZ,	/* TEMPO_CPUID_TIMING */
	CPUID_SYN_STATS,	/* TEMPO_CPUID_STATS: the snapshot's result */
};

#define CPUID_ANY_SUB	0xffffffffu

struct cpuid_rule {
	uint32_t leaf, sub;	/* sub CPUID_ANY_SUB: every sub-leaf */
	uint8_t reg;		/* enum cpuid_reg */
	uint8_t op;		/* enum cpuid_op */
	uint8_t when;		/* enum cpuid_fact */
	uint32_t bits;
	const char *why;
};

/* Tempo's own range: leaves in it not in the table read 0. */
#define CPUID_TEMPO_FIRST	0x40000000u
#define CPUID_TEMPO_LAST	0x4fffffffu
/* The basic maximum guests see (leaf 0 EAX at least this): the TSC leaves. */
#define CPUID_GUEST_MAX_BASIC	0x16u

enum cpuid_source cpuid_policy_source(const struct cpuid_facts *f, uint32_t leaf);

/*
 * The rows of @leaf/@sub applied to @r (the source's answer), then what the
 * XSAVE plan leaves out (xcr0_filter_cpuid).
 */
void cpuid_policy_apply(const struct cpuid_facts *f, uint32_t leaf, uint32_t sub,
			struct cpuid_out *r);

/* For tests and the docs: the table itself. */
const struct cpuid_rule *cpuid_rules(unsigned int *count);

#endif
