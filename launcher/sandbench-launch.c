/*
 * sandbench-launch: the harness's native launcher, started once per run as a co-process.
 *
 * Why: a large Node process forks slowly (page-table copy), needed an extra `taskset` exec for CPU
 * pinning and a shell for cgroup entry, and stamped output only when its event loop got to it.
 * This small process takes CLOCK_MONOTONIC (the clock behind Node's process.hrtime) immediately
 * before vfork, enters cgroups and applies affinity in the child before exec, stamps every output
 * chunk as epoll reports it, stamps exit at waitid, and writes barrier messages to N stdin pipes in
 * one tight loop. Protocol (both directions binary-safe, documented in launcher/PROTOCOL.md):
 *
 *   request:  "<op> <id> <len>\n" + <len> payload bytes
 *   event:    "<type> <id> <t_ns> <a> <b> <len>\n" + <len> payload bytes
 *
 * No dependencies beyond libc; Linux only (epoll, signalfd, vfork, sched_setaffinity).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define PROTOCOL_VERSION 3
#define MAX_CGROUPS 8
#define MAX_WARMUPS 16
#define READ_CHUNK 65536

enum stage { STAGE_NONE = 0, STAGE_CGROUP = 1, STAGE_AFFINITY = 2, STAGE_CHDIR = 3, STAGE_EXEC = 4, STAGE_FORK = 5, STAGE_STDIO = 6 };

struct child {
  int used;
  long id;
  pid_t pid;
  int out_fd, err_fd, in_fd;
  int64_t deadline_ns; /* 0 = none */
  int64_t kill_at_ns;  /* SIGKILL escalation after a timeout; 0 = none */
  int64_t grace_ns;
  int timed_out;
};

static struct child *children;
static size_t n_children;
static int epfd, sigfd, devnull;
/* This binary, `--noop`: the warm-up launches' no-op. Through /proc/self/exe, which still reaches it
 * after a rebuild renamed a new binary over the path. */
static char self_exe[] = "/proc/self/exe";

/* Event output is buffered: the stamps are taken at read time, so batching the writes never moves a
 * timestamp. Spawn and output events are held for up to COALESCE_NS (a short trial's spawn, output and
 * exit then reach the harness in one write): every wake-up of the big harness process while a trial
 * runs competes with the trial for the CPU on a small machine. Exits, failures and replies go at once.
 * The spawn of a launch without a stdin pipe is held for up to SILENT_SPAWN_HOLD_NS: the harness
 * cannot write to it, so its spawn event carries only bookkeeping (the pid), and a helper's copy or a
 * scoring run then reaches the harness as one wake-up (spawn with output or exit) instead of two.
 * A wake-up of the harness to read a reply costs it 0.2-0.7 ms of CPU on this machine, the more the
 * longer it waited (docs/harness-scale.md, eighth to tenth rounds). */
#define COALESCE_NS 1000000LL
#define SILENT_SPAWN_HOLD_NS 20000000LL
static char *obuf;
static size_t olen, ocap;
static int64_t flush_at_ns; /* when the held events must go; meaningful while olen > 0 */
static int urgent;

/* Set by a vfork child before _exit when a pre-exec step failed (the child shares our memory). */
static volatile int child_fail_stage, child_fail_errno;

static int64_t now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static void die(const char *what) {
  fprintf(stderr, "sandbench-launch: %s: %s\n", what, strerror(errno));
  exit(70);
}

static void oappend(const void *data, size_t len) {
  if (olen + len > ocap) {
    size_t cap = ocap ? ocap : 65536;
    while (cap < olen + len) cap *= 2;
    obuf = realloc(obuf, cap);
    if (!obuf) die("realloc");
    ocap = cap;
  }
  memcpy(obuf + olen, data, len);
  olen += len;
}

