/* SPDX-License-Identifier: MIT */
#ifndef TEMPO_ARCH_X86_TRAP_H
#define TEMPO_ARCH_X86_TRAP_H

#include <stdint.h>

/* Register state as arch/x86/isr.S leaves it on the stack. */
struct trap_frame {
	uint64_t r15, r14, r13, r12, r11, r10, r9, r8;
	uint64_t rbp, rdi, rsi, rdx, rcx, rbx, rax;
	uint64_t vector, error_code;
	uint64_t rip, cs, rflags, rsp, ss;
};

/* Load a GDT with a TSS (IST stacks for #DF, NMI, #MC) and the IDT. */
void trap_init(void);

#endif
