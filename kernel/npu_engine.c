// SPDX-License-Identifier: GPL-2.0
/*
 * npu: the engine's channels - who runs next, and where.
 *
 * The simulated board moves data on a few channels: dma_channels per
 * online CPU, each a work item of a per-CPU workqueue. What they run are
 * entities (streams) with work queued; an entity never runs on two
 * channels at once, and a turn is bounded (the entity's turn() does a few
 * MiB or a few hundred commands and returns), so no entity holds a
 * channel for long however much it has queued.
 *
 * Who gets the next turn is fair between users, then between a user's
 * entities: the users with runnable entities are served in turn, each
 * time the one at the head of its own line, and both go to the back. One
 * user's hundreds of fed streams therefore delay another user's command
 * by at most a turn per channel, not by their whole queues.
 *
 * What may block for long (a mirror's page fault waiting for the process's
 * own file system) does not run on a channel: npu_engine_queue_slow()
 * runs it on an unbound workqueue, and the entity waits off the channels
 * until it is done.
 *
 * Lock: npu_engine.lock (a spinlock, taken inside wait-queue locks by
 * wake-ups of parked streams) protects the lines, the idle channels,
 * every user's list and count, the scheduling fields of every entity and
 * every device's busy clock.
 */
#include <linux/cpumask.h>
#include <linux/hashtable.h>
#include <linux/moduleparam.h>
#include <linux/sched.h>
#include <linux/sched/clock.h>
#include <linux/slab.h>
#include <linux/spinlock.h>

#include "npu_engine.h"

/*
 * Like a real engine, the simulated one has a few channels: at most this
 * many streams move data at once on each CPU, however many streams there
 * are, so busy streams cannot multiply the kernel's workers.
 */
static unsigned int dma_channels = 4;
module_param(dma_channels, uint, 0444);
MODULE_PARM_DESC(dma_channels, "Streams the DMA engine runs at once per CPU, 1-64 (default 4)");

/**
 * struct npu_engine_user - the entities of one user, for fair turns
 * @uid: the user (the real uid of the contexts' openers)
 * @users: contexts of this user holding it
 * @hash: in npu_engine.by_uid
 * @runnable: its entities waiting for a channel, in turn order
 * @node: in npu_engine.line while @runnable is not empty
 */
struct npu_engine_user {
	kuid_t uid;
	unsigned int users;
	struct hlist_node hash;
	struct list_head runnable;
	struct list_head node;
};

/**
 * struct npu_channel - one channel: a work item that runs turns
 * @work: runs turns until no entity waits
 * @node: in npu_engine.idle while it has nothing to run
 */
struct npu_channel {
	struct work_struct work;
	struct list_head node;
};

static struct {
	spinlock_t lock;		/* see the top of the file */
	struct list_head line;
	struct list_head idle;
	DECLARE_HASHTABLE(by_uid, 6);
	struct npu_channel *channels;
	struct workqueue_struct *wq;
	struct workqueue_struct *slow_wq;
	atomic_t next_cpu;
} npu_engine;

/*
 * A device's busy clock counts while any of its entities runs a turn: it
 * starts and stops where @running does, under the engine's lock. The
 * clock is local_clock(): a turn must not pay for a clocksource read (an
 * HPET's is slow, under emulation very slow), and what it measures is
 * turns of a few milliseconds or less.
 */
static void npu_busy_start_locked(struct npu_busy_clock *clock)
{
	lockdep_assert_held(&npu_engine.lock);
	if (!clock->active++)
		clock->since = local_clock();
}

/*
 * Nanoseconds since @since, 0 if the clock reads earlier: local_clock()
 * is monotonic per CPU only, and a turn in a submitter's context may end
 * on another CPU than it began.
 */
static u64 npu_busy_since(u64 since)
{
	s64 ns = local_clock() - since;

	return ns > 0 ? ns : 0;
}