/* Appends an event that may wait up to hold_ns; the buffer goes at the earliest deadline of what it holds. */
static void emit_held(int64_t hold_ns, char type, long id, int64_t t, long long a, long long b, const void *payload, size_t len) {
  int64_t due = now_ns() + hold_ns;
  if (olen == 0 || due < flush_at_ns) flush_at_ns = due;
  char head[160];
  int n = snprintf(head, sizeof head, "%c %ld %lld %lld %lld %zu\n", type, id, (long long)t, a, b, len);
  oappend(head, (size_t)n);
  if (len) oappend(payload, len);
}

static void emit(char type, long id, int64_t t, long long a, long long b, const void *payload, size_t len) {
  if (type != 'S' && type != 'O') urgent = 1;
  emit_held(COALESCE_NS, type, id, t, a, b, payload, len);
}

static void flush_events(void) {
  size_t off = 0;
  while (off < olen) {
    ssize_t w = write(1, obuf + off, olen - off);
    if (w < 0) {
      if (errno == EINTR) continue;
      /* The harness is gone: nobody can read results any more. */
      exit(0);
    }
    off += (size_t)w;
  }
  olen = 0;
  urgent = 0;
}

/* Flush what must go now; otherwise keep holding (the loop wakes at flush_at_ns). */
static void maybe_flush(void) {
  if (olen == 0) return;
  if (urgent || olen >= 65536 || now_ns() >= flush_at_ns) flush_events();
}

static void emit_error(long id, const char *message) {
  emit('E', id, now_ns(), 0, 0, message, strlen(message));
}

static struct child *find_child(long id) {
  for (size_t i = 0; i < n_children; i++)
    if (children[i].used && children[i].id == id) return &children[i];
  return NULL;
}

static struct child *find_pid(pid_t pid) {
  for (size_t i = 0; i < n_children; i++)
    if (children[i].used && children[i].pid == pid) return &children[i];
  return NULL;
}

static size_t alloc_child(void) {
  for (size_t i = 0; i < n_children; i++)
    if (!children[i].used) return i;
  children = realloc(children, (n_children + 1) * sizeof *children);
  if (!children) die("realloc");
  memset(&children[n_children], 0, sizeof *children);
  return n_children++;
}

static void close_fd(int *fd) {
  if (*fd >= 0) {
    epoll_ctl(epfd, EPOLL_CTL_DEL, *fd, NULL);
    close(*fd);
    *fd = -1;
  }
}

/* epoll data: child slot index << 2 | stream (1 stdout, 2 stderr); 0 = requests, 3 = signalfd. */
static void watch(int fd, uint64_t tag) {
  struct epoll_event ev = { .events = EPOLLIN, .data.u64 = tag };
  if (epoll_ctl(epfd, EPOLL_CTL_ADD, fd, &ev) < 0) die("epoll_ctl");
}

static int parse_cpus(const char *list, cpu_set_t *set) {
  CPU_ZERO(set);
  const char *p = list;
  while (*p) {
    char *end;
    long lo = strtol(p, &end, 10);
    if (end == p || lo < 0 || lo >= CPU_SETSIZE) return -1;
    long hi = lo;
    if (*end == '-') {
      p = end + 1;
      hi = strtol(p, &end, 10);
      if (end == p || hi < lo || hi >= CPU_SETSIZE) return -1;
    }
    for (long c = lo; c <= hi; c++) CPU_SET((int)c, set);
    p = end;
    if (*p == ',') p++;
    else if (*p) return -1;
  }
  return CPU_COUNT(set) > 0 ? 0 : -1;
}

/* Runs in the vfork child: only async-signal-safe calls, no allocation, never returns. */
__attribute__((noreturn)) static void child_fail(int stage) {
  child_fail_errno = errno;
  child_fail_stage = stage;
  _exit(127);
}

