# SPDX-License-Identifier: MIT
# The Linux test guest (guests/linux/README.md): a Debian PREEMPT_RT bzImage
# and a busybox + cyclictest initramfs, and its bare-metal run in Bochs.
# Included by the top-level Makefile; also works alone:
#   make -f guests/linux/linux.mk linux-image
# Nothing here is part of `all`: building the image downloads Debian packages.

LINUX_INCLUDED	:= $(filter-out 1,$(words $(MAKEFILE_LIST)))
LINUX_OLD_GOAL	:= $(.DEFAULT_GOAL)

BUILD		?= build
LINUX_DIR	?= $(BUILD)/linux
LINUX_BZIMAGE	:= $(LINUX_DIR)/bzImage
LINUX_INITRD	:= $(LINUX_DIR)/initrd.cpio.gz
LINUX_VMLINUX	:= $(LINUX_DIR)/vmlinux
LINUX_LOOPS	?= 1000
LINUX_CPUS	?= 1

.PHONY: linux-image linux-bare

linux-image: $(LINUX_BZIMAGE) $(LINUX_INITRD)	## Build build/linux/{bzImage,initrd.cpio.gz} from Debian packages

# One build.sh run makes both files (a grouped target, GNU make 4.3).
# The initramfs holds tempo_chan.ko and tempo-chan, built from these sources.
LINUX_CHAN_SRCS	:= guests/linux/Kbuild guests/linux/tempo_chan.c guests/linux/tempo_chan_uapi.h \
		   guests/linux/tempo_chan_tool.c hv/core/chan_pci_abi.h guests/common/chan_echo.h
$(LINUX_BZIMAGE) $(LINUX_INITRD) &: guests/linux/build.sh guests/linux/init.sh \
		guests/linux/tempo_stats.c hv/core/hypercall_abi.h $(LINUX_CHAN_SRCS)
	guests/linux/build.sh $(LINUX_DIR)

# The same kernel uncompressed, for Tempo to boot without the decompressor
$(LINUX_VMLINUX): $(LINUX_BZIMAGE) guests/linux/vmlinux.py
	python3 guests/linux/vmlinux.py $< $@

linux-bare: linux-image	## Boot the Linux guest bare metal in Bochs (cyclictest, LINUX_LOOPS=1000 LINUX_CPUS=1)
	tests/linux/bare.sh $(LINUX_DIR) --loops $(LINUX_LOOPS) --cpus $(LINUX_CPUS)

# Included from another makefile, do not take over its default goal.
ifneq ($(LINUX_INCLUDED),)
.DEFAULT_GOAL	:= $(LINUX_OLD_GOAL)
endif
