/*
 * Headroom's LD_PRELOAD shim, built on the target with its own C compiler:
 *   cc -shared -fPIC -O2 -o headroom_preload.so headroom_preload.c -ldl -lpthread
 *
 * 1. Fault injection: wraps cudaMalloc, hipMalloc and cuMemCreate (for callers that reach them
 *    through the dynamic symbol; PyTorch's expandable segments and NCCL fetch cuMemCreate through
 *    the driver's entry-point table, which no preload can see) and fails them with the runtime's
 *    own out-of-memory code:
 *      HEADROOM_FAULT_BUDGET_BYTES=N  fail once live bytes through this shim would exceed N;
 *      HEADROOM_FAULT_NTH_CALL=N      fail the Nth allocation call (1-based);
 *      HEADROOM_FAULT_STICKY=1        after the first failure, fail every later call too;
 *      HEADROOM_FAULT_RANKS=0,3       only on these ranks (RANK from the environment); default all.
 *    Frees (cudaFree, hipFree, cuMemRelease) are tracked so the budget counts live bytes.
 *    A program can re-arm it at run time: headroom_fault_configure(budget, nth, sticky), where a
 *    budget of -1 turns injection off and a budget of 0 means "from now on, any new allocation".
 * 2. Crash capture: abort() and the fatal signals (SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT) write
 *    the crashing thread's native backtrace, its name and id, whether it is the main thread and
 *    whether a Python frame is on it, to HEADROOM_CRASH_FILE, before the process dies.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <execinfo.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#define OOM_CODE 2 /* cudaErrorMemoryAllocation, hipErrorOutOfMemory and CUDA_ERROR_OUT_OF_MEMORY are all 2. */
#define MAX_FRAMES 64
#define TRACK_SLOTS 65536

/* ------------------------------------------------------------------------------------------- */
/* Fault injection state */

static pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER;
static int g_enabled_rank = 1;
static long long g_budget = -1; /* -1: no budget */
static long long g_budget_base = 0;
static long long g_nth = 0; /* 0: no Nth-call failure */
static int g_sticky = 0;
static int g_tripped = 0;
static long long g_calls = 0;
static long long g_live = 0;
static long long g_failures = 0;

/* Open-addressing table of live allocations: key (pointer or handle) -> size. */
static uintptr_t g_keys[TRACK_SLOTS];
static long long g_sizes[TRACK_SLOTS];

static size_t slot_of(uintptr_t key) {
  return (size_t)((key >> 4) * 0x9E3779B97F4A7C15ull) & (TRACK_SLOTS - 1);
}

static void track_add(uintptr_t key, long long size) {
  size_t i = slot_of(key);
  for (size_t n = 0; n < TRACK_SLOTS; n++, i = (i + 1) & (TRACK_SLOTS - 1)) {
    if (g_keys[i] == 0 || g_keys[i] == key) {
      g_keys[i] = key;
      g_sizes[i] = size;
      g_live += size;
      return;
    }
  }
}

static void track_remove(uintptr_t key) {
  size_t i = slot_of(key);
  for (size_t n = 0; n < TRACK_SLOTS && g_keys[i] != 0; n++, i = (i + 1) & (TRACK_SLOTS - 1)) {
    if (g_keys[i] == key) {
      g_live -= g_sizes[i];
      /* Re-insert the rest of the cluster so lookups past this slot still find their keys. */
      g_keys[i] = 0;
      size_t j = (i + 1) & (TRACK_SLOTS - 1);
      while (g_keys[j] != 0) {
        uintptr_t k = g_keys[j];
        long long s = g_sizes[j];
        g_keys[j] = 0;
        g_live -= s;
        track_add(k, s);
        j = (j + 1) & (TRACK_SLOTS - 1);
      }
      return;
    }
  }
}

static long long env_ll(const char *name, long long fallback) {
  const char *v = getenv(name);
  return (v && *v) ? atoll(v) : fallback;
}

static int rank_listed(const char *ranks, long rank) {
  const char *p = ranks;
  while (*p) {
    char *end;
    long r = strtol(p, &end, 10);
    if (end == p) return 0;
    if (r == rank) return 1;
    p = (*end == ',') ? end + 1 : end;
    if (*end != ',' && *end != '\0') return 0;
  }
  return 0;
}

static void log_line(const char *text) {
  ssize_t ignored = write(2, text, strlen(text));
  (void)ignored;
}

