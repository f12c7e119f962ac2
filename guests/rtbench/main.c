// SPDX-License-Identifier: MIT
/*
 * rtbench: a cyclictest-like latency benchmark of the local APIC timer in
 * TSC-deadline mode. It runs bare metal from GRUB and as a Tempo guest from
 * the same binary, so the two sets of figures compare directly.
 *
 * Each event arms IA32_TSC_DEADLINE, waits (HLT or a busy loop with IF=1) and
 * takes latency = TSC at the first instruction of the interrupt handler that
 * can read it, minus the deadline. Nothing is printed while measuring: the
 * samples go into latstat's exact histogram and are printed afterwards, as a
 * table for people and one RTBENCH line for scripts (../shared/LINES.md).
 * Optionally it then misbehaves on purpose (attack=) for a while, so the
 * hypervisor's host-tick counters show what a hostile guest costs it.
 * guests/rtbench/README.md lists the options and the lines.
 */
#include "guests/common/bootinfo.h"
#include "guests/common/console.h"
#include "guests/common/exc.h"
#include "guests/common/guest.h"
#include "guests/common/layout.h"
#include "guests/common/smp.h"
#include "guests/common/tempo.h"
#include "guests/common/x86.h"
#include "guests/rtbench/latstat.h"
#include "hv/lib/uart16550.h"
#include "hv/lib/div64.h"
#include "hv/lib/fmt.h"
#include "hv/lib/lib.h"

#define MSR_IA32_TSC_DEADLINE	0x6e0
#define MSR_X2APIC_TPR		0x808
#define MSR_X2APIC_EOI		0x80b
#define MSR_X2APIC_SVR		0x80f
#define MSR_X2APIC_ISR0		0x810	/* ISR bits 0-31; 0x811 bits 32-63 ... */
#define MSR_X2APIC_LVT_TIMER	0x832
#define MSR_X2APIC_LVT_LINT0	0x835

#define APIC_SVR_ENABLE		(1u << 8)
#define APIC_SPURIOUS_VECTOR	0xff
#define APIC_LVT_MASKED		(1u << 16)
#define APIC_LVT_TSC_DEADLINE	(2u << 17)	/* timer mode, bits 18:17 */
#define APIC_LVT_DELIVERY	(7u << 8)
#define APIC_LVT_EXTINT		(7u << 8)
/* TPR[7:4] is the priority class: 0xf0 blocks every vector (CR8 = 15). */
#define APIC_TPR_BLOCK_ALL	0xf0

#define CPUID1_ECX_TSC_DEADLINE	(1u << 24)

#define PIC1_CMD		0x20
#define PIC1_DATA		0x21
#define PIC2_CMD		0xa0
#define PIC2_DATA		0xa1
#define PIC_EOI			0x20
#define PIC_VECTOR_BASE		0x20	/* IRQ0-15 -> 0x20-0x2f, out of the exceptions */

#define PIT_HZ			1193182u
#define PIT_CH0_DATA		0x40
#define PIT_CH2_DATA		0x42
#define PIT_CMD			0x43
#define PIT_CMD_CH0_ONESHOT	0x30	/* channel 0, lobyte/hibyte, mode 0 */
#define PIT_CMD_CH2_ONESHOT	0xb0	/* channel 2, lobyte/hibyte, mode 0 */
#define PORT_B			0x61	/* gate of PIT channel 2 and its output */
#define PORT_B_GATE2		0x01
#define PORT_B_SPEAKER		0x02
#define PORT_B_OUT2		0x20
#define TSC_CALIBRATE_MS	50	/* as arch/x86/tsc.c in the hypervisor */
/* No timer takes 20 G TSC ticks (seconds) to count 50 ms: give up then. */
#define CALIBRATE_TSC_LIMIT	20000000000ull

#define QEMU_DEBUG_EXIT_PORT	0xf4
#define BOCHS_SHUTDOWN_PORT	0x8900
/* The codes Tempo's hv_stop() reports (hv/upcalls.h), so run.sh judges us alike. */
#define EXIT_CODE_OK		16
#define EXIT_CODE_FAILURE	17

#define DEFAULT_COUNT		1000
#define DEFAULT_INTERVAL_US	200
#define DEFAULT_VECTOR		0x40
#define DEFAULT_ATTACK_MS	20
#define MAX_INTERVAL_US		1000000
/* The default wait for a lost interrupt: deadline + 10 intervals + this. */
#define TIMEOUT_SLACK_TICKS	100000
/* A deadline at least this far ahead, or the first one would be in the past. */
#define MIN_INTERVAL_TICKS	100
#define STORM_AHEAD_TICKS	1000
/* EOIs written after an attack: each retires the highest vector in service. */
#define RESTORE_EOIS		8
#define FIRST_SAMPLES		8
/*
 * rewrite-passed: how far past the first deadline the later one is
 * published; less than the exit armed for the first comes after it (about
 * 190 ticks in Bochs: the entry path after the preemption timer's RDTSC).
 */
#define PASSED_TICKS		16
/*
 * Outliers (early or beyond LAT_EXACT_TICKS) kept one by one. Latencies
 * under the exact cap need no memory per sample, so count=10^6 fits.
 */
#define OUTLIERS_MAX		65536
#define VALUE_MAX		64
#define LABEL_MAX		48

enum workload {
	WL_FIXED, WL_RANDOM, WL_REWRITE_LATER, WL_REWRITE_EARLIER, WL_REWRITE_PASSED, WL_COUNT
};
enum wait_mode { WAIT_HLT, WAIT_BUSY, WAIT_COUNT };
enum attack {
	ATK_CLI_SPIN, ATK_NO_EOI, ATK_TPR15, ATK_MASK_LVT, ATK_DEADLINE_ZERO,
	ATK_DEADLINE_ONES, ATK_DEADLINE_STORM, ATK_CPUID_STORM, ATK_COUNT
};
enum phase { PHASE_IDLE, PHASE_MEASURE, PHASE_ATTACK };

