/*
 * A small pool of persistent threads for the GEMM: tl_pool_run(n, work, context) runs
 * work(context, i) for i in [0, n), index 0 on the calling thread and the rest on the pool, and
 * returns when all are done. Threads start on first use and stay parked between products.
 */
#ifndef TRADELAB_THREAD_POOL_H
#define TRADELAB_THREAD_POOL_H

#define TL_POOL_MAX_THREADS 64

typedef void (*tl_pool_work)(void *context, int index);

/* Runs work(context, 0 .. n-1) across n threads (the caller's included) and waits for all. */
void tl_pool_run(int n, tl_pool_work work, void *context);

#endif
