// SPDX-License-Identifier: MIT
#include "guests/common/exc.h"

#include "guests/common/console.h"
#include "guests/common/guest.h"
#include "guests/common/layout.h"

#define EXC_VECTORS		32
#define IDT_GATE_INT32		0x8e	/* present, DPL 0, 32-bit interrupt gate */

struct exc_frame {
	uint32_t edi, esi, ebp, esp_unused, ebx, edx, ecx, eax;	/* pusha */
	uint32_t vector, error;
	uint32_t eip, cs, eflags;	/* pushed by the CPU */
};

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

extern const uint32_t exc_stubs[EXC_VECTORS];	/* entry.S */
void exc_dispatch(struct exc_frame *f);

volatile uint32_t exc_resume_eip;
volatile int32_t exc_caught_vector = -1;
volatile uint32_t exc_caught_eflags;

static struct idt_gate idt[256] __attribute__((aligned(8)));	/* 32 and up: exc_set_gate */
static struct idt_ptr idtr;

static const char *const exc_names[EXC_VECTORS] = {
	[0] = "#DE", [1] = "#DB", [2] = "NMI", [3] = "#BP", [4] = "#OF", [5] = "#BR",
	[6] = "#UD", [7] = "#NM", [8] = "#DF", [10] = "#TS", [11] = "#NP", [12] = "#SS",
	[13] = "#GP", [14] = "#PF", [16] = "#MF", [17] = "#AC", [18] = "#MC", [19] = "#XM",
	[20] = "#VE", [21] = "#CP",
};

const char *exc_name(uint32_t vector)
{
	if (vector < EXC_VECTORS && exc_names[vector])
		return exc_names[vector];
	return "reserved";
}

uint32_t exc_stub_address(uint32_t vector)
{
	return vector < EXC_VECTORS ? exc_stubs[vector] : 0;
}

void exc_set_gate(uint32_t vector, uint32_t handler)
{
	idt[vector & 255].offset_lo = handler & 0xffff;
	idt[vector & 255].selector = GDT_CODE32;
	idt[vector & 255].zero = 0;
	idt[vector & 255].type_attr = IDT_GATE_INT32;
	idt[vector & 255].offset_hi = handler >> 16;
}

void exc_init(void)
{
	for (uint32_t i = 0; i < EXC_VECTORS; i++)
		exc_set_gate(i, exc_stubs[i]);
	idtr.limit = sizeof(idt) - 1;
	idtr.base = (uint32_t)idt;
	exc_load();
}

void exc_load(void)
{
	asm volatile("lidt %0" : : "m"(idtr));
}

void exc_dispatch(struct exc_frame *f)
{
	uint32_t resume = exc_resume_eip;

	if (resume) {
		exc_caught_vector = (int32_t)f->vector;
		exc_caught_eflags = f->eflags;
		exc_resume_eip = 0;
		f->eip = resume;
		if (f->vector == 1)
			f->eflags &= ~(1u << 8);	/* a caught #DB ends the single-stepping */
		return;
	}
	con_printf("%s: exception %u (%s) err=0x%x eip=0x%x eflags=0x%x\n", guest_name,
		   f->vector, exc_name(f->vector), f->error, f->eip, f->eflags);
	con_printf("%s: eax=0x%x ebx=0x%x ecx=0x%x edx=0x%x esi=0x%x edi=0x%x ebp=0x%x\n",
		   guest_name, f->eax, f->ebx, f->ecx, f->edx, f->esi, f->edi, f->ebp);
	guest_panic("unexpected exception");
}
