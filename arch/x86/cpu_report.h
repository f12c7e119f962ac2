/* SPDX-License-Identifier: MIT */
/* What this CPU offers Tempo: CPUID features and the VMX capability MSRs. */
#ifndef TEMPO_ARCH_X86_CPU_REPORT_H
#define TEMPO_ARCH_X86_CPU_REPORT_H

#include <stdbool.h>
#include <stdint.h>

struct cpu_features {
	char vendor[13];
	char brand[49];
	uint32_t family, model, stepping;
	uint32_t max_basic_leaf;
	uint32_t initial_apic_id;	/* CPUID.1:EBX[31:24]; leaf 0xB gives x2APIC */
	uint32_t x2apic_id;
	bool vmx, x2apic, tsc_deadline, invariant_tsc, arat, hypervisor;
	/* IA32_FEATURE_CONTROL: locked with VMX off means firmware disabled it */
	bool vmx_locked_off;
};

struct vmx_caps {
	uint64_t basic;
	uint64_t pinbased, procbased, exit, entry;	/* TRUE variants when offered */
	uint64_t procbased2;				/* 0 when no secondary controls */
	uint64_t misc;
	uint64_t ept_vpid;				/* 0 when neither EPT nor VPID */
	bool true_ctls;
	uint32_t preemption_timer_rate;			/* IA32_VMX_MISC[4:0] */
};

void cpu_features_read(struct cpu_features *f);
/* Names of missing features, space separated, into @buf; returns true if any. */
bool cpu_features_missing(const struct cpu_features *f, char *buf, unsigned long size);
void cpu_features_print(const struct cpu_features *f);

void vmx_caps_read(struct vmx_caps *c);
void vmx_caps_print(const struct vmx_caps *c);

#endif
