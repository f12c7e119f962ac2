// SPDX-License-Identifier: MIT
#include "arch/x86/cpu_report.h"

#include "arch/x86/cpu.h"
#include "arch/x86/msr.h"
#include "hv/lib/fmt.h"
#include "hv/lib/lib.h"
#include "hv/lib/log.h"
#include "hv/lib/vmx_ctls.h"

void cpu_features_read(struct cpu_features *f)
{
	struct cpuid_regs r = cpuid(0, 0);
	uint32_t max_ext;
	uint64_t fc;

	memset(f, 0, sizeof(*f));
	f->max_basic_leaf = r.eax;
	memcpy(f->vendor, &r.ebx, 4);
	memcpy(f->vendor + 4, &r.edx, 4);
	memcpy(f->vendor + 8, &r.ecx, 4);

	r = cpuid(1, 0);
	f->family = (r.eax >> 8) & 0xf;
	f->model = (r.eax >> 4) & 0xf;
	f->stepping = r.eax & 0xf;
	if (f->family == 0xf)
		f->family += (r.eax >> 20) & 0xff;
	if (f->family == 0x6 || f->family >= 0xf)
		f->model |= ((r.eax >> 16) & 0xf) << 4;
	f->initial_apic_id = r.ebx >> 24;
	f->x2apic_id = f->initial_apic_id;
	f->vmx = r.ecx & CPUID_1_ECX_VMX;
	f->x2apic = r.ecx & CPUID_1_ECX_X2APIC;
	f->tsc_deadline = r.ecx & CPUID_1_ECX_TSC_DEADLINE;
	f->hypervisor = r.ecx & CPUID_1_ECX_HYPERVISOR;

	if (f->max_basic_leaf >= 6)
		f->arat = cpuid(6, 0).eax & CPUID_6_EAX_ARAT;
	if (f->max_basic_leaf >= 0xb && cpuid(0xb, 0).ebx)
		f->x2apic_id = cpuid(0xb, 0).edx;

	max_ext = cpuid(0x80000000, 0).eax;
	if (max_ext >= 0x80000007)
		f->invariant_tsc = cpuid(0x80000007, 0).edx & CPUID_80000007_EDX_INVARIANT_TSC;
	if (max_ext >= 0x80000004) {
		for (uint32_t i = 0; i < 3; i++) {
			r = cpuid(0x80000002 + i, 0);
			memcpy(f->brand + 16 * i, &r, 16);
		}
	}

	if (f->vmx && rdmsr_safe(MSR_IA32_FEATURE_CONTROL, &fc))
		f->vmx_locked_off = (fc & FEATURE_CONTROL_LOCK) &&
				    !(fc & FEATURE_CONTROL_VMX_OUTSIDE_SMX);
}

static void append_word(char *buf, unsigned long size, unsigned long *len, const char *w)
{
	*len += fmt_snprintf(buf + *len, *len < size ? size - *len : 0, "%s%s", *len ? " " : "", w);
}

bool cpu_features_missing(const struct cpu_features *f, char *buf, unsigned long size)
{
	unsigned long len = 0;

	buf[0] = 0;
	if (!f->vmx)
		append_word(buf, size, &len, "vmx");
	else if (f->vmx_locked_off)
		append_word(buf, size, &len, "vmx(disabled-by-firmware)");
	if (!f->x2apic)
		append_word(buf, size, &len, "x2apic");
	if (!f->tsc_deadline)
		append_word(buf, size, &len, "tsc-deadline");
	return len != 0;
}

static const char *yes(bool b)
{
	return b ? "yes" : "no";
}

void cpu_features_print(const struct cpu_features *f)
{
	const char *brand = f->brand;

	while (*brand == ' ')
		brand++;
	log_info("CPU: %s family 0x%x model 0x%x stepping %u \"%s\"\n", f->vendor, f->family,
		 f->model, f->stepping, brand);
	log_info("CPU: boot CPU APIC id %u (x2APIC id %u), max basic leaf 0x%x\n",
		 f->initial_apic_id, f->x2apic_id, f->max_basic_leaf);
	log_info("CPU: vmx=%s x2apic=%s tsc_deadline=%s invariant_tsc=%s arat=%s hypervisor=%s\n",
		 yes(f->vmx), yes(f->x2apic), yes(f->tsc_deadline), yes(f->invariant_tsc),
		 yes(f->arat), yes(f->hypervisor));
}

static uint64_t read_or_zero(uint32_t msr)
{
	uint64_t v;

	return rdmsr_safe(msr, &v) ? v : 0;
}

