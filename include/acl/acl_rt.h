/* SPDX-License-Identifier: MIT */
/*
 * libacl: the aclrt runtime API - devices and contexts, streams, events,
 * callbacks and host functions, notifies, device, host, managed, VMM and IPC
 * memory, shareable handles, copies and memsets, shared buffers, device
 * queries, resource limits, errors. Custom allocators are in
 * acl_rt_allocator.h (included here), memory pools in
 * acl_rt_memory_soma.h.
 *
 * Types, enum values and struct layouts follow the CANN acl_rt.h 1.17. The
 * comments say what libacl does: above all its own choices where CANN
 * leaves room, and where the simulated device (npu.ko) behaves in a way a
 * caller would not assume. lib/README.md has the details.
 *
 * Rules for every call below unless its comment says otherwise:
 *
 * - aclInit (acl.h) first: before it, or after aclFinalize, a call answers
 *   ACL_ERROR_UNINITIALIZE. aclFinalize destroys every context, dropping
 *   queued work; aclInit may be called again after it.
 * - Checks run in this order: aclInit, the arguments (no driver call), the
 *   calling thread's current context, then the driver; so an argument error
 *   is the same with or without a device.
 * - NULL pointers and bad enum or flag values are ACL_ERROR_INVALID_PARAM
 *   (100000, CANN's acl layer); bad values CANN's runtime layer checks are
 *   ACL_ERROR_RT_PARAM_INVALID (107000); a device id that is negative, above
 *   63 or names no /dev/npuN is ACL_ERROR_RT_INVALID_DEVICEID (107001); what
 *   the simulated chip does not have is ACL_ERROR_RT_FEATURE_NOT_SUPPORT
 *   (207000); a device task that faulted (a DMA fault) is
 *   ACL_ERROR_RT_FAILURE.
 * - Errors are reported per thread, twice: every failure adds a line
 *   "aclrtFoo: reason" to the messages aclGetRecentErrMsg() (acl_base.h)
 *   returns, newest first; every failure but ACL_ERROR_INVALID_PARAM is also
 *   the thread's last error (aclrtGetLastError). A result called quiet below
 *   touches neither.
 * - Every call is thread-safe. The current context, and with it the current
 *   device, is per thread: a new thread has none (ACL_ERROR_RT_CONTEXT_NULL)
 *   until it calls aclrtSetDevice or aclrtSetCurrentContext, unless aclInit's
 *   file names a default device. Handles (contexts, streams, events,
 *   notifies) may be shared between threads; a handle destroyed, never
 *   created or of another type is ACL_ERROR_RT_INVALID_HANDLE.
 * - A NULL aclrtStream is the current context's default stream. Submitting
 *   to or managing a stream of another context is
 *   ACL_ERROR_RT_STREAM_CONTEXT; synchronizing and querying it are allowed.
 * - After fork() the child is initialised, with no device set: it inherits
 *   no context, stream, event or notify of the parent.
 *
 * What the library reads besides its arguments:
 *
 * - aclInit(configPath): the file must be readable (else
 *   ACL_ERROR_INVALID_PARAM). Of its first 8 KiB two keys apply, the rest is
 *   ignored: CANN's {"defaultDevice":{"default_device":"N"}} (a thread
 *   without a current context sets device N implicitly at its first need),
 *   and our {"pageableCopy":{"mode":"auto"|"staged"|"direct"}} (see "Copies
 *   and memsets"). A bad value of either fails aclInit with
 *   ACL_ERROR_INVALID_PARAM.
 * - ACL_NPU_PAGEABLE_COPY (ours): "auto", "staged" or "direct", read at
 *   every synchronous pageable copy; it wins over pageableCopy; another
 *   value is ignored.
 * - ASCEND_HOME_PATH and /etc/ascend_install.info: aclsysGetVersion*.
 */
#ifndef ACL_ACL_RT_H
#define ACL_ACL_RT_H

#include <stdint.h>
#include <stddef.h>
#include "acl_base.h"
#include "acl_rt_allocator.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The CANN acl_rt.h version whose names, values and layouts this header has */
#define ACL_MAJOR_VERSION 1
#define ACL_MINOR_VERSION 17
#define ACL_PATCH_VERSION 0

/* == Memory, copies and stream memory operations: constants and types == */

/*
 * aclrtValueWait conditions on the 64-bit word w: w >= value, w == value,
 * (w & value) != 0, ~(w | value) != 0
 */
#define ACL_STREAM_WAIT_VALUE_GEQ 0x00000000U
#define ACL_STREAM_WAIT_VALUE_EQ 0x00000001U
#define ACL_STREAM_WAIT_VALUE_AND 0x00000002U
#define ACL_STREAM_WAIT_VALUE_NOR 0x00000003U

/*
 * aclrtMemExportToShareableHandle(V2) flags. DISABLE_PID_VALIDATION: no pid
 * list; an importer must still run as the exporter's effective uid.
 */
#define ACL_RT_VMM_EXPORT_FLAG_DEFAULT 0x0UL
#define ACL_RT_VMM_EXPORT_FLAG_DISABLE_PID_VALIDATION 0x1UL

/*
 * aclrtHostRegisterV2 flags: IOMEMORY is ACL_ERROR_FEATURE_UNSUPPORTED;
 * without MAPPED the memory is pinned but has no device address; PINNED
 * on aclrtMallocHost memory is ACL_ERROR_HOST_MEMORY_ALREADY_REGISTERED.
 */
#define ACL_HOST_REG_MAPPED 0x2UL
#define ACL_HOST_REG_IOMEMORY 0x4UL
#define ACL_HOST_REG_READONLY 0x8UL
#define ACL_HOST_REG_PINNED 0x10000000UL

/* A physical memory handle: aclrtMallocPhysical, or an import of a shareable one */
typedef void *aclrtDrvMemHandle;

/*
 * Copy kinds. The kind must agree with what the addresses are; DEFAULT
 * infers it; HOST_TO_BUF_TO_DEVICE is HOST_TO_DEVICE; INNER_ and
 * INTER_DEVICE_TO_DEVICE need both sides on one device, on two devices.
 */
typedef enum aclrtMemcpyKind {
	ACL_MEMCPY_HOST_TO_HOST,
	ACL_MEMCPY_HOST_TO_DEVICE,
	ACL_MEMCPY_DEVICE_TO_HOST,
	ACL_MEMCPY_DEVICE_TO_DEVICE,
	ACL_MEMCPY_DEFAULT,
	ACL_MEMCPY_HOST_TO_BUF_TO_DEVICE,
	ACL_MEMCPY_INNER_DEVICE_TO_DEVICE,
	ACL_MEMCPY_INTER_DEVICE_TO_DEVICE,
} aclrtMemcpyKind;

/*
 * aclrtMalloc policies. Page size: NORMAL 4 KiB, HUGE 2 MiB, HUGE1G 1 GiB;
 * HUGE_FIRST takes 2 MiB pages from 2 MiB up (padding included) and falls
 * back to 4 KiB ones when those run out. A _P2P policy places as its base:
 * every aclrtMalloc allocation is reachable by peers. The band-width and
 * USER_SPACE_READONLY bits change nothing (the CPU never maps device
 * memory; the device keeps read-write access). aclrtMalloc, Align32 and
 * Cached select a placement only for a value equal to a policy as a whole
 * and give any other value the default, HUGE_FIRST, as the vendor does;
 * aclrtMallocWithCfg honours the modifier bits and refuses unknown bits
 * and LOW with HIGH (ACL_ERROR_INVALID_PARAM).
 */
typedef enum aclrtMemMallocPolicy {
	ACL_MEM_MALLOC_HUGE_FIRST,
	ACL_MEM_MALLOC_HUGE_ONLY,
	ACL_MEM_MALLOC_NORMAL_ONLY,
	ACL_MEM_MALLOC_HUGE_FIRST_P2P,
	ACL_MEM_MALLOC_HUGE_ONLY_P2P,
	ACL_MEM_MALLOC_NORMAL_ONLY_P2P,
	ACL_MEM_MALLOC_HUGE1G_ONLY,
	ACL_MEM_MALLOC_HUGE1G_ONLY_P2P,
	ACL_MEM_TYPE_LOW_BAND_WIDTH = 0x0100,
	ACL_MEM_TYPE_HIGH_BAND_WIDTH = 0x1000,
	ACL_MEM_ACCESS_USER_SPACE_READONLY = 0x100000,
} aclrtMemMallocPolicy;

/*
 * aclrtHostRegister types: IOMEMORY is ACL_ERROR_FEATURE_UNSUPPORTED; any
 * other bit ACL_ERROR_RT_FEATURE_NOT_SUPPORT.
 */
typedef enum {
	ACL_HOST_REGISTER_MAPPED = 0,
	ACL_HOST_REGISTER_IOMEMORY = 0x04,
	ACL_HOST_REGISTER_READONLY = 0x08,
} aclrtHostRegisterType;

/*
 * aclrtMalloc(Host)WithCfg attributes: MODULE_ID is accepted and ignored;
 * DEVICE_ID (aclrtMallocWithCfg only) must be the current device; VA_FLAG
 * (aclrtMallocHostWithCfg only; 0 or 1) 1 maps the memory for the devices
 * at its host address. RSV and other values: ACL_ERROR_INVALID_PARAM for
 * aclrtMallocWithCfg, ACL_ERROR_RT_PARAM_INVALID for aclrtMallocHostWithCfg
 * (as cfg->attrs NULL is there, whatever numAttrs says).
 */
typedef enum {
	ACL_RT_MEM_ATTR_RSV = 0,
	ACL_RT_MEM_ATTR_MODULE_ID,
	ACL_RT_MEM_ATTR_DEVICE_ID,
	ACL_RT_MEM_ATTR_VA_FLAG,
} aclrtMallocAttrType;

typedef union {
	uint16_t moduleId;
	uint32_t deviceId;
	uint32_t vaFlag;
	uint8_t rsv[8];
} aclrtMallocAttrValue;

typedef struct {
	aclrtMallocAttrType attr;
	aclrtMallocAttrValue value;
} aclrtMallocAttribute;

typedef struct {
	aclrtMallocAttribute *attrs;
	size_t numAttrs;
} aclrtMallocConfig;

/*
 * Memory attributes. The device has one kind of memory: aclrtGetMemInfo
 * answers the same for each. For aclrtMallocPhysical, the four HUGE1G
 * values select 1 GiB pages, every other value 2 MiB pages.
 */
typedef enum aclrtMemAttr {
	ACL_DDR_MEM,
	ACL_HBM_MEM,
	ACL_DDR_MEM_HUGE,
	ACL_DDR_MEM_NORMAL,
	ACL_HBM_MEM_HUGE,
	ACL_HBM_MEM_NORMAL,
	ACL_DDR_MEM_P2P_HUGE,
	ACL_DDR_MEM_P2P_NORMAL,
	ACL_HBM_MEM_P2P_HUGE,
	ACL_HBM_MEM_P2P_NORMAL,
	ACL_HBM_MEM_HUGE1G,
	ACL_HBM_MEM_P2P_HUGE1G,
	ACL_MEM_NORMAL,
	ACL_MEM_HUGE,
	ACL_MEM_HUGE1G,
	ACL_MEM_P2P_NORMAL,
	ACL_MEM_P2P_HUGE,
	ACL_MEM_P2P_HUGE1G,
} aclrtMemAttr;

/* MANAGED: what aclrtPointerGetAttributes says of aclrtMemAllocManaged memory */
typedef enum aclrtMemLocationType {
	ACL_MEM_LOCATION_TYPE_HOST = 0,
	ACL_MEM_LOCATION_TYPE_DEVICE,
	ACL_MEM_LOCATION_TYPE_UNREGISTERED,
	ACL_MEM_LOCATION_TYPE_MANAGED,
	ACL_MEM_LOCATION_TYPE_HOST_NUMA = 4,
} aclrtMemLocationType;

typedef struct aclrtMemLocation {
	uint32_t id;
	aclrtMemLocationType type;
} aclrtMemLocation;

/*
 * aclrtMemcpyBatch: where both sides of a run of copies are (HOST, or DEVICE
 * with the copying device's id); rsv must be zero.
 */
typedef struct aclrtMemcpyBatchAttr {
	aclrtMemLocation dstLoc;
	aclrtMemLocation srcLoc;
	uint8_t rsv[16];
} aclrtMemcpyBatchAttr;

/* Managed (unified) memory: aclrtMemAllocManaged's flag and its calls' types */
#define ACL_RT_MEM_ATTACH_GLOBAL 0x01U

typedef enum aclrtMemManagedAdviseType {
	ACL_MEM_ADVISE_SET_READ_MOSTLY = 0,
	ACL_MEM_ADVISE_UNSET_READ_MOSTLY,
	ACL_MEM_ADVISE_SET_PREFERRED_LOCATION,
	ACL_MEM_ADVISE_UNSET_PREFERRED_LOCATION,
	ACL_MEM_ADVISE_SET_ACCESSED_BY,
	ACL_MEM_ADVISE_UNSET_ACCESSED_BY,
} aclrtMemManagedAdviseType;

typedef enum aclrtMemManagedLocationType {
	ACL_MEM_LOCATIONTYPE_INVALID = 0,
	ACL_MEM_LOCATIONTYPE_DEVICE,
	ACL_MEM_LOCATIONTYPE_HOST,
	ACL_MEM_LOCATIONTYPE_HOST_NUMA,
	ACL_MEM_LOCATIONTYPE_HOST_NUMA_CURRENT,
} aclrtMemManagedLocationType;

typedef enum aclrtMemManagedRangeAttribute {
	ACL_MEM_RANGE_ATTRIBUTE_READ_MOSTLY = 1,
	ACL_MEM_RANGE_ATTRIBUTE_PREFERRED_LOCATION,
	ACL_MEM_RANGE_ATTRIBUTE_ACCESSED_BY,
	ACL_MEM_RANGE_ATTRIBUTE_PREFERRED_LOCATION_TYPE,
	ACL_MEM_RANGE_ATTRIBUTE_PREFERRED_LOCATION_ID,
	ACL_MEM_RANGE_ATTRIBUTE_LAST_PREFETCH_LOCATION,
	ACL_MEM_RANGE_ATTRIBUTE_LAST_PREFETCH_LOCATION_TYPE,
	ACL_MEM_RANGE_ATTRIBUTE_LAST_PREFETCH_LOCATION_ID,
} aclrtMemManagedRangeAttribute;

typedef struct aclrtMemManagedLocation {
	aclrtMemManagedLocationType type;
	int32_t id;
} aclrtMemManagedLocation;

/* aclrtPointerGetAttributes' answer (rsv zeroed) */
typedef struct aclrtPtrAttributes {
	aclrtMemLocation location;
	uint32_t pageSize;
	uint32_t rsv[4];
} aclrtPtrAttributes;

/*
 * Virtual memory management. aclrtPhysicalMemProp: handleType NONE or
 * POSIX (alike here), allocationType PINNED, location DEVICE with the
 * current device's id, reserve 0.
 */
typedef enum aclrtMemAllocationType {
	ACL_MEM_ALLOCATION_TYPE_PINNED = 0,
} aclrtMemAllocationType;

typedef enum aclrtMemHandleType {
	ACL_MEM_HANDLE_TYPE_NONE = 0,
	ACL_MEM_HANDLE_TYPE_POSIX = 2,
} aclrtMemHandleType;

typedef struct aclrtPhysicalMemProp {
	aclrtMemHandleType handleType;
	aclrtMemAllocationType allocationType;
	aclrtMemAttr memAttr;
	aclrtMemLocation location;
	uint64_t reserve;
} aclrtPhysicalMemProp;

/* Both options answer the same: 2 MiB, or 1 GiB for the HUGE1G memAttrs */
typedef enum aclrtMemGranularityOptions {
	ACL_RT_MEM_ALLOC_GRANULARITY_MINIMUM,
	ACL_RT_MEM_ALLOC_GRANULARITY_RECOMMENDED,
	ACL_RT_MEM_ALLOC_GRANULARITY_UNDEF = 0xFFFF,
} aclrtMemGranularityOptions;

/*
 * A device's rights on an aclrtMapMem mapping (aclrtMemSetAccess). In a
 * desc, rsv must be zero and location.type DEVICE.
 */
typedef enum {
	ACL_RT_MEM_ACCESS_FLAGS_NONE = 0x0,
	ACL_RT_MEM_ACCESS_FLAGS_READ = 0x1,
	ACL_RT_MEM_ACCESS_FLAGS_READWRITE = 0x3,
} aclrtMemAccessFlags;

typedef struct {
	aclrtMemAccessFlags flags;
	aclrtMemLocation location;
	uint8_t rsv[12];
} aclrtMemAccessDesc;

/* Memory queries and V2 shareable handles. aclrtCheckMemType: nothing is DVPP here. */
#define ACL_RT_MEM_TYPE_DEV (0X2U)
#define ACL_RT_MEM_TYPE_DVPP (0X8U)
#define ACL_RT_MEM_TYPE_RSVD (0X10U)

/* aclrtHostMemMapCapabilities: PCIEDMA and SDMA are SUPPORTED, the others not */
typedef enum {
	ACL_RT_HAC_TYPE_STARS = 0,
	ACL_RT_HAC_TYPE_AICPU,
	ACL_RT_HAC_TYPE_AIC,
	ACL_RT_HAC_TYPE_AIV,
	ACL_RT_HAC_TYPE_PCIEDMA,
	ACL_RT_HAC_TYPE_RDMA,
	ACL_RT_HAC_TYPE_SDMA,
	ACL_RT_HAC_TYPE_DVPP,
	ACL_RT_HAC_TYPE_UDMA,
	ACL_RT_HAC_TYPE_CCU
} aclrtHacType;

typedef enum {
	ACL_RT_HOST_MEM_MAP_NOT_SUPPORTED = 0,
	ACL_RT_HOST_MEM_MAP_SUPPORTED
} aclrtHostMemMapCapability;

/*
 * V2 share types: DEFAULT is V1's 64-bit name; FABRIC (sharing across
 * servers) is ACL_ERROR_RT_FEATURE_NOT_SUPPORT: the chip has no fabric.
 * POSIX_FD is ours (not in CANN's enum; a value far from its own): the
 * shareable handle is an int, a dma-buf file descriptor - of npu's own
 * memory or of any other driver's buffer (a DRM buffer, a udmabuf, ...).
 */
typedef enum aclrtMemSharedHandleType {
	ACL_MEM_SHARE_HANDLE_TYPE_DEFAULT = 0x1,
	ACL_MEM_SHARE_HANDLE_TYPE_FABRIC = 0x2,
	ACL_MEM_SHARE_HANDLE_TYPE_POSIX_FD = 0x100,
} aclrtMemSharedHandleType;

typedef struct aclrtMemFabricHandle {
	uint8_t data[128];
} aclrtMemFabricHandle;

/* One aclrtGetMemUsageInfo component: "device", "aclrtMalloc" or "aclrtMallocPhysical" */
typedef struct aclrtMemUsageInfo {
	char name[32];
	uint64_t curMemSize;
	uint64_t memPeakSize;
	size_t reserved[8];
} aclrtMemUsageInfo;

/*
 * Cache maintenance (aclrtCmo*). The simulated device has no cache: each
 * operation is an ordered command that translates its range (see the
 * CMO section). Which calls the chip has follows CANN and npu.ko's chip
 * profile (soc_name): the 910B class (and the simulated chip) has
 * aclrtCmoAsync and the descriptor calls, the 310B class (Ascend310B1..4)
 * the barrier calls; each answers ACL_ERROR_RT_FEATURE_NOT_SUPPORT where
 * the chip lacks it.
 */
typedef enum aclrtCmoType {
	ACL_RT_CMO_TYPE_PREFETCH = 0,
	ACL_RT_CMO_TYPE_WRITEBACK,
	ACL_RT_CMO_TYPE_INVALID,
	ACL_RT_CMO_TYPE_FLUSH,
} aclrtCmoType;

typedef struct {
	aclrtCmoType cmoType;
	uint32_t barrierId;
} aclrtBarrierCmoInfo;

#define ACL_RT_CMO_MAX_BARRIER_NUM 6U

typedef struct {
	size_t barrierNum;
	aclrtBarrierCmoInfo cmoInfo[ACL_RT_CMO_MAX_BARRIER_NUM];
} aclrtBarrierTaskInfo;

/*
 * The link a mapping of another device's memory goes over
 * (aclrtMemMapSetLink, aclrtMemMapSelectedLink's linkIdx: 0 SIO, 1 HCCS).
 * The simulated devices are chips joined by HCCS only: the others are
 * ACL_ERROR_RT_LINK_TYPE_NOT_SUPPORTED.
 */
#define ACL_RT_MEM_LINK_IDX_0 0U
#define ACL_RT_MEM_LINK_IDX_1 1U

typedef enum {
	ACL_RT_MEM_ACCESS_LINK_SIO = 0,
	ACL_RT_MEM_ACCESS_LINK_HCCS = 1,
	ACL_RT_MEM_ACCESS_UB_ONE_PORT_PATH = 2,
	ACL_RT_MEM_ACCESS_UB_MULTI_PORT_PATH = 3,
} aclrtMemLinkType;

/*
 * == Errors ==
 *
 * Each thread has two records of its failures, independent of each other:
 * the messages of aclGetRecentErrMsg() (acl_base.h: the failures not yet
 * read, newest first, one a line; reading takes them; 2 KiB kept, the
 * oldest lines dropped) and the last error below. A success leaves both.
 */

#define ACL_RT_MEM_UCE_INFO_MAX_NUM 20
#define UCE_INFO_RESERVED_SIZE 14
#define MAX_MEM_UCE_INFO_ARRAY_SIZE 128

typedef enum aclrtLastErrLevel {
	ACL_RT_THREAD_LEVEL = 0,
} aclrtLastErrLevel;

/* libacl reports ACL_RT_NO_ERROR or ACL_RT_ERROR_OTHERS (a DMA fault) only */
typedef enum {
	ACL_RT_NO_ERROR = 0,
	ACL_RT_ERROR_MEMORY = 1,
	ACL_RT_ERROR_L2 = 2,
	ACL_RT_ERROR_AICORE = 3,
	ACL_RT_ERROR_LINK = 4,
	ACL_RT_ERROR_L3_PORT = 5,
	ACL_RT_ERROR_OTHERS = 0xFFFF,
} aclrtErrorType;

typedef enum aclrtAicoreErrorType {
	ACL_RT_AICORE_ERROR_UNKNOWN = 0,
	ACL_RT_AICORE_ERROR_SW = 1,
	ACL_RT_AICORE_ERROR_HW_LOCAL = 2,
} aclrtAicoreErrorType;

/* a device memory range hit by an uncorrectable error (never reported here) */
typedef struct aclrtMemUceInfo {
	void *addr;
	size_t len;
	size_t reserved[UCE_INFO_RESERVED_SIZE];
} aclrtMemUceInfo;

typedef struct {
	size_t arraySize;
	aclrtMemUceInfo memUceInfoArray[ACL_RT_MEM_UCE_INFO_MAX_NUM];
} aclrtMemUceInfoArray;

typedef union aclrtErrorInfoDetail {
	aclrtMemUceInfoArray uceInfo;
	aclrtAicoreErrorType aicoreErrType;
} aclrtErrorInfoDetail;

typedef struct aclrtErrorInfo {
	uint8_t tryRepair;
	uint8_t hasDetail;
	uint8_t reserved[2];
	aclrtErrorType errorType;
	aclrtErrorInfoDetail detail;
} aclrtErrorInfo;

/*
 * The calling thread's last error: the code of its latest failure other
 * than an acl-layer argument rejection (ACL_ERROR_INVALID_PARAM) or a quiet
 * result; 0 if none. Get resets it to 0, Peek leaves it. level must be
 * ACL_RT_THREAD_LEVEL (else ACL_ERROR_INVALID_PARAM). No aclInit needed.
 */
ACL_FUNC_VISIBILITY aclError aclrtGetLastError(aclrtLastErrLevel level);
ACL_FUNC_VISIBILITY aclError aclrtPeekAtLastError(aclrtLastErrLevel level);
/*
 * The latest fault of device deviceId, process-wide: ACL_RT_ERROR_MEMORY
 * once a task of this process touched device memory with an uncorrectable
 * error (until repaired), with tryRepair and hasDetail 1 and the bad
 * ranges as aclrtGetMemUceInfo names them in detail.uceInfo;
 * ACL_RT_ERROR_OTHERS once a synchronize or wait of this process saw a
 * DMA fault of a task on the device since the process opened it, without
 * detail and with tryRepair 0 (a DMA fault is none of CANN's memory UCE,
 * L2, AI Core or link kinds); else ACL_RT_NO_ERROR, also for a device the
 * process has not open. deviceId must name a device.
 */
ACL_FUNC_VISIBILITY aclError aclrtGetErrorVerbose(int32_t deviceId, aclrtErrorInfo *errorInfo);
/*
 * Repair what aclrtGetErrorVerbose reported: errorType ACL_RT_NO_ERROR
 * clears the device's record (aclrtGetErrorVerbose answers
 * ACL_RT_NO_ERROR again); ACL_RT_ERROR_MEMORY (memory UCE) repairs the
 * ranges of detail.uceInfo as aclrtMemUceRepair does (hasDetail must be
 * 1 and arraySize 1 to 20, else ACL_ERROR_RT_PARAM_INVALID) and clears
 * the record; any other type ACL_ERROR_RT_PARAM_INVALID: a DMA fault
 * cannot be repaired. errorInfo NULL: ACL_ERROR_INVALID_PARAM; tryRepair 0:
 * ACL_ERROR_RT_PARAM_INVALID; no such device: ACL_ERROR_RT_INVALID_DEVICEID;
 * a device this process has not open: ACL_ERROR_RT_DEV_SETUP_ERROR.
 */
ACL_FUNC_VISIBILITY aclError aclrtRepairError(int32_t deviceId, const aclrtErrorInfo *errorInfo);

/*
 * Uncorrectable memory errors (UCE). aclrtGetMemUceInfo: the ranges of
 * this process's device addresses on device deviceId that lie on bad
 * pages (a task touching one fails with ACL_ERROR_RT_DEVICE_MEM_ERROR),
 * into memUceInfoArray, which must hold them all (arraySize), their
 * number into *retSize. aclrtMemUceRepair: each range given (1 to 128,
 * reserved zero; none is ACL_ERROR_RT_PARAM_INVALID) gets healthy pages
 * whose bytes are zero - the data on a bad page is lost. The device must
 * be set in this process.
 */
ACL_FUNC_VISIBILITY aclError aclrtGetMemUceInfo(int32_t deviceId, aclrtMemUceInfo *memUceInfoArray,
						size_t arraySize, size_t *retSize);
ACL_FUNC_VISIBILITY aclError aclrtMemUceRepair(int32_t deviceId, aclrtMemUceInfo *memUceInfoArray,
					       size_t arraySize);

/*
 * == Package versions ==
 *
 * The Version= line of $ASCEND_HOME_PATH/share/info/<pkgName>/version.info
 * (pkgName e.g. "runtime"; "driver" and "firmware" are found through
 * /etc/ascend_install.info). Without that file (ASCEND_HOME_PATH unset,
 * empty or lacking it), "runtime" is the library's own version: the
 * share/info/runtime/version.info beside the loaded library or in one of
 * its 8 nearest parents (the build tree's, an install's), else the version
 * it was built as; ours: other packages are read from
 * <DATADIR>/info/<pkgName>/version.info of the build. A name with '-' is tried
 * again with '_', and the reverse. No file, line or value:
 * ACL_ERROR_INVALID_FILE. versionStr holds ACL_PKG_VERSION_MAX_SIZE bytes
 * (a longer value: ACL_ERROR_INTERNAL_ERROR). The number is
 * major * 10^7 + minor * 10^5 + patch * 10^3, less 300/200/100 plus N for
 * an alpha/beta/rc N suffix: "9.0.0-rc.1" is 89999901; a version it cannot
 * parse ("8.0.RC1" too) is ACL_ERROR_INTERNAL_ERROR. No aclInit needed.
 */

