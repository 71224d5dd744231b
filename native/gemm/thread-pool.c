/*
 * The GEMM's thread pool (see thread-pool.h). One product at a time: the N-API caller is the
 * JavaScript thread, which never calls in twice at once, and a mutex guards the pool anyway. Work
 * is handed out as a generation number the workers wait on, so a product costs one broadcast and
 * one wait, not a thread start.
 */
#include "thread-pool.h"

#ifdef _WIN32
void tl_pool_run(int n, tl_pool_work work, void *context) {
  for (int i = 0; i < n; i++) work(context, i); /* no pool on Windows yet: run in turn */
}
#else
#include <pthread.h>

static pthread_mutex_t run_lock = PTHREAD_MUTEX_INITIALIZER; /* one product at a time */
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t start_cond = PTHREAD_COND_INITIALIZER;
static pthread_cond_t done_cond = PTHREAD_COND_INITIALIZER;
static int started = 0;        /* pool threads running (index 1 .. started) */
static unsigned generation = 0; /* bumped for every product */
static int active = 0;          /* pool threads taking part in the current product */
static int pending = 0;         /* of those, how many have not finished */
static tl_pool_work current_work;
static void *current_context;

static void *worker(void *arg) {
  const int index = (int)(long)arg;
  unsigned seen = 0;
  pthread_mutex_lock(&lock);
  for (;;) {
    while (generation == seen) pthread_cond_wait(&start_cond, &lock);
    seen = generation;
    if (index >= active + 1) continue; /* not needed for this product */
    tl_pool_work work = current_work;
    void *context = current_context;
    pthread_mutex_unlock(&lock);
    work(context, index);
    pthread_mutex_lock(&lock);
    if (--pending == 0) pthread_cond_signal(&done_cond);
  }
  return NULL;
}

void tl_pool_run(int n, tl_pool_work work, void *context) {
  if (n > TL_POOL_MAX_THREADS) n = TL_POOL_MAX_THREADS;
  if (n <= 1) {
    work(context, 0);
    return;
  }
  pthread_mutex_lock(&run_lock);
  pthread_mutex_lock(&lock);
  while (started < n - 1) {
    pthread_t thread;
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
    const int ok = pthread_create(&thread, &attr, worker, (void *)(long)(started + 1)) == 0;
    pthread_attr_destroy(&attr);
    if (!ok) break; /* the threads that did start share the work below */
    started++;
  }
  const int helpers = started < n - 1 ? started : n - 1;
  current_work = work;
  current_context = context;
  active = helpers;
  pending = helpers;
  generation++;
  pthread_cond_broadcast(&start_cond);
  pthread_mutex_unlock(&lock);

  work(context, 0);
  /* Parts no pool thread could take (thread creation failed) run here. */
  for (int i = helpers + 1; i < n; i++) work(context, i);

  pthread_mutex_lock(&lock);
  while (pending > 0) pthread_cond_wait(&done_cond, &lock);
  pthread_mutex_unlock(&lock);
  pthread_mutex_unlock(&run_lock);
}
#endif
