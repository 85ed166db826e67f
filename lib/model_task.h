/* SPDX-License-Identifier: MIT */
/*
 * The task table of a built model runtime instance (model_task.c), for
 * model.c: the aclmdlRITask handles of its recording, their changes
 * (aclmdlRITaskSetParams, aclmdlRITaskDisable) and aclmdlRIUpdate, which
 * has model.c make the driver models anew through a hook; for random.c,
 * aclrtTaskUpdateAsync's patch of a recorded random-number task or
 * kernel task.
 */
#ifndef LIBACL_MODEL_TASK_H
#define LIBACL_MODEL_TASK_H

#include <stdbool.h>
#include <stdint.h>

#include <acl/acl.h>
#include <uapi/npu.h>

struct acl_capture;
struct acl_context;
struct acl_kcap;
struct acl_kfunc;
struct acl_model;
struct acl_mtab;
struct acl_stream;

/* What model_task.c asks of model.c (set by model.c: no call back into it). */
struct acl_mtab_hooks {
	/*
	 * @modelRI's task table, held (acl_mtab_put), or NULL when it has
	 * none (not built, or built without one); ACLI_EHANDLE (107017) for a
	 * handle that is no live model.
	 */
	int (*lookup)(aclmdlRI modelRI, struct acl_mtab **tab);
	/*
	 * New driver models for @m's recording, its commands and then its
	 * EXTERNAL event operations marked in @off left out; the old ones go
	 * (a queued run finishes with them). Called under the table's lock.
	 */
	int (*rebuild)(struct acl_model *m, const bool *off);
	/* Is a run of @m queued and not done? (no change of its tasks then) */
	bool (*busy)(struct acl_model *m);
};

/* @hooks (static, the same each time) are model.c's from now on. */
void acl_mtab_set_hooks(const struct acl_mtab_hooks *hooks);

/*
 * The task table of @m, whose recording @cap (m->cap) is the table's from
 * now on: its tasks, in launch order, become handles. NULL when out of
 * memory (the model has no tasks to show then). @m, @cap and @ctx stay
 * valid until acl_mtab_close().
 */
struct acl_mtab *acl_mtab_new(struct acl_model *m, struct acl_capture *cap, struct acl_context *ctx,
			      uint32_t id, bool built);
void acl_mtab_hold(struct acl_mtab *tab);
/* NULL is no table. */
void acl_mtab_put(struct acl_mtab *tab);
/* The model goes (aclmdlRIDestroy): its task handles go, and the table stops using it. */
void acl_mtab_close(struct acl_mtab *tab);
/* After fork: free @tab without a word to the handle table. */
void acl_mtab_forget(struct acl_mtab *tab);

/*
 * aclrtTaskUpdateAsync's target @stream (not NULL): a model's stream, its
 * table into *@tab (held, acl_mtab_put), or a live aclrtStream (*@tab
 * NULL); else 107017.
 */
int acl_mtab_of_stream(aclrtStream stream, struct acl_mtab **tab);
/*
 * Task @id of @tab (NULL: the target was no model's stream, 107000) is a
 * command of @op (else 107000); with @fn, @fn(its command, @arg) changes
 * it (the command and its host operand: not its op nor where the operand
 * is) and the model's driver models are made anew, which the runs queued
 * from then on run. Refused (107040) while a run of the model is queued
 * and not done, or changes of its tasks wait for aclmdlRIUpdate. On a
 * failure the command is as it was.
 */
int acl_mtab_patch(struct acl_mtab *tab, uint32_t id, uint32_t op, int (*fn)(struct npu_cmd *cmd, void *arg),
		   void *arg);

/*
 * A change of @tab's recording that runs at once (a task group's update,
 * model_group.c): with the table's lock held and its model there (else
 * 107017), @fn(the recording, @arg) changes it and the model's driver
 * models are made anew, which the runs queued from then on run (a run
 * queued before finishes with the old ones); @undo(@arg) when they could
 * not be made. Refused (107040) while changes of its tasks wait for
 * aclmdlRIUpdate (UPDATING, or FAULT: the new driver models would take
 * them).
 */
int acl_mtab_change(struct acl_mtab *tab, int (*fn)(struct acl_capture *cap, void *arg), void (*undo)(void *arg),
		    void *arg);

/*
 * kernel.c's, for aclmdlRITaskSetParams: the recorded launch @kc of @cap
 * (a captured graph of @ctx; the table's lock held) takes the kernel
 * parameters @p: the function, blocks, attributes and block (copied from
 * host memory, or with @p->isHostArgs 0 the block's device address), as
 * the vendor's UpdateKernelParams checks them (107000, a dead function
 * 107017) and a launch does (blocks, size, device: 107000, 107003); a
 * kernel that prints keeps its function and blocks (else 207000). On a
 * failure @kc is as it was.
 */
int acl_kernel_task_set(struct acl_capture *cap, struct acl_context *ctx, struct acl_kcap *kc,
			const aclmdlRIKernelTaskParams *p);

/*
 * kernel.c's, for aclrtTaskUpdateAsync's AI-core update: the recorded
 * launch @kc of @cap (a model of @ctx; the table's lock held) runs @f over
 * @blocks blocks (1..NPU_KERNEL_MAX_BLOCKS, else 107000), its argument
 * block, attributes, overflow word and printf area as they were; @f of
 * another device 107003; a kernel that prints keeps its function and
 * blocks (else 207000). On success @was holds what @kc was (to release, or
 * to swap back: acl_kcap_swap()); on a failure @kc is as it was.
 */
int acl_kernel_task_entry(struct acl_capture *cap, struct acl_context *ctx, struct acl_kcap *kc,
			  struct acl_kfunc *f, uint64_t blocks, struct acl_kcap *was);

/*
 * aclrtTaskUpdateAsync's AI-core update of task @id of @tab (NULL: the
 * target was no model's stream, 107000): a kernel task (else 107000);
 * without @f the check alone. With @f, the task runs @f over @blocks
 * blocks (acl_kernel_task_entry()) and the model's driver models are made
 * anew, which the runs queued from then on run. Refused (107040) while a
 * run of the model is queued and not done, or changes of its tasks wait
 * for aclmdlRIUpdate. On a failure the task is as it was.
 */
int acl_mtab_kernel(struct acl_mtab *tab, uint32_t id, struct acl_kfunc *f, uint64_t blocks);

#endif /* LIBACL_MODEL_TASK_H */