void vmx_caps_read(struct vmx_caps *c)
{
	memset(c, 0, sizeof(*c));
	c->basic = read_or_zero(MSR_IA32_VMX_BASIC);
	c->true_ctls = c->basic & VMX_BASIC_TRUE_CTLS;
	c->pinbased = read_or_zero(c->true_ctls ? MSR_IA32_VMX_TRUE_PINBASED_CTLS
						: MSR_IA32_VMX_PINBASED_CTLS);
	c->procbased = read_or_zero(c->true_ctls ? MSR_IA32_VMX_TRUE_PROCBASED_CTLS
						 : MSR_IA32_VMX_PROCBASED_CTLS);
	c->exit = read_or_zero(c->true_ctls ? MSR_IA32_VMX_TRUE_EXIT_CTLS
					    : MSR_IA32_VMX_EXIT_CTLS);
	c->entry = read_or_zero(c->true_ctls ? MSR_IA32_VMX_TRUE_ENTRY_CTLS
					     : MSR_IA32_VMX_ENTRY_CTLS);
	c->misc = read_or_zero(MSR_IA32_VMX_MISC);
	c->preemption_timer_rate = c->misc & VMX_MISC_PREEMPT_RATE_MASK;
	if ((c->procbased >> 32) & PROCBASED_ACTIVATE_SECONDARY)
		c->procbased2 = read_or_zero(MSR_IA32_VMX_PROCBASED_CTLS2);
	if ((c->procbased2 >> 32) & (PROCBASED2_ENABLE_EPT | PROCBASED2_ENABLE_VPID))
		c->ept_vpid = read_or_zero(MSR_IA32_VMX_EPT_VPID_CAP);
}

/* A control the CPU allows to be 1 (the MSR's high half, SDM Vol. 3D A.3). */
static const char *can(uint64_t ctls, unsigned int bit)
{
	return (ctls >> 32) & (1u << bit) ? "yes" : "no";
}

void vmx_caps_print(const struct vmx_caps *c)
{
	log_info("VMX: IA32_VMX_BASIC 0x%016lx: revision 0x%lx, VMCS %lu bytes, "
		 "memory type %lu, true controls %s\n",
		 c->basic, c->basic & 0x7fffffff, (c->basic >> 32) & 0x1fff,
		 (c->basic >> 50) & 0xf, yes(c->true_ctls));
	log_info("VMX: pin-based  0x%016lx (allowed-0 0x%08lx allowed-1 0x%08lx)\n",
		 c->pinbased, c->pinbased & 0xffffffff, c->pinbased >> 32);
	log_info("VMX: proc-based 0x%016lx (allowed-0 0x%08lx allowed-1 0x%08lx)\n",
		 c->procbased, c->procbased & 0xffffffff, c->procbased >> 32);
	log_info("VMX: secondary  0x%016lx (allowed-0 0x%08lx allowed-1 0x%08lx)\n",
		 c->procbased2, c->procbased2 & 0xffffffff, c->procbased2 >> 32);
	log_info("VMX: exit       0x%016lx (allowed-0 0x%08lx allowed-1 0x%08lx)\n",
		 c->exit, c->exit & 0xffffffff, c->exit >> 32);
	log_info("VMX: entry      0x%016lx (allowed-0 0x%08lx allowed-1 0x%08lx)\n",
		 c->entry, c->entry & 0xffffffff, c->entry >> 32);
	log_info("VMX: IA32_VMX_MISC 0x%016lx: preemption timer rate %u "
		 "(counts every 2^%u TSC ticks)\n",
		 c->misc, c->preemption_timer_rate, c->preemption_timer_rate);
	log_info("VMX: IA32_VMX_EPT_VPID_CAP 0x%016lx\n", c->ept_vpid);
	/* The controls the later stages rely on (SDM Vol. 3C 25.6, 25.7, 25.8) */
	log_info("VMX: preemption_timer=%s nmi_exiting=%s virtual_nmis=%s msr_bitmaps=%s "
		 "secondary=%s\n",
		 can(c->pinbased, 6), can(c->pinbased, 3), can(c->pinbased, 5),
		 can(c->procbased, 28), can(c->procbased, 31));
	log_info("VMX: ept=%s vpid=%s unrestricted_guest=%s apic_register_virt=%s "
		 "virtual_intr_delivery=%s\n",
		 can(c->procbased2, 1), can(c->procbased2, 5), can(c->procbased2, 7),
		 can(c->procbased2, 8), can(c->procbased2, 9));
	log_info("VMX: ack_intr_on_exit=%s save_preemption_timer=%s load_efer=%s load_pat=%s\n",
		 can(c->exit, 15), can(c->exit, 22), can(c->entry, 15), can(c->entry, 14));
}
