// SPDX-License-Identifier: MIT
/*
 * tools/dcmi/dcmi_core.c - libdcmi's ground: dcmi_init() and the card
 * table it takes, the versions, the card and chip lists and the id
 * mapping. The checks and their return codes follow the vendor's DCMI
 * (its reference for each function, and its sources in github
 * hicann/driver, src/custom/dev_prod/user/dcmi) where they are observable.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dcmi_internal.h"

#ifndef DCMI_LIB_VERSION
#define DCMI_LIB_VERSION "1.0.0"
#endif

/* One lock for the card table and the query socket: libnl sockets are not
 * for two threads at once, and queries are short. */
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static struct npu_nl nl;
static int cards[MAX_CARD_NUM];		/* card id (N of /dev/npuN) by logic id */
static int ncards;
static int inited;

int dcmi_from_errno(int err)
{
	switch (err) {
	case 0:
		return DCMI_OK;
	case -ENOENT:	/* no family: the driver is not loaded */
	case -ENODEV:
		return DCMI_ERR_CODE_DEVICE_NOT_EXIST;
	case -EPERM:
	case -EACCES:
		return DCMI_ERR_CODE_OPER_NOT_PERMITTED;
	case -ENOMEM:
		return DCMI_ERR_CODE_MEM_OPERATE_FAIL;
	case -EINVAL:
		return DCMI_ERR_CODE_INVALID_PARAMETER;
	default:
		return DCMI_ERR_CODE_INNER_ERR;
	}
}

/* With the lock held: the socket, opened on first use or after a failure. */
static int socket_locked(void)
{
	return nl.sk ? 0 : npu_nl_open(&nl);
}

/* Run a query; a socket that failed is dropped, the next query reopens. */
static int query_locked(int ret)
{
	if (ret && ret != -ENODEV && ret != -EPERM && ret != -EINVAL)
		npu_nl_close(&nl);
	return ret;
}

int dcmi_devices(struct npu_nl_dev **devs, int *n)
{
	int ret;

	pthread_mutex_lock(&lock);
	ret = socket_locked();
	if (!ret)
		ret = query_locked(npu_nl_devices(&nl, -1, devs, n));
	pthread_mutex_unlock(&lock);
	return dcmi_from_errno(ret);
}

int dcmi_device(int card_id, struct npu_nl_dev *d)
{
	struct npu_nl_dev *one;
	int ret, n;

	pthread_mutex_lock(&lock);
	ret = socket_locked();
	if (!ret)
		ret = query_locked(npu_nl_devices(&nl, card_id, &one, &n));
	pthread_mutex_unlock(&lock);
	if (!ret) {
		if (n == 1)
			*d = *one;
		else
			ret = -ENODEV;
		free(one);
	}
	return dcmi_from_errno(ret);
}

int dcmi_processes(int card_id, struct npu_nl_proc **procs, int *n)
{
	int ret;

	pthread_mutex_lock(&lock);
	ret = socket_locked();
	if (!ret)
		ret = query_locked(npu_nl_processes(&nl, card_id, procs, n));
	pthread_mutex_unlock(&lock);
	return dcmi_from_errno(ret);
}

int dcmi_logic_of_card(int card_id, int *is_inited)
{
	int i, logic = -1;

	pthread_mutex_lock(&lock);
	for (i = 0; i < ncards; i++)
		if (cards[i] == card_id)
			logic = i;
	if (is_inited)
		*is_inited = inited;
	pthread_mutex_unlock(&lock);
	return logic;
}

static int card_count(void)
{
	int n;

	pthread_mutex_lock(&lock);
	n = ncards;
	pthread_mutex_unlock(&lock);
	return n;
}

int dcmi_check_chip(int card_id, int device_id)
{
	enum dcmi_unit_type type;
	int ret = dcmi_get_device_type(card_id, device_id, &type);

	if (ret)
		return ret;
	return type == NPU_TYPE ? DCMI_OK : DCMI_ERR_CODE_NOT_SUPPORT;
}