static const char *const workload_names[WL_COUNT] = {
	[WL_FIXED] = "fixed", [WL_RANDOM] = "random",
	[WL_REWRITE_LATER] = "rewrite-later", [WL_REWRITE_EARLIER] = "rewrite-earlier",
	[WL_REWRITE_PASSED] = "rewrite-passed",
};
static const char *const wait_names[WAIT_COUNT] = { [WAIT_HLT] = "hlt", [WAIT_BUSY] = "busy" };
static const char *const attack_names[ATK_COUNT] = {
	[ATK_CLI_SPIN] = "cli_spin", [ATK_NO_EOI] = "no_eoi", [ATK_TPR15] = "tpr15",
	[ATK_MASK_LVT] = "mask_lvt", [ATK_DEADLINE_ZERO] = "deadline_zero",
	[ATK_DEADLINE_ONES] = "deadline_ones", [ATK_DEADLINE_STORM] = "deadline_storm",
	[ATK_CPUID_STORM] = "cpuid_storm",
};
static const char *const known_keys[] = {
	"exit", "workload", "wait", "count", "interval_us", "seed", "vector", "label",
	"attack", "attack_ms", "timeout_us", "tsc_khz", "mask_every", "backstop", "rewrites",
	"apic",
};

struct rt_options {
	enum workload workload;
	enum wait_mode wait;
	uint32_t count;
	uint32_t rewrites;	/* rewrite-later: how many later rewrites before the last */
	uint32_t interval_us;
	uint64_t seed;
	uint32_t vector;
	uint32_t attacks;	/* bit per enum attack, run in enum order */
	uint32_t attack_ms;
	uint32_t timeout_us;	/* 0: the default */
	uint32_t tsc_khz;	/* 0: ask Tempo or calibrate */
	uint32_t mask_every;	/* self-test: every Nth event is armed with the LVT masked */
	bool no_backstop;	/* backstop=off: HLT waits rely on the timer alone */
	bool xapic;		/* apic=xapic: the APIC through its xAPIC page, not the x2APIC MSRs */
	char label[LABEL_MAX];
	bool exit_emu;
};

struct rt_results {
	uint32_t events;	/* deadlines armed */
	uint32_t lost;
	uint32_t early;
	uint32_t dup;
	uint32_t rewrite_raced;	/* the first deadline had passed before it was rewritten */
	uint32_t postponed;	/* pv-lazy: interrupts of deadlines moved later lazily */
	uint32_t masked;	/* self-test events armed masked */
	uint32_t first_n;
	int64_t first_lat[FIRST_SAMPLES];
	uint64_t wall_ticks;
};

const char guest_name[] = "rtbench";

/* Shared with the interrupt handlers (one CPU: volatile is enough). */
static volatile uint32_t rt_phase;
static volatile bool rt_armed;		/* an interrupt is expected */
static volatile bool rt_fired;
static volatile uint64_t rt_irq_tsc;
static volatile bool rt_skip_eoi;	/* attack=no_eoi */
static volatile uint32_t rt_dup;
static volatile uint32_t rt_attack_irqs;
static volatile uint32_t rt_stray_count;
static volatile uint32_t rt_stray_last;
static volatile uint32_t rt_backstop_irqs;
static volatile bool rt_backstop_armed;
static volatile uint64_t rt_deadline;	/* the one an interrupt is expected for */
/*
 * rewrite-passed: the later deadline, armed while the first one's interrupt
 * is awaited. Its interrupt may come before run_event waits for it: when
 * the first one's came late enough that the later one expired while its
 * handler ran (IF=0), the later one's is taken right after the IRET. It is
 * the later one's, not a duplicate; counted as one, run_event would wait
 * for it in HLT for ever.
 */
static volatile uint64_t rt_next_deadline;
static volatile bool rt_next_fired;
static volatile uint64_t rt_next_irq_tsc;
/*
 * pv-lazy: the earliest deadline the hypervisor had armed when a later one
 * was published lazily, until the event ends. Its interrupt may still come,
 * at or after it: the hypervisor reads the page at the exit armed for it,
 * after it, and then cannot tell whether the guest published before it
 * expired, so it fires it (docs/timer-modes.md). Told from the awaited
 * deadline's own by the TSC, as a guest must on hardware for a deadline it
 * moves just as it expires.
 */
static volatile uint64_t rt_postponed;
static volatile uint32_t rt_postponed_irqs;
volatile uint32_t rt_spurious_count;	/* irq.S increments it */

void rt_timer_stub(void);
void rt_spurious_stub(void);
extern const uint8_t rt_stray_stubs[];
/*
 * apic=xapic: the guest leaves x2APIC mode (through disabled, as the SDM
 * allows) and uses the xAPIC register page, an x2APIC register's MSR
 * 0x800 + n being the page's offset n * 16; IA32_TSC_DEADLINE stays an MSR.
 */
#define XAPIC_BASE		0xfee00000u
static volatile uint32_t *xapic_page;

static void apic_wr(uint32_t msr, uint32_t value)
{
	if (xapic_page)
		xapic_page[(msr - 0x800) * 4] = value;
	else
		wrmsr(msr, value);
}

static uint32_t apic_rd(uint32_t msr)
{
	return xapic_page ? xapic_page[(msr - 0x800) * 4] : (uint32_t)rdmsr(msr);
}

void rt_timer_irq(uint64_t tsc);
void rt_stray_irq(uint32_t vector);

struct idt_gate {
	uint16_t offset_lo;
	uint16_t selector;
	uint8_t zero;
	uint8_t type_attr;
	uint16_t offset_hi;
} __attribute__((packed));

struct idt_ptr {
	uint16_t limit;
	uint32_t base;
} __attribute__((packed));

#define IDT_GATE_INT32		0x8e	/* present, DPL 0, 32-bit interrupt gate */
#define IDT_VECTORS		256
#define STRAY_STUB_SIZE		16	/* irq.S */

static struct idt_gate rt_idt[IDT_VECTORS] __attribute__((aligned(8)));
static struct idt_ptr rt_idtr;

static struct tempo_cpuid tempo;
static struct boot_params boot;
static struct rt_options opt;
static struct rt_results res;
static struct lat_stats lat;
static uint32_t lat_exact[LAT_EXACT_TICKS];
static int64_t lat_outliers[OUTLIERS_MAX];

static uint32_t tsc_khz;
static const char *tsc_source;
static uint64_t interval_ticks;
static uint64_t timeout_ticks;
static uint32_t lvt_timer;		/* the LVT value in force: vector, deadline mode */
static bool backstop_on;		/* hlt waits also wake on PIT channel 0 */
static uint64_t rng_state;

