#ifndef VAULT_SANDBOX_H
#define VAULT_SANDBOX_H

#include <stdint.h>

/* The decoder helper's confinement, in C: prctl is variadic, and so is libseccomp's
 * seccomp_rule_add, and Swift can call neither. Only vault-decoder links this target (and
 * with it libseccomp); the process that holds keys never does. */

/* The limits a helper sets on itself before it reads its first request. */
struct vault_sandbox_limits {
  /* Bytes of address space the helper may add to what it has mapped when it sets the
   * limit (RLIMIT_AS = mapped now + this). */
  uint64_t memory_bytes;
  /* Seconds of CPU time over the helper's whole life (RLIMIT_CPU), a backstop behind the
   * parent's wall-clock deadline per request; the parent retires a worker well before. */
  uint64_t cpu_seconds;
  /* The highest descriptor the helper holds: RLIMIT_NOFILE becomes one more. */
  int highest_descriptor;
};

/* Drops every capability, sets PR_SET_NO_NEW_PRIVS, RLIMIT_AS, RLIMIT_CPU, RLIMIT_NOFILE, RLIMIT_FSIZE 0,
 * RLIMIT_CORE 0, PR_SET_DUMPABLE 0, then loads the seccomp filter (default action: kill
 * the process). Returns 0, or -1 with a static message in `*failure`. */
int vault_sandbox_enter(const struct vault_sandbox_limits *limits, const char **failure);

/* The bytes mapped into this process now (VmSize), from /proc/self/statm; 0 if unknown.
 * Called before the filter, which forbids opening it. */
uint64_t vault_sandbox_mapped_bytes(void);

/* Test-only faults (the parent asks for them only under the test-only request): each makes
 * one forbidden system call, which the filter answers by killing the process. */
int vault_sandbox_try_open(void);
int vault_sandbox_try_socket(void);
int vault_sandbox_try_execve(void);
/* Signal 0 to init with tgkill (a helper may signal its own process only). */
int vault_sandbox_try_signal_other(void);
/* Map anonymous executable memory. */
int vault_sandbox_try_executable_memory(void);

/* Installs a handler for the signals a failed allocation ends in (SIGABRT, SIGSEGV,
 * SIGBUS, SIGILL, SIGTRAP): it writes one frame to `descriptor` saying whether the
 * address space was full (an mmap of `probe_bytes` fails with ENOMEM: a failed allocation
 * leaves less than that), then dies of the same signal. Only async-signal-safe calls.
 * Returns 0 or -1. */
int vault_sandbox_report_deaths(int descriptor, uint64_t probe_bytes);

#endif
