/* The floor of reading a file through a FUSE mount (Benchmarks/mount): a read-only
 * low-level libfuse3 file system holding one file, a plain file's bytes served by pread
 * into a buffer and fuse_reply_buf, as vault's mount replies with what it decrypted, with the
 * same options and loop as vault's (multithreaded, keep_cache) and nothing decrypted. What
 * vault's mount takes beyond it is the decryption's share; no mount that decrypts can take
 * less.
 * Usage: fuse-floor FILE MOUNTPOINT   (serves FILE as MOUNTPOINT/NAME until unmounted) */
#define FUSE_USE_VERSION 35
#include <errno.h>
#include <fcntl.h>
#include <fuse_lowlevel.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static int served_fd = -1;
static struct stat served;
static const char *served_name;

static void fill_attributes(fuse_ino_t inode, struct stat *attributes) {
  memset(attributes, 0, sizeof *attributes);
  attributes->st_ino = inode;
  if (inode == FUSE_ROOT_ID) {
    attributes->st_mode = S_IFDIR | 0500;
    attributes->st_nlink = 2;
  } else {
    attributes->st_mode = S_IFREG | 0400;
    attributes->st_nlink = 1;
    attributes->st_size = served.st_size;
  }
  attributes->st_uid = getuid();
  attributes->st_gid = getgid();
}

static void floor_lookup(fuse_req_t request, fuse_ino_t parent, const char *name) {
  if (parent != FUSE_ROOT_ID || strcmp(name, served_name) != 0) {
    fuse_reply_err(request, ENOENT);
    return;
  }
  struct fuse_entry_param entry = {.ino = 2, .attr_timeout = 3600, .entry_timeout = 3600};
  fill_attributes(2, &entry.attr);
  fuse_reply_entry(request, &entry);
}

static void floor_getattr(fuse_req_t request, fuse_ino_t inode, struct fuse_file_info *info) {
  (void)info;
  struct stat attributes;
  fill_attributes(inode, &attributes);
  fuse_reply_attr(request, &attributes, 3600);
}

static void floor_open(fuse_req_t request, fuse_ino_t inode, struct fuse_file_info *info) {
  if (inode != 2) {
    fuse_reply_err(request, EISDIR);
    return;
  }
  info->keep_cache = 1;
  fuse_reply_open(request, info);
}

static void floor_read(fuse_req_t request, fuse_ino_t inode, size_t size, off_t offset,
                       struct fuse_file_info *info) {
  (void)inode;
  (void)info;
  char *buffer = malloc(size);
  ssize_t got = buffer ? pread(served_fd, buffer, size, offset) : -1;
  if (got < 0)
    fuse_reply_err(request, buffer ? errno : ENOMEM);
  else
    fuse_reply_buf(request, buffer, (size_t)got);
  free(buffer);
}

int main(int argc, char **argv) {
  if (argc != 3) {
    fprintf(stderr, "usage: fuse-floor FILE MOUNTPOINT\n");
    return 2;
  }
  served_fd = open(argv[1], O_RDONLY);
  if (served_fd < 0 || fstat(served_fd, &served) != 0) {
    perror(argv[1]);
    return 1;
  }
  served_name = basename(strdup(argv[1]));
  char *options[] = {"fuse-floor", "-o", "ro,default_permissions,fsname=fuse-floor", NULL};
  struct fuse_args arguments = FUSE_ARGS_INIT(3, options);
  struct fuse_lowlevel_ops operations = {
      .lookup = floor_lookup, .getattr = floor_getattr, .open = floor_open, .read = floor_read};
  struct fuse_session *session = fuse_session_new(&arguments, &operations, sizeof operations, NULL);
  if (!session || fuse_session_mount(session, argv[2]) != 0) return 1;
  fuse_set_signal_handlers(session);
  struct fuse_loop_config config = {.clone_fd = 0, .max_idle_threads = 16};
  int status = fuse_session_loop_mt(session, &config);
  fuse_remove_signal_handlers(session);
  fuse_session_unmount(session);
  fuse_session_destroy(session);
  return status == 0 ? 0 : 1;
}
