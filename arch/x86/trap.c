// SPDX-License-Identifier: MIT
/*
 * GDT, TSS and IDT for the boot CPU, and the exception dump. Every exception
 * in the hypervisor is fatal except a #GP that the exception table expects
 * (rdmsr_safe): we print what a person needs to find the bug, then stop the
 * run with the failure status instead of letting it triple-fault.
 */
#include "arch/x86/trap.h"
#include "arch/x86/vmx.h"

#include "arch/x86/cpu.h"
#include "hv/lib/cpus.h"
#include "hv/lib/lib.h"
#include "hv/lib/log.h"
#include "arch/x86/apic.h"
#include "hv/upcalls.h"

/* Which CPU we are on, from the task register: each CPU has its own TSS. */
static uint32_t trap_current_cpu(void);

#define GDT_CODE64	0x08
#define GDT_DATA	0x10
#define GDT_TSS		0x18

#define IST_DOUBLE_FAULT	1
#define IST_NMI			2
#define IST_MACHINE_CHECK	3
#define IST_STACK_SIZE		4096

struct tss64 {
	uint32_t reserved0;
	uint64_t rsp[3];
	uint64_t reserved1;
	uint64_t ist[7];
	uint64_t reserved2;
	uint16_t reserved3;
	uint16_t iomap_base;
} __attribute__((packed));

struct idt_gate {
	uint16_t offset_lo;
	uint16_t selector;
	uint8_t ist;
	uint8_t type_attr;
	uint16_t offset_mid;
	uint32_t offset_hi;
	uint32_t reserved;
} __attribute__((packed));

struct desc_ptr {
	uint16_t limit;
	uint64_t base;
} __attribute__((packed));

struct ex_entry {
	uint64_t insn;
	uint64_t fixup;
};

extern const uint64_t isr_table[32];
extern char isr_irq_stubs[];
extern char isr_hv_timer[];
extern char isr_idle_wake[];
extern char isr_apic_spurious[];
extern const struct ex_entry __ex_table_start[], __ex_table_end[];

/*
 * One CPU's GDT (its first member: trap_current_cpu finds the block from
 * GDTR), TSS, IST stacks and root-mode counters. The boot CPU's is static
 * (its traps are set up before there is memory to allocate from); each AP's
 * comes from the pool when it is started (trap_cpu_alloc), so a machine
 * pays for the CPUs it has, not for TEMPO_MAX_CPUS.
 */
struct trap_cpu {
	uint64_t gdt[5];
	uint32_t index;
	struct tss64 tss __attribute__((aligned(16)));
	volatile uint64_t root_nmis;
	volatile uint64_t root_strays;
	volatile uint8_t root_stray_last;
	/* inside a root-mode NMI or interrupt handler (trap_dispatch): nesting depth */
	uint32_t in_handler;
	uint8_t ist_stacks[3][IST_STACK_SIZE] __attribute__((aligned(16)));
};

static struct trap_cpu boot_trap_cpu __attribute__((aligned(16)));
static struct trap_cpu *trap_cpus[TEMPO_MAX_CPUS] = { &boot_trap_cpu };
static struct idt_gate idt[256] __attribute__((aligned(16)));

static const char *const exception_names[32] = {
	"#DE divide error", "#DB debug", "NMI", "#BP breakpoint", "#OF overflow",
	"#BR bound range", "#UD invalid opcode", "#NM device not available",
	"#DF double fault", "coprocessor segment overrun", "#TS invalid TSS",
	"#NP segment not present", "#SS stack fault", "#GP general protection",
	"#PF page fault", "reserved 15", "#MF x87 error", "#AC alignment check",
	"#MC machine check", "#XM SIMD error", "#VE virtualization exception",
	"#CP control protection", "reserved 22", "reserved 23", "reserved 24",
	"reserved 25", "reserved 26", "reserved 27", "#HV hypervisor injection",
	"#VC VMM communication", "#SX security exception", "reserved 31",
};

static void set_gate(unsigned int vec, uint64_t handler, uint8_t ist)
{
	idt[vec] = (struct idt_gate){
		.offset_lo = handler & 0xffff,
		.selector = GDT_CODE64,
		.ist = ist,
		.type_attr = 0x8e,	/* present, DPL 0, 64-bit interrupt gate */
		.offset_mid = (handler >> 16) & 0xffff,
		.offset_hi = handler >> 32,
	};
}

bool trap_cpu_alloc(uint32_t cpu)
{
	if (cpu >= TEMPO_MAX_CPUS)
		return false;
	if (!trap_cpus[cpu])
		trap_cpus[cpu] = hv_pages_alloc(sizeof(struct trap_cpu), "CPU traps and IST stacks");
	return true;
}

