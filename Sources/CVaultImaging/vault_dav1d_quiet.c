/* libavif hands AV1 to dav1d with dav1d's default settings, whose logger writes to stderr
 * ("Error parsing OBU data") whenever a damaged AVIF is decoded: a second, unworded line
 * beside vault's own one-line error. libavif offers no way to set dav1d's logger, so this
 * definition stands in for dav1d's own (the dynamic linker binds libavif's call to the
 * program's definition first), calls the real one, and removes the logger. Whoever sets a
 * logger of their own afterwards (FFmpeg's libdav1d wrapper does) keeps it. */
#define _GNU_SOURCE
#include <dav1d/dav1d.h>
#include <dlfcn.h>
#include <stddef.h>

void dav1d_default_settings(Dav1dSettings *settings) {
  static void (*real)(Dav1dSettings *) = NULL;
  if (real == NULL) real = (void (*)(Dav1dSettings *))dlsym(RTLD_NEXT, "dav1d_default_settings");
  if (real != NULL) real(settings);
  settings->logger.callback = NULL;
}
