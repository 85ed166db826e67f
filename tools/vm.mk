# SPDX-License-Identifier: GPL-2.0
# tools/vm.mk - the test bench targets (QEMU guests of the bench kernels).
#
#   make deps        tools/install-deps
#   make modules     npu.ko for every bench kernel: build/<kernel>/module/npu.ko
#   make check       install-deps, build everything, boot each kernel, run
#                    tests/run-tests; last line "N passed, M failed, K skipped"
#   make stress      tests/npu_stress_test for STRESS_SECONDS (default 300) in
#                    a VM of each kernel, one after the other
#   make demo        boot the newest kernel and run build/tools/npu-demo
#   make bench       the benchmarks (tools/bench/bench.mk: bench-vm)
#   make checkpatch  checkpatch.pl --strict --no-tree on the kernel sources,
#                    then tools/uapi-doc-check (kernel-doc of the uapi)
#   make sparse      npu.ko with C=2 (sparse) for every bench kernel
#
# Variables: KERNELS, VM_MEM, VM_ACCEL, VM_TCG_THREAD, VM_TIMEOUT, VM_DEBUG_SCALE,
# NPU_CACHE, NPU_PARAMS (all passed through the environment to the tools);
# STRESS_SECONDS and NPU_STRESS_SEED, NPU_STRESS_PROCS, NPU_STRESS_THREADS for
# `make stress`.

export KERNELS VM_MEM VM_ACCEL VM_TCG_THREAD VM_TIMEOUT VM_DEBUG_SCALE NPU_CACHE NPU_PARAMS

TOOLS_OUT	:= $(BUILD)/tools
# The Debian (`deb`) kernels of tools/kernels.list: what `make demo` and the
# benchmarks need installed (not the debug kernel, which takes 25 minutes and
# more to build).
DEB_KERNELS	:= $(shell awk '$$1 !~ /^\#/ && $$2 == "deb" { printf "%s ", $$1 }' tools/kernels.list)
TOOLS_CFLAGS	:= -std=gnu11 -O2 -g -Wall -Wextra -Werror -D_GNU_SOURCE -pthread -Iinclude -Itests
TOOLS_LDLIBS	:= -L$(BUILD)/lib -Wl,-rpath,'$$ORIGIN/../lib' -lacl -pthread -lm

# `make check` failing must still end with the summary line: GNU make would
# print its own "*** [check] Error 1" after it, so a failed check ends make
# with SIGPIPE (exit status 141, which no shell reports) instead.
define end_make_quietly
{ st=$$?; case "$$(cat /proc/$$PPID/comm 2>/dev/null)" in *make*) kill -PIPE $$PPID;; esac; exit $$st; }
endef

.PHONY: deps modules check stress demo demo-build bench checkpatch sparse

deps:
	@tools/install-deps

modules:
	@tools/kernels | while read -r name kver vmlinuz hdrs mods; do \
		echo "modules: $$name ($$kver)"; \
		$(MAKE) --no-print-directory module KDIR=$$hdrs MODOUT=$(CURDIR)/$(BUILD)/$$name/module || exit 1; \
	done

check:
	@tools/install-deps
	@tools/check || $(end_make_quietly)

# The stress test's long run (make check runs a 20 s one on the debug kernel
# only). vm-run's timeout, multiplied by VM_DEBUG_SCALE on the debug kernel,
# leaves room for the boot, the end of the workers and the checks.
STRESS_SECONDS	?= 300
STRESS_ENV	:= --env NPU_STRESS_SECONDS=$(STRESS_SECONDS) \
		   $(foreach v,NPU_STRESS_SEED NPU_STRESS_PROCS NPU_STRESS_THREADS,$(if $($(v)),--env $(v)=$($(v))))

stress:
	@tools/install-deps
	@$(MAKE) --no-print-directory lib tests
	@tools/vm-run --timeout $$(( $(STRESS_SECONDS) + 600 )) $(STRESS_ENV) -- run-tests npu_stress_test

$(TOOLS_OUT)/npu-demo: tools/demo.c $(TEST_HDRS) $(TEST_LIB_DEP)
	@mkdir -p $(@D)
	$(CC) $(TOOLS_CFLAGS) -o $@ $< $(TOOLS_LDLIBS)

demo-build:
	@test -f tools/demo.c || { echo "demo: tools/demo.c is not written yet" >&2; exit 1; }
	@set -- $$(tools/kernels --newest) && \
		$(MAKE) --no-print-directory module KDIR=$$4 MODOUT=$(CURDIR)/$(BUILD)/$$1/module
	@$(MAKE) --no-print-directory lib $(TOOLS_OUT)/npu-demo

demo:
	@KERNELS="$${KERNELS:-$(DEB_KERNELS)}" tools/install-deps
	@$(MAKE) --no-print-directory demo-build
	@tools/vm-run --no-build -k "$$(tools/kernels --newest | cut -d' ' -f1)" -- $(TOOLS_OUT)/npu-demo

# The benchmarks themselves live in tools/bench/bench.mk (bench-progs,
# bench-vm: tools/bench/run-bench boots each kernel with vm-run --vfio).
ifneq ($(wildcard tools/bench/bench.mk),)
bench: bench-vm
else
bench:
	@echo "bench: tools/bench/bench.mk is not written yet" >&2; exit 1
endif

# checkpatch --strict on the module and the uapi headers, then what a
# Sphinx build of Documentation/uapi.rst would need of them
# (tools/uapi-doc-check: kernel-doc -Wall, the directives resolve).
checkpatch:
	@tools/checkpatch $(wildcard kernel/*.c kernel/*.h kernel/tests/*.c include/uapi/*.h)
	@tools/uapi-doc-check

sparse:
	@mkdir -p $(BUILD); tools/kernels | { rc=0; while read -r name kver vmlinuz hdrs mods; do \
		echo "sparse: $$name ($$kver)"; \
		$(MAKE) --no-print-directory module KDIR=$$hdrs MODOUT=$(CURDIR)/$(BUILD)/$$name/module C=2 \
			2>&1 | tee $(BUILD)/sparse-$$name.log; \
		if grep -E ': (warning|error):' $(BUILD)/sparse-$$name.log | grep -v '^make' >/dev/null; then \
			echo "sparse: $$name: warnings, see $(BUILD)/sparse-$$name.log"; rc=1; fi; \
	done; exit $$rc; }
