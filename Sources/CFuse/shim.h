#define FUSE_USE_VERSION 35
#include <fuse.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

// fuse_new and fuse_loop_mt are macros over versioned symbols, which Swift cannot call.
static inline struct fuse *vault_fuse_new(struct fuse_args *args, const struct fuse_operations *operations,
                                          void *user_data) {
  return fuse_new(args, operations, sizeof(*operations), user_data);
}

static inline int vault_fuse_loop_mt(struct fuse *fuse, unsigned int max_idle_threads) {
  struct fuse_loop_config config = {.clone_fd = 0, .max_idle_threads = max_idle_threads};
  return fuse_loop_mt(fuse, &config);
}

// libfuse prints its errors on stderr; vault says what went wrong in one line of its own,
// so the last message is kept instead (its log function takes a va_list, which Swift
// cannot format).
static inline char *vault_fuse_last_log(void) {
  static char message[512];
  return message;
}

static inline void vault_fuse_keep_message(enum fuse_log_level level, const char *format, va_list arguments) {
  (void)level;
  vsnprintf(vault_fuse_last_log(), 512, format, arguments);
}

static inline void vault_fuse_capture_log(void) {
  vault_fuse_last_log()[0] = 0;
  fuse_set_log_func(vault_fuse_keep_message);
}
