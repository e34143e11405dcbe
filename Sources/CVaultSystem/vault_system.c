#define _GNU_SOURCE
#include "vault_system.h"

#include <fcntl.h>
#include <unistd.h>

#include <sys/prctl.h>
#include <sys/resource.h>

int vault_disable_core_dumps(void) {
  struct rlimit none = {0, 0};
  int status = setrlimit(RLIMIT_CORE, &none);
  if (prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) != 0) status = -1;
  return status;
}

int vault_start_writeback(int descriptor) {
  return sync_file_range(descriptor, 0, 0, SYNC_FILE_RANGE_WRITE);
}

int vault_make_wake_pipe(int descriptors[2]) {
  return pipe2(descriptors, O_CLOEXEC | O_NONBLOCK);
}

int vault_replace_descriptor(int source, int target) {
  return dup3(source, target, O_CLOEXEC);
}
