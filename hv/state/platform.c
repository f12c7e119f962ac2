// SPDX-License-Identifier: MIT
/* Facts about the machine: found by the boot CPU (hv/start/main.c), read by everyone. */
#include "hv/state/platform.h"

struct platform platform;
struct spec_plan spec_plan;
struct xsave_plan xsave_plan;
bool hv_test_exit_fault;
