/* SPDX-License-Identifier: MIT */
/*
 * Device queries and the device resource limits (query.c), for the rest
 * of the library.
 */
#ifndef LIBACL_QUERY_H
#define LIBACL_QUERY_H

#include <stdint.h>

struct acl_device;
struct npu_get_info;

/*
 * GET_INFO of device @id: through the open device if some thread set it,
 * else through a context of its own, opened for this call. -ENODEV (with
 * the reason naming @what) if there is no such device, or the device is
 * gone (its carrier was removed).
 */
int acl_query_info(int id, struct npu_get_info *info, const char *what);

/* NPU architecture of device @id's SoC, by CANN's platform files (2201: 910B-class). */
#define ACL_ARCH_910B	2201
int acl_soc_arch(int id, int32_t *arch);

/*
 * What the runtime does on device @id's chip, by its SoC name (the chip
 * profile npu.ko's soc_name picks), as CANN's runtime decides it from its
 * chip type; a name CANN does not know is the simulated, 910B-class chip.
 */
#define ACL_SOC_INFNAN		(1U << 0)	/* inf/nan mode and bf16 (RT_FEATURE_OVERFLOW_MODE) */
#define ACL_SOC_TASK_CMO	(1U << 1)	/* RT_FEATURE_TASK_CMO: aclrtCmoAsync, the descriptor calls */
#define ACL_SOC_ASYNC_CMO	(1U << 2)	/* RT_FEATURE_TASK_ASYNC_CMO: the barrier CMO calls */
#define ACL_SOC_POD_IPC		(1U << 3)	/* the driver's SET_PID_POD: IPC pid lists of a super pod */
#define ACL_SOC_SDMA_REDUCE	(1U << 4)	/* CHIP_CLOUD_V2's SDMA reduce: SUM/MAX/MIN, six types */
#define ACL_SOC_IPC_NOTIFY	(1U << 5)	/* RT_FEATURE_IPC_NOTIFY: notifies shared between processes */
#define ACL_SOC_RAND_GEN	(1U << 6)	/* RT_FEATURE_TASK_RAND_GENERATOR: aclrtRandomNumAsync */
#define ACL_SOC_ACL_GRAPH	(1U << 7)	/* RT_FEATURE_MODEL_ACL_GRAPH: stream capture (aclmdlRICapture*) */
#define ACL_SOC_IPC_EVENT	(1U << 8)	/* RT_FEATURE_IPC_EVENT: events shared between processes */
#define ACL_SOC_DSA_UPDATE	(1U << 9)	/* RT_FEATURE_TASK_DSA_UPDATE: aclrtTaskUpdateAsync of a random task */
#define ACL_SOC_TILING_UPDATE	(1U << 10)	/* RT_FEATURE_MODEL_UPDATE_SQE_TILING_KEY: ... of an AI-core task */
#define ACL_SOC_FLOAT_STATUS	(1U << 11)	/* RT_FEATURE_DEVICE_FLOAT_STATUS: aclrtNpu*FloatOverFlowStatus */
#define ACL_SOC_DEVICE_GROUP	(1U << 12)	/* RT_FEATURE_DEVICE_GROUP: compute groups (aclrtSetGroup) */
int acl_soc_features(int id, unsigned int *feat);
/*
 * The process's chip, as CANN's runtime has one chip type per process:
 * device 0's features (every device has the module's soc_name), the
 * simulated chip's while device 0 cannot be asked.
 */
unsigned int acl_chip_features(void);

/*
 * A super pod's device ids (CANN's SDID: server id in bits 31..22, chip
 * 21..18, die 17..16, device 15..0). The simulated super pod of the A3
 * profiles is one server, id 0, whose chips have two dies (two devices).
 */
#define ACL_SDID_SERVER(sdid)	(((uint32_t)(sdid) >> 22) & 0x3ffU)
#define ACL_POD_SERVER_ID	0U
#define ACL_POD_SDID(id)	((ACL_POD_SERVER_ID << 22) | ((uint32_t)(id) / 2 << 18) | \
				 ((uint32_t)(id) % 2 << 16) | (uint32_t)(id))

/*
 * The device limit of @type (an aclrtDevResLimitType) of the open device
 * @dev: the hardware count until aclrtSetDeviceResLimit sets one, again
 * after aclrtResetDeviceResLimit, and for every new open of the device.
 * Returns 0, ACLI_ERTPARAM for an unknown @type, or the driver's error.
 */
int acl_dev_res_limit(struct acl_device *dev, int type, uint32_t *value);

/* The hardware count of @type on @dev (what a limit may go up to). */
int acl_dev_res_total(struct acl_device *dev, int type, uint32_t *value);

#endif /* LIBACL_QUERY_H */