#define ACL_PKG_VERSION_MAX_SIZE 128
#define ACL_PKG_VERSION_PARTS_MAX_SIZE 64

/* The string of pkgName's version; its number */
ACL_FUNC_VISIBILITY aclError aclsysGetVersionStr(char *pkgName, char *versionStr);
ACL_FUNC_VISIBILITY aclError aclsysGetVersionNum(char *pkgName, int32_t *versionNum);

/*
 * == Contexts, streams, events, callbacks and notifies: constants and types ==
 * (CANN 1.17 values)
 *
 * aclrtCreateStreamWithConfig flags: kept and reported by
 * aclrtStreamGetFlags, unknown bits dropped; none changes how the device
 * runs the stream. PERSISTENT, CPU_SCHEDULE and DEVICE_USE_ONLY streams
 * always query COMPLETE; DEVICE_USE_ONLY goes alone.
 */

#define ACL_STREAM_FAST_LAUNCH 0x00000001U
#define ACL_STREAM_FAST_SYNC 0x00000002U
#define ACL_STREAM_PERSISTENT 0x00000004U
#define ACL_STREAM_HUGE 0x00000008U
#define ACL_STREAM_CPU_SCHEDULE 0x00000010U
#define ACL_STREAM_DEVICE_USE_ONLY 0x00000020U

/* aclrtSetStreamFailureMode modes (only bit 0 of the mode is read) */
#define ACL_CONTINUE_ON_FAILURE 0x00000000U
#define ACL_STOP_ON_FAILURE 0x00000001U

/*
 * Event flags; aclrtCreateEventWithFlag and aclrtCreateEventExWithFlag say
 * which combinations they take. The runtime's second synchronizing bit,
 * 0x4, has no name but is accepted.
 */
#define ACL_EVENT_SYNC 0x00000001U
#define ACL_EVENT_CAPTURE_STREAM_PROGRESS 0x00000002U
#define ACL_EVENT_TIME_LINE 0x00000008U
#define ACL_EVENT_DEVICE_USE_ONLY 0x00000010U
#define ACL_EVENT_EXTERNAL 0x00000020U
#define ACL_EVENT_IPC 0x00000040U

/* Values only: no call here takes the record and wait flags */
#define ACL_EVENT_RECORD_DEFAULT 0x00000000U
#define ACL_EVENT_RECORD_EXTERNAL 0x00000001U
#define ACL_EVENT_WAIT_DEFAULT 0x00000000U
#define ACL_EVENT_WAIT_EXTERNAL 0x00000001U

/* aclrtIpcEventHandle's size: an IPC event's name for other processes */
#define ACL_IPC_EVENT_HANDLE_SIZE 64U

/*
 * aclrtCreateNotify flags (DEVICE_USE_ONLY: ACL_ERROR_RT_FEATURE_NOT_SUPPORT);
 * the export and import flags are values only: no IPC notifies here.
 */
#define ACL_NOTIFY_DEFAULT 0x00000000U
#define ACL_NOTIFY_DEVICE_USE_ONLY 0x00000001U
#define ACL_RT_NOTIFY_EXPORT_FLAG_DEFAULT 0x0UL
#define ACL_RT_NOTIFY_EXPORT_FLAG_DISABLE_PID_VALIDATION 0x02UL
#define ACL_RT_NOTIFY_IMPORT_FLAG_DEFAULT 0x0UL
#define ACL_RT_NOTIFY_IMPORT_FLAG_ENABLE_PEER_ACCESS 0x02UL

typedef enum aclrtStreamStatus {
	ACL_STREAM_STATUS_COMPLETE = 0,
	ACL_STREAM_STATUS_NOT_READY = 1,
	ACL_STREAM_STATUS_RESERVED = 0xFFFF,
} aclrtStreamStatus;

/*
 * A stream configuration for aclrtCreateStreamV2 (CANN has these calls in
 * its compact C library only; libacl exports them).
 */
typedef enum aclrtStreamConfigAttr {
	ACL_RT_STREAM_WORK_ADDR_PTR = 0,
	ACL_RT_STREAM_WORK_SIZE = 1,
	ACL_RT_STREAM_FLAG = 2,
	ACL_RT_STREAM_PRIORITY = 3,
} aclrtStreamConfigAttr;

typedef struct aclrtStreamConfigHandle {
	void *workptr;
	size_t workSize;
	size_t flag;
	uint32_t priority;
} aclrtStreamConfigHandle;

/* aclrtSetStreamAttribute / aclrtGetStreamAttribute */
typedef enum aclrtStreamAttr {
	ACL_STREAM_ATTR_FAILURE_MODE = 1,
	ACL_STREAM_ATTR_FLOAT_OVERFLOW_CHECK = 2,
	ACL_STREAM_ATTR_USER_CUSTOM_TAG = 3,
	ACL_STREAM_ATTR_CACHE_OP_INFO = 4,
	ACL_STREAM_ATTR_PRIORITY = 5,
} aclrtStreamAttr;

typedef union aclrtStreamAttrValue {
	uint64_t failureMode;
	uint32_t overflowSwitch;
	uint32_t userCustomTag;
	uint32_t cacheOpInfoSwitch;
	uint32_t streamPriority;
	uint32_t reserve[4];
} aclrtStreamAttrValue;

/* What aclrtRegStreamStateCallback's callbacks are told */
typedef enum aclrtStreamState {
	ACL_RT_STREAM_STATE_CREATE_POST = 1,
	ACL_RT_STREAM_STATE_DESTROY_PRE = 2,
} aclrtStreamState;

typedef void (*aclrtStreamStateCallback)(aclrtStream stm, aclrtStreamState state, void *args);

typedef enum aclrtEventStatus {
	ACL_EVENT_STATUS_COMPLETE = 0,
	ACL_EVENT_STATUS_NOT_READY = 1,
	ACL_EVENT_STATUS_RESERVED = 2,
} aclrtEventStatus;

typedef enum aclrtEventRecordedStatus {
	ACL_EVENT_RECORDED_STATUS_NOT_READY = 0,
	ACL_EVENT_RECORDED_STATUS_COMPLETE = 1,
} aclrtEventRecordedStatus;

typedef enum aclrtEventWaitStatus {
	ACL_EVENT_WAIT_STATUS_COMPLETE = 0,
	ACL_EVENT_WAIT_STATUS_NOT_READY = 1,
	ACL_EVENT_WAIT_STATUS_RESERVED = 0xFFFF,
} aclrtEventWaitStatus;

typedef struct aclrtIpcEventHandle {
	char reserved[ACL_IPC_EVENT_HANDLE_SIZE];
} aclrtIpcEventHandle;

typedef enum aclrtCallbackBlockType {
	ACL_CALLBACK_NO_BLOCK = 0,
	ACL_CALLBACK_BLOCK = 1,
} aclrtCallbackBlockType;

typedef void (*aclrtCallback)(void *userData);
typedef void (*aclrtHostFunc)(void *args);

/*
 * A super pod's server and its processes: aclrtIpcMemImportPidInterServer
 * (aclrtNotifySetImportPidInterServer is not supported here). sdid is a
 * device of the server (CANN's SDID: server id in bits 31..22).
 */
typedef struct aclrtServerPid {
	uint32_t sdid;
	int32_t *pid;
	size_t num;
} aclrtServerPid;

/* Count notifies (CANN: 950 only) are not supported: the types are for layout */
typedef enum aclrtCntNotifyRecordMode {
	ACL_RT_CNT_NOTIFY_RECORD_SET_VALUE_MODE = 0,
	ACL_RT_CNT_NOTIFY_RECORD_ADD_MODE = 1,
	ACL_RT_CNT_NOTIFY_RECORD_BIT_OR_MODE = 2,
	ACL_RT_CNT_NOTIFY_RECORD_BIT_AND_MODE = 4,
} aclrtCntNotifyRecordMode;

typedef enum aclrtCntNotifyWaitMode {
	ACL_RT_CNT_NOTIFY_WAIT_LESS_MODE = 0,
	ACL_RT_CNT_NOTIFY_WAIT_EQUAL_MODE = 1,
	ACL_RT_CNT_NOTIFY_WAIT_BIGGER_MODE = 2,
	ACL_RT_CNT_NOTIFY_WAIT_BIGGER_OR_EQUAL_MODE = 3,
	ACL_RT_CNT_NOTIFY_WAIT_EQUAL_WITH_BITMASK_MODE = 4,
} aclrtCntNotifyWaitMode;

typedef struct aclrtCntNotifyRecordInfo {
	aclrtCntNotifyRecordMode mode;
	uint32_t value;
} aclrtCntNotifyRecordInfo;

typedef struct aclrtCntNotifyWaitInfo {
	aclrtCntNotifyWaitMode mode;
	uint32_t value;
	uint32_t timeout;
	uint8_t isClear;
	uint8_t rsv[3];
} aclrtCntNotifyWaitInfo;

/*
 * == Devices ==
 *
 * A device is /dev/npuN (N 0..63). The process opens it (one driver
 * context) for its first context on it and closes it with the last, and
 * closing frees everything the process had on the device: memory, streams,
 * events, notifies, peer access. A driver of another major version, or of
 * an older minor one than the library's, is ACL_ERROR_DRV_FAILURE.
 */

/*
 * Makes device deviceId's primary context the calling thread's current
 * context (replacing an explicit one the thread had), creating it on first
 * use; each call takes one reference on it.
 */
ACL_FUNC_VISIBILITY aclError aclrtSetDevice(int32_t deviceId);
/* The current device */
ACL_FUNC_VISIBILITY aclError aclrtGetDevice(int32_t *deviceId);
/*
 * Drop one reference on the primary context (Force: all of them) and clear
 * the calling thread's selection; other threads keep theirs. The last
 * reference destroys the context after its streams' queued work, callbacks
 * included. A device this process holds no reference on:
 * ACL_ERROR_RT_CONTEXT_RELEASE_ERROR.
 */
ACL_FUNC_VISIBILITY aclError aclrtResetDevice(int32_t deviceId);
ACL_FUNC_VISIBILITY aclError aclrtResetDeviceForce(int32_t deviceId);
/* Counts the /dev/npuN nodes; none: *count 0 and ACL_ERROR_RT_NO_DEVICE (as CUDA) */
ACL_FUNC_VISIBILITY aclError aclrtGetDeviceCount(uint32_t *count);
/* Waits for every stream of every context on the current device; the first error is the answer */
ACL_FUNC_VISIBILITY aclError aclrtSynchronizeDevice(void);
/*
 * aclrtSynchronizeDevice within timeout milliseconds for all the streams
 * together (-1: no limit): ACL_ERROR_RT_STREAM_SYNC_TIMEOUT when they are
 * not done by then (their work stays queued). Below -1 or 0:
 * ACL_ERROR_RT_PARAM_INVALID (below -1 is CANN's acl layer: not the last
 * error).
 */
ACL_FUNC_VISIBILITY aclError aclrtSynchronizeDeviceWithTimeout(int32_t timeout);
/*
 * Flush the current device's L2 cache (rsv must be NULL, else
 * ACL_ERROR_INVALID_PARAM): the simulated DMA engine writes device memory
 * directly, so nothing is held back; the call checks that the device still
 * answers. No current context: ACL_ERROR_RT_CONTEXT_NULL.
 */
ACL_FUNC_VISIBILITY aclError aclrtDeviceL2CacheFlush(void *rsv);

typedef enum aclrtTsId {
	ACL_TS_ID_AICORE = 0,
	ACL_TS_ID_AIVECTOR = 1,
	ACL_TS_ID_RESERVED = 2,
} aclrtTsId;

/*
 * The task scheduler later devices of the thread use: the simulated chip
 * has one (as the 910B), so AICORE and AIVECTOR both select it and nothing
 * changes; another tsId: ACL_ERROR_INVALID_PARAM. No aclInit needed.
 */
ACL_FUNC_VISIBILITY aclError aclrtSetTsDevice(aclrtTsId tsId);

/*
 * Device ids. libacl does not read ASCEND_RT_VISIBLE_DEVICES: every
 * /dev/npuN is visible, as user, logical and physical device N (the
 * driver's device_index). As CANN: a negative id is
 * ACL_ERROR_RT_PARAM_INVALID; a physical or logical id no device has, in
 * the two calls that ask the driver for it (...ByPhyDevId,
 * aclrtGetPhyDevIdBy...), ACL_ERROR_RT_PARAM_INVALID too; a user or
 * logical id no device has in the others ACL_ERROR_RT_INVALID_DEVICEID. No
 * device needs to be set.
 */
ACL_FUNC_VISIBILITY aclError aclrtGetLogicDevIdByUserDevId(const int32_t userDevid,
							   int32_t *const logicDevId);
ACL_FUNC_VISIBILITY aclError aclrtGetUserDevIdByLogicDevId(const int32_t logicDevId,
							   int32_t *const userDevid);
ACL_FUNC_VISIBILITY aclError aclrtGetLogicDevIdByPhyDevId(const int32_t phyDevId, int32_t *const logicDevId);
ACL_FUNC_VISIBILITY aclError aclrtGetPhyDevIdByLogicDevId(const int32_t logicDevId, int32_t *const phyDevId);
ACL_FUNC_VISIBILITY aclError aclrtGetUserDevIdByPhyDevId(const int32_t phyDevId, int32_t *const userDevId);
ACL_FUNC_VISIBILITY aclError aclrtGetPhyDevIdByUserDevId(const int32_t userDevId, int32_t *const phyDevId);

/*
 * Device state callbacks, as CANN calls them: SET_PRE before the process
 * opens a device (its first aclrtSetDevice or aclrtCreateContext on it),
 * SET_POST after every successful aclrtSetDevice, RESET_PRE before the
 * last aclrtResetDevice(Force) destroys the primary context (which is the
 * calling thread's current context while the callbacks run), RESET_POST
 * after. aclFinalize calls none (CANN's resets no device). Called in the
 * thread that made the call, under no lock of the library, in
 * registration order; deviceId is the user device id.
 */
typedef enum {
	ACL_RT_DEVICE_STATE_SET_PRE = 0,
	ACL_RT_DEVICE_STATE_SET_POST,
	ACL_RT_DEVICE_STATE_RESET_PRE,
	ACL_RT_DEVICE_STATE_RESET_POST,
} aclrtDeviceState;

typedef void (*aclrtDeviceStateCallback)(int32_t deviceId, aclrtDeviceState state, void *args);

/*
 * Register callback under regName (a name registered already:
 * ACL_ERROR_RT_PARAM_INVALID); a NULL callback unregisters the name (also
 * one never registered). NULL regName: ACL_ERROR_INVALID_PARAM. No aclInit
 * needed; registrations outlive aclFinalize.
 */
ACL_FUNC_VISIBILITY aclError aclrtRegDeviceStateCallback(const char *regName,
							 aclrtDeviceStateCallback callback, void *args);

/*
 * == Streams ==
 *
 * A stream is a queue of the device, whose DMA engine runs its tasks in
 * order; each context has a default stream. A task that faults is
 * ACL_ERROR_RT_FAILURE at the stream's next synchronize (once, in the
 * default failure mode), and the device's latest fault for
 * aclrtGetErrorVerbose.
 */

/*
 * aclrtCreateStreamWithConfig(stream, 0, 0). Past the driver's max_streams
 * per context: ACL_ERROR_RT_NO_STREAM_RESOURCE.
 */
ACL_FUNC_VISIBILITY aclError aclrtCreateStream(aclrtStream *stream);
/*
 * Destroy waits for the stream's tasks, callbacks included (a report thread
 * must keep calling aclrtProcessReport); Force drops those not yet run. A
 * context's default stream cannot be destroyed: ACL_ERROR_RT_PARAM_INVALID.
 */
ACL_FUNC_VISIBILITY aclError aclrtDestroyStream(aclrtStream stream);
ACL_FUNC_VISIBILITY aclError aclrtDestroyStreamForce(aclrtStream stream);
/*
 * Wait for every task queued so far. timeout: -1 (forever) or > 0 ms, else
 * ACL_ERROR_RT_PARAM_INVALID; expiry is ACL_ERROR_RT_STREAM_SYNC_TIMEOUT.
 */
ACL_FUNC_VISIBILITY aclError aclrtSynchronizeStream(aclrtStream stream);
ACL_FUNC_VISIBILITY aclError aclrtSynchronizeStreamWithTimeout(aclrtStream stream, int32_t timeout);

/*
 * == Events ==
 *
 * A record queues a device timestamp: the event completes when the device
 * reaches it, and its times are the device clock's. Waiting for an event
 * is waiting for its latest record; an event with no record (never
 * recorded, or reset) is not waited for. The events of all contexts on a
 * device, and its streams' callback queues, share one pool of 65536 ids
 * (ACL_ERROR_RT_NO_EVENT_RESOURCE when none is left).
 */

/*
 * Flags 0x0E (CAPTURE_STREAM_PROGRESS | 0x4 | TIME_LINE), as CANN; the id
 * comes with the first record.
 */
ACL_FUNC_VISIBILITY aclError aclrtCreateEvent(aclrtEvent *event);
/* Does not block: an event whose record has not run yet is freed once it has */
ACL_FUNC_VISIBILITY aclError aclrtDestroyEvent(aclrtEvent event);
/*
 * A later record replaces the one waited for. EXTERNAL events (ACL graphs'):
 * ACL_ERROR_RT_FEATURE_NOT_SUPPORT.
 */
ACL_FUNC_VISIBILITY aclError aclrtRecordEvent(aclrtEvent event, aclrtStream stream);
/* Returns at once for an event with no record; EXTERNAL: ACL_ERROR_RT_FEATURE_NOT_SUPPORT */
ACL_FUNC_VISIBILITY aclError aclrtSynchronizeEvent(aclrtEvent event);
/*
 * The stream's later tasks wait for the event's latest record. No record,
 * or one on this same stream: nothing to do. A record on another device's
 * stream is waited for on the host: the call returns when it has run. An
 * event with neither SYNC nor 0x4, or an EXTERNAL one:
 * ACL_ERROR_RT_FEATURE_NOT_SUPPORT. The wait's limit is
 * aclrtSetOpWaitTimeout's (none unless set).
 */
ACL_FUNC_VISIBILITY aclError aclrtStreamWaitEvent(aclrtStream stream, aclrtEvent event);
/*
 * Stream memory operations on a 64-bit word, 8-byte aligned. ValueWrite
 * writes value to device memory of the stream's device, or host memory
 * registered with it; flag must be 0. ValueWait holds the stream until the
 * word, in device memory of the stream's device (host memory is refused),
 * meets flag (ACL_STREAM_WAIT_VALUE_*).
 */
ACL_FUNC_VISIBILITY aclError aclrtValueWrite(void *devAddr, uint64_t value, uint32_t flag, aclrtStream stream);
ACL_FUNC_VISIBILITY aclError aclrtValueWait(void *devAddr, uint64_t value, uint32_t flag, aclrtStream stream);

/*
 * == Contexts ==
 *
 * As CANN: each device has one primary context per process (aclrtSetDevice)
 * and any number of explicit ones. Streams and events belong to the
 * context current when they were made; memory belongs to the device, and
 * every context on it reaches it. Destroying a context waits for its
 * streams' queued work, callbacks included, then frees its streams and
 * events; a thread whose current context was destroyed gets
 * ACL_ERROR_RT_CONTEXT_NULL at its next call.
 */

/*
 * An explicit context on deviceId, with its own default stream, made
 * current; it takes no primary-context reference.
 */
ACL_FUNC_VISIBILITY aclError aclrtCreateContext(aclrtContext *context, int32_t deviceId);
/*
 * Explicit contexts only: a primary context's handle, or one destroyed
 * already, is ACL_ERROR_RT_CONTEXT_NULL; one that another thread is
 * destroying ACL_ERROR_RT_CONTEXT_RELEASE_ERROR.
 */
ACL_FUNC_VISIBILITY aclError aclrtDestroyContext(aclrtContext context);
/* Any live context, primary ones too; a destroyed one is ACL_ERROR_RT_PARAM_INVALID */
ACL_FUNC_VISIBILITY aclError aclrtSetCurrentContext(aclrtContext context);
/* No current context: ACL_ERROR_RT_CONTEXT_NULL, quietly */
ACL_FUNC_VISIBILITY aclError aclrtGetCurrentContext(aclrtContext *context);
/* The real handle of the current context's default stream (passing it equals NULL) */
ACL_FUNC_VISIBILITY aclError aclrtCtxGetCurrentDefaultStream(aclrtStream *stream);
/*
 * flags must be NULL (reserved); *active is 1 while the device's primary
 * context has a reference in this process. No current context needed.
 */
ACL_FUNC_VISIBILITY aclError aclrtGetPrimaryCtxState(int32_t deviceId, uint32_t *flags, int32_t *active);

/* == Streams (continued) == */
/*
 * priority 0 (highest) to 7, above 7 clamped; it is recorded and reported
 * only: the device runs every stream as soon as it can. flag: ACL_STREAM_*
 * (above); DEVICE_USE_ONLY with another flag: ACL_ERROR_RT_PARAM_INVALID.
 */
ACL_FUNC_VISIBILITY aclError aclrtCreateStreamWithConfig(aclrtStream *stream, uint32_t priority, uint32_t flag);
/*
 * ACL_CONTINUE_ON_FAILURE (the default): a task error is reported once, at
 * the next synchronize, and later tasks run. ACL_STOP_ON_FAILURE: later
 * tasks of the stream are dropped unrun, and once a synchronize or query
 * has seen the error it is latched for the context: every later submit and
 * synchronize on any stream of it returns it, after aclrtStreamAbort too,
 * until the context is destroyed. STOP back to CONTINUE, or a
 * DEVICE_USE_ONLY stream: ACL_ERROR_RT_FEATURE_NOT_SUPPORT. NULL:
 * ACL_ERROR_RT_PARAM_INVALID (the default stream's mode is fixed here).
 */
ACL_FUNC_VISIBILITY aclError aclrtSetStreamFailureMode(aclrtStream stream, uint64_t mode);
/* NOT_READY while a task is unfinished; a task error it sees is kept for the next synchronize */
ACL_FUNC_VISIBILITY aclError aclrtStreamQuery(aclrtStream stream, aclrtStreamStatus *status);
/* The id of the stream's queue on its device; it changes at aclrtStreamAbort */
ACL_FUNC_VISIBILITY aclError aclrtStreamGetId(aclrtStream stream, int32_t *streamId);
/* As created: the known ACL_STREAM_* flags; the clamped priority */
ACL_FUNC_VISIBILITY aclError aclrtStreamGetFlags(aclrtStream stream, uint32_t *flags);
ACL_FUNC_VISIBILITY aclError aclrtStreamGetPriority(aclrtStream stream, uint32_t *priority);
/* 7 and 0; either pointer may be NULL; always ACL_SUCCESS, no aclInit needed */
ACL_FUNC_VISIBILITY aclError aclrtDeviceGetStreamPriorityRange(int32_t *leastPriority, int32_t *greatestPriority);
/*
 * Drops the stream's queued and running tasks (a running copy stops at its
 * next chunk) and gives it a fresh queue: the stream stays usable, its id
 * changes, callbacks queued behind the abort are discarded, events
 * recorded before it complete. Submits and synchronizes during the abort:
 * ACL_ERROR_RT_STREAM_ABORT. NULL: ACL_ERROR_RT_PARAM_INVALID.
 */
ACL_FUNC_VISIBILITY aclError aclrtStreamAbort(aclrtStream stream);
/*
 * ACL_ERROR_RT_FEATURE_NOT_SUPPORT (CANN: chips with the STARS scheduler
 * only; use aclrtStreamAbort). NULL: ACL_ERROR_RT_PARAM_INVALID.
 */
ACL_FUNC_VISIBILITY aclError aclrtStreamStop(aclrtStream stream);
/*
 * aclrtStreamWaitEvent with a limit: timeout in seconds, 0 no limit
 * (negative: ACL_ERROR_RT_PARAM_INVALID). A wait that runs out fails as a
 * task of the stream: the stream goes on (in STOP mode it stops) and its
 * next synchronize answers ACL_ERROR_RT_TASK_TIMEOUT. A wait for another
 * device's event is made on the host, and its expiry is this call's
 * ACL_ERROR_RT_TASK_TIMEOUT.
 */
ACL_FUNC_VISIBILITY aclError aclrtStreamWaitEventWithTimeout(aclrtStream stream, aclrtEvent event, int32_t timeout);
/*
 * flag ACL_EVENT_WAIT_DEFAULT: aclrtStreamWaitEventWithTimeout (timeout
 * in seconds, 0 no limit, UINT32_MAX aclrtSetOpWaitTimeout's limit).
 * ACL_EVENT_WAIT_EXTERNAL (timeout must be 0) is CANN's wait of an ACL
 * graph on an event outside it: it takes only events of
 * aclrtCreateEventExWithFlag(ACL_EVENT_SYNC) (others:
 * ACL_ERROR_RT_FEATURE_NOT_SUPPORT) and a stream being captured (others:
 * ACL_ERROR_RT_STREAM_NOT_CAPTURED; libacl does not capture event waits
 * yet: ACL_ERROR_RT_FEATURE_NOT_SUPPORT there). An event keeps the
 * wait flag of its first wait, else ACL_ERROR_RT_PARAM_INVALID. Other
 * flags, or a timeout with EXTERNAL: ACL_ERROR_INVALID_PARAM.
 */
ACL_FUNC_VISIBILITY aclError aclrtStreamWaitEventWithFlag(aclrtStream stream, aclrtEvent event, uint32_t timeout,
							  uint32_t flag);

/*
 * Stream configurations (CANN's compact C library; exported here too).
 * A new handle is zeroed (priority 0, no flags, no work area); NULL when
 * out of memory. These three need no aclInit.
 */
ACL_FUNC_VISIBILITY aclrtStreamConfigHandle *aclrtCreateStreamConfigHandle(void);
/* handle NULL: ACL_ERROR_INVALID_PARAM */
ACL_FUNC_VISIBILITY aclError aclrtDestroyStreamConfigHandle(aclrtStreamConfigHandle *handle);
/*
 * attrValue points at the value, valueSize its size: a void * for
 * WORK_ADDR_PTR, a size_t for WORK_SIZE, a size_t or (as CANN's example
 * passes it) a uint32_t for FLAG, a uint32_t 0..7 for PRIORITY. NULL
 * pointers, another attr, size or priority: ACL_ERROR_INVALID_PARAM.
 */
ACL_FUNC_VISIBILITY aclError aclrtSetStreamConfigOpt(aclrtStreamConfigHandle *handle, aclrtStreamConfigAttr attr,
						     const void *attrValue, size_t valueSize);
/*
 * aclrtCreateStreamWithConfig(handle->priority, handle->flag); NULL handle:
 * priority 0, no flags. The work area (workptr, workSize) is accepted and
 * not used: it is a model's, and libacl runs no models.
 */
ACL_FUNC_VISIBILITY aclError aclrtCreateStreamV2(aclrtStream *stream, const aclrtStreamConfigHandle *handle);
/*
 * How many more streams the current device takes: the driver's streams
 * per process and device (npu.ko's max_streams) less those the process
 * holds there - every context's, default streams and the library's own
 * (two copy streams, one per stream that takes callbacks) included.
 */