static void npu_busy_stop_locked(struct npu_busy_clock *clock)
{
	lockdep_assert_held(&npu_engine.lock);
	if (!--clock->active)
		clock->total_ns += npu_busy_since(clock->since);
}

/* Users and their entities, in turn. */
static void npu_engine_enqueue_locked(struct npu_engine_entity *e)
{
	struct npu_engine_user *user = e->user;

	lockdep_assert_held(&npu_engine.lock);
	list_add_tail(&e->node, &user->runnable);
	e->queued = true;
	if (list_empty(&user->node))
		list_add_tail(&user->node, &npu_engine.line);
}

static void npu_engine_dequeue_locked(struct npu_engine_entity *e)
{
	lockdep_assert_held(&npu_engine.lock);
	list_del(&e->node);
	e->queued = false;
	if (list_empty(&e->user->runnable))
		list_del_init(&e->user->node);
}

/* The next turn: the first user in line, its first entity; both go back. */
static struct npu_engine_entity *npu_engine_pick_locked(void)
{
	struct npu_engine_user *user;
	struct npu_engine_entity *e;

	lockdep_assert_held(&npu_engine.lock);
	user = list_first_entry_or_null(&npu_engine.line,
					struct npu_engine_user, node);
	if (!user)
		return NULL;
	e = list_first_entry(&user->runnable, struct npu_engine_entity, node);
	npu_engine_dequeue_locked(e);
	if (!list_empty(&user->runnable))
		list_move_tail(&user->node, &npu_engine.line);
	e->running = true;
	e->again = false;
	npu_busy_start_locked(e->busy);
	return e;
}

/* A turn is over: back in line if it has more, and tell a stopper. */
static void npu_engine_end_turn_locked(struct npu_engine_entity *e, bool more)
{
	lockdep_assert_held(&npu_engine.lock);
	e->running = false;
	npu_busy_stop_locked(e->busy);
	if ((more || e->again) && !e->stopped)
		npu_engine_enqueue_locked(e);
	e->again = false;
	/*
	 * Under the lock, which npu_engine_stop() holds while it joins @idle
	 * (so the test misses no stopper) and may free @e once it sees this.
	 */
	if (waitqueue_active(&e->idle))
		wake_up_all(&e->idle);
}

/*
 * The CPU for a channel that starts: the online CPUs in turn, skipping
 * the caller's, so that the engine runs beside the CPU that queued the
 * work (as hardware does, instead of preempting it) and the channels
 * spread over the machine. A CPU going offline meanwhile only moves the
 * work elsewhere.
 */
static unsigned int npu_engine_cpu(void)
{
	unsigned int self = raw_smp_processor_id(), cpu;

	if (num_online_cpus() == 1)
		return self;
	cpu = (unsigned int)atomic_inc_return(&npu_engine.next_cpu) % nr_cpu_ids;
	cpu = cpumask_next(cpu - 1, cpu_online_mask);
	if (cpu >= nr_cpu_ids)
		cpu = cpumask_first(cpu_online_mask);
	return cpu == self ? cpumask_any_but(cpu_online_mask, self) : cpu;
}

/* An idle channel to start for an entity put in line, or NULL. */
static struct npu_channel *npu_engine_idle_locked(void)
{
	struct npu_channel *ch;

	lockdep_assert_held(&npu_engine.lock);
	ch = list_first_entry_or_null(&npu_engine.idle, struct npu_channel, node);
	if (ch)
		list_del(&ch->node);
	return ch;
}

/* Start channel @ch (from npu_engine_idle_locked(), the lock dropped). */
static void npu_engine_start(struct npu_channel *ch)
{
	if (ch)
		queue_work_on(npu_engine_cpu(), npu_engine.wq, &ch->work);
}

