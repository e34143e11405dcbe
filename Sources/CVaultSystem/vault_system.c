#define _GNU_SOURCE
#include "vault_system.h"

#include <errno.h>
#include <fcntl.h>
#include <spawn.h>
#include <string.h>
#include <sys/mman.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <sys/prctl.h>
#include <sys/sendfile.h>
#include <sys/resource.h>
#include <sys/wait.h>

// Debian 12's glibc headers predate Linux 6.3's flag.
#ifdef MFD_NOEXEC_SEAL
#define VAULT_MFD_NOEXEC_SEAL MFD_NOEXEC_SEAL
#else
#define VAULT_MFD_NOEXEC_SEAL 0x0008U
#endif

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

int vault_spawn_decoder(
    const char *path, char *const arguments[], char *const environment[], int socket, int *pid) {
  /* dup2 onto itself would keep the close-on-exec flag: a socket that is already 3 moves. */
  int source = socket == 3 ? fcntl(socket, F_DUPFD_CLOEXEC, 4) : socket;
  if (source < 0) return errno;
  posix_spawn_file_actions_t actions;
  int status = posix_spawn_file_actions_init(&actions);
  if (status != 0) {
    if (source != socket) close(source);
    return status;
  }
  status = posix_spawn_file_actions_adddup2(&actions, source, 3);
  if (status == 0) status = posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
  if (status == 0) status = posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0);
  /* Not vault's stderr, which may be the user's terminal: what a helper taken over by a
   * crafted file wrote there could be escape sequences. The parent words every death of a
   * helper itself (DecoderDeath), so the helper's own messages are not needed; /dev/null
   * also takes them without RLIMIT_FSIZE 0 (which holds for regular files only). */
  if (status == 0) status = posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0);
  if (status == 0) status = posix_spawn_file_actions_addclosefrom_np(&actions, 4);
  if (status == 0) {
    pid_t child = 0;
    status = posix_spawn(&child, path, &actions, NULL, arguments, environment);
    if (status == 0) *pid = child;
  }
  posix_spawn_file_actions_destroy(&actions);
  if (source != socket) close(source);
  return status;
}

int vault_spawn_tool(
    const char *path, char *const arguments[], char *const environment[], int output, int errors, int *pid) {
  int ready[2];
  if (pipe2(ready, O_CLOEXEC) != 0) return errno;
  pid_t parent = getpid();
  pid_t child = fork();
  if (child < 0) {
    int saved = errno;
    close(ready[0]);
    close(ready[1]);
    return saved;
  }
  if (child == 0) {
    /* Only async-signal-safe calls from here: the parent has other threads. */
    int status = 0;
    if (prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0) != 0 || getppid() != parent) status = ESRCH;
    /* The tool gets signals as any program does, whatever the starting thread blocked. */
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, NULL);
    /* What the tool makes (a restore's folders and files) is the owner's only, as vault's own. */
    umask(077);
    int input = open("/dev/null", O_RDONLY | O_CLOEXEC);
    if (status == 0 && input < 0) status = errno;
    if (status == 0 && (dup2(input, 0) < 0 || dup2(output, 1) < 0 || dup2(errors, 2) < 0)) status = errno;
    /* The end that says why exec failed becomes 3 (exec closes it), everything above goes. */
    int report = ready[1];
    if (status == 0 && report != 3) {
      if (dup3(report, 3, O_CLOEXEC) < 0) {
        status = errno;
      } else {
        report = 3;
      }
    }
    if (status == 0) {
      closefrom(4);
      execve(path, arguments, environment);
      status = errno;
    }
    (void)!write(report, &status, sizeof status);
    _exit(127);
  }
  close(ready[1]);
  int status = 0;
  long count;
  do {
    count = read(ready[0], &status, sizeof status);
  } while (count < 0 && errno == EINTR);
  close(ready[0]);
  if (count == (long)sizeof status && status != 0) {
    int reaped;
    while (waitpid(child, &reaped, 0) < 0 && errno == EINTR) {}
    return status;
  }
  *pid = child;
  return 0;
}

int vault_make_socket_pair(int descriptors[2]) {
  return socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, descriptors);
}

