/* SPDX-License-Identifier: MIT */
#ifndef TEMPO_ARCH_X86_TRAP_H
#define TEMPO_ARCH_X86_TRAP_H

#define TRAP_HV_TIMER_VECTOR 0xee	/* = HV_TIMER_VECTOR (hv/time/time.h) */
#define TRAP_IDLE_WAKE_VECTOR 0xed	/* an idle core's own wake-up deadline */
#define TRAP_SPURIOUS_VECTOR 0xef	/* the local APIC's spurious vector (isr.S) */
/* posted interrupts' notification (hv/core/posted.h); in root mode only an EOI */
#define TRAP_POSTED_VECTOR 0xec
/* The vectors above: a guest's IPI on one of them takes the virtual path (hv/apic/ipi.c). */
#define TRAP_HV_VECTOR_FIRST 0xec
#define TRAP_HV_VECTOR_LAST 0xef

#ifndef __ASSEMBLER__
#include <stdbool.h>
#include <stdint.h>

/* Register state as arch/x86/isr.S leaves it on the stack. */
struct trap_frame {
	uint64_t r15, r14, r13, r12, r11, r10, r9, r8;
	uint64_t rbp, rdi, rsi, rdx, rcx, rbx, rax;
	uint64_t vector, error_code;
	uint64_t rip, cs, rflags, rsp, ss;
};

/* Build the IDT and load the boot CPU's GDT, TSS (IST stacks for #DF, NMI, #MC). */
void trap_init(void);
/*
 * Give AP @cpu its GDT, TSS and IST stacks, from the pool: the boot CPU
 * calls it before starting the AP. False if @cpu is out of range.
 */
bool trap_cpu_alloc(uint32_t cpu);
/* Load CPU @cpu's own GDT and TSS, and the shared IDT (each AP calls it). */
void trap_init_cpu(uint32_t cpu);
/* The descriptor tables of CPU @cpu, for the VMCS host-state area. */
void trap_cpu_tables(uint32_t cpu, uint64_t *gdt_base, uint64_t *tss_base, uint64_t *idt_base);
/* NMIs taken in root mode by @cpu (kicks). */
uint64_t trap_root_nmis(uint32_t cpu);
/* Interrupt vectors taken in root mode on @cpu (acknowledged, not fatal), and the last one. */
uint64_t trap_root_strays(uint32_t cpu, uint8_t *last_vector);

#endif /* __ASSEMBLER__ */

#endif