static void __attribute__((noreturn)) emulator_exit(bool ok, const char *why)
{
	asm volatile("cli");
	con_printf("TEMPO_EXIT code=%d status=%s reason=\"%s\"\n",
		   ok ? EXIT_CODE_OK : EXIT_CODE_FAILURE, ok ? "ok" : "failure", why);
	uart_flush();	/* the emulator ends at once: the line must be out first */
	outb(QEMU_DEBUG_EXIT_PORT, ok ? EXIT_CODE_OK : EXIT_CODE_FAILURE);
	if (ok) {
		asm volatile("xchg %bx, %bx");	/* Bochs magic breakpoint */
	} else {
		for (const char *s = "Shutdown"; *s; s++)
			outb(BOCHS_SHUTDOWN_PORT, *s);
	}
	con_printf("rtbench: halted\n");
	halt_forever();
}

void guest_panic(const char *why)
{
	asm volatile("cli");
	con_printf("rtbench: FAILED: %s\n", why);
	if (tempo.present) {
		tempo_hypercall(TEMPO_HC_SHUTDOWN, 1, 0, 0);
		con_printf("rtbench: error: shutdown hypercall returned\n");
	} else if (opt.exit_emu) {
		emulator_exit(false, why);
	}
	halt_forever();
}

/* ---- interrupt handlers (called from irq.S with IF=0) ---- */

static bool tsc_before(uint64_t a, uint64_t b);

void rt_timer_irq(uint64_t tsc)
{
	if (rt_phase == PHASE_MEASURE) {
		if (rt_postponed && !tsc_before(tsc, rt_postponed) &&
		    (!rt_armed || tsc_before(tsc, rt_deadline))) {
			rt_postponed = 0;	/* at most one: the page's deadline replaced it */
			rt_postponed_irqs++;
		} else if (rt_armed) {
			rt_irq_tsc = tsc;
			rt_armed = false;
			rt_fired = true;
		} else if (rt_next_deadline && !tsc_before(tsc, rt_next_deadline)) {
			rt_next_irq_tsc = tsc;
			rt_next_deadline = 0;
			rt_next_fired = true;
		} else {
			rt_dup++;
		}
	} else {
		rt_attack_irqs++;
	}
	if (!rt_skip_eoi)
		apic_wr(MSR_X2APIC_EOI, 0);
}

static bool apic_in_service(uint32_t vector)
{
	return apic_rd(MSR_X2APIC_ISR0 + vector / 32) & (1u << (vector % 32));
}

void rt_stray_irq(uint32_t vector)
{
	uint32_t irq = vector - PIC_VECTOR_BASE;

	/* Through the local APIC (in service there): retire it, or it blocks lower vectors. */
	if (apic_in_service(vector)) {
		rt_stray_count++;
		rt_stray_last = vector;
		apic_wr(MSR_X2APIC_EOI, 0);
		return;
	}
	/* From the 8259 (ExtINT: nothing in service in the local APIC). */
	if (!tempo.present && irq < 16) {
		if (irq == 0 && backstop_on) {
			rt_backstop_irqs++;
			rt_backstop_armed = false;
			outb(PIC1_CMD, PIC_EOI);
			return;
		}
		rt_stray_count++;
		rt_stray_last = vector;
		/* IRQ7 and IRQ15 are the 8259's spurious ones: no EOI on their chip. */
		if (irq >= 8 && irq != 15)
			outb(PIC2_CMD, PIC_EOI);
		if (irq != 7)
			outb(PIC1_CMD, PIC_EOI);
		return;
	}
	rt_stray_count++;
	rt_stray_last = vector;
}

/* ---- set-up ---- */

static void idt_set(uint32_t vector, uint32_t handler)
{
	rt_idt[vector].offset_lo = handler & 0xffff;
	rt_idt[vector].selector = GDT_CODE32;
	rt_idt[vector].zero = 0;
	rt_idt[vector].type_attr = IDT_GATE_INT32;
	rt_idt[vector].offset_hi = handler >> 16;
}

static void idt_init(void)
{
	for (uint32_t v = 0; v < 32; v++)
		idt_set(v, exc_stub_address(v));
	for (uint32_t v = 32; v < APIC_SPURIOUS_VECTOR; v++)
		idt_set(v, (uint32_t)rt_stray_stubs + STRAY_STUB_SIZE * (v - 32));
	idt_set(opt.vector, (uint32_t)rt_timer_stub);
	idt_set(APIC_SPURIOUS_VECTOR, (uint32_t)rt_spurious_stub);
	rt_idtr.limit = sizeof(rt_idt) - 1;
	rt_idtr.base = (uint32_t)rt_idt;
	asm volatile("lidt %0" : : "m"(rt_idtr));
}

/* The BIOS leaves the 8259 on vectors 8-15 (EMULATORS.md): move it out of the exceptions. */
static void pic_remap_and_mask(void)
{
	outb(PIC1_CMD, 0x11);			/* ICW1: edge, cascade, ICW4 follows */
	outb(PIC2_CMD, 0x11);
	outb(PIC1_DATA, PIC_VECTOR_BASE);	/* ICW2: vector base */
	outb(PIC2_DATA, PIC_VECTOR_BASE + 8);
	outb(PIC1_DATA, 0x04);			/* ICW3: slave on IRQ2 */
	outb(PIC2_DATA, 0x02);
	outb(PIC1_DATA, 0x01);			/* ICW4: 8086 mode */
	outb(PIC2_DATA, 0x01);
	outb(PIC1_DATA, 0xff);			/* OCW1: all masked */
	outb(PIC2_DATA, 0xff);
}

static uint32_t calibrate_pit(void)
{
	uint32_t count = PIT_HZ / (1000 / TSC_CALIBRATE_MS);
	uint8_t b = inb(PORT_B);
	uint64_t t0, t1;

	/* Gate high, speaker off; channel 2 counts down once (mode 0). */
	outb(PORT_B, (b & ~PORT_B_SPEAKER) | PORT_B_GATE2);
	outb(PIT_CMD, PIT_CMD_CH2_ONESHOT);
	outb(PIT_CH2_DATA, count & 0xff);
	outb(PIT_CH2_DATA, count >> 8);
	t0 = rdtsc();
	/* OUT2 goes high at terminal count. */
	while (!(inb(PORT_B) & PORT_B_OUT2)) {
		if (rdtsc() - t0 > CALIBRATE_TSC_LIMIT) {
			outb(PORT_B, b);
			return 0;
		}
	}
	t1 = rdtsc();
	outb(PORT_B, b);
	/* kHz = ticks * PIT_HZ / count / 1000; count * 1000 fits 32 bits. */
	return (uint32_t)div_u64((t1 - t0) * PIT_HZ, count * 1000);
}

