/* SPDX-License-Identifier: MIT */
/*
 * dcmi_interface_api.h - libdcmi, npu's implementation of the vendor's
 * DCMI (device management) C API, for exporters, device plugins and
 * frameworks that read an Ascend device through DCMI.
 *
 * The names, prototypes, structure layouts and return codes are those of
 * the vendor's DCMI as its Ascend 910B DCMI API reference documents them,
 * so that a program written against that reference builds and runs here
 * unchanged (same header name, -ldcmi). The subset is what npu's device
 * can answer, through the driver's generic netlink family "npu"
 * (Documentation/dcmi.rst lists each function, what it reports here and
 * why, and what it cannot).
 *
 * Identifiers: a card is one /dev/npuN, its card_id is N; it has one chip,
 * device_id 0 (no MCU, no control CPU). The chip's physical id is N too,
 * its logic id its position among the devices. Call dcmi_init() first.
 *
 * Every function returns DCMI_OK (0) or a negative DCMI_ERR_CODE_*. The
 * functions are thread-safe. A caller without CAP_SYS_ADMIN sees only its
 * own user's processes and cannot subscribe to fault events, as the
 * netlink family decides.
 */
#ifndef __DCMI_INTERFACE_API_H__
#define __DCMI_INTERFACE_API_H__