ACL_FUNC_VISIBILITY aclError aclrtGetStreamAvailableNum(uint32_t *streamCount);
/*
 * A stream's attributes, as CANN's runtime keeps them (value NULL:
 * ACL_ERROR_INVALID_PARAM; a named stream is checked before the attribute;
 * another stmAttrType: ACL_ERROR_RT_PARAM_INVALID):
 * - FAILURE_MODE (failureMode): aclrtSetStreamFailureMode's rules, NULL
 *   stream included; its ACL_ERROR_RT_FEATURE_NOT_SUPPORT is the last
 *   error here. Get: ACL_CONTINUE_ON_FAILURE or ACL_STOP_ON_FAILURE, any
 *   context's stream, NULL ACL_ERROR_RT_PARAM_INVALID.
 * - FLOAT_OVERFLOW_CHECK (overflowSwitch): the switch of
 *   aclrtSetStreamOverflowSwitch; a value above 1 is
 *   ACL_ERROR_RT_PARAM_INVALID here. NULL: the default stream.
 * - USER_CUSTOM_TAG (userCustomTag): any value, recorded. NULL: the default
 *   stream.
 * - CACHE_OP_INFO (cacheOpInfoSwitch): 0 or 1 (else
 *   ACL_ERROR_RT_PARAM_INVALID), recorded; any context's stream; NULL:
 *   ACL_ERROR_RT_PARAM_INVALID.
 * - PRIORITY (streamPriority): clamped to 0..7 as at creation, then what
 *   aclrtStreamGetPriority reports; any context's stream; NULL:
 *   ACL_ERROR_RT_PARAM_INVALID.
 * The tags, switches and priorities change nothing the simulated device
 * does. FLOAT_OVERFLOW_CHECK and USER_CUSTOM_TAG take the current
 * context's streams only (ACL_ERROR_RT_STREAM_CONTEXT).
 */
ACL_FUNC_VISIBILITY aclError aclrtSetStreamAttribute(aclrtStream stream, aclrtStreamAttr stmAttrType,
						     aclrtStreamAttrValue *value);
ACL_FUNC_VISIBILITY aclError aclrtGetStreamAttribute(aclrtStream stream, aclrtStreamAttr stmAttrType,
						     aclrtStreamAttrValue *value);
/*
 * Registers callback(stm, state, args) under regName: it is called for
 * every stream of a context once made (CREATE_POST: aclrtCreateStream*,
 * and a context's default stream when the context is made) and before it
 * is destroyed (DESTROY_PRE: aclrtDestroyStream*, and each stream of a
 * context being destroyed: aclrtDestroyContext, the last
 * aclrtResetDevice, aclrtResetDeviceForce, aclFinalize), on the thread
 * doing that, in the order of the names (strcmp), holding no lock of the
 * library: the stream is live during the call. A name registered already:
 * ACL_ERROR_RT_PARAM_INVALID; callback NULL drops the name's registration
 * (none: success); regName NULL: ACL_ERROR_INVALID_PARAM. No aclInit
 * needed; registrations outlive aclFinalize.
 */
ACL_FUNC_VISIBILITY aclError aclrtRegStreamStateCallback(const char *regName, aclrtStreamStateCallback callback,
							 void *args);

/* == Events (continued) == */
/*
 * flag: a non-zero combination of SYNC, CAPTURE_STREAM_PROGRESS, 0x4 and
 * TIME_LINE, or DEVICE_USE_ONLY or EXTERNAL alone; else
 * ACL_ERROR_RT_PARAM_INVALID. The event has its id at once. EXTERNAL
 * events are not recorded, synchronized or queried from the host
 * (ACL_ERROR_RT_FEATURE_NOT_SUPPORT).
 */
ACL_FUNC_VISIBILITY aclError aclrtCreateEventWithFlag(aclrtEvent *event, uint32_t flag);
/*
 * flag: a combination as above, or IPC alone (an event other processes
 * may open: aclrtIpcGetEventHandle); else ACL_ERROR_RT_PARAM_INVALID.
 * These events are not reset or given to aclrtQueryEvent or
 * aclrtQueryEventWaitStatus (ACL_ERROR_RT_FEATURE_NOT_SUPPORT); never
 * recorded, they query COMPLETE in aclrtQueryEventStatus. No free IPC key
 * (the driver's max_ipc_keys): ACL_ERROR_RT_NO_EVENT_RESOURCE.
 */
ACL_FUNC_VISIBILITY aclError aclrtCreateEventExWithFlag(aclrtEvent *event, uint32_t flag);
/*
 * Forgets the event's record at once, not in the stream's order: later
 * waits find nothing to wait for. Events from aclrtCreateEventExWithFlag,
 * and events with none of SYNC, 0x4, EXTERNAL:
 * ACL_ERROR_RT_FEATURE_NOT_SUPPORT.
 */
ACL_FUNC_VISIBILITY aclError aclrtResetEvent(aclrtEvent event, aclrtStream stream);
/* COMPLETE unless the latest record has not run yet (never recorded: COMPLETE) */
ACL_DEPRECATED_MESSAGE("aclrtQueryEvent is deprecated, use aclrtQueryEventStatus instead")
ACL_FUNC_VISIBILITY aclError aclrtQueryEvent(aclrtEvent event, aclrtEventStatus *status);
/*
 * COMPLETE once the latest record has run; NOT_READY before, and while the
 * event has no record (Ex events: COMPLETE).
 */
ACL_FUNC_VISIBILITY aclError aclrtQueryEventStatus(aclrtEvent event, aclrtEventRecordedStatus *status);
/* NOT_READY while a stream's wait for the event (of the latest 8) has not passed */
ACL_FUNC_VISIBILITY aclError aclrtQueryEventWaitStatus(aclrtEvent event, aclrtEventWaitStatus *status);
/*
 * timeout: -1 (forever) or > 0 ms, else ACL_ERROR_RT_PARAM_INVALID; expiry:
 * ACL_ERROR_RT_EVENT_SYNC_TIMEOUT.
 */
ACL_FUNC_VISIBILITY aclError aclrtSynchronizeEventWithTimeout(aclrtEvent event, int32_t timeout);
/*
 * Milliseconds between the two records' device timestamps, fractions kept,
 * negative when endEvent ran first. Both events need TIME_LINE and a record
 * that has run, else ACL_ERROR_RT_EVENT_TIMESTAMP_INVALID; no record
 * (never recorded, or reset): ACL_ERROR_RT_INTERNAL_ERROR; EXTERNAL:
 * ACL_ERROR_RT_FEATURE_NOT_SUPPORT.
 */
ACL_FUNC_VISIBILITY aclError aclrtEventElapsedTime(float *ms, aclrtEvent startEvent, aclrtEvent endEvent);
/*
 * The device clock at the latest record, in microseconds since the device
 * was created; errors as aclrtEventElapsedTime's, TIME_LINE not needed.
 */
ACL_FUNC_VISIBILITY aclError aclrtEventGetTimestamp(aclrtEvent event, uint64_t *timestamp);
/*
 * The event's id on its device; an event from aclrtCreateEvent has one
 * only from its first record (before: ACL_ERROR_RT_INTERNAL_ERROR), as CANN.
 */
ACL_FUNC_VISIBILITY aclError aclrtGetEventId(aclrtEvent event, uint32_t *eventId);
/*
 * flag ACL_EVENT_RECORD_DEFAULT: aclrtRecordEvent. ACL_EVENT_RECORD_EXTERNAL
 * records an ACL graph's event for waits outside it: as the EXTERNAL wait
 * of aclrtStreamWaitEventWithFlag, ACL_ERROR_RT_FEATURE_NOT_SUPPORT or
 * ACL_ERROR_RT_STREAM_NOT_CAPTURED. An event keeps the record flag of its
 * first record, else ACL_ERROR_RT_PARAM_INVALID. Other flags:
 * ACL_ERROR_INVALID_PARAM.
 */
ACL_FUNC_VISIBILITY aclError aclrtRecordEventWithFlag(aclrtEvent event, aclrtStream stream, uint32_t flag);
/*
 * How many more events the current device can create: the free ids of its
 * pool of 65536, shared with one word per stream that takes callbacks or
 * host functions.
 */
ACL_FUNC_VISIBILITY aclError aclrtGetEventAvailNum(uint32_t *eventCount);

/*
 * IPC events (aclrtCreateEventExWithFlag(ACL_EVENT_IPC)) are one event in
 * every process that holds them: a record in any process is the event's
 * latest record, and aclrtStreamWaitEvent, aclrtSynchronizeEvent(WithTimeout)
 * and aclrtQueryEventStatus, in any process, take the latest record made
 * before them by any process (none: nothing to wait for, COMPLETE). They
 * are not reset, timed, given an id, queried with aclrtQueryEvent or
 * aclrtQueryEventWaitStatus, or recorded or waited for on a capturing
 * stream: ACL_ERROR_RT_FEATURE_NOT_SUPPORT. A wait on a stream of another
 * device than the creator's waits in the call, on the host, for that
 * record; records may come from one device besides the creator's, with
 * peer access to it (aclrtIpcOpenEventHandle enables it for the opener's
 * device). Records of two processes at the same moment may count as one;
 * at most 510 records of an event may be in flight. When the creator
 * destroys its event, the other processes' copies fail from then on
 * (ACL_ERROR_RT_INVALID_HANDLE; their queued tasks fault).
 */
/*
 * The handle that names the IPC event @event for aclrtIpcOpenEventHandle
 * in another process of the same user (no pid list: CANN shares IPC
 * events with any process). NULL: ACL_ERROR_INVALID_PARAM; an event not
 * created with ACL_EVENT_IPC: ACL_ERROR_RT_PARAM_INVALID.
 */
ACL_FUNC_VISIBILITY aclError aclrtIpcGetEventHandle(aclrtEvent event, aclrtIpcEventHandle *handle);
/*
 * The IPC event @handle names, as an event of the current context; the
 * creator's device is opened for it if this process has not set it.
 * NULL event: ACL_ERROR_INVALID_PARAM; a handle no aclrtIpcGetEventHandle
 * made, one of this process's own events, or one this process has open
 * already: ACL_ERROR_RT_PARAM_INVALID; the event destroyed, or a creator
 * of another user: ACL_ERROR_RT_NO_PERMISSION. aclrtDestroyEvent closes it.
 */
ACL_FUNC_VISIBILITY aclError aclrtIpcOpenEventHandle(aclrtIpcEventHandle handle, aclrtEvent *event);

/*
 * == Callbacks and host functions ==
 *
 * A callback is a point in its stream: it runs once the tasks queued before
 * it are done. Two models, which do not mix on one stream
 * (ACL_ERROR_RT_STREAM_SUBSCRIBE): a report thread of the application
 * (aclrtSubscribeReport, aclrtProcessReport, aclrtLaunchCallback) or host
 * functions (aclrtLaunchHostFunc), run by a thread of the application
 * (aclrtSubscribeHostFunc, aclrtProcessHostFunc) or else the context's own
 * thread (started at its first use, ended with the context). A callback
 * must not synchronize or destroy its own stream. aclrtStreamAbort and aclrtDestroyStreamForce discard the
 * callbacks not yet reached (no task error).
 */

/*
 * Binds the stream to the application's thread threadId (a pthread_t): one
 * thread per stream (else ACL_ERROR_RT_STREAM_SUBSCRIBE), and a thread
 * serves streams of one device (else ACL_ERROR_RT_THREAD_SUBSCRIBE).
 */
ACL_FUNC_VISIBILITY aclError aclrtSubscribeReport(uint64_t threadId, aclrtStream stream);
/*
 * Queues fn(userData) for the stream's report thread. BLOCK holds the
 * stream's later tasks until fn returned; NO_BLOCK does not. fn NULL:
 * ACL_ERROR_RT_PARAM_INVALID; no report thread:
 * ACL_ERROR_RT_STREAM_NO_CB_REG.
 */
ACL_FUNC_VISIBILITY aclError aclrtLaunchCallback(aclrtCallback fn, void *userData,
						 aclrtCallbackBlockType blockType, aclrtStream stream);
/*
 * Run by a subscribed thread: waits up to timeout ms (-1: forever; 0 or
 * below -1: ACL_ERROR_INVALID_PARAM) for a callback to be ready, then runs
 * every ready one in stream order. None in time:
 * ACL_ERROR_RT_REPORT_TIMEOUT; a thread that serves no stream:
 * ACL_ERROR_RT_THREAD_SUBSCRIBE.
 */
ACL_FUNC_VISIBILITY aclError aclrtProcessReport(int32_t timeout);
/*
 * Waits until the stream's queued callbacks were handed to the thread, then
 * unbinds. Not subscribed: ACL_ERROR_RT_STREAM_SUBSCRIBE; subscribed to
 * another thread: ACL_ERROR_RT_THREAD_SUBSCRIBE.
 */
ACL_FUNC_VISIBILITY aclError aclrtUnSubscribeReport(uint64_t threadId, aclrtStream stream);
/*
 * Queues fn(args) for the stream's host-function thread (the
 * application's, or else the context's own); always blocking: the
 * stream's later tasks wait until it returned. fn NULL:
 * ACL_ERROR_RT_PARAM_INVALID.
 */
ACL_FUNC_VISIBILITY aclError aclrtLaunchHostFunc(aclrtStream stream, aclrtHostFunc fn, void *args);
/*
 * Host functions of exeStream (aclrtLaunchHostFunc) run on the
 * application's thread hostFuncThreadId (a pthread_t), inside its
 * aclrtProcessHostFunc, in stream order. A thread may serve streams of any
 * device. exeStream NULL: ACL_ERROR_RT_PARAM_INVALID (no default stream
 * here, as CANN's compact runtime); a stream with a report thread, with a
 * host-function thread already, or whose host functions went to the
 * context's thread already: ACL_ERROR_RT_STREAM_SUBSCRIBE.
 */
ACL_FUNC_VISIBILITY aclError aclrtSubscribeHostFunc(uint64_t hostFuncThreadId, aclrtStream exeStream);
/*
 * aclrtProcessReport for host functions: timeout -1 (forever) or > 0 ms
 * (else ACL_ERROR_RT_PARAM_INVALID); none in time:
 * ACL_ERROR_RT_REPORT_TIMEOUT; a thread that serves no stream's host
 * functions: ACL_ERROR_RT_THREAD_SUBSCRIBE.
 */
ACL_FUNC_VISIBILITY aclError aclrtProcessHostFunc(int32_t timeout);
/*
 * Waits until the stream's queued host functions were handed to the
 * thread, then unbinds; later ones go to the context's thread. Not
 * subscribed to that thread: ACL_ERROR_RT_STREAM_SUBSCRIBE; NULL:
 * ACL_ERROR_RT_PARAM_INVALID.
 */
ACL_FUNC_VISIBILITY aclError aclrtUnSubscribeHostFunc(uint64_t hostFuncThreadId, aclrtStream exeStream);

/*
 * == Tasks ==
 *
 * A task is one unit of a stream's work, as CANN counts them: each command
 * libacl queues on an application's stream (an asynchronous copy or
 * memset, a record, a wait, a callback's or host function's hold, a value
 * write or wait, a marker). Its id counts a stream's tasks from 0, anew
 * after aclrtStreamAbort (the stream's queue is new) and after
 * aclrtPersistentTaskClean. Synchronous copies run on the library's own
 * streams: they are no task of the application's.
 */

/* The id of the calling thread's last task, on any stream; UINT32_MAX before any. No aclInit needed. */
ACL_FUNC_VISIBILITY aclError aclrtGetThreadLastTaskId(uint32_t *taskId);
/*
 * Keeps a copy of the operator information (at most 64 KiB) for the
 * calling thread's last task, with its stream (replacing the one before);
 * CANN keeps it with the task in the ACL graph capturing the stream, which
 * libacl does not yet. infoPtr NULL or infoSize 0: ACL_ERROR_INVALID_PARAM; above 64 KiB:
 * ACL_ERROR_RT_PARAM_INVALID; no current context: ACL_ERROR_RT_CONTEXT_NULL;
 * no task of the thread on a live stream: ACL_ERROR_RT_INTERNAL_ERROR; the
 * task's stream of another context: ACL_ERROR_RT_STREAM_CONTEXT.
 */
ACL_FUNC_VISIBILITY aclError aclrtCacheLastTaskOpInfo(const void *const infoPtr, const size_t infoSize);
/*
 * The same for extended information, for debugging: only the first 4096
 * bytes are kept; extendInfoPtr NULL or infoSize 0:
 * ACL_ERROR_RT_PARAM_INVALID.
 */
ACL_FUNC_VISIBILITY aclError aclrtCacheLastTaskExtendInfo(const char *const extendInfoPtr, const size_t infoSize);
/*
 * A profiling marker on the stream (NULL: the default stream): one task,
 * the device clock stamped when the stream reaches it. userdata is CANN's
 * marker record, an id, a model id and a tag (18 packed bytes); libacl has
 * no profiler and does not read it. userdata NULL: ACL_ERROR_INVALID_PARAM;
 * length outside 1..18: ACL_ERROR_RT_PARAM_INVALID.
 */
ACL_FUNC_VISIBILITY aclError aclrtProfTrace(void *userdata, int32_t length, aclrtStream stream);
/*
 * Restarts the task ids of an ACL_STREAM_PERSISTENT stream at 0 and drops
 * the information cached for its tasks. CANN cleans a persistent stream
 * of a loaded model whose queue is stopped; libacl has no models, and the
 * stream's tasks must all have run. NULL: ACL_ERROR_RT_PARAM_INVALID; a
 * stream not PERSISTENT, or with tasks not done:
 * ACL_ERROR_RT_INTERNAL_ERROR; of another context:
 * ACL_ERROR_RT_STREAM_CONTEXT.
 */
ACL_FUNC_VISIBILITY aclError aclrtPersistentTaskClean(aclrtStream stream);

/*
 * == Notifies ==
 *
 * A notify is a one-bit flag of its device, set by a record and consumed by
 * a wait, both in stream order: each record releases at most one wait, and
 * a wait queued before any record blocks until one comes. It belongs to the
 * device of the context current at its creation, and any context may use
 * it; it dies with its device's last context. A record's or wait's stream
 * must be of the notify's device (else ACL_ERROR_RT_PARAM_INVALID; CANN
 * does not check it). There is no host-side query or wait.
 */

/*
 * flag ACL_NOTIFY_DEFAULT (ACL_NOTIFY_DEVICE_USE_ONLY:
 * ACL_ERROR_RT_FEATURE_NOT_SUPPORT, other values ACL_ERROR_RT_PARAM_INVALID).
 * At most 65536 per device (ACL_ERROR_RT_NO_NOTIFY_RESOURCE).
 */
ACL_FUNC_VISIBILITY aclError aclrtCreateNotify(aclrtNotify *notify, uint64_t flag);
/* Its id stays taken until its last queued record or wait has run (CANN frees it at once) */
ACL_FUNC_VISIBILITY aclError aclrtDestroyNotify(aclrtNotify notify);
/* Sets the flag when the stream reaches the record */
ACL_FUNC_VISIBILITY aclError aclrtRecordNotify(aclrtNotify notify, aclrtStream stream);
/*
 * The wait clears the flag as it passes. timeout is ignored (as on CANN
 * chips without the NOTIFY_WAIT_TIMEOUT feature): the wait has no limit.
 */
ACL_FUNC_VISIBILITY aclError aclrtWaitAndResetNotify(aclrtNotify notify, aclrtStream stream, uint32_t timeout);
/* The notify's id on its device */
ACL_FUNC_VISIBILITY aclError aclrtGetNotifyId(aclrtNotify notify, uint32_t *notifyId);
/*
 * Clears the flags in array order, each on the current context's default
 * stream, waited for; stops at the first failure. num 0 or a NULL element:
 * ACL_ERROR_RT_PARAM_INVALID.
 */
ACL_FUNC_VISIBILITY aclError aclrtNotifyBatchReset(aclrtNotify *notifies, size_t num);
/*
 * IPC notifies: ACL_ERROR_RT_FEATURE_NOT_SUPPORT (after the NULL checks,
 * which InterServer does not make).
 */
ACL_FUNC_VISIBILITY aclError aclrtNotifyGetExportKey(aclrtNotify notify, char *key, size_t len, uint64_t flags);
ACL_FUNC_VISIBILITY aclError aclrtNotifySetImportPid(aclrtNotify notify, int32_t *pid, size_t num);
ACL_FUNC_VISIBILITY aclError aclrtNotifySetImportPidInterServer(aclrtNotify notify, aclrtServerPid *serverPids,
								size_t num);
ACL_FUNC_VISIBILITY aclError aclrtNotifyImportByKey(aclrtNotify *notify, const char *key, uint64_t flags);
/* Count notifies (CANN: 950 only): ACL_ERROR_RT_FEATURE_NOT_SUPPORT, no argument checked */
ACL_FUNC_VISIBILITY aclError aclrtCntNotifyCreate(aclrtCntNotify *cntNotify, uint64_t flag);
ACL_FUNC_VISIBILITY aclError aclrtCntNotifyDestroy(aclrtCntNotify cntNotify);
ACL_FUNC_VISIBILITY aclError aclrtCntNotifyRecord(aclrtCntNotify cntNotify, aclrtStream stream,
						  aclrtCntNotifyRecordInfo *info);
ACL_FUNC_VISIBILITY aclError aclrtCntNotifyWaitWithTimeout(aclrtCntNotify cntNotify, aclrtStream stream,
							   aclrtCntNotifyWaitInfo *info);
ACL_FUNC_VISIBILITY aclError aclrtCntNotifyReset(aclrtCntNotify cntNotify, aclrtStream stream);
ACL_FUNC_VISIBILITY aclError aclrtCntNotifyGetId(aclrtCntNotify cntNotify, uint32_t *notifyId);

/*
 * == Host memory: page-locked allocations and registrations ==
 *
 * Page-locked memory is pinned (counted against RLIMIT_MEMLOCK once per
 * device it is registered with). aclrtMallocHost memory is registered
 * with every device the process has open, and with each device as it
 * opens; aclrtHostRegister(V2) registers with the current device only:
 * that device's DMA engine reaches it directly, other devices see
 * pageable memory. Each call but aclrtFreeHost needs a current device. A
 * mapped registration also has a device address, which equals no host
 * address unless VA_FLAG asks for the host address itself.
 */

/*
 * 4 KiB aligned, the size rounded up to whole pages, mapped for every open
 * device. aclrtFreeHost frees it from any thread, with any device current
 * or none; it also goes when the last device holding it closes.
 */
ACL_FUNC_VISIBILITY aclError aclrtMallocHost(void **hostPtr, size_t size);
ACL_FUNC_VISIBILITY aclError aclrtFreeHost(void *hostPtr);
/* aclrtMallocHost with cfg (may be NULL): see aclrtMallocAttrType */
ACL_FUNC_VISIBILITY aclError aclrtMallocHostWithCfg(void **ptr, uint64_t size, aclrtMallocConfig *cfg);
/*
 * ptr must be 4 KiB aligned; size is rounded up to whole pages. MAPPED and
 * READONLY (the device only reads it) answer the device address in
 * *devPtr; IOMEMORY: ACL_ERROR_FEATURE_UNSUPPORTED (the driver pins only
 * ordinary memory); any other type bit:
 * ACL_ERROR_RT_FEATURE_NOT_SUPPORT. Copies into a READONLY registration
 * treat it as pageable memory. Overlapping a registration:
 * ACL_ERROR_HOST_MEMORY_ALREADY_REGISTERED. The start of aclrtMallocHost
 * memory (registered already) answers its device address, READONLY
 * excepted (ACL_ERROR_FEATURE_UNSUPPORTED).
 */
ACL_FUNC_VISIBILITY aclError aclrtHostRegister(void *ptr, uint64_t size, aclrtHostRegisterType type,
					       void **devPtr);
/*
 * As aclrtHostRegister, with ACL_HOST_REG_* flags: 0 or an unknown bit is
 * ACL_ERROR_RT_PARAM_INVALID; without MAPPED no device address (PINNED, or
 * READONLY alone: pinned, read-only for the device). MAPPED on the start
 * of aclrtMallocHost memory succeeds; PINNED on it:
 * ACL_ERROR_HOST_MEMORY_ALREADY_REGISTERED.
 */
ACL_FUNC_VISIBILITY aclError aclrtHostRegisterV2(void *ptr, uint64_t size, uint32_t flag);
/*
 * flag must be 0. The device address of host memory registered MAPPED with
 * the current device; any other address (registered without MAPPED, not
 * registered, device memory): ACL_ERROR_RT_PARAM_INVALID.
 */
ACL_FUNC_VISIBILITY aclError aclrtHostGetDevicePointer(void *pHost, void **pDevice, uint32_t flag);
/*
 * ptr: the start of a registration of the current device, else
 * ACL_ERROR_HOST_MEMORY_NOT_REGISTERED. On aclrtMallocHost memory it undoes
 * only an aclrtHostRegister of it; aclrtFreeHost frees it.
 */
ACL_FUNC_VISIBILITY aclError aclrtHostUnregister(void *ptr);

/*
 * == Device memory ==
 *
 * Device memory has a device address that equals no host address (the
 * range is also reserved, inaccessible, in the process). aclrtMalloc
 * memory is read-write for its device and for every device that enabled
 * peer access to it (no aclrtMemSetAccess needed); it belongs to the
 * device, not to a context, and goes when the device closes if not freed
 * before.
 */

/*
 * Needs a current device. The size is rounded up to a multiple of 32 and
 * 32 bytes of padding are added (none for HUGE1G_ONLY and
 * HUGE1G_ONLY_P2P), then it is rounded up to whole pages of the policy's
 * page size, to which the address is aligned. Out of device memory:
 * ACL_ERROR_RT_MEMORY_ALLOCATION; a page size the device lacks:
 * ACL_ERROR_RT_FEATURE_NOT_SUPPORT.
 */
ACL_FUNC_VISIBILITY aclError aclrtMalloc(void **devPtr, size_t size, aclrtMemMallocPolicy policy);
/* aclrtMalloc with cfg (may be NULL): see aclrtMallocAttrType */
ACL_FUNC_VISIBILITY aclError aclrtMallocWithCfg(void **devPtr, size_t size, aclrtMemMallocPolicy policy,
						aclrtMallocConfig *cfg);
/*
 * devPtr: the start of an aclrtMalloc* allocation of the current device,
 * or of managed memory (aclrtMemAllocManaged); an aclrtIpcMemImportByKey
 * import is closed with aclrtIpcMemClose. Anything else:
 * ACL_ERROR_INVALID_PARAM.
 */
ACL_FUNC_VISIBILITY aclError aclrtFree(void *devPtr);
/*
 * The current device's memory: total, and free after every process's
 * allocations. Every attr answers the same.
 */
ACL_FUNC_VISIBILITY aclError aclrtGetMemInfo(aclrtMemAttr attr, size_t *free, size_t *total);

