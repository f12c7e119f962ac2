// SPDX-License-Identifier: MIT
/* halted_forever: which vCPU states wake no more, and when a partition is stuck. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "arch/x86/vmx_defs.h"
#include "hv/core/halt.h"

static void test_vcpu(void **state)
{
	(void)state;
	/* the constants are the VMCS's own */
	assert_int_equal(HALT_ACTIVITY_HLT, ACTIVITY_HLT);
	assert_int_equal(HALT_INTR_INFO_VALID, INTR_INFO_VALID);
	assert_true(halt_vcpu_forever(ACTIVITY_HLT, 0x2, 0));
	assert_true(halt_vcpu_forever(ACTIVITY_HLT, 0x46, 0));
	/* sti; hlt: an interrupt wakes it */
	assert_false(halt_vcpu_forever(ACTIVITY_HLT, 0x202, 0));
	/* running with IF = 0 (a spin): the preemption timer bounds it, not our case */
	assert_false(halt_vcpu_forever(ACTIVITY_ACTIVE, 0x2, 0));
	/* an event queued for injection ends the HLT at the next entry */
	assert_false(halt_vcpu_forever(ACTIVITY_HLT, 0x2, INTR_INFO_VALID | 0x20));
	/* shutdown and wait-for-SIPI are not HLT */
	assert_false(halt_vcpu_forever(2, 0x2, 0));
	assert_false(halt_vcpu_forever(3, 0x2, 0));
}

static void test_partition(void **state)
{
	/* Linux power-off: APs parked with cli; hlt, the boot CPU goes on */
	const enum halt_view poweroff[] = { HALT_LIVE, HALT_FOREVER, HALT_FOREVER, HALT_FOREVER };
	const enum halt_view all[] = { HALT_FOREVER, HALT_FOREVER };
	const enum halt_view asleep[] = { HALT_FOREVER, HALT_ASLEEP, HALT_ASLEEP };
	const enum halt_view gone[] = { HALT_GONE, HALT_FOREVER };
	const enum halt_view none[] = { HALT_GONE, HALT_ASLEEP };
	const enum halt_view last_live[] = { HALT_FOREVER, HALT_FOREVER, HALT_LIVE };

	(void)state;
	assert_false(halt_partition_forever(poweroff, 4));
	assert_false(halt_partition_forever(last_live, 3));
	assert_true(halt_partition_forever(last_live, 2));
	assert_true(halt_partition_forever(all, 2));
	assert_true(halt_partition_forever(all, 1));
	/* APs nobody started cannot wake it either */
	assert_true(halt_partition_forever(asleep, 3));
	assert_true(halt_partition_forever(gone, 2));
	/* nothing halted: nothing for this check to report */
	assert_false(halt_partition_forever(none, 2));
	assert_false(halt_partition_forever(all, 0));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_vcpu),
		cmocka_unit_test(test_partition),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
