/* SPDX-License-Identifier: GPL-2.0 */
/*
 * npu: the engine's channels - who runs next, and where.
 */
#ifndef __NPU_ENGINE_H__
#define __NPU_ENGINE_H__

#include <linux/list.h>
#include <linux/spinlock.h>
#include <linux/types.h>
#include <linux/uidgid.h>
#include <linux/wait.h>
#include <linux/workqueue.h>

struct npu_engine_user;

/**
 * struct npu_busy_clock - how long the engine worked for one device
 * @active: turns of the device's streams running now, on channels or in
 *	their submitters' context
 * @since: local_clock() when @active last became non-zero
 * @total_ns: busy nanoseconds up to @since, or up to now while idle
 *
 * Time counts once however many turns overlap: a device's utilisation is
 * the share of wall time in which some of its work was moving. The
 * engine's lock protects it: turns start and end under it.
 */
struct npu_busy_clock {
	unsigned int active;
	u64 since;
	u64 total_ns;
};

/**
 * struct npu_engine_entity - a queue of work the engine gives turns to (a
 *	stream)
 * @turn: runs the entity for one turn (a bounded amount of work) on a
 *	channel; returns true if it has more to do at once
 * @user: the user it works for (npu_engine_user_get())
 * @busy: the busy clock of the device it works for: its turns count there
 * @node: in @user's list of runnable entities while @queued
 * @queued: waiting for a channel
 * @running: a channel, or a submitter that claimed it, runs its turn
 * @again: kicked during its turn: it goes back in line when the turn ends
 * @stopped: gets no turn any more (npu_engine_stop())
 * @idle: woken when a turn ends, for npu_engine_stop()
 *
 * @node, @queued, @running, @again and @stopped belong to the engine and
 * are protected by its lock.
 */
struct npu_engine_entity {
	bool (*turn)(struct npu_engine_entity *e);
	struct npu_engine_user *user;
	struct npu_busy_clock *busy;
	struct list_head node;
	bool queued;
	bool running;
	bool again;
	bool stopped;
	wait_queue_head_t idle;
};

int npu_engine_init(void);
void npu_engine_exit(void);

struct npu_engine_user *npu_engine_user_get(kuid_t uid);
void npu_engine_user_put(struct npu_engine_user *user);

void npu_engine_entity_init(struct npu_engine_entity *e,
			    struct npu_engine_user *user,
			    struct npu_busy_clock *busy,
			    bool (*turn)(struct npu_engine_entity *e));
void npu_engine_kick(struct npu_engine_entity *e);
void npu_engine_stop(struct npu_engine_entity *e);
bool npu_engine_claim(struct npu_engine_entity *e);
void npu_engine_unclaim(struct npu_engine_entity *e, bool more);

void npu_engine_queue_slow(struct work_struct *work);

void npu_busy_init(struct npu_busy_clock *clock);
u64 npu_busy_read(struct npu_busy_clock *clock);

#endif /* __NPU_ENGINE_H__ */
