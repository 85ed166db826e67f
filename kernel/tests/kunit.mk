# SPDX-License-Identifier: GPL-2.0
# KUnit test modules: make kunit KDIR=<kernel tree> MODOUT=<dir>.
# Built only for a kernel with CONFIG_KUNIT=y (the bench's debug kernel,
# Documentation/debug-kernel.rst) into $(MODOUT)/kunit/; for any other
# kernel the target quietly removes a stale $(MODOUT)/kunit/ and does
# nothing else, so `make module kunit` suits every bench kernel.
# The sources are linked into $(MODOUT)/kunit/, as kernel/module.mk does
# for npu.ko, so the objects never mix with npu.ko's.
KUNIT_OUT = $(MODOUT)/kunit
KUNIT_SRCS := kernel/tests/npu_mmu_test.c kernel/npu_mmu.c kernel/npu_mmu.h

.PHONY: kunit
kunit:
	@test -d "$(KDIR)" || { echo "kunit: no kernel tree at KDIR=$(KDIR)" >&2; exit 1; }
	@if ! grep -qx 'CONFIG_KUNIT=y' "$(KDIR)/.config" 2>/dev/null; then \
		rm -rf "$(KUNIT_OUT)"; \
	else \
		mkdir -p "$(KUNIT_OUT)/kernel/tests" && \
		ln -sfn "$(CURDIR)/kernel/tests/Kbuild" "$(KUNIT_OUT)/Kbuild" && \
		for f in $(KUNIT_SRCS); do ln -sfn "$(CURDIR)/$$f" "$(KUNIT_OUT)/$$f"; done && \
		$(MAKE) -C "$(KDIR)" M="$(KUNIT_OUT)" $(if $(W),W=$(W)) modules; \
	fi
