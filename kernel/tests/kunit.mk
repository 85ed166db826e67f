# SPDX-License-Identifier: GPL-2.0
# KUnit test modules: make kunit KDIR=<kernel tree> MODOUT=<dir>.
# Built only for a kernel with CONFIG_KUNIT=y (the bench's debug kernel,
# Documentation/debug-kernel.rst) into $(MODOUT)/kunit/; for any other
# kernel the target quietly removes a stale $(MODOUT)/kunit/ and does
# nothing else, so `make module kunit` suits every bench kernel.
# The sources are linked into $(MODOUT)/kunit/, as kernel/module.mk does
# for npu.ko, so the objects never mix with npu.ko's.
#
# `make kunit` also builds, for every kernel, the modules tests load
# themselves (test-kmod): npu_test_exporter.ko, a dma-buf exporter that
# moves its buffers (kernel/tests/npu_test_exporter.c), into
# $(MODOUT)/testkmod/, with compile probes of its own (conftest.sh), so
# it does not wait for npu.ko's. tools/vm-run puts it in the guest as
# /lib/npu/npu_test_exporter.ko. Never installed.
KUNIT_OUT = $(MODOUT)/kunit
KUNIT_SRCS := kernel/tests/npu_mmu_test.c kernel/npu_mmu.c kernel/npu_mmu.h \
	      kernel/tests/npu_reduce_test.c kernel/npu_reduce.c kernel/npu_reduce.h \
	      kernel/tests/npu_random_test.c kernel/npu_random.c kernel/npu_random.h \
	      kernel/tests/npu_engine_kunit.c \
	      kernel/tests/npu_obj_test.c kernel/npu_obj.c kernel/npu_obj.h \
	      kernel/npu_float.c kernel/npu_float.h \
	      include/uapi/npu.h

.PHONY: kunit test-kmod
kunit: test-kmod
	@test -d "$(KDIR)" || { echo "kunit: no kernel tree at KDIR=$(KDIR)" >&2; exit 1; }
	@if ! grep -qx 'CONFIG_KUNIT=y' "$(KDIR)/.config" 2>/dev/null; then \
		rm -rf "$(KUNIT_OUT)"; \
	else \
		mkdir -p "$(KUNIT_OUT)/kernel/tests" "$(KUNIT_OUT)/include/uapi" && \
		ln -sfn "$(CURDIR)/kernel/tests/Kbuild" "$(KUNIT_OUT)/Kbuild" && \
		for f in $(KUNIT_SRCS); do ln -sfn "$(CURDIR)/$$f" "$(KUNIT_OUT)/$$f"; done && \
		$(MAKE) -C "$(KDIR)" M="$(KUNIT_OUT)" $(if $(W),W=$(W)) modules; \
	fi

TESTKMOD_OUT = $(MODOUT)/testkmod
TESTKMOD_SRCS := kernel/tests/npu_test_exporter.c kernel/npu_compat.h \
		 tests/npu_test_exporter.h

test-kmod:
	@test -d "$(KDIR)" || { echo "test-kmod: no kernel tree at KDIR=$(KDIR)" >&2; exit 1; }
	@mkdir -p "$(TESTKMOD_OUT)"
	@ln -sfn "$(CURDIR)/kernel/tests/testkmod.Kbuild" "$(TESTKMOD_OUT)/Kbuild"
	@for f in $(TESTKMOD_SRCS); do ln -sfn "$(CURDIR)/$$f" "$(TESTKMOD_OUT)/$${f##*/}"; done
	@if [ ! -f $(TESTKMOD_OUT)/npu_conftest.h ] || \
	    [ "$$(cat $(TESTKMOD_OUT)/.kdir 2>/dev/null)" != "$(realpath $(KDIR))" ] || \
	    [ kernel/conftest.sh -nt $(TESTKMOD_OUT)/npu_conftest.h ]; then \
		sh kernel/conftest.sh $(KDIR) $(TESTKMOD_OUT)/npu_conftest.h && \
		echo "$(realpath $(KDIR))" > $(TESTKMOD_OUT)/.kdir; fi
	$(MAKE) -C "$(KDIR)" M="$(TESTKMOD_OUT)" $(if $(W),W=$(W)) $(if $(C),C=$(C)) modules