/*
 * == Copies and memsets ==
 *
 * Each side is classified, as the copying device sees it: device memory
 * (its own, or another device's), host memory registered with it, managed
 * memory, or pageable host memory. The kind must agree
 * (ACL_ERROR_INVALID_PARAM). Host to host: the CPU copies. Device and
 * registered memory: one DMA command. Pageable memory, which the device
 * cannot reach:
 *
 * - synchronous, from 256 KiB: direct; the driver pins the pages for the
 *   copy only (in 32 MiB pieces, each pinned while the last one is copied)
 *   and no CPU copy happens; what it refuses to pin is staged;
 * - smaller, or asynchronous: staged through the device's page-locked
 *   staging buffer (2 x 4 MiB, made on first use; smaller under a tight
 *   RLIMIT_MEMLOCK), the CPU filling one half while the DMA of the other
 *   runs.
 *
 * ACL_NPU_PAGEABLE_COPY, else aclInit's pageableCopy, chooses: "auto" (the
 * above), "staged" (always staged) or "direct" (direct at every size).
 * Either way the data is the same. An asynchronous copy with pageable
 * memory first waits for the stream's earlier work and returns when it is
 * done. Between two devices, the copying device needs peer access to the
 * other (aclrtDeviceEnablePeerAccess), else ACL_ERROR_INVALID_PARAM.
 */

/*
 * Needs a current device; count must be non-zero and at most destMax. The
 * copy runs on the device owning its device side, current or not; between
 * two devices, on the current one if it owns a side and has peer access to
 * the other, else on the other owner if that one has. Device and registered
 * memory: on the device's internal copy stream, waited for.
 */
ACL_FUNC_VISIBILITY aclError aclrtMemcpy(void *dst, size_t destMax, const void *src, size_t count,
					 aclrtMemcpyKind kind);
/*
 * Queued on the stream; its device does the copy (another device's memory
 * needs peer access). Pageable memory, and host to host (the CPU, after the
 * stream's earlier work): done when the call returns.
 */
ACL_FUNC_VISIBILITY aclError aclrtMemcpyAsync(void *dst, size_t destMax, const void *src, size_t count,
					      aclrtMemcpyKind kind, aclrtStream stream);
/*
 * Deprecated: aclrtMemcpyAsync, whose CANN form checks whether the host
 * side is page-locked (pageable memory: the stream's earlier work first,
 * then a synchronous copy), as aclrtMemcpyAsync always does here. count
 * 0 is success before any check; the two device-to-device kinds of one or
 * two devices are ACL_ERROR_INVALID_PARAM, HOST_TO_HOST
 * ACL_ERROR_RT_FEATURE_NOT_SUPPORT.
 */
ACL_DEPRECATED_MESSAGE("aclrtMemcpyAsyncWithCondition is deprecated, use aclrtMemcpyAsync instead")
ACL_FUNC_VISIBILITY aclError aclrtMemcpyAsyncWithCondition(void *dst, size_t destMax, const void *src,
							   size_t count, aclrtMemcpyKind kind, aclrtStream stream);
/* aclrtReduceAsync's operation: dst[i] = dst[i] OP src[i]. */
typedef enum {
	ACL_RT_MEMCPY_SDMA_AUTOMATIC_SUM = 10,
	ACL_RT_MEMCPY_SDMA_AUTOMATIC_MAX = 11,
	ACL_RT_MEMCPY_SDMA_AUTOMATIC_MIN = 12,
	ACL_RT_MEMCPY_SDMA_AUTOMATIC_EQUAL = 13,
} aclrtReduceKind;

/*
 * Queues on stream (NULL: the default stream) a copy that reduces into its
 * destination: element by element over count bytes, dst[i] = dst[i] OP
 * src[i] (the vendor's SDMA reduce). The 910B-class chips (and the
 * simulated one) have SUM, MAX and MIN of ACL_INT8, ACL_INT16, ACL_INT32,
 * ACL_FLOAT16, ACL_FLOAT and ACL_BF16: integers wrap, floats round to
 * nearest even; EQUAL and the other types the acl layer takes are
 * ACL_ERROR_RT_FEATURE_NOT_SUPPORT. 2- and 4-byte types need aligned
 * addresses (ACL_ERROR_RT_ADDR_UNALIGNED) and, here, count a multiple of
 * the element size. reserve must be NULL. Operands as aclrtMemcpyAsync's;
 * what the device cannot reach faults when the task runs.
 */
ACL_FUNC_VISIBILITY aclError aclrtReduceAsync(void *dst, const void *src, uint64_t count, aclrtReduceKind kind,
					      aclDataType type, aclrtStream stream, void *reserve);

/*
 * A value of aclrtRandomNumAsync's task: isAddr 0, the value in the first
 * size bytes of valueOrAddr (little-endian); isAddr 1, the device address
 * of the value there.
 */
typedef struct {
	uint8_t isAddr;
	uint8_t valueOrAddr[8];
	uint8_t size;
	uint8_t rsv[6];
} aclrtRandomParaInfo;

typedef struct {
	aclrtRandomParaInfo dropoutRation;
} aclrtDropoutBitmaskInfo;

typedef struct {
	aclrtRandomParaInfo min;
	aclrtRandomParaInfo max;
} aclrtUniformDisInfo;

typedef struct {
	aclrtRandomParaInfo mean;
	aclrtRandomParaInfo stddev;
} aclrtNormalDisInfo;

typedef enum {
	ACL_RT_RANDOM_NUM_FUNC_TYPE_DROPOUT_BITMASK = 0,
	ACL_RT_RANDOM_NUM_FUNC_TYPE_UNIFORM_DIS,
	ACL_RT_RANDOM_NUM_FUNC_TYPE_NORMAL_DIS,
	ACL_RT_RANDOM_NUM_FUNC_TYPE_TRUNCATED_NORMAL_DIS,
} aclrtRandomNumFuncType;

typedef struct {
	aclrtRandomNumFuncType funcType;
	union {
		aclrtDropoutBitmaskInfo dropoutBitmaskInfo;
		aclrtUniformDisInfo uniformDisInfo;
		aclrtNormalDisInfo normalDisInfo;	/* normal and truncated normal */
	} paramInfo;
} aclrtRandomNumFuncParaInfo;

/*
 * aclrtRandomNumAsync's task: dataType is the numbers' type (the ratio's
 * for the dropout bitmask); randomParaAddr NULL, or device memory of 16
 * bytes that receives the two parameters at the call; the results at
 * randomResultAddr; randomCounterAddr device memory of 16 bytes, the
 * generator's 128-bit counter.
 */
typedef struct {
	aclDataType dataType;
	aclrtRandomNumFuncParaInfo randomNumFuncParaInfo;
	void *randomParaAddr;
	void *randomResultAddr;
	void *randomCounterAddr;
	aclrtRandomParaInfo randomSeed;
	aclrtRandomParaInfo randomNum;
	uint8_t rsv[8];
} aclrtRandomNumTaskInfo;

/*
 * Queues on stream (NULL: the default stream) a task that generates
 * randomNum random numbers into randomResultAddr (the vendor's DSA task;
 * the A2/A3 chips and the simulated one): Philox4x32-10 keyed by the seed,
 * counter based, the counter written back advanced by the count, so that
 * the next task sharing it continues the sequence. Uniform (from min up to
 * max; floats may round to max),
 * normal and truncated normal (within two deviations) numbers of
 * ACL_FLOAT, ACL_FLOAT16 and ACL_BF16, uniform ones also of ACL_INT32,
 * ACL_INT64, ACL_UINT32 and ACL_UINT64; a dropout bitmask (one bit a
 * number, 1 = kept, with probability 1 - ratio). Values given by address
 * are read when the task runs. reserve must be NULL. Other chips:
 * ACL_ERROR_RT_FEATURE_NOT_SUPPORT. The exact draws are in lib/README.md.
 */
ACL_FUNC_VISIBILITY aclError aclrtRandomNumAsync(const aclrtRandomNumTaskInfo *taskInfo, const aclrtStream stream,
						 void *reserve);

/* What aclrtTaskUpdateAsync updates: a random-number task, an AI-core (AIC/AIV) kernel task. */
typedef enum {
	ACL_RT_UPDATE_RANDOM_TASK = 1,
	ACL_RT_UPDATE_AIC_AIV_TASK,
} aclrtUpdateTaskAttrId;

/*
 * A random-number task's update: srcAddr device memory holding an
 * aclrtRandomNumTaskInfo (size its sizeof) when the update runs.
 */
typedef struct {
	void *srcAddr;
	size_t size;
	uint32_t rsv[4];
} aclrtRandomTaskUpdateAttr;

/*
 * An AI-core (kernel) task's update: binHandle a loaded binary
 * (aclrtBinaryLoad*), funcEntryAddr and blockDimAddr device memory
 * holding the function entry (the kernel's tiling key, as
 * aclrtBinaryGetFunctionByEntry takes it) and the block count, 8 bytes
 * each.
 */
typedef struct {
	void *binHandle;	/* program handle */
	void *funcEntryAddr;
	void *blockDimAddr;
	uint32_t rsv[4];
} aclrtAicAivTaskUpdateAttr;

typedef union {
	aclrtRandomTaskUpdateAttr randomTaskAttr;
	aclrtAicAivTaskUpdateAttr aicAivTaskAttr;
} aclrtUpdateTaskAttrVal;

typedef struct {
	aclrtUpdateTaskAttrId id;
	aclrtUpdateTaskAttrVal val;
} aclrtTaskUpdateInfo;

/*
 * Updates task taskId of taskStream, a model's stream (aclmdlRIGetStreams;
 * taskId the task's place in aclmdlRIGetTasksByStream's order, a captured
 * graph's sequence id), on execStream (NULL: the default stream). For
 * ACL_RT_UPDATE_RANDOM_TASK, a random-number task takes randomResultAddr,
 * randomCounterAddr, randomSeed, randomNum and, when not NULL,
 * randomParaAddr (its two parameters read there, 8 bytes each, when the
 * task runs) of the aclrtRandomNumTaskInfo at
 * info->val.randomTaskAttr.srcAddr (device memory, size its sizeof); the
 * rest of the task stays. The vendor's checks and codes; the A2 and A3
 * chips and the simulated one have the update (others:
 * ACL_ERROR_RT_FEATURE_NOT_SUPPORT). npu's deviation: the vendor's update
 * runs in stream order on execStream (an AICPU kernel); npu's is
 * synchronous - it waits for execStream's earlier work (a task error of
 * it stays for execStream's next synchronize), reads the struct
 * and makes the model anew before it returns, so the runs queued from
 * then on take the update, and a run of the model queued and not done
 * refuses it (ACL_ERROR_RT_MODEL_UPDATE_FAILED), as do changes of its
 * tasks aclmdlRIUpdate has not taken. ACL_RT_UPDATE_AIC_AIV_TASK: a
 * kernel task (a captured or recorded launch) runs the kernel of binHandle
 * whose function entry is at funcEntryAddr (the first with that tiling
 * key) over the block count at blockDimAddr (1..65535), its arguments and
 * attributes as they were; execStream (not NULL) must be a model's stream
 * or one bound to a model being built, taskStream a model's
 * (ACL_ERROR_RT_STREAM_MODEL), binHandle a loaded binary
 * (ACL_ERROR_RT_INVALID_HANDLE); a task of another kind, an entry no
 * kernel of the binary has, a block count out of range:
 * ACL_ERROR_RT_PARAM_INVALID. npu's deviation: the vendor's update is a
 * task of execStream's model that reads the two values and patches the
 * task when that model runs; npu's reads them and makes the model anew
 * at the call (execStream only checked), with the same refusals as the
 * random-number update (ACL_ERROR_RT_MODEL_UPDATE_FAILED), the runs
 * queued from then on running the new kernel. lib/README.md has the
 * details.
 */
ACL_FUNC_VISIBILITY aclError aclrtTaskUpdateAsync(aclrtStream taskStream, uint32_t taskId, aclrtTaskUpdateInfo *info,
						  aclrtStream execStream);
/*
 * Sets count bytes to (uint8_t)value. Device, managed and registered memory:
 * by the device (in stream order for the async form); another device's
 * memory: by that device, synchronously (the async form waits for the
 * stream first); pageable memory: by the CPU (async: after the stream).
 */
ACL_FUNC_VISIBILITY aclError aclrtMemset(void *devPtr, size_t maxCount, int32_t value, size_t count);
ACL_FUNC_VISIBILITY aclError aclrtMemsetAsync(void *devPtr, size_t maxCount, int32_t value, size_t count,
					      aclrtStream stream);
/*
 * height rows of width bytes, pitches apart; width or height 0 is success
 * before any check, aclInit's too. kind: HOST_TO_DEVICE, DEVICE_TO_HOST,
 * DEVICE_TO_DEVICE (async only: in the synchronous form
 * ACL_ERROR_RT_FEATURE_NOT_SUPPORT) or DEFAULT (resolving to another
 * direction, host to host included: ACL_ERROR_RT_PARAM_INVALID). A pitch
 * of 0, height > 5242880 or width > 5000000: ACL_ERROR_RT_PARAM_INVALID.
 * Device and registered memory: one device command; pageable memory as
 * aclrtMemcpy, whole rows per staging half.
 */
ACL_FUNC_VISIBILITY aclError aclrtMemcpy2d(void *dst, size_t dpitch, const void *src, size_t spitch,
					   size_t width, size_t height, aclrtMemcpyKind kind);
ACL_FUNC_VISIBILITY aclError aclrtMemcpy2dAsync(void *dst, size_t dpitch, const void *src, size_t spitch,
						size_t width, size_t height, aclrtMemcpyKind kind,
						aclrtStream stream);
/*
 * numBatches copies dsts[i] <- srcs[i] of sizes[i] bytes, each host to
 * device or device to host as its attr says (attrs[j] covers the copies
 * from attrsIndexes[j] to the next index). *failIndex is SIZE_MAX, or the
 * copy whose sides are not where its attr says (ACL_ERROR_RT_PARAM_INVALID:
 * device memory must be the copying device's, the current one or the
 * stream's). Copies of size 0 are skipped; all 0: success. Every copy is
 * checked before any is queued; those the device reaches go in one
 * submission (the synchronous form: at most 4096 copies), those with
 * pageable memory follow one by one, done when the call returns.
 */
ACL_FUNC_VISIBILITY aclError aclrtMemcpyBatch(void **dsts, size_t *destMaxs, void **srcs, size_t *sizes,
					      size_t numBatches, aclrtMemcpyBatchAttr *attrs,
					      size_t *attrsIndexes, size_t numAttrs, size_t *failIndex);
ACL_FUNC_VISIBILITY aclError aclrtMemcpyBatchAsync(void **dsts, size_t *destMaxs, void **srcs, size_t *sizes,
						   size_t numBatches, aclrtMemcpyBatchAttr *attrs,
						   size_t *attrsIndexes, size_t numAttrs, size_t *failIndex,
						   aclrtStream stream);
/* The batches without failIndex; otherwise as aclrtMemcpyBatch(Async). */
ACL_FUNC_VISIBILITY aclError aclrtMemcpyBatchV2(void **dsts, size_t *destMaxs, void **srcs, size_t *sizes,
						size_t numBatches, aclrtMemcpyBatchAttr *attrs, size_t *attrsIndexes,
						size_t numAttrs);
ACL_FUNC_VISIBILITY aclError aclrtMemcpyBatchAsyncV2(void **dsts, size_t *destMaxs, void **srcs, size_t *sizes,
						     size_t numBatches, aclrtMemcpyBatchAttr *attrs,
						     size_t *attrsIndexes, size_t numAttrs, aclrtStream stream);
/*
 * N 32-bit words of value at ptr (4-byte aligned; memSize >= 4 * N); N 0
 * is success before any check. The words must lie in one aclrtMalloc* or
 * aclrtMallocHost* allocation of an open device (else
 * ACL_ERROR_INVALID_PARAM: registered host memory and VMM mappings too).
 * Device memory: by its device, in stream order (another device's memory:
 * synchronously, after the stream); host memory: by the CPU before the call
 * returns (async: after the stream's earlier work).
 */
ACL_FUNC_VISIBILITY aclError aclrtMemsetD32(void *ptr, size_t memSize, uint32_t value, size_t N);
ACL_FUNC_VISIBILITY aclError aclrtMemsetD32Async(void *ptr, size_t memSize, uint32_t value, size_t N,
						 aclrtStream stream);

/*
 * == Copies through device memory: descriptors and pointers ==
 *
 * The engine reads the descriptor (or the two pointers) in device memory
 * when the stream gets to the copy. The library reads it at that point of
 * the stream: the call waits for the stream's earlier work, then queues
 * the copy, which the device translates when it runs; an address the
 * device cannot reach (the descriptor's, a pointer's, or one they hold)
 * fails as a task fault (ACL_ERROR_RT_FAILURE at the stream's
 * synchronize). Only kind ACL_MEMCPY_INNER_DEVICE_TO_DEVICE.
 */

/* 32 (the vendor's descriptor of the 910B class); another kind: ACL_ERROR_RT_FEATURE_NOT_SUPPORT */
ACL_FUNC_VISIBILITY aclError aclrtGetMemcpyDescSize(aclrtMemcpyKind kind, size_t *descSize);
/*
 * Writes the descriptor at desc (device memory, 64-byte aligned, else
 * ACL_ERROR_RT_PARAM_INVALID) synchronously: count bytes (at most 4 GiB)
 * from srcAddr to dstAddr, both device memory of one device (else
 * ACL_ERROR_RT_PARAM_INVALID). config must be NULL; a kind other than
 * INNER_DEVICE_TO_DEVICE: ACL_ERROR_RT_FEATURE_NOT_SUPPORT.
 */
ACL_FUNC_VISIBILITY aclError aclrtSetMemcpyDesc(void *desc, aclrtMemcpyKind kind, void *srcAddr, void *dstAddr,
						size_t count, void *config);
/* The copy desc describes, on stream (not NULL), reading desc when the stream gets there. */
ACL_FUNC_VISIBILITY aclError aclrtMemcpyAsyncWithDesc(void *desc, aclrtMemcpyKind kind, aclrtStream stream);
/*
 * count bytes from *src + srcDataOffset to *dst + dstDataOffset: dst and
 * src are where the two base pointers are, in device memory, read when
 * the stream gets there. count 0 is success before any check; every other
 * check is ACL_ERROR_RT_PARAM_INVALID: kind, NULL pointers, count above
 * destMax or 4 GiB, offsets above 2^48 - 1, dstDataOffset + count above
 * destMax.
 */
ACL_FUNC_VISIBILITY aclError aclrtMemcpyAsyncWithOffset(void **dst, size_t destMax, size_t dstDataOffset,
							const void **src, size_t count, size_t srcDataOffset,
							aclrtMemcpyKind kind, aclrtStream stream);

/*
 * == Cache maintenance ==
 *
 * The simulated device has no cache between its engine and its memory. An
 * operation on a stream is a command that moves no data and translates its
 * range through the device's MMU in stream order: a range the device
 * cannot reach faults (ACL_ERROR_RT_FAILURE at the stream's synchronize),
 * as CANN's SDMA task would.
 */

/*
 * devPtr not NULL, size non-zero, a current device: as CANN's runtime on a
 * card attached to its host, there is nothing else to do.
 */
ACL_FUNC_VISIBILITY aclError aclrtMemFlush(void *devPtr, size_t size);
ACL_FUNC_VISIBILITY aclError aclrtMemInvalidate(void *devPtr, size_t size);
/*
 * One command over [src, +size) on stream. src NULL or size 0:
 * ACL_ERROR_INVALID_PARAM; then a chip without CMO tasks (the 310B class)
 * or a cmoType other than the four: ACL_ERROR_RT_FEATURE_NOT_SUPPORT, not
 * recorded as the last error.
 */
ACL_FUNC_VISIBILITY aclError aclrtCmoAsync(void *src, size_t size, aclrtCmoType cmoType, aclrtStream stream);
/*
 * 32; size NULL: ACL_ERROR_RT_PARAM_INVALID. A chip without CMO tasks (the
 * 310B class): ACL_ERROR_RT_FEATURE_NOT_SUPPORT first, for this call and
 * the two below.
 */
ACL_FUNC_VISIBILITY aclError aclrtCmoGetDescSize(size_t *size);
/* Writes the descriptor of [src, +size) at cmoDesc, synchronously; NULL or 0: ACL_ERROR_RT_PARAM_INVALID */
ACL_FUNC_VISIBILITY aclError aclrtCmoSetDesc(void *cmoDesc, void *src, size_t size);
/*
 * aclrtCmoAsync over the range cmoDesc describes, read when the stream
 * gets there. reserve must be NULL; cmoDesc NULL or an unknown cmoType:
 * ACL_ERROR_RT_PARAM_INVALID. Any stream (CANN's 910B path wants one bound
 * to a model, which libacl does not have).
 */
ACL_FUNC_VISIBILITY aclError aclrtCmoAsyncWithDesc(void *cmoDesc, aclrtCmoType cmoType, aclrtStream stream,
						   const void *reserve);
/*
 * The 310B class's barrier CMO tasks (CANN: RT_FEATURE_TASK_ASYNC_CMO).
 * aclrtCmoAsyncWithBarrier queues one command over [src, +size) on
 * stream, as aclrtCmoAsync; an INVALID one carries barrierId, which the
 * context then knows until another task carries it. src NULL:
 * ACL_ERROR_INVALID_PARAM; then, recorded: another chip (the 910B class,
 * the simulated chip) ACL_ERROR_RT_FEATURE_NOT_SUPPORT; size 0, INVALID
 * with barrierId 0, or another operation with one not 0:
 * ACL_ERROR_RT_PARAM_INVALID; an unknown cmoType
 * ACL_ERROR_RT_FEATURE_NOT_SUPPORT; then the stream's codes (107017,
 * 107003).
 */
ACL_FUNC_VISIBILITY aclError aclrtCmoAsyncWithBarrier(void *src, size_t size, aclrtCmoType cmoType,
						      uint32_t barrierId, aclrtStream stream);
/*
 * Queues on stream a wait for the last CMO task that carried each of the
 * taskInfo's barrier ids: the stream's later work runs after them. NULL
 * taskInfo or barrierNum outside 1..6: ACL_ERROR_INVALID_PARAM; an entry
 * not INVALID or with barrierId 0: ACL_ERROR_RT_PARAM_INVALID; then
 * another chip: ACL_ERROR_RT_FEATURE_NOT_SUPPORT; the stream's codes; an
 * id no task of this context carried: ACL_ERROR_RT_STREAM_MODEL (nothing
 * queued). flag is reserved (CANN passes it on unchecked). CANN keeps the
 * ids per model and wants streams bound to one; libacl, which has no
 * models, keeps them per context and takes any of its streams.
 */
ACL_FUNC_VISIBILITY aclError aclrtCmoWaitBarrier(aclrtBarrierTaskInfo *taskInfo, aclrtStream stream, uint32_t flag);

/* == Device memory (continued): attributes, other allocators, queries == */
/*
 * Needs a current device. Device memory of any open device (aclrtMalloc,
 * VMM): DEVICE, its id, the mapping's page size; host memory registered
 * with the current device: HOST, the current device's id; managed memory:
 * MANAGED, the current device's id; anything else: UNREGISTERED, id 0.
 * pageSize 4096 where no other applies.
 */
ACL_FUNC_VISIBILITY aclError aclrtPointerGetAttributes(const void *ptr, aclrtPtrAttributes *attributes);
/* aclrtMalloc without the 32-byte padding: the size is only rounded up to 32 */
ACL_FUNC_VISIBILITY aclError aclrtMallocAlign32(void **devPtr, size_t size, aclrtMemMallocPolicy policy);
/*
 * aclrtMalloc (device memory is coherent already): HUGE_FIRST, HUGE_ONLY,
 * NORMAL_ONLY and HUGE1G_ONLY place as they say; any other value (the _P2P
 * ones, modifier bits, unknown numbers) gets HUGE_FIRST, not an error.
 * Padding as aclrtMalloc's for the value given.
 */
ACL_FUNC_VISIBILITY aclError aclrtMallocCached(void **devPtr, size_t size, aclrtMemMallocPolicy policy);
/*
 * Memory the task scheduler uses (CANN: TS memory): aclrtMalloc memory here,
 * the size rounded up to 32 without padding, placed by the policy's low
 * byte (any other value: HUGE_FIRST). cfg as aclrtMallocWithCfg's, but
 * RSV attributes are skipped and the runtime's refusals are
 * ACL_ERROR_RT_PARAM_INVALID.
 */
ACL_FUNC_VISIBILITY aclError aclrtMallocForTaskScheduler(void **devPtr, size_t size, aclrtMemMallocPolicy policy,
							 aclrtMallocConfig *cfg);
/*
 * aclrtSynchronizeDevice first: if it fails (ACL_ERROR_RT_FAILURE for a
 * task fault) that is the answer and nothing is freed; then aclrtFree /
 * aclrtFreeHost.
 */
ACL_FUNC_VISIBILITY aclError aclrtFreeWithDevSync(void *devPtr);
ACL_FUNC_VISIBILITY aclError aclrtFreeHostWithDevSync(void *hostPtr);
/*
 * Start and size of the aclrtMalloc* allocation (padding and page tail
 * included), aclrtMallocHost* allocation or aclrtMapMem mapping holding
 * ptr, of the range an IPC import's key named, or of the managed
 * allocation. Either output may be NULL, not both. Anything else
 * (registered host memory, a reservation with nothing mapped there, freed
 * memory): ACL_ERROR_RT_PARAM_INVALID. No current device needed.
 */
ACL_FUNC_VISIBILITY aclError aclrtMemGetAddressRange(void *ptr, void **pbase, size_t *psize);
/*
 * Up to inputNum of three components, largest current usage first, in
 * bytes as allocated: "device" (every process's memory on the device; its
 * peak since the device was created or npu-smi reset-counters ran),
 * "aclrtMalloc" and "aclrtMallocPhysical" (this process's; 0 while the
 * device is not open, from 0 again at each open).
 * *outputNum is the number written. No current device needed.
 */
ACL_FUNC_VISIBILITY aclError aclrtGetMemUsageInfo(int32_t deviceId, aclrtMemUsageInfo *memUsageInfo, size_t inputNum,
						  size_t *outputNum);
/*
 * *checkResult is 1 if every address has a type in memType: DEV inside an
 * aclrtMalloc* allocation or IPC import, RSVD inside an
 * aclrtReserveMemAddress range (mapped or not); nothing is DVPP; host and
 * managed memory have no type. Needs a current device.
 */
ACL_FUNC_VISIBILITY aclError aclrtCheckMemType(void **addrList, uint32_t size, uint32_t memType, uint32_t *checkResult,
					       uint32_t reserve);
/*
 * PCIEDMA and SDMA: SUPPORTED (the device's DMA engine runs every copy and
 * memset); the other engines: NOT_SUPPORTED. No device needs to be set.
 */
ACL_FUNC_VISIBILITY aclError aclrtHostMemMapCapabilities(uint32_t deviceId, aclrtHacType hacType,
							 aclrtHostMemMapCapability *capabilities);

/*
 * == Managed memory ==
 *
 * Host memory that every open device mirrors at the same address and
 * reaches coherently, faulting the pages in as it touches them. There is no
 * device copy of the data: nothing migrates, a prefetch only prepares a
 * device's mappings, advice changes no result. It is not pinned; the driver
 * bounds what a device mirrors (npu.ko's max_mirror_pages), and a device
 * access past that fails as a task fault. Copies and memsets take managed
 * pointers on any device, with any kind naming host or device memory. A
 * forked child keeps the memory (copy-on-write).
 */

/*
 * flag must be ACL_RT_MEM_ATTACH_GLOBAL; size 0: ACL_ERROR_RT_PARAM_INVALID;
 * needs a current device. 2 MiB aligned, the size rounded up to 2 MiB,
 * contents zero; mirrored on every device open now or later. Free it with
 * aclrtFree.
 */
