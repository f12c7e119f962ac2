// SPDX-License-Identifier: MIT
/*
 * Bringing up the application processors: INIT-SIPI-SIPI (SDM Vol. 3A 9.4.4)
 * through boot/trampoline.S, one CPU at a time, each with a bounded wait, so
 * a CPU that does not answer is reported and the boot goes on without it.
 */
#include "arch/x86/smp.h"

#include "arch/x86/apic.h"
#include "arch/x86/cpu.h"
#include "arch/x86/trap.h"
#include "arch/x86/vmx.h"
#include "hv/lib/lib.h"
#include "hv/lib/log.h"
#include "hv/upcalls.h"

#define CR0_NW	(1ull << 29)
#define CR0_CD	(1ull << 30)

#define AP_STACK_SIZE		(16 * 1024)
#define PAGE_BYTES		4096ul

extern const char trampoline_start[], trampoline_end[];
extern volatile uint64_t ap_boot_stack;
extern volatile uint32_t ap_boot_index;

struct cpu_arch smp_cpus[SMP_MAX_CPUS];
uint32_t smp_cpu_count;

void tsc_delay(uint64_t ticks)
{
	uint64_t start = rdtsc();

	while (rdtsc() - start < ticks)
		cpu_relax();
}

/*
 * What every core sets up for root mode:
 * - caching on: Bochs (and some firmware) leaves CR0.CD and CR0.NW set from
 *   reset, and VM entry does not load those two bits from the guest state
 *   (SDM 26.3.2.1): guests would run uncached, and a guest that clears CD
 *   alone (NW=1, CD=0) would take a #GP;
 * - the local APIC software-enabled (an idle core's wake-up deadline needs
 *   it; reset leaves it disabled, with every LVT forced masked), spurious
 *   interrupts on a vector that only returns, LINT0 masked.
 */
static void root_cpu_init(void)
{
	uint64_t cr0 = read_cr0();

	if (cr0 & (CR0_CD | CR0_NW)) {
		asm volatile("mov %0, %%cr0" : : "r"(cr0 & ~(CR0_CD | CR0_NW)) : "memory");
		asm volatile("wbinvd" ::: "memory");
	}
	wrmsr(X2APIC_SVR, APIC_SVR_ENABLE | TRAP_SPURIOUS_VECTOR);
	wrmsr(X2APIC_LVT_LINT0, APIC_LVT_MASKED);
}


static void cpu_common_init(uint32_t index)
{
	struct cpu_arch *c = &smp_cpus[index];
	char err[160];

	c->local = hv_cpu_local(index);
	wrmsr(0xc0000101, (uint64_t)c->local);	/* IA32_GS_BASE: hv's this_pcpu() */
	/* XSETBV on a guest's behalf needs CR4.OSXSAVE in root mode too */
	if (cpuid(1, 0).ecx & (1u << 26)) {
		uint64_t cr4;

		asm volatile("mov %%cr4, %0" : "=r"(cr4));
		asm volatile("mov %0, %%cr4" : : "r"(cr4 | (1ull << 18)));
	}
	x2apic_enable();
	root_cpu_init();
	c->vmxon_pa = (uint64_t)hv_pages_alloc(PAGE_BYTES, "VMXON region");
	if (!vmx_cpu_enable(index, c->vmxon_pa, err, sizeof(err))) {
		log_err("%s\n", err);
		__atomic_store_n(&c->state, CPU_FAILED, __ATOMIC_RELEASE);
		halt_forever();
	}
	__atomic_store_n(&c->state, CPU_ONLINE, __ATOMIC_RELEASE);
}

void ap_main(uint32_t index);
void ap_main(uint32_t index)
{
	trap_init_cpu(index);
	cpu_common_init(index);
	hv_pcpu_loop();
}

/* hv_stop: every other CPU takes an NMI, sees hv_stopping and halts. */
static void halt_other_cpus(void)
{
	x2apic_send(0, ICR_DELIVERY_NMI | ICR_LEVEL_ASSERT | ICR_SHORTHAND_OTHERS);
	tsc_delay(100000);
}

uint32_t smp_enumerate(const struct acpi_info *ai)
{
	uint32_t bsp_id;

	x2apic_enable();
	bsp_id = x2apic_id();
	/* the boot CPU is index 0; the others keep their MADT order */
	smp_cpus[0] = (struct cpu_arch){ .apic_id = bsp_id };
	smp_cpu_count = 1;
	for (uint32_t i = 0; i < ai->cpu_count && smp_cpu_count < SMP_MAX_CPUS; i++) {
		if (!ai->cpus[i].enabled || ai->cpus[i].apic_id == bsp_id)
			continue;
		smp_cpus[smp_cpu_count++] = (struct cpu_arch){ .apic_id = ai->cpus[i].apic_id };
	}
	return smp_cpu_count;
}

uint32_t smp_boot(uint64_t tramp, uint64_t tsc_hz)
{
	uint32_t online = 1;
	uint64_t ms = tsc_hz / 1000;

	/*
	 * The BIOS leaves the 8259 PIC delivering its timer as vector 8 through
	 * LINT0 (ExtINT). Root mode takes interrupts when an idle core sleeps:
	 * mask every PIC line and LINT0, so none arrives looking like a #DF.
	 */
	outb(0x21, 0xff);
	outb(0xa1, 0xff);
	root_cpu_init();
	smp_cpus[0].stack_top = (uint64_t)hv_pages_alloc(AP_STACK_SIZE, "boot CPU stack") +
				AP_STACK_SIZE - EA_SIZE;
	cpu_common_init(0);
	if (smp_cpus[0].state != CPU_ONLINE)
		return 0;

	if (!tramp)
		smp_cpu_count = 1;
	hv_set_halt_others(halt_other_cpus);
	if (tramp)
		memcpy((void *)(uintptr_t)tramp, trampoline_start,
		       (size_t)(trampoline_end - trampoline_start));

	for (uint32_t i = 1; i < smp_cpu_count; i++) {
		struct cpu_arch *c = &smp_cpus[i];
		uint64_t start;

		c->stack_top = (uint64_t)hv_pages_alloc(AP_STACK_SIZE, "AP stack") + AP_STACK_SIZE -
			       EA_SIZE;
		trap_cpu_alloc(i);
		ap_boot_stack = c->stack_top;
		ap_boot_index = i;
		c->state = CPU_STARTING;
		__atomic_thread_fence(__ATOMIC_SEQ_CST);
		x2apic_send(c->apic_id, ICR_DELIVERY_INIT | ICR_LEVEL_ASSERT);
		tsc_delay(10 * ms);
		for (int sipi = 0; sipi < 2 && c->state == CPU_STARTING; sipi++) {
			x2apic_send(c->apic_id, ICR_DELIVERY_SIPI | (uint32_t)(tramp >> 12));
			tsc_delay(ms / 5);
		}
		start = rdtsc();
		while (__atomic_load_n(&c->state, __ATOMIC_ACQUIRE) == CPU_STARTING &&
		       rdtsc() - start < 200 * ms)
			cpu_relax();
		if (c->state == CPU_ONLINE) {
			online++;
			log_info("SMP: CPU %u (APIC id %u) online, VMX on\n", i, c->apic_id);
		} else if (c->state == CPU_FAILED) {
			log_err("SMP: CPU %u (APIC id %u) failed to enable VMX; left offline\n", i,
				c->apic_id);
		} else {
			log_err("SMP: CPU %u (APIC id %u) did not answer INIT-SIPI-SIPI within "
				"200 ms; left offline\n", i, c->apic_id);
			c->state = CPU_OFFLINE;
		}
	}
	return online;
}
