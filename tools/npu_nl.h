/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tools/npu_nl.h - a client of the driver's generic netlink family "npu"
 * (Documentation/netlink.rst), shared by npu-smi and libdcmi: the device
 * and process dumps, the counter reset and the fault events, plus what
 * both derive from them (health, error codes) and the few facts the
 * family does not carry but sysfs does (PCI ids, modeled core counts).
 *
 * No global state: each struct npu_nl is one socket, to be used by one
 * thread at a time. Functions return 0 or a negative errno.
 */
#ifndef NPU_NL_H
#define NPU_NL_H

#include <stdbool.h>
#include <stdint.h>

struct nl_sock;

struct npu_nl {
	struct nl_sock *sk;
	int family;
	int status;		/* the request in flight: 1 running, 0 done, -errno */
};

struct npu_nl_dev {
	uint32_t index, contexts, version, resets;
	uint64_t total, used, peak, page_sizes, faults;
	uint64_t busy_ns;	/* NPU_NL_A_DEV_BUSY_NS: the DMA engine's busy time */
	uint64_t sampled_ns;	/* CLOCK_MONOTONIC when busy_ns was read */
	int util;		/* %, set by npu_nl_util*(); -1: not measured */
	bool unplugged, resetting;
	char name[32], carrier[32], iommu[16], soc[64];
};

struct npu_nl_proc {
	uint32_t dev, pid, uid, mappings, reservations, streams, exported,
		 imported;
	uint64_t ctx_id, mem, pinned, memlock, faults;
	bool lost;		/* a device reset took the context down */
	char comm[32];
};

struct npu_nl_fault {
	uint32_t dev, pid, stream;
	uint64_t addr;
	bool write, host;	/* a write (else read); a host address (else VA) */
	char comm[32], reason[96];
};

/* Connect and resolve the family: -ENOENT when the driver is not loaded. */
int npu_nl_open(struct npu_nl *nl);
void npu_nl_close(struct npu_nl *nl);

/*
 * The devices (@dev < 0: all, in index order; else that one, -ENODEV if
 * it does not exist) or the contexts (of device @dev, or of all) into a
 * malloc'd array the caller frees. Without CAP_SYS_ADMIN the family lists
 * only the contexts of the caller's uid.
 */
int npu_nl_devices(struct npu_nl *nl, int64_t dev, struct npu_nl_dev **out, int *n);
int npu_nl_processes(struct npu_nl *nl, int64_t dev, struct npu_nl_proc **out, int *n);

/* Merge the contexts of one process on one device (a process may open a
 * device more than once): sums in place, returns the new count. */
int npu_nl_procs_by_pid(struct npu_nl_proc *p, int n);

/* NPU_NL_CMD_COUNTERS_RESET of @dev (or all): -EPERM without CAP_NET_ADMIN. */
int npu_nl_counters_reset(struct npu_nl *nl, int64_t dev);

/*
 * NPU_NL_CMD_DEVICE_RESET of @dev: 0 once its contexts are lost and the
 * reset is under way (the device's @resetting says when it is done);
 * -EPERM without CAP_SYS_ADMIN, -EBUSY while a reset of it is under way,
 * -ENODEV for no such device or one whose carrier was removed.
 */
int npu_nl_device_reset(struct npu_nl *nl, int64_t dev);

/*
 * Join the "faults" group (-EPERM without CAP_SYS_ADMIN), then receive:
 * npu_nl_fault_fd() is the socket to poll; npu_nl_fault_recv() reads what
 * is queued (blocking if nothing is) and calls @fn for each fault event.
 */
int npu_nl_faults_join(struct npu_nl *nl);
int npu_nl_fault_fd(struct npu_nl *nl);
int npu_nl_fault_recv(struct npu_nl *nl,
		      void (*fn)(const struct npu_nl_fault *f, void *arg), void *arg);

