// SPDX-License-Identifier: GPL-2.0
/*
 * npu_engine_kunit.ko: the KUnit suites of the engine's arithmetic, each
 * in its own file with its own copy of the code it tests (npu_reduce,
 * kernel/tests/npu_reduce_test.c; npu_random, npu_random_test.c), in one
 * module because they share kernel/npu_float.c.
 */
#include <linux/module.h>

MODULE_DESCRIPTION("KUnit tests of the npu engine's reduce and random arithmetic");
MODULE_LICENSE("GPL");
