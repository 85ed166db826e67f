// SPDX-License-Identifier: MIT
/*
 * tools/dcmi/dcmi_query.c - what libdcmi reports of one chip: model, PCI
 * carrier, memory, usage rates (device memory; the DMA engine's busy time
 * as the overall NPU utilisation), health and error codes, processes, the
 * memory "cgroup", and the sensors it does not have. Each function checks
 * its pointers, then the ids (dcmi_check_chip), then asks the driver, in
 * the vendor's order, so a bad pointer is INVALID_PARAMETER before
 * dcmi_init() too.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dcmi_internal.h"

_Static_assert(DCMI_NPU_ERRCODE_DMA_FAULT == NPU_NL_ERRCODE_DMA_FAULT &&
	       DCMI_NPU_ERRCODE_UNPLUGGED == NPU_NL_ERRCODE_UNPLUGGED &&
	       DCMI_NPU_ERRCODE_RESETTING == NPU_NL_ERRCODE_RESETTING,
	       "the header's error codes are npu_nl's");

/* The checks, then the device as the driver reports it now. */
static int chip(int card_id, int device_id, struct npu_nl_dev *d)
{
	int ret = dcmi_check_chip(card_id, device_id);

	return ret ? ret : dcmi_device(card_id, d);
}

static void fill_chip(const struct npu_nl_dev *d, struct dcmi_chip_info_v2 *c)
{
	unsigned int cube = 0, vector;
	/* "Ascend910B3" is the vendor's type "Ascend", name "910B3" */
	bool ascend = !strncmp(d->soc, "Ascend", 6) && d->soc[6];

	memset(c, 0, sizeof(*c));
	snprintf((char *)c->chip_type, sizeof(c->chip_type), "%s", ascend ? "Ascend" : "npu");
	snprintf((char *)c->chip_name, sizeof(c->chip_name), "%.31s", ascend ? d->soc + 6 : d->soc);
	snprintf((char *)c->chip_ver, sizeof(c->chip_ver), "NA");
	if (npu_nl_cores(&cube, &vector))
		cube = 0;
	c->aicore_cnt = cube;
	snprintf((char *)c->npu_name, sizeof(c->npu_name), "%.31s", d->name);
}

int dcmi_get_device_chip_info_v2(int card_id, int device_id, struct dcmi_chip_info_v2 *chip_info)
{
	struct npu_nl_dev d;
	int ret;

	if (!chip_info)
		return DCMI_ERR_CODE_INVALID_PARAMETER;
	ret = chip(card_id, device_id, &d);
	if (!ret)
		fill_chip(&d, chip_info);
	return ret;
}

int dcmi_get_device_chip_info(int card_id, int device_id, struct dcmi_chip_info *chip_info)
{
	struct dcmi_chip_info_v2 v2;
	int ret;

	if (!chip_info)
		return DCMI_ERR_CODE_INVALID_PARAMETER;
	ret = dcmi_get_device_chip_info_v2(card_id, device_id, &v2);
	if (!ret)
		memcpy(chip_info, &v2, sizeof(*chip_info));
	return ret;
}

/* The carrier's PCI function: NOT_SUPPORT without one; DEVICE_NOT_EXIST
 * once it was unplugged (its ids went with it). */
static int pci(int card_id, int device_id, struct npu_nl_pci *p)
{
	struct npu_nl_dev d;
	int ret = chip(card_id, device_id, &d);

	if (ret)
		return ret;
	if (npu_nl_pci(&d, p))
		return DCMI_ERR_CODE_NOT_SUPPORT;
	return p->ids ? DCMI_OK : DCMI_ERR_CODE_DEVICE_NOT_EXIST;
}

int dcmi_get_device_pcie_info_v2(int card_id, int device_id, struct dcmi_pcie_info_all *pcie_info)
{
	struct npu_nl_pci p;
	int ret;

	if (!pcie_info)
		return DCMI_ERR_CODE_INVALID_PARAMETER;
	ret = pci(card_id, device_id, &p);
	if (ret)
		return ret;
	memset(pcie_info, 0, sizeof(*pcie_info));
	pcie_info->venderid = p.vendor;
	pcie_info->subvenderid = p.subvendor;
	pcie_info->deviceid = p.device;
	pcie_info->subdeviceid = p.subdevice;
	pcie_info->domain = p.domain;
	pcie_info->bdf_busid = p.bus;
	pcie_info->bdf_deviceid = p.dev;
	pcie_info->bdf_funcid = p.fn;
	return DCMI_OK;
}

