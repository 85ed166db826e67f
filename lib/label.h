/* SPDX-License-Identifier: MIT */
/* Labels (label.c), for the models that jump to them (model.c). */
#ifndef LIBACL_LABEL_H
#define LIBACL_LABEL_H

#include <stdint.h>

struct acl_obj;

/*
 * The targets of a label switch recorded in the recording @serial: for
 * each of the first @n labels of @list (a struct acl_label_list), its
 * step index in the driver's model of the commands [@first, @end) of the
 * recording (@end: the model's end). 0, or why a label is no target: not
 * set in that recording, or in another of its driver models.
 */
int acl_label_targets(struct acl_obj *list, uint64_t serial, uint32_t first, uint32_t end, uint32_t n,
		      uint32_t *targets);

#endif /* LIBACL_LABEL_H */
