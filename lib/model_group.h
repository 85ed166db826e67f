/* SPDX-License-Identifier: MIT */
/*
 * Task groups of a capture (model_group.c), for model.c (and lifecycle.c's
 * fork handler): the groups' handles live as long as their model.
 */
#ifndef LIBACL_MODEL_GROUP_H
#define LIBACL_MODEL_GROUP_H

#include <stdbool.h>
#include <stdint.h>

struct acl_capture;
struct acl_mtab;
struct acl_task_grp;

/* The model of @cap is destroyed: its groups' handles go (aclmdlRIDestroy). */
void acl_grps_close(struct acl_capture *cap);
/*
 * The model of @cap was made, its task table @tab (a condition task's
 * sub-model with @sub, whose commands are its parent's): its groups'
 * tasks are updated from now on.
 */
void acl_grps_ready(struct acl_capture *cap, struct acl_mtab *tab, bool sub);
/*
 * A change of a task of the group @g (kernel.c: a launch on a stream
 * updating it): with its model's task table locked, @fn(the model's
 * recording, @arg) changes the task and the model's driver models are
 * made anew, @undo(@arg) if they could not be (model_task.c
 * acl_mtab_change()). 107017 once its model was destroyed; 107040 while
 * the model is still being captured; 207000 for a sub-model's group.
 */
int acl_grp_update(struct acl_task_grp *g, int (*fn)(struct acl_capture *cap, void *arg), void (*undo)(void *arg),
		   void *arg);
/* After fork: free @cap's groups without a word to the handle table. */
void acl_grps_forget(struct acl_capture *cap);
/* After fork: reset the groups' lock (whether or not a model exists). */
void acl_grps_atfork_child(void);

#endif /* LIBACL_MODEL_GROUP_H */
