/*
 * reclaim.pml — a Promela model of Syringe's epoch-based reclaimer
 * (include/syringe_reclaim.h, Sources/CSyringeTable/syringe_reclaim.c),
 * checked by spin. `bash Model/check.sh` checks every property;
 * `bash Model/check.sh --experiments` shows the model can fail.
 *
 * WHAT IS MODELLED, AND WHERE IT IS IN THE C CODE
 *
 *   epoch             syr_reclaim_epoch: even, starts at 2, + 2 per retire.
 *                     (There is no pending bit: readers never look at
 *                     whether anything is pending.)
 *   state[i]          syr_reader.state of reader i's record as the other
 *                     threads (scanners) see it: 0 = the record does not
 *                     exist yet (the thread uses syr_reader_placeholder),
 *                     1 = idle, >= 2 = the epoch its outermost section
 *                     began in.
 *   sb_full, sb_val   a one-entry store buffer per reader holding its latest
 *                     store to its own state that other threads cannot see
 *                     yet (x86-64 TSO: a store may become visible after the
 *                     same thread's later loads). A newer store first drains
 *                     the older one (stores become visible in order); the
 *                     reader reads its own buffered value (OWN(): store
 *                     forwarding).
 *   flusher           the hardware draining a store buffer, at any moment.
 *   current           the published object (a table's storage block, a
 *                     definition, ...). Objects are 1..NOBJ; freed[k] says
 *                     k was handed to its free function.
 *   lk / tickets      syr_lock (pthread mutex, always the blocking lock).
 *   stamp[k], nretired, nfreed
 *                     syr_pending: objects are retired in order 1, 2, ...,
 *                     so the pending list is nfreed+1 .. nretired (its
 *                     length is syr_pending_count), and what syr_collect
 *                     frees is a prefix of it.
 *   blocker, blocker_state
 *                     syr_blocker / syr_blocker_state (NONE = NULL).
 *   waiting           the reclaimer's thread is blocked in
 *                     pthread_cond_wait(&syr_has_pending) (initially true:
 *                     the thread is not started yet, which behaves the same).
 *                     wake_if_pending() = syr_wake_reclaimer (start it or
 *                     pthread_cond_signal), which every poll does under the
 *                     lock when something is left pending. A signal with no
 *                     waiter is lost, as in pthreads; spurious wake-ups are
 *                     not assumed.
 *   registered        reader-local: syr_reader_self is the thread's record,
 *                     not the placeholder (own state != 0).
 *
 *   reader (NR of them): a sequence of threads that use record i one after
 *   the other (record reuse through the free list). Each iteration:
 *     syr_read_enter  the load of its own state is a local test
 *                     (`registered`, and nesting is structural); state 0 ->
 *                     syr_read_enter_unregistered: register() (under the
 *                     lock, state = 1), then the same two steps as the fast
 *                     path: the acquire load of the epoch, then the release
 *                     store of it into state (buffered). Readers never poll
 *                     and never take the lock outside registration and
 *                     thread exit.
 *     SYR_READER_FENCE  nothing on Linux (a compiler barrier only); with
 *                     -DREADER_FENCED (every other platform) a full fence:
 *                     the reader's store buffer is drained.
 *     p = current     the lock-free read of the published pointer. The use
 *                     of p at the end of the section asserts !freed[p]: the
 *                     safety property "nothing is freed while a reader can
 *                     still reach it". (freed only ever becomes true, so a
 *                     free at any moment since the read fails it.)
 *     nested section  syr_read_enter with state > 1 returns nested_sink and
 *                     stores nothing (asserted: OWN(i) > 1); it reads
 *                     `current` again (possibly a newer object) and uses it
 *                     one step later; its exit stores into the sink, which
 *                     no scan reads, so that store is not modelled.
 *     syr_read_exit   the release store of 1 into state (buffered too).
 *     thread_exit()   syr_thread_exit, the pthread key destructor, possible
 *                     after any section: under the lock, state = 1,
 *                     syr_blocker = NULL if it is this record, the record
 *                     goes to the free list; it does not poll. The next
 *                     iteration registers a new thread that gets the same
 *                     record back.
 *   writer: replaces the published object NW times: allocate and publish a
 *   fresh object (which unpublishes the old one; the C writers publish under
 *   their own lock before retiring, so the store is visible first), then
 *   syr_reclaim_retire (under the lock: stamp = epoch, epoch = stamp + 2),
 *   then Reclamation.poll() = syr_reclaim_poll (poll()). The writer is never
 *   itself inside a section or polling, so its poll is never skipped (but
 *   see -DSKIP_POLL).
 *   reclaimer: syr_reclaimer_main. Under the lock: while nothing is pending,
 *   wait on the condition; otherwise unlock, sleep (the 1-16 ms backoff is
 *   any interleaving: the process may be delayed arbitrarily) and
 *   syr_reclaim_poll. It is never inside a section.
 *   syr_reclaim_poll / syr_collect: collect_begin() (with the lock:
 *   "nothing pending" (which the C code also answers first without the
 *   lock, from a relaxed load of the pending count: the same early return,
 *   and a writer's poll always sees its own retire, made on its thread),
 *   the blocker shortcut — a plain read of the blocker's
 *   state — and the heavy fence), collect_scan() (each record's state read
 *   in its own step while readers run on; then the prefix of pending objects
 *   whose stamp < the oldest state is freed, the blocker remembered). Both
 *   ways end with syr_wake_reclaimer when something is still pending, and
 *   the unlock. Objects are marked freed under the lock, a little earlier
 *   than the C code frees them (after unlocking), which only makes the check
 *   stricter.
 *   heavy_fence(): syr_heavy_fence. Default (Linux, membarrier): every
 *   reader's store buffer is drained in one atomic step (every thread runs
 *   a full barrier before membarrier() returns). -DREADER_FENCED: the
 *   scanner's own full fence, which drains none of the readers' buffers.
 *   -DNO_FENCE: nothing (the experiment below).
 *
 * WHAT IS ABSTRACTED AWAY
 *   - Memory is sequentially consistent except for the readers' stores to
 *     their own state, which go through the store buffer: exactly the
 *     reordering the header's MEMORY ORDERING section is about (x86-64
 *     TSO). Arm's further reorderings of the reader's loads are excluded by
 *     the acquire load of the epoch and the release exit store and are not
 *     modelled. The writer's and the scanners' accesses are made under
 *     syr_lock or around a fence and are modelled as SC.
 *   - A reader's stores made under the lock (registration, thread exit) go
 *     through its store buffer as well; the lock does not drain it (which
 *     can only make a scan see a reader as busy for longer).
 *   - Steps that touch only a process's own variables, or only what the
 *     lock protects, are merged into the neighbouring step (atomic), to keep
 *     the state space small. Every access another thread can race with
 *     (epoch, current, state, the lock, freed, waiting) stays a step of its
 *     own: the load of the epoch and the store of the state are separate
 *     steps, as are the read of `current` and its use in a nested section.
 *   - One published pointer stands for every lock-free structure. One writer
 *     thread. syr_polling (free functions that resolve or retire), the free
 *     functions themselves, malloc failure in syr_collect, pthread_create
 *     failure in syr_wake_reclaimer, fork (syr_before_fork and the
 *     after-fork handlers), syr_reclaim_pending_count and the
 *     SYR_FENCE_UNAVAILABLE mode are not modelled. Epochs do not wrap.
 *   - Bounded: NR readers (2) and NW retires (3 for safety). Thread churn is
 *     unbounded (each reader's threads may exit and be replaced for ever)
 *     except where a check sets MAX_EXITS.
 *
 * PROPERTIES (the exact commands and sizes are in Model/check.sh)
 *   safety      the assertions (a reader never uses a freed object; a
 *               nested enter sees its own section). Exhaustive, readers
 *               looping for ever with unbounded thread exit and record
 *               reuse, the writer and the reclaimer's thread both polling,
 *               in the membarrier and the reader-fenced modes. The lock lets
 *               any waiter in, the most interleavings.
 *   quiescence  -DREADER_ROUNDS=n: readers run n sections each, then their
 *               threads exit. The writer does no extra poll: once it is done
 *               and every reader thread has exited, (a) the reclaimer's next
 *               poll must free everything (assertion in the reclaimer:
 *               nothing, e.g. a stale blocker shortcut, can wedge
 *               reclamation once no section runs), and (b) the system must
 *               not come to rest with something pending (the writer ends
 *               waiting for nfreed == nretired, which is not a valid end
 *               state: spin reports an invalid end state if everything else
 *               is blocked, e.g. the reclaimer waiting on the condition).
 *   liveness    -DLIVENESS: the LTL formula `live`, <> (nfreed == NW):
 *               everything retired is eventually freed, checked with
 *               `pan -a -f`, i.e. under weak fairness, with readers that
 *               loop for ever. Weak fairness is the right assumption: a
 *               reader's next step (in particular leaving its section) is
 *               always enabled, so weak fairness means exactly "every
 *               thread keeps running and every section ends". A reader that
 *               stays in its section for ever legitimately blocks
 *               reclamation for ever (-DSTUCK: spin finds that cycle even
 *               under weak fairness). The lock is FIFO (a ticket lock) in
 *               this check: with a free-for-all lock spin reports a waiter
 *               that is overtaken for ever, a property of the model's lock,
 *               not of the reclaimer.
 *               Thread churn is NOT bounded any more (1 retire; the 2-retire
 *               check bounds it, MAX_EXITS=0, for time only: with unbounded
 *               churn it also passes: 6.1e6 states, about 2 minutes). The old
 *               design's gap — readers polled with a trylock, which failed
 *               for ever while other threads held the lock to register or
 *               exit — is gone: readers do not poll, and the reclaimer's
 *               thread polls with the blocking lock while anything is
 *               pending, and is woken by the writer's poll.
 *
 * EXPERIMENTS (bash Model/check.sh --experiments; each must fail)
 *   -DNO_FENCE    the heavy fence removed: spin finds a use after free. The
 *                 shortest trail (-DBFS, 30 steps): reader 1 registers
 *                 (state 1, buffered), loads the epoch 2 and stores state 2
 *                 (this drains the 1; the 2 stays in its buffer), reads
 *                 current = object 1 and, in a nested section, reads it
 *                 again; the writer publishes object 2, retires object 1
 *                 (stamp 2, epoch 4) and polls: the scan reads reader 1's
 *                 state as 1, so no section is running, and object 1 is
 *                 freed; the reader then uses object 1.
 *                 With the fence (the default) the scan sees state 2 and
 *                 keeps object 1.
 *   -DSTUCK       a section may never end: <> all freed is violated even
 *                 under weak fairness.
 *   -DREADER_ROUNDS=1 -DSKIP_POLL
 *                 the writer's poll after a retire may be skipped, as
 *                 syr_reclaim_poll does when the writer is inside a section
 *                 (a factory or callback that replaces a registration) or
 *                 inside a free function (syr_polling). Then nobody wakes
 *                 the reclaimer's thread: syr_reclaim_retire does not
 *                 signal syr_has_pending, and the thread, waiting on it
 *                 (or not started), tests syr_pending_count only when
 *                 signalled. Spin finds an end state with the object
 *                 pending for ever: the writer skips its poll, the readers'
 *                 threads exit, the reclaimer still waits. In C the object
 *                 stays pending until the next poll by some writer outside a
 *                 section, contrary to the header's "freed at most about
 *                 16 ms after the last section that could hold it has
 *                 ended, with no further call by anyone". (A retire that
 *                 signalled the condition would close it; not fixed here.)
 */

