/* SPDX-License-Identifier: MIT */
/*
 * The VMCS checker before every VM entry, in a build with TEMPO_VMCS_CHECK
 * (make VMCS_CHECK=1; docs/containment.md): arch/x86/vmx_entry.S calls it
 * before each VMLAUNCH and VMRESUME, the tick step-aside's included. An
 * entry that breaks a rule of SDM Vol. 3C 26.2 or 26.3 is not made: one
 * VMCS_CHECK line per broken rule, a VMCS_CHECK_FAIL line, and the entry
 * fails as hardware would make it fail, which stops the partition. Other
 * builds compile none of it.
 */
#ifndef TEMPO_ARCH_X86_VMX_CHECK_H
#define TEMPO_ARCH_X86_VMX_CHECK_H

#include <stdbool.h>
#include <stdint.h>

/*
 * The VM-instruction error a refused entry returns (above the SDM's, which
 * end at 28): vmx_instr_error_name names it, PARTITION_STOP shows it as qual.
 */
#define VMX_ERR_VMCS_CHECK	0x100

#ifdef TEMPO_VMCS_CHECK
struct vcpu_arch;
struct vmx_exit_area;

/* Once at boot, on the boot CPU: the capability MSRs every check reads. */
void vmx_check_boot(void);

/*
 * vmx_entry.S, vmx_enter: check the current VMCS before entering @a. 0: enter;
 * else VMX_ERR_VMCS_CHECK, returned as the entry's failure.
 */
uint32_t vmx_check_entry(struct vcpu_arch *a, int launched);

/*
 * vmx_entry.S, the step-aside's re-entry (@area: the CPU's exit area): only
 * the guest state changed since @area's vCPU was last checked (the exit
 * wrote it; the stub writes only the preemption timer). 0: re-enter; else
 * the exit goes to hv, whose resume is checked in full and refused.
 */
int vmx_check_aside(struct vmx_exit_area *area);

/* The run's VMCS_CHECK summary line (hv_stop, before TEMPO_EXIT). */
void vmx_check_report(void);

/*
 * test=vmcs_break (hv/start/main.c): the 100th resume of the run gets a
 * reserved bit of its pending debug exceptions set and a steady field
 * broken, for the checker to refuse (tests/vmcscheck/one.sh); with
 * @guest (test=vmcs_break_regs), a guest register and a segment instead
 * of the steady field (vmx_check.c). Returns whether this build checks.
 */
bool vmx_check_test_break(bool guest);

#else
static inline void vmx_check_boot(void)
{
}

static inline void vmx_check_report(void)
{
}

static inline bool vmx_check_test_break(bool guest)
{
	(void)guest;
	return false;
}
#endif

#endif