static uint32_t cpuid_tsc_khz(void)
{
	uint32_t a, b, c, d;

	cpuid(0, 0, &a, &b, &c, &d);
	if (a >= 0x15) {
		cpuid(0x15, 0, &a, &b, &c, &d);
		if (a && b && c)
			return (uint32_t)div_u64((uint64_t)c * b, a * 1000);
		cpuid(0, 0, &a, &b, &c, &d);
	}
	if (a >= 0x16) {
		cpuid(0x16, 0, &a, &b, &c, &d);
		if (a & 0xffff)
			return (a & 0xffff) * 1000;
	}
	return 0;
}

static void find_tsc_khz(void)
{
	if (opt.tsc_khz) {
		tsc_khz = opt.tsc_khz;
		tsc_source = "cmdline";
	} else if (tempo.present && tempo.tsc_khz) {
		tsc_khz = tempo.tsc_khz;
		tsc_source = "cpuid-0x40000010";
	} else if (!tempo.present) {
		tsc_khz = calibrate_pit();
		tsc_source = "pit";
	}
	if (!tsc_khz) {
		/* Tempo without leaf 0x40000010 has no PIT to offer: the CPU's own leaves. */
		tsc_khz = cpuid_tsc_khz();
		tsc_source = "cpuid-0x15/0x16";
	}
	if (!tsc_khz)
		guest_panic("TSC frequency unknown (give tsc_khz=)");
}

static void apic_init(void)
{
	uint32_t a, b, c, d;

	cpuid(1, 0, &a, &b, &c, &d);
	if (!(c & CPUID1_ECX_TSC_DEADLINE))
		guest_panic("no TSC-deadline mode (CPUID.1:ECX[24])");
	/* Under Tempo x2APIC is on already and this only checks it. */
	if (!x2apic_enable())
		guest_panic("no x2APIC");
	if (opt.xapic) {
		uint64_t base = rdmsr(MSR_IA32_APIC_BASE) & ~0xfffull;

		wrmsr(MSR_IA32_APIC_BASE, base);			/* x2APIC -> disabled */
		wrmsr(MSR_IA32_APIC_BASE, base | APIC_BASE_GLOBAL_EN);	/* -> xAPIC */
		if ((rdmsr(MSR_IA32_APIC_BASE) & (APIC_BASE_GLOBAL_EN | APIC_BASE_X2APIC_EN)) !=
		    APIC_BASE_GLOBAL_EN || (base & 0xffffffff00000000ull))
			guest_panic("no xAPIC mode");
		xapic_page = phys_ptr((uint32_t)base);
		con_printf("rtbench: xAPIC mode, registers at 0x%x, version 0x%x\n",
			   (uint32_t)base, apic_rd(0x803));
	}
	wrmsr(MSR_IA32_TSC_DEADLINE, 0);
	apic_wr(MSR_X2APIC_SVR, APIC_SVR_ENABLE | APIC_SPURIOUS_VECTOR);
	apic_wr(MSR_X2APIC_TPR, 0);
	lvt_timer = opt.vector | APIC_LVT_TSC_DEADLINE;
	apic_wr(MSR_X2APIC_LVT_TIMER, lvt_timer);
}

/* ---- the command line ---- */

static void bad_option(const char *key, const char *value, const char *why)
{
	con_printf("rtbench: bad option %s=%s: %s\n", key, value, why);
	guest_panic("bad command line");
}

/* Reads key=N in [lo, hi]; leaves *out alone when the key is absent. */
static void opt_u64(const char *key, uint64_t lo, uint64_t hi, uint64_t *out)
{
	char value[VALUE_MAX];
	uint64_t v;

	if (!cmdline_value(boot.cmdline, key, value, sizeof(value)))
		return;
	if (strlen(value) >= sizeof(value) - 1 || !parse_number(value, &v))
		bad_option(key, value, "not a number");
	if (v < lo || v > hi)
		bad_option(key, value, "out of range");
	*out = v;
}

static void opt_u32(const char *key, uint32_t lo, uint32_t hi, uint32_t *out)
{
	uint64_t v = *out;

	opt_u64(key, lo, hi, &v);
	*out = (uint32_t)v;
}

static int name_index(const char *const *names, int n, const char *s)
{
	for (int i = 0; i < n; i++) {
		if (names[i] && !memcmp(names[i], s, strlen(names[i]) + 1))
			return i;
	}
	return -1;
}

static void opt_attacks(void)
{
	char value[VALUE_MAX * 4];
	char *p, *next;
	int i;

	if (!cmdline_value(boot.cmdline, "attack", value, sizeof(value)))
		return;
	if (!memcmp(value, "none", 5))
		return;
	if (!memcmp(value, "all", 4)) {
		opt.attacks = (1u << ATK_COUNT) - 1;
		return;
	}
	/* A comma-separated list. */
	for (p = value; p; p = next) {
		next = p;
		while (*next && *next != ',')
			next++;
		if (*next)
			*next++ = '\0';
		else
			next = NULL;
		i = name_index(attack_names, ATK_COUNT, p);
		if (i < 0)
			bad_option("attack", p, "unknown attack");
		opt.attacks |= 1u << i;
	}
}

static void warn_unknown_keys(void)
{
	const char *p = boot.cmdline;

	while (*p) {
		const char *word = p, *eq = NULL;
		bool known = false;

		while (*p && *p != ' ') {
			if (*p == '=' && !eq)
				eq = p;
			p++;
		}
		for (size_t i = 0; i < sizeof(known_keys) / sizeof(known_keys[0]); i++) {
			size_t n = strlen(known_keys[i]);

			if (eq && (size_t)(eq - word) == n && !memcmp(word, known_keys[i], n))
				known = true;
		}
		if (!known && p > word) {
			char name[VALUE_MAX];
			size_t n = (size_t)(p - word);

			if (n >= sizeof(name))
				n = sizeof(name) - 1;
			memcpy(name, word, n);
			name[n] = '\0';
			con_printf("rtbench: unknown option \"%s\" ignored\n", name);
		}
		while (*p == ' ')
			p++;
	}
}

