/* SPDX-License-Identifier: MIT */
/* Model runtime instances and stream capture (model.c), for the rest of the library. */
#ifndef LIBACL_MODEL_H
#define LIBACL_MODEL_H

#include <stdbool.h>

#include <acl/acl.h>

struct acl_capture;
struct acl_model;
struct acl_stream;

/*
 * The capture modes' rule (CANN's IsCaptureModeSupport) for a call they
 * restrict - aclrtMemcpy, aclrtMemset, aclrtMemcpy2d: @err (ACLI_ECAPMODE)
 * with the reason if a capture of the current context forbids it to the
 * calling thread now, else 0.
 */
int acl_capture_mode_check(int err);

/*
 * The synchronous step of an asynchronous call on @s that runs on the
 * host or its copy streams here (pageable host memory, another device's
 * memory, host to host): waits for @s's earlier work. Refused on a
 * capturing stream (CANN's 107000 for a pageable copy in capture) and
 * while a capture mode forbids synchronous copies to the calling thread
 * (107041, CANN's answer for an asynchronous copy it makes synchronous).
 */
int acl_capture_sync_step(struct acl_stream *s);

/* The chip has ACL graphs (RT_FEATURE_MODEL_ACL_GRAPH), else 207000, recorded. */
int acl_graph_chip(void);

/* @modelRI as a live model, with a reference (acl_model_put), or 107017. */
/* After fork: forget the reaper threads of internal streams, reset their lock. */
void acl_exec_reapers_forget(void);
int acl_model_get(aclmdlRI modelRI, struct acl_model **out);
void acl_model_put(struct acl_model *m);
/* @m is of the current context: 107002 without one, 107004 if of another. */
int acl_model_current(struct acl_model *m);
/* Is @m being captured now (a capture's model, or a sub-model captured into)? */
bool acl_model_capturing(struct acl_model *m);
/* Was @m made by aclmdlRIBuildBegin (not a captured graph)? */
bool acl_model_built(struct acl_model *m);
/* The model a capture records for (NULL for an explicit build's recording). */
struct acl_model *acl_model_of_capture(struct acl_capture *cap);
/*
 * Destroy @m as its context's teardown would (a capture under way ends);
 * the caller's reference stays.
 */
void acl_model_drop(struct acl_model *m);

/*
 * Condition tasks (model_cond.c). A model's condition state is
 * model_cond.c's: set once (acl_model_cond()), given to the hooks below.
 */
struct acl_model_cond_ops {
	/* A sub-model with state @cond is captured into from now on: 0, or why not. */
	int (*begin)(void *cond);
	/*
	 * The capture @cap of the model with state @cond ended well: its
	 * condition tasks become commands; a sub-model's commands are taken
	 * (its parent's now, @cap left empty).
	 */
	int (*end)(void *cond, struct acl_capture *cap);
	/* The model is destroyed (its runs ended): its sub-models go. */
	void (*teardown)(void *cond);
	/* Its last reference went. */
	void (*release)(void *cond);
	/* After fork: free the parent's state in the child (host memory only). */
	void (*forget)(void *cond);
};
void acl_model_set_cond_ops(const struct acl_model_cond_ops *ops);
/* @m's condition state; if it has none, @set (NULL: none) becomes it. */
void *acl_model_cond(struct acl_model *m, void *set);
/*
 * A sub-model of a condition task of @parent: a model of its context, not
 * captured yet (aclmdlRICaptureToModelRIBegin); listed, and with a
 * reference for the caller.
 */
int acl_model_sub_new(struct acl_model *parent, struct acl_model **out);

#endif /* LIBACL_MODEL_H */
