/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tools/npu_smi.h - what the parts of npu-smi share.
 */
#ifndef NPU_SMI_H
#define NPU_SMI_H

/*
 * `npu-smi module ...` (tools/npu_smi_module.c, over libkmod): @argc and
 * @argv start at "module". Returns npu-smi's exit code (npu-smi(1)).
 * npu_smi.c has a weak stand-in for builds without that file.
 */
int npu_smi_module(int argc, char **argv);

#endif /* NPU_SMI_H */
