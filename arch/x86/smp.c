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
#include "hv/pages.h"
#include "hv/partition.h"
#include "hv/upcalls.h"

#define CR0_NW	(1ull << 29)
#define CR0_CD	(1ull << 30)

#define AP_STACK_SIZE		(16 * 1024)
#define LOW_MEM_END		0x9f000ul

extern const char trampoline_start[], trampoline_end[];
extern volatile uint64_t ap_boot_stack;
extern volatile uint32_t ap_boot_index;

struct pcpu pcpus[MAX_CPUS];
uint32_t pcpu_count;

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


static void pcpu_common_init(struct pcpu *c)
{
	char err[160];

	wrmsr(0xc0000101, (uint64_t)c);	/* IA32_GS_BASE: this_pcpu() */
	/* XSETBV on a guest's behalf needs CR4.OSXSAVE in root mode too */
	if (cpuid(1, 0).ecx & (1u << 26)) {
		uint64_t cr4;

		asm volatile("mov %%cr4, %0" : "=r"(cr4));
		asm volatile("mov %0, %%cr4" : : "r"(cr4 | (1ull << 18)));
	}
	x2apic_enable();
	root_cpu_init();
	c->vmxon_pa = (uint64_t)pages_alloc(PAGE_SIZE, "VMXON region");
	if (!vmx_cpu_enable(c, err, sizeof(err))) {
		log_err("%s\n", err);
		__atomic_store_n(&c->state, PCPU_FAILED, __ATOMIC_RELEASE);
		halt_forever();
	}
	__atomic_store_n(&c->state, PCPU_ONLINE, __ATOMIC_RELEASE);
}

void ap_main(uint32_t index);
void ap_main(uint32_t index)
{
	struct pcpu *c = &pcpus[index];

	trap_init_cpu(index);
	pcpu_common_init(c);
	hv_pcpu_loop();
}

/* hv_stop: every other CPU takes an NMI, sees hv_stopping and halts. */
static void halt_other_cpus(void)
{
	x2apic_send(0, ICR_DELIVERY_NMI | ICR_LEVEL_ASSERT | ICR_SHORTHAND_OTHERS);
	tsc_delay(100000);
}

static uint64_t take_trampoline_page(struct memplan *mp)
{
	for (uint64_t pa = 0x1000; pa < LOW_MEM_END; pa += PAGE_SIZE)
		if (memplan_take(mp, pa, PAGE_SIZE))
			return pa;
	return 0;
}

uint32_t smp_boot(const struct acpi_info *ai, struct memplan *mp, uint64_t tsc_hz)
{
	uint32_t bsp_id, online = 1;
	uint64_t tramp, ms = tsc_hz / 1000;

	x2apic_enable();
	/*
	 * The BIOS leaves the 8259 PIC delivering its timer as vector 8 through
	 * LINT0 (ExtINT). Root mode takes interrupts when an idle core sleeps:
	 * mask every PIC line and LINT0, so none arrives looking like a #DF.
	 */
	outb(0x21, 0xff);
	outb(0xa1, 0xff);
	root_cpu_init();
	bsp_id = x2apic_id();
	/* the boot CPU is index 0; the others keep their MADT order */
	pcpus[0] = (struct pcpu){ .self = &pcpus[0], .index = 0, .apic_id = bsp_id };
	pcpu_count = 1;
	for (uint32_t i = 0; i < ai->cpu_count && pcpu_count < MAX_CPUS; i++) {
		struct pcpu *c = &pcpus[pcpu_count];

		if (!ai->cpus[i].enabled || ai->cpus[i].apic_id == bsp_id)
			continue;
		*c = (struct pcpu){ .self = c, .index = pcpu_count, .apic_id = ai->cpus[i].apic_id };
		pcpu_count++;
	}
	pcpus[0].stack_top = (uint64_t)pages_alloc(AP_STACK_SIZE, "boot CPU stack") + AP_STACK_SIZE;
	pcpu_common_init(&pcpus[0]);
	if (pcpus[0].state != PCPU_ONLINE)
		return 0;

	tramp = take_trampoline_page(mp);
	if (pcpu_count > 1 && !tramp) {
		log_err("SMP: no free page below 0x%lx for the AP trampoline; running on the "
			"boot CPU only\n", LOW_MEM_END);
		pcpu_count = 1;
	}
	stop_set_halt_others(halt_other_cpus);
	if (tramp)
		memcpy((void *)(uintptr_t)tramp, trampoline_start,
		       (size_t)(trampoline_end - trampoline_start));

	for (uint32_t i = 1; i < pcpu_count; i++) {
		struct pcpu *c = &pcpus[i];
		uint64_t start;

		c->stack_top = (uint64_t)pages_alloc(AP_STACK_SIZE, "AP stack") + AP_STACK_SIZE;
		ap_boot_stack = c->stack_top;
		ap_boot_index = i;
		c->state = PCPU_STARTING;
		__atomic_thread_fence(__ATOMIC_SEQ_CST);
		x2apic_send(c->apic_id, ICR_DELIVERY_INIT | ICR_LEVEL_ASSERT);
		tsc_delay(10 * ms);
		for (int sipi = 0; sipi < 2 && c->state == PCPU_STARTING; sipi++) {
			x2apic_send(c->apic_id, ICR_DELIVERY_SIPI | (uint32_t)(tramp >> 12));
			tsc_delay(ms / 5);
		}
		start = rdtsc();
		while (__atomic_load_n(&c->state, __ATOMIC_ACQUIRE) == PCPU_STARTING &&
		       rdtsc() - start < 200 * ms)
			cpu_relax();
		if (c->state == PCPU_ONLINE) {
			online++;
			log_info("SMP: CPU %u (APIC id %u) online, VMX on\n", i, c->apic_id);
		} else if (c->state == PCPU_FAILED) {
			log_err("SMP: CPU %u (APIC id %u) failed to enable VMX; left offline\n", i,
				c->apic_id);
		} else {
			log_err("SMP: CPU %u (APIC id %u) did not answer INIT-SIPI-SIPI within "
				"200 ms; left offline\n", i, c->apic_id);
			c->state = PCPU_OFFLINE;
		}
	}
	return online;
}
