# SPDX-License-Identifier: MIT
# Guests: 32-bit multiboot kernels that run as Tempo guests and bare metal.
# Included by the top-level Makefile; also works alone:
#   make -f guests/guests.mk BUILD=build guests

# Included from another makefile, do not take over its default goal.
GUEST_INCLUDED	:= $(filter-out 1,$(words $(MAKEFILE_LIST)))
GUEST_OLD_GOAL	:= $(.DEFAULT_GOAL)

BUILD		?= build
GUEST_CC	?= gcc
GUEST_LD	?= ld
GUEST_OBJ	:= $(BUILD)/guests/obj

# -fno-tree-loop-distribute-patterns: GCC must not turn our memcpy's loop into
# a call to memcpy. -fno-delete-null-pointer-checks: physical address 0 is real.
GUEST_CFLAGS	:= -std=gnu11 -m32 -O2 -g -ffreestanding -fno-pic -fno-pie \
		   -fno-stack-protector -fno-asynchronous-unwind-tables -mgeneral-regs-only \
		   -fno-tree-loop-distribute-patterns -fno-delete-null-pointer-checks \
		   -nostdlib -Wall -Wextra -Werror -I. -MMD -MP
GUEST_ASFLAGS	:= -m32 -I. -MMD -MP
GUEST_LDFLAGS	:= -m elf_i386 -nostdlib -n -z max-page-size=0x1000 -z noexecstack \
		   --no-warn-rwx-segments -no-pie -T guests/common/guest.ld

# The hypervisor's library layer (hv/lib: the formatter, the string
# functions and the UART), compiled again for each guest target into its own folder: one
# source, no guest copy.
GUEST_HV_LIB_C	:= hv/lib/fmt.c hv/lib/lib.c hv/lib/uart16550.c
GUEST_HV_LIB_OBJS := $(patsubst hv/lib/%.c,$(GUEST_OBJ)/hv-lib/%.o,$(GUEST_HV_LIB_C))

GUEST_COMMON_C	:= guests/common/acpi.c guests/common/bootinfo.c guests/common/console.c \
		   guests/common/exc.c guests/common/smp.c guests/common/tempo.c
GUEST_COMMON_S	:= guests/common/entry.S
GUEST_COMMON_OBJS := $(patsubst guests/%.c,$(GUEST_OBJ)/%.o,$(GUEST_COMMON_C)) \
		   $(patsubst guests/%.S,$(GUEST_OBJ)/%.o,$(GUEST_COMMON_S)) \
		   $(GUEST_HV_LIB_OBJS)
# One multiboot header object per flavour; everything else is shared.
GUEST_MB1_HDR	:= $(GUEST_OBJ)/common/mbheader-mb1.o
GUEST_MB2_HDR	:= $(GUEST_OBJ)/common/mbheader-mb2.o

HELLO_OBJS	:= $(GUEST_OBJ)/hello/main.o $(GUEST_COMMON_OBJS)
HELLO_MB1	:= $(BUILD)/guests/hello-mb1.elf
HELLO_MB2	:= $(BUILD)/guests/hello-mb2.elf

# rtbench: the TSC-deadline latency benchmark (multiboot2 only).
RTBENCH_OBJS	:= $(GUEST_OBJ)/rtbench/main.o $(GUEST_OBJ)/rtbench/latstat.o \
		   $(GUEST_OBJ)/rtbench/irq.o $(GUEST_COMMON_OBJS)
RTBENCH_MB2	:= $(BUILD)/guests/rtbench-mb2.elf

# hostile: one documented attack at a time (docs/attacks.md, tests/attack/).
HOSTILE_OBJS	:= $(GUEST_OBJ)/hostile/main.o $(GUEST_COMMON_OBJS)
HOSTILE_MB2	:= $(BUILD)/guests/hostile-mb2.elf

# chan: two partitions talking through a channel (docs/channels.md); rtbench's
# interrupt stubs and latency statistics.
CHAN_OBJS	:= $(GUEST_OBJ)/chan/main.o $(GUEST_OBJ)/rtbench/latstat.o \
		   $(GUEST_OBJ)/rtbench/irq.o $(GUEST_COMMON_OBJS)
CHAN_MB2	:= $(BUILD)/guests/chan-mb2.elf

# devirq: a device of its own (COM2, the HPET) by port I/O, MMIO and IOAPIC
# interrupts; rtbench's interrupt stubs and latency statistics.
DEVIRQ_OBJS	:= $(GUEST_OBJ)/devirq/main.o $(GUEST_OBJ)/rtbench/latstat.o \
		   $(GUEST_OBJ)/rtbench/irq.o $(GUEST_COMMON_OBJS)
