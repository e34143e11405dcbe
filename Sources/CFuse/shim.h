#define FUSE_USE_VERSION 35
#include <fuse_lowlevel.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

// fuse_session_loop_mt is a macro over versioned symbols, which Swift cannot call.
static inline int vault_fuse_session_loop_mt(struct fuse_session *session, unsigned int max_idle_threads) {
  struct fuse_loop_config config = {.clone_fd = 0, .max_idle_threads = max_idle_threads};
  return fuse_session_loop_mt(session, &config);
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
