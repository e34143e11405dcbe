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

/* pipe2 needs _GNU_SOURCE too. Makes a pipe whose two ends are non-blocking and closed on
 * exec, in one step (no other thread's exec can inherit them in between): the viewer's
 * signal handlers write to it to wake its event loop. Returns 0 or -1 (errno set). */
int vault_make_wake_pipe(int descriptors[2]);

/* dup3 needs _GNU_SOURCE as well. Makes `target` refer to what `source` refers to, closed on
 * exec (dup2 would drop that flag). Async-signal-safe: the viewer's signal handlers point
 * its drawing descriptor at /dev/null with it, so that a frame being written when the
 * terminal is restored cannot land on the main screen. Returns `target` or -1. */
int vault_replace_descriptor(int source, int target);

/* Starts the decoder helper at `path` with `arguments` (NULL-terminated) and the
 * environment `environment` (NULL-terminated, nothing of the parent's): `socket` becomes its
 * descriptor 3, /dev/null its 0, 1 and 2, and every other descriptor is closed
 * (posix_spawn_file_actions_addclosefrom_np needs _GNU_SOURCE). Returns 0 with the pid in
 * `*pid`, or an errno value. */
int vault_spawn_decoder(
    const char *path, char *const arguments[], char *const environment[], int socket, int *pid);

/* Starts the tool at `path` (rclone) with `arguments` and `environment` (NULL-terminated):
 * /dev/null is its 0, `output` its 1 and `errors` its 2, every other descriptor is closed,
 * and it is killed (SIGKILL) when the thread that started it ends, so that a vault killed
 * in the middle of a backup leaves no rclone running on (call it from a thread that lives
 * as long as the process). posix_spawn cannot set the parent-death signal: this forks.
 * Returns 0 with the pid in `*pid`, or the errno value of what failed (exec's too). */
int vault_spawn_tool(
    const char *path, char *const arguments[], char *const environment[], int output, int errors, int *pid);

/* A SOCK_STREAM socket pair, closed on exec (SOCK_CLOEXEC needs _GNU_SOURCE). Returns 0 or
 * -1 (errno set). */
int vault_make_socket_pair(int descriptors[2]);

/* SCM_RIGHTS takes cmsg macros, which Swift cannot use. Sends up to `count` bytes of
 * `bytes` on `socket` with `descriptor` attached to them (sendmsg with `flags`): vault
 * hands a decoder helper the read-only descriptor of a file it imports. Returns the count
 * sent or -1 (errno). */
long vault_send_with_descriptor(
    int socket, const void *bytes, unsigned long count, int descriptor, int flags);

/* Reads up to `count` bytes from `socket` into `bytes` (recvmsg); a descriptor that came
 * with them is stored in `*descriptor` (closed on exec), else -1 is. More than one
 * descriptor, control data that was cut off (MSG_CTRUNC) or of another kind are a peer
 * breaking the protocol: every descriptor received is closed and `*descriptor` is
 * VAULT_UNEXPECTED_DESCRIPTORS. Returns the count read, 0 at the end, or -1 (errno). */
#define VAULT_UNEXPECTED_DESCRIPTORS (-2)
long vault_receive_with_descriptor(int socket, void *bytes, unsigned long count, int *descriptor);

/* memfd_create needs _GNU_SOURCE. Makes `size` bytes of anonymous shared memory, sealed so
 * that its size can never change (a decoder helper writes a picture into it, and vault
 * reads it: a helper that could shrink it would make vault's read fault). Returns the
 * descriptor (closed on exec) or -1 (errno set). */
int vault_make_sealed_memory(unsigned long size);

/* The same memfd_create, of `size` bytes (zeros) that may still be written, and sealed
 * later: `add` reads a file into it, then seals it (vault_seal_contents) and hands it to
 * the decoder helper. `name` shows in /proc (for whoever may read this process's maps).
 * Returns the descriptor (closed on exec) or -1 (errno set). */
int vault_make_sealable_memory(const char *name, unsigned long size);

/* Seals memory made by vault_make_sealable_memory for good (F_ADD_SEALS needs _GNU_SOURCE):
 * no process holding it can write, grow or shrink it again, or remove a seal, so a helper
 * given it reads exactly the bytes vault read. Fails with EBUSY while a writable shared
 * mapping of it exists. Returns 0 or -1 (errno set). */
int vault_seal_contents(int descriptor);

/* Copies the first `count` bytes of the file `source` to `target` from its current offset,
 * inside the kernel (sendfile: no buffer in between, and the pages written whole are never
 * zeroed first nor faulted in). Returns the count copied, less at the file's end, or -1
 * (errno set: EINVAL when `source`'s file system cannot be read so). */
long vault_copy_file(int target, int source, unsigned long count);

#endif