#ifndef NR
#define NR 2            /* readers (at most 3) */
#endif
#ifndef NW
#define NW 3            /* replacements (retires) the writer makes */
#endif
#define NOBJ (NW + 1)   /* objects 1..NOBJ; 0 = "no pointer" */
#define NONE 255

byte epoch = 2;
byte state[NR];
bool sb_full[NR];
byte sb_val[NR];
byte current = 1;
bool freed[NOBJ + 1];
byte stamp[NOBJ + 1];
byte nretired = 0;
byte nfreed = 0;
byte blocker = NONE;
byte blocker_state = 0;
bool waiting = true;    /* the reclaimer's thread waits on syr_has_pending
                           (initially: not started yet) */
#ifdef READER_ROUNDS
byte readers_done = 0;
bool writer_done = false;
#endif

/* The reader's own view of its state: its buffered store if any. */
#define OWN(r) (sb_full[r] -> sb_val[r] : state[r])

inline drain(r) {
    if
    :: sb_full[r] -> state[r] = sb_val[r]; sb_full[r] = false; sb_val[r] = 0
    :: else -> skip
    fi
}

/* A store by reader r to its own record's state: into its store buffer,
   after draining the older store (stores become visible in order). Used
   inside atomic sequences. */
inline store_state(r, v) {
    drain(r); sb_val[r] = v; sb_full[r] = true
}

