// SPDX-License-Identifier: GPL-2.0
/*
 * npu: the one place the tracepoints of npu_trace.h are instantiated.
 */
#define CREATE_TRACE_POINTS
#include "npu_trace.h"