static void parse_options(void)
{
	char value[VALUE_MAX];
	int i;

	opt.workload = WL_FIXED;
	opt.wait = WAIT_HLT;
	opt.count = DEFAULT_COUNT;
	opt.interval_us = DEFAULT_INTERVAL_US;
	opt.seed = 1;
	opt.vector = DEFAULT_VECTOR;
	opt.attack_ms = DEFAULT_ATTACK_MS;
	opt.rewrites = 1;
	memcpy(opt.label, "none", 5);

	opt.exit_emu = cmdline_value(boot.cmdline, "exit", value, sizeof(value)) &&
		       !memcmp(value, "emu", 4);
	warn_unknown_keys();
	if (cmdline_value(boot.cmdline, "workload", value, sizeof(value))) {
		i = name_index(workload_names, WL_COUNT, value);
		if (i < 0)
			bad_option("workload", value,
				   "fixed|random|rewrite-later|rewrite-earlier|rewrite-passed");
		opt.workload = i;
	}
	if (cmdline_value(boot.cmdline, "wait", value, sizeof(value))) {
		i = name_index(wait_names, WAIT_COUNT, value);
		if (i < 0)
			bad_option("wait", value, "hlt|busy");
		opt.wait = i;
	}
	opt_u32("count", 0, UINT32_MAX - 1, &opt.count);
	opt_u32("rewrites", 1, 4, &opt.rewrites);
	opt_u32("interval_us", 1, MAX_INTERVAL_US, &opt.interval_us);
	opt_u64("seed", 0, UINT64_MAX, &opt.seed);
	/* Above the 8259's 0x20-0x2f, below the spurious vector. */
	opt_u32("vector", 0x30, 0xfe, &opt.vector);
	if (cmdline_value(boot.cmdline, "apic", value, sizeof(value))) {
		if (strcmp(value, "xapic") && strcmp(value, "x2apic"))
			bad_option("apic", value, "x2apic|xapic");
		opt.xapic = !strcmp(value, "xapic");
	}
	opt_u32("attack_ms", 0, 60000, &opt.attack_ms);
	opt_u32("timeout_us", 0, 60000000, &opt.timeout_us);
	opt_u32("tsc_khz", 0, UINT32_MAX, &opt.tsc_khz);
	opt_u32("mask_every", 0, UINT32_MAX, &opt.mask_every);
	opt_attacks();
	if (cmdline_value(boot.cmdline, "backstop", value, sizeof(value))) {
		if (!memcmp(value, "off", 4))
			opt.no_backstop = true;
		else if (memcmp(value, "pit", 4))
			bad_option("backstop", value, "pit|off");
	}
	if (cmdline_value(boot.cmdline, "label", opt.label, sizeof(opt.label))) {
		/* LINES.md: values have no spaces (they cannot here) nor control bytes. */
		for (char *c = opt.label; *c; c++) {
			if (*c <= 0x20 || *c >= 0x7f)
				*c = '_';
		}
		if (!opt.label[0])
			memcpy(opt.label, "none", 5);
	}
}

/* ---- measuring ---- */

static uint64_t xorshift64(void)
{
	uint64_t x = rng_state;

	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	rng_state = x;
	return x;
}

/* Uniform enough in [interval/2, 3*interval/2] (interval + 1 fits 32 bits). */
static uint64_t random_interval(void)
{
	uint32_t r;

	div_u64_rem(xorshift64(), (uint32_t)interval_ticks + 1, &r);
	return interval_ticks / 2 + r;
}

/* PIT channel 0, one shot, raises IRQ0 about @ticks TSC ticks from now (at most ~55 ms). */
static void backstop_arm(uint64_t ticks)
{
	uint64_t count = div_u64(ticks * (PIT_HZ / 1000), tsc_khz) + 1;

	if (count > 0xffff)
		count = 0xffff;
	outb(PIT_CMD, PIT_CMD_CH0_ONESHOT);
	outb(PIT_CH0_DATA, count & 0xff);
	outb(PIT_CH0_DATA, count >> 8);
	rt_backstop_armed = true;
}

/* A new control word stops a mode-0 count with its output low: no IRQ0. */
static void backstop_stop(void)
{
	outb(PIT_CMD, PIT_CMD_CH0_ONESHOT);
	rt_backstop_armed = false;
}

static bool tsc_before(uint64_t a, uint64_t b)
{
	return (int64_t)(a - b) < 0;
}

/*
 * Waits with the deadline armed until the handler saw it or @timeout passes.
 * Entered and left with IF=0.
 */
static bool wait_for_irq(uint64_t timeout)
{
	if (opt.wait == WAIT_BUSY) {
		asm volatile("sti" ::: "memory");
		/* No PAUSE: it could delay the interrupt by its own length. */
		while (!rt_fired && tsc_before(rdtsc(), timeout))
			;
		asm volatile("cli" ::: "memory");
		return rt_fired;
	}
	while (!rt_fired) {
		uint64_t now = rdtsc();

		if (!tsc_before(now, timeout))
			break;
		/*
		 * HLT wakes only on an interrupt: if ours were lost, the PIT
		 * (bare metal) is what lets the timeout be seen.
		 */
		if (backstop_on && !rt_backstop_armed)
			backstop_arm(timeout - now);
		/* STI's one-instruction shadow: an interrupt before HLT still wakes it. */
		asm volatile("sti; hlt; cli" ::: "memory");
	}
	if (backstop_on)
		backstop_stop();
	return rt_fired;
}

/*
 * pv-lazy mode (hv/core/hypercall_abi.h): publish, fence, and trap only when the
 * hypervisor's armed exit would come too late.
 */
static struct tempo_pv_timer pv_timer __attribute__((aligned(64)));
static bool pv_lazy;

/*
 * Lazily only if the hypervisor's exit (armed) comes no later than D and
 * the TSC, read after the publish, is still below armed: then the publish
 * came before the deadline armed expired. Past armed the old deadline may
 * have expired, and a second lazy publish before the exit for it would
 * replace the page's deadline unseen (it expired too: lost); so trap.
 * @tsc_check false skips that check (the rewrite-passed workload: a guest
 * that publishes once after the old deadline expired). IF=0 inside, so the
 * interrupt of a postponed deadline finds rt_postponed set. Returns true
 * when published without a trap.
 */
