#define _GNU_SOURCE
#include "vault_sandbox.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/capability.h>
#include <sched.h>
#include <seccomp.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

uint64_t vault_sandbox_mapped_bytes(void) {
  FILE *statm = fopen("/proc/self/statm", "re");
  if (statm == NULL) return 0;
  unsigned long long pages = 0;
  int read = fscanf(statm, "%llu", &pages);
  fclose(statm);
  return read == 1 ? pages * (uint64_t)sysconf(_SC_PAGESIZE) : 0;
}

static int set_limit(int resource, rlim_t value) {
  struct rlimit limit = {value, value};
  return setrlimit(resource, &limit);
}

/* What decoding needs, found by running `vault add`, `vault show` and the tests under
 * `strace -f` on every format (bytes sent whole, a descriptor, ranges, a picture through
 * shared memory): the socket's frames (recvmsg, sendto below), pread on a file handed over,
 * memory, threads (libde265's: each library that lets us say so gets 1), futexes, signal
 * masks and the calls of a thread's start and end. Besides: write, for a message on stderr
 * and the dying frame; close; getpid, gettid and tgkill, with which abort() raises (at its
 * own process only, below); mmap and mprotect without PROT_EXEC (below);
 * rt_sigreturn, from the dying handler; fstat on a descriptor; clock_gettime, should the
 * vDSO be missing; sched_yield, which lock implementations call under contention. */
static const int allowed_calls[] = {
    SCMP_SYS(write), SCMP_SYS(close), SCMP_SYS(pread64), SCMP_SYS(recvmsg),
    SCMP_SYS(munmap), SCMP_SYS(mremap), SCMP_SYS(brk), SCMP_SYS(madvise),
    SCMP_SYS(futex), SCMP_SYS(clock_gettime), SCMP_SYS(sched_yield), SCMP_SYS(exit),
    SCMP_SYS(exit_group), SCMP_SYS(rt_sigreturn), SCMP_SYS(rt_sigprocmask), SCMP_SYS(rt_sigaction),
    SCMP_SYS(getpid), SCMP_SYS(gettid), SCMP_SYS(set_robust_list), SCMP_SYS(rseq),
    SCMP_SYS(fstat),
};

static int load_filter(void) {
  scmp_filter_ctx filter = seccomp_init(SCMP_ACT_KILL_PROCESS);
  if (filter == NULL) return -1;
  int status = 0;
  for (size_t i = 0; i < sizeof allowed_calls / sizeof allowed_calls[0]; i++) {
    status |= seccomp_rule_add(filter, SCMP_ACT_ALLOW, allowed_calls[i], 0);
  }
  /* Threads only: a clone without CLONE_THREAD would be a new process. glibc tries clone3
   * first, whose flags sit in memory a filter cannot read: ENOSYS sends it back to clone. */
  status |= seccomp_rule_add(
      filter, SCMP_ACT_ALLOW, SCMP_SYS(clone), 1,
      SCMP_A0(SCMP_CMP_MASKED_EQ, CLONE_THREAD, CLONE_THREAD));
  status |= seccomp_rule_add(filter, SCMP_ACT_ERRNO(ENOSYS), SCMP_SYS(clone3), 0);
  /* fstat is newfstatat(fd, "", AT_EMPTY_PATH) in glibc: allowed on a descriptor only, so
   * that no path can be looked at. */
  status |= seccomp_rule_add(
      filter, SCMP_ACT_ALLOW, SCMP_SYS(newfstatat), 1,
      SCMP_A3(SCMP_CMP_MASKED_EQ, AT_EMPTY_PATH, AT_EMPTY_PATH));
  /* The socket's frames are sent with MSG_NOSIGNAL (send is sendto without an address);
   * an address would be a datagram elsewhere. */
  status |= seccomp_rule_add(filter, SCMP_ACT_ALLOW, SCMP_SYS(sendto), 1, SCMP_A4(SCMP_CMP_EQ, 0));
  /* Signals to its own threads only (abort, raise): never to the parent or another process. */
  status |= seccomp_rule_add(
      filter, SCMP_ACT_ALLOW, SCMP_SYS(tgkill), 1, SCMP_A0(SCMP_CMP_EQ, (scmp_datum_t)getpid()));
  /* No new executable memory: the codecs need none (no library of the helper asks for an
   * executable stack, none compiles code at run time), and a crafted file that took over
   * the helper could not map code of its own. */
  status |= seccomp_rule_add(
      filter, SCMP_ACT_ALLOW, SCMP_SYS(mmap), 1, SCMP_A2(SCMP_CMP_MASKED_EQ, PROT_EXEC, 0));
  status |= seccomp_rule_add(
      filter, SCMP_ACT_ALLOW, SCMP_SYS(mprotect), 1, SCMP_A2(SCMP_CMP_MASKED_EQ, PROT_EXEC, 0));
  /* isatty(2) before a message: "not a terminal" rather than a death. */
  status |= seccomp_rule_add(filter, SCMP_ACT_ERRNO(ENOTTY), SCMP_SYS(ioctl), 0);
  if (status == 0) status = seccomp_load(filter);
  seccomp_release(filter);
  return status == 0 ? 0 : -1;
}