void trap_init_cpu(uint32_t cpu)
{
	struct trap_cpu *tc = trap_cpus[cpu];
	struct tss64 *t = &tc->tss;
	uint64_t *g = tc->gdt;
	uint64_t tss_base = (uint64_t)t;
	uint64_t tss_limit = sizeof(*t) - 1;
	struct desc_ptr gdtr = { sizeof(tc->gdt) - 1, (uint64_t)g };
	struct desc_ptr idtr = { sizeof(idt) - 1, (uint64_t)idt };

	tc->index = cpu;
	t->ist[IST_DOUBLE_FAULT - 1] = (uint64_t)tc->ist_stacks[0] + IST_STACK_SIZE;
	t->ist[IST_NMI - 1] = (uint64_t)tc->ist_stacks[1] + IST_STACK_SIZE;
	t->ist[IST_MACHINE_CHECK - 1] = (uint64_t)tc->ist_stacks[2] + IST_STACK_SIZE;
	t->iomap_base = sizeof(*t);	/* no I/O bitmap */

	g[0] = 0;
	g[1] = 0x00af9a000000ffffull;	/* 64-bit code */
	g[2] = 0x00cf92000000ffffull;	/* data */
	/* 16-byte available 64-bit TSS descriptor (SDM Vol. 3A 8.2.3) */
	g[3] = (tss_limit & 0xffff) | ((tss_base & 0xffffff) << 16) | (0x89ull << 40) |
	       (((tss_limit >> 16) & 0xf) << 48) | (((tss_base >> 24) & 0xff) << 56);
	g[4] = tss_base >> 32;

	asm volatile("lgdt %0" : : "m"(gdtr));
	asm volatile("pushq %[cs]\n\t"
		     "leaq 1f(%%rip), %%rax\n\t"
		     "pushq %%rax\n\t"
		     "lretq\n"
		     "1:\n\t"
		     "mov %[ds], %%eax\n\t"
		     "mov %%eax, %%ds\n\t"
		     "mov %%eax, %%es\n\t"
		     "mov %%eax, %%ss\n\t"
		     : : [cs] "i"(GDT_CODE64), [ds] "i"(GDT_DATA) : "rax", "memory");
	asm volatile("ltr %w0" : : "r"(GDT_TSS));
	asm volatile("lidt %0" : : "m"(idtr));
}

void trap_init(void)
{
	for (unsigned int v = 32; v < 256; v++)
		set_gate(v, (uint64_t)isr_irq_stubs + 16 * (v - 32), 0);
	for (unsigned int v = 0; v < 32; v++)
		set_gate(v, isr_table[v], 0);
	idt[8].ist = IST_DOUBLE_FAULT;
	idt[2].ist = IST_NMI;
	idt[18].ist = IST_MACHINE_CHECK;
	set_gate(TRAP_HV_TIMER_VECTOR, (uint64_t)isr_hv_timer, 0);
	set_gate(TRAP_IDLE_WAKE_VECTOR, (uint64_t)isr_idle_wake, 0);
	/* a notification that finds its core in root mode: hv takes the PIR before entry */
	set_gate(TRAP_POSTED_VECTOR, (uint64_t)isr_idle_wake, 0);
	set_gate(TRAP_SPURIOUS_VECTOR, (uint64_t)isr_apic_spurious, 0);
	trap_init_cpu(0);
}

void trap_cpu_tables(uint32_t cpu, uint64_t *gdt_base, uint64_t *tss_base, uint64_t *idt_base)
{
	*gdt_base = (uint64_t)trap_cpus[cpu]->gdt;
	*tss_base = (uint64_t)&trap_cpus[cpu]->tss;
	*idt_base = (uint64_t)idt;
}

uint64_t trap_root_nmis(uint32_t cpu)
{
	return cpu < TEMPO_MAX_CPUS && trap_cpus[cpu] ? trap_cpus[cpu]->root_nmis : 0;
}

uint64_t trap_root_strays(uint32_t cpu, uint8_t *last_vector)
{
	*last_vector = 0;
	if (cpu >= TEMPO_MAX_CPUS || !trap_cpus[cpu])
		return 0;
	*last_vector = trap_cpus[cpu]->root_stray_last;
	return trap_cpus[cpu]->root_strays;
}

/*
 * An interrupt vector in root mode: a guest's left in the IRR of a core it
 * ran on, a fixed IPI that raced a partition's end, a fire of a deadline a
 * guest left armed. Acknowledged (EOI only if it is in service: a spurious
 * interrupt sets no ISR bit, and an EOI then would end another vector's
 * service, SDM 11.9) and counted, never fatal.
 */
static void root_stray(struct trap_cpu *tc, uint8_t vector)
{
	uint64_t isr = rdmsr(X2APIC_ISR0 + vector / 32);

	if (isr & (1ull << (vector % 32)))
		wrmsr(X2APIC_EOI, 0);
	if (tc) {
		tc->root_strays++;
		tc->root_stray_last = vector;
	}
}