static bool set_deadline_pv(uint64_t d, bool tsc_check)
{
	uint32_t flags;
	bool lazy = false;

	if (pv_lazy) {
		uint64_t armed;

		asm volatile("pushf; pop %0; cli" : "=r"(flags) : : "memory");
		pv_timer.next = d;
		asm volatile("mfence" ::: "memory");
		armed = pv_timer.armed;
		if (armed && armed <= d && d && (!tsc_check || tsc_before(rdtsc(), armed))) {
			lazy = true;
			if (!rt_postponed || tsc_before(armed, rt_postponed))
				rt_postponed = armed;
		}
		asm volatile("push %0; popf" : : "r"(flags) : "memory", "cc");
		if (lazy)
			return true;
	}
	wrmsr(MSR_IA32_TSC_DEADLINE, d);
	return false;
}

static void set_deadline(uint64_t d)
{
	set_deadline_pv(d, true);
}

static void pv_lazy_setup(void)
{
	if (!tempo.present || tempo_hypercall(TEMPO_HC_TIMER_MODE_GET, 0, 0, 0) != 3)
		return;
	if (tempo_hypercall(TEMPO_HC_PV_TIMER, (uint32_t)(uintptr_t)&pv_timer, 0, 0) == 0) {
		pv_lazy = true;
		con_printf("rtbench: pv-lazy deadline page at 0x%x\n", (uint32_t)(uintptr_t)&pv_timer);
	} else {
		con_printf("rtbench: pv-lazy page refused; plain deadline writes\n");
	}
}

static void run_event(uint32_t index)
{
	uint64_t interval = interval_ticks, now, first, deadline;
	bool mask = opt.mask_every && (index + 1) % opt.mask_every == 0;
	bool fired, armed_already = false, got_later = false;

	if (opt.workload == WL_RANDOM)
		interval = random_interval();
	if (backstop_on)
		backstop_arm(interval + timeout_ticks);
	now = rdtsc();
	deadline = now + interval;
	if (opt.workload == WL_REWRITE_LATER || opt.workload == WL_REWRITE_EARLIER) {
		/*
		 * Arm a first deadline, let a quarter interval pass (IF=1: if
		 * that one fires it counts as a duplicate), then rewrite it:
		 * only the second may fire.
		 */
		first = opt.workload == WL_REWRITE_LATER ? now + interval / 2 : now + 2 * interval;
		set_deadline(first);
		/* rewrite-later may move it later several times (rewrites=) */
		for (uint32_t r = 1; opt.workload == WL_REWRITE_LATER && r < opt.rewrites; r++) {
			while (rdtsc() - now < r * interval / 16)
				;
			set_deadline(first + r * interval / 16);
		}
		while (rdtsc() - now < interval / 4)
			;
		now = rdtsc();
		if (!tsc_before(now, first))
			res.rewrite_raced++;
		deadline = now + interval;
	} else if (opt.workload == WL_REWRITE_PASSED) {
		/*
		 * A first deadline expires with IF=0 (on hardware its interrupt
		 * waits in the IRR); then, before the exit armed for it (which
		 * comes after it), a later one is published (pv-lazy: on the
		 * page, without the TSC check). The first one's interrupt must
		 * still come, then the later one's.
		 */
		asm volatile("cli" ::: "memory");
		/*
		 * Half an interval ahead: the trapped write of the first must
		 * be back before it, or the exit armed for it comes first, the
		 * later one traps too (nothing is armed then) and this race is
		 * not run. The round trip is some 700 ticks in Bochs and over
		 * 2,500 on the VMCS-checking build (its check is about 2,000 an
		 * entry): a quarter interval (2,500) left that build no lazy
		 * publish at all.
		 */
		first = now + interval / 2;
		set_deadline(first);
		while (tsc_before(rdtsc(), first + PASSED_TICKS))
			;
		deadline = first + interval;
		if (set_deadline_pv(deadline, false))
			res.rewrite_raced++;
		rt_postponed = 0;	/* it expired: its interrupt is a real one */
		armed_already = true;
		rt_fired = false;
		rt_deadline = first;
		rt_armed = true;
		rt_next_fired = false;
		rt_next_deadline = deadline;
		if (!wait_for_irq(first + timeout_ticks)) {
			res.lost++;
			rt_armed = false;
		} else if (!tsc_before(rt_irq_tsc, deadline)) {
			/* that was the later one's: the first one's was lost */
			res.lost++;
			got_later = true;
		}
		/* IF=0 from here: the later one's comes in wait_for_irq below, or came */
		rt_next_deadline = 0;
		if (!got_later && rt_next_fired) {
			rt_irq_tsc = rt_next_irq_tsc;
			got_later = true;
		}
	}
	asm volatile("cli" ::: "memory");
	if (mask) {
		apic_wr(MSR_X2APIC_LVT_TIMER, lvt_timer | APIC_LVT_MASKED);
		res.masked++;
	}
	if (got_later) {
		fired = true;
	} else {
		rt_fired = false;
		rt_deadline = deadline;
		rt_armed = true;
		if (!armed_already)
			set_deadline(deadline);
		fired = wait_for_irq(deadline + timeout_ticks);
	}
	if (fired) {
		int64_t ticks = (int64_t)(rt_irq_tsc - deadline);

		lat_add(&lat, ticks);
		if (ticks < 0)
			res.early++;
		if (res.first_n < FIRST_SAMPLES)
			res.first_lat[res.first_n++] = ticks;
	} else {
		res.lost++;
		rt_armed = false;
		wrmsr(MSR_IA32_TSC_DEADLINE, 0);
	}
	if (mask)
		apic_wr(MSR_X2APIC_LVT_TIMER, lvt_timer);
	/* a postponed deadline's interrupt came before the awaited one, or not at all */
	rt_postponed = 0;
	res.events++;
	asm volatile("sti" ::: "memory");
}

static void measure(void)
{
	uint64_t start, tail_end;

	lat_init(&lat, lat_exact, lat_outliers, OUTLIERS_MAX);
	rng_state = opt.seed ? opt.seed : 0x9e3779b97f4a7c15ull;	/* xorshift needs != 0 */
	if (backstop_on)
		outb(PIC1_DATA, 0xfe);		/* IRQ0 only */
	rt_dup = 0;
	rt_phase = PHASE_MEASURE;
	asm volatile("sti" ::: "memory");
	/*
	 * Under Tempo, the hypervisor's counters at both ends of the window: the
	 * harness takes the difference (exits per event, tick exits).
	 */
	if (tempo.present)
		tempo_hypercall(TEMPO_HC_STATS, 0, 0, 0);
	start = rdtsc();
	for (uint32_t i = 0; i < opt.count; i++)
		run_event(i);
	res.wall_ticks = rdtsc() - start;
	if (tempo.present)
		tempo_hypercall(TEMPO_HC_STATS, 0, 0, 0);
	/* A late duplicate of the last event still counts. */
	tail_end = rdtsc() + 2 * interval_ticks;
	while (tsc_before(rdtsc(), tail_end))
		;
	asm volatile("cli" ::: "memory");
	wrmsr(MSR_IA32_TSC_DEADLINE, 0);
	rt_phase = PHASE_IDLE;
	res.dup = rt_dup;
	res.postponed = rt_postponed_irqs;
	if (backstop_on)
		outb(PIC1_DATA, 0xff);
	asm volatile("sti" ::: "memory");
	lat_finish(&lat);
}

