#include "vault_imaging.h"

#include <png.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <unistd.h>

struct vault_png_reader {
  png_structp png;
  png_infop info;
  int descriptor; /* -1 when reading from memory */
  off_t offset;
  char message[VAULT_IMAGING_MESSAGE_LENGTH];
  uint32_t width;
  uint32_t height;
  uint32_t next_row;
  int last_pass_only;
  uint8_t *scratch_row;
  const uint8_t *memory;
  size_t memory_length;
  size_t memory_offset;
};

static void vault_png_error_function(png_structp png, png_const_charp text) {
  vault_png_reader *reader = png_get_error_ptr(png);
  snprintf(reader->message, sizeof reader->message, "%s", text);
  png_longjmp(png, 1);
}

static void vault_png_warning_function(png_structp png, png_const_charp text) {
  (void)png;
  (void)text;
}

/* Reads from the bytes given to vault_png_open_memory; running out is libpng's error. */
static void vault_png_read_memory(png_structp png, png_bytep data, size_t length) {
  vault_png_reader *reader = png_get_io_ptr(png);
  if (length > reader->memory_length - reader->memory_offset) png_error(png, "Read Error");
  memcpy(data, reader->memory + reader->memory_offset, length);
  reader->memory_offset += length;
}

/* Reads from the descriptor given to vault_png_open_descriptor with pread, from its own
 * offset; the file ending early is libpng's "Read Error". */
static void vault_png_read_descriptor(png_structp png, png_bytep data, size_t length) {
  vault_png_reader *reader = png_get_io_ptr(png);
  while (length > 0) {
    ssize_t count = pread(reader->descriptor, data, length, reader->offset);
    if (count < 0 && errno == EINTR) continue;
    if (count <= 0) png_error(png, "Read Error");
    reader->offset += count;
    data += count;
    length -= (size_t)count;
  }
}

/* Creates libpng's state and reads the header from the file or memory already set. */
static vault_png_reader *vault_png_start_reading(vault_png_reader *reader, char *error,
                                                 size_t error_length) {
  reader->png = png_create_read_struct(PNG_LIBPNG_VER_STRING, reader, vault_png_error_function,
                                       vault_png_warning_function);
  if (reader->png != NULL) reader->info = png_create_info_struct(reader->png);
  if (reader->png == NULL || reader->info == NULL) {
    snprintf(error, error_length, "out of memory");
    vault_png_close(reader);
    return NULL;
  }
  if (setjmp(png_jmpbuf(reader->png))) {
    snprintf(error, error_length, "%s", reader->message);
    vault_png_close(reader);
    return NULL;
  }
  /* The caller checks the pixel count against its own limit before decoding. */
  png_set_user_limits(reader->png, 0x7fffffff, 0x7fffffff);
  /* Chunks that a thumbnail does not use (text, colour profiles, EXIF) are skipped rather
   * than kept, so that the header's memory does not grow with the number of chunks. */
  static const png_byte ignored[] = "tEXt\0zTXt\0iTXt\0iCCP\0sPLT\0eXIf";
  png_set_keep_unknown_chunks(reader->png, PNG_HANDLE_CHUNK_NEVER, ignored,
                              (int)(sizeof ignored / 5));
  if (reader->descriptor >= 0)
    png_set_read_fn(reader->png, reader, vault_png_read_descriptor);
  else
    png_set_read_fn(reader->png, reader, vault_png_read_memory);
  png_read_info(reader->png, reader->info);
  reader->width = png_get_image_width(reader->png, reader->info);
  reader->height = png_get_image_height(reader->png, reader->info);
  return reader;
}

vault_png_reader *vault_png_open_descriptor(int descriptor, char *error, size_t error_length) {
  vault_png_reader *reader = calloc(1, sizeof *reader);
  if (reader == NULL) {
    snprintf(error, error_length, "out of memory");
    return NULL;
  }
  reader->descriptor = descriptor;
  return vault_png_start_reading(reader, error, error_length);
}

vault_png_reader *vault_png_open_memory(const uint8_t *bytes, size_t length, char *error,
                                        size_t error_length) {
  vault_png_reader *reader = calloc(1, sizeof *reader);
  if (reader == NULL) {
    snprintf(error, error_length, "out of memory");
    return NULL;
  }
  reader->descriptor = -1;
  reader->memory = bytes;
  reader->memory_length = length;
  return vault_png_start_reading(reader, error, error_length);
}