DEVIRQ_MB2	:= $(BUILD)/guests/devirq-mb2.elf

GUEST_ELFS	:= $(HELLO_MB2) $(HELLO_MB1) $(RTBENCH_MB2) $(HOSTILE_MB2) $(CHAN_MB2) $(DEVIRQ_MB2)

# fuzz: the guest-side fuzzer, 64-bit (a 32-bit multiboot2 entry stub that
# switches to long mode), built with the hypervisor's freestanding flags
# (guests/README.md, tests/guestfuzz/run.sh), with hv/lib compiled 64-bit.
FUZZ_GUEST_CFLAGS := -std=gnu11 -O2 -g -ffreestanding -fno-builtin -fno-stack-protector \
		   -fno-pic -fno-pie -fno-asynchronous-unwind-tables -m64 -mno-red-zone \
		   -mgeneral-regs-only -mno-sse -mno-mmx -mno-80387 -mcmodel=small \
		   -fno-tree-loop-distribute-patterns -fno-delete-null-pointer-checks \
		   -Wall -Wextra -Werror -I. -MMD -MP
FUZZ_GUEST_OBJ	:= $(GUEST_OBJ)/fuzz64
FUZZ_GUEST_OBJS	:= $(FUZZ_GUEST_OBJ)/entry.o $(FUZZ_GUEST_OBJ)/main.o \
		   $(patsubst hv/lib/%.c,$(FUZZ_GUEST_OBJ)/hv-lib/%.o,$(GUEST_HV_LIB_C))
FUZZ_MB2	:= $(BUILD)/guests/fuzz-mb2.elf

.PHONY: guests
guests: $(GUEST_ELFS)
guests: $(FUZZ_MB2)

$(FUZZ_GUEST_OBJ)/entry.o: guests/fuzz/entry.S
	@mkdir -p $(dir $@)
	$(GUEST_CC) -m64 -I. -MMD -MP -c $< -o $@

$(FUZZ_GUEST_OBJ)/main.o: guests/fuzz/main.c
	@mkdir -p $(dir $@)
	$(GUEST_CC) $(FUZZ_GUEST_CFLAGS) -c $< -o $@

$(FUZZ_GUEST_OBJ)/hv-lib/%.o: hv/lib/%.c
	@mkdir -p $(dir $@)
	$(GUEST_CC) $(FUZZ_GUEST_CFLAGS) -c $< -o $@

$(FUZZ_MB2): $(FUZZ_GUEST_OBJS) guests/fuzz/fuzz.ld
	$(GUEST_LD) -m elf_x86_64 -nostdlib -n -z max-page-size=0x1000 -z noexecstack \
		--no-warn-rwx-segments -no-pie -T guests/fuzz/fuzz.ld -o $@ $(FUZZ_GUEST_OBJS)
	@if command -v grub-file >/dev/null; then grub-file --is-x86-multiboot2 $@ || \
		{ echo "$@: no valid header for grub-file --is-x86-multiboot2"; rm -f $@; exit 1; }; fi

.PHONY: guest-fuzz-elf
guest-fuzz-elf: $(FUZZ_MB2)

$(GUEST_OBJ)/%.o: guests/%.c
	@mkdir -p $(dir $@)
	$(GUEST_CC) $(GUEST_CFLAGS) -c $< -o $@

$(GUEST_OBJ)/hv-lib/%.o: hv/lib/%.c
	@mkdir -p $(dir $@)
	$(GUEST_CC) $(GUEST_CFLAGS) -c $< -o $@

$(GUEST_OBJ)/%.o: guests/%.S
	@mkdir -p $(dir $@)
	$(GUEST_CC) $(GUEST_ASFLAGS) -c $< -o $@

# Explicit rules: a pattern here would also match make's attempts to remake
# the included .d files.
$(GUEST_MB1_HDR): guests/common/mbheader.S
	@mkdir -p $(dir $@)
	$(GUEST_CC) $(GUEST_ASFLAGS) -DMB_VERSION=1 -c $< -o $@

$(GUEST_MB2_HDR): guests/common/mbheader.S
	@mkdir -p $(dir $@)
	$(GUEST_CC) $(GUEST_ASFLAGS) -DMB_VERSION=2 -c $< -o $@

# $(1): ELF, $(2): header object, $(3): other objects, $(4): grub-file flag
define guest_link
$(1): $(2) $(3) guests/common/guest.ld
	$$(GUEST_LD) $$(GUEST_LDFLAGS) -o $$@ $(2) $(3)
	@if command -v grub-file >/dev/null; then grub-file $(4) $$@ || \
		{ echo "$$@: no valid header for grub-file $(4)"; rm -f $$@; exit 1; }; fi