/* Decides, under the lock, whether this allocation fails. Returns 1 to fail. */
static int should_fail(const char *api, size_t size) {
  if (!g_enabled_rank) return 0;
  g_calls++;
  int fail = 0;
  if (g_sticky && g_tripped) fail = 1;
  if (g_nth > 0 && g_calls == g_nth) fail = 1;
  if (g_budget >= 0 && g_live - g_budget_base + (long long)size > g_budget) fail = 1;
  if (fail) {
    g_tripped = 1;
    g_failures++;
    char msg[256];
    snprintf(msg, sizeof msg, "headroom-shim: injected %s failure #%lld (%zu bytes; call %lld; live %lld bytes)\n", api,
             g_failures, size, g_calls, g_live);
    log_line(msg);
  }
  return fail;
}

int headroom_fault_configure(long long budget, long long nth, int sticky) {
  pthread_mutex_lock(&g_lock);
  g_budget = budget;
  g_budget_base = budget >= 0 ? g_live : 0;
  g_nth = nth > 0 ? g_calls + nth : 0;
  g_sticky = sticky;
  g_tripped = 0;
  pthread_mutex_unlock(&g_lock);
  return 0;
}

/* Live bytes, calls and injected failures so far (for probes that report them). */
void headroom_fault_stats(long long out[3]) {
  pthread_mutex_lock(&g_lock);
  out[0] = g_live;
  out[1] = g_calls;
  out[2] = g_failures;
  pthread_mutex_unlock(&g_lock);
}

static void *next_symbol(const char *name) { return dlsym(RTLD_NEXT, name); }

/* CUDA runtime */
typedef int (*malloc_fn)(void **, size_t);
typedef int (*free_fn)(void *);

static int wrapped_malloc(const char *api, malloc_fn real, void **ptr, size_t size) {
  if (!real) return 35; /* cudaErrorInsufficientDriver / hipErrorInsufficientDriver: no runtime behind us */
  pthread_mutex_lock(&g_lock);
  int fail = should_fail(api, size);
  pthread_mutex_unlock(&g_lock);
  if (fail) return OOM_CODE;
  int rc = real(ptr, size);
  if (rc == 0 && ptr && *ptr) {
    pthread_mutex_lock(&g_lock);
    track_add((uintptr_t)*ptr, (long long)size);
    pthread_mutex_unlock(&g_lock);
  }
  return rc;
}

static int wrapped_free(free_fn real, void *ptr) {
  if (ptr) {
    pthread_mutex_lock(&g_lock);
    track_remove((uintptr_t)ptr);
    pthread_mutex_unlock(&g_lock);
  }
  return real ? real(ptr) : 0;
}

int cudaMalloc(void **ptr, size_t size) {
  static malloc_fn real;
  if (!real) real = (malloc_fn)next_symbol("cudaMalloc");
  return wrapped_malloc("cudaMalloc", real, ptr, size);
}

int cudaFree(void *ptr) {
  static free_fn real;
  if (!real) real = (free_fn)next_symbol("cudaFree");
  return wrapped_free(real, ptr);
}

int hipMalloc(void **ptr, size_t size) {
  static malloc_fn real;
  if (!real) real = (malloc_fn)next_symbol("hipMalloc");
  return wrapped_malloc("hipMalloc", real, ptr, size);
}

int hipFree(void *ptr) {
  static free_fn real;
  if (!real) real = (free_fn)next_symbol("hipFree");
  return wrapped_free(real, ptr);
}

/* CUDA driver virtual memory (cuMemCreate's handle is an unsigned long long). */
typedef int (*mem_create_fn)(unsigned long long *, size_t, const void *, unsigned long long);
typedef int (*mem_release_fn)(unsigned long long);

int cuMemCreate(unsigned long long *handle, size_t size, const void *prop, unsigned long long flags) {
  static mem_create_fn real;
  if (!real) real = (mem_create_fn)next_symbol("cuMemCreate");
  if (!real) return 3; /* CUDA_ERROR_NOT_INITIALIZED */
  pthread_mutex_lock(&g_lock);
  int fail = should_fail("cuMemCreate", size);
  pthread_mutex_unlock(&g_lock);
  if (fail) return OOM_CODE;
  int rc = real(handle, size, prop, flags);
  if (rc == 0 && handle) {
    pthread_mutex_lock(&g_lock);
    track_add((uintptr_t)*handle, (long long)size);
    pthread_mutex_unlock(&g_lock);
  }
  return rc;
}

