# SPDX-License-Identifier: GPL-2.0
# tools/tools.mk - make tools: npu-smi (build/tools/npu-smi) over libnl-3
# and libnl-genl-3. tools/npu_smi_module.c (the `module` subcommands, over
# libkmod) is linked in when it exists; without it a weak stub answers.

TOOLS_OUT	?= $(BUILD)/tools
NPU_SMI		:= $(TOOLS_OUT)/npu-smi
NPU_SMI_SRCS	:= tools/npu_smi.c $(wildcard tools/npu_smi_module.c)
NPU_SMI_PKGS	:= libnl-3.0 libnl-genl-3.0 $(if $(wildcard tools/npu_smi_module.c),libkmod)
NPU_SMI_CFLAGS	:= -std=gnu11 -O2 -g -Wall -Wextra -Werror -D_GNU_SOURCE -Iinclude -Itools \
		   $(shell pkg-config --cflags $(NPU_SMI_PKGS))
NPU_SMI_LIBS	:= $(shell pkg-config --libs $(NPU_SMI_PKGS))

.PHONY: tools
tools: $(NPU_SMI)

$(NPU_SMI): $(NPU_SMI_SRCS) tools/npu_smi.h include/uapi/npu.h include/uapi/npu_netlink.h
	@mkdir -p $(@D)
	$(CC) $(NPU_SMI_CFLAGS) -o $@ $(NPU_SMI_SRCS) $(NPU_SMI_LIBS)

# tests/npu_smi_test and npu_kmod_test run it in the guest (tools/vm-run puts
# build/tools/* into /usr/bin).
tests: tools