endef

$(eval $(call guest_link,$(HELLO_MB2),$(GUEST_MB2_HDR),$(HELLO_OBJS),--is-x86-multiboot2))
$(eval $(call guest_link,$(HELLO_MB1),$(GUEST_MB1_HDR),$(HELLO_OBJS),--is-x86-multiboot))
$(eval $(call guest_link,$(RTBENCH_MB2),$(GUEST_MB2_HDR),$(RTBENCH_OBJS),--is-x86-multiboot2))
$(eval $(call guest_link,$(HOSTILE_MB2),$(GUEST_MB2_HDR),$(HOSTILE_OBJS),--is-x86-multiboot2))
$(eval $(call guest_link,$(CHAN_MB2),$(GUEST_MB2_HDR),$(CHAN_OBJS),--is-x86-multiboot2))
$(eval $(call guest_link,$(DEVIRQ_MB2),$(GUEST_MB2_HDR),$(DEVIRQ_OBJS),--is-x86-multiboot2))

.PHONY: rtbench
rtbench: $(RTBENCH_MB2)

-include $(HELLO_OBJS:.o=.d) $(RTBENCH_OBJS:.o=.d) $(HOSTILE_OBJS:.o=.d) $(CHAN_OBJS:.o=.d) $(FUZZ_GUEST_OBJS:.o=.d) \
	$(DEVIRQ_OBJS:.o=.d) \
	$(GUEST_MB1_HDR:.o=.d) $(GUEST_MB2_HDR:.o=.d)

# Bare-metal boot images of hello (GRUB, BIOS+UEFI) that end the emulator.
HELLO_ISOS	:= $(BUILD)/guests/hello-mb2.iso $(BUILD)/guests/hello-mb1.iso

.PHONY: guests-isos
guests-isos: $(HELLO_ISOS)

$(BUILD)/guests/hello-mb2.iso: $(HELLO_MB2) boot/mkiso.sh
	boot/mkiso.sh $@ $< "exit=emu"

$(BUILD)/guests/hello-mb1.iso: $(HELLO_MB1) guests/hello/mkiso-mb1.sh
	guests/hello/mkiso-mb1.sh $@ $< "exit=emu"

# rtbench bare metal, default run (1000 fixed events, HLT wait); ends the emulator.
RTBENCH_ISO	:= $(BUILD)/guests/rtbench-mb2.iso

.PHONY: rtbench-iso
rtbench-iso: $(RTBENCH_ISO)

$(RTBENCH_ISO): $(RTBENCH_MB2) boot/mkiso.sh
	boot/mkiso.sh $@ $< "exit=emu label=bare"

# Host unit tests of the guests' parsers (cmocka, ASan+UBSan).
GUEST_UNIT	:= $(BUILD)/guests/unit/test_guest_parsers
GUEST_UNIT_SRCS	:= guests/common/test/test_guest_parsers.c guests/common/acpi.c \
		   guests/common/bootinfo.c hv/lib/fmt.c
GUEST_SAN	:= -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer

# Host unit tests of rtbench's exact latency statistics.
RTBENCH_UNIT	:= $(BUILD)/guests/unit/test_latstat
RTBENCH_UNIT_SRCS := guests/rtbench/test/test_latstat.c guests/rtbench/latstat.c

.PHONY: guests-unit
guests-unit: $(GUEST_UNIT) $(RTBENCH_UNIT)
	$(GUEST_UNIT)
	$(RTBENCH_UNIT)

# -DTEMPO_HOST: hv/lib/lib.h then takes the string functions from the C library.
$(GUEST_UNIT): $(GUEST_UNIT_SRCS) $(wildcard guests/common/*.h) $(wildcard hv/lib/*.h)
	@mkdir -p $(dir $@)
	gcc -std=gnu11 -g -O1 -Wall -Wextra -Werror -DGUEST_HOST_TEST -DTEMPO_HOST -I. $(GUEST_SAN) \
		$(GUEST_UNIT_SRCS) -o $@ -lcmocka

$(RTBENCH_UNIT): $(RTBENCH_UNIT_SRCS) guests/rtbench/latstat.h hv/lib/div64.h
	@mkdir -p $(dir $@)
	gcc -std=gnu11 -g -O1 -Wall -Wextra -Werror -DGUEST_HOST_TEST -I. $(GUEST_SAN) \
		$(RTBENCH_UNIT_SRCS) -o $@ -lcmocka

# Last: hand the default goal back to the including makefile.
ifneq ($(GUEST_INCLUDED),)
.DEFAULT_GOAL	:= $(GUEST_OLD_GOAL)
endif