/* ---- printing ---- */

/* @ticks as microseconds with three decimals. */
static const char *ticks_us(char *buf, size_t len, int64_t ticks)
{
	uint64_t mag = ticks < 0 ? -(uint64_t)ticks : (uint64_t)ticks;
	uint32_t frac;
	uint64_t ns;

	if (mag > (UINT64_MAX / 1000000)) {
		fmt_snprintf(buf, len, "huge");
		return buf;
	}
	ns = div_u64(mag * 1000000, tsc_khz);
	ns = div_u64_rem(ns, 1000, &frac);
	fmt_snprintf(buf, len, "%s%llu.%03u", ticks < 0 ? "-" : "", ns, frac);
	return buf;
}

static void print_row(const char *name, bool ok, int64_t ticks)
{
	char us[32];

	if (ok)
		con_printf("rtbench:   %s %12lld %14s\n", name, ticks, ticks_us(us, sizeof(us), ticks));
	else
		con_printf("rtbench:   %s           na             na\n", name);
}

static void print_results(void)
{
	bool have = lat.n > 0, p50_ok = false, p99_ok = false;
	int64_t p50 = 0, p99 = 0, avg = have ? lat_avg(&lat) : 0;
	char line[512], num[24], us[32];
	size_t n = 0;

	if (have) {
		p50_ok = lat_percentile(&lat, 50, &p50);
		p99_ok = lat_percentile(&lat, 99, &p99);
	}
	con_printf("rtbench: results: %u events, %llu latencies (TSC at handler entry - deadline)\n",
		   res.events, lat.n);
	con_printf("rtbench:               ticks             us\n");
	print_row("min", have, lat.min);
	print_row("avg", have, avg);
	print_row("p50", p50_ok, p50);
	print_row("p99", p99_ok, p99);
	print_row("max", have, lat.max);
	con_printf("rtbench:   lost=%u early=%u dup=%u spurious=%u stray=%u (last vector 0x%x)\n",
		   res.lost, res.early, res.dup, rt_spurious_count, rt_stray_count, rt_stray_last);
	if (res.rewrite_raced || res.masked || rt_backstop_irqs || res.postponed)
		con_printf("rtbench:   rewrite_raced=%u masked_selftest=%u backstop_wakes=%u "
			   "postponed=%u\n", res.rewrite_raced, res.masked, rt_backstop_irqs,
			   res.postponed);
	if (lat.dropped_low || lat.dropped_high)
		con_printf("rtbench:   %llu outliers not kept: percentiles among them are na\n",
			   lat.dropped_low + lat.dropped_high);
	for (uint32_t i = 0; i < res.first_n; i++)
		n += fmt_scnprintf(line + n, sizeof(line) - n, "%s%lld", i ? " " : "",
				   res.first_lat[i]);
	if (res.first_n)
		con_printf("rtbench:   first latencies: %s\n", line);
	if (res.events)
		con_printf("rtbench:   loop took %llu ticks (%s us per event)\n", res.wall_ticks,
			   ticks_us(us, sizeof(us), (int64_t)div_u64(res.wall_ticks, res.events)));
	if (have) {
		con_printf("rtbench: histogram (latency ticks, log2 buckets):\n");
		for (unsigned int b = 0; b < LAT_LOG2_BUCKETS; b++) {
			int64_t lo, hi;

			if (!lat.log2[b])
				continue;
			lat_log2_bounds(b, &lo, &hi);
			if (b == 0)
				fmt_snprintf(line, sizeof(line), "< 0");
			else
				fmt_snprintf(line, sizeof(line), "%lld..%lld", lo, hi);
			con_printf("rtbench:   %24s %10llu\n", line, lat.log2[b]);
		}
	}

	/* The machine line (LINES.md): na where there is no value. */
#define LAT_KEY(key, ok, v)                                                          \
	do {                                                                         \
		if (ok)                                                              \
			fmt_snprintf(num, sizeof(num), "%lld", (long long)(v));      \
		else                                                                 \
			fmt_snprintf(num, sizeof(num), "na");                        \
		n += fmt_scnprintf(line + n, sizeof(line) - n, " " key "=%s", num); \
	} while (0)
	n = fmt_scnprintf(line, sizeof(line),
			  "RTBENCH label=%s env=%s workload=%s wait=%s events=%u lost=%u early=%u dup=%u "
			  "stray=%u", opt.label, tempo.present ? "tempo" : "bare",
			  workload_names[opt.workload], wait_names[opt.wait], res.events, res.lost,
			  res.early, res.dup, rt_stray_count);
	LAT_KEY("lat_min_ticks", have, lat.min);
	LAT_KEY("lat_avg_ticks", have, avg);
	LAT_KEY("lat_p99_ticks", p99_ok, p99);
	LAT_KEY("lat_max_ticks", have, lat.max);
#undef LAT_KEY
	n += fmt_scnprintf(line + n, sizeof(line) - n, " tsc_khz=%u interval_ticks=%llu seed=%llu",
			   tsc_khz, interval_ticks, opt.seed);
	con_printf("%s\n", line);
}

/* ---- attacks ---- */

/* Arms a deadline one interval ahead, again each time it passes, until @end. */
static uint64_t arm_repeatedly(uint64_t end)
{
	uint64_t now, loops = 0;

	while (tsc_before(now = rdtsc(), end)) {
		uint64_t deadline = now + interval_ticks;

		wrmsr(MSR_IA32_TSC_DEADLINE, deadline);
		loops++;
		while (tsc_before(now = rdtsc(), deadline) && tsc_before(now, end))
			;
	}
	return loops;
}