/* syr_lock. The lock steps are used at the start of atomic sequences: the
   sequence runs once the lock is taken (when the acquisition blocks,
   atomicity is lost there and resumes when it succeeds). */
#ifndef LIVENESS
/* For the safety checks: any waiter may take it (this allows more
   interleavings than any real mutex). */
bit lk = 0;
inline lock()   { lk == 0 -> lk = 1 }
inline unlock() { lk = 0 }
#else
/* For the liveness check: a FIFO (ticket) lock, so that a waiter is not
   overtaken for ever. Under weak fairness alone, a process waiting for a lock
   that is free only now and then may starve (the lock is not continuously
   free), and spin reports that starvation — a property of the model's lock,
   not of the reclaimer; a pthread mutex does not starve a waiter for ever in
   practice. `my` is the caller's local. */
#define TICKETS (NR + 3) /* > the number of threads that can hold a ticket */
byte next_ticket = 0;
byte serving = 0;
inline lock() {
    my = next_ticket; next_ticket = (next_ticket + 1) % TICKETS;
    serving == my;      /* blocks until it is this thread's turn */
    my = 0
}
inline unlock() { serving = (serving + 1) % TICKETS }
#endif

/* syr_heavy_fence */
inline heavy_fence() {
#if !defined(NO_FENCE) && !defined(READER_FENCED)
    j = 0;
    do
    :: j < NR -> drain(j); j++
    :: else -> break
    od
#else
    skip
#endif
}