ACL_FUNC_VISIBILITY aclError aclrtMemAllocManaged(void **ptr, uint64_t size, uint32_t flag);
/*
 * Recorded per 2 MiB granule (the range rounded out to granules) for
 * aclrtMemManagedGetAttr, nothing else. The range must lie in one
 * allocation, and ACCESSED_BY needs a DEVICE location
 * (ACL_ERROR_RT_PARAM_INVALID).
 */
ACL_FUNC_VISIBILITY aclError aclrtMemManagedAdvise(const void *const ptr, uint64_t size,
						   aclrtMemManagedAdviseType advise,
						   aclrtMemManagedLocation location);
/*
 * flags must be 0. To a device: the stream must be of that device (else
 * ACL_ERROR_RT_PARAM_INVALID); queues a prefetch that faults the range in
 * for the device's reads, in stream order. To the host: nothing is queued.
 * Either way the LAST_PREFETCH_* attributes record it.
 */
ACL_FUNC_VISIBILITY aclError aclrtMemManagedPrefetchAsync(const void *ptr, size_t size,
							  aclrtMemManagedLocation location, uint32_t flags,
							  aclrtStream stream);
/*
 * dataSize 4 (ACCESSED_BY: a non-zero multiple of 4). Ids: a device id, -1
 * for the host, -2 unset or mixed over the range; READ_MOSTLY 1 when set on
 * every granule; ACCESSED_BY: the devices set on the whole range, ascending,
 * the rest of the array -2.
 */
ACL_FUNC_VISIBILITY aclError aclrtMemManagedGetAttr(aclrtMemManagedRangeAttribute attribute, const void *ptr,
						    size_t size, void *data, size_t dataSize);
/*
 * aclrtMemManagedGetAttr for numAttributes attributes, each into data[i]
 * of dataSizes[i] bytes; an unknown attribute, numAttributes 0, a NULL
 * data[i] or a wrong dataSizes[i]: ACL_ERROR_RT_PARAM_INVALID.
 */
ACL_FUNC_VISIBILITY aclError aclrtMemManagedGetAttrs(aclrtMemManagedRangeAttribute *attributes, size_t numAttributes,
						     const void *ptr, size_t size, void **data, size_t *dataSizes);
/*
 * aclrtMemManagedPrefetchAsync of each range, prefetchLocs[k] applying from
 * prefetchLocIdxs[k] to the next index (the first 0, increasing, below
 * count, else ACL_ERROR_RT_PARAM_INVALID); everything is checked before
 * anything is queued.
 */
ACL_FUNC_VISIBILITY aclError aclrtMemManagedPrefetchBatchAsync(const void **ptrs, size_t *sizes, size_t count,
							       aclrtMemManagedLocation *prefetchLocs,
							       size_t *prefetchLocIdxs, size_t numPrefetchLocs,
							       uint64_t flags, aclrtStream stream);

/*
 * == Virtual memory management ==
 *
 * Physical handles (aclrtMallocPhysical) of 2 MiB or 1 GiB pages, mapped
 * whole into address ranges reserved with aclrtReserveMemAddress. Handles,
 * ranges and mappings are per device: reserving, mapping and access calls
 * work on the current device's, aclrtMallocPhysical on prop's device. As in CANN, aclrtMapMem gives
 * the handle's device read-write access at once; aclrtMemMapNoAccess maps
 * with no access, and aclrtMemSetAccess grants it, to that device and to
 * peers.
 */

/*
 * 2 MiB, or 1 GiB for the HUGE1G memAttrs. prop is checked as
 * aclrtMallocPhysical checks it, but its device need not be the current one.
 */
ACL_FUNC_VISIBILITY aclError aclrtMemGetAllocationGranularity(aclrtPhysicalMemProp *prop,
							      aclrtMemGranularityOptions option,
							      size_t *granularity);
/*
 * flags must be 0; prop as aclrtPhysicalMemProp says; size a non-zero
 * multiple of the granularity. On device location.id, current or not (as
 * CANN), which some thread of this process has set (else
 * ACL_ERROR_RT_CONTEXT_NULL).
 */
ACL_FUNC_VISIBILITY aclError aclrtMallocPhysical(aclrtDrvMemHandle *handle, size_t size,
						 const aclrtPhysicalMemProp *prop, uint64_t flags);
/*
 * Drops one reference (see aclrtMemRetainAllocationHandle); after the last
 * the handle is gone, its memory stays while a mapping holds it.
 */
ACL_FUNC_VISIBILITY aclError aclrtFreePhysical(aclrtDrvMemHandle handle);
/*
 * As CANN's: flags 0 or 1 (the same), size non-zero (else
 * ACL_ERROR_INVALID_PARAM); alignment must be 0 (ACL_ERROR_RT_PARAM_INVALID).
 * Up to 512 MiB the size is rounded up to whole 2 MiB (2 MiB aligned),
 * above it to whole GiBs (1 GiB aligned); handles map anywhere in the
 * rounded range. expectPtr, if not NULL, is the address to reserve: 1 GiB
 * aligned above 512 MiB, else 2 MiB aligned and, above 2 MiB, aligned to
 * the size's power of two (else ACL_ERROR_RT_PARAM_INVALID); a range in
 * use fails (ACL_ERROR_RT_MEMORY_ALLOCATION). Needs a current device.
 */
ACL_FUNC_VISIBILITY aclError aclrtReserveMemAddress(void **virPtr, size_t size, size_t alignment,
						    void *expectPtr, uint64_t flags);
/* virPtr: the start of a range of the current device with no mapping left; releases all of it */
ACL_FUNC_VISIBILITY aclError aclrtReleaseMemAddress(void *virPtr);
/*
 * aclrtReserveMemAddress at a given address (expectPtr NULL:
 * ACL_ERROR_RT_FEATURE_NOT_SUPPORT) of whole GiBs (else
 * ACL_ERROR_RT_PARAM_INVALID). CANN keeps such memory from operators that
 * bypass the L2 cache; the simulated chip has none.
 */
ACL_FUNC_VISIBILITY aclError aclrtReserveMemAddressNoUCMemory(void **virPtr, size_t size, size_t alignment,
							      void *expectPtr, uint64_t flags);
/*
 * Maps the whole handle (size its size, offset 0, flags 0) at virPtr,
 * aligned to its page size, inside one reserved range; handle and range of
 * the current device. The handle's device reads and writes the mapping at
 * once; peers need aclrtMemSetAccess. NULL virPtr or handle, size 0 or
 * flags != 0: ACL_ERROR_INVALID_PARAM; offset != 0:
 * ACL_ERROR_RT_PARAM_INVALID.
 */
ACL_FUNC_VISIBILITY aclError aclrtMapMem(void *virPtr, size_t size, size_t offset, aclrtDrvMemHandle handle,
					 uint64_t flags);
/*
 * As aclrtMapMem, but the mapping starts with no access, not even for the
 * handle's device: call aclrtMemSetAccess before accessing the range.
 */
ACL_FUNC_VISIBILITY aclError aclrtMemMapNoAccess(void *virPtr, size_t size, size_t offset,
						 aclrtDrvMemHandle handle, uint64_t flags);
/* virPtr: the start of a mapping of the current device */
ACL_FUNC_VISIBILITY aclError aclrtUnmapMem(void *virPtr);
/*
 * Sets desc[i].location.id's rights on [virPtr, +size): 4 KiB aligned,
 * whole mappings, all mapped. The current device's id rules its own DMA
 * engine, another device's id that peer's (READ to copy from it, READWRITE
 * to copy to it). Every desc is checked before any applies. A HOST
 * location: ACL_ERROR_FEATURE_UNSUPPORTED (the CPU never maps device
 * memory here).
 */
ACL_FUNC_VISIBILITY aclError aclrtMemSetAccess(void *virPtr, size_t size, aclrtMemAccessDesc *desc, size_t count);
/* The rights of location->id on the mapping holding virPtr; HOST: ACL_ERROR_FEATURE_UNSUPPORTED */
ACL_FUNC_VISIBILITY aclError aclrtMemGetAccess(void *virPtr, aclrtMemLocation *location, uint64_t *flag);
/*
 * virPtr: the start of a mapping of any open device, else
 * ACL_ERROR_RT_PARAM_INVALID. Answers the handle mapped there and adds a
 * reference: one more aclrtFreePhysical each. Its handle freed already (the
 * mapping alone holds the memory): ACL_ERROR_RT_PARAM_INVALID.
 */
ACL_FUNC_VISIBILITY aclError aclrtMemRetainAllocationHandle(void *virPtr, aclrtDrvMemHandle *handle);
/*
 * As CANN: handleType NONE, allocationType PINNED, the handle's device,
 * and the memAttr requested, whatever pages back it (a NORMAL memAttr has
 * 2 MiB pages and reports NORMAL); ACL_MEM_NORMAL, _HUGE and _HUGE1G read
 * back as their ACL_HBM_MEM_ names. Imports report their page size
 * (ACL_HBM_MEM_HUGE or _HUGE1G). A handle that is not live:
 * ACL_ERROR_INVALID_PARAM.
 */
ACL_FUNC_VISIBILITY aclError aclrtMemGetAllocationPropertiesFromHandle(aclrtDrvMemHandle handle,
								       aclrtPhysicalMemProp *prop);
/*
 * Maps, at virPtrDst (the start of a free stretch of a reservation of the
 * current device), the handles mapped from virPtrSrc on (each mapping whole,
 * from its start), until size is covered, over link linkIdx (1, HCCS; 0,
 * SIO: ACL_ERROR_RT_LINK_TYPE_NOT_SUPPORTED). Mappings made before a
 * failure stay.
 */
ACL_FUNC_VISIBILITY aclError aclrtMemMapSelectedLink(void *virPtrDst, size_t size, void *virPtrSrc, uint32_t linkIdx);
/*
 * The link later mappings of handle use: HCCS; the others
 * ACL_ERROR_RT_LINK_TYPE_NOT_SUPPORTED, a value outside the enum
 * ACL_ERROR_RT_PARAM_INVALID, a handle that is not live
 * ACL_ERROR_INVALID_PARAM.
 */
ACL_FUNC_VISIBILITY aclError aclrtMemMapSetLink(aclrtDrvMemHandle handle, aclrtMemLinkType adviceLink);

/*
 * == Shareable handles and peer access ==
 *
 * A shareable handle is the driver's random 64-bit name of one exported
 * physical handle. Another process may import it if its pid is listed (or
 * the export disabled pid validation) and it runs as the exporter's
 * effective uid (unless the exporter had CAP_SYS_ADMIN); unknown, revoked
 * and not allowed names all answer ACL_ERROR_INVALID_PARAM, so names cannot
 * be probed. The name dies when the exporter frees its handle or closes its
 * device; imported memory lives on.
 */

/*
 * flags: DEFAULT or DISABLE_PID_VALIDATION. handleType NONE (CANN's only
 * value): the name, once per handle (again: ACL_ERROR_INVALID_PARAM); an
 * imported handle has none. POSIX (ours): *shareableHandle is a new
 * dma-buf fd of the memory, read-write and close-on-exec, the caller's to
 * close; it has no pid list, so both flags mean the same; any number of
 * times, handles imported by name too. The memory stays while the fd, a CPU
 * mapping of it or an importing device holds it. An npu driver without
 * dma-buf export: ACL_ERROR_FEATURE_UNSUPPORTED; the driver's max_dmabufs,
 * or no free fd: ACL_ERROR_RT_MEMORY_ALLOCATION. Other drivers import such
 * an fd, and so does aclrtMemImportFromShareableHandleV2 with
 * ACL_MEM_SHARE_HANDLE_TYPE_POSIX_FD (ours).
 */
ACL_FUNC_VISIBILITY aclError aclrtMemExportToShareableHandle(aclrtDrvMemHandle handle,
							     aclrtMemHandleType handleType, uint64_t flags,
							     uint64_t *shareableHandle);
/*
 * As CANN: deviceId must name a device (else ACL_ERROR_RT_INVALID_DEVICEID),
 * any one; a current context is needed (ACL_ERROR_RT_CONTEXT_NULL). The
 * memory stays on the exporter's device, and the handle is that device's,
 * which some thread of this process must have set (else
 * ACL_ERROR_RT_CONTEXT_NULL). Imported onto another device than the
 * current, it is peer memory: peer access is enabled both ways between the
 * current device and the exporter's (one reference each, never dropped by
 * the import). Exported by this process: ACL_ERROR_INVALID_PARAM. The
 * handle maps with aclrtMapMem at the exporter's size.
 */
ACL_FUNC_VISIBILITY aclError aclrtMemImportFromShareableHandle(uint64_t shareableHandle, int32_t deviceId,
							       aclrtDrvMemHandle *handle);
/*
 * Adds to the list of a name this process exported (as CANN): 1 to 1024
 * pids, as aclrtDeviceGetBareTgid gives them (this pid namespace), naming
 * processes at the time of the call; 0 entries are skipped, only 0s:
 * ACL_ERROR_RT_PARAM_INVALID; a negative pid: ACL_ERROR_INVALID_PARAM; a
 * pid naming no process: ACL_ERROR_INVALID_PARAM, the list unchanged. The
 * list holds at most 1024 processes (more: ACL_ERROR_RT_PARAM_INVALID).
 * No current device needed.
 */
ACL_FUNC_VISIBILITY aclError aclrtMemSetPidToShareableHandle(uint64_t shareableHandle, int32_t *pid,
							     size_t pidNum);
/*
 * V2: ACL_MEM_SHARE_HANDLE_TYPE_DEFAULT is V1 (the name as a uint64_t at
 * shareableHandle, which need not be aligned), so V1 and V2 names mix;
 * FABRIC: ACL_ERROR_RT_FEATURE_NOT_SUPPORT; another type:
 * ACL_ERROR_RT_PARAM_INVALID. Export: flags above 1
 * ACL_ERROR_RT_PARAM_INVALID. Import: flags must be 0; for the current
 * device, as V1. SetPid: pidNum 0 ACL_ERROR_INVALID_PARAM.
 *
 * POSIX_FD (ours) is a dma-buf: shareableHandle points to an int fd.
 * Export writes a new fd of the handle's memory, as V1's
 * ACL_MEM_HANDLE_TYPE_POSIX. Import takes any dma-buf fd of the process
 * (the caller keeps it and may close it at once: the handle holds the
 * buffer) onto the current device: npu's own of that device is its
 * memory; another device's, or another driver's buffer (DRM, udmabuf,
 * V4L2, ...), is memory that only the current device reaches in place,
 * mapped in 4 KiB pages (map it with aclrtMapMem at its whole size,
 * lseek(fd, 0, SEEK_END)); not aclrtMemExportToShareableHandle'd again,
 * no peer access. Not an open fd, or not a dma-buf, or a size that is
 * not whole pages: ACL_ERROR_INVALID_PARAM; a driver older than 1.7:
 * ACL_ERROR_FEATURE_UNSUPPORTED; DMA that cannot reach the buffer in
 * place: ACL_ERROR_RT_FEATURE_NOT_SUPPORT. SetPid: an fd has no pid list
 * (pass the fd itself, SCM_RIGHTS): ACL_ERROR_RT_PARAM_INVALID.
 */
ACL_FUNC_VISIBILITY aclError aclrtMemExportToShareableHandleV2(aclrtDrvMemHandle handle, uint64_t flags,
							       aclrtMemSharedHandleType shareType,
							       void *shareableHandle);
ACL_FUNC_VISIBILITY aclError aclrtMemImportFromShareableHandleV2(void *shareableHandle,
								 aclrtMemSharedHandleType shareType, uint64_t flags,
								 aclrtDrvMemHandle *handle);
ACL_FUNC_VISIBILITY aclError aclrtMemSetPidToShareableHandleV2(void *shareableHandle,
							       aclrtMemSharedHandleType shareType, int32_t *pid,
							       size_t pidNum);
/*
 * The caller's pid in its own pid namespace, getpid() (CANN: the host
 * pid), as the pid lists want it. Asks an open device, else opens a
 * /dev/npuN briefly; none at all: ACL_ERROR_RT_NO_DEVICE.
 */
ACL_FUNC_VISIBILITY aclError aclrtDeviceGetBareTgid(int32_t *pid);
/*
 * 1 for any two existing devices (every DMA engine reaches every device's
 * memory); the same id twice: ACL_ERROR_INVALID_PARAM. No device needed.
 */
ACL_FUNC_VISIBILITY aclError aclrtDeviceCanAccessPeer(int32_t *canAccessPeer, int32_t deviceId,
						      int32_t peerDeviceId);
/*
 * One direction: the current device's DMA engine may reach peerDeviceId's
 * aclrtMalloc memory, and its VMM mappings that grant it, until access is
 * disabled or the current device closes. Counted, as CANN's driver counts
 * it: enabling again takes one more reference (no error), and each
 * aclrtDeviceDisablePeerAccess drops one. flags other than 0:
 * ACL_ERROR_FEATURE_UNSUPPORTED; the current device itself:
 * ACL_ERROR_INVALID_PARAM. The peer need not be set.
 */
ACL_FUNC_VISIBILITY aclError aclrtDeviceEnablePeerAccess(int32_t peerDeviceId, uint32_t flags);
/*
 * devPtr..+size inside one aclrtMalloc allocation (else
 * ACL_ERROR_RT_PARAM_INVALID); dstDevId's engine may then reach it. That
 * needs peer access from dstDevId to the memory's device (else
 * ACL_ERROR_RT_PARAM_INVALID) and dstDevId set in this process (else
 * ACL_ERROR_RT_CONTEXT_NULL); the mapping itself is made when peer access
 * is enabled. flags must be 0.
 */
ACL_FUNC_VISIBILITY aclError aclrtMemP2PMap(void *devPtr, size_t size, int32_t dstDevId, uint64_t flags);

/* aclrtGetDevicesTopo: how two devices are connected, one bit */
#define ACL_RT_DEVS_TOPOLOGY_HCCS 0x01ULL
#define ACL_RT_DEVS_TOPOLOGY_PIX 0x02ULL
#define ACL_RT_DEVS_TOPOLOGY_PIB 0x04ULL
#define ACL_RT_DEVS_TOPOLOGY_PHB 0x08ULL
#define ACL_RT_DEVS_TOPOLOGY_SYS 0x10ULL
#define ACL_RT_DEVS_TOPOLOGY_SIO 0x20ULL
#define ACL_RT_DEVS_TOPOLOGY_HCCS_SW 0x40ULL

/*
 * ACL_RT_DEVS_TOPOLOGY_HCCS for a device and itself (as CANN); PIX for two
 * devices, which reach each other as peers through the driver (CANN's
 * driver reports every PCIe relation as PIX). An id naming no device:
 * ACL_ERROR_RT_PARAM_INVALID (CANN's driver answer). No device needs to
 * be set.
 */
ACL_FUNC_VISIBILITY aclError aclrtGetDevicesTopo(uint32_t deviceId, uint32_t otherDeviceId, uint64_t *value);

typedef enum aclrtAtomicOperationCapability {
	ACL_RT_ATOMIC_CAPABILITY_SIGNED = 1U << 0,
	ACL_RT_ATOMIC_CAPABILITY_UNSIGNED = 1U << 1,
	ACL_RT_ATOMIC_CAPABILITY_REDUCATION = 1U << 2,	/* deprecated spelling */
	ACL_RT_ATOMIC_CAPABILITY_REDUCTION = 1U << 2,
	ACL_RT_ATOMIC_CAPABILITY_SCALAR8 = 1U << 3,
	ACL_RT_ATOMIC_CAPABILITY_SCALAR16 = 1U << 4,
	ACL_RT_ATOMIC_CAPABILITY_SCALAR32 = 1U << 5,
	ACL_RT_ATOMIC_CAPABILITY_SCALAR64 = 1U << 6,
	ACL_RT_ATOMIC_CAPABILITY_SCALAR128 = 1U << 7,
	ACL_RT_ATOMIC_CAPABILITY_VECTOR32X4 = 1U << 8,
} aclrtAtomicOperationCapability;

typedef enum aclrtAtomicOperation {
	ACL_RT_ATOMIC_OPERATION_INTEGER_ADD = 0,
	ACL_RT_ATOMIC_OPERATION_INTEGER_MIN = 1,
	ACL_RT_ATOMIC_OPERATION_INTEGER_MAX = 2,
	ACL_RT_ATOMIC_OPERATION_INTEGER_INCREMENT = 3,
	ACL_RT_ATOMIC_OPERATION_INTEGER_DECREMENT = 4,
	ACL_RT_ATOMIC_OPERATION_AND = 5,
	ACL_RT_ATOMIC_OPERATION_OR = 6,
	ACL_RT_ATOMIC_OPERATION_XOR = 7,
	ACL_RT_ATOMIC_OPERATION_EXCHANGE = 8,
	ACL_RT_ATOMIC_OPERATION_CAS = 9,
	ACL_RT_ATOMIC_OPERATION_FLOAT_ADD = 10,
	ACL_RT_ATOMIC_OPERATION_FLOAT_MIN = 11,
	ACL_RT_ATOMIC_OPERATION_FLOAT_MAX = 12,
	ACL_RT_ATOMIC_OPERATION_DMA_ADD = 30,
	ACL_RT_ATOMIC_OPERATION_DMA_MIN = 31,
	ACL_RT_ATOMIC_OPERATION_DMA_MAX = 32,
	ACL_RT_ATOMIC_OPERATION_SIMD_SCALAR_ADD = 40,
	ACL_RT_ATOMIC_OPERATION_SIMD_SCALAR_MIN = 41,
	ACL_RT_ATOMIC_OPERATION_SIMD_SCALAR_MAX = 42,
	ACL_RT_ATOMIC_OPERATION_SIMD_SCALAR_CAS = 43,
	ACL_RT_ATOMIC_OPERATION_SIMD_SCALAR_EXCH = 44,
} aclrtAtomicOperation;

/*
 * capabilities[i]: the aclrtAtomicOperationCapability bits of
 * operations[i] between a device and the host (Host) or from srcDeviceId
 * to dstDeviceId (P2P): 0 for every operation here, as CANN answers on a
 * 910B with PCIe links (the simulated engine has no atomic commands, and
 * its devices are PIX to each other). As CANN's runtime checks them, in
 * this order: capabilities or operations NULL, count 0:
 * ACL_ERROR_RT_PARAM_INVALID; the same id twice (P2P), an id naming no
 * device: ACL_ERROR_RT_INVALID_DEVICEID; an operation outside 0..44:
 * ACL_ERROR_RT_PARAM_INVALID.
 */
ACL_FUNC_VISIBILITY aclError aclrtDeviceGetHostAtomicCapabilities(uint32_t *capabilities,
								  const aclrtAtomicOperation *operations,
								  const uint32_t count, int32_t deviceId);
ACL_FUNC_VISIBILITY aclError aclrtDeviceGetP2PAtomicCapabilities(uint32_t *capabilities,
								 const aclrtAtomicOperation *operations,
								 const uint32_t count, int32_t srcDeviceId,
								 int32_t dstDeviceId);

/*
 * == IPC memory ==
 *
 * aclrtMalloc memory shared with other processes by a key,
 * "npu<N>-ipc-<16 hex digits>": the memory's device and the driver's random
 * name (len must hold it and its NUL, under 32 bytes: CANN's 65 always
 * fits; a string not spelled exactly so: ACL_ERROR_RT_PARAM_INVALID). Each
 * call needs a current device, and a key's device must be set in this
 * process by some thread (else ACL_ERROR_RT_CONTEXT_NULL;
 * aclrtIpcMemSetAttr does not look at the key). An importer must run as
 * the exporter's effective uid (unless the exporter had CAP_SYS_ADMIN),
 * with or without DISABLE_PID_VALIDATION. The pages stay while any import
 * maps them, whatever the exporter does (free, close, exit).
 */

#define ACL_RT_IPC_MEM_EXPORT_FLAG_DEFAULT 0x0UL
#define ACL_RT_IPC_MEM_EXPORT_FLAG_DISABLE_PID_VALIDATION 0x1UL
#define ACL_RT_IPC_MEM_IMPORT_FLAG_DEFAULT 0x0UL
#define ACL_RT_IPC_MEM_IMPORT_FLAG_ENABLE_PEER_ACCESS 0x1UL

typedef enum aclrtIpcMemAttrType {
	ACL_RT_IPC_MEM_ATTR_ACCESS_LINK = 0,
} aclrtIpcMemAttrType;

#define ACL_RT_IPC_MEM_ATTR_ACCESS_LINK_SIO 0
#define ACL_RT_IPC_MEM_ATTR_ACCESS_LINK_HCCS 1
#define ACL_RT_IPC_MEM_ATTR_ACCESS_LINK_UB_ONE_PORT_PATH 2
#define ACL_RT_IPC_MEM_ATTR_ACCESS_LINK_UB_MULTI_PORT_PATH 3

/*
 * The range: inside one aclrtMalloc* allocation of the current device,
 * start and size multiples of its page size; else
 * ACL_ERROR_RT_PARAM_INVALID. Each call makes a new key; aclrtFree of the
 * memory, or the exporter's exit, destroys its keys.
 */
ACL_FUNC_VISIBILITY aclError aclrtIpcMemGetExportKey(void *devPtr, size_t size, char *key, size_t len,
						     uint64_t flags);
/*
 * Adds pids to the key's list (at most 1024 in all; pids as
 * aclrtMemSetPidToShareableHandle takes them). Not this process's key, a
 * closed one, or a pid naming no process: ACL_ERROR_RT_PARAM_INVALID.
 */
ACL_FUNC_VISIBILITY aclError aclrtIpcMemSetImportPid(const char *key, int32_t *pid, size_t num);
/*
 * Maps the memory on the device it lives on (one device's MMU maps only its
 * own memory); if that is not the current device, the pointer is peer
 * memory for it: ENABLE_PEER_ACCESS enables peer access both ways between
 * the two (a reference each way), else copies need
 * aclrtDeviceEnablePeerAccess. Each import is a
 * new mapping. A key unknown, closed, freed or not allowed to this process:
 * ACL_ERROR_RT_NO_PERMISSION (alike, so keys cannot be probed); the
 * exporting process itself: ACL_ERROR_RT_PARAM_INVALID.
 */
ACL_FUNC_VISIBILITY aclError aclrtIpcMemImportByKey(void **devPtr, const char *key, uint64_t flags);
/*
 * In a process holding imports of the key: unmaps the oldest one; else
 * destroys the key if this process exported it, else (a second close too)
 * ACL_ERROR_RT_PARAM_INVALID.
 */
ACL_FUNC_VISIBILITY aclError aclrtIpcMemClose(const char *key);
/*
 * key NULL, a type other than ACCESS_LINK or a link outside 0..3:
 * ACL_ERROR_RT_PARAM_INVALID; a valid one: ACL_ERROR_RT_FEATURE_NOT_SUPPORT
 * (the simulated devices have one link: nothing to choose).
 */
ACL_FUNC_VISIBILITY aclError aclrtIpcMemSetAttr(const char *key, aclrtIpcMemAttrType type, uint64_t attr);
/*
 * Lists processes of the servers of a super pod as importers of key, entry
 * by entry. On the A3 super-pod parts (npu.ko's soc_name Ascend910_93xx)
 * the simulated super pod is this one server (id 0: the SUPER_POD_* device
 * attributes): an entry whose sdid names server 0 lists its pids as
 * aclrtIpcMemSetImportPid does (and with its codes); one naming another
 * server fails with ACL_ERROR_RT_INVALID_HANDLE, as CANN's driver when
 * that server does not answer; the entries before a failing one stay
 * listed. key or serverPids NULL, num 0, an entry's pid NULL or num
 * outside 1..31, a key of 0 or more than 64 characters:
 * ACL_ERROR_RT_PARAM_INVALID. Other chips (no super pod): each entry's
 * checks, then ACL_ERROR_RT_FEATURE_NOT_SUPPORT, not recorded.
 */
