// SPDX-License-Identifier: MIT
/*
 * devirq: a bare guest that owns a device, as a Tempo partition (pci,
 * ports, mmio, irqs in its config) and bare metal, from the same binary,
 * so the figures compare directly. It programs the IOAPIC at 0xFEC00000
 * (Tempo's virtual one, or the machine's) to send its device's input to
 * its own CPU with its own vector, and takes the interrupts in its IDT.
 *
 * role=com2: the 16550 at 0x2F8 (COM2, GSI 3 by default). It sends a line
 * out of the UART, then takes bytes by interrupt (receive data available)
 * until a newline or count= bytes, echoes them back out of COM2 and
 * prints them on its console:
 *   DEVIO role=com2 tx_bytes=N rx_bytes=N rx_irqs=N strays=N text="..."
 *
 * role=hpet: the HPET at 0xFED00000; one comparator (timer=, default 0)
 * routed to gsi= (default 5), edge or level (trigger=), one-shot, count=
 * times at random intervals around interval_us=. Latency = the TSC at the
 * handler's entry (irq.S's first instructions) minus the comparator's
 * time, the main counter converted to the TSC by a ratio measured against
 * the TSC at start-up (both deterministic in Bochs, so bare metal and
 * Tempo measure alike). Nothing is printed while measuring; then rtbench's
 * table and one line for scripts:
 *   DEVIRQ label=L mode=M trigger=edge events=N lost=N strays=N
 *          lat_min_ticks= lat_avg_ticks= lat_p99_ticks= lat_max_ticks= late_arms=N
 *
 * role=poke: a neighbour that owns nothing writes one byte to port=
 * (default 0x2f8, COM2's transmitter) and then to a page at mmio= (0: none):
 * under Tempo, when another partition owns them, it is stopped there and
 * never prints its "survived" line.
 *
 * input=off (com2): send only, no interrupts. Other options: vector= (0x20-0xfe, default 0x50), seed=, label=,
 * exit=emu (bare metal: end the emulator), storm=N (hpet: N events back to
 * back with a 1-tick interval before measuring, the attack's storm).
 */
#include "guests/common/bootinfo.h"
#include "guests/common/console.h"
#include "guests/common/exc.h"
#include "guests/common/guest.h"
#include "guests/common/smp.h"
#include "guests/common/tempo.h"
#include "guests/common/x86.h"
#include "guests/rtbench/latstat.h"
#include "hv/lib/div64.h"
#include "hv/lib/fmt.h"
#include "hv/lib/lib.h"
#include "hv/lib/uart16550.h"

#define MSR_X2APIC_EOI		0x80b
#define MSR_X2APIC_SVR		0x80f
#define MSR_X2APIC_ISR0		0x810
#define APIC_SVR_ENABLE		(1u << 8)
#define APIC_SPURIOUS_VECTOR	0xff

#define IOAPIC_BASE		0xfec00000u
#define IOAPIC_REGSEL		0
#define IOAPIC_WINDOW		4	/* dwords */
#define IOAPIC_RTE(pin)		(0x10 + 2 * (pin))
#define RTE_LEVEL		(1u << 15)
#define RTE_MASKED		(1u << 16)

#define COM2			0x2f8
#define UART_RBR		0
#define UART_THR		0
#define UART_IER		1
#define UART_IIR		2
#define UART_FCR		2
#define UART_LCR		3
#define UART_MCR		4
#define UART_LSR		5
#define UART_LSR_DR		0x01
#define UART_LSR_THRE		0x20
#define UART_MCR_DTR_RTS_OUT2	0x0b	/* OUT2 gates the PC UART's interrupt line */
#define UART_IER_RDA		0x01

#define HPET_BASE		0xfed00000u
#define HPET_CAP		0x000	/* bits 63:32: the period in femtoseconds */
#define HPET_CFG		0x010
#define HPET_STATUS		0x020
#define HPET_COUNTER		0x0f0
#define HPET_TN_CFG(n)		(0x100 + 0x20 * (n))
#define HPET_TN_CMP(n)		(0x108 + 0x20 * (n))
#define HPET_CFG_ENABLE		0x1
#define HPET_TN_LEVEL		(1u << 1)
#define HPET_TN_ENABLE		(1u << 2)
#define HPET_TN_ROUTE_SHIFT	9