/* The end of syr_reclaim_poll, still under the lock: when something is
   still pending, syr_wake_reclaimer (start the thread / signal the
   condition; a signal with no waiter is lost, as with pthread_cond_signal). */
inline wake_if_pending() {
    if
    :: nfreed != nretired -> waiting = false
    :: else -> skip
    fi
}

/* syr_reclaim_poll's work once the lock is held (inside the atomic sequence
   that took it): syr_collect's "nothing pending" test and blocker shortcut,
   and the heavy fence when it goes on to scan. Otherwise: wake the
   reclaimer if something is pending, unlock. go, j, s, oldest, nb are the
   caller's. */
inline collect_begin() {
    go = (nfreed != nretired) &&
         !(blocker != NONE && state[blocker] == blocker_state);
    if
    :: go -> heavy_fence(); oldest = NONE; nb = NONE; j = 0
    :: else -> wake_if_pending(); unlock()
    fi
}

/* The rest of syr_collect: read each record's state, one record per step
   (the readers run on meanwhile); free the prefix of pending objects whose
   stamp < the oldest state seen; remember the blocker. Then the rest of
   syr_reclaim_poll: wake the reclaimer if something is pending, unlock. */
inline collect_scan() {
    do
    :: atomic {
        go && j < NR ->
        s = state[j];
        if
        :: s > 1 && s < oldest -> oldest = s; nb = j
        :: else -> skip
        fi;
        s = 0; j++
       }
    :: atomic {
        go && j == NR ->
        do
        :: nfreed < nretired && stamp[nfreed + 1] < oldest ->
            freed[nfreed + 1] = true; nfreed++
        :: else -> break
        od;
        blocker = nb;
        blocker_state = (nb == NONE -> 0 : oldest);
        wake_if_pending();
        unlock();
        j = 0; oldest = 0; nb = 0; go = false;
        break
       }
    :: !go -> break
    od
}

/* syr_reclaim_poll (the blocking lock), by a thread outside any section and
   not already polling: the writer (Reclamation.poll()) and the reclaimer's
   thread. */
inline poll() {
    atomic { lock(); collect_begin() }
    collect_scan()
}

/* syr_register: a record from the free list (reader i's own), idle. */
inline register() {
    atomic { lock(); store_state(i, 1) }
    atomic { unlock(); registered = true }
}

/* syr_thread_exit */
inline thread_exit() {
    atomic {
        lock();
        store_state(i, 1);
        if
        :: blocker == i -> blocker = NONE; blocker_state = 0
        :: else -> skip
        fi
    }
    atomic { unlock(); registered = false }
}

