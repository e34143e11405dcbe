#ifndef VAULT_SYSTEM_H
#define VAULT_SYSTEM_H

/* prctl is variadic, which Swift cannot call; this wraps it. Turns off core dumps
 * (RLIMIT_CORE = 0) and marks the process non-dumpable, so that neither a crash nor
 * another process of the same user can copy keys out of memory. Returns 0 or -1. */
int vault_disable_core_dumps(void);

/* sync_file_range needs _GNU_SOURCE, which Swift's Glibc module is not built with; this
 * wraps it. Starts writing a file's dirty pages to disk without waiting for them, so that
 * a later fsync finds them written (or under way). Returns 0 or -1 (errno set); it is only
 * a hint, and the fsync that follows is what makes the file durable. */
int vault_start_writeback(int descriptor);

#endif