/*
 * Health, in DCMI's scale (dcmi_get_device_health): 0 OK, 1 minor alarm
 * ("Warning": DMA faults since load or counter reset), 2 major alarm
 * ("Alarm": a device reset is under way), 3 critical (the carrier was
 * unplugged); the worst applies. The family knows nothing else that is
 * wrong.
 */
#define NPU_NL_HEALTH_OK	0U
#define NPU_NL_HEALTH_WARNING	1U
#define NPU_NL_HEALTH_ALARM	2U
#define NPU_NL_HEALTH_CRITICAL	3U
unsigned int npu_nl_health(const struct npu_nl_dev *d);
const char *npu_nl_health_name(unsigned int health);

/*
 * npu's error codes (the vendor's describe its hardware; these describe
 * what can go wrong here), as dcmi_get_device_errorcode_v2 and npu-smi's
 * health page report them: at most NPU_NL_MAX_ERRCODES, into @codes.
 */
#define NPU_NL_ERRCODE_DMA_FAULT	0x4E500001U
#define NPU_NL_ERRCODE_UNPLUGGED	0x4E500002U
#define NPU_NL_ERRCODE_RESETTING	0x4E500003U
#define NPU_NL_MAX_ERRCODES		3
int npu_nl_errcodes(const struct npu_nl_dev *d, unsigned int *codes);
/* The text of @code, or NULL for a code npu does not have. */
const char *npu_nl_errcode_text(unsigned int code);

/*
 * The carrier's PCI address and, when sysfs has them (not once the carrier
 * is unplugged), its ids; -ENODEV for a "platform" carrier.
 */
struct npu_nl_pci {
	unsigned int domain, bus, dev, fn;
	unsigned int vendor, device, subvendor, subdevice;
	bool ids;
};
int npu_nl_pci(const struct npu_nl_dev *d, struct npu_nl_pci *pci);

/* The cores every device models (npu.ko's cube_cores, vector_cores). */
int npu_nl_cores(unsigned int *cube, unsigned int *vector);

/* Whole MiB, as the vendor's tools count, and the HBM usage rate (%) from them. */
unsigned long long npu_nl_mib(uint64_t bytes);
unsigned int npu_nl_hbm_rate(const struct npu_nl_dev *d);

/*
 * Utilisation: the growth of the DMA engine's busy time (NPU_NL_A_DEV_BUSY_NS,
 * overlapping work counted once) between two samples of a device over the
 * wall time between them, in whole percent, clamped to 0..100. The engine
 * is the device's only compute until the AI cores run anything, so this is
 * the vendor's overall "NPU Utilization" (DCMI_UTILIZATION_RATE_NPU).
 *
 * A single query measures over NPU_NL_UTIL_WINDOW_MS, as the vendor's
 * driver measures its cores' utilisation on demand (a start, a 50 ms sleep,
 * an end: trs_host_accelerator_util.c in github hicann/driver); a tool that
 * samples anyway (npu-smi info watch) uses the interval between its samples.
 */
#define NPU_NL_UTIL_WINDOW_MS	50

/*
 * Set ->util of each of the @na devices of @after from the sample of the
 * same index among the @nb of @before (-1 for a device @before lacks).
 */
void npu_nl_util(struct npu_nl_dev *after, int na, const struct npu_nl_dev *before, int nb);

/* Sleep until NPU_NL_UTIL_WINDOW_MS have passed since @before was sampled. */
void npu_nl_util_wait(const struct npu_nl_dev *before);

/*
 * A window over the @n devices of *@devs (a dump of @dev as
 * npu_nl_devices() took it): wait, dump again, set ->util of the new
 * sample and replace *@devs and *@n with it (the old array is freed).
 */
int npu_nl_util_window(struct npu_nl *nl, int64_t dev, struct npu_nl_dev **devs, int *n);

/* "1.13.0" from NPU_NL_A_DEV_DRIVER_VERSION. */
void npu_nl_version_str(uint32_t version, char *buf, unsigned int len);

#endif /* NPU_NL_H */