/* Drops every capability: the ambient set, the bounding set (when the helper may, that is
 * when it has CAP_SETPCAP, as a helper of root has), then the effective, permitted and
 * inheritable sets. A helper of root would otherwise run with all of them. */
static int drop_capabilities(void) {
  struct __user_cap_header_struct header = {_LINUX_CAPABILITY_VERSION_3, 0};
  struct __user_cap_data_struct sets[_LINUX_CAPABILITY_U32S_3];
  memset(sets, 0, sizeof sets);
  if (syscall(SYS_capget, &header, sets) != 0) return -1;
  if (prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0) != 0 && errno != EINVAL) return -1;
  if (sets[CAP_TO_INDEX(CAP_SETPCAP)].effective & CAP_TO_MASK(CAP_SETPCAP)) {
    for (int capability = 0; prctl(PR_CAPBSET_READ, capability, 0, 0, 0) >= 0; capability++) {
      if (prctl(PR_CAPBSET_DROP, capability, 0, 0, 0) != 0) return -1;
    }
  }
  memset(sets, 0, sizeof sets);
  return (int)syscall(SYS_capset, &header, sets);
}

int vault_sandbox_enter(const struct vault_sandbox_limits *limits, const char **failure) {
  uint64_t mapped = vault_sandbox_mapped_bytes();
  if (mapped == 0) {
    *failure = "cannot read the helper's own mappings";
    return -1;
  }
  if (drop_capabilities() != 0) {
    *failure = "cannot drop its capabilities";
    return -1;
  }
  if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) {
    *failure = "PR_SET_NO_NEW_PRIVS refused";
    return -1;
  }
  if (set_limit(RLIMIT_AS, mapped + limits->memory_bytes) != 0 ||
      set_limit(RLIMIT_CPU, limits->cpu_seconds) != 0 ||
      set_limit(RLIMIT_NOFILE, (rlim_t)limits->highest_descriptor + 1) != 0 ||
      set_limit(RLIMIT_FSIZE, 0) != 0 || set_limit(RLIMIT_CORE, 0) != 0) {
    *failure = "a resource limit was refused";
    return -1;
  }
  if (prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) != 0) {
    *failure = "PR_SET_DUMPABLE refused";
    return -1;
  }
  if (load_filter() != 0) {
    *failure = "the seccomp filter was refused";
    return -1;
  }
  return 0;
}

int vault_sandbox_try_open(void) { return open("/etc/hostname", O_RDONLY | O_CLOEXEC); }

int vault_sandbox_try_socket(void) { return socket(AF_INET, SOCK_STREAM, 0); }

int vault_sandbox_try_signal_other(void) { return (int)syscall(SYS_tgkill, 1, 1, 0); }

int vault_sandbox_try_executable_memory(void) {
  void *code = mmap(NULL, 4096, PROT_READ | PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  return code == MAP_FAILED ? -1 : 0;
}

int vault_sandbox_try_execve(void) {
  char *const arguments[] = {"/bin/true", NULL};
  char *const environment[] = {NULL};
  return execve("/bin/true", arguments, environment);
}

static int report_descriptor = -1;
static uint64_t address_space_left_probe = 0;

/* The frame a dying helper writes (docs/DECODER.md): length 3, kind 0x7F, whether the
 * address space was full, the signal. */
static void report_death(int signal_number) {
  int full = 0;
  void *probe = mmap(NULL, address_space_left_probe, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (probe == MAP_FAILED) {
    full = errno == ENOMEM;
  } else {
    munmap(probe, address_space_left_probe);
  }
  unsigned char frame[7] = {0, 0, 0, 3, 0x7F, (unsigned char)full, (unsigned char)signal_number};
  ssize_t written = write(report_descriptor, frame, sizeof frame);
  (void)written;
  /* The handler was reset (SA_RESETHAND) and the signal is blocked until it returns: then
   * the helper dies of it, as it would have. */
  raise(signal_number);
}

int vault_sandbox_report_deaths(int descriptor, uint64_t probe_bytes) {
  static char alternate_stack[64 << 10];
  stack_t stack = {.ss_sp = alternate_stack, .ss_size = sizeof alternate_stack, .ss_flags = 0};
  if (sigaltstack(&stack, NULL) != 0) return -1;
  report_descriptor = descriptor;
  address_space_left_probe = probe_bytes;
  struct sigaction action;
  memset(&action, 0, sizeof action);
  action.sa_handler = report_death;
  action.sa_flags = SA_ONSTACK | SA_RESETHAND;
  sigemptyset(&action.sa_mask);
  const int signals[] = {SIGABRT, SIGSEGV, SIGBUS, SIGILL, SIGTRAP};
  for (size_t i = 0; i < sizeof signals / sizeof signals[0]; i++) {
    if (sigaction(signals[i], &action, NULL) != 0) return -1;
  }
  return 0;
}