__attribute__((noreturn)) static void exec_child(char **argv, char **envp, const char *path_env, char *pathbuf, size_t pathcap) {
  const char *file = argv[0];
  if (strchr(file, '/')) {
    execve(file, argv, envp);
    child_fail(STAGE_EXEC);
  }
  /* PATH search with the task's PATH (as libuv does), building candidates in a buffer made before vfork. */
  int saw_eacces = 0;
  size_t flen = strlen(file);
  const char *p = path_env;
  for (;;) {
    const char *colon = strchr(p, ':');
    size_t dlen = colon ? (size_t)(colon - p) : strlen(p);
    if (dlen == 0) dlen = 1, p = "."; /* empty entry = current directory */
    if (dlen + 1 + flen + 1 <= pathcap) {
      memcpy(pathbuf, p, dlen);
      pathbuf[dlen] = '/';
      memcpy(pathbuf + dlen + 1, file, flen + 1);
      execve(pathbuf, argv, envp);
      if (errno == EACCES) saw_eacces = 1;
      else if (errno != ENOENT && errno != ENOTDIR) child_fail(STAGE_EXEC);
    }
    if (!colon) break;
    p = colon + 1;
  }
  errno = saw_eacces ? EACCES : ENOENT;
  child_fail(STAGE_EXEC);
}

struct spawn_req {
  char **argv;
  size_t argc;
  char **envp;
  size_t envc;
  const char *cwd;
  int stdin_pipe;
  int have_cpus;
  cpu_set_t cpus;
  const char *cgroups[MAX_CGROUPS];
  int n_cgroups;
  long timeout_ms;
  long grace_ms;
  int warmups;
  int primes;
};

static int live_children(void) {
  for (size_t i = 0; i < n_children; i++)
    if (children[i].used) return 1;
  return 0;
}

/*
 * Warm-up launches (`w=`), run only when the launcher is idle (no live launch), before the stamp.
 * Why (measured, launcher/PROTOCOL.md "Warm-up launches"): on this class of machine a fork/exec/exit
 * that follows a pause of tens of ms costs up to twice one that follows another launch, even in a
 * plain C loop and even when the CPU spins through the pause — the kernel's launch path goes cold.
 * hyperfine times launches back to back, so each follows another; a trial follows the harness's
 * bookkeeping. A few no-op launches right before the stamp put every trial in hyperfine's condition.
 * They are not timed, run with the trial's affinity, write to /dev/null and are reaped here; the
 * SIGCHLDs they raised are drained so none wakes the loop during the timed launch.
 */
static int warm_up(int n, const cpu_set_t *cpus) {
  char *argv[] = { "sandbench-launch", "--noop", NULL };
  char *envp[] = { NULL };
  int done = 0;
  for (int i = 0; i < n; i++) {
    pid_t pid = vfork();
    if (pid == 0) {
      if (cpus) sched_setaffinity(0, sizeof *cpus, cpus);
      dup2(devnull, 1);
      dup2(devnull, 2);
      execve(self_exe, argv, envp);
      _exit(127);
    }
    if (pid < 0) break;
    int status = -1;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {}
    if (WIFEXITED(status) && WEXITSTATUS(status) == 0) done++;
  }
  struct signalfd_siginfo info;
  while (read(sigfd, &info, sizeof info) == sizeof info) {}
  return done;
}

/*
 * The vfork child of a launch (timed or prime): budget, affinity, stdio, cwd, signals, exec. Never
 * returns. Never inlined: the child shares the parent's stack, and inlined into its caller the
 * compiler may reuse the caller's slots (dead on this no-return path) for the child's temporaries.
 */
__attribute__((noinline, noreturn)) static void run_child(const struct spawn_req *r, const int *cg_fds, int n_cg, int in_fd, int out_fd, int err_fd, const char *path_env, char *pathbuf, size_t pathcap) {
  sigset_t empty;
  sigemptyset(&empty);
  setpgid(0, 0);
  /* Budget first: entering a v1 cpuset resets affinity, so pinning must come after it. */
  for (int i = 0; i < n_cg; i++)
    if (write(cg_fds[i], "0", 1) != 1) child_fail(STAGE_CGROUP);
  if (r->have_cpus && sched_setaffinity(0, sizeof r->cpus, &r->cpus) < 0) child_fail(STAGE_AFFINITY);
  if (dup2(in_fd, 0) < 0 || dup2(out_fd, 1) < 0 || dup2(err_fd, 2) < 0) child_fail(STAGE_STDIO);
  if (r->cwd && chdir(r->cwd) < 0) child_fail(STAGE_CHDIR);
  /* The launcher blocks SIGCHLD (signalfd) and ignores SIGPIPE; the task must not inherit either. */
  signal(SIGPIPE, SIG_DFL);
  sigprocmask(SIG_SETMASK, &empty, NULL);
  exec_child(r->argv, r->envp, path_env, pathbuf, pathcap);
}

