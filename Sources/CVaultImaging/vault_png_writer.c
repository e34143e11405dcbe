#include <png.h>
#include <setjmp.h>
#include <string.h>

#include "vault_imaging.h"

/* The caller's buffer, filled by libpng's writes; never grown (a reallocation would leave
 * a copy of what the pixels compressed to in freed memory): a PNG that does not fit fails. */
typedef struct {
  uint8_t *output;
  size_t capacity;
  size_t length;
  int overflowed;
} vault_png_sink;

static void vault_png_sink_write(png_structp png, png_bytep data, png_size_t count) {
  vault_png_sink *sink = png_get_io_ptr(png);
  if (sink->overflowed || count > sink->capacity - sink->length) {
    sink->overflowed = 1;
    return;
  }
  memcpy(sink->output + sink->length, data, count);
  sink->length += count;
}

static void vault_png_sink_flush(png_structp png) { (void)png; }

static void vault_png_writer_error(png_structp png, png_const_charp message) {
  (void)message;
  png_longjmp(png, 1);
}

static void vault_png_writer_warning(png_structp png, png_const_charp message) {
  (void)png;
  (void)message;
}

size_t vault_png_encoded_capacity(uint32_t width, uint32_t height, int channels) {
  /* Each row: a filter byte and the pixels; zlib's worst case adds 5 bytes a 16 KiB block;
   * the signature, the header, the end and an IDAT chunk header every 8 KiB besides. */
  size_t raw = (size_t)height * (1 + (size_t)width * (size_t)channels);
  return raw + raw / 1024 * 6 + 4096;
}

long vault_png_encode(const uint8_t *pixels, uint32_t width, uint32_t height, int channels, vault_png_filter filter,
                      uint8_t *output, size_t capacity) {
  if (width == 0 || height == 0 || (channels != 3 && channels != 4)) return -1;
  if (filter != VAULT_PNG_FILTER_SUB && filter != VAULT_PNG_FILTER_AVERAGE) return -1;
  vault_png_sink sink = {output, capacity, 0, 0};
  png_structp png =
      png_create_write_struct(PNG_LIBPNG_VER_STRING, NULL, vault_png_writer_error, vault_png_writer_warning);
  if (png == NULL) return -1;
  png_infop info = png_create_info_struct(png);
  if (info == NULL || setjmp(png_jmpbuf(png))) {
    png_destroy_write_struct(&png, &info);
    return -1;
  }
  png_set_write_fn(png, &sink, vault_png_sink_write, vault_png_sink_flush);
  png_set_IHDR(png, info, width, height, 8, channels == 4 ? PNG_COLOR_TYPE_RGB_ALPHA : PNG_COLOR_TYPE_RGB,
               PNG_INTERLACE_NONE, PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
  /* Speed first: one fixed filter (the caller's) and zlib's fastest level with run-length
   * matching take a tenth of the time the adaptive filters and level 6 take. */
  png_set_filter(png, PNG_FILTER_TYPE_BASE, filter == VAULT_PNG_FILTER_SUB ? PNG_FILTER_SUB : PNG_FILTER_AVG);
  png_set_compression_level(png, 1);
  png_set_compression_strategy(png, 3 /* Z_RLE */);
  png_write_info(png, info);
  size_t row_bytes = (size_t)width * (size_t)channels;
  for (uint32_t row = 0; row < height && !sink.overflowed; row++) {
    png_write_row(png, (png_const_bytep)(pixels + row * row_bytes));
  }
  if (!sink.overflowed) png_write_end(png, info);
  png_destroy_write_struct(&png, &info);
  return sink.overflowed ? -1 : (long)sink.length;
}