ACL_FUNC_VISIBILITY aclError aclrtIpcMemImportPidInterServer(const char *key, aclrtServerPid *serverPids,
							     size_t num);

/*
 * == Shared buffers (mbuf) ==
 *
 * A shared buffer is a header - the data length set so far, a chain link
 * and a 256-byte private area, of which the calls below reach the first
 * 96 bytes - over a data block that reference copies share. Chains hold at
 * most 128 buffers. The data block is host memory of the process, aligned
 * to 64 bytes, that copies take as any host memory (CANN's is memory of
 * its buffer manager that the device also sees). Only aclrtAllocBuf needs
 * aclInit; buffers outlive aclFinalize until freed.
 *
 * Codes, as CANN's buffer manager answers them: NULL arguments
 * ACL_ERROR_INVALID_PARAM (acl layer); a pointer that is no live buffer,
 * or a buffer in the middle of a chain where a chain's head is needed,
 * ACL_ERROR_RT_PARAM_INVALID.
 */
/*
 * A buffer of @size bytes (1 to 4 GiB; 0: ACL_ERROR_INVALID_PARAM, more:
 * ACL_ERROR_RT_PARAM_INVALID), data length 0, private area zeroed.
 */
ACL_FUNC_VISIBILITY aclError aclrtAllocBuf(aclrtMbuf *buf, size_t size);
/*
 * Free @buf and every buffer chained after it; the head of a chain only.
 * A data block goes with its last reference.
 */
ACL_FUNC_VISIBILITY aclError aclrtFreeBuf(aclrtMbuf buf);
/* The data block (shared with reference copies) and its size */
ACL_FUNC_VISIBILITY aclError aclrtGetBufData(const aclrtMbuf buf, void **dataPtr, size_t *size);
/* The data length set by aclrtSetBufDataLen (0 before), of this header */
ACL_FUNC_VISIBILITY aclError aclrtGetBufDataLen(aclrtMbuf buf, size_t *len);
/* Set this header's data length: 1 to the block's size, else ACL_ERROR_RT_PARAM_INVALID */
ACL_FUNC_VISIBILITY aclError aclrtSetBufDataLen(aclrtMbuf buf, size_t len);
/*
 * Copy @size bytes between @dataPtr and the private area at @offset.
 * @size + @offset above 96: ACL_ERROR_INVALID_PARAM, checked first. As
 * CANN's bounded copy does, aclrtGetBufUserData of 0 bytes fails
 * (ACL_ERROR_FAILURE), aclrtSetBufUserData of 0 bytes succeeds.
 */
ACL_FUNC_VISIBILITY aclError aclrtSetBufUserData(aclrtMbuf buf, const void *dataPtr, size_t size, size_t offset);
ACL_FUNC_VISIBILITY aclError aclrtGetBufUserData(const aclrtMbuf buf, void *dataPtr, size_t size, size_t offset);
/*
 * New headers over the same data blocks, for @buf and the buffers chained
 * after it, chained alike; each with @buf's data length and private area.
 */
ACL_FUNC_VISIBILITY aclError aclrtCopyBufRef(const aclrtMbuf buf, aclrtMbuf *newBuf);
/*
 * Chain @buf (a head, with its own chain) after the last buffer of the
 * chain @headBuf heads. Both must be heads (ACL_ERROR_RT_PARAM_INVALID);
 * the same buffer twice: ACL_ERROR_RT_DRV_INTERNAL_ERROR; more than 128
 * together: ACL_ERROR_RT_OVER_LIMIT.
 */
ACL_FUNC_VISIBILITY aclError aclrtAppendBufChain(aclrtMbuf headBuf, aclrtMbuf buf);
/* The number of buffers in the chain @headBuf heads */
ACL_FUNC_VISIBILITY aclError aclrtGetBufChainNum(aclrtMbuf headBuf, uint32_t *num);
/*
 * The @index-th buffer (0: @headBuf) of the chain. @index 128 or more:
 * ACL_ERROR_RT_PARAM_INVALID; past the chain's end:
 * ACL_ERROR_RT_DRV_INTERNAL_ERROR (CANN's codes).
 */
ACL_FUNC_VISIBILITY aclError aclrtGetBufFromChain(aclrtMbuf headBuf, uint32_t index, aclrtMbuf *buf);

/*
 * == Device queries, peer access status, device resource limits ==
 *
 * A query that names a device by id asks the driver through the process's
 * context of the device, or one opened for the call: no aclrtSetDevice
 * needed (the resource limits excepted). The simulated chip is modelled on
 * a 910B-class part; where the driver has no figure, libacl answers a
 * constant.
 */

typedef enum aclrtRunMode {
	ACL_DEVICE = 0,
	ACL_HOST = 1,
} aclrtRunMode;

/* aclrtGetDeviceInfo attributes (its comment gives the answers) */
typedef enum {
	ACL_DEV_ATTR_AICPU_CORE_NUM = 1,
	ACL_DEV_ATTR_AICORE_CORE_NUM = 101,
	ACL_DEV_ATTR_CUBE_CORE_NUM = 102,
	ACL_DEV_ATTR_VECTOR_CORE_NUM = 201,
	ACL_DEV_ATTR_WARP_SIZE = 202,
	ACL_DEV_ATTR_MAX_THREAD_PER_VECTOR_CORE = 203,
	ACL_DEV_ATTR_UBUF_PER_VECTOR_CORE = 204,
	ACL_DEV_ATTR_LOCAL_MEM_PER_VECTOR_CORE = 204,	/* deprecated spelling */
	ACL_DEV_ATTR_MAX_GRID_DIM_X = 205,
	ACL_DEV_ATTR_MAX_GRID_DIM_Y = 206,
	ACL_DEV_ATTR_MAX_GRID_DIM_Z = 207,
	ACL_DEV_ATTR_MAX_BLOCK_PER_GRID = 208,
	ACL_DEV_ATTR_MAX_THREADS_PER_BLOCK = 209,
	ACL_DEV_ATTR_MAX_BLOCK_DIM_X = 210,
	ACL_DEV_ATTR_MAX_BLOCK_DIM_Y = 211,
	ACL_DEV_ATTR_MAX_BLOCK_DIM_Z = 212,
	ACL_DEV_ATTR_TOTAL_GLOBAL_MEM_SIZE = 301,
	ACL_DEV_ATTR_L2_CACHE_SIZE = 302,
	ACL_DEV_ATTR_SMP_ID = 401,
	ACL_DEV_ATTR_PHY_CHIP_ID = 402,
	ACL_DEV_ATTR_SUPER_POD_DEVICE_ID = 403,
	ACL_DEV_ATTR_SUPER_POD_DEVIDE_ID = 403,	/* the vendor's older spelling */
	ACL_DEV_ATTR_SUPER_POD_SERVER_ID = 404,
	ACL_DEV_ATTR_SUPER_POD_ID = 405,
	ACL_DEV_ATTR_CUST_OP_PRIVILEGE = 406,
	ACL_DEV_ATTR_MAINBOARD_ID = 407,
	ACL_DEV_ATTR_HD_CONNECT_TYPE = 408,
	ACL_DEV_ATTR_DEVICE_FORM_FACTOR = 409,
	ACL_DEV_ATTR_IS_VIRTUAL = 501,
	ACL_DEV_ATTR_NPU_ARCH = 601,
} aclrtDevAttr;

typedef enum {
	ACL_RT_DEVICE_STATUS_NORMAL = 0,
	ACL_RT_DEVICE_STATUS_ABNORMAL = 1,
	ACL_RT_DEVICE_STATUS_END = 0xFFFF,
} aclrtDeviceStatus;

/* aclrtGetDeviceCapability: both features are ACL_DEV_FEATURE_NOT_SUPPORT */
typedef enum {
	ACL_FEATURE_TSCPU_TASK_UPDATE_SUPPORT_AIC_AIV = 1,
	ACL_FEATURE_SYSTEM_MEMQ_EVENT_CROSS_DEV = 21,
} aclrtDevFeatureType;

#define ACL_DEV_FEATURE_SUPPORT 0x00000001
#define ACL_DEV_FEATURE_NOT_SUPPORT 0x00000000

/* Values only: HD_CONNECT_TYPE and DEVICE_FORM_FACTOR are not answered here */
#define ACL_HOST_DEVICE_CONNECT_TYPE_PCIE 0
#define ACL_HOST_DEVICE_CONNECT_TYPE_HCCS 1
#define ACL_HOST_DEVICE_CONNECT_TYPE_UB 2

#define ACL_DEVICE_FORM_FACTOR_POD 0
#define ACL_DEVICE_FORM_FACTOR_A_K 1
#define ACL_DEVICE_FORM_FACTOR_A_X 2
#define ACL_DEVICE_FORM_FACTOR_PCIE_CARD 3

typedef struct aclrtUtilizationExtendInfo aclrtUtilizationExtendInfo;

typedef struct aclrtUtilizationInfo {
	int32_t cubeUtilization;
	int32_t vectorUtilization;
	int32_t aicpuUtilization;
	int32_t memoryUtilization;
	aclrtUtilizationExtendInfo *utilizationExtend;
} aclrtUtilizationInfo;

typedef struct aclrtUuid {
	char bytes[16];
} aclrtUuid;

typedef enum {
	ACL_RT_DEV_RES_CUBE_CORE = 0,
	ACL_RT_DEV_RES_VECTOR_CORE = 1,
} aclrtDevResLimitType;

/* Always ACL_HOST: libacl never runs on the device's CPU */
ACL_FUNC_VISIBILITY aclError aclrtGetRunMode(aclrtRunMode *runMode);
/*
 * The driver's soc_name (npu.ko parameter, default "NPUSim-A1") of device
 * 0, fetched once and cached: the same pointer every time. NULL before
 * aclInit, and while device 0 cannot be asked.
 */
ACL_FUNC_VISIBILITY const char *aclrtGetSocName(void);

/*
 * *canCompatible = 1 if socVersion's NPU architecture (CANN's platform
 * files, by SoC name) is device 0's, else 0. NULL, an empty name, or a SoC
 * name with no platform file on either side: ACL_ERROR_RT_PARAM_INVALID.
 * The simulated chip's architecture is the 910B's (2201).
 */
ACL_FUNC_VISIBILITY aclError aclrtCheckArchCompatibility(const char *socVersion, int32_t *canCompatible);
/*
 * An id naming no device, or an unknown attr: ACL_ERROR_RT_PARAM_INVALID
 * (107000, not 107001, as CANN). The figures are the chip profile's (npu.ko's
 * soc_name; CANN's platform file of the part): AICPU_CORE_NUM its AI CPUs
 * (6 on the 910B class, 4 on the 310B; modelled, nothing runs on them);
 * AICORE_CORE_NUM and VECTOR_CORE_NUM the driver's cube_cores and
 * vector_cores; CUBE_CORE_NUM the process's cube device limit while the
 * device is open, else cube_cores; the SIMT limits (202-212) 0;
 * TOTAL_GLOBAL_MEM_SIZE the device memory; L2_CACHE_SIZE the part's (192
 * MiB for the simulated chip); PHY_CHIP_ID the device id;
 * SUPER_POD_DEVICE_ID the device's SDID on the A3 parts (server 0, two dies
 * a chip), else 0; SMP_ID, SUPER_POD_SERVER_ID, SUPER_POD_ID,
 * CUST_OP_PRIVILEGE, MAINBOARD_ID and IS_VIRTUAL 0; NPU_ARCH the part's
 * (2201 for A2/A3 and the simulated chip, 3002 for the 310B);
 * HD_CONNECT_TYPE and DEVICE_FORM_FACTOR ACL_ERROR_RT_FEATURE_NOT_SUPPORT
 * (CANN: 950 only).
 */
ACL_FUNC_VISIBILITY aclError aclrtGetDeviceInfo(uint32_t deviceId, aclrtDevAttr attr, int64_t *value);
/*
 * ABNORMAL when the process holds the device open and the driver answers
 * that it is gone (its PCI carrier was removed); else NORMAL. A removed
 * device's node is gone: for other processes its id names no device.
 */
ACL_FUNC_VISIBILITY aclError aclrtQueryDeviceStatus(int32_t deviceId, aclrtDeviceStatus *deviceStatus);
/*
 * utilizationExtend must be NULL. Cube, vector and AI CPU: -1 (nothing
 * runs on the modelled cores). Memory (CANN: always -1): device memory
 * allocated by all processes over the device's memory, in whole percent
 * rounded down.
 */
ACL_FUNC_VISIBILITY aclError aclrtGetDeviceUtilizationRate(int32_t deviceId,
							   aclrtUtilizationInfo *utilizationInfo);
/*
 * The driver's 16 random bytes, made when the device was created: stable
 * while npu.ko stays loaded.
 */
ACL_FUNC_VISIBILITY aclError aclrtDeviceGetUuid(int32_t deviceId, aclrtUuid *uuid);
/*
 * The carrier's "%04x:%02x:%02x.%x", lowercase, NUL-terminated; len below
 * 13 or too short: ACL_ERROR_RT_PARAM_INVALID. A device without a PCI
 * carrier (a platform device): ACL_ERROR_RT_FEATURE_NOT_SUPPORT.
 */
ACL_FUNC_VISIBILITY aclError aclrtDeviceGetPCIBusId(int32_t deviceId, char *pciBusId, int32_t len);
/*
 * The device whose aclrtDeviceGetPCIBusId string equals pciBusId exactly
 * (uppercase does not match); none: ACL_ERROR_RT_PARAM_INVALID.
 */
ACL_FUNC_VISIBILITY aclError aclrtDeviceGetByPCIBusId(const char *pciBusId, int32_t *deviceId);
/*
 * Both features: ACL_DEV_FEATURE_NOT_SUPPORT (no task-scheduler CPU, no
 * memory queues); another feature: ACL_ERROR_RT_PARAM_INVALID.
 */
ACL_FUNC_VISIBILITY aclError aclrtGetDeviceCapability(int32_t deviceId, aclrtDevFeatureType devFeatureType,
						      int32_t *value);
/*
 * Drops one reference of what aclrtDeviceEnablePeerAccess (or a share or
 * IPC import) enabled; the last withdraws the access (a copy queued before
 * that runs after it faults). Not enabled: ACL_ERROR_INVALID_PARAM.
 */
ACL_FUNC_VISIBILITY aclError aclrtDeviceDisablePeerAccess(int32_t peerDeviceId);
/*
 * 1 if this process enabled access from deviceId to peerDeviceId
 * (aclrtDeviceEnablePeerAccess with deviceId current, not disabled since,
 * deviceId still open), else 0, also for the same id twice. An id outside
 * 0..63: ACL_ERROR_RT_PARAM_INVALID. No device needs to be set.
 */
ACL_FUNC_VISIBILITY aclError aclrtDevicePeerAccessStatus(int32_t deviceId, int32_t peerDeviceId, int32_t *status);
/*
 * Device resource limits: one limit per type per device per process,
 * shared by every thread. It starts at the hardware count (the driver's
 * cube_cores, vector_cores); Set takes 0 up to the count (above:
 * ACL_ERROR_RT_PARAM_INVALID); Reset returns both types to the count. The
 * device must be open in this process (else ACL_ERROR_RT_DEV_SETUP_ERROR);
 * its next open starts from the counts again. Recorded and reported only:
 * nothing runs kernels here, so nothing enforces them.
 */
ACL_FUNC_VISIBILITY aclError aclrtGetDeviceResLimit(int32_t deviceId, aclrtDevResLimitType type, uint32_t *value);
ACL_FUNC_VISIBILITY aclError aclrtSetDeviceResLimit(int32_t deviceId, aclrtDevResLimitType type, uint32_t value);
ACL_FUNC_VISIBILITY aclError aclrtResetDeviceResLimit(int32_t deviceId);

/*
 * == Stream resource limits ==
 *
 * A stream's own cube and vector core limits: Set takes 0 up to the
 * device's count (not compared with the device limit); Get answers the
 * device limit for a type not set on the stream; Reset unsets both. Like
 * the device limits, recorded and reported only. None of these calls
 * checks that the stream belongs to the current context, as CANN.
 */

/* A stream's own limits (NULL: the default stream) */
ACL_FUNC_VISIBILITY aclError aclrtSetStreamResLimit(aclrtStream stream, aclrtDevResLimitType type, uint32_t value);
ACL_FUNC_VISIBILITY aclError aclrtGetStreamResLimit(aclrtStream stream, aclrtDevResLimitType type, uint32_t *value);
ACL_FUNC_VISIBILITY aclError aclrtResetStreamResLimit(aclrtStream stream);
/*
 * Use binds the stream to the calling thread, replacing an earlier one;
 * Unuse of another stream than the bound one changes nothing.
 */
ACL_FUNC_VISIBILITY aclError aclrtUseStreamResInCurrentThread(aclrtStream stream);
ACL_FUNC_VISIBILITY aclError aclrtUnuseStreamResInCurrentThread(aclrtStream stream);
/*
 * The bound stream's limit if that type is set on it, else the device limit
 * of the current device. A bound stream destroyed since is dropped (CANN
 * keeps a dangling pointer).
 */
ACL_FUNC_VISIBILITY aclError aclrtGetResInCurrentThread(aclrtDevResLimitType type, uint32_t *value);

/*
 * == Float overflow, system parameters, operator timeouts ==
 *
 * The saturation mode is process-wide; until set, INFNAN on a chip with
 * inf/nan mode (the 910B class, the simulated chip), else SATURATION (the
 * 310B class), by device 0's chip profile, as CANN's runtime starts; no
 * context needed; a mode other than SATURATION or INFNAN:
 * ACL_ERROR_RT_PARAM_INVALID.
 */
typedef enum aclrtFloatOverflowMode {
	ACL_RT_OVERFLOW_MODE_SATURATION = 0,
	ACL_RT_OVERFLOW_MODE_INFNAN,
	ACL_RT_OVERFLOW_MODE_UNDEF,
} aclrtFloatOverflowMode;

ACL_FUNC_VISIBILITY aclError aclrtSetDeviceSatMode(aclrtFloatOverflowMode mode);
ACL_FUNC_VISIBILITY aclError aclrtGetDeviceSatMode(aclrtFloatOverflowMode *mode);

/*
 * A stream's overflow check switch (0 off, the default; 1 on; anything
 * else ACL_ERROR_INVALID_PARAM). NULL: the current context's default
 * stream; a stream of another context: ACL_ERROR_RT_STREAM_CONTEXT.
 * Recorded and reported: nothing on the simulated chip overflows yet.
 */
ACL_FUNC_VISIBILITY aclError aclrtSetStreamOverflowSwitch(aclrtStream stream, uint32_t flag);
ACL_FUNC_VISIBILITY aclError aclrtGetStreamOverflowSwitch(aclrtStream stream, uint32_t *flag);

/*
 * The context's 64-byte overflow status (all zero: nothing overflows yet),
 * copied to the device memory at outputAddr in stream order (NULL: the
 * default stream), and cleared in stream order. outputSize other than 64:
 * ACL_ERROR_RT_PARAM_INVALID; no current context: ACL_ERROR_RT_CONTEXT_NULL.
 */
ACL_FUNC_VISIBILITY aclError aclrtGetOverflowStatus(void *outputAddr, size_t outputSize, aclrtStream stream);
ACL_FUNC_VISIBILITY aclError aclrtResetOverflowStatus(aclrtStream stream);

/*
 * The same status under the newer names: aclrtGetFloatOverflowStatus and
 * aclrtResetFloatOverflowStatus are the two calls above, except that a
 * NULL outputAddr is the runtime's ACL_ERROR_RT_PARAM_INVALID.
 * aclrtCtxGetFloatOverflowAddr answers the device address of the current
 * context's status (the words kernels set; made on first use).
 * aclrtNpuGetFloatOverFlowStatus and aclrtNpuClearFloatOverFlowStatus are
 * the device's float status tasks, on the 910B class only
 * (ACL_ERROR_RT_FEATURE_NOT_SUPPORT elsewhere); they read and clear the
 * same per-context status, whatever checkMode says.
 */
ACL_FUNC_VISIBILITY aclError aclrtGetFloatOverflowStatus(void *outputAddr, uint64_t outputSize, aclrtStream stream);
ACL_FUNC_VISIBILITY aclError aclrtResetFloatOverflowStatus(aclrtStream stream);
ACL_FUNC_VISIBILITY aclError aclrtCtxGetFloatOverflowAddr(void **overflowAddr);
ACL_FUNC_VISIBILITY aclError aclrtNpuGetFloatOverFlowStatus(void *outputAddr, uint64_t outputSize, uint32_t checkMode,
							     aclrtStream stream);
ACL_FUNC_VISIBILITY aclError aclrtNpuClearFloatOverFlowStatus(uint32_t checkMode, aclrtStream stream);

/*
 * == Compute groups ==
 *
 * Only the 310P class has them; elsewhere (the simulated chip's 910B
 * class) every call is ACL_ERROR_RT_FEATURE_NOT_SUPPORT after its NULL
 * checks (ACL_ERROR_INVALID_PARAM). Where they exist, the simulated device
 * has none configured: the count is 0, aclrtCreateGroupInfo answers NULL,
 * a group id in [0, 3] is ACL_ERROR_RT_GROUP_NOT_CREATE (outside it
 * ACL_ERROR_RT_PARAM_INVALID), every groupIndex ACL_ERROR_INVALID_PARAM.
 * aclrtDestroyGroupInfo refuses an array libacl did not make
 * (ACL_ERROR_INVALID_PARAM) where CANN would free it.
 */
typedef struct tagRtGroupInfo aclrtGroupInfo;

typedef enum aclrtGroupAttr {
	ACL_GROUP_AICORE_INT,
	ACL_GROUP_AIV_INT,
	ACL_GROUP_AIC_INT,
	ACL_GROUP_SDMANUM_INT,
	ACL_GROUP_ASQNUM_INT,
	ACL_GROUP_GROUPID_INT,
} aclrtGroupAttr;

ACL_FUNC_VISIBILITY aclError aclrtSetGroup(int32_t groupId);
ACL_FUNC_VISIBILITY aclError aclrtGetGroupCount(uint32_t *count);
ACL_FUNC_VISIBILITY aclrtGroupInfo *aclrtCreateGroupInfo(void);
ACL_FUNC_VISIBILITY aclError aclrtDestroyGroupInfo(aclrtGroupInfo *groupInfo);
ACL_FUNC_VISIBILITY aclError aclrtGetAllGroupInfo(aclrtGroupInfo *groupInfo);
ACL_FUNC_VISIBILITY aclError aclrtGetGroupInfoDetail(const aclrtGroupInfo *groupInfo, int32_t groupIndex,
						     aclrtGroupAttr attr, void *attrValue, size_t valueLen,
						     size_t *paramRetSize);

/*
 * Process-wide options (aclSysParamOpt, acl_base_rt.h): Get answers 0 for
 * an option never set; values outside the option's range:
 * ACL_ERROR_RT_PARAM_INVALID; an option outside 0..3:
 * ACL_ERROR_INVALID_PARAM. No aclInit or context needed.
 */
ACL_FUNC_VISIBILITY aclError aclrtGetSysParamOpt(aclSysParamOpt opt, int64_t *value);
ACL_FUNC_VISIBILITY aclError aclrtSetSysParamOpt(aclSysParamOpt opt, int64_t value);
/*
 * The current context's options (0..2 only, as CANN): Set also sets the
 * process-wide value; Get of an option never set on the context is
 * ACL_ERROR_RT_SYSPARAMOPT_NOT_SET. No current context: ACL_ERROR_RT_CONTEXT_NULL.
 */
ACL_FUNC_VISIBILITY aclError aclrtCtxGetSysParamOpt(aclSysParamOpt opt, int64_t *value);
ACL_FUNC_VISIBILITY aclError aclrtCtxSetSysParamOpt(aclSysParamOpt opt, int64_t value);

/*
 * Operator execution timeouts, process-wide: in seconds (no context
 * needed), or in microseconds with the value the device applies in
 * *actualTimeout: the simulated device counts whole milliseconds, so the
 * request rounded up to a multiple of 1000 us; 0 (no timeout) gives
 * UINT64_MAX. V2 needs a current context (ACL_ERROR_RT_CONTEXT_NULL).
 * Recorded: the simulated chip runs no operators yet.
 */
ACL_FUNC_VISIBILITY aclError aclrtSetOpExecuteTimeOut(uint32_t timeout);
ACL_FUNC_VISIBILITY aclError aclrtSetOpExecuteTimeOutV2(uint64_t timeout, uint64_t *actualTimeout);
/* In milliseconds, at most 1000000 (more is 1000000, as CANN); no context needed */
ACL_FUNC_VISIBILITY aclError aclrtSetOpExecuteTimeOutWithMs(uint32_t timeout);
/*
 * The timeout the device applies, in milliseconds: the one set, rounded up
 * to whole milliseconds; UINT32_MAX for none (0 set) and for one beyond
 * 32 bits; 1090922 (the 910B's default, 254 of its 4.29 s credits) while
 * none was set. No context needed.
 */
ACL_FUNC_VISIBILITY aclError aclrtGetOpExecuteTimeout(uint32_t *const timeoutMs);
/* The device's timeout granule: 1000 us. Needs a current context (ACL_ERROR_RT_CONTEXT_NULL). */
ACL_FUNC_VISIBILITY aclError aclrtGetOpTimeOutInterval(uint64_t *interval);
/*
 * The limit, in seconds, of aclrtStreamWaitEvent's waits (and of
 * aclrtStreamWaitEventWithFlag's with timeout UINT32_MAX), process-wide,
 * for waits queued after the call; 0, the default, is none. A wait that
 * runs out fails as a task of its stream: its next synchronize answers
 * ACL_ERROR_RT_TASK_TIMEOUT. No context needed.
 */
ACL_FUNC_VISIBILITY aclError aclrtSetOpWaitTimeout(uint32_t timeout);

/*
 * Device limits, process-wide (CANN's apply to every device). The
 * simulated chip has no SIMT: types 0, 1 and 4 are
 * ACL_ERROR_RT_FEATURE_NOT_SUPPORT (not the last error, as CANN); a type
 * outside 0..4, or a value above UINT32_MAX: ACL_ERROR_INVALID_PARAM.
 * SIMD_STACK_SIZE: 32768 until set; a value above it is rounded up to a
 * multiple of 16 KiB and kept, one at or below it is ignored (as CANN); a
 * device opened later with more than 196608 (the 910B's limit) fails,
 * aclrtSetDevice and aclrtCreateContext with ACL_ERROR_RT_DEV_SETUP_ERROR.
 * SIMD_PRINTF_FIFO_SIZE_PER_CORE: 1024 .. 64 MiB (else
 * ACL_ERROR_RT_PARAM_INVALID), rounded up to a multiple of 8; 32768 until
 * set. Recorded: nothing runs kernels yet. No aclInit or context needed.
 */
typedef enum aclrtDeviceLimit {
	ACL_RT_DEV_LIMIT_SIMT_STACK_SIZE = 0,
	ACL_RT_DEV_LIMIT_SIMT_DVG_WARP_STACK_SIZE = 1,
	ACL_RT_DEV_LIMIT_SIMD_STACK_SIZE = 2,
	ACL_RT_DEV_LIMIT_SIMD_PRINTF_FIFO_SIZE_PER_CORE = 3,
	ACL_RT_DEV_LIMIT_SIMT_PRINTF_FIFO_SIZE = 4,
} aclrtDeviceLimit;