/*
 * Prime runs (`p=`): the request's own command, untimed, right before the stamp, with the trial's
 * controls and its stdio on /dev/null, as `hyperfine --warmup` runs a command before timing it.
 * Why: a no-op warm-up restores the launch path after a pause, but not the command's own binary and
 * libraries (git's run 1.16-1.31x hyperfine's after the harness's bookkeeping between trials). The
 * command runs p+1 times in the trial's workspace, so only a kind whose command may repeat asks for
 * it (the command kind's `command.prime_runs`); the count done is reported in the spawn event.
 */
static int prime(const struct spawn_req *r, const int *cg_fds, int n_cg, const char *path_env, char *pathbuf, size_t pathcap) {
  volatile int done = 0;
  for (volatile int i = 0; i < r->primes; i++) {
    child_fail_stage = 0;
    pid_t pid = vfork();
    if (pid == 0) run_child(r, cg_fds, n_cg, devnull, devnull, devnull, path_env, pathbuf, pathcap);
    if (pid < 0) break;
    int status = -1;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {}
    if (child_fail_stage) break;
    if (WIFEXITED(status) && WEXITSTATUS(status) == 0) done++;
  }
  struct signalfd_siginfo info;
  while (read(sigfd, &info, sizeof info) == sizeof info) {}
  return done;
}

