/* SPDX-License-Identifier: MIT */
/*
 * tools/dcmi/dcmi_internal.h - what libdcmi's files share: the card table
 * dcmi_init() takes, one netlink socket for queries (both under one lock),
 * and the checks every device function makes first, in the vendor's order.
 */
#ifndef DCMI_INTERNAL_H
#define DCMI_INTERNAL_H

#include "dcmi_interface_api.h"
#include "npu_nl.h"

#define DCMI_HIDDEN __attribute__((visibility("hidden")))

/* The vendor's limits (its DCMI reference and sources). */
#define DCMI_VERSION_MIN_LEN	16	/* dcmi_get_dcmi_version's buffer */
#define DCMI_MIN_ERR_INFO_LEN	48	/* dcmi_get_device_errorcode_string's */
#define DCMI_EVENT_WAIT_MAX_MS	30000	/* dcmi_get_fault_event's timeout */
#define DCMI_MAX_PROC_NUM	32	/* dcmi_get_device_resource_info's entries */

/* A -errno of tools/npu_nl.c as a DCMI return code. */
DCMI_HIDDEN int dcmi_from_errno(int err);

/*
 * The vendor's first checks of a device function (dcmi_get_device_type):
 * negative ids are INVALID_PARAMETER; before dcmi_init() the pair names no
 * NPU, so NOT_SUPPORT; a card dcmi_init() did not find, or a chip other
 * than 0, is INVALID_PARAMETER.
 */
DCMI_HIDDEN int dcmi_check_chip(int card_id, int device_id);

/* What the driver says of card @card_id now (a device that went away is
 * DEVICE_NOT_EXIST). */
DCMI_HIDDEN int dcmi_device(int card_id, struct npu_nl_dev *d);

/* Every device now, in index order; the caller frees *@devs. */
DCMI_HIDDEN int dcmi_devices(struct npu_nl_dev **devs, int *n);

/* The contexts of card @card_id now; the caller frees *@procs. */
DCMI_HIDDEN int dcmi_processes(int card_id, struct npu_nl_proc **procs, int *n);

/* Whether dcmi_init() has run, and card @card_id's logic id (-1: none). */
DCMI_HIDDEN int dcmi_logic_of_card(int card_id, int *inited);

#endif /* DCMI_INTERNAL_H */
