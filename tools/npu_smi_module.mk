# SPDX-License-Identifier: GPL-2.0
# tools/npu_smi_module.mk - `npu-smi module` (tools/npu_smi_module.c,
# libkmod through pkg-config), included by the top-level Makefile.
#
#   make npu-smi-module   build/tools/npu-smi-module: the module commands
#                         with a main of their own (tools/npu_smi_module_main.c),
#                         same command line as npu-smi (`... module load`).
#
# npu-smi itself (tools/npu_smi.c) links $(NPU_SMI_MODULE_OBJ) and uses
# $(KMOD_CFLAGS) / $(KMOD_LIBS).

KMOD_CFLAGS	:= $(shell pkg-config --cflags libkmod 2>/dev/null)
KMOD_LIBS	:= $(shell pkg-config --libs libkmod 2>/dev/null || echo -lkmod)
SMI_CFLAGS	:= -std=gnu11 -O2 -g -Wall -Wextra -Werror -Wshadow -Wmissing-prototypes \
		   -D_GNU_SOURCE -Itools $(KMOD_CFLAGS)
NPU_SMI_MODULE_OBJ := $(BUILD)/tools/obj/npu_smi_module.o

.PHONY: npu-smi-module
npu-smi-module: $(BUILD)/tools/npu-smi-module

$(BUILD)/tools/obj/%.o: tools/%.c tools/npu_smi.h
	@mkdir -p $(@D)
	$(CC) $(SMI_CFLAGS) -c -o $@ $<

$(BUILD)/tools/npu-smi-module: $(BUILD)/tools/obj/npu_smi_module_main.o $(NPU_SMI_MODULE_OBJ)
	$(CC) -o $@ $^ $(KMOD_LIBS)

# tests/npu_kmod_test runs it in the guest (tools/vm-run puts it in /usr/bin).
tests: npu-smi-module
