# SPDX-License-Identifier: GPL-2.0
#
# npu - top-level Makefile. `make help` lists the targets.
#
# The pieces live in included makefiles:
#   kernel/module.mk   make module KDIR=<headers> MODOUT=<dir>   (npu.ko)
#   kernel/tests/kunit.mk  make kunit KDIR=<tree> MODOUT=<dir>   (KUnit modules)
#   lib/lib.mk         make lib                                    (libacl)
#   tests/tests.mk     make tests                                  (build/tests/*)
#   tools/vm.mk        check, stress, demo, bench, checkpatch, sparse, deps, modules
#   tools/bench/bench.mk  bench-progs, bench-vm (make bench)
#   tools/tools.mk     make tools: npu-smi, libdcmi (tools/dcmi/dcmi.mk: dcmi-install)
#   tools/install.mk   smi-, udev-, modprobe-, man-install (make install), install-check
#   tools/cann/cann.mk cann-install: npu-cc, setenv.bash, tikcpp/, lib64/ (make install)

.DEFAULT_GOAL := all

ROOT := $(patsubst %/,%,$(dir $(abspath $(lastword $(MAKEFILE_LIST)))))
ifneq ($(ROOT),$(CURDIR))
$(error run make in the repository root ($(ROOT)), e.g. make -C $(ROOT) ...)
endif

BUILD := build

ifneq ($(wildcard kernel/module.mk),)
include kernel/module.mk
else
.PHONY: module
module:
	@echo "module: kernel/module.mk does not exist yet (the kernel part is not written)" >&2; exit 1
endif

ifneq ($(wildcard lib/lib.mk),)
include lib/lib.mk
include aicore/aicore.mk
else
.PHONY: lib
lib:
	@echo "lib: lib/lib.mk does not exist yet: no libacl, skipped"
endif

ifneq ($(wildcard kernel/tests/kunit.mk),)
include kernel/tests/kunit.mk
endif
include tests/tests.mk
include tools/vm.mk
include tools/tools.mk
include tools/install.mk
include tools/cann/cann.mk
ifneq ($(wildcard tools/bench/bench.mk),)
include tools/bench/bench.mk
endif

.PHONY: all clean help install uninstall
all: module lib tests tools

# make install / make uninstall: DESTDIR, PREFIX (default /usr/local) and
# the directories under it (LIBDIR, INCLUDEDIR, DATADIR). Each part adds
# its own <part>-install and <part>-uninstall here.
INSTALL_PARTS := $(if $(wildcard lib/lib.mk),lib) cann smi dcmi udev modprobe man
install: $(addsuffix -install,$(INSTALL_PARTS))
uninstall: $(addsuffix -uninstall,$(INSTALL_PARTS))

clean:
	rm -rf $(BUILD)

help:
	@echo "npu make targets:"
	@echo "  all         npu.ko (running kernel), libacl, tests"
	@echo "  module      npu.ko for KDIR=<headers> (default: running kernel) into MODOUT="
	@echo "  modules     npu.ko for every bench kernel into build/<kernel>/module/"
	@echo "  kunit       KUnit test modules for KDIR= (CONFIG_KUNIT=y only) into MODOUT=/kunit/"
	@echo "  lib         libacl into build/lib/"
	@echo "  tests       every tests/*.c into build/tests/"
	@echo "  vendor-examples  the vendor's runtime examples (hicann/runtime, NPU_VENDOR_RUNTIME=checkout"
	@echo "              or git dir, else a clone) built against libacl into build/tests/vendor/"
	@echo "  npucc-check  host-only checks of npu-cc and kernel_operator.h (tools/npucc-check;"
	@echo "              the vendor's kernel sources from NPU_VENDOR_RUNTIME, else skipped)"
	@echo "  tools       npu-smi into build/tools/ (libnl-3, libnl-genl-3, libkmod), libdcmi into build/lib/"
	@echo "  install     libacl, its link names, headers, acl.pc, npu-aicore; npu-cc, setenv.bash, tikcpp/"
	@echo "              (ascendc.cmake, kernel_operator.h), lib64/ links; npu-smi, libdcmi, its header and"
	@echo "              dcmi.pc, the udev rule, a modprobe.d example, man pages (DESTDIR= PREFIX=/usr/local;"
	@echo "              tools/install.mk, tools/cann/cann.mk); uninstall"
	@echo "  install-check   make install into a scratch DESTDIR: layout, pkg-config, uninstall"
	@echo "  deps        tools/install-deps (packages, bench kernels)"
	@echo "  check       build all, boot each bench kernel, run the tests (make check)"
	@echo "  stress      the concurrency stress test, STRESS_SECONDS=300, on each bench kernel"
	@echo "  demo        boot the newest kernel and run build/tools/npu-demo"
	@echo "  bench       the benchmarks in a VM per kernel (tools/bench/bench.mk)"
	@echo "  checkpatch  scripts/checkpatch.pl --strict on kernel/ and include/uapi/, tools/uapi-doc-check"
	@echo "  sparse      module build with C=2 for every bench kernel"
	@echo "  clean       remove build/"
	@echo "variables: KERNELS=\"6.1 6.12\" VM_MEM=6G VM_ACCEL=kvm VM_TCG_THREAD=single VM_TIMEOUT=600 NPU_CACHE=/var/cache/npu"
	@echo "run your own program in the VM: tools/vm-run -- ./prog [args]"
