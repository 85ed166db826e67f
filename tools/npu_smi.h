/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tools/npu_smi.h - what the parts of npu-smi share.
 */
#ifndef NPU_SMI_H
#define NPU_SMI_H

#include <stdbool.h>
#include <stdint.h>

#include "npu_nl.h"

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
	NPU_SMI_EXIT_BUSY	= 4,	/* the module is in use, a reset is under way */
	NPU_SMI_EXIT_BADPARAM	= 5,	/* the kernel refused a module parameter */
	NPU_SMI_EXIT_NOENT	= 6,	/* no such device, module or driver not loaded */
	NPU_SMI_EXIT_EXIST	= 7,	/* the module is loaded already */
	NPU_SMI_EXIT_NOTSUP	= 8,	/* the simulated device has no such thing */
	NPU_SMI_EXIT_ABORTED	= 9,	/* not confirmed (set -t reset) */
};

/* The tool's version, "npu-smi -v" and the summary's first line. */
#define NPU_SMI_VERSION "1.13.0"

/* What the driver reports at one moment: devices and (optionally) contexts. */
struct smi_snap {
	struct npu_nl nl;
	struct npu_nl_dev *devs;
	int ndevs;
	struct npu_nl_proc *procs;
	int nprocs;
};

/*
 * Connect if not yet, then dump device @dev (or all when < 0) and, with
 * @procs, the contexts. Returns 0 or an exit code, having said why.
 */
int smi_snapshot(struct smi_snap *s, int64_t dev, bool procs);
void smi_snapshot_drop(struct smi_snap *s);	/* the data, not the socket */
/* The devices again after a window, with their utilisation (npu_nl_util_window). */
int smi_snapshot_util(struct smi_snap *s, int64_t dev);
void smi_snapshot_close(struct smi_snap *s);

/* Say what failed and map the kernel's -errno to an exit code. */
int smi_fail(const char *what, int err);

/* A non-negative decimal int; -1 if @s is not one. */
long smi_parse_uint(const char *s);

/* `npu-smi info ...` in the vendor tool's layouts (tools/npu_smi_info.c);
 * @argv starts at "info". */
int smi_info(int argc, char **argv);

#endif /* NPU_SMI_H */