long vault_send_with_descriptor(
    int socket, const void *bytes, unsigned long count, int descriptor, int flags) {
  struct iovec vector = {(void *)bytes, count};
  union {
    char buffer[CMSG_SPACE(sizeof(int))];
    struct cmsghdr align;
  } control;
  memset(&control, 0, sizeof control);
  struct msghdr message = {0};
  message.msg_iov = &vector;
  message.msg_iovlen = 1;
  message.msg_control = control.buffer;
  message.msg_controllen = sizeof control.buffer;
  struct cmsghdr *header = CMSG_FIRSTHDR(&message);
  header->cmsg_level = SOL_SOCKET;
  header->cmsg_type = SCM_RIGHTS;
  header->cmsg_len = CMSG_LEN(sizeof(int));
  memcpy(CMSG_DATA(header), &descriptor, sizeof(int));
  return sendmsg(socket, &message, flags);
}

long vault_receive_with_descriptor(int socket, void *bytes, unsigned long count, int *descriptor) {
  *descriptor = -1;
  struct iovec vector = {bytes, count};
  /* Room for several descriptors, so that a peer that sends more than one is seen doing it
   * (and each is closed) rather than having the extra ones cut off unseen. */
  union {
    char buffer[CMSG_SPACE(sizeof(int) * 16)];
    struct cmsghdr align;
  } control;
  struct msghdr message = {0};
  message.msg_iov = &vector;
  message.msg_iovlen = 1;
  message.msg_control = control.buffer;
  message.msg_controllen = sizeof control.buffer;
  long received = recvmsg(socket, &message, MSG_CMSG_CLOEXEC);
  if (received < 0) return received;
  int found = 0;
  int unexpected = (message.msg_flags & MSG_CTRUNC) != 0;
  for (struct cmsghdr *header = CMSG_FIRSTHDR(&message); header != NULL;
       header = CMSG_NXTHDR(&message, header)) {
    if (header->cmsg_level != SOL_SOCKET || header->cmsg_type != SCM_RIGHTS) {
      unexpected = 1;
      continue;
    }
    size_t carried = (header->cmsg_len - CMSG_LEN(0)) / sizeof(int);
    for (size_t i = 0; i < carried; i++) {
      int each;
      memcpy(&each, CMSG_DATA(header) + i * sizeof(int), sizeof(int));
      if (found == 0 && *descriptor < 0) {
        *descriptor = each;
      } else {
        close(each);
      }
      found++;
    }
  }
  if (unexpected || found > 1) {
    if (*descriptor >= 0) close(*descriptor);
    *descriptor = VAULT_UNEXPECTED_DESCRIPTORS;
  }
  return received;
}

int vault_make_sealable_memory(const char *name, unsigned long size) {
  // Never executable (Linux 6.3+; older kernels refuse the flag, and get a plain memfd).
  int descriptor = memfd_create(name, MFD_CLOEXEC | MFD_ALLOW_SEALING | VAULT_MFD_NOEXEC_SEAL);
  if (descriptor < 0 && errno == EINVAL) descriptor = memfd_create(name, MFD_CLOEXEC | MFD_ALLOW_SEALING);
  if (descriptor < 0) return -1;
  if (ftruncate(descriptor, (off_t)size) != 0) {
    int saved = errno;
    close(descriptor);
    errno = saved;
    return -1;
  }
  return descriptor;
}

int vault_make_sealed_memory(unsigned long size) {
  int descriptor = vault_make_sealable_memory("vault-picture", size);
  if (descriptor < 0) return -1;
  if (fcntl(descriptor, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL) != 0) {
    int saved = errno;
    close(descriptor);
    errno = saved;
    return -1;
  }
  return descriptor;
}

int vault_seal_contents(int descriptor) {
  return fcntl(descriptor, F_ADD_SEALS, F_SEAL_WRITE | F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL);
}

long vault_copy_file(int target, int source, unsigned long count) {
  off_t offset = 0;
  while ((unsigned long)offset < count) {
    ssize_t sent = sendfile(target, source, &offset, count - (unsigned long)offset);
    if (sent < 0) {
      if (errno == EINTR) continue;
      return -1;
    }
    if (sent == 0) break;
  }
  return (long)offset;
}