#ifdef __cplusplus
extern "C" {
#endif

#define DCMIDLLEXPORT

/* ---- return codes ------------------------------------------------------ */

#define DCMI_OK					0
#define DCMI_ERROR_CODE_BASE			(-8000)
#define DCMI_ERR_CODE_INVALID_PARAMETER		(DCMI_ERROR_CODE_BASE - 1)
#define DCMI_ERR_CODE_OPER_NOT_PERMITTED	(DCMI_ERROR_CODE_BASE - 2)
#define DCMI_ERR_CODE_MEM_OPERATE_FAIL		(DCMI_ERROR_CODE_BASE - 3)
#define DCMI_ERR_CODE_SECURE_FUN_FAIL		(DCMI_ERROR_CODE_BASE - 4)
#define DCMI_ERR_CODE_INNER_ERR			(DCMI_ERROR_CODE_BASE - 5)
#define DCMI_ERR_CODE_TIME_OUT			(DCMI_ERROR_CODE_BASE - 6)
#define DCMI_ERR_CODE_INVALID_DEVICE_ID		(DCMI_ERROR_CODE_BASE - 7)
#define DCMI_ERR_CODE_DEVICE_NOT_EXIST		(DCMI_ERROR_CODE_BASE - 8)
#define DCMI_ERR_CODE_IOCTL_FAIL		(DCMI_ERROR_CODE_BASE - 9)
#define DCMI_ERR_CODE_SEND_MSG_FAIL		(DCMI_ERROR_CODE_BASE - 10)
#define DCMI_ERR_CODE_RECV_MSG_FAIL		(DCMI_ERROR_CODE_BASE - 11)
#define DCMI_ERR_CODE_NOT_REDAY			(DCMI_ERROR_CODE_BASE - 12)
#define DCMI_ERR_CODE_NOT_SUPPORT_IN_CONTAINER	(DCMI_ERROR_CODE_BASE - 13)
#define DCMI_ERR_CODE_FILE_OPERATE_FAIL		(DCMI_ERROR_CODE_BASE - 14)
#define DCMI_ERR_CODE_RESET_FAIL		(DCMI_ERROR_CODE_BASE - 15)
#define DCMI_ERR_CODE_ABORT_OPERATE		(DCMI_ERROR_CODE_BASE - 16)
#define DCMI_ERR_CODE_IS_UPGRADING		(DCMI_ERROR_CODE_BASE - 17)
#define DCMI_ERR_CODE_RESOURCE_OCCUPIED		(DCMI_ERROR_CODE_BASE - 20)
#define DCMI_ERR_CODE_PARTITION_NOT_RIGHT	(DCMI_ERROR_CODE_BASE - 22)
#define DCMI_ERR_CODE_CONFIG_INFO_NOT_EXIST	(DCMI_ERROR_CODE_BASE - 23)
#define DCMI_ERR_CODE_NOT_SUPPORT		(DCMI_ERROR_CODE_BASE - 255)

/* ---- sizes --------------------------------------------------------------- */

#define MAX_CHIP_NAME_LEN	32	/* the strings of struct dcmi_chip_info */
#define MAX_CARD_NUM		64	/* cards a system can have */

/* ---- types ------------------------------------------------------------------ */

/* What a (card_id, device_id) pair names; npu's chips are all NPU_TYPE. */
enum dcmi_unit_type {
	NPU_TYPE = 0,
	MCU_TYPE = 1,
	CPU_TYPE = 2,
	INVALID_TYPE = 0xFF
};

struct dcmi_chip_info {
	unsigned char chip_type[MAX_CHIP_NAME_LEN];	/* "Ascend", or "npu" for a model of npu's own */
	unsigned char chip_name[MAX_CHIP_NAME_LEN];	/* "910B3", "NPUSim-A1", ... */
	unsigned char chip_ver[MAX_CHIP_NAME_LEN];	/* "NA": the model has no revision */
	unsigned int aicore_cnt;			/* AI (cube) cores the chip models */
};

struct dcmi_chip_info_v2 {
	unsigned char chip_type[MAX_CHIP_NAME_LEN];
	unsigned char chip_name[MAX_CHIP_NAME_LEN];
	unsigned char chip_ver[MAX_CHIP_NAME_LEN];
	unsigned int aicore_cnt;
	unsigned char npu_name[MAX_CHIP_NAME_LEN];	/* the device's name, "npuN" */
};

/* The PCI function that carries the device: its ids and address. */
struct dcmi_pcie_info {
	unsigned int deviceid;
	unsigned int venderid;
	unsigned int subvenderid;
	unsigned int subdeviceid;
	unsigned int bdf_deviceid;
	unsigned int bdf_busid;
	unsigned int bdf_funcid;
};

struct dcmi_pcie_info_all {
	unsigned int venderid;
	unsigned int subvenderid;
	unsigned int deviceid;
	unsigned int subdeviceid;
	int domain;
	unsigned int bdf_busid;
	unsigned int bdf_deviceid;
	unsigned int bdf_funcid;
	unsigned char reserve[32];	/* 64 bytes in all */
};

/* dcmi_get_pcie_info()'s older form of struct dcmi_pcie_info. */
struct dcmi_tag_pcie_idinfo {
	unsigned int deviceid;
	unsigned int venderid;
	unsigned int subvenderid;
	unsigned int subdeviceid;
	unsigned int bdf_deviceid;
	unsigned int bdf_busid;
	unsigned int bdf_funcid;
};

/* On-chip memory (npu's device memory), sizes in MB. */
struct dcmi_hbm_info {
	unsigned long long memory_size;		/* total */
	unsigned int freq;			/* MHz; 0: not modeled */
	unsigned long long memory_usage;	/* allocated */
	int temp;				/* degrees C; 0: no sensor */
	unsigned int bandwith_util_rate;	/* %; 0: not measured */
};

/* dcmi_get_hbm_info()'s older form: sizes in KB. */
struct dsmi_hbm_info_stru {
	unsigned long long memory_size;
	unsigned int freq;
	unsigned long long memory_usage;
	int temp;
	unsigned int bandwith_util_rate;
};

/* DDR memory beside the chip: npu's device has none, so all zero. */
struct dcmi_memory_info {
	unsigned long long memory_size;		/* MB */
	unsigned int freq;
	unsigned int utiliza;
};

struct dcmi_get_memory_info_stru {
	unsigned long long memory_size;		/* MB */
	unsigned long long memory_available;	/* MB: free + huge pages free */
	unsigned int freq;
	unsigned long hugepagesize;		/* KB */
	unsigned long hugepages_total;
	unsigned long hugepages_free;
	unsigned int utiliza;
	unsigned char reserve[60];		/* 96 bytes in all */
};

struct dcmi_memory_info_stru {
	unsigned long long memory_size;		/* MB */
	unsigned int freq;
	unsigned int utiliza;
};

/* The device's memory as a cgroup would count it: npu's device memory. */
struct dcmi_cgroup_info {
	unsigned long limit_in_bytes;		/* the device's memory */
	unsigned long max_usage_in_bytes;	/* the most allocated since load or counter reset */
	unsigned long usage_in_bytes;		/* allocated now */
};

/* A process using the device and the device memory it allocated (bytes). */
struct dcmi_proc_mem_info {
	int proc_id;
	unsigned long proc_mem_usage;
};

/* dcmi_get_device_utilization_rate()'s input_type. */
#define DCMI_UTILIZATION_RATE_DDR		1
#define DCMI_UTILIZATION_RATE_AICORE		2
#define DCMI_UTILIZATION_RATE_AICPU		3
#define DCMI_UTILIZATION_RATE_CTRLCPU		4
#define DCMI_UTILIZATION_RATE_DDR_BANDWIDTH	5
#define DCMI_UTILIZATION_RATE_HBM		6
#define DCMI_UTILIZATION_RATE_HBM_BANDWIDTH	10
#define DCMI_UTILIZATION_RATE_VECTORCORE	12
#define DCMI_UTILIZATION_RATE_NPU		13	/* overall; the vendor documents the value */

/* ---- fault events --------------------------------------------------------------- */

#define DCMI_EVENT_FILTER_FLAG_EVENT_ID		(1UL << 0)
#define DCMI_EVENT_FILTER_FLAG_SERVERITY	(1UL << 1)
#define DCMI_EVENT_FILTER_FLAG_NODE_TYPE	(1UL << 2)

#define DCMI_MAX_EVENT_NAME_LENGTH	256
#define DCMI_MAX_EVENT_DATA_LENGTH	32
#define DCMI_MAX_EVENT_RESV_LENGTH	32

/*
 * npu's events. The vendor's event ids name its hardware's faults; npu's
 * device has one kind: a DMA fault (a command touched an address it may
 * not). It comes as a one-off event (assertion 2) of severity 1 (minor),
 * node type 0; event_name says what and why, additional_info the process
 * ("pid 123 stream 4"), alarm_raised_time when libdcmi received it.
 */
#define DCMI_NPU_EVENT_ID_DMA_FAULT	0x4E500001U
/* dcmi_get_device_errorcode_v2: also npu's, beside the one above */
#define DCMI_NPU_ERRCODE_DMA_FAULT	DCMI_NPU_EVENT_ID_DMA_FAULT
#define DCMI_NPU_ERRCODE_UNPLUGGED	0x4E500002U
#define DCMI_NPU_ERRCODE_RESETTING	0x4E500003U	/* a device reset under way */

struct dcmi_event_filter {
	unsigned long long filter_flag;	/* DCMI_EVENT_FILTER_FLAG_*, 0: every event */
	unsigned int event_id;		/* only this event */
	unsigned char severity;		/* only this severity or a higher one */
	unsigned char node_type;	/* only this node type */
	unsigned char resv[DCMI_MAX_EVENT_RESV_LENGTH];
};

struct dcmi_dms_fault_event {
	unsigned int event_id;
	unsigned short deviceid;	/* the card_id */
	unsigned char node_type;
	unsigned char node_id;
	unsigned char sub_node_type;
	unsigned char sub_node_id;
	unsigned char severity;		/* 0 warning, 1 minor, 2 major, 3 critical */
	unsigned char assertion;	/* 0 recovered, 1 raised, 2 one-off */
	int event_serial_num;
	int notify_serial_num;
	unsigned long long alarm_raised_time;	/* ms since the epoch */
	char event_name[DCMI_MAX_EVENT_NAME_LENGTH];
	char additional_info[DCMI_MAX_EVENT_DATA_LENGTH];
	unsigned char os_id;
	unsigned char resv_1[1];
	unsigned short node_type_ex;
	unsigned short sub_node_type_ex;
	unsigned char resv_2[2];
	unsigned char resv[DCMI_MAX_EVENT_RESV_LENGTH - 8];
};

enum dcmi_event_type {
	DCMI_DMS_FAULT_EVENT = 0,
	DCMI_EVENT_TYPE_MAX
};

struct dcmi_event {
	enum dcmi_event_type type;
	union {
		struct dcmi_dms_fault_event dms_event;
	} event_t;
};

typedef void (*dcmi_fault_event_callback)(struct dcmi_event *event);

/* ---- functions ------------------------------------------------------------------ */

/* Find the driver and its devices; before any other call. DEVICE_NOT_EXIST
 * when npu.ko is not loaded. Calling it again takes the device list anew. */
DCMIDLLEXPORT int dcmi_init(void);

/* libdcmi's version ("1.0.0"); @len at least 16. */
DCMIDLLEXPORT int dcmi_get_dcmi_version(char *dcmi_ver, unsigned int len);

/* npu.ko's version, "1.13.0". */
DCMIDLLEXPORT int dcmi_get_driver_version(char *driver_ver, unsigned int len);

/* The card ids (N of each /dev/npuN) into @card_list, their number into
 * @card_num; @list_len must hold them all. */
DCMIDLLEXPORT int dcmi_get_card_list(int *card_num, int *card_list, int list_len);
DCMIDLLEXPORT int dcmi_get_card_num_list(int *card_num, int *card_list, int list_len);

/* Chips of a card: 1. */
DCMIDLLEXPORT int dcmi_get_device_num_in_card(int card_id, int *device_num);

/* Chips of a card (1), its MCU and control CPU ids (-1: none). */
DCMIDLLEXPORT int dcmi_get_device_id_in_card(int card_id, int *device_id_max, int *mcu_id, int *cpu_id);

DCMIDLLEXPORT int dcmi_get_device_type(int card_id, int device_id, enum dcmi_unit_type *device_type);

/* Every device the driver has, without dcmi_init(). */
DCMIDLLEXPORT int dcmi_get_all_device_count(int *all_device_count);

/* Id mapping: logic id (position), physical id (N), card and chip. */
DCMIDLLEXPORT int dcmi_get_device_logic_id(int *device_logic_id, int card_id, int device_id);
DCMIDLLEXPORT int dcmi_get_device_phyid_from_logicid(unsigned int logicid, unsigned int *phyid);
DCMIDLLEXPORT int dcmi_get_device_logicid_from_phyid(unsigned int phyid, unsigned int *logicid);
DCMIDLLEXPORT int dcmi_get_card_id_device_id_from_logicid(int *card_id, int *device_id, unsigned int device_logic_id);
DCMIDLLEXPORT int dcmi_get_card_id_device_id_from_phyid(int *card_id, int *device_id, unsigned int device_phy_id);

/* The chip model (npu.ko's soc_name) and its AI cores. */
DCMIDLLEXPORT int dcmi_get_device_chip_info(int card_id, int device_id, struct dcmi_chip_info *chip_info);
DCMIDLLEXPORT int dcmi_get_device_chip_info_v2(int card_id, int device_id, struct dcmi_chip_info_v2 *chip_info);

/* The PCI carrier; NOT_SUPPORT for a device without one (carrier=0). */
DCMIDLLEXPORT int dcmi_get_device_pcie_info(int card_id, int device_id, struct dcmi_pcie_info *pcie_info);
DCMIDLLEXPORT int dcmi_get_device_pcie_info_v2(int card_id, int device_id, struct dcmi_pcie_info_all *pcie_info);
DCMIDLLEXPORT int dcmi_get_pcie_info(int card_id, int device_id, struct dcmi_tag_pcie_idinfo *pcie_idinfo);

/* Device memory: total and allocated (MB; dcmi_get_hbm_info in KB). */
DCMIDLLEXPORT int dcmi_get_device_hbm_info(int card_id, int device_id, struct dcmi_hbm_info *hbm_info);
DCMIDLLEXPORT int dcmi_get_hbm_info(int card_id, int device_id, struct dsmi_hbm_info_stru *device_hbm_info);

/* DDR memory: none on npu's device, every figure 0. */
DCMIDLLEXPORT int dcmi_get_device_memory_info_v2(int card_id, int device_id, struct dcmi_memory_info *memory_info);
DCMIDLLEXPORT int dcmi_get_device_memory_info_v3(int card_id, int device_id,
	struct dcmi_get_memory_info_stru *memory_info);
DCMIDLLEXPORT int dcmi_get_memory_info(int card_id, int device_id, struct dcmi_memory_info_stru *device_memory_info);

/*
 * A usage rate in %: DCMI_UTILIZATION_RATE_HBM (device memory allocated);
 * DCMI_UTILIZATION_RATE_NPU (overall: the time the device's DMA engine
 * worked, measured over 50 ms, so the call takes that long). The other
 * types the vendor documents (AI core, AI CPU, control CPU, HBM bandwidth,
 * vector core) are NOT_SUPPORT: the AI cores run nothing yet, the rest has
 * no counter. DDR and DDR bandwidth too: there is no DDR.
 */
DCMIDLLEXPORT int dcmi_get_device_utilization_rate(
	int card_id, int device_id, int input_type, unsigned int *utilization_rate);

/* 0 OK, 1 minor alarm (DMA faults since load or counter reset), 2 major
 * alarm (a device reset under way), 3 critical (the carrier was
 * unplugged); the worst applies. */
DCMIDLLEXPORT int dcmi_get_device_health(int card_id, int device_id, unsigned int *health);

/* 0 while the driver answers. */
DCMIDLLEXPORT int dcmi_get_driver_health(unsigned int *health);

/* The device's error codes (DCMI_NPU_ERRCODE_*), and the text of one;
 * @buf_size at least 48. */
DCMIDLLEXPORT int dcmi_get_device_errorcode_v2(
	int card_id, int device_id, int *error_count, unsigned int *error_code_list, unsigned int list_len);
DCMIDLLEXPORT int dcmi_get_device_errorcode_string(
	int card_id, int device_id, unsigned int error_code, unsigned char *error_info, int buf_size);

/* The processes using the device (at most 32, @proc_info must hold that
 * many) and the device memory each allocated; a process that opened the
 * device twice is one entry. Unprivileged callers see their own. */
DCMIDLLEXPORT int dcmi_get_device_resource_info(int card_id, int device_id,
	struct dcmi_proc_mem_info *proc_info, int *proc_num);

DCMIDLLEXPORT int dcmi_get_device_cgroup_info(int card_id, int device_id, struct dcmi_cgroup_info *cg_info);

/* No sensors: NOT_SUPPORT once the ids are checked. */
DCMIDLLEXPORT int dcmi_get_device_temperature(int card_id, int device_id, int *temperature);
DCMIDLLEXPORT int dcmi_get_device_power_info(int card_id, int device_id, int *power);

/*
 * Fault events as they happen (none from before), CAP_SYS_ADMIN only
 * (else OPER_NOT_PERMITTED). dcmi_subscribe_fault_event() calls @handler
 * from a thread of libdcmi's for each event that passes @filter, on the
 * device given or on all (-1, -1); once a process. dcmi_get_fault_event()
 * waits up to @timeout ms (0..30000, -1 forever) for one, TIME_OUT if none
 * came; events arriving between calls wait for the next call. A process
 * uses one or the other (RESOURCE_OCCUPIED).
 */
DCMIDLLEXPORT int dcmi_subscribe_fault_event(int card_id, int device_id, struct dcmi_event_filter filter,
	dcmi_fault_event_callback handler);
DCMIDLLEXPORT int dcmi_get_fault_event(int card_id, int device_id, int timeout, struct dcmi_event_filter filter,
	struct dcmi_event *event);

#ifdef __cplusplus
}
#endif

#endif /* __DCMI_INTERFACE_API_H__ */