ACL_FUNC_VISIBILITY aclError aclrtDeviceSetLimit(aclrtDeviceLimit limit, size_t value);
ACL_FUNC_VISIBILITY aclError aclrtDeviceGetLimit(aclrtDeviceLimit limit, size_t *value);

/*
 * == CANN package versions ==
 *
 * The Version= value of a package's version.info (the files and rules of
 * aclsysGetVersionStr): CANN and RUNTIME read "runtime", COMPILER
 * "bisheng-compiler", HCCL "hccl", TOOLKIT "oam-tools", OPP and
 * OPP_KERNEL "ops-legacy", DRIVER the driver's. "A.B-C.D" is read as
 * "A.B.CD"; the value split at '.' (at least two parts) fills major,
 * minor, release and patch ("0" for a missing one), the whole of it
 * version. No file or an unparsable value: ACL_ERROR_INVALID_FILE; an
 * unknown name or NULL version: ACL_ERROR_INVALID_PARAM.
 */
typedef enum aclCANNPackageName {
	ACL_PKG_NAME_CANN,
	ACL_PKG_NAME_RUNTIME,
	ACL_PKG_NAME_COMPILER,
	ACL_PKG_NAME_HCCL,
	ACL_PKG_NAME_TOOLKIT,
	ACL_PKG_NAME_OPP,
	ACL_PKG_NAME_OPP_KERNEL,
	ACL_PKG_NAME_DRIVER
} aclCANNPackageName;

typedef struct aclCANNPackageVersion {
	char version[ACL_PKG_VERSION_MAX_SIZE];
	char majorVersion[ACL_PKG_VERSION_PARTS_MAX_SIZE];
	char minorVersion[ACL_PKG_VERSION_PARTS_MAX_SIZE];
	char releaseVersion[ACL_PKG_VERSION_PARTS_MAX_SIZE];
	char patchVersion[ACL_PKG_VERSION_PARTS_MAX_SIZE];
	char reserved[ACL_PKG_VERSION_MAX_SIZE];
} aclCANNPackageVersion;

ACL_DEPRECATED_MESSAGE("aclsysGetCANNVersion is deprecated, use aclsysGetVersionStr and aclsysGetVersionNum instead")
ACL_FUNC_VISIBILITY aclError aclsysGetCANNVersion(aclCANNPackageName name, aclCANNPackageVersion *version);

/* ACL_MAJOR_VERSION, ACL_MINOR_VERSION, ACL_PATCH_VERSION; NULL: ACL_ERROR_INVALID_PARAM */
ACL_DEPRECATED_MESSAGE("aclrtGetVersion is deprecated, use aclSysGetVersion instead")
ACL_FUNC_VISIBILITY aclError aclrtGetVersion(int32_t *majorVersion, int32_t *minorVersion, int32_t *patchVersion);

/*
 * == aclInit and aclFinalize callbacks ==
 *
 * Registrations outlive aclFinalize. aclInit calls its callbacks by type:
 * ACL_MODEL, then (configPath not NULL or empty) ACL_OP_EXECUTOR, ACL_DVPP,
 * OTHER, each with the file's content and length ("" and 0 without one);
 * aclFinalize ACL_OP_COMPILER, ACL_MODEL, ACL_DVPP, OTHER; the other types
 * are never called. Within a type, in registration order. A failing
 * callback stops the call, which answers the callback's code and leaves
 * the library as it was (not initialised; still initialised). An init
 * callback registered while initialised is called at once (its answer
 * ignored). One callback per type but OTHER (again: ACL_ERROR_INTERNAL_ERROR);
 * unregistering one not registered: ACL_ERROR_INTERNAL_ERROR; NULL cbFunc:
 * ACL_ERROR_INVALID_PARAM. No aclInit needed. A callback may call any API
 * but aclInit, aclFinalize and aclFinalizeReference (ACL_ERROR_INTERNAL_ERROR).
 */
typedef enum aclRegisterCallbackType {
	ACL_REG_TYPE_ACL_MODEL,
	ACL_REG_TYPE_ACL_OP_EXECUTOR,
	ACL_REG_TYPE_ACL_OP_CBLAS,
	ACL_REG_TYPE_ACL_OP_COMPILER,
	ACL_REG_TYPE_ACL_TDT_CHANNEL,
	ACL_REG_TYPE_ACL_TDT_QUEUE,
	ACL_REG_TYPE_ACL_DVPP,
	ACL_REG_TYPE_ACL_RETR,
	ACL_REG_TYPE_OTHER = 0xFFFF,
} aclRegisterCallbackType;
typedef aclError (*aclInitCallbackFunc)(const char *configStr, size_t len, void *userData);
typedef aclError (*aclFinalizeCallbackFunc)(void *userData);

ACL_FUNC_VISIBILITY aclError aclInitCallbackRegister(aclRegisterCallbackType type, aclInitCallbackFunc cbFunc,
						     void *userData);
ACL_FUNC_VISIBILITY aclError aclInitCallbackUnRegister(aclRegisterCallbackType type, aclInitCallbackFunc cbFunc);
ACL_FUNC_VISIBILITY aclError aclFinalizeCallbackRegister(aclRegisterCallbackType type,
							 aclFinalizeCallbackFunc cbFunc, void *userData);
ACL_FUNC_VISIBILITY aclError aclFinalizeCallbackUnRegister(aclRegisterCallbackType type,
							   aclFinalizeCallbackFunc cbFunc);

/*
 * == Process snapshots ==
 *
 * Saving what the devices hold for this process in host memory and
 * writing it back, as CANN's (an experimental feature there):
 *
 *   backup:  LOCK_PRE, Lock, BACKUP_PRE, Backup, BACKUP_POST, Unlock, UNLOCK_POST
 *   restore: RESTORE_PRE, Restore, RESTORE_POST, Unlock, UNLOCK_POST
 *
 * The process is RUNNING, LOCKED (after Lock, and after a Restore) or
 * BACKED_UP (after a Backup); Unlock makes it RUNNING from either. While
 * it is not RUNNING, the calls of other threads that change what the
 * devices hold (work queued on a stream, synchronous copies and memsets,
 * device memory and VMM requests, setting and resetting devices,
 * creating and destroying contexts, aclFinalize) wait until it is
 * unlocked; the thread that locked it, and one running Backup or Restore,
 * go on. pid must be the calling process's and the pointer argument NULL
 * (else ACL_ERROR_INVALID_PARAM); on a chip without the feature (CANN
 * has it on 910B-class chips, the simulated one among them) every
 * function here answers ACL_ERROR_RT_FEATURE_NOT_SUPPORT. No aclInit is
 * needed; lib/README.md ("Process snapshots") has the details.
 */
typedef enum aclrtProcessState {
	ACL_RT_PROCESS_STATE_RUNNING = 0,
	ACL_RT_PROCESS_STATE_LOCKED,
} aclrtProcessState;

typedef enum {
	ACL_RT_SNAPSHOT_LOCK_PRE = 0,
	ACL_RT_SNAPSHOT_BACKUP_PRE,
	ACL_RT_SNAPSHOT_BACKUP_POST,
	ACL_RT_SNAPSHOT_RESTORE_PRE,
	ACL_RT_SNAPSHOT_RESTORE_POST,
	ACL_RT_SNAPSHOT_UNLOCK_POST,
} aclrtSnapShotStage;

/* Called once per open device (its id); a non-zero answer fails the operation. */
typedef uint32_t (*aclrtSnapShotCallBack)(int32_t deviceId, void *args);

typedef struct aclrtSnapShotBackupArgs {
	uint32_t backupFlags;
	char reserved[60];
} aclrtSnapShotBackupArgs;

typedef struct aclrtSnapShotRestoreArgs {
	uint32_t restoreFlags;
	char reserved[60];
} aclrtSnapShotRestoreArgs;

/*
 * RUNNING -> LOCKED, after the LOCK_PRE callbacks; then waits (up to 60 s)
 * until every stream of every open device has done its queued work.
 * Not RUNNING: ACL_ERROR_SNAPSHOT_LOCK_FAILED; the streams not done in
 * time: ACL_ERROR_SNAPSHOT_LOCK_TIMEOUT, and the process runs again.
 */
ACL_FUNC_VISIBILITY aclError aclrtSnapShotProcessLock(int pid, void *reserve);
/*
 * LOCKED or BACKED_UP -> RUNNING (a backup not restored is dropped), the
 * waiting calls go on; then the UNLOCK_POST callbacks. RUNNING:
 * ACL_ERROR_SNAPSHOT_UNLOCK_FAILED.
 */
ACL_FUNC_VISIBILITY aclError aclrtSnapShotProcessUnlock(int pid, void *reserve);
/*
 * LOCKED -> BACKED_UP: the BACKUP_PRE callbacks, a synchronize of every
 * open device (its errors are the answer; no device set:
 * ACL_ERROR_RT_CONTEXT_NULL), the bytes of every aclrtMalloc allocation
 * and aclrtMapMem mapping of every open device read into host memory, the
 * BACKUP_POST callbacks. Not LOCKED (a second backup too), or a read that
 * fails: ACL_ERROR_SNAPSHOT_BACKUP_FAILED, and the process stays LOCKED.
 */
ACL_FUNC_VISIBILITY aclError aclrtSnapShotProcessBackup(int pid, aclrtSnapShotBackupArgs *args);
/*
 * BACKED_UP -> LOCKED: the RESTORE_PRE callbacks, the backup written back
 * to the allocations and mappings it was read from, the RESTORE_POST
 * callbacks. Not BACKED_UP, or a span that is not the same allocation any
 * more (freed, or its device reset since; nothing is written then):
 * ACL_ERROR_SNAPSHOT_RESTORE_FAILED, and the process stays BACKED_UP.
 */
ACL_FUNC_VISIBILITY aclError aclrtSnapShotProcessRestore(int pid, aclrtSnapShotRestoreArgs *args);
/*
 * Callbacks of a stage, called in registration order, each for every open
 * device in turn, in the thread of the operation; one that returns
 * non-zero stops it with ACL_ERROR_SNAPSHOT_CALLBACK_FAILED. A stage
 * outside the enum or a NULL callback: ACL_ERROR_RT_PARAM_INVALID; a
 * callback registered for the stage already:
 * ACL_ERROR_SNAPSHOT_REGISTER_CALLBACK_FAILED; unregistering one that is
 * not: ACL_ERROR_RT_PARAM_INVALID. A callback may call the API, but not
 * the four operations above (their failure code).
 */
ACL_FUNC_VISIBILITY aclError aclrtSnapShotCallbackRegister(aclrtSnapShotStage stage,
							   aclrtSnapShotCallBack callback, void *args);
ACL_FUNC_VISIBILITY aclError aclrtSnapShotCallbackUnregister(aclrtSnapShotStage stage,
							     aclrtSnapShotCallBack callback);

/*
 * == Dump configuration ==
 *
 * The state machine of CANN's operator dump: InitDump after aclInit
 * (ACL_ERROR_UNINITIALIZE before, ACL_ERROR_REPEAT_INITIALIZE twice);
 * SetDump and FinalizeDump only between InitDump and FinalizeDump
 * (ACL_ERROR_DUMP_NOT_RUN). SetDump checks the file as CANN reads it
 * (lib/README.md, "Dump"): not a readable regular file of at most 10 MiB:
 * ACL_ERROR_INVALID_FILE; objects or arrays nested deeper than 10:
 * ACL_ERROR_PARSE_FILE; not one JSON object: ACL_ERROR_INVALID_DUMP_CONFIG;
 * an empty file is accepted. The simulated chip dumps nothing.
 */
ACL_FUNC_VISIBILITY aclError aclmdlInitDump(void);
ACL_FUNC_VISIBILITY aclError aclmdlSetDump(const char *dumpCfgPath);
ACL_FUNC_VISIBILITY aclError aclmdlFinalizeDump(void);

/*
 * == Model runtime instances (captured graphs) ==
 *
 * A stream's tasks captured between aclmdlRICaptureBegin and
 * aclmdlRICaptureEnd make a model runtime instance, run as a unit by
 * aclmdlRIExecuteAsync on any stream of its context, any number of times.
 * While a stream captures, copies, memsets, 2D copies, value writes and
 * waits, reduce and random tasks launched on it are recorded, not run;
 * a stream that waits for an event recorded in the capture joins it (fork
 * and join across streams); the tasks libacl cannot capture yet (events of
 * aclrtCreateEvent, host functions, callbacks,
 * notifies, batch copies, pageable copies, ...) are refused (lib/README.md,
 * "Model runtime instances"). Codes and checks are CANN's; the capture
 * modes restrict which threads may call aclrtMemcpy, aclrtMemset and
 * aclrtMemcpy2d meanwhile (ACL_ERROR_RT_CAPTURE_MODE_NOT_SUPPORT).
 */
typedef void *aclmdlRI;

typedef enum {
	ACL_MODEL_RI_CAPTURE_MODE_GLOBAL = 0,
	ACL_MODEL_RI_CAPTURE_MODE_THREAD_LOCAL,
	ACL_MODEL_RI_CAPTURE_MODE_RELAXED,
} aclmdlRICaptureMode;

typedef enum {
	ACL_MODEL_RI_CAPTURE_STATUS_NONE = 0,
	ACL_MODEL_RI_CAPTURE_STATUS_ACTIVE,
	ACL_MODEL_RI_CAPTURE_STATUS_INVALIDATED,
} aclmdlRICaptureStatus;

ACL_FUNC_VISIBILITY aclError aclmdlRICaptureBegin(aclrtStream stream, aclmdlRICaptureMode mode);
ACL_FUNC_VISIBILITY aclError aclmdlRICaptureGetInfo(aclrtStream stream, aclmdlRICaptureStatus *status,
						    aclmdlRI *modelRI);
ACL_FUNC_VISIBILITY aclError aclmdlRICaptureEnd(aclrtStream stream, aclmdlRI *modelRI);
/* The calling thread's capture mode becomes *mode; *mode gets the previous one. */
ACL_FUNC_VISIBILITY aclError aclmdlRICaptureThreadExchangeMode(aclmdlRICaptureMode *mode);
/* stream NULL: the current context's default stream */
ACL_FUNC_VISIBILITY aclError aclmdlRIExecuteAsync(aclmdlRI modelRI, aclrtStream stream);
ACL_FUNC_VISIBILITY aclError aclmdlRIDestroy(aclmdlRI modelRI);
ACL_FUNC_VISIBILITY aclError aclmdlRISetName(aclmdlRI modelRI, const char *name);
ACL_FUNC_VISIBILITY aclError aclmdlRIGetName(aclmdlRI modelRI, uint32_t maxLen, char *name);
ACL_FUNC_VISIBILITY aclError aclmdlRIGetId(aclmdlRI modelRI, uint32_t *modelRIId);
/* func(userData) is called when modelRI is destroyed; one registration per func */
ACL_FUNC_VISIBILITY aclError aclmdlRIDestroyRegisterCallback(aclmdlRI modelRI, aclrtCallback func,
							     void *userData);
ACL_FUNC_VISIBILITY aclError aclmdlRIDestroyUnregisterCallback(aclmdlRI modelRI, aclrtCallback func);

/*
 * An explicit build: aclmdlRIBuildBegin makes an empty model, and the
 * tasks launched on a stream bound to it (aclmdlRIBindStream, an
 * ACL_STREAM_PERSISTENT stream; flag 0 for the head stream, 0x7FFFFFFF
 * for another) are recorded, not run, up to aclmdlRIEndTask on that
 * stream; aclmdlRIBuildEnd (reserve NULL) makes the model, which
 * aclmdlRIExecuteAsync or aclmdlRIExecute (synchronous: timeout in ms,
 * -1 for none) runs. npu binds one stream to a model, and none once it
 * is built (507000; the vendor adds one to a built model): a built
 * model's tasks are those it was built with until aclmdlRIDestroy.
 */
ACL_FUNC_VISIBILITY aclError aclmdlRIBuildBegin(aclmdlRI *modelRI, uint32_t flag);
ACL_FUNC_VISIBILITY aclError aclmdlRIBindStream(aclmdlRI modelRI, aclrtStream stream, uint32_t flag);
ACL_FUNC_VISIBILITY aclError aclmdlRIEndTask(aclmdlRI modelRI, aclrtStream stream);
ACL_FUNC_VISIBILITY aclError aclmdlRIBuildEnd(aclmdlRI modelRI, void *reserve);
ACL_FUNC_VISIBILITY aclError aclmdlRIUnbindStream(aclmdlRI modelRI, aclrtStream stream);
ACL_FUNC_VISIBILITY aclError aclmdlRIExecute(aclmdlRI modelRI, int32_t timeout);

/*
 * Labels: positions in a model's task list. A label joins a label list
 * (aclrtCreateLabelList, up to 65535 labels) before it is set, once, at
 * the current end of a recording stream's tasks (aclrtSetLabel);
 * aclrtSwitchLabelByIndex records a jump the device takes when the model
 * runs: to the label at the index the uint32_t at ptr (device memory)
 * holds, among the list's first maxValue labels (the last of them for an
 * index past them).
 */
ACL_FUNC_VISIBILITY aclError aclrtCreateLabel(aclrtLabel *label);
ACL_FUNC_VISIBILITY aclError aclrtSetLabel(aclrtLabel label, aclrtStream stream);
ACL_FUNC_VISIBILITY aclError aclrtDestroyLabel(aclrtLabel label);
ACL_FUNC_VISIBILITY aclError aclrtCreateLabelList(aclrtLabel *labels, size_t num, aclrtLabelList *labelList);
ACL_FUNC_VISIBILITY aclError aclrtDestroyLabelList(aclrtLabelList labelList);
ACL_FUNC_VISIBILITY aclError aclrtSwitchLabelByIndex(void *ptr, uint32_t maxValue, aclrtLabelList labelList,
						     aclrtStream stream);

/*
 * Condition tasks of a captured graph. A condition handle
 * (aclmdlRICondHandleCreate, on a model being captured) owns a uint64_t
 * of device memory, zero at first, freed with the model
 * (aclmdlRICondHandleGetCondPtr gives its address); with
 * ACL_MODEL_RI_COND_HANDLE_ASSIGN_DEFAULT it is set to defaultLaunchValue
 * at the start of every run of the graph, with flag 0 the application
 * writes it. aclmdlRIAddCondTask (flags 0) records on a capturing stream
 * a task that runs, by that value when it is reached, one of the
 * sub-models it makes into params.modelRIArray: IF (size 1 or 2): [0]
 * for a non-zero value, [1] (if given) for zero; WHILE (size 1): [0] as
 * long as the value is non-zero, read again after each run of it;
 * SWITCH (size >= 1): [value], none for a value past the array. Each
 * sub-model is captured once, on another stream, between
 * aclmdlRICaptureToModelRIBegin and aclmdlRICaptureEnd, before its
 * parent's capture ends; it runs only as part of its parent. A run that
 * does not end (a WHILE whose value stays non-zero) is stopped by
 * aclmdlRIAbort (or aclrtStreamAbort of its stream).
 */
typedef void *aclmdlRICondHandle;

typedef enum {
	ACL_MODEL_RI_COND_HANDLE_ASSIGN_DEFAULT = 1,
} aclmdlRICondHandleFlag;

typedef enum {
	ACL_MODEL_RI_COND_TYPE_IF = 0,
	ACL_MODEL_RI_COND_TYPE_WHILE = 1,
	ACL_MODEL_RI_COND_TYPE_SWITCH = 2,
} aclmdlRICondTaskType;

typedef struct tagAclmdlRICondTaskParams {
	aclmdlRICondHandle handle;	/* from aclmdlRICondHandleCreate */
	aclmdlRICondTaskType type;
	uint32_t size;			/* sub-models: IF 1 or 2, WHILE 1, SWITCH at least 1 */
	aclmdlRI *modelRIArray;		/* out: the size sub-models */
} aclmdlRICondTaskParams;

ACL_FUNC_VISIBILITY aclError aclmdlRICondHandleCreate(aclmdlRI modelRI, uint32_t defaultLaunchValue,
						      aclmdlRICondHandleFlag flag, aclmdlRICondHandle *handle);
ACL_FUNC_VISIBILITY aclError aclmdlRICondHandleGetCondPtr(aclmdlRICondHandle handle, uint64_t **ptr);
ACL_FUNC_VISIBILITY aclError aclmdlRIAddCondTask(aclmdlRICondTaskParams params, aclrtStream stream, uint32_t flags);
ACL_FUNC_VISIBILITY aclError aclmdlRICaptureToModelRIBegin(aclrtStream stream, aclmdlRI modelRI,
							   aclmdlRICaptureMode mode);
/* The runs of modelRI under way stop (npu: with what else is queued on their streams). */
ACL_FUNC_VISIBILITY aclError aclmdlRIAbort(aclmdlRI modelRI);

/*
 * Task groups: the tasks a capturing stream records between
 * aclmdlRICaptureTaskGrpBegin and aclmdlRICaptureTaskGrpEnd (its handle,
 * valid until the model is destroyed) are replaced later by as many of
 * the same kinds that a stream not captured launches between
 * aclmdlRICaptureTaskUpdateBegin and aclmdlRICaptureTaskUpdateEnd. A
 * group takes kernel launches only (as CANN's; npu's: not of a kernel
 * that prints, ACL_ERROR_RT_FEATURE_NOT_SUPPORT) - any other task on its
 * stream while it is open is ACL_ERROR_RT_TASK_TYPE_NOT_SUPPORT, any task
 * on another stream of its capture ACL_ERROR_STREAM_TASK_GROUP_INTR, both
 * invalidating the capture. In an update window each kernel launch
 * replaces the group's next task (function, blocks, attributes,
 * arguments) without running: the model's runs queued from then on run
 * it. Any other task there is ACL_ERROR_RT_TASK_TYPE_NOT_SUPPORT; a
 * launch more than the group's tasks, or UpdateEnd after fewer,
 * ACL_ERROR_RT_INTERNAL_ERROR; a group whose model has changes waiting
 * for aclmdlRIUpdate, or is still being captured,
 * ACL_ERROR_RT_MODEL_UPDATE_FAILED. State errors are
 * ACL_ERROR_STREAM_TASK_GROUP_STATUS.
 */
ACL_FUNC_VISIBILITY aclError aclmdlRICaptureTaskGrpBegin(aclrtStream stream);
ACL_FUNC_VISIBILITY aclError aclmdlRICaptureTaskGrpEnd(aclrtStream stream, aclrtTaskGrp *handle);
ACL_FUNC_VISIBILITY aclError aclmdlRICaptureTaskUpdateBegin(aclrtStream stream, aclrtTaskGrp handle);
ACL_FUNC_VISIBILITY aclError aclmdlRICaptureTaskUpdateEnd(aclrtStream stream);

/*
 * == Kernel launch ==
 *
 * The launches take the function handles of loaded binaries (see
 * "Device binaries and kernel functions" below; anything else is
 * ACL_ERROR_RT_INVALID_HANDLE, without reading it). A launch is a task of
 * its stream, run on the device's AI cores by its executor, npu-aicore,
 * which libacl starts at the device's first launch: the kernel reaches
 * exactly the memory the device reaches. A kernel that touches other
 * memory fails its stream with ACL_ERROR_RT_AICORE_EXCEPTION, a trap with
 * ACL_ERROR_RT_AICORE_TRAP_EXCEPTION. A launch on a capturing stream is
 * refused (ACL_ERROR_RT_STREAM_CAPTURED) for now.
 */
typedef void *aclrtFuncHandle;

typedef enum aclrtEngineType {
	ACL_RT_ENGINE_TYPE_AIC = 0,
	ACL_RT_ENGINE_TYPE_AIV,
} aclrtEngineType;

typedef enum aclrtLaunchKernelAttrId {
	ACL_RT_LAUNCH_KERNEL_ATTR_SCHEM_MODE = 1,
	ACL_RT_LAUNCH_KERNEL_ATTR_LOCAL_MEMORY_SIZE ACL_DEPRECATED_MESSAGE(
		"Use ACL_RT_LAUNCH_KERNEL_ATTR_DYN_UBUF_SIZE instead") = 2,
	ACL_RT_LAUNCH_KERNEL_ATTR_DYN_UBUF_SIZE = 2,
	ACL_RT_LAUNCH_KERNEL_ATTR_ENGINE_TYPE = 3,
	ACL_RT_LAUNCH_KERNEL_ATTR_BLOCKDIM_OFFSET = 4,
	ACL_RT_LAUNCH_KERNEL_ATTR_BLOCK_TASK_PREFETCH = 5,
	ACL_RT_LAUNCH_KERNEL_ATTR_DATA_DUMP = 6,
	/* TIMEOUT and TIMEOUT_US cannot be given together */
	ACL_RT_LAUNCH_KERNEL_ATTR_TIMEOUT = 7,
	ACL_RT_LAUNCH_KERNEL_ATTR_TIMEOUT_US = 8,
	ACL_RT_LAUNCH_KERNEL_ATTR_ENABLE_PROFILING = 9,
} aclrtLaunchKernelAttrId;

typedef struct {
	uint32_t timeoutLow;
	uint32_t timeoutHigh;
} aclrtTimeoutUs;

typedef union aclrtLaunchKernelAttrValue {
	uint8_t schemMode;
	ACL_DEPRECATED_MESSAGE("Use dynUbufSize instead")
	uint32_t localMemorySize;
	uint32_t dynUBufSize;
	aclrtEngineType engineType;
	uint32_t blockDimOffset;
	uint8_t isBlockTaskPrefetch;
	uint8_t isDataDump;
	uint16_t timeout;		/* seconds */
	aclrtTimeoutUs timeoutUs;	/* microseconds */
	uint8_t enableProfiling;
	uint32_t rsv[4];
} aclrtLaunchKernelAttrValue;

typedef struct aclrtLaunchKernelAttr {
	aclrtLaunchKernelAttrId id;
	aclrtLaunchKernelAttrValue value;
} aclrtLaunchKernelAttr;

typedef struct aclrtLaunchKernelCfg {
	aclrtLaunchKernelAttr *attrs;
	size_t numAttrs;
} aclrtLaunchKernelCfg;

/* Where to patch a device address into the host arguments */
typedef struct {
	uint32_t addrOffset;
	uint32_t dataOffset;
} aclrtPlaceHolderInfo;

ACL_FUNC_VISIBILITY aclError aclrtLaunchKernelWithHostArgs(aclrtFuncHandle funcHandle, uint32_t numBlocks,
							   aclrtStream stream, aclrtLaunchKernelCfg *cfg,
							   void *hostArgs, size_t argsSize,
							   aclrtPlaceHolderInfo *placeHolderArray,
							   size_t placeHolderNum);
/*
 * == Kernel argument handles and the other launches ==
 *
 * An aclrtArgsHandle builds a kernel's argument block: each parameter
 * (aclrtKernelArgsAppend) at the next 8-byte boundary; a placeholder
 * (AppendPlaceHolder) is an 8-byte pointer slot whose data
 * (GetPlaceHolderBuffer, after all parameters: no Append after it) the
 * launch copies with the block, writing the data's device address into
 * the slot; ParaUpdate rewrites a plain parameter of the same size.
 * Finalize ends the building (later Appends and GetPlaceHolderBuffer:
 * ACL_ERROR_RT_FEATURE_NOT_SUPPORT, as after GetPlaceHolderBuffer); a
 * handle launches only finalized, and after a ParaUpdate only once
 * finalized again (ACL_ERROR_RT_PARAM_INVALID). aclrtKernelArgsInit
 * answers the calling thread's one handle, as CANN's: a second Init on
 * the thread starts it again (64 KiB, 128 parameters). InitByUserMem
 * builds the block in userHostMem (aclrtKernelArgsGetMemSize bytes: the
 * arguments, 64 bytes of system parameters and 8 per parameter); its
 * argsHandle memory (aclrtKernelArgsGetHandleMemSize) only names the
 * handle, libacl never reads or writes it. NULL pointers and zero sizes:
 * ACL_ERROR_INVALID_PARAM; handles that are none: ACL_ERROR_RT_INVALID_HANDLE.
 *
 * aclrtLaunchKernel and V2 take argsData in device memory (8-byte
 * aligned), read there by the kernel. aclrtLaunchKernelWithArgsArray
 * takes a pointer to each parameter's bytes. The SIMT launches answer
 * ACL_ERROR_RT_PARAM_INVALID for every function: npu-cc makes no SIMT
 * kernels.
 */
