/* The floor of reading files through a FUSE mount (Benchmarks/mount): a read-only
 * low-level libfuse3 file system holding plain files, their bytes served by pread
 * into a buffer and fuse_reply_buf, as vault's mount replies with what it decrypted, with the
 * same options and loop as vault's (multithreaded, keep_cache) and nothing decrypted. What
 * vault's mount takes beyond it is the decryption's share; no mount that decrypts can take
 * less.
 * Usage: fuse-floor MOUNTPOINT FILE...   (serves each FILE as MOUNTPOINT/ITS-NAME until
 * unmounted; inode 2 is the first FILE, 3 the next, and so on) */
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

struct served_file {
  const char *path;
  const char *name;
  off_t size;
};
static struct served_file *served;
static size_t served_count;

/* The file of `inode`, or NULL (the root, or no such inode). */
static struct served_file *served_file(fuse_ino_t inode) {
  return inode >= 2 && inode - 2 < served_count ? &served[inode - 2] : NULL;
}

static void fill_attributes(fuse_ino_t inode, struct stat *attributes) {
  memset(attributes, 0, sizeof *attributes);
  attributes->st_ino = inode;
  if (inode == FUSE_ROOT_ID) {
    attributes->st_mode = S_IFDIR | 0500;
    attributes->st_nlink = 2;
  } else {
    attributes->st_mode = S_IFREG | 0400;
    attributes->st_nlink = 1;
    attributes->st_size = served_file(inode)->size;
  }
  attributes->st_uid = getuid();
  attributes->st_gid = getgid();
}

static void floor_lookup(fuse_req_t request, fuse_ino_t parent, const char *name) {
  size_t index = 0;
  while (index < served_count && strcmp(name, served[index].name) != 0) index++;
  if (parent != FUSE_ROOT_ID || index == served_count) {
    fuse_reply_err(request, ENOENT);
    return;
  }
  struct fuse_entry_param entry = {.ino = index + 2, .attr_timeout = 3600, .entry_timeout = 3600};
  fill_attributes(entry.ino, &entry.attr);
  fuse_reply_entry(request, &entry);
}

static void floor_getattr(fuse_req_t request, fuse_ino_t inode, struct fuse_file_info *info) {
  (void)info;
  if (inode != FUSE_ROOT_ID && served_file(inode) == NULL) {
    fuse_reply_err(request, ENOENT);
    return;
  }
  struct stat attributes;
  fill_attributes(inode, &attributes);
  fuse_reply_attr(request, &attributes, 3600);
}

static void floor_open(fuse_req_t request, fuse_ino_t inode, struct fuse_file_info *info) {
  struct served_file *file = served_file(inode);
  int descriptor = file ? open(file->path, O_RDONLY) : -1;
  if (descriptor < 0) {
    fuse_reply_err(request, file ? errno : EISDIR);
    return;
  }
  info->fh = (uint64_t)descriptor;
  info->keep_cache = 1;
  fuse_reply_open(request, info);
}

static void floor_read(fuse_req_t request, fuse_ino_t inode, size_t size, off_t offset,
                       struct fuse_file_info *info) {
  (void)inode;
  char *buffer = malloc(size);
  ssize_t got = buffer ? pread((int)info->fh, buffer, size, offset) : -1;
  if (got < 0)
    fuse_reply_err(request, buffer ? errno : ENOMEM);
  else
    fuse_reply_buf(request, buffer, (size_t)got);
  free(buffer);
}

static void floor_release(fuse_req_t request, fuse_ino_t inode, struct fuse_file_info *info) {
  (void)inode;
  close((int)info->fh);
  fuse_reply_err(request, 0);
}

int main(int argc, char **argv) {
  if (argc < 3) {
    fprintf(stderr, "usage: fuse-floor MOUNTPOINT FILE...\n");
    return 2;
  }
  served_count = (size_t)argc - 2;
  served = calloc(served_count, sizeof *served);
  for (size_t index = 0; served && index < served_count; index++) {
    struct stat status;
    if (stat(argv[index + 2], &status) != 0) {
      perror(argv[index + 2]);
      return 1;
    }
    served[index] = (struct served_file){argv[index + 2], basename(strdup(argv[index + 2])), status.st_size};
  }
  char *options[] = {"fuse-floor", "-o", "ro,default_permissions,fsname=fuse-floor", NULL};
  struct fuse_args arguments = FUSE_ARGS_INIT(3, options);
  struct fuse_lowlevel_ops operations = {
      .lookup = floor_lookup,
      .getattr = floor_getattr,
      .open = floor_open,
      .read = floor_read,
      .release = floor_release};
  struct fuse_session *session = fuse_session_new(&arguments, &operations, sizeof operations, NULL);
  if (!served || !session || fuse_session_mount(session, argv[1]) != 0) return 1;
  fuse_set_signal_handlers(session);
  struct fuse_loop_config config = {.clone_fd = 0, .max_idle_threads = 16};
  int status = fuse_session_loop_mt(session, &config);
  fuse_remove_signal_handlers(session);
  fuse_session_unmount(session);
  fuse_session_destroy(session);
  return status == 0 ? 0 : 1;
}