#define PIC1_CMD		0x20
#define PIC1_DATA		0x21
#define PIC2_CMD		0xa0
#define PIC2_DATA		0xa1

#define QEMU_DEBUG_EXIT_PORT	0xf4
#define BOCHS_SHUTDOWN_PORT	0x8900
#define EXIT_CODE_OK		16
#define EXIT_CODE_FAILURE	17

#define STRAY_STUB_SIZE		16
#define OUTLIERS		4096
#define RX_MAX			128
#define CALIBRATE_HPET_TICKS	200000	/* 2 ms of Bochs' 100 MHz HPET */
/* an interrupt not seen by its deadline + this many TSC ticks is lost */
#define LOST_TICKS		5000000
/*
 * The LAPIC's TSC deadline ends a wait in HLT at that point (vector
 * WAKE_VECTOR): a lost interrupt is then counted, not a run that never ends.
 */
#define WAKE_VECTOR		0x58
#define MSR_LVT_TIMER		0x832
#define MSR_TSC_DEADLINE	0x6e0
#define LVT_TSC_DEADLINE_MODE	(2u << 17)

enum role { ROLE_COM2, ROLE_HPET, ROLE_POKE, ROLE_COUNT };
static const char *const role_names[ROLE_COUNT] = { "com2", "hpet", "poke" };

const char guest_name[] = "devirq";

void rt_timer_stub(void);
void rt_spurious_stub(void);
extern const uint8_t rt_stray_stubs[];
void rt_timer_irq(uint64_t tsc);
void rt_stray_irq(uint32_t vector);
volatile uint32_t rt_spurious_count;

static struct tempo_cpuid tempo;
static struct boot_params boot;
static enum role role;
static uint32_t vector = 0x50, gsi, count, interval_us, timer_n, storm, poke_port, poke_mmio;
static bool level, exit_emu, no_input;
static uint64_t seed = 1;
static char label[48] = "devirq";

static volatile uint32_t irqs, strays, stray_last;
static volatile uint64_t irq_tsc;
static volatile bool fired;
static volatile uint32_t rx_len;
static volatile char rx[RX_MAX + 1];

static struct lat_stats lat;
static uint32_t lat_exact[LAT_EXACT_TICKS];
static int64_t lat_outliers[OUTLIERS];

static void __attribute__((noreturn)) finish(bool ok, const char *why)
{
	asm volatile("cli");
	if (tempo.present) {
		tempo_hypercall(TEMPO_HC_SHUTDOWN, ok ? 0 : 1, 0, 0);
		halt_forever();
	}
	if (exit_emu) {
		con_printf("TEMPO_EXIT code=%d status=%s reason=\"%s\"\n",
			   ok ? EXIT_CODE_OK : EXIT_CODE_FAILURE, ok ? "ok" : "failure", why);
		uart_flush();
		outb(QEMU_DEBUG_EXIT_PORT, ok ? EXIT_CODE_OK : EXIT_CODE_FAILURE);
		if (ok)
			asm volatile("xchg %bx, %bx");
		for (const char *s = "Shutdown"; *s; s++)
			outb(BOCHS_SHUTDOWN_PORT, *s);
	}
	halt_forever();
}

void guest_panic(const char *why)
{
	con_printf("devirq: FAILED: %s\n", why);
	finish(false, why);
}

/* ---- the IOAPIC (Tempo's virtual one, or the machine's) ---- */

static volatile uint32_t *ioapic(void)
{
	return phys_ptr(IOAPIC_BASE);
}

static void ioapic_write(uint32_t reg, uint32_t value)
{
	ioapic()[IOAPIC_REGSEL] = reg;
	ioapic()[IOAPIC_WINDOW] = value;
}

static uint32_t ioapic_read(uint32_t reg)
{
	ioapic()[IOAPIC_REGSEL] = reg;
	return ioapic()[IOAPIC_WINDOW];
}

