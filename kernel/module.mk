# SPDX-License-Identifier: GPL-2.0
# Build npu.ko for one kernel: make module KDIR=<headers> MODOUT=<dir>.
# The sources are linked into MODOUT so that objects for different
# kernels never mix; the compile probes run once per MODOUT and KDIR.
KDIR ?= /lib/modules/$(shell uname -r)/build
MODOUT ?= $(CURDIR)/build/module
MODULE_SRCS := Kbuild $(wildcard kernel/*.c kernel/*.h) $(wildcard include/uapi/*.h)

.PHONY: module module-clean
module:
	@test -d "$(KDIR)" || { echo "module: no kernel headers at KDIR=$(KDIR)" >&2; exit 1; }
	@mkdir -p $(MODOUT)/kernel $(MODOUT)/include/uapi
	@for f in $(MODULE_SRCS); do ln -sfn $(CURDIR)/$$f $(MODOUT)/$$f; done
	@if [ ! -f $(MODOUT)/kernel/npu_conftest.h ] || \
	    [ "$$(cat $(MODOUT)/.kdir 2>/dev/null)" != "$(realpath $(KDIR))" ] || \
	    [ kernel/conftest.sh -nt $(MODOUT)/kernel/npu_conftest.h ]; then \
		sh kernel/conftest.sh $(KDIR) $(MODOUT)/kernel/npu_conftest.h && \
		echo "$(realpath $(KDIR))" > $(MODOUT)/.kdir; fi
	$(MAKE) -C $(KDIR) M=$(MODOUT) $(if $(W),W=$(W)) $(if $(C),C=$(C)) modules

module-clean:
	rm -rf $(MODOUT)
