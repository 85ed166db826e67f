/* SPDX-License-Identifier: GPL-2.0 */
#ifndef NPU_SMI_H
#define NPU_SMI_H

/* `npu-smi module load|unload|status` (tools/npu_smi_module.c); argv[0] is "module". */
int npu_smi_module(int argc, char **argv);

#endif /* NPU_SMI_H */