int dcmi_init(void)
{
	struct npu_nl_dev *devs;
	int ret, i, n;

	ret = dcmi_devices(&devs, &n);
	if (ret)
		return ret;
	pthread_mutex_lock(&lock);
	ncards = n < MAX_CARD_NUM ? n : MAX_CARD_NUM;
	for (i = 0; i < ncards; i++)
		cards[i] = devs[i].index;
	inited = 1;
	pthread_mutex_unlock(&lock);
	free(devs);
	return DCMI_OK;
}

int dcmi_get_dcmi_version(char *dcmi_ver, unsigned int len)
{
	if (!dcmi_ver || len < DCMI_VERSION_MIN_LEN)
		return DCMI_ERR_CODE_INVALID_PARAMETER;
	snprintf(dcmi_ver, len, "%s", DCMI_LIB_VERSION);
	return DCMI_OK;
}

int dcmi_get_driver_version(char *driver_ver, unsigned int len)
{
	struct npu_nl_dev *devs;
	char ver[16];
	int ret, n;

	if (!driver_ver || !len)
		return DCMI_ERR_CODE_INVALID_PARAMETER;
	ret = dcmi_devices(&devs, &n);
	if (ret)
		return ret;
	if (n)
		npu_nl_version_str(devs[0].version, ver, sizeof(ver));
	free(devs);
	if (!n)
		return DCMI_ERR_CODE_DEVICE_NOT_EXIST;
	if (strlen(ver) >= len)
		return DCMI_ERR_CODE_INVALID_PARAMETER;
	strcpy(driver_ver, ver);
	return DCMI_OK;
}

int dcmi_get_card_list(int *card_num, int *card_list, int list_len)
{
	int i, ret = DCMI_OK;

	if (!card_num || !card_list || list_len <= 0)
		return DCMI_ERR_CODE_INVALID_PARAMETER;
	pthread_mutex_lock(&lock);
	if (!inited)
		ret = DCMI_ERR_CODE_INNER_ERR;	/* the vendor's answer before dcmi_init */
	else if (ncards > list_len)
		ret = DCMI_ERR_CODE_INVALID_PARAMETER;
	for (i = 0; !ret && i < ncards; i++)
		card_list[i] = cards[i];
	if (!ret)
		*card_num = ncards;
	pthread_mutex_unlock(&lock);
	return ret;
}

int dcmi_get_card_num_list(int *card_num, int *card_list, int list_len)
{
	return dcmi_get_card_list(card_num, card_list, list_len);
}

int dcmi_get_device_num_in_card(int card_id, int *device_num)
{
	int is_inited, logic;

	if (!device_num)
		return DCMI_ERR_CODE_INVALID_PARAMETER;
	logic = dcmi_logic_of_card(card_id, &is_inited);
	if (!is_inited) {
		*device_num = 0;	/* as the vendor's, before dcmi_init */
		return DCMI_OK;
	}
	if (logic < 0)
		return DCMI_ERR_CODE_INVALID_PARAMETER;
	*device_num = 1;
	return DCMI_OK;
}

int dcmi_get_device_id_in_card(int card_id, int *device_id_max, int *mcu_id, int *cpu_id)
{
	int is_inited, logic;

	if (!device_id_max || !mcu_id || !cpu_id)
		return DCMI_ERR_CODE_INVALID_PARAMETER;
	*mcu_id = -1;
	*cpu_id = -1;
	logic = dcmi_logic_of_card(card_id, &is_inited);
	if (!is_inited) {
		*device_id_max = 0;
		return DCMI_OK;
	}
	if (logic < 0)
		return DCMI_ERR_CODE_INVALID_PARAMETER;
	*device_id_max = 1;
	return DCMI_OK;
}