static void handle_spawn(long id, char *payload, size_t len) {
  struct spawn_req r;
  memset(&r, 0, sizeof r);
  r.grace_ms = 2000;
  r.argv = calloc(len / 2 + 2, sizeof(char *));
  r.envp = calloc(len / 2 + 2, sizeof(char *));
  if (!r.argv || !r.envp) die("calloc");
  const char *path_env = NULL;
  int bad = 0;
  for (size_t off = 0; off < len;) {
    char *field = payload + off;
    size_t flen = strnlen(field, len - off);
    if (off + flen >= len || flen < 2 || field[1] != '=') { bad = 1; break; }
    char *value = field + 2;
    switch (field[0]) {
      case 'a': r.argv[r.argc++] = value; break;
      case 'e':
        r.envp[r.envc++] = value;
        if (strncmp(value, "PATH=", 5) == 0) path_env = value + 5;
        break;
      case 'd': r.cwd = value; break;
      case 'i': r.stdin_pipe = strcmp(value, "pipe") == 0; break;
      case 'c':
        if (parse_cpus(value, &r.cpus) < 0) bad = 2;
        r.have_cpus = 1;
        break;
      case 'g':
        if (r.n_cgroups == MAX_CGROUPS) bad = 3;
        else r.cgroups[r.n_cgroups++] = value;
        break;
      case 't': r.timeout_ms = strtol(value, NULL, 10); break;
      case 'k': r.grace_ms = strtol(value, NULL, 10); break;
      case 'w':
        r.warmups = (int)strtol(value, NULL, 10);
        if (r.warmups < 0 || r.warmups > MAX_WARMUPS) bad = 5;
        break;
      case 'p':
        r.primes = (int)strtol(value, NULL, 10);
        if (r.primes < 0 || r.primes > MAX_WARMUPS) bad = 6;
        break;
      default: bad = 1;
    }
    off += flen + 1;
  }
  if (!bad && r.argc == 0) bad = 4;
  if (bad) {
    const char *why[] = { "", "malformed spawn fields", "bad cpu list", "too many cgroups", "empty argv", "warm-up count out of range (0-16)", "prime count out of range (0-16)" };
    emit('F', id, now_ns(), STAGE_NONE, EINVAL, why[bad], strlen(why[bad]));
    free(r.argv);
    free(r.envp);
    return;
  }
  if (!path_env) path_env = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin";

  /* Everything that can be prepared is prepared before the stamp: only the launch itself is timed. */
  int cg_fds[MAX_CGROUPS];
  int n_cg = 0;
  for (int i = 0; i < r.n_cgroups; i++) {
    int fd = open(r.cgroups[i], O_WRONLY | O_CLOEXEC);
    if (fd < 0) {
      char msg[512];
      snprintf(msg, sizeof msg, "cannot open %s: %s", r.cgroups[i], strerror(errno));
      emit('F', id, now_ns(), STAGE_CGROUP, errno, msg, strlen(msg));
      for (int j = 0; j < n_cg; j++) close(cg_fds[j]);
      free(r.argv);
      free(r.envp);
      return;
    }
    cg_fds[n_cg++] = fd;
  }
  /* Socket pairs, not pipes: Node's spawn gives children socketpairs too, and tasks rely on that
   * (qemu attaches a chardev to fd 2 with `socket,fd=2`, which a pipe fails). */
  int out[2], err[2], in[2] = { -1, -1 };
  if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, out) < 0 || socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, err) < 0 ||
      (r.stdin_pipe && socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, in) < 0))
    die("socketpair");
  int in_read = r.stdin_pipe ? in[0] : devnull;
  size_t pathcap = 4096 + strlen(r.argv[0]);
  char *pathbuf = malloc(pathcap);
  if (!pathbuf) die("malloc");

  int idle = !live_children();
  int primed = r.primes > 0 && idle ? prime(&r, cg_fds, n_cg, path_env, pathbuf, pathcap) : 0;
  int warmed = r.warmups > 0 && idle ? warm_up(r.warmups, r.have_cpus ? &r.cpus : NULL) : 0;
  child_fail_stage = 0;
  child_fail_errno = 0;
  int64_t t0 = now_ns();
  pid_t pid = vfork();
  if (pid == 0) run_child(&r, cg_fds, n_cg, in_read, out[1], err[1], path_env, pathbuf, pathcap);
  int64_t t1 = now_ns();
  int fork_errno = errno;
  free(pathbuf);
  for (int i = 0; i < n_cg; i++) close(cg_fds[i]);
  close(out[1]);
  close(err[1]);
  if (r.stdin_pipe) close(in[0]);

  if (pid < 0 || child_fail_stage) {
    int stage = pid < 0 ? STAGE_FORK : child_fail_stage;
    int code = pid < 0 ? fork_errno : child_fail_errno;
    if (pid > 0) waitpid(pid, NULL, 0);
    char msg[512];
    snprintf(msg, sizeof msg, "%s%s%s: %s", stage == STAGE_EXEC ? "exec " : stage == STAGE_CGROUP ? "entering cgroup" : stage == STAGE_AFFINITY ? "sched_setaffinity" : stage == STAGE_CHDIR ? "chdir " : stage == STAGE_FORK ? "vfork" : "stdio",
             stage == STAGE_EXEC ? r.argv[0] : stage == STAGE_CHDIR ? r.cwd : "", "", strerror(code));
    emit('F', id, t0, stage, code, msg, strlen(msg));
    close(out[0]);
    close(err[0]);
    if (r.stdin_pipe) close(in[1]);
    free(r.argv);
    free(r.envp);
    return;
  }
  setpgid(pid, pid); /* no-op when the child already did it; closes the race otherwise */
  size_t slot = alloc_child();
  struct child *c = &children[slot];
  memset(c, 0, sizeof *c);
  c->used = 1;
  c->id = id;
  c->pid = pid;
  c->out_fd = out[0];
  c->err_fd = err[0];
  c->in_fd = r.stdin_pipe ? in[1] : -1;
  c->deadline_ns = r.timeout_ms > 0 ? t0 + (int64_t)r.timeout_ms * 1000000LL : 0;
  c->grace_ns = (int64_t)r.grace_ms * 1000000LL;
  fcntl(c->out_fd, F_SETFL, O_NONBLOCK);
  fcntl(c->err_fd, F_SETFL, O_NONBLOCK);
  if (c->in_fd >= 0) fcntl(c->in_fd, F_SETFL, O_NONBLOCK);
  watch(c->out_fd, ((uint64_t)slot << 2) | 1);
  watch(c->err_fd, ((uint64_t)slot << 2) | 2);
  char warm_field[32];
  int wlen = snprintf(warm_field, sizeof warm_field, "w=%d p=%d", warmed, primed);
  emit_held(r.stdin_pipe ? COALESCE_NS : SILENT_SPAWN_HOLD_NS, 'S', id, t0, pid, t1, warm_field, (size_t)wlen);
  free(r.argv);
  free(r.envp);
}

