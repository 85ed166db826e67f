// SPDX-License-Identifier: GPL-2.0
/*
 * tools/npu_smi_module_main.c - build/tools/npu-smi-module, the module
 * commands on their own until npu-smi (tools/npu_smi.c) links
 * tools/npu_smi_module.c and dispatches `npu-smi module` to it. Takes the
 * same command line as npu-smi: npu-smi-module module load --devices 2.
 */
#include <stdio.h>
#include <string.h>

#include "npu_smi.h"

int main(int argc, char **argv)
{
	if (argc < 2 || strcmp(argv[1], "module")) {
		fprintf(stderr, "usage: %s module load|unload|status [options]\n", argv[0]);
		return 2;
	}
	return npu_smi_module(argc - 1, argv + 1);
}