/* Input @pin to this CPU, fixed, physical, active high, with our vector. */
static void ioapic_route(uint32_t pin, bool lvl)
{
	con_printf("devirq: IOAPIC version 0x%x, %u inputs; input %u to APIC id %u vector 0x%x\n",
		   ioapic_read(1) & 0xff, ((ioapic_read(1) >> 16) & 0xff) + 1, pin, x2apic_id(),
		   vector);
	ioapic_write(IOAPIC_RTE(pin), RTE_MASKED);
	ioapic_write(IOAPIC_RTE(pin) + 1, x2apic_id() << 24);
	ioapic_write(IOAPIC_RTE(pin), vector | (lvl ? RTE_LEVEL : 0));
}

/* ---- interrupts (irq.S calls these with IF = 0) ---- */

static volatile uint8_t *hpet(uint32_t off)
{
	return (volatile uint8_t *)phys_ptr(HPET_BASE + off);
}

static uint32_t hpet_rd32(uint32_t off)
{
	return *(volatile uint32_t *)hpet(off);
}

static void hpet_wr32(uint32_t off, uint32_t v)
{
	*(volatile uint32_t *)hpet(off) = v;
}

static uint64_t hpet_counter(void)
{
	uint32_t hi, lo;

	do {
		hi = hpet_rd32(HPET_COUNTER + 4);
		lo = hpet_rd32(HPET_COUNTER);
	} while (hi != hpet_rd32(HPET_COUNTER + 4));
	return (uint64_t)hi << 32 | lo;
}

void rt_timer_irq(uint64_t tsc)
{
	irqs++;
	if (role == ROLE_COM2) {
		while ((inb(COM2 + UART_LSR) & UART_LSR_DR)) {
			uint8_t c = inb(COM2 + UART_RBR);

			if (rx_len < RX_MAX)
				rx[rx_len++] = (char)c;
		}
	} else {
		if (!fired)
			irq_tsc = tsc;
		fired = true;
		/* level: the HPET holds the line until its status bit is written */
		if (level)
			hpet_wr32(HPET_STATUS, 1u << timer_n);
	}
	wrmsr(MSR_X2APIC_EOI, 0);
}

void rt_stray_irq(uint32_t v)
{
	if (v == WAKE_VECTOR) {		/* the wait's own deadline: not a stray */
		wrmsr(MSR_X2APIC_EOI, 0);
		return;
	}
	strays++;
	stray_last = v;
	if (rdmsr(MSR_X2APIC_ISR0 + v / 32) & (1u << (v % 32)))
		wrmsr(MSR_X2APIC_EOI, 0);
}

static void idt_init(void)
{
	for (uint32_t v = 32; v < APIC_SPURIOUS_VECTOR; v++)
		exc_set_gate(v, (uint32_t)rt_stray_stubs + STRAY_STUB_SIZE * (v - 32));
	exc_set_gate(vector, (uint32_t)rt_timer_stub);
	exc_set_gate(APIC_SPURIOUS_VECTOR, (uint32_t)rt_spurious_stub);
}

/* The BIOS leaves the 8259s on: moved off the exceptions and masked (bare metal). */
static void pic_mask(void)
{
	outb(PIC1_CMD, 0x11);
	outb(PIC2_CMD, 0x11);
	outb(PIC1_DATA, 0x20);
	outb(PIC2_DATA, 0x28);
	outb(PIC1_DATA, 0x04);
	outb(PIC2_DATA, 0x02);
	outb(PIC1_DATA, 0x01);
	outb(PIC2_DATA, 0x01);
	outb(PIC1_DATA, 0xff);
	outb(PIC2_DATA, 0xff);
}

/* ---- options ---- */

static uint32_t opt_u32(const char *key, uint32_t lo, uint32_t hi, uint32_t def)
{
	char value[24];
	uint64_t v;

	if (!cmdline_value(boot.cmdline, key, value, sizeof(value)))
		return def;
	if (!parse_number(value, &v) || v < lo || v > hi) {
		con_printf("devirq: bad option %s=%s (%u-%u)\n", key, value, lo, hi);
		guest_panic("bad command line");
	}
	return (uint32_t)v;
}

