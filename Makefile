# SPDX-License-Identifier: MIT
# Tempo: a boot-time micro-hypervisor for partitioned real-time guests.
# `make help` lists the targets.

# PROFILE=1: the exit path's instruction profile (hv/ops/prof.h), in its own build folder
PROFILE		?=
# VMCS_CHECK=1: the VMCS checker before every VM entry (arch/x86/vmx_check.h), in its own
VMCS_CHECK	?=
BUILD		?= $(if $(PROFILE),build-profile,$(if $(VMCS_CHECK),build-vmcs-check,build))
CC		:= gcc
LD		:= ld
OBJCOPY		:= objcopy

GIT_REV		:= $(shell git rev-parse --short HEAD 2>/dev/null || echo dev)
VERSION		:= 0.1-$(GIT_REV)

# Freestanding flags measured to work (../shared/EMULATORS.md).
KCFLAGS		:= -std=gnu11 -O2 -g -ffreestanding -fno-builtin -fno-stack-protector \
		   -fno-pic -fno-pie -fno-asynchronous-unwind-tables -m64 -mno-red-zone \
		   -mgeneral-regs-only -mno-sse -mno-mmx -mno-80387 -mcmodel=small \
		   -Wall -Wextra -Werror -I. -DTEMPO_VERSION='"$(VERSION)"' -MMD -MP
KASFLAGS	:= -m64 -I. -MMD -MP
ifneq ($(PROFILE),)
KCFLAGS		+= -DTEMPO_PROFILE
KASFLAGS	+= -DTEMPO_PROFILE
endif
ifneq ($(VMCS_CHECK),)
KCFLAGS		+= -DTEMPO_VMCS_CHECK
KASFLAGS	+= -DTEMPO_VMCS_CHECK
endif
KLDFLAGS	:= -nostdlib -n -z max-page-size=0x1000 -z noexecstack --no-warn-rwx-segments -no-pie -T linker.ld