int dcmi_get_device_pcie_info(int card_id, int device_id, struct dcmi_pcie_info *pcie_info)
{
	struct npu_nl_pci p;
	int ret;

	if (!pcie_info)
		return DCMI_ERR_CODE_INVALID_PARAMETER;
	ret = pci(card_id, device_id, &p);
	if (ret)
		return ret;
	pcie_info->deviceid = p.device;
	pcie_info->venderid = p.vendor;
	pcie_info->subvenderid = p.subvendor;
	pcie_info->subdeviceid = p.subdevice;
	pcie_info->bdf_deviceid = p.dev;
	pcie_info->bdf_busid = p.bus;
	pcie_info->bdf_funcid = p.fn;
	return DCMI_OK;
}

int dcmi_get_pcie_info(int card_id, int device_id, struct dcmi_tag_pcie_idinfo *pcie_idinfo)
{
	_Static_assert(sizeof(struct dcmi_tag_pcie_idinfo) == sizeof(struct dcmi_pcie_info),
		       "the two forms have one layout");
	return dcmi_get_device_pcie_info(card_id, device_id, (struct dcmi_pcie_info *)pcie_idinfo);
}

int dcmi_get_device_hbm_info(int card_id, int device_id, struct dcmi_hbm_info *hbm_info)
{
	struct npu_nl_dev d;
	int ret;

	if (!hbm_info)
		return DCMI_ERR_CODE_INVALID_PARAMETER;
	ret = chip(card_id, device_id, &d);
	if (ret)
		return ret;
	/* no clock, sensor or bandwidth counter: 0 in those fields */
	memset(hbm_info, 0, sizeof(*hbm_info));
	hbm_info->memory_size = npu_nl_mib(d.total);
	hbm_info->memory_usage = npu_nl_mib(d.used);
	return DCMI_OK;
}

int dcmi_get_hbm_info(int card_id, int device_id, struct dsmi_hbm_info_stru *device_hbm_info)
{
	struct npu_nl_dev d;
	int ret;

	if (!device_hbm_info)
		return DCMI_ERR_CODE_INVALID_PARAMETER;
	ret = chip(card_id, device_id, &d);
	if (ret)
		return ret;
	memset(device_hbm_info, 0, sizeof(*device_hbm_info));
	device_hbm_info->memory_size = d.total >> 10;
	device_hbm_info->memory_usage = d.used >> 10;
	return DCMI_OK;
}

/* DDR: the device has none; the checks still run. */
static int no_ddr(int card_id, int device_id, void *info, size_t size)
{
	struct npu_nl_dev d;
	int ret;

	if (!info)
		return DCMI_ERR_CODE_INVALID_PARAMETER;
	ret = chip(card_id, device_id, &d);
	if (!ret)
		memset(info, 0, size);
	return ret;
}

int dcmi_get_device_memory_info_v2(int card_id, int device_id, struct dcmi_memory_info *memory_info)
{
	return no_ddr(card_id, device_id, memory_info, sizeof(*memory_info));
}

int dcmi_get_device_memory_info_v3(int card_id, int device_id,
				   struct dcmi_get_memory_info_stru *memory_info)
{
	return no_ddr(card_id, device_id, memory_info, sizeof(*memory_info));
}

int dcmi_get_memory_info(int card_id, int device_id, struct dcmi_memory_info_stru *device_memory_info)
{
	return no_ddr(card_id, device_id, device_memory_info, sizeof(*device_memory_info));
}

/*
 * The overall NPU utilisation: the DMA engine's busy time over
 * NPU_NL_UTIL_WINDOW_MS (tools/npu_nl.h), the socket's lock not held
 * while waiting, as npu-smi's summary and usages page measure it.
 */
static int npu_util(int card_id, const struct npu_nl_dev *before, unsigned int *rate)
{
	struct npu_nl_dev after;
	int ret;

	npu_nl_util_wait(before);
	ret = dcmi_device(card_id, &after);
	if (ret)
		return ret;
	npu_nl_util(&after, 1, before, 1);
	*rate = after.util;
	return DCMI_OK;
}

int dcmi_get_device_utilization_rate(int card_id, int device_id, int input_type,
				     unsigned int *utilization_rate)
{
	struct npu_nl_dev d;
	int ret;

	if (!utilization_rate)
		return DCMI_ERR_CODE_INVALID_PARAMETER;
	ret = chip(card_id, device_id, &d);
	if (ret)
		return ret;
	switch (input_type) {
	case DCMI_UTILIZATION_RATE_HBM:
		*utilization_rate = npu_nl_hbm_rate(&d);
		return DCMI_OK;
	case DCMI_UTILIZATION_RATE_NPU:
		return npu_util(card_id, &d, utilization_rate);
	case DCMI_UTILIZATION_RATE_DDR:
	case DCMI_UTILIZATION_RATE_AICORE:
	case DCMI_UTILIZATION_RATE_AICPU:
	case DCMI_UTILIZATION_RATE_CTRLCPU:
	case DCMI_UTILIZATION_RATE_DDR_BANDWIDTH:
	case 8:	/* the vendor's DDR, documented without a name */
	case DCMI_UTILIZATION_RATE_HBM_BANDWIDTH:
	case DCMI_UTILIZATION_RATE_VECTORCORE:
		/* no DDR, no CPUs, no bandwidth counter; AI cores that run nothing */
		return DCMI_ERR_CODE_NOT_SUPPORT;
	default:
		return DCMI_ERR_CODE_INVALID_PARAMETER;
	}
}