static void parse_options(void)
{
	char value[48];

	role = ROLE_COUNT;
	if (cmdline_value(boot.cmdline, "role", value, sizeof(value)))
		for (uint32_t i = 0; i < ROLE_COUNT; i++)
			if (!strcmp(value, role_names[i]))
				role = i;
	if (role == ROLE_COUNT)
		guest_panic("role= com2, hpet or poke");
	if (cmdline_value(boot.cmdline, "trigger", value, sizeof(value)))
		level = !strcmp(value, "level");
	if (cmdline_value(boot.cmdline, "exit", value, sizeof(value)))
		exit_emu = !strcmp(value, "emu");
	if (cmdline_value(boot.cmdline, "input", value, sizeof(value)))
		no_input = !strcmp(value, "off");
	cmdline_value(boot.cmdline, "label", label, sizeof(label));
	vector = opt_u32("vector", 0x20, 0xfe, 0x50);
	gsi = opt_u32("gsi", 0, 23, role == ROLE_COM2 ? 3 : 5);
	count = opt_u32("count", 1, 1000000, role == ROLE_COM2 ? RX_MAX : 1000);
	interval_us = opt_u32("interval_us", 10, 100000, 200);
	timer_n = opt_u32("timer", 0, 2, 0);
	storm = opt_u32("storm", 0, 1000000, 0);
	seed = opt_u32("seed", 0, 0xffffffffu, 1);
	poke_port = opt_u32("port", 0, 0xffff, COM2);
	poke_mmio = opt_u32("mmio", 0, 0xfffff000u, 0);
}

/* ---- a neighbour's reach ---- */

static void run_poke(void)
{
	con_printf("devirq: writing 'X' to port 0x%x\n", poke_port);
	outb((uint16_t)poke_port, 'X');
	con_printf("devirq: port 0x%x survived\n", poke_port);
	if (!poke_mmio)
		return;
	con_printf("devirq: writing to 0x%x\n", poke_mmio);
	*(volatile uint32_t *)phys_ptr(poke_mmio) = 0;
	con_printf("devirq: mmio 0x%x survived\n", poke_mmio);
}

/* ---- COM2 ---- */

static void com2_putc(char c)
{
	uint64_t t0 = rdtsc();

	while (!(inb(COM2 + UART_LSR) & UART_LSR_THRE))
		if (rdtsc() - t0 > 100000000ull)
			guest_panic("COM2 never empties its transmitter");
	outb(COM2 + UART_THR, (uint8_t)c);
}

static uint32_t com2_puts(const char *s)
{
	uint32_t n = 0;

	for (; *s; s++, n++)
		com2_putc(*s);
	return n;
}

static void run_com2(void)
{
	uint32_t tx;
	uint64_t t0;
	bool nl = false;
	char text[RX_MAX + 1];

	outb(COM2 + UART_IER, 0);
	outb(COM2 + UART_LCR, 0x80);		/* divisor latch: 115200 */
	outb(COM2 + 0, 1);
	outb(COM2 + 1, 0);
	outb(COM2 + UART_LCR, 0x03);		/* 8N1 */
	outb(COM2 + UART_FCR, 0x07);		/* FIFOs on and cleared */
	outb(COM2 + UART_MCR, UART_MCR_DTR_RTS_OUT2);
	while (inb(COM2 + UART_LSR) & UART_LSR_DR)
		(void)inb(COM2 + UART_RBR);
	tx = com2_puts("devirq: hello out of COM2, by port I/O\r\n");
	con_printf("devirq: sent %u bytes out of COM2\n", tx);
	if (no_input) {
		con_printf("DEVIO role=com2 tx_bytes=%u rx_bytes=0 rx_irqs=0 strays=%u text=\"\"\n",
			   tx, strays);
		return;
	}
	ioapic_route(gsi, false);
	(void)inb(COM2 + UART_IIR);
	outb(COM2 + UART_IER, UART_IER_RDA);
	asm volatile("sti");
	tx += com2_puts("devirq: ready\r\n");
	t0 = rdtsc();
	/* every byte by interrupt: the handler drains the receiver */
	while (!nl && rx_len < count) {
		asm volatile("hlt");
		for (uint32_t i = 0; i < rx_len; i++)
			nl |= rx[i] == '\n' || rx[i] == '\r';
		if (rdtsc() - t0 > 60000000000ull)
			guest_panic("no line on COM2 in 60 s of TSC");
	}
	asm volatile("cli");
	outb(COM2 + UART_IER, 0);
	for (uint32_t i = 0; i < rx_len; i++)
		text[i] = rx[i] == '\r' || rx[i] == '\n' || rx[i] == '"' ? ' ' : rx[i];
	text[rx_len] = 0;
	tx += com2_puts("devirq: got '");
	for (uint32_t i = 0; i < rx_len && rx[i] != '\r' && rx[i] != '\n'; i++, tx++)
		com2_putc(rx[i]);
	tx += com2_puts("'\r\n");
	con_printf("DEVIO role=com2 tx_bytes=%u rx_bytes=%u rx_irqs=%u strays=%u text=\"%s\"\n",
		   tx, rx_len, irqs, strays, text);
	if (!irqs || !rx_len)
		guest_panic("no byte came by interrupt");
}

