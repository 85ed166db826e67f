# SPDX-License-Identifier: GPL-2.0
# tools/bench/bench.mk - the benchmarks (Documentation/benchmarks.rst).
# Included by the top-level Makefile, whose `bench` target runs bench-vm.
#
#   make bench-progs   build/bench/bin/bench_* (needs libacl; bench_kernel
#                      also npu-aicore and its kernels, through npu-cc)
#   make bench-vm      install-deps, libacl, the programs, then
#                      tools/bench/run-bench: one VM boot per kernel (with a
#                      vfio-pci device, BENCH_VM_MEM of guest RAM) running
#                      every program; logs, ratios and the copy plots go to
#                      build/bench/
#   make bench-plot    redo build/bench/*.png and the summary from the logs
#
# Variables (environment or command line):
#   BENCH_KERNELS   kernels to boot (default: the Debian kernels of tools/kernels.list)
#   BENCH_VM_MEM    guest RAM (default 14G: bench_pin registers 8 GiB)
#   BENCH_TIMEOUT   seconds per VM (default 2400)
#   BENCH_QUICK=1   smaller runs (about a minute per kernel), for smoke tests

BENCH_DIR	:= tools/bench
BENCH_OUT	:= $(BUILD)/bench/bin
BENCH_PROGS	:= $(patsubst $(BENCH_DIR)/%.c,$(BENCH_OUT)/%,$(wildcard $(BENCH_DIR)/bench_*.c))
BENCH_HDRS	:= tests/npu_proc.h $(wildcard $(BENCH_DIR)/*.h include/acl/*.h include/acl/error_codes/*.h include/uapi/*.h)
BENCH_CFLAGS	:= -std=gnu11 -O2 -g -Wall -Wextra -Werror -D_GNU_SOURCE -pthread -Iinclude -Itests
BENCH_LDLIBS	:= -L$(BUILD)/lib -Wl,-rpath,'$$ORIGIN/../../lib' -lacl -pthread -lm

export BENCH_KERNELS BENCH_VM_MEM BENCH_TIMEOUT BENCH_QUICK

.PHONY: bench-progs bench-vm bench-plot

$(BENCH_PROGS): $(BENCH_OUT)/%: $(BENCH_DIR)/%.c $(BENCH_HDRS) $(BUILD)/lib/libacl.so
	@mkdir -p $(@D)
	$(CC) $(BENCH_CFLAGS) -o $@ $< $(BENCH_LDLIBS)

# Programs with AI-core kernels: tools/bench/bench_P_kern.cpp through
# npu-cc (lib/lib.mk's NPUCC_NPUBIN) into build/bench/kern/bench_P.npubin,
# which bench_P.c embeds with .incbin (BENCH_NPUBIN names it): the guest
# needs nothing more than the program, libacl and the executor npu-aicore
# beside it (tools/mkinitramfs -L: /usr/lib/npu/npu-aicore).
BENCH_KERN	:= $(BUILD)/bench/kern
BENCH_KPROGS	:= $(patsubst $(BENCH_DIR)/%_kern.cpp,$(BENCH_OUT)/%,$(wildcard $(BENCH_DIR)/bench_*_kern.cpp))

$(BENCH_KERN)/%.npubin: $(BENCH_DIR)/%_kern.cpp $(BENCH_DIR)/bench_kern.h $(LIB_NPUCC_DEPS)
	$(NPUCC_NPUBIN)

$(BENCH_KPROGS): $(BENCH_OUT)/%: $(BENCH_KERN)/%.npubin $(AICORE)
$(BENCH_KPROGS): BENCH_CFLAGS += -DBENCH_NPUBIN='"$(abspath $(BENCH_KERN)/$(notdir $@).npubin)"'

bench-progs: $(BENCH_PROGS)

# The same programs for make check's smoke run (tests/bench_smoke_test.c):
# the guest gets build/tests/bench/ as /tests/bench/.
TEST_BENCH	:= $(patsubst $(BENCH_OUT)/%,$(TEST_OUT)/bench/%,$(BENCH_PROGS))
$(TEST_BENCH): $(TEST_OUT)/bench/%: $(BENCH_OUT)/%
	@mkdir -p $(@D)
	cp $< $@
tests: $(TEST_BENCH)

bench-vm: bench-progs
	@KERNELS="$${BENCH_KERNELS:-$(DEB_KERNELS)}" tools/install-deps
	@$(BENCH_DIR)/run-bench $(BENCH_PROGS)

bench-plot:
	@$(BENCH_DIR)/run-bench --plot-only