/* Whether one deadline still fires (busy wait, bounded). */
static bool timer_works(void)
{
	uint32_t before = rt_attack_irqs;
	uint64_t deadline = rdtsc() + interval_ticks;

	wrmsr(MSR_IA32_TSC_DEADLINE, deadline);
	while (rt_attack_irqs == before && tsc_before(rdtsc(), deadline + timeout_ticks))
		;
	return rt_attack_irqs != before;
}

static void run_attack(enum attack a)
{
	const char *name = attack_names[a];
	uint64_t end, now, loops = 0;
	uint32_t a_, b, c, d, irqs;
	bool ok;

	con_printf("rtbench: attack=%s begin\n", name);
	rt_attack_irqs = 0;
	rt_phase = PHASE_ATTACK;
	end = rdtsc() + (uint64_t)opt.attack_ms * tsc_khz;
	switch (a) {
	case ATK_CLI_SPIN:
		asm volatile("cli" ::: "memory");
		while (tsc_before(rdtsc(), end))
			loops++;
		asm volatile("sti" ::: "memory");
		break;
	case ATK_NO_EOI:
		rt_skip_eoi = true;
		loops = arm_repeatedly(end);
		break;
	case ATK_TPR15:
		apic_wr(MSR_X2APIC_TPR, APIC_TPR_BLOCK_ALL);
		loops = arm_repeatedly(end);
		break;
	case ATK_MASK_LVT:
		apic_wr(MSR_X2APIC_LVT_TIMER, lvt_timer | APIC_LVT_MASKED);
		loops = arm_repeatedly(end);
		break;
	case ATK_DEADLINE_ZERO:
		for (; tsc_before(rdtsc(), end); loops++)
			wrmsr(MSR_IA32_TSC_DEADLINE, 0);
		break;
	case ATK_DEADLINE_ONES:
		for (; tsc_before(rdtsc(), end); loops++)
			wrmsr(MSR_IA32_TSC_DEADLINE, ~0ull);
		break;
	case ATK_DEADLINE_STORM:
		for (; tsc_before(now = rdtsc(), end); loops++)
			wrmsr(MSR_IA32_TSC_DEADLINE, now + STORM_AHEAD_TICKS);
		break;
	case ATK_CPUID_STORM:
		for (; tsc_before(rdtsc(), end); loops++)
			cpuid(0, 0, &a_, &b, &c, &d);
		break;
	case ATK_COUNT:
		break;
	}
	/* Back to a sane state; whatever was held back is delivered after STI. */
	asm volatile("cli" ::: "memory");
	wrmsr(MSR_IA32_TSC_DEADLINE, 0);
	apic_wr(MSR_X2APIC_LVT_TIMER, lvt_timer);
	apic_wr(MSR_X2APIC_TPR, 0);
	rt_skip_eoi = false;
	for (int i = 0; i < RESTORE_EOIS; i++)
		apic_wr(MSR_X2APIC_EOI, 0);
	asm volatile("sti" ::: "memory");
	tsc_delay(STORM_AHEAD_TICKS);
	irqs = rt_attack_irqs;
	ok = timer_works();
	rt_phase = PHASE_IDLE;
	con_printf("rtbench: attack=%s loops=%llu irqs=%u timer_after=%s\n", name, loops, irqs,
		   ok ? "ok" : "lost");
	con_printf("rtbench: attack=%s end survived\n", name);
}

void guest_main(uint32_t magic, uint32_t info)
{
	tempo_detect(&tempo);
	/* Under Tempo the UART is the hypervisor's: write bytes, do not reprogram. */
	con_init(!tempo.present);
	exc_init();
	bootinfo_parse(magic, info, &boot);
	con_printf("rtbench: start cmdline=\"%s\"\n", boot.cmdline);
	if (boot.error)
		con_printf("rtbench: boot info: %s\n", boot.error);
	parse_options();
	pv_lazy_setup();

	idt_init();
	if (!tempo.present)
		pic_remap_and_mask();
	find_tsc_khz();
	apic_init();

	interval_ticks = div_u64((uint64_t)tsc_khz * opt.interval_us, 1000);
	if (interval_ticks < MIN_INTERVAL_TICKS || interval_ticks >= UINT32_MAX)
		bad_option("interval_us", "(value)", "interval_ticks out of range");
	timeout_ticks = opt.timeout_us ? div_u64((uint64_t)tsc_khz * opt.timeout_us, 1000) :
					 10 * interval_ticks + TIMEOUT_SLACK_TICKS;
	/*
	 * Bare metal, HLT waits can be woken by PIT channel 0 through the 8259
	 * in virtual-wire mode (LINT0 = ExtINT), so a lost interrupt cannot
	 * hang them. The 8259 is there when its mask register reads back.
	 */
	if (!tempo.present && opt.wait == WAIT_HLT && !opt.no_backstop && inb(PIC1_DATA) == 0xff) {
		apic_wr(MSR_X2APIC_LVT_LINT0, APIC_LVT_EXTINT);
		backstop_on = true;
	}
	if (opt.mask_every && opt.wait == WAIT_HLT && !backstop_on) {
		con_printf("rtbench: mask_every=%u needs wait=busy here (no HLT backstop): ignored\n",
			   opt.mask_every);
		opt.mask_every = 0;
	}

	con_printf("rtbench: env=%s tsc_khz=%u (%s) vector=0x%x hlt_backstop=%s\n",
		   tempo.present ? "tempo" : "bare", tsc_khz, tsc_source, opt.vector,
		   opt.wait == WAIT_BUSY ? "na" : backstop_on ? "pit" : "none");
	con_printf("rtbench: workload=%s wait=%s count=%u interval_us=%u interval_ticks=%llu "
		   "timeout_ticks=%llu seed=%llu label=%s\n",
		   workload_names[opt.workload], wait_names[opt.wait], opt.count, opt.interval_us,
		   interval_ticks, timeout_ticks, opt.seed, opt.label);

	measure();
	print_results();

	for (int a = 0; a < ATK_COUNT; a++) {
		if (opt.attacks & (1u << a))
			run_attack(a);
	}

	con_printf("rtbench: done\n");
	if (tempo.present) {
		tempo_hypercall(TEMPO_HC_SHUTDOWN, 0, 0, 0);
		con_printf("rtbench: error: shutdown hypercall returned\n");
		halt_forever();
	}
	if (opt.exit_emu)
		emulator_exit(true, "rtbench done");
	halt_forever();
}
