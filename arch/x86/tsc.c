// SPDX-License-Identifier: MIT
#include "arch/x86/tsc.h"

#include "arch/x86/apic.h"
#include "arch/x86/cpu.h"
#include "arch/x86/trap.h"

#define PIT_CH2_DATA	0x42
#define PIT_CMD		0x43
#define PORT_B		0x61	/* NMI status and control: gate of PIT ch2 */
#define PORT_B_GATE2	0x01
#define PORT_B_SPEAKER	0x02
#define PORT_B_OUT2	0x20

/* No timer takes 20 G TSC ticks (seconds) to count 50 ms: give up then. */
#define CALIBRATE_TSC_LIMIT	20000000000ull

#define HPET_GCAP_ID		0x000
#define HPET_CONFIG		0x010
#define HPET_MAIN_COUNTER	0x0f0
#define HPET_CFG_ENABLE		0x1
#define HPET_GCAP_COUNT_64	(1ull << 13)	/* main counter is 64 bits wide */
#define HPET_MAX_PERIOD_FS	100000000ull	/* spec: at most 100 ns a tick */

uint64_t tsc_cpuid_hz(void)
{
	struct cpuid_regs r = cpuid(0, 0);

	if (r.eax < 0x15)
		return 0;
	r = cpuid(0x15, 0);
	/* EAX denominator, EBX numerator, ECX crystal Hz (SDM Vol. 2A CPUID) */
	if (!r.eax || !r.ebx || !r.ecx)
		return 0;
	return (uint64_t)r.ecx * r.ebx / r.eax;
}

uint64_t tsc_calibrate_pit(void)
{
	uint32_t count = (uint32_t)((uint64_t)PIT_HZ * TSC_CALIBRATE_MS / 1000);
	uint64_t t0, t1;
	uint8_t b = inb(PORT_B);

	/* Gate high, speaker off; channel 2, lobyte/hibyte, mode 0 */
	outb(PORT_B, (b & ~PORT_B_SPEAKER) | PORT_B_GATE2);
	outb(PIT_CMD, 0xb0);
	outb(PIT_CH2_DATA, count & 0xff);
	outb(PIT_CH2_DATA, count >> 8);
	t0 = rdtsc();
	/* OUT2 goes high at terminal count */
	while (!(inb(PORT_B) & PORT_B_OUT2)) {
		if (rdtsc() - t0 > CALIBRATE_TSC_LIMIT)
			return 0;
	}
	t1 = rdtsc();
	outb(PORT_B, b);
	return (t1 - t0) * PIT_HZ / count;
}

static inline uint64_t hpet_read(uint64_t base, uint32_t reg)
{
	return *(volatile uint64_t *)(base + reg);
}

static inline void hpet_write(uint64_t base, uint32_t reg, uint64_t v)
{
	*(volatile uint64_t *)(base + reg) = v;
}

uint64_t tsc_calibrate_hpet(uint64_t hpet_phys)
{
	uint64_t gcap = hpet_read(hpet_phys, HPET_GCAP_ID);
	uint64_t period_fs = gcap >> 32;
	uint64_t mask = gcap & HPET_GCAP_COUNT_64 ? ~0ull : 0xffffffffull;
	uint64_t cfg, want, c0, c, t0, t1, elapsed_ns;

	if (!period_fs || period_fs > HPET_MAX_PERIOD_FS)
		return 0;
	cfg = hpet_read(hpet_phys, HPET_CONFIG);
	if (!(cfg & HPET_CFG_ENABLE))
		hpet_write(hpet_phys, HPET_CONFIG, cfg | HPET_CFG_ENABLE);
	want = TSC_CALIBRATE_MS * 1000000000000ull / period_fs;
	c0 = hpet_read(hpet_phys, HPET_MAIN_COUNTER);
	t0 = rdtsc();
	do {
		c = hpet_read(hpet_phys, HPET_MAIN_COUNTER);
		if (rdtsc() - t0 > CALIBRATE_TSC_LIMIT) {
			hpet_write(hpet_phys, HPET_CONFIG, cfg);
			return 0;
		}
	} while (((c - c0) & mask) < want);
	t1 = rdtsc();
	hpet_write(hpet_phys, HPET_CONFIG, cfg);
	elapsed_ns = ((c - c0) & mask) * period_fs / 1000000;
	if (!elapsed_ns)
		return 0;
	return (t1 - t0) * 1000000000ull / elapsed_ns;
}

/*
 * SDM Vol. 3A 11.5.4.1: in TSC-deadline mode the timer, once it fires,
 * disarms itself and IA32_TSC_DEADLINE reads 0; Bochs keeps the value
 * (EMULATORS.md). The save protocol (vtimer_save) must know which: a
 * non-zero deadline at or below the TSC has not fired on the former, and
 * may have fired long ago on the latter. Arm the timer a few thousand ticks
 * ahead on the idle wake-up vector, with IF=0, wait until its fire is in the
 * IRR (or long enough), read the MSR back, then disarm and take the vector
 * in a short STI window (isr_idle_wake only EOIs). Unmasked, so the fire is
 * one the CPU surely delivered; the LVT is left as it was.
 */
#define PROBE_AHEAD	4000u
#define PROBE_SETTLE	200000u

bool tsc_deadline_clears_on_fire(void)
{
	uint64_t lvt = rdmsr(X2APIC_LVT_TIMER), target, value;

	wrmsr(X2APIC_LVT_TIMER, APIC_LVT_TIMER_TSC_DEADLINE | TRAP_IDLE_WAKE_VECTOR);
	target = rdtsc() + PROBE_AHEAD;
	wrmsr(MSR_IA32_TSC_DEADLINE, target);
	while (!x2apic_irr_test(TRAP_IDLE_WAKE_VECTOR) && rdtsc() < target + PROBE_SETTLE)
		cpu_relax();
	value = rdmsr(MSR_IA32_TSC_DEADLINE);
	wrmsr(MSR_IA32_TSC_DEADLINE, 0);
	asm volatile("sti; nop; cli" ::: "memory");
	wrmsr(X2APIC_LVT_TIMER, lvt);
	return value == 0;
}