int cuMemRelease(unsigned long long handle) {
  static mem_release_fn real;
  if (!real) real = (mem_release_fn)next_symbol("cuMemRelease");
  pthread_mutex_lock(&g_lock);
  track_remove((uintptr_t)handle);
  pthread_mutex_unlock(&g_lock);
  return real ? real(handle) : 3;
}

/* ------------------------------------------------------------------------------------------- */
/* Crash capture */

static volatile sig_atomic_t g_crash_written = 0;

static void put(int fd, const char *s) {
  ssize_t ignored = write(fd, s, strlen(s));
  (void)ignored;
}

static void put_num(int fd, long long v) {
  char buf[32];
  int i = sizeof buf - 1;
  int neg = v < 0;
  unsigned long long u = neg ? (unsigned long long)(-v) : (unsigned long long)v;
  buf[i] = '\0';
  do {
    buf[--i] = (char)('0' + u % 10);
    u /= 10;
  } while (u && i > 1);
  if (neg) buf[--i] = '-';
  put(fd, buf + i);
}

/* True when the symbolized frames include CPython's evaluation loop. */
static int has_python_frame(char **symbols, int n) {
  if (!symbols) return 0;
  for (int i = 0; i < n; i++) {
    if (strstr(symbols[i], "_PyEval_EvalFrame") || strstr(symbols[i], "PyEval_EvalCode")) return 1;
  }
  return 0;
}

static void write_crash(const char *what) {
  if (g_crash_written) return;
  g_crash_written = 1;
  const char *path = getenv("HEADROOM_CRASH_FILE");
  int fd = path ? open(path, O_WRONLY | O_CREAT | O_APPEND, 0644) : 2;
  if (fd < 0) fd = 2;
  void *frames[MAX_FRAMES];
  int n = backtrace(frames, MAX_FRAMES);
  char name[17] = {0};
  prctl(PR_GET_NAME, name, 0, 0, 0);
  long tid = syscall(SYS_gettid);
  char **symbols = backtrace_symbols(frames, n); /* may fail in a corrupted heap: then no Python-frame answer */
  put(fd, what);
  put(fd, " pid=");
  put_num(fd, getpid());
  put(fd, " tid=");
  put_num(fd, tid);
  put(fd, tid == getpid() ? " main=yes" : " main=no");
  put(fd, " thread=");
  put(fd, name);
  put(fd, symbols ? (has_python_frame(symbols, n) ? " python=yes" : " python=no") : " python=unknown");
  put(fd, "\n");
  backtrace_symbols_fd(frames, n, fd);
  if (fd != 2) close(fd);
}

typedef void (*abort_fn)(void);

void abort(void) {
  write_crash("abort()");
  abort_fn real = (abort_fn)dlsym(RTLD_NEXT, "abort");
  if (real) real();
  _exit(134);
}

static void on_fatal(int sig) {
  const char *what = sig == SIGSEGV ? "SIGSEGV" : sig == SIGBUS ? "SIGBUS" : sig == SIGFPE ? "SIGFPE"
                   : sig == SIGILL ? "SIGILL" : "SIGABRT";
  write_crash(what);
  signal(sig, SIG_DFL);
  raise(sig);
}

__attribute__((constructor)) static void headroom_preload_init(void) {
  /* backtrace() loads libgcc on its first call; do it now, not inside a signal handler. */
  void *warm[2];
  backtrace(warm, 2);
  const char *ranks = getenv("HEADROOM_FAULT_RANKS");
  if (ranks && *ranks) g_enabled_rank = rank_listed(ranks, (long)env_ll("RANK", 0));
  g_budget = env_ll("HEADROOM_FAULT_BUDGET_BYTES", -1);
  g_nth = env_ll("HEADROOM_FAULT_NTH_CALL", 0);
  g_sticky = env_ll("HEADROOM_FAULT_STICKY", 0) != 0;
  if (getenv("HEADROOM_CRASH_FILE")) {
    int sigs[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT};
    for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++) {
      struct sigaction sa;
      memset(&sa, 0, sizeof sa);
      sa.sa_handler = on_fatal;
      sigemptyset(&sa.sa_mask);
      sa.sa_flags = SA_ONSTACK;
      sigaction(sigs[i], &sa, NULL);
    }
  }
}