int dcmi_get_device_health(int card_id, int device_id, unsigned int *health)
{
	struct npu_nl_dev d;
	int ret;

	if (!health)
		return DCMI_ERR_CODE_INVALID_PARAMETER;
	ret = chip(card_id, device_id, &d);
	if (!ret)
		*health = npu_nl_health(&d);
	return ret;
}

int dcmi_get_driver_health(unsigned int *health)
{
	struct npu_nl_dev *devs;
	int ret, n;

	if (!health)
		return DCMI_ERR_CODE_INVALID_PARAMETER;
	ret = dcmi_devices(&devs, &n);
	if (ret)
		return ret;
	free(devs);
	*health = NPU_NL_HEALTH_OK;
	return DCMI_OK;
}

int dcmi_get_device_errorcode_v2(int card_id, int device_id, int *error_count,
				 unsigned int *error_code_list, unsigned int list_len)
{
	unsigned int codes[NPU_NL_MAX_ERRCODES];
	struct npu_nl_dev d;
	int ret, n;

	if (!error_count || !error_code_list || !list_len)
		return DCMI_ERR_CODE_INVALID_PARAMETER;
	ret = chip(card_id, device_id, &d);
	if (ret)
		return ret;
	n = npu_nl_errcodes(&d, codes);
	if ((unsigned int)n > list_len)
		return DCMI_ERR_CODE_INVALID_PARAMETER;
	memcpy(error_code_list, codes, n * sizeof(codes[0]));
	*error_count = n;
	return DCMI_OK;
}

int dcmi_get_device_errorcode_string(int card_id, int device_id, unsigned int error_code,
				     unsigned char *error_info, int buf_size)
{
	struct npu_nl_dev d;
	const char *text;
	int ret;

	if (!error_info || buf_size < DCMI_MIN_ERR_INFO_LEN)
		return DCMI_ERR_CODE_INVALID_PARAMETER;
	ret = chip(card_id, device_id, &d);
	if (ret)
		return ret;
	text = npu_nl_errcode_text(error_code);
	if (!text)
		return DCMI_ERR_CODE_INVALID_PARAMETER;
	/* a short buffer gets the beginning, as the vendor's "simplified" text */
	snprintf((char *)error_info, buf_size, "%s", text);
	return DCMI_OK;
}

int dcmi_get_device_resource_info(int card_id, int device_id,
				  struct dcmi_proc_mem_info *proc_info, int *proc_num)
{
	struct npu_nl_proc *procs;
	struct npu_nl_dev d;
	int ret, i, n;

	if (!proc_info || !proc_num)
		return DCMI_ERR_CODE_INVALID_PARAMETER;
	ret = chip(card_id, device_id, &d);
	if (!ret)
		ret = dcmi_processes(card_id, &procs, &n);
	if (ret)
		return ret;
	n = npu_nl_procs_by_pid(procs, n);
	if (n > DCMI_MAX_PROC_NUM)
		n = DCMI_MAX_PROC_NUM;
	for (i = 0; i < n; i++) {
		proc_info[i].proc_id = procs[i].pid;
		proc_info[i].proc_mem_usage = procs[i].mem;
	}
	*proc_num = n;
	free(procs);
	return DCMI_OK;
}

int dcmi_get_device_cgroup_info(int card_id, int device_id, struct dcmi_cgroup_info *cg_info)
{
	struct npu_nl_dev d;
	int ret;

	if (!cg_info)
		return DCMI_ERR_CODE_INVALID_PARAMETER;
	ret = chip(card_id, device_id, &d);
	if (ret)
		return ret;
	cg_info->limit_in_bytes = d.total;
	cg_info->max_usage_in_bytes = d.peak;
	cg_info->usage_in_bytes = d.used;
	return DCMI_OK;
}

/* A sensor the chip does not have: the ids are checked, then NOT_SUPPORT. */
static int no_sensor(int card_id, int device_id, const void *out)
{
	int ret;

	if (!out)
		return DCMI_ERR_CODE_INVALID_PARAMETER;
	ret = dcmi_check_chip(card_id, device_id);
	return ret ? ret : DCMI_ERR_CODE_NOT_SUPPORT;
}

int dcmi_get_device_temperature(int card_id, int device_id, int *temperature)
{
	return no_sensor(card_id, device_id, temperature);
}

int dcmi_get_device_power_info(int card_id, int device_id, int *power)
{
	return no_sensor(card_id, device_id, power);
}