/* ---- HPET ---- */

static uint64_t rng(void)
{
	seed ^= seed << 13;
	seed ^= seed >> 7;
	seed ^= seed << 17;
	return seed;
}

/* comparators written behind the counter, armed again (not events) */
static uint32_t late_arms;

static void print_stats(uint32_t events, uint32_t lost)
{
	int64_t p99 = 0, p50 = 0;

	lat_finish(&lat);
	if (lat.n) {
		lat_percentile(&lat, 99, &p99);
		lat_percentile(&lat, 50, &p50);
	}
	con_printf("devirq: %s: %u events, %u lost: latency min %lld avg %lld p50 %lld p99 %lld "
		   "max %lld TSC ticks\n", label, events, lost, lat.n ? (long long)lat.min : 0,
		   lat.n ? (long long)lat_avg(&lat) : 0, (long long)p50, (long long)p99,
		   lat.n ? (long long)lat.max : 0);
	con_printf("DEVIRQ label=%s mode=%s trigger=%s events=%u lost=%u strays=%u "
		   "lat_min_ticks=%lld lat_avg_ticks=%lld lat_p99_ticks=%lld lat_max_ticks=%lld "
		   "late_arms=%u\n",
		   label, tempo.present ? "tempo" : "bare", level ? "level" : "edge", events, lost,
		   strays, lat.n ? (long long)lat.min : 0, lat.n ? (long long)lat_avg(&lat) : 0,
		   (long long)p99, lat.n ? (long long)lat.max : 0, late_arms);
}