/* Read what is there now; returns 0 at EOF (fd closed), 1 otherwise. */
static int drain(struct child *c, int stream) {
  int *fd = stream == 1 ? &c->out_fd : &c->err_fd;
  static char buf[READ_CHUNK];
  while (*fd >= 0) {
    ssize_t n = read(*fd, buf, sizeof buf);
    int64_t t = now_ns();
    if (n > 0) {
      emit('O', c->id, t, stream, 0, buf, (size_t)n);
      if ((size_t)n < sizeof buf) return 1;
      continue;
    }
    if (n < 0 && (errno == EINTR)) continue;
    if (n < 0 && errno == EAGAIN) return 1;
    close_fd(fd);
    return 0;
  }
  return 0;
}

static void release_child(struct child *c) {
  close_fd(&c->out_fd);
  close_fd(&c->err_fd);
  if (c->in_fd >= 0) close(c->in_fd);
  c->in_fd = -1;
  c->used = 0;
}

static void reap(void) {
  for (;;) {
    siginfo_t si;
    memset(&si, 0, sizeof si);
    if (waitid(P_ALL, 0, &si, WEXITED | WNOHANG) < 0 || si.si_pid == 0) return;
    int64_t t = now_ns();
    struct child *c = find_pid(si.si_pid);
    if (!c) continue;
    /* Output written before exit is still in the pipes: deliver it before the exit event. */
    drain(c, 1);
    drain(c, 2);
    long long kind = si.si_code == CLD_EXITED ? 1 : 2;
    emit('X', c->id, t, kind, si.si_status, NULL, 0);
    /* Whatever is left of the group (a backgrounded grandchild) dies with the trial. */
    kill(-c->pid, SIGKILL);
    release_child(c);
  }
}

static void handle_write(long id, const char *payload, size_t len) {
  struct child *c = find_child(id);
  if (!c || c->in_fd < 0) return;
  ssize_t w = write(c->in_fd, payload, len);
  if (w != (ssize_t)len) emit_error(id, w < 0 ? strerror(errno) : "short stdin write");
}