int dcmi_get_device_type(int card_id, int device_id, enum dcmi_unit_type *device_type)
{
	int is_inited, logic;

	if (card_id < 0 || device_id < 0 || !device_type)
		return DCMI_ERR_CODE_INVALID_PARAMETER;
	logic = dcmi_logic_of_card(card_id, &is_inited);
	if (!is_inited) {
		*device_type = INVALID_TYPE;
		return DCMI_OK;
	}
	/* one chip a card, no MCU, no control CPU */
	if (logic < 0 || device_id > 0)
		return DCMI_ERR_CODE_INVALID_PARAMETER;
	*device_type = NPU_TYPE;
	return DCMI_OK;
}

int dcmi_get_all_device_count(int *all_device_count)
{
	struct npu_nl_dev *devs;
	int ret, n;

	if (!all_device_count)
		return DCMI_ERR_CODE_INVALID_PARAMETER;
	ret = dcmi_devices(&devs, &n);
	if (ret)
		return ret;
	free(devs);
	*all_device_count = n;
	return DCMI_OK;
}

int dcmi_get_device_logic_id(int *device_logic_id, int card_id, int device_id)
{
	int is_inited, logic;

	if (!device_logic_id || card_id < 0 || device_id < 0)
		return DCMI_ERR_CODE_INVALID_PARAMETER;
	logic = dcmi_logic_of_card(card_id, &is_inited);
	if (!is_inited)
		return DCMI_ERR_CODE_NOT_REDAY;
	if (!card_count())
		return DCMI_ERR_CODE_INVALID_DEVICE_ID;
	if (logic < 0 || device_id > 0)
		return DCMI_ERR_CODE_INVALID_PARAMETER;
	*device_logic_id = logic;
	return DCMI_OK;
}

/* Logic and physical ids from the driver's list now: no dcmi_init needed,
 * as the vendor's ask the driver too. */
static int map_id(unsigned int id, bool from_logic, unsigned int *out)
{
	struct npu_nl_dev *devs;
	int ret, i, n;

	ret = dcmi_devices(&devs, &n);
	if (ret)
		return ret;
	ret = DCMI_ERR_CODE_INVALID_DEVICE_ID;
	for (i = 0; i < n; i++) {
		if (from_logic ? (unsigned int)i == id : devs[i].index == id) {
			*out = from_logic ? devs[i].index : (unsigned int)i;
			ret = DCMI_OK;
		}
	}
	free(devs);
	return ret;
}

int dcmi_get_device_phyid_from_logicid(unsigned int logicid, unsigned int *phyid)
{
	if (!phyid)
		return DCMI_ERR_CODE_INVALID_PARAMETER;
	return map_id(logicid, true, phyid);
}

int dcmi_get_device_logicid_from_phyid(unsigned int phyid, unsigned int *logicid)
{
	if (!logicid)
		return DCMI_ERR_CODE_INVALID_PARAMETER;
	return map_id(phyid, false, logicid);
}

/* Searches dcmi_init()'s table, as the vendor's searches its board table. */
static int card_of(unsigned int id, bool logic_id, int *card_id, int *device_id)
{
	int i, ret = DCMI_ERR_CODE_DEVICE_NOT_EXIST;

	if (!card_id || !device_id)
		return DCMI_ERR_CODE_INVALID_PARAMETER;
	pthread_mutex_lock(&lock);
	for (i = 0; i < ncards; i++) {
		if (logic_id ? (unsigned int)i == id : (unsigned int)cards[i] == id) {
			*card_id = cards[i];
			*device_id = 0;
			ret = DCMI_OK;
			break;
		}
	}
	pthread_mutex_unlock(&lock);
	return ret;
}

int dcmi_get_card_id_device_id_from_logicid(int *card_id, int *device_id, unsigned int device_logic_id)
{
	return card_of(device_logic_id, true, card_id, device_id);
}

int dcmi_get_card_id_device_id_from_phyid(int *card_id, int *device_id, unsigned int device_phy_id)
{
	return card_of(device_phy_id, false, card_id, device_id);
}