# The layers (docs/architecture.md): the library, the pure core, the
# VMX-bound hypervisor in its rooms (hv/ROOM/), and arch/ and drivers/ under them.
HV_ROOMS	:= state guest apic time dev build ops run exit start
HV_LIB_SRCS	:= $(sort $(wildcard hv/lib/*.c))
HV_CORE_SRCS	:= $(sort $(wildcard hv/core/*.c))
HV_VMX_SRCS	:= $(foreach r,$(HV_ROOMS),$(sort $(wildcard hv/$(r)/*.c)))
HV_C_SRCS	:= $(HV_VMX_SRCS) $(HV_CORE_SRCS) $(HV_LIB_SRCS) \
		   $(sort $(wildcard arch/x86/*.c)) $(sort $(wildcard drivers/*.c))
HV_S_SRCS	:= boot/entry.S boot/trampoline.S arch/x86/isr.S arch/x86/vmx_entry.S
HV_OBJS		:= $(patsubst %.c,$(BUILD)/obj/%.o,$(HV_C_SRCS)) \
		   $(patsubst %.S,$(BUILD)/obj/%.o,$(HV_S_SRCS))
HV_ELF		:= $(BUILD)/tempo.elf

# The command line the emulator ISOs pass: exit=emu lets a run end the emulator.
ISO_CMDLINE	?= exit=emu loglevel=3
ISO		:= $(BUILD)/tempo.iso
DEMO_CFG	?= guests/demo.cfg

include guests/guests.mk
include guests/linux/linux.mk

# module2 lines: the config, then every guest ELF under its own name.
GUEST_MODULES	= $(foreach g,$(GUEST_ELFS),$(g):$(basename $(notdir $(g))))

BOCHS_CPUS	?= 4
BOCHS_MODEL	?= corei7_ivy_bridge_3770k

all:

.PHONY: all iso run test unit fuzz guest-fuzz attack bench soak test-images linux-test-images linux-demo deps format help clean install uninstall run-kvm efi esp
.PHONY: tempo-config deb run-hello channel-demo kut kut-images bench-profile console

all: $(HV_ELF) guests	## Build the hypervisor ELF (build/tempo.elf) and the guests

# V=1 shows the full commands
Q		:= $(if $(V),,@)

$(BUILD)/obj/%.o: %.c
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  CC      $<")
	$(Q)$(CC) $(KCFLAGS) -c $< -o $@

$(BUILD)/obj/%.o: %.S
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  AS      $<")
	$(Q)$(CC) $(KASFLAGS) -c $< -o $@

$(HV_ELF): $(HV_OBJS) linker.ld
	@$(if $(Q),echo "  LD      $@")
	$(Q)$(LD) $(KLDFLAGS) -o $@ $(HV_OBJS)
	@if command -v grub-file >/dev/null; then grub-file --is-x86-multiboot2 $@ || \
		{ echo "$@: no valid multiboot2 header"; rm -f $@; exit 1; }; fi

iso: $(ISO)	## Build the hybrid BIOS+UEFI GRUB ISO (build/tempo.iso)

$(ISO): $(HV_ELF) $(GUEST_ELFS) boot/mkiso.sh $(DEMO_CFG)
	@echo "  ISO     $@"
	$(Q)boot/mkiso.sh $@ $(HV_ELF) "$(ISO_CMDLINE)" $(DEMO_CFG):partitions $(GUEST_MODULES)

# Extra images the emulator tests boot, each with its own command line and,
# where CONFIG_name is set, a partition config and the guests.
TIMER_ISOS	:= timer-direct timer-inject timer-emulated attacks-direct attacks-emulated \
		   shared shared-solo shared-attacks pv-lazy watchdog hv-fault restart restart-quiet console console-busy \
		   channel channel-edge channel-quiet channel-shared \
		   channel-restart channel-pci testdev xapic high-mem high-mem-big high-mem-large console-drop \
		   many-vcpus posted-soft dev-com2 dev-com2-inject dev-hpet dev-hpet-inject dev-hpet-shared fidelity
TEST_ISO_NAMES	:= platform fault ud iommu-dma iommu-ir pit stop-oob stop-triple stop-vmxon bad-syntax bad-cpu \
		   bad-device all-cpus console-cut reboot-end reboot-bad-config reboot-no-vmx reboot-monitor \
		   halt-end $(TIMER_ISOS)
TEST_ISOS	:= $(patsubst %,$(BUILD)/test/%.iso,$(TEST_ISO_NAMES))
CMDLINE_platform := exit=emu
CMDLINE_fault	:= exit=emu test=fault
CMDLINE_ud	:= exit=emu test=ud
CMDLINE_iommu-dma := exit=emu test=iommu-dma
CMDLINE_iommu-ir := exit=emu test=iommu-ir
CMDLINE_pit	:= exit=emu tsc_calibrate=pit
$(foreach t,stop-oob stop-triple stop-vmxon bad-syntax bad-cpu bad-device all-cpus console-cut $(TIMER_ISOS),\
	$(eval CMDLINE_$(t) := exit=emu)$(eval CONFIG_$(t) := tests/emu/configs/$(t).cfg))
CMDLINE_hv-fault := exit=emu test=exit_fault
# The reboot tests: no exit=emu, so the emulator sees the reset itself.
CMDLINE_reboot-end := reboot=1
CONFIG_reboot-end := tests/emu/configs/reboot-end.cfg
CMDLINE_reboot-bad-config := reboot=1
CONFIG_reboot-bad-config := tests/emu/configs/bad-syntax.cfg
CMDLINE_reboot-no-vmx := reboot=1
CMDLINE_reboot-monitor := reboot=1
CMDLINE_halt-end := reboot=1
CONFIG_halt-end := tests/emu/configs/halt-end.cfg
CONFIG_reboot-monitor := tests/emu/configs/reboot-monitor.cfg
CMDLINE_posted-soft := exit=emu posted=soft
# the HPET given to a partition: Tempo calibrates with the PIT
CMDLINE_dev-hpet := exit=emu tsc_calibrate=pit
CMDLINE_dev-hpet-inject := exit=emu tsc_calibrate=pit
CMDLINE_dev-hpet-shared := exit=emu tsc_calibrate=pit

$(BUILD)/test/%.iso: $(HV_ELF) $(GUEST_ELFS) boot/mkiso.sh $(wildcard tests/emu/configs/*.cfg)
	@echo "  ISO     $@"
	$(Q)boot/mkiso.sh $@ $(HV_ELF) "$(CMDLINE_$*)" \
		$(if $(CONFIG_$*),$(CONFIG_$*):partitions $(GUEST_MODULES))

# Linux partitions (guests/linux/linux.mk builds the kernel and initramfs).
# The images of LINUX_VMLINUX_ISOS boot the uncompressed kernel (the
# bzImage's payload, guests/linux/vmlinux.py): Tempo loads its segments, and
# no xz decompression runs at each start, which in Bochs was half of such a
# test's time (about 130 s of some 300). The others boot the bzImage.
LINUX_FILES	:= $(LINUX_BZIMAGE) $(LINUX_VMLINUX) $(LINUX_INITRD)
LINUX_VMLINUX_ISOS := shell chan ne2k

$(BUILD)/test/linux-%.iso: $(HV_ELF) $(GUEST_ELFS) boot/mkiso.sh tests/emu/configs/linux-%.cfg \
		$(LINUX_FILES)
	@echo "  ISO     $@"
	$(Q)boot/mkiso.sh $@ $(HV_ELF) \
		"exit=emu" \
		tests/emu/configs/linux-$*.cfg:partitions $(GUEST_MODULES) \
		$(if $(filter $*,$(LINUX_VMLINUX_ISOS)),$(LINUX_VMLINUX),$(LINUX_BZIMAGE)):linux \
		$(LINUX_INITRD):initrd

# The refusal tests: a kernel cut short (a bad download), and no initrd.
$(LINUX_DIR)/bzImage-truncated: $(LINUX_BZIMAGE)
	head -c 4194304 $< > $@

$(BUILD)/test/linux-corrupt.iso: $(HV_ELF) $(GUEST_ELFS) boot/mkiso.sh \
		tests/emu/configs/linux-corrupt.cfg $(LINUX_DIR)/bzImage-truncated $(LINUX_INITRD)
	@echo "  ISO     $@"
	$(Q)boot/mkiso.sh $@ $(HV_ELF) "exit=emu" tests/emu/configs/linux-corrupt.cfg:partitions \
		$(GUEST_MODULES) $(LINUX_DIR)/bzImage-truncated:linux $(LINUX_INITRD):initrd

LINUX_TEST_ISOS	:= $(patsubst %,$(BUILD)/test/linux-%.iso,boot corrupt noinitrd direct alone emulated shell chan \
		   large ne2k)
linux-test-images: $(LINUX_TEST_ISOS)

test-images: $(ISO) $(TEST_ISOS)

deps:	## Install the Debian packages Tempo needs (only those missing)
	@tests/tools/deps.sh

# make run: the latency guest in direct mode beside the same guest in emulated
# mode (guests/rtdemo.cfg), then rtbench bare metal with the same workload,
# and a table of the three (boot/rtdemo-table.sh).
RTDEMO_CFG	:= guests/rtdemo.cfg
RTDEMO_ISO	:= $(BUILD)/tempo-rtdemo.iso
RTDEMO_BARE_ISO	:= $(BUILD)/rtdemo-bare.iso
# the bare run gets rt-direct's workload, so the rows compare like with like
RTDEMO_WORKLOAD	:= $(shell sed -n 's/^cmdline = "\(.*\) label=direct"/\1/p' $(RTDEMO_CFG))

$(RTDEMO_ISO): $(HV_ELF) $(RTBENCH_MB2) boot/mkiso.sh $(RTDEMO_CFG)
	@echo "  ISO     $@"
	$(Q)boot/mkiso.sh $@ $(HV_ELF) "$(ISO_CMDLINE)" $(RTDEMO_CFG):partitions \
		$(RTBENCH_MB2):rtbench-mb2

$(RTDEMO_BARE_ISO): $(RTBENCH_MB2) boot/mkiso.sh $(RTDEMO_CFG)
	@echo "  ISO     $@"
	$(Q)boot/mkiso.sh $@ $(RTBENCH_MB2) "exit=emu $(RTDEMO_WORKLOAD) label=bare"

run: deps $(RTDEMO_ISO) $(RTDEMO_BARE_ISO)	## Boot the latency demo in Bochs: direct vs emulated timer, then bare metal, and a table
	tests/emu/run.sh --emu bochs --cpus 3 --model $(BOCHS_MODEL) \
		--iso $(RTDEMO_ISO) --timeout 300 --out $(BUILD)/run --show
	@echo "== the same workload bare metal (rtbench alone, no Tempo)"
	@tests/emu/run.sh --emu bochs --cpus 1 --model $(BOCHS_MODEL) \
		--iso $(RTDEMO_BARE_ISO) --timeout 120 --out $(BUILD)/run-bare
	@boot/rtdemo-table.sh $(BUILD)/run/serial.txt $(BUILD)/run-bare/serial.txt

# make console: the same demo, its console in this terminal (boot/console-demo.sh,
# tools/serial-term.py): keys go to Tempo, Ctrl-T m opens the monitor, Ctrl-] quits.
console: deps $(RTDEMO_ISO)	## The latency demo in Bochs with Tempo's console in this terminal: type to it, Ctrl-T m monitor, Ctrl-] quits
	@boot/console-demo.sh $(BUILD)/console --cpus 3 --model $(BOCHS_MODEL) \
		--iso $(RTDEMO_ISO) --timeout 3600

# make channel-demo: a control loop and Linux on a channel (guests/channel-demo.cfg).
CHANDEMO_CFG	:= guests/channel-demo.cfg
CHANDEMO_ISO	:= $(BUILD)/tempo-channel-demo.iso

$(CHANDEMO_ISO): $(HV_ELF) $(GUEST_ELFS) boot/mkiso.sh $(CHANDEMO_CFG) $(LINUX_FILES)
	@echo "  ISO     $@"
	$(Q)boot/mkiso.sh $@ $(HV_ELF) "$(ISO_CMDLINE)" $(CHANDEMO_CFG):partitions \
		$(GUEST_MODULES) $(LINUX_VMLINUX):linux $(LINUX_INITRD):initrd

channel-demo: deps $(CHANDEMO_ISO)	## A control loop rings Linux every ms through a channel; round trips and exits (Bochs, ~3 min)
	tests/emu/run.sh --emu bochs --cpus 3 --mem 512 --model $(BOCHS_MODEL) \
		--iso $(CHANDEMO_ISO) --timeout 1500 --out $(BUILD)/channel-demo
	@boot/channel-demo-table.sh $(BUILD)/channel-demo/serial.txt $(BOCHS_MODEL) 50000000

run-hello: deps $(ISO)	## Boot the hello demo in Bochs (4 CPUs): two partitions, their output, exit counts
	tests/emu/run.sh --emu bochs --cpus $(BOCHS_CPUS) --model $(BOCHS_MODEL) \
		--iso $(ISO) --timeout 120 --show

# tempo-config: the config parser and checks the boot runs, compiled for the
# host from the same sources as tests/unit (-DTEMPO_HOST), no copies.
TOOL_SRCS	:= tools/tempo-config.c tools/devmachine.c hv/core/config.c hv/core/devassign.c hv/core/timer_modes.c hv/core/memplan.c drivers/acpi.c hv/core/elf.c hv/core/mb_header.c \
		   hv/core/bzimage.c hv/lib/fmt.c hv/lib/lib.c
TOOL_OBJS	:= $(patsubst %.c,$(BUILD)/host/%.o,$(TOOL_SRCS))
# Debian's hardening flags: the tool is installed as /usr/sbin/tempo-config.
TOOL_CFLAGS	:= -std=gnu11 -O2 -g -Wall -Wextra -Werror -DTEMPO_HOST -I. -MMD -MP \
		   -DTEMPO_VERSION='"$(VERSION)"' \
		   -fstack-protector-strong -D_FORTIFY_SOURCE=2
TOOL_LDFLAGS	:= -Wl,-z,relro -Wl,-z,now
TEMPO_CONFIG	:= $(BUILD)/tempo-config

# The objects that print the version are rebuilt when it changes (a commit):
# -DTEMPO_VERSION is on their command line, which make does not compare.
VERSION_STAMP	:= $(BUILD)/version.stamp
$(VERSION_STAMP): FORCE
	@mkdir -p $(@D); [ "$$(cat $@ 2>/dev/null)" = "$(VERSION)" ] || echo "$(VERSION)" > $@
.PHONY: FORCE
FORCE:
$(BUILD)/host/tools/tempo-config.o $(BUILD)/obj/hv/start/main.o $(BUILD)/obj/hv/build/build.o: $(VERSION_STAMP)

tempo-config: $(TEMPO_CONFIG)	## Build the host tool that checks a config against this machine (build/tempo-config)

$(BUILD)/host/%.o: %.c Makefile
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  HOSTCC  $<")
	$(Q)$(CC) $(TOOL_CFLAGS) -c $< -o $@

$(TEMPO_CONFIG): $(TOOL_OBJS)
	$(Q)$(CC) $(TOOL_LDFLAGS) $(TOOL_OBJS) -o $@

-include $(TOOL_OBJS:.o=.d)

unit:	## Host unit tests (cmocka, ASan+UBSan)
	$(MAKE) -C tests/unit run BUILD=$(abspath $(BUILD))

test: deps	## Install what is missing, then run unit and emulator tests
	@tests/run_tests.sh

# LINUX_BENCH=0 leaves out the Linux rows (five Linux boots in Bochs, ~30 min)
LINUX_BENCH	?= 1
bench: deps all $(if $(filter 1,$(LINUX_BENCH)),linux-test-images $(CHANDEMO_ISO))	## Latency benchmark in Bochs: bare metal vs direct/inject/emulated, rtbench and Linux (table + BENCH lines)
	@tests/bench/bench.sh $(BUILD)/bench
	@tests/bench/plot.py $(BUILD)/bench
	@tests/bench/doorbell.sh $(BUILD)/bench/doorbell
	@tests/bench/devirq.sh $(BUILD)/bench/devirq
	@if [ "$(LINUX_BENCH)" = 1 ]; then BUILD=$(BUILD) tests/linux/bench.sh $(BUILD)/bench/linux; fi
	@if [ "$(LINUX_BENCH)" = 1 ]; then \
		tests/emu/run.sh --emu bochs --cpus 3 --mem 512 --model $(BOCHS_MODEL) \
			--iso $(CHANDEMO_ISO) --timeout 1500 --out $(BUILD)/bench/channel-linux && \
		boot/channel-demo-table.sh $(BUILD)/bench/channel-linux/serial.txt $(BOCHS_MODEL) 50000000; fi

bench-profile: deps	## Where an exit's instructions go: bench rows on the profile build (make PROFILE=1), a segment table and BENCH_PATH lines
	@tests/bench/profile.sh build/bench-profile

linux-demo: deps linux-test-images	## Linux (cyclictest, direct mode) beside the latency guest in Bochs, alone, then Linux bare metal: the figures
	BUILD=$(BUILD) tests/linux/bench.sh $(BUILD)/linux-demo direct alone bare

# ---- on a server: GRUB install, and QEMU/KVM with nested VMX ----
# make install [DESTDIR=/mnt] [PREFIX=/boot/tempo] [CONFIG=my.cfg]; then update-grub.
PREFIX		?= /boot/tempo
CONFIG		?= $(DEMO_CFG)
# run-kvm boots $(ISO) unless CONFIG names another config than the ISO's.
KVM_ISO		:= $(if $(filter-out $(DEMO_CFG),$(CONFIG)),$(BUILD)/tempo-kvm.iso,$(ISO))
KVM_MKISO	= boot/mkiso.sh $(KVM_ISO) $(HV_ELF) "$(ISO_CMDLINE)" $(CONFIG):partitions $(GUEST_MODULES)

SBINDIR		?= /usr/local/sbin
# What a server gets: the demo, latency and channel guests, not the attack
# guest or the fuzzer (test-only).
DEB_GUESTS	:= $(HELLO_MB2) $(HELLO_MB1) $(RTBENCH_MB2) $(CHAN_MB2)

install: $(HV_ELF) $(DEB_GUESTS) $(CONFIG) $(TEMPO_CONFIG)	## Install Tempo, guests, CONFIG (kept if there), 20_tempo, tempo-config under DESTDIR
	@boot/install.sh install "$(DESTDIR)" "$(PREFIX)" "$(SBINDIR)" $(CONFIG) $(HV_ELF) \
		$(TEMPO_CONFIG) $(DEB_GUESTS)
	@TEMPO_DEFAULTS=/dev/null TEMPO_ROOT="$(DESTDIR)$(PREFIX)" TEMPO_GRUB_DIR="$(PREFIX)" \
		PATH="$(DESTDIR)$(SBINDIR):$$PATH" sh -e "$(DESTDIR)/etc/grub.d/20_tempo" >/dev/null
	@$(if $(DESTDIR),,echo "install: done; run update-grub (or grub-mkconfig -o /boot/grub/grub.cfg)")

uninstall:	## Remove what make install wrote (DESTDIR, PREFIX as for install); an edited file is kept
	@boot/install.sh uninstall "$(DESTDIR)" "$(PREFIX)"
	@$(if $(DESTDIR),,echo "uninstall: done; run update-grub")

# make deb: build/tempo_VERSION_amd64.deb (boot/mkdeb.sh, dpkg-deb); then
# dpkg -i build/tempo_*.deb and tempo-config check --machine /boot/tempo/partitions.cfg
# The version sorts in commit order for dpkg: the number of commits, then the
# hash (a hash alone sorts at random: 0.1+git5e0ade0 < 0.1+gitedb25c4), and
# 0.1.N sorts after every 0.1+gitHASH the old scheme made.
GIT_COUNT	:= $(shell git rev-list --count HEAD 2>/dev/null || echo 0)
DEB_VERSION	:= 0.1.$(GIT_COUNT)+g$(GIT_REV)
EXAMPLE_CFG	:= guests/example.cfg
DEB		:= $(BUILD)/tempo_$(DEB_VERSION)_amd64.deb

deb: $(DEB)	## Build the Debian package (build/tempo_VERSION_amd64.deb): /boot/tempo, 20_tempo, tempo-config

# $(BUILD)/BOOTX64.EFI is $(EFI_LOADER), which is defined further down.
$(DEB): $(HV_ELF) $(DEB_GUESTS) $(TEMPO_CONFIG) $(BUILD)/BOOTX64.EFI $(EXAMPLE_CFG) boot/mkdeb.sh \
		$(wildcard boot/deb/*) boot/grub.d/20_tempo boot/grub.d/tempo.default README.md \
		$(wildcard docs/*.md)
	$(Q)rm -f $(BUILD)/tempo_*_amd64.deb
	$(Q)boot/mkdeb.sh $@ $(DEB_VERSION) $(BUILD)/deb $(HV_ELF) $(TEMPO_CONFIG) $(BUILD)/BOOTX64.EFI \
		$(EXAMPLE_CFG) $(DEB_GUESTS)

run-kvm: $(HV_ELF) $(GUEST_ELFS) $(filter $(ISO),$(KVM_ISO))	## Boot the ISO in QEMU/KVM with nested VMX (Intel hosts; CONFIG= picks the config)
	$(if $(filter-out $(ISO),$(KVM_ISO)),$(KVM_MKISO))
	boot/run-kvm.sh --iso $(KVM_ISO) --config $(CONFIG)

soak: deps all	## 10^6 guest timer events on two partitions in Bochs; ends with a SOAK line
	@tests/bench/soak.sh

attack: deps all	## Every hostile-guest attack in Bochs against docs/attacks.md (ATTACK lines)
	@tests/run_tests.sh attack

# kvm-unit-tests (docs/kvm-unit-tests.md): built in build/kut/src from a copy of
# ../shared/third_party/kvm-unit-tests or KUT_SRC; both skip where it is absent.
kut-images:	## Build kvm-unit-tests' x86 tests in build/kut/src (KUT_SRC=PATH, else ../shared/third_party)
	@BUILD=$(BUILD) tests/kut/build.sh

kut: deps all	## kvm-unit-tests as partitions in Bochs, every timer mode, against tests/kut/expected.txt (KUT lines)
	@BUILD=$(BUILD) tests/run_tests.sh kut

FUZZ_MINUTES	?= 10
guest-fuzz: deps all	## Guest-side fuzzer (guests/fuzz) beside rtbench victims, FUZZ_MINUTES (10) per timer mode
	@FUZZ_MINUTES=$(FUZZ_MINUTES) tests/guestfuzz/run.sh

FUZZ_SECONDS	?= 300
fuzz:	## Run every libFuzzer target for FUZZ_SECONDS (default 300) each
	$(MAKE) -C tests/fuzz all regress run BUILD=$(abspath $(BUILD)) FUZZ_SECONDS=$(FUZZ_SECONDS)

format:	## clang-format every C source and header
	clang-format -i $$(git ls-files '*.c' '*.h')

help:	## List the targets
	@grep -hE '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | sed 's/:.*## /\t/' | \
		awk -F'\t' '{ printf "  make %-10s %s\n", $$1, $$2 }'

clean:	## Remove build outputs
	rm -rf $(BUILD)

# ---- UEFI without GRUB: the Tempo EFI loader and an EFI system partition ----
# build/BOOTX64.EFI (GNU-EFI) reads \EFI\tempo\tempo.conf (format in
# boot/efi/efiboot.h), loads the hypervisor and its modules and calls the
# hypervisor's 64-bit entry. build/esp.img is a FAT ESP with the loader, the
# hypervisor and the same config and guests as the ISO.
EFI_LOADER	:= $(BUILD)/BOOTX64.EFI
ESP_IMG		:= $(BUILD)/esp.img
EFI_OBJ		:= $(BUILD)/efi/obj
EFI_C_SRCS	:= boot/efi/loader.c boot/efi/efiboot.c hv/core/elf.c hv/lib/fmt.c hv/lib/lib.c \
		   hv/lib/uart16550.c
EFI_OBJS	:= $(patsubst %.c,$(EFI_OBJ)/%.o,$(EFI_C_SRCS))
GNU_EFI_LIB	:= /usr/lib
# GNU-EFI's flags (../shared/EMULATORS.md) plus ours. GNU_EFI_USE_MS_ABI makes
# firmware calls plain calls through ms_abi pointers; efi_main stays SysV.
EFI_CFLAGS	:= -std=gnu11 -O2 -g -I/usr/include/efi -I/usr/include/efi/x86_64 -I. -fpic \
		   -ffreestanding -fno-builtin -fno-stack-protector -fshort-wchar -mno-red-zone \
		   -maccumulate-outgoing-args -mgeneral-regs-only -fno-asynchronous-unwind-tables \
		   -DGNU_EFI_USE_MS_ABI -DTEMPO_VERSION='"$(VERSION)"' -Wall -Wextra -Werror -MMD -MP
EFI_LDFLAGS	:= -nostdlib -znocombreloc -shared -Bsymbolic -T $(GNU_EFI_LIB)/elf_x86_64_efi.lds
EFI_SECTIONS	:= .text .sdata .data .rodata .dynamic .dynsym .rel .rela .rel.* .rela.* .reloc
ESP_TEST_IMGS	:= $(BUILD)/test/esp-missing.img

efi: $(EFI_LOADER)	## Build the UEFI loader (build/BOOTX64.EFI) that boots Tempo without GRUB

esp: $(ESP_IMG)	## Build a FAT ESP image (build/esp.img): BOOTX64.EFI, Tempo, demo config, guests

$(EFI_OBJ)/%.o: %.c
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  CC EFI  $<")
	$(Q)$(CC) $(EFI_CFLAGS) -c $< -o $@

$(EFI_LOADER): $(EFI_OBJS)
	@$(if $(Q),echo "  EFI     $@")
	$(Q)$(LD) $(EFI_LDFLAGS) $(GNU_EFI_LIB)/crt0-efi-x86_64.o $(EFI_OBJS) \
		-L$(GNU_EFI_LIB) -lefi -lgnuefi -o $(BUILD)/efi/loader.so
	$(Q)$(OBJCOPY) $(foreach s,$(EFI_SECTIONS),-j '$(s)') --target efi-app-x86_64 \
		--subsystem=10 $(BUILD)/efi/loader.so $@

$(ESP_IMG): $(EFI_LOADER) $(HV_ELF) $(GUEST_ELFS) boot/mkesp.sh $(DEMO_CFG)
	@echo "  ESP     $@"
	$(Q)boot/mkesp.sh $@ $(EFI_LOADER) $(HV_ELF) "$(ISO_CMDLINE)" $(DEMO_CFG):partitions \
		$(GUEST_MODULES)

# The loader's error path: tempo.conf names a file that is not there.
$(BUILD)/test/esp-missing.img: $(EFI_LOADER) $(HV_ELF) boot/mkesp.sh
	@echo "  ESP     $@"
	$(Q)boot/mkesp.sh --missing nothere.cfg --shutdown $@ $(EFI_LOADER) $(HV_ELF) "exit=emu"

test-images: $(ESP_IMG) $(ESP_TEST_IMGS)

-include $(EFI_OBJS:.o=.d)
# ---- end of the UEFI block ----

-include $(HV_OBJS:.o=.d)

# tests/layering/calls.py reads these
print-%:
	@echo '$($*)'