void vault_png_close(vault_png_reader *reader) {
  if (reader == NULL) return;
  if (reader->png != NULL) png_destroy_read_struct(&reader->png, &reader->info, NULL);
  free(reader->scratch_row);
  free(reader);
}

const char *vault_png_error(const vault_png_reader *reader) { return reader->message; }

uint32_t vault_png_width(const vault_png_reader *reader) { return reader->width; }

uint32_t vault_png_height(const vault_png_reader *reader) { return reader->height; }

int vault_png_is_interlaced(const vault_png_reader *reader) {
  return png_get_interlace_type(reader->png, reader->info) != PNG_INTERLACE_NONE;
}

int vault_png_start(vault_png_reader *reader, int last_pass_only) {
  png_structp png = reader->png;
  png_infop info = reader->info;
  if (setjmp(png_jmpbuf(png))) return -1;
  int color_type = png_get_color_type(png, info);
  int bit_depth = png_get_bit_depth(png, info);
  double file_gamma = 0;
  if (png_get_gAMA(png, info, &file_gamma)) png_set_gamma(png, PNG_DEFAULT_sRGB, file_gamma);
  if (color_type == PNG_COLOR_TYPE_PALETTE) png_set_palette_to_rgb(png);
  if (color_type == PNG_COLOR_TYPE_GRAY && bit_depth < 8) png_set_expand_gray_1_2_4_to_8(png);
  if (png_get_valid(png, info, PNG_INFO_tRNS)) png_set_tRNS_to_alpha(png);
  if (bit_depth == 16) png_set_scale_16(png);
  if (color_type == PNG_COLOR_TYPE_GRAY || color_type == PNG_COLOR_TYPE_GRAY_ALPHA)
    png_set_gray_to_rgb(png);
  png_set_filler(png, 0xff, PNG_FILLER_AFTER);
  reader->last_pass_only = last_pass_only && vault_png_is_interlaced(reader) && reader->height >= 2;
  if (vault_png_is_interlaced(reader) && !reader->last_pass_only) png_set_interlace_handling(png);
  png_read_update_info(png, info);
  if (reader->last_pass_only) {
    reader->scratch_row = malloc((size_t)reader->width * 4);
    if (reader->scratch_row == NULL) {
      snprintf(reader->message, sizeof reader->message, "out of memory");
      return -1;
    }
  }
  if (png_get_rowbytes(png, info) != (size_t)reader->width * 4) {
    snprintf(reader->message, sizeof reader->message, "unsupported pixel layout");
    return -1;
  }
  return 0;
}

int vault_png_read_rows(vault_png_reader *reader, uint8_t *rows, int max_rows) {
  if (setjmp(png_jmpbuf(reader->png))) return -1;
  size_t stride = (size_t)reader->width * 4;
  uint32_t row_count = reader->height;
  if (reader->last_pass_only) {
    /* libpng skips empty passes itself; rows of passes 1 to 6 are read and dropped. */
    while (png_get_current_pass_number(reader->png) < 6)
      png_read_row(reader->png, reader->scratch_row, NULL);
    row_count = reader->height / 2;
  }
  int count = 0;
  while (count < max_rows && reader->next_row < row_count) {
    png_read_row(reader->png, rows + stride * (size_t)count, NULL);
    reader->next_row += 1;
    count += 1;
  }
  return count;
}

int vault_png_read_image(vault_png_reader *reader, uint8_t *pixels) {
  png_bytep *rows = malloc(sizeof(png_bytep) * reader->height);
  if (rows == NULL) {
    snprintf(reader->message, sizeof reader->message, "out of memory");
    return -1;
  }
  for (uint32_t y = 0; y < reader->height; y++) rows[y] = pixels + (size_t)y * reader->width * 4;
  if (setjmp(png_jmpbuf(reader->png))) {
    free(rows);
    return -1;
  }
  png_read_image(reader->png, rows);
  free(rows);
  reader->next_row = reader->height;
  return 0;
}

int vault_png_finish(vault_png_reader *reader) {
  if (setjmp(png_jmpbuf(reader->png))) return -1;
  png_read_end(reader->png, NULL);
  return 0;
}