static uint32_t trap_current_cpu(void)
{
	struct desc_ptr gdtr;

	const struct trap_cpu *tc;

	asm volatile("sgdt %0" : "=m"(gdtr));
	/* the GDT is a block's first member; anything else (entry.S's boot GDT) is no CPU */
	tc = (const struct trap_cpu *)gdtr.base;
	if (tc->index < TEMPO_MAX_CPUS && trap_cpus[tc->index] == tc)
		return tc->index;
	return UINT32_MAX;
}

static bool try_fixup(struct trap_frame *f)
{
	for (const struct ex_entry *e = __ex_table_start; e < __ex_table_end; e++) {
		if (e->insn == f->rip) {
			f->rip = e->fixup;
			return true;
		}
	}
	return false;
}

/*
 * Four words at ADDR, where the identity map holds them (below 4 GiB, past
 * page 0): the return addresses above a fault's RSP, and what its RIP ran,
 * which tell a wild jump (data at RIP) from a bad instruction.
 */
static void trap_dump_words(const char *what, uint64_t addr)
{
	const uint64_t *w = (const uint64_t *)(uintptr_t)(addr & ~7ul);

	if (addr < 0x1000 || addr >= (1ul << 32) - 32)
		return;
	log_emerg("  %s at %016lx: %016lx %016lx %016lx %016lx\n", what, addr & ~7ul, w[0], w[1],
		  w[2], w[3]);
}

static struct trap_cpu *this_trap_cpu(void)
{
	uint32_t cpu = trap_current_cpu();

	return cpu < TEMPO_MAX_CPUS ? trap_cpus[cpu] : NULL;
}

static void handler_enter(struct trap_cpu *tc)
{
	if (tc)
		tc->in_handler++;
}

static void handler_leave(struct trap_cpu *tc)
{
	if (tc)
		tc->in_handler--;
}

void trap_dispatch(struct trap_frame *f);
void trap_dispatch(struct trap_frame *f)
{
	struct trap_cpu *tc;

	if (f->vector == 13 && try_fixup(f))
		return;
	tc = this_trap_cpu();
	/*
	 * An NMI in root mode is a kick from another CPU: its reason is in the
	 * receiver's mailbox, which every root-mode loop polls.
	 */
	if (f->vector == 2) {
		if (tc)
			tc->root_nmis++;
		if (hv_stopping) {
			/* the machine may be reset next, which INIT-based resets need */
			vmx_cpu_off();
			halt_forever();
		}
		handler_enter(tc);
		hv_root_nmi();
		handler_leave(tc);
		return;
	}

	if (f->vector >= 32) {
		handler_enter(tc);
		if (!hv_root_irq((uint8_t)f->vector))
			root_stray(tc, (uint8_t)f->vector);
		handler_leave(tc);
		return;
	}
	/*
	 * A fault while handling a partition's exit is that partition's to
	 * lose, not the machine's: it is stopped (hv_fault) and the others run
	 * on. Printed first, since it is a hypervisor bug.
	 */
	log_emerg("EXCEPTION: vector %lu (%s) error_code 0x%lx\n", f->vector,
		  f->vector < 32 ? exception_names[f->vector] : "unexpected interrupt",
		  f->error_code);
	log_emerg("  RIP %016lx CS %04lx RFLAGS %016lx\n", f->rip, f->cs, f->rflags);
	log_emerg("  RSP %016lx SS %04lx CR2 %016lx CR3 %016lx\n", f->rsp, f->ss,
		  read_cr2(), read_cr3());
	log_emerg("  RAX %016lx RBX %016lx RCX %016lx RDX %016lx\n", f->rax, f->rbx, f->rcx,
		  f->rdx);
	log_emerg("  RSI %016lx RDI %016lx RBP %016lx R8  %016lx\n", f->rsi, f->rdi, f->rbp,
		  f->r8);
	log_emerg("  R9  %016lx R10 %016lx R11 %016lx R12 %016lx\n", f->r9, f->r10, f->r11,
		  f->r12);
	log_emerg("  R13 %016lx R14 %016lx R15 %016lx\n", f->r13, f->r14, f->r15);
	log_emerg("  CR0 %016lx CR4 %016lx\n", read_cr0(), read_cr4());
	trap_dump_words("stack", f->rsp);
	trap_dump_words("code", f->rip);
	/*
	 * Not a #DF or #MC: those run on IST stacks that hv_pcpu_loop must not
	 * continue on, and a machine check is the machine's (a second one
	 * with MCG_STATUS.MCIP set shuts the CPU down). Nor a fault inside a
	 * root-mode NMI or interrupt handler: unwinding it to the core's loop
	 * would leave NMIs blocked (no IRET) or its vector in service (no
	 * EOI) on this core for ever, and the stop's own NMI unanswered.
	 */
	if (f->vector != 8 && f->vector != 18 && !(tc && tc->in_handler))
		hv_exit_fault(f->vector, f->error_code, f->rip);
	hv_stop(STOP_FAILURE, "unhandled exception");
}
