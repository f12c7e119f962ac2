// SPDX-License-Identifier: MIT
/*
 * fuzz: a 64-bit guest that aims random sequences of operations at the
 * hypervisor (guests/README.md, tests/guestfuzz/run.sh). Each operation is
 * drawn from a seeded PRNG, so a run replays exactly from its seed, its
 * classes and avoid_stop; the PRNG never depends on what an operation
 * returned. Every instruction that may fault runs inside fz_try() (entry.S),
 * which comes back with the vector when it faulted.
 *
 * Lines (the console hypercall, prefixed by Tempo with [partition]):
 *   FUZZ_START seed= classes= avoid_stop= ops= ms= mode= apic_id= mem=
 *   FUZZ op=I class=C name=N a= b= c= d= [may_stop=1]   every log_every ops,
 *       from op log_from on, and before every op that may stop the partition
 *   FUZZ_ANOMALY op=I name=N what=...   a documented behaviour not seen
 *   FUZZ_DONE seed= ops= exceptions= irqs= anomalies= ipi_missing= ...
 */
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "guests/fuzz/layout.h"
#include "hv/core/hypercall_abi.h"
#include "hv/lib/fmt.h"
#include "hv/lib/lib.h"

#define MSR_EFER		0xc0000080u
#define MSR_TSC_DEADLINE	0x6e0u
#define X2APIC_ID		0x802u
#define X2APIC_TPR		0x808u
#define X2APIC_EOI		0x80bu
#define X2APIC_SVR		0x80fu
#define X2APIC_ICR		0x830u
#define X2APIC_LVT_TIMER	0x832u
#define X2APIC_SELF_IPI		0x83fu

#define CR0_PE			(1ull << 0)
#define CR0_TS			(1ull << 3)
#define CR0_NW			(1ull << 29)
#define CR0_CD			(1ull << 30)
#define CR0_PG			(1ull << 31)
#define CR4_PAE			(1ull << 5)
#define CR4_LA57		(1ull << 12)
#define CR4_VMXE		(1ull << 13)
#define CR4_OSXSAVE		(1ull << 18)

#define TIMER_VECTOR		0xf0
#define LVT_TSC_DEADLINE	(2u << 17)
#define NO_FAULT		(-1)
#define ANOMALY_PRINT_MAX	40

/* ---- the hypervisor and the console ---- */

static int64_t hypercall(uint64_t nr, uint64_t a1, uint64_t a2, uint64_t a3)
{
	uint64_t ret;

	asm volatile("vmcall" : "=a"(ret) : "a"(nr), "D"(a1), "S"(a2), "d"(a3) : "memory");
	return (int64_t)ret;
}

static void con_vprintf(char *buf, size_t size, const char *fmt, va_list ap)
{
	size_t n = fmt_vscnprintf(buf, size, fmt, ap);

	hypercall(TEMPO_HC_CONSOLE_WRITE, (uint64_t)(uintptr_t)buf, n, 0);
}

static void __attribute__((format(printf, 1, 2))) say(const char *fmt, ...)
{
	static char line[256];
	va_list ap;

	va_start(ap, fmt);
	con_vprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
}

static void __attribute__((noreturn)) fz_exit(int code)
{
	hypercall(TEMPO_HC_SHUTDOWN, (uint64_t)code, 0, 0);
	for (;;)
		asm volatile("cli; hlt");
}

static inline uint64_t rdtsc(void)
{
	uint32_t lo, hi;

	asm volatile("rdtsc" : "=a"(lo), "=d"(hi));
	return ((uint64_t)hi << 32) | lo;
}

static inline void cpuid(uint32_t leaf, uint32_t sub, uint32_t r[4])
{
	asm volatile("cpuid" : "=a"(r[0]), "=b"(r[1]), "=c"(r[2]), "=d"(r[3]) : "a"(leaf), "c"(sub));
}

static inline void wrmsr_raw(uint32_t msr, uint64_t v)
{
	asm volatile("wrmsr" : : "c"(msr), "a"((uint32_t)v), "d"((uint32_t)(v >> 32)) : "memory");
}

static inline uint64_t rdmsr_raw(uint32_t msr)
{
	uint32_t lo, hi;

	asm volatile("rdmsr" : "=a"(lo), "=d"(hi) : "c"(msr));
	return ((uint64_t)hi << 32) | lo;
}

/* ---- traps (entry.S sends every vector here) ---- */

struct fz_frame {
	uint64_t r15, r14, r13, r12, r11, r10, r9, r8, rdi, rsi, rbp, rbx, rdx, rcx, rax;
	uint64_t vector, error, rip, cs, rflags, rsp, ss;
};

struct insn {
	uint64_t a, b, c, d;
};

extern uint64_t fz_ctx_rsp;
extern const uint8_t fz_vec_stubs[];
extern uint64_t fz_pml4_a[512], fz_pml4_b[512];
int fz_try(void (*fn)(struct insn *), struct insn *x);
int fz_trap(struct fz_frame *f);
void fz_main(uint64_t magic, uint64_t info);

static volatile uint64_t last_vector, last_error, last_rip;
static uint64_t exc_count[32];
static volatile uint64_t irq_count[256];
static uint64_t irqs_total, unarmed_traps;

int fz_trap(struct fz_frame *f)
{
	uint64_t v = f->vector;

	if (v >= 16)
		wrmsr_raw(X2APIC_EOI, 0);	/* an interrupt (or a harmless extra EOI) */
	if (v >= 32) {
		irq_count[v]++;
		irqs_total++;
		return 0;
	}
	if (fz_ctx_rsp) {
		last_vector = v;
		last_error = f->error;
		last_rip = f->rip;
		exc_count[v]++;
		return 1;
	}
	/* Outside an operation: an NMI or a debug trap is counted and resumed. */
	if (v == 1 || v == 2) {
		unarmed_traps++;
		return 0;
	}
	say("FUZZ_FATAL vector=%lu error=0x%lx rip=0x%lx rsp=0x%lx\n", v, f->error, f->rip, f->rsp);
	fz_exit(3);
}

/* Runs @fn(@x) once; NO_FAULT or the vector it raised. */
static int try_insn(void (*fn)(struct insn *), struct insn *x)
{
	return fz_try(fn, x) ? (int)last_vector : NO_FAULT;
}

struct gate64 {
	uint16_t off0, sel;
	uint8_t ist, attr;
	uint16_t off1;
	uint32_t off2, zero;
} __attribute__((packed));

static struct gate64 idt[256] __attribute__((aligned(16)));
static struct {
	uint16_t limit;
	uint64_t base;
} __attribute__((packed)) idtr;

static void idt_init(void)
{
	for (int v = 0; v < 256; v++) {
		uint64_t a = (uint64_t)(uintptr_t)(fz_vec_stubs + v * FZ_STUB_SIZE);

		idt[v] = (struct gate64){ (uint16_t)a, FZ_CS64, 0, 0x8e, (uint16_t)(a >> 16),
					  (uint32_t)(a >> 32), 0 };
	}
	idtr.limit = sizeof(idt) - 1;
	idtr.base = (uint64_t)(uintptr_t)idt;
	asm volatile("lidt %0" : : "m"(idtr));
}

/* ---- the PRNG (splitmix64) ---- */

static uint64_t rng;

