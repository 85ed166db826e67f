# SPDX-License-Identifier: GPL-2.0
# tests/tests.mk - every tests/*.c is one test program, build/tests/<name>,
# built against include/ and tests/harness.h, and linked with -lacl from
# build/lib when libacl exists (lib/lib.mk). tests/lib_*.c and
# tests/header_*.c are built by lib/lib.mk (make lib-tests), which
# `make tests` includes.

TEST_OUT	?= $(BUILD)/tests
TEST_SRCS	:= $(filter-out tests/lib_%.c tests/header_%.c,$(wildcard tests/*.c))
TEST_BINS	:= $(patsubst tests/%.c,$(TEST_OUT)/%,$(TEST_SRCS))
TEST_CFLAGS	:= -std=gnu11 -O2 -g -Wall -Wextra -Werror -D_GNU_SOURCE -pthread \
		   -Iinclude -Itests $(TEST_EXTRA_CFLAGS)
TEST_HDRS	:= $(wildcard tests/*.h include/acl/*.h include/acl/error_codes/*.h include/uapi/*.h)

ifneq ($(wildcard lib/lib.mk),)
TEST_LIB_DEP	:= $(LIB_OUT)/libacl.so
TEST_LDLIBS	:= -L$(LIB_OUT) -Wl,-rpath,'$$ORIGIN/../lib' -lacl -pthread
TEST_EXTRA	:= lib-tests
else
TEST_LIB_DEP	:=
TEST_LDLIBS	:= -pthread
TEST_EXTRA	:=
endif

.PHONY: tests
tests: $(TEST_BINS) $(TEST_EXTRA)

$(TEST_BINS): $(TEST_OUT)/%: tests/%.c $(TEST_HDRS) $(TEST_LIB_DEP)
	@mkdir -p $(@D)
	$(CC) $(TEST_CFLAGS) -o $@ $< $(TEST_LDLIBS)