typedef void *aclrtArgsHandle;
typedef void *aclrtParamHandle;

#ifndef __BISHENG_CCEC__
typedef struct dim3 {
	uint32_t x;
	uint32_t y;
	uint32_t z;
#ifdef __cplusplus
#if __cplusplus >= 201103L
	constexpr dim3(uint32_t vx = 1, uint32_t vy = 1, uint32_t vz = 1) : x(vx), y(vy), z(vz) {}
#else
	dim3(uint32_t vx = 1, uint32_t vy = 1, uint32_t vz = 1) : x(vx), y(vy), z(vz) {}
#endif
#endif
} dim3;
#endif

ACL_FUNC_VISIBILITY aclError aclrtKernelArgsGetHandleMemSize(aclrtFuncHandle funcHandle, size_t *memSize);
ACL_FUNC_VISIBILITY aclError aclrtKernelArgsGetMemSize(aclrtFuncHandle funcHandle, size_t userArgsSize,
						       size_t *actualArgsSize);
ACL_FUNC_VISIBILITY aclError aclrtKernelArgsInit(aclrtFuncHandle funcHandle, aclrtArgsHandle *argsHandle);
ACL_FUNC_VISIBILITY aclError aclrtKernelArgsInitByUserMem(aclrtFuncHandle funcHandle, aclrtArgsHandle argsHandle,
							  void *userHostMem, size_t actualArgsSize);
ACL_FUNC_VISIBILITY aclError aclrtKernelArgsAppend(aclrtArgsHandle argsHandle, void *param, size_t paramSize,
						   aclrtParamHandle *paramHandle);
ACL_FUNC_VISIBILITY aclError aclrtKernelArgsAppendPlaceHolder(aclrtArgsHandle argsHandle,
							      aclrtParamHandle *paramHandle);
ACL_FUNC_VISIBILITY aclError aclrtKernelArgsGetPlaceHolderBuffer(aclrtArgsHandle argsHandle,
								 aclrtParamHandle paramHandle, size_t dataSize,
								 void **bufferAddr);
ACL_FUNC_VISIBILITY aclError aclrtKernelArgsParaUpdate(aclrtArgsHandle argsHandle, aclrtParamHandle paramHandle,
						       void *param, size_t paramSize);
ACL_FUNC_VISIBILITY aclError aclrtKernelArgsFinalize(aclrtArgsHandle argsHandle);
ACL_FUNC_VISIBILITY aclError aclrtLaunchKernelWithConfig(aclrtFuncHandle funcHandle, uint32_t numBlocks,
							 aclrtStream stream, aclrtLaunchKernelCfg *cfg,
							 aclrtArgsHandle argsHandle, void *reserve);
ACL_FUNC_VISIBILITY aclError aclrtLaunchKernel(aclrtFuncHandle funcHandle, uint32_t numBlocks, const void *argsData,
					       size_t argsSize, aclrtStream stream);
ACL_FUNC_VISIBILITY aclError aclrtLaunchKernelV2(aclrtFuncHandle funcHandle, uint32_t numBlocks,
						 const void *argsData, size_t argsSize, aclrtLaunchKernelCfg *cfg,
						 aclrtStream stream);
ACL_FUNC_VISIBILITY aclError aclrtLaunchKernelWithArgsArray(void *func, uint32_t numBlocks, aclrtStream stream,
							    aclrtLaunchKernelCfg *cfg, void **args);
ACL_FUNC_VISIBILITY aclError aclrtLaunchSIMTKernelWithArgsArray(void *func, dim3 gridDim, dim3 blockDim,
								size_t dynUbufSize, aclrtStream stream,
								aclrtLaunchKernelCfg *cfg, void **args);
ACL_FUNC_VISIBILITY aclError aclrtLaunchSIMTKernelWithHostArgs(void *func, dim3 gridDim, dim3 blockDim,
							       size_t dynUbufSize, aclrtStream stream,
							       aclrtLaunchKernelCfg *cfg, void *hostArgs,
							       size_t argsSize,
							       aclrtPlaceHolderInfo *placeHolderArray,
							       size_t placeHolderNum);

/*
 * The current device's inter-core synchronisation address, which CANN's
 * kernels are given: until the simulated chip has cores, an 8-byte word
 * the device reaches, the same for every call until the device closes.
 * addr NULL: ACL_ERROR_RT_PARAM_INVALID.
 */
ACL_FUNC_VISIBILITY aclError aclrtGetHardwareSyncAddr(void **addr);

/*
 * == Tasks of a model runtime instance: inspection and update ==
 *
 * A built model's tasks (aclmdlRIGetStreams, then aclmdlRIGetTasksByStream
 * on each stream it names) are handles that live as long as the model.
 * Types: copies, memsets, reduce, random and label switches are
 * ACL_MODEL_RI_TASK_DEFAULT; EXTERNAL event records and waits are
 * EVENT_RECORD and EVENT_WAIT; value writes and waits VALUE_WRITE and
 * VALUE_WAIT; kernel launches KERNEL (GetParams names the task group a
 * kernel task is of). A captured model's value writes and waits take new
 * parameters (aclmdlRITaskSetParams: a write or a wait again, of either
 * kind), and so do its kernel tasks (function, numBlocks, cfg, the
 * block from host memory, copied, or with isHostArgs 0 its device
 * address; a kernel that prints keeps its function and numBlocks); tasks
 * may be disabled (aclmdlRITaskDisable; any task but a DEFAULT one);
 * aclmdlRIUpdate makes the changes the model's from its next run.
 * None of this while a run of the model is queued and unfinished
 * (ACL_ERROR_RT_MODEL_UPDATE_FAILED). aclmdlRIDebugJsonPrint writes the
 * model's streams and tasks as JSON to path (lib/README.md has the schema);
 * aclmdlRIDebugPrint logs them.
 */
typedef enum aclmdlRITaskType {
	ACL_MODEL_RI_TASK_DEFAULT,
	ACL_MODEL_RI_TASK_KERNEL,
	ACL_MODEL_RI_TASK_EVENT_RECORD,
	ACL_MODEL_RI_TASK_EVENT_WAIT,
	ACL_MODEL_RI_TASK_EVENT_RESET,
	ACL_MODEL_RI_TASK_VALUE_WRITE,
	ACL_MODEL_RI_TASK_VALUE_WAIT,
} aclmdlRITaskType;

typedef struct aclmdlRIKernelTaskParams {
	aclrtFuncHandle funcHandle;
	aclrtLaunchKernelCfg *cfg;
	void *args;
	uint32_t isHostArgs;
	size_t argsSize;
	uint32_t numBlocks;
	uint32_t rsv[10];
} aclmdlRIKernelTaskParams;

typedef struct aclmdlRIEventRecordTaskParams {
	aclrtEvent event;
	uint32_t eventFlag;		/* the event's aclrtCreateEventWithFlag flag */
	uint32_t recordFlag;		/* ACL_EVENT_RECORD_DEFAULT or _EXTERNAL */
} aclmdlRIEventRecordTaskParams;

typedef struct aclmdlRIEventWaitTaskParams {
	aclrtEvent event;
	uint32_t eventFlag;		/* the event's aclrtCreateEventWithFlag flag */
	uint32_t waitFlag;		/* ACL_EVENT_WAIT_DEFAULT or _EXTERNAL */
} aclmdlRIEventWaitTaskParams;

typedef struct aclmdlRIEventResetTaskParams {
	aclrtEvent event;
	uint32_t eventFlag;
	uint32_t resetFlag;
} aclmdlRIEventResetTaskParams;

typedef struct aclmdlRIValueWriteTaskParams {
	void *devAddr;
	uint64_t value;
} aclmdlRIValueWriteTaskParams;

typedef struct aclmdlRIValueWaitTaskParams {
	void *devAddr;
	uint64_t value;
	uint32_t flag;			/* ACL_STREAM_WAIT_VALUE_*, as aclrtValueWait takes */
} aclmdlRIValueWaitTaskParams;

typedef struct aclmdlRITaskParams {
	aclmdlRITaskType type;
	uint32_t rsv0[3];
	aclrtTaskGrp taskGrp;		/* GetParams: a kernel task's group; SetParams: NULL */
	void *opInfoPtr;		/* a kernel task's op information (SetParams copies it) */
	size_t opInfoSize;		/* its bytes */
	uint8_t rsv1[32];
	/* anonymous, as CANN's (C11 and C++; GNU C takes it in C99 too) */
#ifdef __GNUC__
	__extension__
#endif
	union {
		uint8_t rsv2[128];
		struct aclmdlRIKernelTaskParams kernelTaskParams;
		struct aclmdlRIEventRecordTaskParams eventRecordTaskParams;
		struct aclmdlRIEventWaitTaskParams eventWaitTaskParams;
		struct aclmdlRIEventResetTaskParams eventResetTaskParams;
		struct aclmdlRIValueWriteTaskParams valueWriteTaskParams;
		struct aclmdlRIValueWaitTaskParams valueWaitTaskParams;
	};
} aclmdlRITaskParams;

/* aclmdlRIDebugJsonPrint's flags */
#define ACL_MDLRI_DEBUG_JSON_PRINT_SUMMARY 0x0UL
#define ACL_MDLRI_DEBUG_JSON_PRINT_VERBOSE 0x1UL

/* streams NULL: *numStreams gets the count; else up to *numStreams filled, the rest NULL */
ACL_FUNC_VISIBILITY aclError aclmdlRIGetStreams(aclmdlRI modelRI, aclrtStream *streams, uint32_t *numStreams);
/* tasks NULL: *numTasks gets the count; else up to *numTasks filled, the rest NULL */
ACL_FUNC_VISIBILITY aclError aclmdlRIGetTasksByStream(aclrtStream stream, aclmdlRITask *tasks, uint32_t *numTasks);
ACL_FUNC_VISIBILITY aclError aclmdlRITaskGetType(aclmdlRITask task, aclmdlRITaskType *type);
/* the task's place among the model's tasks, from 0, in launch order */
ACL_FUNC_VISIBILITY aclError aclmdlRITaskGetSeqId(aclmdlRITask task, uint32_t *id);
ACL_FUNC_VISIBILITY aclError aclmdlRITaskGetParams(aclmdlRITask task, aclmdlRITaskParams *params);
ACL_FUNC_VISIBILITY aclError aclmdlRITaskSetParams(aclmdlRITask task, aclmdlRITaskParams *params);
/* for kernel tasks (npu answers none of their attributes: ACL_ERROR_RT_FEATURE_NOT_SUPPORT) */
ACL_FUNC_VISIBILITY aclError aclmdlRIKernelTaskGetAttribute(aclmdlRITask task, aclrtLaunchKernelAttrId attrId,
							    aclrtLaunchKernelAttrValue *attrValue);
ACL_FUNC_VISIBILITY aclError aclmdlRITaskDisable(aclmdlRITask task);
ACL_FUNC_VISIBILITY aclError aclmdlRIUpdate(aclmdlRI modelRI);
ACL_DEPRECATED_MESSAGE("aclmdlRIDebugPrint is deprecated, use aclmdlRIDebugJsonPrint instead")
ACL_FUNC_VISIBILITY aclError aclmdlRIDebugPrint(aclmdlRI modelRI);
ACL_FUNC_VISIBILITY aclError aclmdlRIDebugJsonPrint(aclmdlRI modelRI, const char *path, uint32_t flags);

/*
 * == Task exceptions and device task abort ==
 *
 * A task exception is a command of a stream that failed on the device:
 * here a DMA fault (a copy, fill or write touching memory its mapping
 * does not allow, e.g. an address that is reserved but not mapped). The
 * callbacks registered below are called once per fault, in the thread
 * that learns of it - the synchronize (or stream query, event
 * synchronize, destroy, callback watcher) that the driver first reports
 * it to; for an event or notify query, the stream's next synchronize -
 * before that call returns its error, one after another: the one of
 * aclrtSetExceptionInfoCallback first, then the others in the order they
 * were registered. The information is valid during the call only.
 * Synchronous copies (aclrtMemcpy ...) are driver copies, not tasks:
 * their faults are the call's error and call no callback, as in CANN.
 * None of these calls needs aclInit.
 */
typedef struct rtExceptionInfo aclrtExceptionInfo;

typedef void (*aclrtExceptionInfoCallback)(aclrtExceptionInfo *exceptionInfo);

/*
 * The one callback of the application's own slot (NULL empties it);
 * kept apart from those of aclrtExceptionInfoCallbackRegister, so a
 * function in both is called twice.
 */
ACL_DEPRECATED_MESSAGE("aclrtSetExceptionInfoCallback is deprecated, use aclrtExceptionInfoCallbackRegister and aclrtExceptionInfoCallbackUnregister instead")
ACL_FUNC_VISIBILITY aclError aclrtSetExceptionInfoCallback(aclrtExceptionInfoCallback callback);
/*
 * Add callback (once: registering it again changes nothing) / remove it
 * (one not registered: success). A call already under way is not waited
 * for. NULL: ACL_ERROR_RT_PARAM_INVALID, not recorded as the last error.
 */
ACL_FUNC_VISIBILITY aclError aclrtExceptionInfoCallbackRegister(aclrtExceptionInfoCallback callback);
ACL_FUNC_VISIBILITY aclError aclrtExceptionInfoCallbackUnregister(aclrtExceptionInfoCallback callback);

/*
 * What the information says; 0xFFFFFFFF for a NULL info. The task id is
 * the failed command's number in its stream, from 0 (the numbering of
 * aclrtGetThreadLastTaskId), the stream id aclrtStreamGetId's, the thread
 * id the kernel id (gettid()) of the thread that submitted the task, the
 * device id the user's, and the error code the runtime's for a DMA
 * task's fault: ACL_ERROR_RT_TS_ERROR (CANN's SDMA "memcpy exception"),
 * or ACL_ERROR_RT_DEVICE_MEM_ERROR when the task touched device memory
 * with an uncorrectable error (CANN's "sdma poison error"; then
 * aclrtGetMemUceInfo names the bad ranges).
 */
ACL_FUNC_VISIBILITY uint32_t aclrtGetTaskIdFromExceptionInfo(const aclrtExceptionInfo *info);
ACL_FUNC_VISIBILITY uint32_t aclrtGetStreamIdFromExceptionInfo(const aclrtExceptionInfo *info);
ACL_FUNC_VISIBILITY uint32_t aclrtGetThreadIdFromExceptionInfo(const aclrtExceptionInfo *info);
ACL_FUNC_VISIBILITY uint32_t aclrtGetDeviceIdFromExceptionInfo(const aclrtExceptionInfo *info);
ACL_FUNC_VISIBILITY uint32_t aclrtGetErrorCodeFromExceptionInfo(const aclrtExceptionInfo *info);

/*
 * The arguments and the function of a failed kernel (AI Core, AI CPU).
 * A DMA task has neither: the arguments answer 0xFFFFFFFF (as for a NULL
 * info), the function ACL_ERROR_RT_PARAM_INVALID (recorded as the last
 * error; *func untouched). NULL devArgsPtr, devArgsLen or func:
 * ACL_ERROR_INVALID_PARAM.
 */
ACL_FUNC_VISIBILITY aclError aclrtGetArgsFromExceptionInfo(const aclrtExceptionInfo *info, void **devArgsPtr,
							   uint32_t *devArgsLen);
ACL_FUNC_VISIBILITY aclError aclrtGetFuncHandleFromExceptionInfo(const aclrtExceptionInfo *info,
								 aclrtFuncHandle *func);

/*
 * == Device binaries and kernel functions ==
 *
 * A device binary is what npu-cc builds (Documentation/npu-cc.rst): an
 * x86-64 ELF shared object with a .npu_kernels section (one record per
 * kernel) and a .note.npu note. Loading one (aclrtBinaryLoad,
 * aclrtBinaryLoadFromFile, aclrtBinaryLoadFromData) checks it strictly and
 * copies its image into device memory of the current context's device
 * (aclrtBinaryGetDevAddress: that copy and the image's size); every kernel
 * record becomes a function handle (aclrtBinaryGetFunction by name,
 * aclrtBinaryGetFunctionByEntry by tiling key: the first kernel with that
 * key). A binary that is not an npu ELF, is truncated or inconsistent:
 * ACL_ERROR_RT_PARAM_INVALID, as CANN answers a binary it cannot register,
 * with the reason in aclGetRecentErrMsg. A binary belongs to the context
 * that was current at load: aclrtBinaryUnLoad, or the destruction of that
 * context (aclrtDestroyContext, aclrtResetDevice of its primary context,
 * aclFinalize), frees the device image and ends the binary and its
 * functions: their handles are ACL_ERROR_RT_INVALID_HANDLE from then on.
 * NULL arguments: ACL_ERROR_INVALID_PARAM where CANN's acl layer checks
 * them, else ACL_ERROR_RT_PARAM_INVALID (its runtime's). Kernels do not
 * run yet: a launch of a valid function answers
 * ACL_ERROR_RT_FEATURE_NOT_SUPPORT.
 */
typedef void *aclrtBinary;
typedef void *aclrtBinHandle;

/* aclrtBinaryLoadOptions' magic values (CANN's RT_DEV_BINARY_MAGIC_ELF*) */
#define ACL_RT_BINARY_MAGIC_ELF_CUBE_CORE 0x41494343U

typedef enum aclrtBinaryLoadOptionType {
	ACL_RT_BINARY_LOAD_OPT_LAZY_LOAD = 1,
	ACL_RT_BINARY_LOAD_OPT_LAZY_MAGIC = 2,
	ACL_RT_BINARY_LOAD_OPT_MAGIC = 2,
	ACL_RT_BINARY_LOAD_OPT_CPU_KERNEL_MODE = 3,
} aclrtBinaryLoadOptionType;

typedef union aclrtBinaryLoadOptionValue {
	uint32_t isLazyLoad;
	uint32_t magic;
	int32_t cpuKernelMode;
	uint32_t rsv[4];
} aclrtBinaryLoadOptionValue;

typedef struct {
	aclrtBinaryLoadOptionType type;
	aclrtBinaryLoadOptionValue value;
} aclrtBinaryLoadOption;

typedef struct aclrtBinaryLoadOptions {
	aclrtBinaryLoadOption *options;
	size_t numOpt;
} aclrtBinaryLoadOptions;

typedef enum {
	ACL_FUNC_ATTR_KERNEL_TYPE = 1,
	ACL_FUNC_ATTR_KERNEL_RATIO = 2,
	ACL_FUNC_ATTR_KERNEL_SCHED_MODE = 3,
} aclrtFuncAttribute;

typedef enum {
	ACL_KERNEL_TYPE_AICORE = 0,	/* MIX KERNEL */
	ACL_KERNEL_TYPE_CUBE = 1,	/* AI CUBE CORE */
	ACL_KERNEL_TYPE_VECTOR = 2,	/* AI VECTOR CORE: every kernel npu-cc builds */
	ACL_KERNEL_TYPE_MIX = 3,
	ACL_KERNEL_TYPE_AICPU = 100,
} aclrtKernelType;

typedef void (*aclrtOpExceptionCallback)(aclrtExceptionInfo *exceptionInfo, void *userData);

/*
 * A description of dataLen bytes at data, which must stay valid until
 * aclrtBinaryLoad reads them (nothing is copied here); NULL data: NULL.
 * aclrtDestroyBinary of NULL or of anything else than a live description:
 * ACL_ERROR_INVALID_PARAM.
 */
ACL_FUNC_VISIBILITY aclrtBinary aclrtCreateBinary(const void *data, size_t dataLen);
ACL_FUNC_VISIBILITY aclError aclrtDestroyBinary(aclrtBinary binary);
/* dataLen 0: ACL_ERROR_RT_PARAM_INVALID; an unknown binary: ACL_ERROR_INVALID_PARAM */
ACL_FUNC_VISIBILITY aclError aclrtBinaryLoad(const aclrtBinary binary, aclrtBinHandle *binHandle);
/*
 * options (NULL: none) as CANN's: options->options NULL, an unknown type,
 * LAZY_LOAD not 0 or 1, MAGIC in a load from a file or not one of CANN's
 * three ELF magics, CPU_KERNEL_MODE not 0/1 (file) or 2 (data):
 * ACL_ERROR_RT_PARAM_INVALID; a valid CPU_KERNEL_MODE (an AI CPU binary):
 * ACL_ERROR_RT_FEATURE_NOT_SUPPORT. LAZY_LOAD and MAGIC change nothing:
 * the image is copied at load. A file that cannot be read:
 * ACL_ERROR_RT_PARAM_INVALID.
 */
ACL_FUNC_VISIBILITY aclError aclrtBinaryLoadFromFile(const char *binPath, aclrtBinaryLoadOptions *options,
						     aclrtBinHandle *binHandle);
ACL_FUNC_VISIBILITY aclError aclrtBinaryLoadFromData(const void *data, size_t length,
						     const aclrtBinaryLoadOptions *options, aclrtBinHandle *binHandle);
ACL_FUNC_VISIBILITY aclError aclrtBinaryUnLoad(aclrtBinHandle binHandle);
ACL_FUNC_VISIBILITY aclError aclrtBinaryGetDevAddress(const aclrtBinHandle binHandle, void **binAddr, size_t *binSize);
/* No device binary has globals the runtime knows yet: ACL_ERROR_RT_SYMBOL_NOT_FOUND after the checks */
ACL_FUNC_VISIBILITY aclError aclrtBinaryGetGlobal(aclrtBinHandle binHandle, const char *name, void **dptr,
						  size_t *size);
/* Kept (the last one set wins) for the binary's kernel faults, which cannot happen yet */
ACL_FUNC_VISIBILITY aclError aclrtBinarySetExceptionCallback(aclrtBinHandle binHandle,
							     aclrtOpExceptionCallback callback, void *userData);
/* Not a kernel of the binary: ACL_ERROR_RT_PARAM_INVALID */
ACL_FUNC_VISIBILITY aclError aclrtBinaryGetFunction(const aclrtBinHandle binHandle, const char *kernelName,
						    aclrtFuncHandle *funcHandle);
ACL_FUNC_VISIBILITY aclError aclrtBinaryGetFunctionByEntry(aclrtBinHandle binHandle, uint64_t funcEntry,
							   aclrtFuncHandle *funcHandle);
/* Nothing registers host symbols yet: ACL_ERROR_RT_INVALID_DEVICE_FUNCTION after the checks */
ACL_FUNC_VISIBILITY aclError aclrtGetFuncBySymbol(const void *symbol, aclrtFuncHandle *funcHandle);
/* maxLen below the name's length + 1: ACL_ERROR_RT_PARAM_INVALID */
ACL_FUNC_VISIBILITY aclError aclrtGetFunctionName(aclrtFuncHandle funcHandle, uint32_t maxLen, char *name);
/*
 * A vector kernel (all of npu-cc's) has its code on the vector cores:
 * *aicAddr NULL and *aicSize 0; *aivAddr the device address of its entry
 * symbol in the binary's device image (image + st_value), *aivSize its
 * st_size.
 */
ACL_FUNC_VISIBILITY aclError aclrtGetFunctionAddr(aclrtFuncHandle funcHandle, void **aicAddr, void **aivAddr);
ACL_FUNC_VISIBILITY aclError aclrtGetFunctionSize(aclrtFuncHandle funcHandle, size_t *aicSize, size_t *aivSize);
/* KERNEL_TYPE: ACL_KERNEL_TYPE_VECTOR; KERNEL_RATIO and KERNEL_SCHED_MODE: 0 */
ACL_FUNC_VISIBILITY aclError aclrtGetFunctionAttribute(aclrtFuncHandle funcHandle, aclrtFuncAttribute attrType,
						       int64_t *attrValue);
ACL_FUNC_VISIBILITY aclError aclrtFunctionGetBinary(const aclrtFuncHandle funcHandle, aclrtBinHandle *binHandle);
/* The kernel's parameters: each at the next 8-byte boundary of the argument block */
ACL_FUNC_VISIBILITY aclError aclrtFunctionGetParamCount(const void *func, size_t *paramCount);
ACL_FUNC_VISIBILITY aclError aclrtFunctionGetParamInfo(const void *func, size_t paramIndex, size_t *paramOffset,
						       size_t *paramSize);
/* 0: no kernel of npu-cc is a SIMT kernel; flags must be 0 (ACL_ERROR_INVALID_PARAM) */
ACL_FUNC_VISIBILITY aclError aclrtFunctionGetAvailDynUbufPerBlock(void *func, uint32_t flags,
								  size_t *dynamicUbufSize);

typedef enum {
	ACL_RT_DEVICE_TASK_ABORT_PRE = 0,
	ACL_RT_DEVICE_TASK_ABORT_POST,
} aclrtDeviceTaskAbortStage;

/* Called during aclrtDeviceTaskAbort; a non-zero answer ends it with that code */
typedef int32_t (*aclrtDeviceTaskAbortCallback)(int32_t deviceId, aclrtDeviceTaskAbortStage stage,
						 uint32_t timeout, void *args);

/*
 * Drop every task the process has queued on device deviceId, on every
 * stream of every context on it, and carry on with empty streams, in
 * CANN's steps: the device enters the abort state (submits and
 * synchronizes on its streams, aclrtMemcpy and aclrtMemset answer
 * ACL_ERROR_RT_DEVICE_TASK_ABORT; a fault seen now calls no exception
 * callback), the queues are dropped
 * (running copies stop at their next chunk; host callbacks not yet
 * reached are discarded; events recorded before complete), the PRE
 * callbacks run, then the POST callbacks, then the device leaves the
 * abort state with every context's ACL_STOP_ON_FAILURE error cleared.
 * timeout: milliseconds for the whole (0: no limit; at most 2160000,
 * else ACL_ERROR_RT_PARAM_INVALID); each callback gets what is left of
 * it (0: no limit). Past it after a step: ACL_ERROR_RT_WAIT_TIMEOUT; a
 * callback's non-zero answer is the result as it is. Either leaves the
 * device in the abort state until an aclrtDeviceTaskAbort completes (or
 * the device is reset). A deviceId that names no device:
 * ACL_ERROR_RT_INVALID_DEVICEID; a device the process has no context on:
 * ACL_ERROR_RT_CONTEXT_NULL.
 */
ACL_FUNC_VISIBILITY aclError aclrtDeviceTaskAbort(int32_t deviceId, uint32_t timeout);
/*
 * Register callback with args under regName (NULL: ACL_ERROR_INVALID_PARAM)
 * for every device's abort; a name already taken:
 * ACL_ERROR_RT_PARAM_INVALID; callback NULL removes the name's (none:
 * success). Callbacks run in the order of their names (strcmp).
 */
ACL_FUNC_VISIBILITY aclError aclrtSetDeviceTaskAbortCallback(const char *regName,
							     aclrtDeviceTaskAbortCallback callback, void *args);

#ifdef __cplusplus
}
#endif

#endif /* ACL_ACL_RT_H */
