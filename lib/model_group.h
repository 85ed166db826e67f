/* SPDX-License-Identifier: MIT */
/*
 * Task groups of a capture (model_group.c), for model.c (and lifecycle.c's
 * fork handler): the groups' handles live as long as their model.
 */
#ifndef LIBACL_MODEL_GROUP_H
#define LIBACL_MODEL_GROUP_H

struct acl_capture;

/* The model of @cap is destroyed: its groups' handles go (aclmdlRIDestroy). */
void acl_grps_close(struct acl_capture *cap);
/* After fork: free @cap's groups without a word to the handle table. */
void acl_grps_forget(struct acl_capture *cap);
/* After fork: reset the groups' lock (whether or not a model exists). */
void acl_grps_atfork_child(void);

#endif /* LIBACL_MODEL_GROUP_H */
