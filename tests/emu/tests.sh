# SPDX-License-Identifier: MIT
# The emulator tests, one file per subject beside this one, and the lists that
# say which tests/run_tests.sh runs and in what order. Sourced by
# tests/emu/one.sh, which runs one test, and by tests/run_tests.sh for the
# lists. Each test_NAME gets an output
# directory, boots an image through tests/emu/run.sh (which checks the exit
# status and the TEMPO_EXIT marker) and then checks what the hypervisor
# printed. A test prints why it failed and returns non-zero.

EMU_TESTS="bochs_1cpu bochs_4cpu bochs_ips_20m bochs_pit bochs_cpuid15_mismatch bochs_no_x2apic bochs_fault
	qemu_bios qemu_uefi qemu_ud qemu_many_cpus qemu_reboot_no_vmx qemu_reboot_fadt
	bochs_partitions bochs_stall_guard bochs_stop_oob bochs_stop_triple bochs_stop_vmxon bochs_bad_syntax
	bochs_bad_cpu bochs_all_cpus bochs_console_cut bochs_reboot_after_end bochs_reboot_bad_config
	bochs_reboot_from_monitor bochs_halt_after_end
	bochs_timer_direct bochs_timer_inject bochs_timer_emulated
	bochs_attacks_direct bochs_attacks_emulated bochs_shared bochs_shared_attacks bochs_pv_lazy
	bochs_watchdog bochs_hv_fault bochs_restart bochs_console_input bochs_console_busy
	bochs_console_gives_up
	bochs_channel bochs_channel_edge bochs_channel_shared bochs_channel_restart bochs_channel_pci
	bochs_testdev bochs_xapic bochs_high_mem bochs_console_drop bochs_apicv bochs_posted_soft bochs_many_vcpus
	bochs_fidelity
	bochs_dev_pci_enum qemu_dev_pci_ecam qemu_esp qemu_esp_missing
	qemu_iommu_dma qemu_iommu_ir bochs_dev_bad_assign bochs_dev_com2 bochs_dev_com2_gives_up
	bochs_dev_hpet bochs_dev_hpet_shared"
# RAM past Bochs' 2 GiB of host memory, which Bochs swaps to a file: run
# only with EMU_LARGE=1 or by name (tests/run_tests.sh emu bochs_large_mem),
# first, so that it takes one core while the other runs the rest. On the
# current image Bochs 2.7 runs wild right after Tempo's zeroing of the 4,200
# MiB partition ends (tests/emu/memory.sh says what was measured).
EMU_LARGE_TEST=bochs_large_mem
# Each names its own CPU model (the feature it tests is that model's), or
# tests the harness, not the CPU: the CPU-model matrix does not run them
# again under another model's name.
EMU_PINNED="bochs_cpuid15_mismatch bochs_no_x2apic bochs_apicv bochs_posted_soft bochs_stall_guard
	bochs_console_gives_up bochs_dev_com2_gives_up"
# its users match " $EMU_PINNED " against " NAME ": spaces only
EMU_PINNED=${EMU_PINNED//[$'\t\n']/ }

# The subjects (tests/emu/linux.sh, which needs the Linux images, is sourced
# apart). lib.sh first: the others use its helpers.
EMU_SUBJECTS="lib platform devices partitions console timer shared channels memory apic"
for emu_subject in $EMU_SUBJECTS; do
	# shellcheck source=/dev/null
	. "$(dirname "${BASH_SOURCE[0]}")/$emu_subject.sh"
done
unset emu_subject
