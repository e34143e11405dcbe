#ifndef VAULT_SYSTEM_H
#define VAULT_SYSTEM_H

/* prctl is variadic, which Swift cannot call; this wraps it. Turns off core dumps
 * (RLIMIT_CORE = 0) and marks the process non-dumpable, so that neither a crash nor
 * another process of the same user can copy keys out of memory. Returns 0 or -1. */
int vault_disable_core_dumps(void);

#endif
