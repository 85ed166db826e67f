# SPDX-License-Identifier: GPL-2.0
# tools/tools.mk - make tools: npu-smi (build/tools/npu-smi) over libnl-3
# and libnl-genl-3, and libdcmi (tools/dcmi/dcmi.mk). tools/npu_smi_module.c
# (the `module` subcommands, over libkmod) is linked in when it exists;
# without it a weak stub answers.
#
# pkg-config runs in the recipe, not when make reads this file: `make demo`
# on a fresh machine reads it before tools/install-deps has installed libnl
# and libkmod, and must not print pkg-config's complaints about them.

TOOLS_OUT	?= $(BUILD)/tools
NPU_SMI		:= $(TOOLS_OUT)/npu-smi
NPU_SMI_SRCS	:= tools/npu_smi.c tools/npu_smi_info.c tools/npu_nl.c \
		   $(wildcard tools/npu_smi_module.c)
NPU_SMI_PKGS	:= libnl-3.0 libnl-genl-3.0 $(if $(wildcard tools/npu_smi_module.c),libkmod)
NPU_SMI_CFLAGS	:= -std=gnu11 -O2 -g -Wall -Wextra -Werror -D_GNU_SOURCE -Iinclude -Itools

.PHONY: tools
tools: $(NPU_SMI) dcmi

$(NPU_SMI): $(NPU_SMI_SRCS) tools/npu_smi.h tools/npu_nl.h include/uapi/npu.h \
	    include/uapi/npu_netlink.h
	@mkdir -p $(@D)
	$(CC) $(NPU_SMI_CFLAGS) $$(pkg-config --cflags $(NPU_SMI_PKGS)) -o $@ $(NPU_SMI_SRCS) \
		$$(pkg-config --libs $(NPU_SMI_PKGS))

include tools/dcmi/dcmi.mk

# The AI-core toolchain's host-only checks (tools/npucc-check: npu-cc's
# rewrite goldens, kernel sources built both ways, the CPU-debug and the
# host-launch tests under build/npucc/); make check runs it.
.PHONY: npucc-check
npucc-check:
	@tools/npucc-check

# tests/npu_smi_test, npu_kmod_test and dcmi_api_test run them in the guest
# (tools/vm-run puts build/tools/* into /usr/bin, build/lib/* into /usr/lib).
tests: tools