static void npu_channel_work(struct work_struct *work)
{
	struct npu_channel *ch = container_of(work, struct npu_channel, work);
	struct npu_engine_entity *e;
	bool more;

	for (;;) {
		spin_lock(&npu_engine.lock);
		e = npu_engine_pick_locked();
		if (!e) {
			list_add(&ch->node, &npu_engine.idle);
			spin_unlock(&npu_engine.lock);
			return;
		}
		spin_unlock(&npu_engine.lock);

		more = e->turn(e);

		spin_lock(&npu_engine.lock);
		npu_engine_end_turn_locked(e, more);
		spin_unlock(&npu_engine.lock);
		cond_resched();
	}
}

void npu_engine_entity_init(struct npu_engine_entity *e,
			    struct npu_engine_user *user,
			    struct npu_busy_clock *busy,
			    bool (*turn)(struct npu_engine_entity *e))
{
	e->turn = turn;
	e->user = user;
	e->busy = busy;
	INIT_LIST_HEAD(&e->node);
	e->queued = false;
	e->running = false;
	e->again = false;
	e->stopped = false;
	init_waitqueue_head(&e->idle);
}

/**
 * npu_engine_kick() - @e has work: give it a turn
 * @e: the entity
 *
 * Puts it in line (once), or, while it runs, has it go back in line when
 * its turn ends; starts an idle channel if there is one. Nothing happens
 * once it is stopped. Does not sleep; callable under a wait-queue lock.
 */
void npu_engine_kick(struct npu_engine_entity *e)
{
	struct npu_channel *ch = NULL;

	spin_lock(&npu_engine.lock);
	if (e->stopped) {
		/* nothing */
	} else if (e->running) {
		e->again = true;
	} else if (!e->queued) {
		npu_engine_enqueue_locked(e);
		ch = npu_engine_idle_locked();
	}
	spin_unlock(&npu_engine.lock);
	npu_engine_start(ch);
}

/**
 * npu_engine_stop() - no more turns for @e
 * @e: the entity
 *
 * Takes it out of line and waits for a turn in progress, which ends at
 * its next chunk: the wait depends on nobody else's work. Afterwards the
 * caller owns whatever @e had queued.
 */
void npu_engine_stop(struct npu_engine_entity *e)
{
	DEFINE_WAIT(wait);

	spin_lock(&npu_engine.lock);
	e->stopped = true;
	if (e->queued)
		npu_engine_dequeue_locked(e);
	while (e->running) {
		prepare_to_wait(&e->idle, &wait, TASK_UNINTERRUPTIBLE);
		spin_unlock(&npu_engine.lock);
		schedule();
		finish_wait(&e->idle, &wait);
		spin_lock(&npu_engine.lock);
	}
	spin_unlock(&npu_engine.lock);
}

/**
 * npu_engine_claim() - take @e's next turn in the caller's own context
 * @e: the entity: neither waiting for a channel nor running
 *
 * For a synchronous command on an idle stream: the submitter runs it at
 * once instead of waking a channel and waiting for it.
 *
 * Return: true if the caller now runs @e (end with npu_engine_unclaim()).
 */
bool npu_engine_claim(struct npu_engine_entity *e)
{
	bool claimed;

	spin_lock(&npu_engine.lock);
	claimed = !e->stopped && !e->queued && !e->running;
	if (claimed) {
		e->running = true;
		e->again = false;
		npu_busy_start_locked(e->busy);
	}
	spin_unlock(&npu_engine.lock);
	return claimed;
}

/* The claimed turn is over; @more: @e has more to do, for a channel. */
void npu_engine_unclaim(struct npu_engine_entity *e, bool more)
{
	struct npu_channel *ch = NULL;

	spin_lock(&npu_engine.lock);
	npu_engine_end_turn_locked(e, more);
	if (e->queued)
		ch = npu_engine_idle_locked();
	spin_unlock(&npu_engine.lock);
	npu_engine_start(ch);
}

/* Run @work where it may block without holding a channel. */
void npu_engine_queue_slow(struct work_struct *work)
{
	queue_work(npu_engine.slow_wq, work);
}

