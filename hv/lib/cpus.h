/* SPDX-License-Identifier: MIT */
/*
 * How many physical CPUs Tempo numbers: indexes 0 .. TEMPO_MAX_CPUS - 1, in
 * the MADT's order with the boot CPU first. x2APIC ids are 32 bits and may be
 * sparse (they are never used as indexes); 4096 is more logical CPUs than
 * any server sold today has, and what Linux's x86 NR_CPUS default for big
 * machines allows. Arrays sized by it hold a pointer or a few words a CPU;
 * everything larger is allocated at boot for the CPUs the MADT lists.
 * A definition only: every layer includes it.
 */
#ifndef TEMPO_HV_LIB_CPUS_H
#define TEMPO_HV_LIB_CPUS_H

#define TEMPO_MAX_CPUS		4096

#endif
