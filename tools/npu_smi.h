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

/* Exit codes of every npu-smi command, for scripts (npu-smi(1)). */
enum {
	NPU_SMI_EXIT_OK		= 0,
	NPU_SMI_EXIT_ERROR	= 1,	/* anything else */
	NPU_SMI_EXIT_USAGE	= 2,	/* bad command line */
	NPU_SMI_EXIT_PERM	= 3,	/* not permitted (not root, not CAP_NET_ADMIN) */
	NPU_SMI_EXIT_BUSY	= 4,	/* the module is in use */
	NPU_SMI_EXIT_BADPARAM	= 5,	/* the kernel refused a module parameter */
	NPU_SMI_EXIT_NOENT	= 6,	/* no such device, module or driver not loaded */
	NPU_SMI_EXIT_EXIST	= 7,	/* the module is loaded already */
};

#endif /* NPU_SMI_H */