/**
 * npu_engine_user_get() - the engine's record of user @uid, for a context
 * @uid: the opener's real uid
 *
 * Return: it, with one more context counted (npu_engine_user_put()), or
 * NULL without memory.
 */
struct npu_engine_user *npu_engine_user_get(kuid_t uid)
{
	struct npu_engine_user *user, *fresh;

	fresh = kzalloc(sizeof(*fresh), GFP_KERNEL_ACCOUNT);
	if (!fresh)
		return NULL;
	spin_lock(&npu_engine.lock);
	hash_for_each_possible(npu_engine.by_uid, user, hash, __kuid_val(uid))
		if (uid_eq(user->uid, uid))
			goto found;
	user = fresh;
	fresh = NULL;
	user->uid = uid;
	INIT_LIST_HEAD(&user->runnable);
	INIT_LIST_HEAD(&user->node);
	hash_add(npu_engine.by_uid, &user->hash, __kuid_val(uid));
found:
	user->users++;
	spin_unlock(&npu_engine.lock);
	kfree(fresh);
	return user;
}

/* A context of @user is gone; its entities are all stopped. */
void npu_engine_user_put(struct npu_engine_user *user)
{
	spin_lock(&npu_engine.lock);
	if (--user->users) {
		user = NULL;
	} else {
		WARN_ON_ONCE(!list_empty(&user->runnable));
		hash_del(&user->hash);
	}
	spin_unlock(&npu_engine.lock);
	kfree(user);
}

int npu_engine_init(void)
{
	unsigned int i, n;

	if (!dma_channels || dma_channels > 64) {
		pr_err("npu: dma_channels=%u: must be 1..64\n", dma_channels);
		return -EINVAL;
	}
	spin_lock_init(&npu_engine.lock);
	INIT_LIST_HEAD(&npu_engine.line);
	INIT_LIST_HEAD(&npu_engine.idle);
	hash_init(npu_engine.by_uid);
	atomic_set(&npu_engine.next_cpu, -1);
	/*
	 * Per-CPU workers, so a channel runs where npu_engine_kick() puts it;
	 * CPU-intensive, so a long copy does not hold up other work there.
	 * The channels themselves bound how many run.
	 */
	npu_engine.wq = alloc_workqueue("npu_dma", WQ_CPU_INTENSIVE, 0);
	npu_engine.slow_wq = alloc_workqueue("npu_fault", WQ_UNBOUND, 0);
	n = dma_channels * num_possible_cpus();
	npu_engine.channels = kcalloc(n, sizeof(*npu_engine.channels),
				      GFP_KERNEL);
	if (!npu_engine.wq || !npu_engine.slow_wq || !npu_engine.channels) {
		npu_engine_exit();
		return -ENOMEM;
	}
	for (i = 0; i < n; i++) {
		INIT_WORK(&npu_engine.channels[i].work, npu_channel_work);
		list_add_tail(&npu_engine.channels[i].node, &npu_engine.idle);
	}
	return 0;
}

/* Every entity is stopped: the channels are idle or about to be. */
void npu_engine_exit(void)
{
	if (npu_engine.slow_wq)
		destroy_workqueue(npu_engine.slow_wq);
	if (npu_engine.wq)
		destroy_workqueue(npu_engine.wq);
	kfree(npu_engine.channels);
	npu_engine.slow_wq = NULL;
	npu_engine.wq = NULL;
	npu_engine.channels = NULL;
}

void npu_busy_init(struct npu_busy_clock *clock)
{
	clock->active = 0;
	clock->total_ns = 0;
}

/* Busy nanoseconds so far, the running turns' time included. */
u64 npu_busy_read(struct npu_busy_clock *clock)
{
	u64 ns;

	spin_lock(&npu_engine.lock);
	ns = clock->total_ns;
	if (clock->active)
		ns += npu_busy_since(clock->since);
	spin_unlock(&npu_engine.lock);
	return ns;
}