static void handle_barrier(long bid, char *payload, size_t len) {
  const char *data = NULL;
  int close_after = 0;
  long ids[4096];
  size_t n = 0;
  for (size_t off = 0; off < len;) {
    char *field = payload + off;
    size_t flen = strnlen(field, len - off);
    if (flen >= 2 && field[1] == '=') {
      if (field[0] == 'd') data = field + 2;
      else if (field[0] == 'c') close_after = field[2] == '1';
      else if (field[0] == 'p' && n < sizeof ids / sizeof ids[0]) ids[n++] = strtol(field + 2, NULL, 10);
    }
    off += flen + 1;
  }
  if (!data) {
    emit_error(bid, "barrier without data");
    return;
  }
  size_t dlen = strlen(data);
  /* Resolve every target first, so the loop below does nothing but stamp and write. */
  int fds[4096];
  for (size_t i = 0; i < n; i++) {
    struct child *c = find_child(ids[i]);
    fds[i] = c ? c->in_fd : -1;
  }
  int64_t stamps[4096];
  int errs[4096];
  /* The loop runs at real-time priority when allowed (root): on a loaded machine a preemption in the
   * middle of it is the release skew. Only this loop — the policy is restored right after. */
  struct sched_param rt = { .sched_priority = 1 }, normal = { .sched_priority = 0 };
  int boosted = sched_setscheduler(0, SCHED_FIFO, &rt) == 0;
  for (size_t i = 0; i < n; i++) {
    stamps[i] = now_ns();
    errs[i] = fds[i] < 0 ? EBADF : write(fds[i], data, dlen) == (ssize_t)dlen ? 0 : (errno ? errno : EIO);
  }
  if (boosted) sched_setscheduler(0, SCHED_OTHER, &normal);
  int64_t t_first = n ? stamps[0] : now_ns();
  int64_t t_last = n ? stamps[n - 1] : t_first;
  if (close_after)
    for (size_t i = 0; i < n; i++) {
      struct child *c = find_child(ids[i]);
      if (c && c->in_fd >= 0) {
        close(c->in_fd);
        c->in_fd = -1;
      }
    }
  char *lines = malloc(n * 64 + 1);
  if (!lines) die("malloc");
  size_t off = 0;
  for (size_t i = 0; i < n; i++) off += (size_t)sprintf(lines + off, "%ld %lld %d\n", ids[i], (long long)stamps[i], errs[i]);
  emit('B', bid, t_first, t_last, (long long)n, lines, off);
  free(lines);
}

static void handle_request(char op, long id, char *payload, size_t len) {
  switch (op) {
    case 'S': handle_spawn(id, payload, len); break;
    case 'W': handle_write(id, payload, len); break;
    case 'C': {
      struct child *c = find_child(id);
      if (c && c->in_fd >= 0) {
        close(c->in_fd);
        c->in_fd = -1;
      }
      break;
    }
    case 'K': {
      struct child *c = find_child(id);
      long sig = len ? strtol(payload, NULL, 10) : SIGKILL;
      if (c) kill(-c->pid, (int)sig);
      break;
    }
    case 'B': handle_barrier(id, payload, len); break;
    case 'P': emit('P', id, now_ns(), 0, 0, NULL, 0); break;
    default: emit_error(id, "unknown request");
  }
}

static char *ibuf;
static size_t ilen, icap;

/* Parse every complete request in the input buffer. */
static void parse_requests(void) {
  size_t off = 0;
  for (;;) {
    char *nl = memchr(ibuf + off, '\n', ilen - off);
    if (!nl) break;
    char op;
    long id;
    size_t len;
    *nl = 0;
    if (sscanf(ibuf + off, "%c %ld %zu", &op, &id, &len) != 3) {
      emit_error(0, "malformed request header");
      flush_events();
      exit(65);
    }
    size_t body = (size_t)(nl - ibuf) + 1;
    if (ilen - body < len) {
      *nl = '\n';
      break;
    }
    char *payload = ibuf + body;
    char saved = payload[len];
    payload[len] = 0; /* room reserved by the +1 in the read loop */
    handle_request(op, id, payload, len);
    payload[len] = saved;
    off = body + len;
  }
  memmove(ibuf, ibuf + off, ilen - off);
  ilen -= off;
}

static void shutdown_all(int code) {
  for (size_t i = 0; i < n_children; i++)
    if (children[i].used) kill(-children[i].pid, SIGKILL);
  flush_events();
  exit(code);
}

static void check_deadlines(void) {
  int64_t t = now_ns();
  for (size_t i = 0; i < n_children; i++) {
    struct child *c = &children[i];
    if (!c->used) continue;
    if (c->deadline_ns && !c->timed_out && t >= c->deadline_ns) {
      c->timed_out = 1;
      kill(-c->pid, SIGTERM);
      c->kill_at_ns = t + c->grace_ns;
      emit('T', c->id, t, 0, 0, NULL, 0);
    }
    if (c->kill_at_ns && t >= c->kill_at_ns) {
      kill(-c->pid, SIGKILL);
      c->kill_at_ns = 0;
    }
  }
}