static void run_hpet(void)
{
	uint64_t period_fs = hpet_rd32(HPET_CAP + 4), c0, c1, t0, t1, ratio_q32;
	uint32_t cfg = hpet_rd32(HPET_TN_CFG(timer_n)), routes = hpet_rd32(HPET_TN_CFG(timer_n) + 4);
	uint32_t lost = 0, events = 0;

	if (!period_fs || period_fs > 100000000ull)
		guest_panic("no HPET at 0xfed00000 (its period reads 0 or absurd)");
	con_printf("devirq: HPET id 0x%x, period %llu fs, timer %u config 0x%x routes 0x%x\n",
		   hpet_rd32(HPET_CAP), period_fs, timer_n, cfg, routes);
	/* stopped, legacy routing off; the timer one-shot, 64-bit, routed to @gsi */
	hpet_wr32(HPET_CFG, 0);
	hpet_wr32(HPET_TN_CFG(timer_n), (gsi << HPET_TN_ROUTE_SHIFT) | (level ? HPET_TN_LEVEL : 0));
	hpet_wr32(HPET_TN_CMP(timer_n), 0xffffffffu);
	hpet_wr32(HPET_TN_CMP(timer_n) + 4, 0xffffffffu);
	hpet_wr32(HPET_STATUS, 1u << timer_n);
	hpet_wr32(HPET_CFG, HPET_CFG_ENABLE);
	/* the main counter in TSC ticks, measured: the same figure bare and under Tempo */
	c0 = hpet_counter();
	t0 = rdtsc();
	do {
		c1 = hpet_counter();
	} while (c1 - c0 < CALIBRATE_HPET_TICKS);
	t1 = rdtsc();
	ratio_q32 = div_u64((t1 - t0) << 32, (uint32_t)(c1 - c0));
	con_printf("devirq: %llu TSC ticks per %u HPET ticks (ratio 0x%llx / 2^32)\n", t1 - t0,
		   (uint32_t)(c1 - c0), ratio_q32);
	ioapic_route(gsi, level);
	hpet_wr32(HPET_TN_CFG(timer_n), (gsi << HPET_TN_ROUTE_SHIFT) | (level ? HPET_TN_LEVEL : 0) |
		  HPET_TN_ENABLE);
	lat_init(&lat, lat_exact, lat_outliers, OUTLIERS);
	wrmsr(MSR_LVT_TIMER, LVT_TSC_DEADLINE_MODE | WAKE_VECTOR);
	asm volatile("sti");
	/* storm=: back-to-back comparators, as fast as the guest can re-arm them */
	for (uint32_t i = 0; i < storm; i++) {
		uint64_t c = hpet_counter() + 1;

		fired = false;
		hpet_wr32(HPET_TN_CMP(timer_n) + 4, (uint32_t)(c >> 32));
		hpet_wr32(HPET_TN_CMP(timer_n), (uint32_t)c);
		for (uint64_t w = rdtsc(); !fired && rdtsc() - w < LOST_TICKS;)
			cpu_relax();
	}
	if (storm)
		con_printf("devirq: storm of %u comparators, %u interrupts\n", storm, irqs);
	for (uint32_t i = 0; i < count; i++) {
		uint32_t interval = (uint32_t)div_u64(1000000000ull * interval_us, (uint32_t)period_fs);
		uint64_t d = interval / 2 + (uint32_t)rng() % (interval + 1), cnt, tsc, cmp, want, w;

		fired = false;
		tsc = rdtsc();
		cnt = hpet_counter();
		cmp = cnt + d;
		/* the comparator's time on the TSC: the counter read between two TSC reads */
		want = tsc + ((d * ratio_q32) >> 32);
		hpet_wr32(HPET_TN_CMP(timer_n) + 4, (uint32_t)(cmp >> 32));
		hpet_wr32(HPET_TN_CMP(timer_n), (uint32_t)cmp);
		/*
		 * A comparator written behind the counter never matches (a
		 * one-shot 64-bit timer fires on equality): on a shared core
		 * the guest's window may end between the counter's read and
		 * the write. With the counter past it now, the interrupt may
		 * or may not come: wait without HLT (nothing else would wake
		 * it), and arm again if it does not.
		 */
		if (hpet_counter() >= cmp) {
			for (w = rdtsc(); !fired && rdtsc() - w < LOST_TICKS;)
				cpu_relax();
			if (!fired) {
				late_arms++;
				i--;
				continue;
			}
		}
		events++;
		w = rdtsc();
		wrmsr(MSR_TSC_DEADLINE, w + d * 4 + LOST_TICKS);
		while (!fired && rdtsc() - w < d * 4 + LOST_TICKS)
			asm volatile("hlt");
		wrmsr(MSR_TSC_DEADLINE, 0);
		if (!fired) {
			lost++;
			continue;
		}
		lat_add(&lat, (int64_t)(irq_tsc - want));
	}
	asm volatile("cli");
	hpet_wr32(HPET_TN_CFG(timer_n), 0);
	hpet_wr32(HPET_CFG, 0);
	print_stats(events, lost);
	if (lost)
		guest_panic("interrupts lost");
}

void guest_main(uint32_t magic, uint32_t info)
{
	tempo_detect(&tempo);
	con_init(!tempo.present);
	exc_init();
	bootinfo_parse(magic, info, &boot);
	con_printf("devirq: start %s cmdline=\"%s\"\n", tempo.present ? "under Tempo" : "bare metal",
		   boot.cmdline);
	parse_options();
	if (role == ROLE_POKE) {
		run_poke();
		finish(true, "devirq done");
	}
	if (!x2apic_enable())
		guest_panic("no x2APIC");
	if (!tempo.present)
		pic_mask();
	idt_init();
	wrmsr(MSR_X2APIC_SVR, APIC_SVR_ENABLE | APIC_SPURIOUS_VECTOR);
	if (role == ROLE_COM2)
		run_com2();
	else
		run_hpet();
	con_printf("devirq: done\n");
	finish(true, "devirq done");
}