static uint64_t rnd(void)
{
	uint64_t z = (rng += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

static uint32_t rndn(uint32_t n)
{
	return (uint32_t)(rnd() % n);
}

/* A value that is often on a boundary. */
static uint64_t rnd_value(void)
{
	switch (rndn(10)) {
	case 0:
		return 0;
	case 1:
		return 1;
	case 2:
		return ~0ull;
	case 3:
		return 0xffffffffull;
	case 4:
		return 1ull << rndn(64);
	case 5:
		return (uint32_t)rnd();
	case 6:
		return 0x8000000000000000ull | (uint32_t)rnd();
	case 7:
		return rndn(256);
	default:
		return rnd();
	}
}

/* ---- options, state ---- */

enum fz_class {
	C_MSR, C_CR, C_XSETBV, C_IO, C_CACHE, C_APIC, C_IPI, C_INT, C_VMCALL, C_CPUID,
	C_TIMER, C_MISC, C_STOP, C_COUNT
};

static const char *const class_names[C_COUNT] = {
	"msr", "cr", "xsetbv", "io", "cache", "apic", "ipi", "int", "vmcall", "cpuid",
	"timer", "misc", "stop",
};

static struct {
	uint64_t seed, ops, ms, log_every, log_from, isr_every;
	bool avoid_stop;
	uint32_t classes;	/* bit per enum fz_class */
} opt = { .seed = 1, .log_every = 1000, .isr_every = 64, .log_from = ~0ull, .classes = (1u << C_COUNT) - 1 };

static struct {
	uint64_t tsc_khz, mem, xcr0, xcr0_supported, cr0, cr4;
	uint32_t apic_id, timer_mode;
	bool xsave, rdtscp, rdrand;
} env;

static uint8_t scratch[8192] __attribute__((aligned(4096)));
static struct tempo_pv_timer pv_page __attribute__((aligned(64)));
static char hc_text[] = "fuzz: console hypercall\n";
static volatile uint64_t dr_target;

static uint64_t op_index, anomalies, ipi_missing, hlt_missed, stops_avoided;
static uint64_t class_ops[C_COUNT];

static void __attribute__((format(printf, 3, 4))) anomaly(const char *name, uint64_t arg,
							   const char *fmt, ...)
{
	static char line[200], what[160];
	va_list ap;

	static uint32_t seen[ANOMALY_PRINT_MAX];
	static uint32_t nseen;
	uint32_t h = 2166136261u;

	anomalies++;
	va_start(ap, fmt);
	fmt_vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	/* each kind (name and what) is printed once */
	for (const char *p = name; *p; p++)
		h = (h ^ (uint8_t)*p) * 16777619u;
	for (const char *p = what; *p; p++)
		h = (h ^ (uint8_t)*p) * 16777619u;
	for (uint32_t i = 0; i < nseen; i++) {
		if (seen[i] == h)
			return;
	}
	if (nseen == ANOMALY_PRINT_MAX)
		return;
	seen[nseen++] = h;
	fmt_snprintf(line, sizeof(line), "FUZZ_ANOMALY op=%lu name=%s a=0x%lx what=%s\n", op_index,
		     name, arg, what);
	hypercall(TEMPO_HC_CONSOLE_WRITE, (uint64_t)(uintptr_t)line, strlen(line), 0);
}

/* ---- single instructions, each run under try_insn ---- */

static void i_rdmsr(struct insn *x)
{
	uint32_t lo, hi;

	asm volatile("rdmsr" : "=a"(lo), "=d"(hi) : "c"((uint32_t)x->a));
	x->b = ((uint64_t)hi << 32) | lo;
}

static void i_wrmsr(struct insn *x)
{
	wrmsr_raw((uint32_t)x->a, x->b);
}

static void i_cr0(struct insn *x) { asm volatile("mov %0, %%cr0" : : "r"(x->a) : "memory"); }
static void i_cr3(struct insn *x) { asm volatile("mov %0, %%cr3" : : "r"(x->a) : "memory"); }
static void i_cr4(struct insn *x) { asm volatile("mov %0, %%cr4" : : "r"(x->a) : "memory"); }
static void i_cr8(struct insn *x) { asm volatile("mov %0, %%cr8" : : "r"(x->a) : "memory"); }

static void i_cr8_read(struct insn *x)
{
	asm volatile("mov %%cr8, %0" : "=r"(x->b));
}

static void i_dr(struct insn *x)
{
	switch (x->b) {
	case 0:
		asm volatile("mov %0, %%dr0" : : "r"(x->a));
		break;
	case 1:
		asm volatile("mov %0, %%dr1" : : "r"(x->a));
		break;
	case 6:
		asm volatile("mov %0, %%dr6" : : "r"(x->a));
		break;
	default:
		asm volatile("mov %0, %%dr7" : : "r"(x->a));
		break;
	}
}

static void i_touch(struct insn *x)
{
	(void)x;
	dr_target++;
}

static void i_xsetbv(struct insn *x)
{
	asm volatile("xsetbv" : : "c"((uint32_t)x->a), "a"((uint32_t)x->b),
		     "d"((uint32_t)(x->b >> 32)) : "memory");
}

static void i_xgetbv(struct insn *x)
{
	uint32_t lo, hi;

	asm volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"((uint32_t)x->a));
	x->b = ((uint64_t)hi << 32) | lo;
}

static void i_in(struct insn *x)
{
	uint16_t port = (uint16_t)x->a;
	uint32_t v = 0;

	if (x->b == 1)
		asm volatile("inb %w1, %b0" : "+a"(v) : "Nd"(port));
	else if (x->b == 2)
		asm volatile("inw %w1, %w0" : "+a"(v) : "Nd"(port));
	else
		asm volatile("inl %w1, %0" : "+a"(v) : "Nd"(port));
	x->c = v;
}

static void i_out(struct insn *x)
{
	uint16_t port = (uint16_t)x->a;
	uint32_t v = (uint32_t)x->c;

	if (x->b == 1)
		asm volatile("outb %b0, %w1" : : "a"(v), "Nd"(port));
	else if (x->b == 2)
		asm volatile("outw %w0, %w1" : : "a"(v), "Nd"(port));
	else
		asm volatile("outl %0, %w1" : : "a"(v), "Nd"(port));
}

static void i_ins(struct insn *x)
{
	void *d = scratch;
	uint64_t n = x->b;

	asm volatile("rep insb" : "+D"(d), "+c"(n) : "d"((uint16_t)x->a) : "memory");
}

static void i_outs(struct insn *x)
{
	const void *s = hc_text;
	uint64_t n = x->b;

	asm volatile("rep outsb" : "+S"(s), "+c"(n) : "d"((uint16_t)x->a) : "memory");
}

static void i_invd(struct insn *x) { (void)x; asm volatile("invd" ::: "memory"); }
static void i_wbinvd(struct insn *x) { (void)x; asm volatile("wbinvd" ::: "memory"); }
static void i_clflush(struct insn *x) { asm volatile("clflush (%0)" : : "r"(scratch + (x->a & 4095)) : "memory"); }

static void i_intn(struct insn *x)
{
	/* INT imm8 built in place: CD nn, then RET (scratch is RWX: one page map) */
	static uint8_t code[16] __attribute__((aligned(16)));

	code[0] = 0xcd;
	code[1] = (uint8_t)x->a;
	code[2] = 0xc3;
	asm volatile("call *%0" : : "r"(code) : "memory", "rax", "rcx", "rdx", "rsi", "rdi",
		     "r8", "r9", "r10", "r11");
}

static void i_exception(struct insn *x)
{
	uint64_t r = 0;

	switch (x->a) {
	case 0:
		asm volatile("int3");
		break;
	case 1:
		asm volatile(".byte 0xce");	/* INTO: #UD in 64-bit mode */
		break;
	case 2:
		asm volatile("ud2");
		break;
	case 3: {
		uint64_t z = 0, lo = 1, hi = 0;

		asm volatile("divq %2" : "+a"(lo), "+d"(hi) : "r"(z));
		break;
	}
	case 4:		/* PML4[1] is not present: #PF */
		asm volatile("mov (%1), %0" : "=r"(r) : "r"(0x8000000000ull + (x->b & 0xfff000)));
		break;
	case 5:		/* non-canonical (bit 63 set, 62:47 clear): #GP */
		asm volatile("mov (%1), %0" : "=r"(r) :
			     "r"(0x8000000000000000ull | (x->b & 0x00007fffffffffffull)));
		break;
	case 6:		/* a selector past the GDT: #GP */
		asm volatile("mov %0, %%ds" : : "r"((uint32_t)0x40 | (x->b & 0xfff8)));
		break;
	case 7:		/* TF: #DB after the next instruction */
		asm volatile("pushfq; orq $0x100, (%%rsp); popfq; nop; nop" ::: "memory");
		break;
	case 8:
		asm volatile(".byte 0xf1");	/* ICEBP: #DB */
		break;
	default:	/* CR0.TS then an x87 instruction: #NM */
		asm volatile("mov %%cr0, %0; or $8, %0; mov %0, %%cr0; fnop" : "=&r"(r) : : "memory");
		break;
	}
	x->c = r;
}

static void i_restore_ds(struct insn *x)
{
	(void)x;
	asm volatile("mov %0, %%ds" : : "r"((uint32_t)FZ_DS));
}

static void i_triple(struct insn *x)
{
	static const struct {
		uint16_t limit;
		uint64_t base;
	} __attribute__((packed)) none = { 0, 0 };

	(void)x;
	asm volatile("lidt %0; int3" : : "m"(none));
}

static void i_vmcall(struct insn *x)
{
	x->a = (uint64_t)hypercall(x->a, x->b, x->c, x->d);
}

static void i_cpuid(struct insn *x)
{
	uint32_t r[4];

	cpuid((uint32_t)x->a, (uint32_t)x->b, r);
	x->c = ((uint64_t)r[1] << 32) | r[0];
	x->d = ((uint64_t)r[3] << 32) | r[2];
}

static void i_sti_spin(struct insn *x)
{
	uint64_t end = rdtsc() + x->a;

	asm volatile("sti" ::: "memory");
	while (rdtsc() < end)
		asm volatile("pause" ::: "memory");
	asm volatile("cli" ::: "memory");
}

static void i_sti_hlt(struct insn *x)
{
	(void)x;
	asm volatile("sti; hlt; cli" ::: "memory");
}

static void i_misc(struct insn *x)
{
	uint32_t a = 0, c = 0, d = 0;

	switch (x->a) {
	case 0:
		asm volatile("rdtscp" : "=a"(a), "=c"(c), "=d"(d));
		break;
	case 1:
		asm volatile("rdpmc" : "=a"(a), "=d"(d) : "c"((uint32_t)x->b));
		break;
	case 2:
		asm volatile("rdrand %0" : "=r"(a));
		break;
	case 3:
		asm volatile("monitor" : : "a"(scratch), "c"(0), "d"(0));
		asm volatile("mwait" : : "a"((uint32_t)x->b & 0xff), "c"(0));
		break;
	case 4:
		asm volatile(".byte 0x0f, 0x37" : "+a"(a) : : "memory");	/* GETSEC */
		break;
	case 5:
		asm volatile("swapgs; swapgs");
		break;
	case 6:
		asm volatile("clts" ::: "memory");
		break;
	case 7: {
		uint16_t msw = (uint16_t)(x->b | 1);

		asm volatile("lmsw %0" : : "r"(msw) : "memory");
		break;
	}
	case 8: {
		uint8_t buf[10];

		asm volatile("sgdt %0; sidt %0" : "=m"(buf));
		break;
	}
	default:
		asm volatile("pause");
		break;
	}
	x->c = a;
}

static void i_vmx(struct insn *x)
{
	uint64_t addr = (uint64_t)(uintptr_t)scratch, field = 0, val = 0;

	switch (x->a) {
	case 0:
		asm volatile("vmxon %0" : : "m"(addr) : "memory", "cc");
		break;
	case 1:
		asm volatile("vmread %1, %0" : "=r"(val) : "r"(field) : "cc");
		break;
	case 2:
		asm volatile("vmclear %0" : : "m"(addr) : "memory", "cc");
		break;
	default:
		asm volatile("vmptrst %0" : "=m"(val) : : "cc");
		break;
	}
	x->c = val;
}

static void i_read(struct insn *x)
{
	x->b = *(volatile uint64_t *)(uintptr_t)x->a;
}

/* ---- helpers ---- */

static int try_rdmsr(uint32_t msr, uint64_t *val)
{
	struct insn x = { .a = msr };
	int r = try_insn(i_rdmsr, &x);

	if (val)
		*val = x.b;
	return r;
}

static int try_wrmsr(uint32_t msr, uint64_t val)
{
	struct insn x = { .a = msr, .b = val };

	return try_insn(i_wrmsr, &x);
}

static int try_cr(void (*fn)(struct insn *), uint64_t val)
{
	struct insn x = { .a = val };

	return try_insn(fn, &x);
}

static uint64_t read_cr0(void)
{
	uint64_t v;

	asm volatile("mov %%cr0, %0" : "=r"(v));
	return v;
}

static uint64_t read_cr4(void)
{
	uint64_t v;

	asm volatile("mov %%cr4, %0" : "=r"(v));
	return v;
}

/* Back to the state every operation starts from. */
static void restore_base(void)
{
	try_cr(i_cr0, env.cr0);
	try_cr(i_cr4, env.cr4);
	try_cr(i_cr3, (uint64_t)(uintptr_t)fz_pml4_a);
	try_cr(i_cr8, 0);
	if (env.xsave) {
		struct insn x = { .a = 0, .b = env.xcr0 };

		try_insn(i_xsetbv, &x);
	}
}

static void sti_window(uint64_t ticks)
{
	struct insn x = { .a = ticks };

	try_insn(i_sti_spin, &x);
}

/* ---- the operations ---- */

struct op {
	uint32_t cls;
	const char *name;
	uint64_t a, b, c, d;
	bool may_stop;
};

static const uint32_t msr_low[] = {
	0x10, 0x1b, 0x3a, 0x3b, 0x48, 0x49, 0x8b, 0xc1, 0xe7, 0xe8, 0xfe, 0x10a, 0x174, 0x175,
	0x176, 0x179, 0x17a, 0x186, 0x199, 0x1a0, 0x1d9, 0x200, 0x201, 0x250, 0x277, 0x2ff,
	0x38f, 0x480, 0x481, 0x48d, 0x491, 0x4c1, 0x600, 0x6e0, 0x1fff,
};

static const uint16_t ports[] = {
	0x0, 0x20, 0x21, 0x40, 0x43, 0x60, 0x61, 0x64, 0x70, 0x71, 0x80, 0x92, 0xa0, 0xa1,
	0xb2, 0x2f8, 0x3f9, 0x3fa, 0x3fb, 0x3fc, 0x3fd, 0x3fe, 0x3ff, 0x402, 0x4d0, 0x510,
	0x600, 0x604, 0x608, 0xcf8, 0xcf9, 0xcfc, 0xe9, 0xf4, 0x8900, 0xb000, 0xb004, 0xfffc,
	0xffff,
};

static const uint16_t apic_regs[] = {
	0x802, 0x803, 0x808, 0x80b, 0x80d, 0x80f, 0x828, 0x82f, 0x832, 0x833, 0x834, 0x835,
	0x836, 0x837, 0x838, 0x839, 0x83e, 0x83f, 0x810, 0x820, 0x8ff,
};

#define N(a)	(sizeof(a) / sizeof((a)[0]))

static uint32_t gen_msr_index(void)
{
	uint32_t r = rndn(100);

	if (r < 15)
		return msr_low[rndn(N(msr_low))];
	if (r < 40)
		return rndn(0x2000);
	if (r < 55)
		return 0xc0000080u + rndn(0x90);
	if (r < 65)
		return 0xc0000000u + rndn(0x2000);
	if (r < 97)
		return 0x800u + rndn(0x100);
	return (uint32_t)rnd();
}

/* Fills @o with the next operation of class @o->cls; only the PRNG decides. */
static void gen(struct op *o)
{
	o->a = o->b = o->c = o->d = 0;
	o->may_stop = false;
	switch (o->cls) {
	case C_MSR:
		o->a = gen_msr_index();
		o->c = rndn(3);		/* 0 absolute, 1 old ^ b, 2 old | b */
		o->b = o->c ? 1ull << rndn(64) : rnd_value();
		if (rndn(3) == 0) {
			o->name = "rdmsr";
		} else {
			o->name = "wrmsr";
			o->may_stop = o->a == X2APIC_ICR;
		}
		break;
	case C_CR:
		o->b = rnd();
		o->c = rndn(6);
		switch (rndn(5)) {
		case 0:
			o->name = "cr0";
			break;
		case 1:
			o->name = "cr3";
			/* 4: a page of its RAM as PML4, 5: a PML4 past its RAM */
			o->may_stop = o->c >= 4;
			break;
		case 2:
			o->name = "cr4";
			break;
		case 3:
			o->name = "cr8";
			o->c &= 1;
			break;
		default:
			o->name = "dr7";
			o->c &= 3;
			break;
		}
		break;
	case C_XSETBV:
		o->name = "xsetbv";
		o->c = rndn(8);
		o->b = rnd_value();
		o->a = o->c == 7 ? rnd_value() : 0;
		break;
	case C_IO:
		o->a = rndn(2) ? ports[rndn(N(ports))] : rndn(0x10000);
		o->b = 1u << rndn(3);
		o->c = rnd_value();
		switch (rndn(10)) {
		case 0:
			o->name = "ins";
			o->b = 1 + rndn(4);
			o->may_stop = true;
			break;
		case 1:
			o->name = "outs";
			o->b = 1 + rndn(4);
			o->may_stop = true;
			break;
		case 2: case 3: case 4: case 5:
			o->name = "in";
			break;
		default:
			/* not the UART's THR: its bytes would land in our console */
			if (o->a + o->b > 0x3f8 && o->a <= 0x3f8)
				o->a = 0x3f9;
			o->name = "out";
			/* a PC's reset writes: Tempo ends (or restarts) the partition */
			o->may_stop = (o->a == 0xcf9 && (o->c & 4)) ||
				      (o->a == 0x64 && (o->c & 0xf1) == 0xf0) ||
				      (o->a == 0x92 && (o->c & 1));
			break;
		}
		break;
	case C_CACHE:
		o->a = rndn(4096);
		o->name = rndn(3) == 0 ? "invd" : rndn(2) ? "wbinvd" : "clflush";
		break;
	case C_APIC:
		o->a = apic_regs[rndn(N(apic_regs))];
		if (rndn(2)) {
			/* LVT-shaped: vector, delivery mode, mask, trigger, timer mode */
			o->b = rndn(256) | rndn(8) << 8 | rndn(2) << 13 | rndn(2) << 15 |
			       rndn(2) << 16 | rndn(4) << 17;
		} else {
			o->b = rnd_value();
		}
		o->name = rndn(4) == 0 ? "apic_rd" : "apic_wr";
		break;
	case C_IPI: {
		static const char *const names[] = {
			"ipi_self", "ipi_shorthand_self", "ipi_all_incl", "ipi_all_excl",
			"init_all_excl", "sipi_self", "ipi_logical_self", "ipi_level",
			"init_self", "nmi_self", "ipi_foreign", "ipi_broadcast", "ipi_low_vector",
			"ipi_lowest_prio", "smi_self", "icr_random",
		};
		uint32_t k = rndn(N(names));

		o->a = k;
		o->b = 32 + rndn(223);
		o->c = rnd();
		o->name = names[k];
		o->may_stop = k >= 8;
		break;
	}
	case C_INT:
		o->b = rnd();
		if (rndn(2)) {
			o->name = "intn";
			o->a = rndn(256);
		} else if (rndn(40) == 0) {
			o->name = "triple_fault";
			o->may_stop = true;
		} else {
			o->name = "exception";
			o->a = rndn(10);
		}
		break;
	case C_VMCALL: {
		uint32_t r = rndn(16);

		o->name = "vmcall";
		o->a = r < 8 ? r : r < 12 ? (uint32_t)rnd() : r < 14 ? 7 + rndn(8) : rnd();
		if (o->a == TEMPO_HC_SHUTDOWN)
			o->a = TEMPO_HC_TIMER_MODE_GET;
		if (o->a == TEMPO_HC_STATS && rndn(8))
			o->a = TEMPO_HC_PARTITION_INFO;
		o->b = rndn(8);		/* pointer kind, resolved at run time */
		o->c = rndn(4) ? rnd_value() : rndn(40);
		o->d = rnd_value();
		break;
	}
	case C_CPUID: {
		static const uint32_t bases[] = { 0, 0x40000000u, 0x80000000u };
		uint32_t r = rndn(8);

		o->name = "cpuid";
		o->a = r < 6 ? bases[r % 3] + rndn(0x20) : (uint32_t)rnd();
		o->b = rndn(3) ? rndn(4) : (uint32_t)rnd();
		break;
	}
	case C_TIMER:
		o->a = rndn(7);
		o->b = rndn(100000);
		switch (rndn(4)) {
		case 0:
			o->name = "deadline";
			break;
		case 1:
			o->name = "sti_window";
			break;
		case 2:
			o->name = "hlt";
			o->b = 2000 + rndn(50000);
			break;
		default:
			o->name = "mode_switch";
			o->a = rndn(5);
			break;
		}
		break;
	case C_MISC:
		o->name = "misc";
		o->a = rndn(10);
		o->b = rnd();
		break;
	default:
		o->may_stop = true;
		if (rndn(2)) {
			o->name = "vmx";
			o->a = rndn(4);
		} else {
			o->name = "ept_read";
			o->a = rndn(0x1000000) & ~7u;	/* past its RAM: resolved at run time */
		}
		break;
	}
}

static bool is(const struct op *o, const char *name)
{
	const char *a = o->name;

	while (*a && *a == *name) {
		a++;
		name++;
	}
	return *a == *name;
}

/*
 * Bochs 2.7 never clears an in-service vector 0xFF on EOI (the fuzzer's
 * spurious vector): a self-IPI, IPI or LVT on it wedges the APIC's top
 * priority class for good. Never aim an interrupt at it.
 */
static uint64_t no_ff(uint32_t msr, uint64_t v)
{
	if (msr >= 0x82f && msr <= 0x83f && (v & 0xff) == 0xff)
		v &= ~1ull;
	return v;
}

/*
 * In direct mode the LAPIC is the guest's own, as on hardware: a periodic
 * timer whose initial count is a few ticks interrupts faster than the
 * handler returns, and the fuzzer never reaches its end (seed 1796138681,
 * op ~437500: LVT 0x2003b, TMICT 1, TDCR 3, every interrupt window one long
 * storm, Tempo and the victim unaffected). Counts below 64 Ki go up to it.
 */
static uint64_t no_storm(uint32_t msr, uint64_t v)
{
	if (msr == 0x838 && v && (uint32_t)v < 0x10000)
		v = (v & ~0xffffffffull) | 0x10000;
	return no_ff(msr, v);
}

/*
 * Bochs 2.7 panics (and ends the whole emulator) on a read of the x2APIC
 * timer current count (0x839) after some TMICT/TDCR/LVT timer values:
 * "APIC: R(curr timer count): delta < initial" (seed 9000, emulated, op
 * ~89500). The read passes through to the APIC, so it is not Tempo's to
 * catch; the op is drawn (the PRNG stream stays) but not executed.
 */
static bool bochs_unsafe(uint32_t msr)
{
	return msr == 0x839;
}

static void run_msr(struct op *o)
{
	uint32_t msr = (uint32_t)o->a;
	uint64_t old = 0, val, back;
	int r, w;

	if (bochs_unsafe(msr))
		return;

	r = try_rdmsr(msr, &old);
	if (is(o, "rdmsr"))
		return;
	val = no_storm(msr, o->c == 0 ? o->b : o->c == 1 ? old ^ o->b : old | o->b);
	w = try_wrmsr(msr, val);
	if (w == NO_FAULT && msr == X2APIC_SVR && try_rdmsr(msr, &back) == NO_FAULT &&
	    !(back & 0x100))
		anomaly(o->name, msr, "svr_disabled_0x%lx", back);
	if (w == NO_FAULT && ((msr >= 0x833 && msr <= 0x836) || msr == 0x82f) &&
	    try_rdmsr(msr, &back) == NO_FAULT && !(back & (1u << 16))) {
		uint32_t dm = (back >> 8) & 7;

		if (dm == 2 || dm == 4 || dm == 5 || dm == 7)
			anomaly(o->name, msr, "lvt_delivery_%u_unmasked", dm);
	}
	/*
	 * Put back what was there, where it read and the write took. An APIC
	 * left disabled or in xAPIC mode (both legal from x2APIC mode) goes
	 * back the way the SDM allows: through disabled and xAPIC.
	 */
	if (r == NO_FAULT && w == NO_FAULT && msr == 0x1b &&
	    try_rdmsr(msr, &back) == NO_FAULT && !(back & 0x400)) {
		try_wrmsr(msr, old & ~0xc00ull);
		try_wrmsr(msr, old & ~0x400ull);
	}
	if (r == NO_FAULT && w == NO_FAULT && msr != X2APIC_ICR && msr != X2APIC_SELF_IPI &&
	    msr != X2APIC_EOI)
		try_wrmsr(msr, old);
	if (msr == X2APIC_SVR || msr == X2APIC_TPR)
		try_wrmsr(msr, msr == X2APIC_SVR ? 0x1ff : 0);
}

static void expect_gp(const struct op *o, int r, const char *what)
{
	if (r != 13)
		anomaly(o->name, o->c, "%s_gave_%d", what, r);
}

static void run_cr(struct op *o)
{
	static const uint8_t cr0_bits[] = { 1, 2, 3, 5, 16, 18, 29, 30 };
	static const uint8_t cr4_bits[] = { 0, 1, 2, 3, 4, 7, 8, 9, 10, 11, 16, 17, 18, 20, 21, 22 };
	uint64_t cr0 = read_cr0(), cr4 = read_cr4(), v;
	uint64_t pml4 = (uint64_t)(uintptr_t)fz_pml4_a;
	int r;

	if (is(o, "cr0")) {
		switch (o->c) {
		case 0:
			r = try_cr(i_cr0, cr0 ^ (1ull << cr0_bits[o->b % N(cr0_bits)]));
			break;
		case 1:
			r = try_cr(i_cr0, cr0 | 1ull << (32 + o->b % 32));
			expect_gp(o, r, "cr0_reserved");
			break;
		case 2:
			r = try_cr(i_cr0, cr0 & ~CR0_PG);
			expect_gp(o, r, "cr0_clear_pg_in_64bit");
			break;
		case 3:
			r = try_cr(i_cr0, ((uint32_t)o->b & ~CR0_NW) | CR0_PE | CR0_PG);
			break;
		case 4:
			r = try_cr(i_cr0, cr0 & ~CR0_PE);
			expect_gp(o, r, "cr0_pg_without_pe");
			break;
		default:
			r = try_cr(i_cr0, (cr0 | CR0_NW) & ~CR0_CD);
			expect_gp(o, r, "cr0_nw_without_cd");
			break;
		}
	} else if (is(o, "cr3")) {
		switch (o->c) {
		case 0:
			r = try_cr(i_cr3, pml4 | (o->b & 0x18));
			break;
		case 1:
			r = try_cr(i_cr3, (uint64_t)(uintptr_t)fz_pml4_b | (o->b & 0xfff));
			break;
		case 2:
			r = try_cr(i_cr3, pml4 | 1ull << (52 + o->b % 11));
			expect_gp(o, r, "cr3_reserved");
			break;
		case 3:
			r = try_cr(i_cr3, pml4 | 1ull << 63);
			break;
		case 4:
			r = try_cr(i_cr3, (o->b % (env.mem >> 12)) << 12);
			break;
		default:
			r = try_cr(i_cr3, env.mem + ((o->b & 0xff) << 12));
			break;
		}
	} else if (is(o, "cr4")) {
		switch (o->c) {
		case 0:
		case 1:
			r = try_cr(i_cr4, cr4 ^ (1ull << cr4_bits[o->b % N(cr4_bits)]));
			break;
		case 2:
			r = try_cr(i_cr4, cr4 & ~CR4_PAE);
			expect_gp(o, r, "cr4_clear_pae_in_64bit");
			break;
		case 3:
			r = try_cr(i_cr4, cr4 ^ CR4_LA57);
			expect_gp(o, r, "cr4_la57_in_64bit");
			break;
		case 4:
			r = try_cr(i_cr4, cr4 | CR4_VMXE);
			expect_gp(o, r, "cr4_vmxe");
			break;
		default:
			r = try_cr(i_cr4, cr4 | 1ull << (25 + o->b % 39));
			expect_gp(o, r, "cr4_reserved");
			break;
		}
	} else if (is(o, "cr8")) {
		if (o->c == 0) {
			struct insn x = { 0 };

			v = o->b & 15;
			r = try_cr(i_cr8, v);
			if (r == NO_FAULT && try_insn(i_cr8_read, &x) == NO_FAULT && x.b != v)
				anomaly(o->name, v, "cr8_read_back_0x%lx", x.b);
		} else {
			r = try_cr(i_cr8, o->b | 16);
			expect_gp(o, r, "cr8_reserved");
		}
	} else {
		struct insn x = { .a = (uint64_t)(uintptr_t)&dr_target, .b = 0 };

		try_insn(i_dr, &x);
		x.b = 1;
		try_insn(i_dr, &x);
		x.b = o->c == 3 ? 6 : 7;
		x.a = o->c == 2 ? 1ull << (32 + o->b % 32) : ((uint32_t)o->b | 0x400);
		r = try_insn(i_dr, &x);
		if (o->c == 2)
			expect_gp(o, r, "dr7_high_bits");
		try_insn(i_touch, &x);
		x.b = 7;
		x.a = 0x400;
		if (try_insn(i_dr, &x) != NO_FAULT)
			try_insn(i_dr, &x);	/* DR7.GD made the first one #DB */
	}
	(void)r;
	restore_base();
}

static void run_xsetbv(struct op *o)
{
	uint64_t sup = env.xcr0_supported, v;
	struct insn x = { 0 };
	bool valid;
	int r;

	if (!env.xsave)
		return;
	switch (o->c) {
	case 0: v = 1; break;
	case 1: v = 3; break;
	case 2: v = 7; break;
	case 3: v = sup; break;
	case 4: v = (o->b & sup) | 1; break;
	case 5: v = o->b; break;
	case 6: v = 0; break;
	default: v = 1; x.a = o->a; break;
	}
	x.b = v;
	/* SDM XSETBV: which values the CPU itself accepts */
	valid = (uint32_t)x.a == 0 && (v & 1) && !(v & ~sup) && (!(v & 4) || (v & 2)) &&
		(((v >> 3) & 1) == ((v >> 4) & 1)) &&
		(!(v & 0xe0) || ((v & 0xe0) == 0xe0 && (v & 4)));
	r = try_insn(i_xsetbv, &x);
	if (valid && r != NO_FAULT)
		anomaly(o->name, v, "valid_xcr0_gave_%d", r);
	if (!valid && r != 13)
		anomaly(o->name, v, "invalid_xcr%u_gave_%d", (uint32_t)x.a, r);
	x.a = 1;
	try_insn(i_xgetbv, &x);
	restore_base();
}

static void run_io(struct op *o)
{
	struct insn x = { .a = o->a, .b = o->b, .c = o->c };

	if (is(o, "in")) {
		uint32_t ones = o->b == 1 ? 0xff : o->b == 2 ? 0xffff : 0xffffffffu;
		int r = try_insn(i_in, &x);

		if (r != NO_FAULT)
			anomaly(o->name, o->a, "in_faulted_%d", r);
		else if (o->a == 0x92 && ((uint32_t)x.c | 0xff) != ones)
			/* system control port A reads back its latch; the ports above float */
			anomaly(o->name, o->a, "in%lu_read_0x%lx", o->b, x.c);
		else if (o->a != 0x92 && (o->a > 0x3ff || o->a + o->b <= 0x3f8) &&
			 (uint32_t)x.c != ones)
			anomaly(o->name, o->a, "in%lu_read_0x%lx", o->b, x.c);
	} else if (is(o, "out")) {
		try_insn(i_out, &x);
	} else if (is(o, "ins")) {
		try_insn(i_ins, &x);
	} else {
		try_insn(i_outs, &x);
	}
}

static void run_apic(struct op *o)
{
	uint32_t reg = (uint32_t)o->a;

	if (bochs_unsafe(reg))
		return;
	if (is(o, "apic_rd")) {
		try_rdmsr(reg, NULL);
		return;
	}
	try_wrmsr(reg, no_storm(reg, o->b));
	if (reg == X2APIC_SVR) {
		uint64_t back = 0;

		if (try_rdmsr(reg, &back) == NO_FAULT && !(back & 0x100))
			anomaly(o->name, reg, "svr_disabled_0x%lx", back);
		try_wrmsr(reg, 0x1ff);
	}
	if ((reg >= 0x833 && reg <= 0x836) || reg == 0x82f) {
		uint64_t back = 0;
		uint32_t dm;

		if (try_rdmsr(reg, &back) == NO_FAULT && !(back & (1u << 16))) {
			dm = (back >> 8) & 7;
			if (dm == 2 || dm == 4 || dm == 5 || dm == 7)
				anomaly(o->name, reg, "lvt_delivery_%u_unmasked", dm);
		}
	}
	if (reg == X2APIC_TPR)
		try_wrmsr(reg, 0);
	if (reg == X2APIC_SELF_IPI || reg == 0x838)
		sti_window(2000);
}

static void run_ipi(struct op *o)
{
	uint64_t self = (uint64_t)env.apic_id << 32, vec = o->b, icr;
	uint64_t before = irq_count[vec];
	bool check = false;

	switch (o->a) {
	case 0: icr = self | vec; check = true; break;
	case 1: icr = 1ull << 18 | vec; check = true; break;
	case 2: icr = 2ull << 18 | vec; check = true; break;
	case 3: icr = 3ull << 18 | vec; break;
	case 4: icr = 3ull << 18 | 5u << 8 | 1u << 14; break;
	case 5: icr = self | 6u << 8 | (vec & 0xff); break;
	case 6:
		icr = (uint64_t)((env.apic_id >> 4) << 16 | 1u << (env.apic_id & 15)) << 32 |
		      1u << 11 | vec;
		check = true;
		break;
	case 7: icr = self | 1u << 15 | (o->c & (1u << 14)) | vec; break;
	case 8: icr = self | 5u << 8 | 1u << 14; break;
	case 9: icr = self | 4u << 8; break;
	case 10: icr = (uint64_t)(env.apic_id ^ (1 + (o->c & 7))) << 32 | vec; break;
	case 11: icr = 0xffffffffull << 32 | vec; break;
	case 12: icr = self | (o->c & 15); break;
	case 13: icr = self | 1u << 8 | vec; break;
	case 14: icr = self | 2u << 8; break;
	default: icr = o->c; break;
	}
	icr = no_ff(X2APIC_ICR, icr);
	o->d = icr;
	try_wrmsr(X2APIC_ICR, icr);
	sti_window(3000);
	if (check && irq_count[vec] == before)
		ipi_missing++;
}

static void run_int(struct op *o)
{
	struct insn x = { .a = o->a, .b = o->b };
	static const int8_t expect[10] = { 3, 6, 6, 0, 14, 13, 13, 1, 1, 7 };
	uint64_t before;
	int r;

	if (is(o, "triple_fault")) {
		try_insn(i_triple, &x);
		return;
	}
	if (is(o, "intn")) {
		before = irq_count[o->a];
		r = try_insn(i_intn, &x);
		if (o->a < 32 && r != (int)o->a)
			anomaly(o->name, o->a, "int_gave_%d", r);
		if (o->a >= 32 && (r != NO_FAULT || irq_count[o->a] != before + 1))
			anomaly(o->name, o->a, "int_gave_%d", r);
		return;
	}
	r = try_insn(i_exception, &x);
	if (r != expect[o->a])
		anomaly(o->name, o->a, "expected_%d_got_%d", expect[o->a], r);
	if (o->a == 6)
		try_insn(i_restore_ds, &x);
	restore_base();
}

static void run_vmcall(struct op *o)
{
	struct insn x = { .a = o->a, .c = o->c, .d = o->d };
	uint64_t scratch_pa = (uint64_t)(uintptr_t)scratch;
	int64_t ret;

	switch (o->b) {
	case 0: x.b = env.mem + (o->d & 0xffff); break;		/* past its RAM */
	case 1: x.b = env.mem - 1 - (o->d & 63); break;		/* straddles the end */
	case 2: x.b = ~0ull - (o->d & 0xfff); break;		/* wraps */
	case 3: x.b = o->d | 0x100000000000ull; break;		/* far away */
	case 4: x.b = (uint64_t)(uintptr_t)&pv_page + (o->d & 7); break;
	default: x.b = scratch_pa + (o->d & 0xf80); break;	/* its own scratch page */
	}
	/* Nothing may print our RAM or write into it outside the scratch page. */
	if (x.a == TEMPO_HC_CONSOLE_WRITE && o->b == 1) {
		x.c = (o->d & 63) + 2 + (x.c & 0xff);	/* always past the end */
	} else if (x.a == TEMPO_HC_CONSOLE_WRITE && x.b < env.mem) {
		x.b = (uint64_t)(uintptr_t)hc_text;
		x.c = (o->d & 1) ? 0 : sizeof(hc_text) - 1;
	} else if (x.a > TEMPO_HC_PV_TIMER && x.b < env.mem) {
		x.b = scratch_pa;
		x.c = 4097 + (x.c & 0xff);	/* too long to print, whatever nr means */
	}
	if (x.a == TEMPO_HC_PARTITION_INFO && o->b == 4)
		x.b = scratch_pa;
	try_insn(i_vmcall, &x);
	ret = (int64_t)x.a;
	if (o->a > TEMPO_HC_CHANNEL_RING && ret != TEMPO_HC_ENOSYS)
		anomaly(o->name, o->a, "unknown_hc_returned_%ld", (long)ret);
	/* the fuzzer's partition is on no channel: every channel call is refused */
	if (o->a >= TEMPO_HC_CHANNEL_INFO && o->a <= TEMPO_HC_CHANNEL_RING && ret != TEMPO_HC_EINVAL)
		anomaly(o->name, o->a, "channel_hc_returned_%ld", (long)ret);
	if (o->a == TEMPO_HC_TIMER_MODE_SET && ret == TEMPO_HC_OK)
		hypercall(TEMPO_HC_TIMER_MODE_SET, env.timer_mode, 0, 0);
	if (o->a == TEMPO_HC_PV_TIMER && ret == TEMPO_HC_OK &&
	    (o->b == 0 || o->b == 2 || o->b == 3 || (o->b == 1 && x.b + 16 > env.mem)))
		anomaly(o->name, x.b, "pv_page_outside_ram_accepted");
}

static void run_cpuid(struct op *o)
{
	struct insn x = { .a = o->a, .b = o->b };

	try_insn(i_cpuid, &x);
	if (o->a == 1 && ((x.d & (1u << 5)) || !(x.d & (1u << 31))))
		anomaly(o->name, 1, "ecx_0x%x", (uint32_t)x.d);
}

static bool isr_in_service(void);

static void arm_timer(uint64_t ticks)
{
	/* An interrupt left in service (reported) would block the timer's class. */
	for (int i = 0; i < 8 && isr_in_service(); i++)
		try_wrmsr(X2APIC_EOI, 0);
	try_wrmsr(X2APIC_TPR, 0);
	try_wrmsr(X2APIC_LVT_TIMER, LVT_TSC_DEADLINE | TIMER_VECTOR);
	try_wrmsr(MSR_TSC_DEADLINE, rdtsc() + ticks);
}

/* With log_from: the APIC state a HLT waits in. */
static void apic_dump(void)
{
	uint64_t v[6] = { 0 }, isr = 0, irr = 0, w;

	try_rdmsr(X2APIC_LVT_TIMER, &v[0]);
	try_rdmsr(X2APIC_TPR, &v[1]);
	try_rdmsr(0x80a, &v[2]);
	try_rdmsr(X2APIC_SVR, &v[3]);
	try_rdmsr(MSR_TSC_DEADLINE, &v[4]);
	for (uint32_t i = 0; i < 8; i++) {
		if (try_rdmsr(0x810 + i, &w) == NO_FAULT && w)
			isr |= 1ull << i;
		if (try_rdmsr(0x820 + i, &w) == NO_FAULT && w)
			irr |= 1ull << i;
	}
	say("fuzz: apic lvt=0x%lx tpr=0x%lx ppr=0x%lx svr=0x%lx deadline=%lu now=%lu "
	    "isr_words=0x%lx irr_words=0x%lx\n", v[0], v[1], v[2], v[3], v[4], rdtsc(), isr, irr);
}

static void run_timer(struct op *o)
{
	uint64_t now = rdtsc(), before = irq_count[TIMER_VECTOR];
	static const uint64_t far = 1ull << 62;
	struct insn x = { 0 };

	if (is(o, "deadline")) {
		uint64_t v[7] = { 0, 1, now - 1000, now + o->b, now + far, ~0ull, rnd_value() };

		try_wrmsr(MSR_TSC_DEADLINE, v[o->a]);
		if (o->a == 1 || o->a == 2)
			sti_window(2000);
	} else if (is(o, "sti_window")) {
		sti_window(o->b);
	} else if (is(o, "hlt")) {
		arm_timer(o->b);
		if (op_index >= opt.log_from)
			apic_dump();
		try_insn(i_sti_hlt, &x);
		if (irq_count[TIMER_VECTOR] == before) {
			/* HLT ended for another interrupt: give the deadline its time */
			sti_window(o->b + 2000);
			if (irq_count[TIMER_VECTOR] == before)
				hlt_missed++;
		}
	} else {
		int64_t r = hypercall(TEMPO_HC_TIMER_MODE_SET, o->a, 0, 0);

		arm_timer(2000);
		sti_window(4000);
		if (r == TEMPO_HC_OK)
			hypercall(TEMPO_HC_TIMER_MODE_SET, env.timer_mode, 0, 0);
		if (irq_count[TIMER_VECTOR] == before)
			hlt_missed++;
	}
}

static void run_op(struct op *o)
{
	struct insn x = { .a = o->a, .b = o->b };

	switch (o->cls) {
	case C_MSR:
		run_msr(o);
		break;
	case C_CR:
		run_cr(o);
		break;
	case C_XSETBV:
		run_xsetbv(o);
		break;
	case C_IO:
		run_io(o);
		break;
	case C_CACHE:
		try_insn(is(o, "invd") ? i_invd : is(o, "wbinvd") ? i_wbinvd : i_clflush, &x);
		break;
	case C_APIC:
		run_apic(o);
		break;
	case C_IPI:
		run_ipi(o);
		break;
	case C_INT:
		run_int(o);
		break;
	case C_VMCALL:
		run_vmcall(o);
		break;
	case C_CPUID:
		run_cpuid(o);
		break;
	case C_TIMER:
		run_timer(o);
		break;
	case C_MISC:
		if ((o->a == 0 && !env.rdtscp) || (o->a == 2 && !env.rdrand))
			x.a = 9;
		try_insn(i_misc, &x);
		restore_base();
		break;
	default:
		if (is(o, "vmx")) {
			try_insn(i_vmx, &x);
		} else {
			x.a = env.mem + o->a;
			try_insn(i_read, &x);
		}
		break;
	}
}

/* Whether a vector is in service: the fuzzer EOIs every interrupt it takes. */
static bool isr_reported;

static bool isr_in_service(void)
{
	uint64_t w;

	for (uint32_t i = 0; i < 8; i++) {
		if (try_rdmsr(0x810 + i, &w) == NO_FAULT && w)
			return true;
	}
	return false;
}

/* ---- start-up ---- */

static const char *mb2_cmdline(uint64_t magic, uint64_t info)
{
	const uint8_t *p = (const uint8_t *)(uintptr_t)info;
	uint32_t total, off = 8;

	if (magic != 0x36d76289u || !info)
		return "";
	total = *(const uint32_t *)p;
	while (off + 8 <= total && off < 65536) {
		uint32_t type = *(const uint32_t *)(p + off), size = *(const uint32_t *)(p + off + 4);

		if (type == 0 || size < 8)
			break;
		if (type == 1)
			return (const char *)(p + off + 8);
		off += (size + 7) & ~7u;
	}
	return "";
}

/* The value of "key=" in @s, or NULL; *@len gets its length. */
static const char *opt_value(const char *s, const char *key, size_t *len)
{
	size_t kl = strlen(key);

	while (*s) {
		while (*s == ' ')
			s++;
		if (!memcmp(s, key, kl) && s[kl] == '=') {
			const char *v = s + kl + 1;

			*len = 0;
			while (v[*len] && v[*len] != ' ')
				(*len)++;
			return v;
		}
		while (*s && *s != ' ')
			s++;
	}
	return NULL;
}

static bool opt_u64(const char *s, const char *key, uint64_t *out)
{
	size_t len;
	const char *v = opt_value(s, key, &len);
	uint64_t n = 0, base = 10;
	size_t i = 0;

	if (!v)
		return false;
	if (len > 2 && v[0] == '0' && v[1] == 'x') {
		base = 16;
		i = 2;
	}
	for (; i < len; i++) {
		char c = v[i];
		uint64_t d = c >= '0' && c <= '9' ? (uint64_t)(c - '0') :
			     c >= 'a' && c <= 'f' ? (uint64_t)(c - 'a' + 10) : 99;

		if (d >= base)
			break;
		n = n * base + d;
	}
	*out = n;
	return true;
}

static void parse_classes(const char *s)
{
	size_t len;
	const char *v = opt_value(s, "classes", &len);
	uint32_t mask = 0;

	if (!v || (len == 3 && !memcmp(v, "all", 3)))
		return;
	while (len) {
		size_t n = 0;

		while (n < len && v[n] != ',')
			n++;
		for (uint32_t c = 0; c < C_COUNT; c++) {
			if (strlen(class_names[c]) == n && !memcmp(v, class_names[c], n))
				mask |= 1u << c;
		}
		v += n;
		len -= n;
		if (len) {
			v++;
			len--;
		}
	}
	if (mask)
		opt.classes = mask;
}

static void env_init(void)
{
	struct tempo_partition_info *info = (struct tempo_partition_info *)scratch;
	uint32_t r[4];

	cpuid(0x40000010u, 0, r);
	env.tsc_khz = r[0] ? r[0] : 50000;
	cpuid(1, 0, r);
	env.xsave = r[2] & (1u << 26);
	env.rdrand = r[2] & (1u << 30);
	cpuid(0x80000001u, 0, r);
	env.rdtscp = r[3] & (1u << 27);
	if (hypercall(TEMPO_HC_PARTITION_INFO, (uint64_t)(uintptr_t)info, 0, 0) == 0)
		env.mem = info->memory_bytes;
	if (env.mem < (4u << 20))
		env.mem = 4u << 20;
	env.timer_mode = (uint32_t)hypercall(TEMPO_HC_TIMER_MODE_GET, 0, 0, 0);
	env.apic_id = (uint32_t)rdmsr_raw(X2APIC_ID);
	if (env.xsave) {
		uint32_t lo, hi;

		asm volatile("mov %%cr4, %%rax; or %0, %%rax; mov %%rax, %%cr4"
			     : : "i"(CR4_OSXSAVE) : "rax", "memory");
		asm volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
		env.xcr0 = ((uint64_t)hi << 32) | lo;
		cpuid(0xd, 0, r);
		env.xcr0_supported = ((uint64_t)r[3] << 32) | r[0];
	}
	env.cr0 = read_cr0();
	env.cr4 = read_cr4();
	wrmsr_raw(X2APIC_SVR, 0x1ff);
	wrmsr_raw(X2APIC_TPR, 0);
}

void fz_main(uint64_t magic, uint64_t info)
{
	static const char *const modes[] = { "direct", "inject", "emulated", "pv-lazy" };
	static char cl[256];
	const char *cmd = mb2_cmdline(magic, info);
	uint64_t end = 0, start, v = 0, exc = 0;
	uint32_t ncls = 0, cls[C_COUNT];
	struct op o;

	/* the command line lives in loader memory: copy it before anything else */
	for (size_t i = 0; i < sizeof(cl) - 1 && cmd[i]; i++)
		cl[i] = cmd[i];
	idt_init();
	env_init();
	opt_u64(cl, "seed", &opt.seed);
	opt_u64(cl, "ops", &opt.ops);
	opt_u64(cl, "ms", &opt.ms);
	opt_u64(cl, "log_every", &opt.log_every);
	opt_u64(cl, "log_from", &opt.log_from);
	opt_u64(cl, "isr_every", &opt.isr_every);
	if (!opt.isr_every)
		opt.isr_every = ~0ull;
	if (opt_u64(cl, "avoid_stop", &v))
		opt.avoid_stop = v != 0;
	parse_classes(cl);
	if (!opt.log_every)
		opt.log_every = ~0ull;
	for (uint32_t c = 0; c < C_COUNT; c++) {
		if ((opt.classes & (1u << c)) && !(opt.avoid_stop && c == C_STOP))
			cls[ncls++] = c;
	}
	rng = opt.seed;
	say("fuzz: cmdline=\"%s\" magic=0x%lx info=0x%lx\n", cl, magic, info);
	say("FUZZ_START seed=%lu classes=0x%x avoid_stop=%d ops=%lu ms=%lu mode=%s apic_id=%u "
	    "mem=0x%lx xcr0=0x%lx/0x%lx\n", opt.seed, opt.classes, opt.avoid_stop, opt.ops, opt.ms,
	    env.timer_mode < 4 ? modes[env.timer_mode] : "?", env.apic_id, env.mem, env.xcr0,
	    env.xcr0_supported);
	if (!ncls) {
		say("FUZZ_DONE seed=%lu ops=0 (no class)\n", opt.seed);
		fz_exit(0);
	}
	start = rdtsc();
	if (opt.ms)
		end = start + opt.ms * env.tsc_khz;
	for (op_index = 0; !opt.ops || op_index < opt.ops; op_index++) {
		if (end && !(op_index & 15) && rdtsc() >= end)
			break;
		o.cls = cls[rndn(ncls)];
		gen(&o);
		for (int tries = 0; opt.avoid_stop && o.may_stop && tries < 32; tries++) {
			stops_avoided++;
			gen(&o);
		}
		if (opt.avoid_stop && o.may_stop)
			continue;
		class_ops[o.cls]++;
		if (o.may_stop || op_index >= opt.log_from || !(op_index % opt.log_every))
			say("FUZZ op=%lu class=%s name=%s a=0x%lx b=0x%lx c=0x%lx d=0x%lx%s\n",
			    op_index, class_names[o.cls], o.name, o.a, o.b, o.c, o.d,
			    o.may_stop ? " may_stop=1" : "");
		run_op(&o);
		if (!(op_index % opt.isr_every) && !isr_reported && isr_in_service()) {
			isr_reported = true;
			anomaly(o.name, o.a, "interrupt_left_in_service");
		}
	}
	for (int i = 0; i < 32; i++)
		exc += exc_count[i];
	say("FUZZ_DONE seed=%lu ops=%lu ms=%lu exceptions=%lu irqs=%lu anomalies=%lu "
	    "ipi_missing=%lu timer_missed=%lu avoided=%lu unarmed_traps=%lu\n", opt.seed, op_index,
	    (rdtsc() - start) / env.tsc_khz, exc, irqs_total, anomalies, ipi_missing, hlt_missed,
	    stops_avoided, unarmed_traps);
	say("FUZZ_CLASSES msr=%lu cr=%lu xsetbv=%lu io=%lu cache=%lu apic=%lu ipi=%lu int=%lu "
	    "vmcall=%lu cpuid=%lu timer=%lu misc=%lu stop=%lu\n", class_ops[0], class_ops[1],
	    class_ops[2], class_ops[3], class_ops[4], class_ops[5], class_ops[6], class_ops[7],
	    class_ops[8], class_ops[9], class_ops[10], class_ops[11], class_ops[12]);
	fz_exit(0);
}