active proctype writer() {
    byte k = 1;                                      /* the current object */
    byte j, s, oldest, nb, my;
    bool go = false;

    do
    :: atomic { k <= NW -> current = k + 1 }         /* allocate and publish */
        atomic {                                     /* syr_reclaim_retire(k) */
            lock();
            stamp[k] = epoch;
            nretired++;
            epoch = stamp[k] + 2;
            unlock();
            k++
        }
#ifndef SKIP_POLL
        poll()                                       /* Reclamation.poll() */
#else
        if
        :: poll()
        :: skip                                      /* skipped: the writer is inside a section */
        fi
#endif
    :: else -> break
    od;
#ifdef READER_ROUNDS
    writer_done = true;
    readers_done == NR;                              /* every reader thread has exited */
    nfreed == nretired                               /* and then everything is freed (no end state) */
#endif
}

/* syr_reclaimer_main: waits on the condition while nothing is pending;
   otherwise sleeps (any interleaving) and polls. */
active proctype reclaimer() {
    byte j, s, oldest, nb, my;
    bool go = false;
#ifdef READER_ROUNDS
    bool quiet = false;
#endif

end:
    do
    :: atomic {
        !waiting -> lock();                          /* woken (or never waited) */
        if
        :: nfreed == nretired -> waiting = true      /* pthread_cond_wait */
        :: else -> skip
        fi;
        unlock()
       }
        if
        :: waiting -> skip
        :: else ->                                   /* nanosleep; syr_reclaim_poll */
#ifdef READER_ROUNDS
            atomic { lock(); quiet = writer_done && readers_done == NR; collect_begin() }
            collect_scan();
            assert(!quiet || nfreed == nretired);    /* quiescence */
            quiet = false
#else
            poll()
#endif
        fi
    od
}

/* The hardware draining the readers' store buffers, at any moment. */
active proctype flusher() {
end:
    do
    :: atomic { sb_full[0] -> drain(0) }
#if NR > 1
    :: atomic { sb_full[1] -> drain(1) }
#endif
#if NR > 2
    :: atomic { sb_full[2] -> drain(2) }
#endif
    od
}

active [NR] proctype reader() {
    byte i = _pid - 3;                               /* its record */
    byte e, p, q;
    bool registered = false;
    byte my;
#ifdef READER_ROUNDS
    byte round = 0;
#endif
#ifdef MAX_EXITS
    byte exits = 0;
#endif

end:
    do
    ::
        /* syr_read_enter, outermost: the load of its own state, merged with
           what precedes it; 0 (the placeholder) -> syr_read_enter_unregistered */
#ifdef READER_ROUNDS
        round < READER_ROUNDS -> round++;
#endif
        if
        :: !registered -> register()
        :: else -> skip
        fi;
        atomic { e = epoch }                         /* the acquire load of the epoch */
        atomic { store_state(i, e); e = 0 }          /* state = epoch, buffered */
#ifdef READER_FENCED
        atomic { drain(i) }                          /* SYR_READER_FENCE */
#endif
#ifndef LIVENESS
        p = current;                                 /* the lock-free read */
        if
        :: /* a nested section (a factory's resolve): enter returns the
              sink (own state > 1), reads, uses, exits into the sink */
            atomic { assert(OWN(i) > 1); q = current };
            atomic { assert(!freed[q]); q = 0 }
        :: skip
        fi;
#endif
#ifdef STUCK
        if
        :: do :: e = 1; e = 0 od                     /* a section that never ends */
        :: skip
        fi;
#endif
        atomic {
            assert(!freed[p]);                       /* the (last) use of p */
            p = 0;
            store_state(i, 1)                        /* syr_read_exit */
        }
        if
#ifdef MAX_EXITS
        :: exits < MAX_EXITS -> exits++; thread_exit()
#else
        :: thread_exit()                             /* the thread ends; a later one reuses the record */
#endif
        :: skip
        fi
#ifdef READER_ROUNDS
    :: round == READER_ROUNDS -> break
#endif
    od;
#ifdef READER_ROUNDS
    if
    :: registered -> thread_exit()
    :: else -> skip
    fi;
    readers_done++
#endif
}

#ifdef LIVENESS
ltl live { <> (nfreed == NW) }
#endif