static int next_timeout_ms(void) {
  int64_t next = 0;
  for (size_t i = 0; i < n_children; i++) {
    struct child *c = &children[i];
    if (!c->used) continue;
    int64_t d = !c->timed_out ? c->deadline_ns : c->kill_at_ns;
    if (d && (!next || d < next)) next = d;
  }
  if (olen && (!next || flush_at_ns < next)) next = flush_at_ns;
  if (!next) return -1;
  int64_t wait = next - now_ns();
  return wait <= 0 ? 0 : (int)((wait + 999999) / 1000000);
}

int main(int argc, char **argv) {
  if (argc > 1 && strcmp(argv[1], "--version") == 0) {
    printf("sandbench-launch protocol %d\n", PROTOCOL_VERSION);
    return 0;
  }
  if (argc > 1 && strcmp(argv[1], "--noop") == 0) return 0;
  /* Never outlive the harness: if it dies, so do we (and the loop below kills our trees on EOF). */
  prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (getppid() == 1) return 0;
  signal(SIGPIPE, SIG_IGN);
  sigset_t chld;
  sigemptyset(&chld);
  sigaddset(&chld, SIGCHLD);
  sigprocmask(SIG_BLOCK, &chld, NULL);
  sigfd = signalfd(-1, &chld, SFD_NONBLOCK | SFD_CLOEXEC);
  /* Read-write: stdin of tasks, and stdout/stderr of warm-up and prime runs (which may write). */
  devnull = open("/dev/null", O_RDWR | O_CLOEXEC);
  epfd = epoll_create1(EPOLL_CLOEXEC);
  if (sigfd < 0 || devnull < 0 || epfd < 0) die("setup");
  fcntl(0, F_SETFD, FD_CLOEXEC);
  fcntl(1, F_SETFD, FD_CLOEXEC);
  watch(0, 0);
  watch(sigfd, 3);
  icap = 1 << 20;
  ibuf = malloc(icap);
  if (!ibuf) die("malloc");
  emit('H', 0, now_ns(), PROTOCOL_VERSION, getpid(), NULL, 0);
  flush_events();

  struct epoll_event events[64];
  for (;;) {
    int n = epoll_wait(epfd, events, 64, next_timeout_ms());
    if (n < 0 && errno != EINTR) die("epoll_wait");
    int got_sigchld = 0;
    for (int i = 0; i < n; i++) {
      uint64_t tag = events[i].data.u64;
      if (tag == 0) {
        if (icap - ilen < 65537) {
          icap *= 2;
          ibuf = realloc(ibuf, icap);
          if (!ibuf) die("realloc");
        }
        ssize_t r = read(0, ibuf + ilen, icap - ilen - 1);
        if (r == 0) shutdown_all(0);
        if (r < 0) {
          if (errno == EINTR || errno == EAGAIN) continue;
          shutdown_all(0);
        }
        ilen += (size_t)r;
        parse_requests();
      } else if (tag == 3) {
        got_sigchld = 1;
      } else {
        size_t slot = (size_t)(tag >> 2);
        if (slot < n_children && children[slot].used) {
          struct child *c = &children[slot];
          drain(c, (int)(tag & 3));
          /* Both pipes at EOF usually means the task is exiting (files close before the parent is
           * notified): look for its exit now instead of sleeping until SIGCHLD wakes us again. */
          if (c->used && c->out_fd < 0 && c->err_fd < 0) got_sigchld = 1;
        }
      }
    }
    /* Exits after output: a chunk and the exit seen in one turn keep their causal order. */
    if (got_sigchld) {
      struct signalfd_siginfo info;
      while (read(sigfd, &info, sizeof info) == sizeof info) {}
      reap();
    }
    check_deadlines();
    maybe_flush();
  }
}
