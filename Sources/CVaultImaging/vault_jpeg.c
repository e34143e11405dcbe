#include "vault_imaging.h"

#include <stdio.h> /* before jpeglib.h, which uses FILE */
#include <jpeglib.h>
#include <jerror.h>
#include <setjmp.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <unistd.h>

struct vault_jpeg_error_manager {
  struct jpeg_error_mgr base;
  jmp_buf jump;
  char message[VAULT_IMAGING_MESSAGE_LENGTH];
  char warning[VAULT_IMAGING_MESSAGE_LENGTH];
  int warning_count;
};

/* Reads a file through a descriptor the caller opened, with pread from its own offset:
 * the path is never opened again, and the descriptor's file offset is left alone. */
struct vault_jpeg_descriptor_source {
  struct jpeg_source_mgr base;
  int descriptor;
  off_t offset;
  JOCTET buffer[65536];
};

/* An APP1 segment kept for the caller (EXIF, XMP), in libjpeg's permanent pool. */
struct vault_jpeg_segment {
  struct vault_jpeg_segment *next;
  size_t length;
  uint8_t data[];
};

/* At most this many bytes of APP1 segments are kept; further ones are skipped, so that a
 * file made of markers cannot make its header take memory in proportion to its size. */
#define VAULT_JPEG_APP1_LIMIT (1 << 20)

struct vault_jpeg_reader {
  struct jpeg_decompress_struct info; /* first: the marker processor casts back to it */
  struct vault_jpeg_segment *app1_first;
  struct vault_jpeg_segment *app1_last;
  size_t app1_bytes;
  struct vault_jpeg_error_manager errors;
  struct jpeg_progress_mgr progress;
  struct vault_jpeg_descriptor_source *source;
  int started;
  int is_cmyk;
  int inverted_cmyk;
  uint8_t *cmyk_row;
};

/* A progressive JPEG of a few hundred kilobytes can hold thousands of scans, each a pass
 * over every block of the picture: minutes of CPU for one small file. Real encoders write
 * about ten; like libjpeg-turbo's TJFLAG_LIMITSCANS, more than VAULT_JPEG_SCAN_LIMIT is
 * refused. libjpeg calls this between scans. */
static void vault_jpeg_progress(j_common_ptr info) {
  j_decompress_ptr decompress = (j_decompress_ptr)info;
  if (info->is_decompressor && decompress->input_scan_number > VAULT_JPEG_SCAN_LIMIT) {
    struct vault_jpeg_error_manager *errors = (struct vault_jpeg_error_manager *)info->err;
    snprintf(errors->message, sizeof errors->message,
             "a progressive JPEG of more than %d scans (a decompression bomb)",
             VAULT_JPEG_SCAN_LIMIT);
    longjmp(errors->jump, 1);
  }
}

static void vault_jpeg_error_exit(j_common_ptr info) {
  struct vault_jpeg_error_manager *errors = (struct vault_jpeg_error_manager *)info->err;
  char text[JMSG_LENGTH_MAX];
  errors->base.format_message(info, text);
  snprintf(errors->message, sizeof errors->message, "%s", text);
  longjmp(errors->jump, 1);
}

static void vault_jpeg_emit_message(j_common_ptr info, int level) {
  struct vault_jpeg_error_manager *errors = (struct vault_jpeg_error_manager *)info->err;
  if (level >= 0) return; /* trace messages */
  if (errors->warning_count == 0) {
    char text[JMSG_LENGTH_MAX];
    errors->base.format_message(info, text);
    snprintf(errors->warning, sizeof errors->warning, "%s", text);
  }
  errors->warning_count += 1;
}

static void vault_jpeg_output_message(j_common_ptr info) { (void)info; }

static void set_error(char *error, size_t error_length, const char *text) {
  if (error != NULL && error_length > 0) snprintf(error, error_length, "%s", text);
}

static void vault_jpeg_source_init(j_decompress_ptr info) { (void)info; }

static boolean vault_jpeg_source_fill(j_decompress_ptr info) {
  struct vault_jpeg_descriptor_source *source = (struct vault_jpeg_descriptor_source *)info->src;
  ssize_t count;
  do {
    count = pread(source->descriptor, source->buffer, sizeof source->buffer, source->offset);
  } while (count < 0 && errno == EINTR);
  if (count < 0) ERREXIT(info, JERR_FILE_READ);
  if (count == 0) {
    /* As libjpeg's own stdio source does: warn, and end the picture there. */
    WARNMS(info, JWRN_JPEG_EOF);
    source->buffer[0] = (JOCTET)0xFF;
    source->buffer[1] = (JOCTET)JPEG_EOI;
    count = 2;
  } else {
    source->offset += count;
  }
  source->base.next_input_byte = source->buffer;
  source->base.bytes_in_buffer = (size_t)count;
  return TRUE;
}

static void vault_jpeg_source_skip(j_decompress_ptr info, long count) {
  struct jpeg_source_mgr *source = info->src;
  if (count <= 0) return;
  while (count > (long)source->bytes_in_buffer) {
    count -= (long)source->bytes_in_buffer;
    (void)source->fill_input_buffer(info);
  }
  source->next_input_byte += count;
  source->bytes_in_buffer -= (size_t)count;
}

static void vault_jpeg_source_term(j_decompress_ptr info) { (void)info; }

/* The next byte from the source; the sources used here never suspend. */
static unsigned vault_jpeg_next_byte(j_decompress_ptr info) {
  struct jpeg_source_mgr *source = info->src;
  if (source->bytes_in_buffer == 0) (void)source->fill_input_buffer(info);
  source->bytes_in_buffer -= 1;
  return *source->next_input_byte++;
}

/* Keeps the first APP1 segments, up to VAULT_JPEG_APP1_LIMIT bytes in all, and skips
 * every one from the first that does not fit. */
static boolean vault_jpeg_read_app1(j_decompress_ptr info) {
  vault_jpeg_reader *reader = (vault_jpeg_reader *)info;
  unsigned high = vault_jpeg_next_byte(info);
  long length = (long)(high << 8 | vault_jpeg_next_byte(info)) - 2;
  if (length < 0) ERREXIT(info, JERR_BAD_LENGTH);
  if (reader->app1_bytes + (size_t)length > VAULT_JPEG_APP1_LIMIT) {
    reader->app1_bytes = VAULT_JPEG_APP1_LIMIT; /* the first segments only, in order */
    if (length > 0) info->src->skip_input_data(info, length);
    return TRUE;
  }
  struct vault_jpeg_segment *segment = (*info->mem->alloc_large)(
      (j_common_ptr)info, JPOOL_PERMANENT, sizeof *segment + (size_t)length);
  segment->next = NULL;
  segment->length = (size_t)length;
  size_t filled = 0;
  while (filled < segment->length) {
    struct jpeg_source_mgr *source = info->src;
    if (source->bytes_in_buffer == 0) (void)source->fill_input_buffer(info);
    size_t take = segment->length - filled;
    if (take > source->bytes_in_buffer) take = source->bytes_in_buffer;
    memcpy(segment->data + filled, source->next_input_byte, take);
    source->next_input_byte += take;
    source->bytes_in_buffer -= take;
    filled += take;
  }
  if (reader->app1_last != NULL)
    reader->app1_last->next = segment;
  else
    reader->app1_first = segment;
  reader->app1_last = segment;
  reader->app1_bytes += segment->length;
  return TRUE;
}

/* Reads the header from the descriptor (if source is set) or the bytes; NULL on failure. */
static vault_jpeg_reader *vault_jpeg_start_reading(vault_jpeg_reader *reader,
                                                   const uint8_t *bytes, size_t length,
                                                   char *error, size_t error_length) {
  reader->info.err = jpeg_std_error(&reader->errors.base);
  reader->errors.base.error_exit = vault_jpeg_error_exit;
  reader->errors.base.emit_message = vault_jpeg_emit_message;
  reader->errors.base.output_message = vault_jpeg_output_message;
  if (setjmp(reader->errors.jump)) {
    set_error(error, error_length, reader->errors.message);
    vault_jpeg_close(reader);
    return NULL;
  }
  jpeg_create_decompress(&reader->info);
  reader->progress.progress_monitor = vault_jpeg_progress;
  reader->info.progress = &reader->progress;
  if (reader->source != NULL) {
    struct vault_jpeg_descriptor_source *source = reader->source;
    source->base.init_source = vault_jpeg_source_init;
    source->base.fill_input_buffer = vault_jpeg_source_fill;
    source->base.skip_input_data = vault_jpeg_source_skip;
    source->base.resync_to_restart = jpeg_resync_to_restart;
    source->base.term_source = vault_jpeg_source_term;
    source->base.bytes_in_buffer = 0;
    source->base.next_input_byte = NULL;
    reader->info.src = &source->base;
  } else
    jpeg_mem_src(&reader->info, bytes, (unsigned long)length);
  jpeg_set_marker_processor(&reader->info, JPEG_APP0 + 1, vault_jpeg_read_app1);
  jpeg_read_header(&reader->info, TRUE);
  return reader;
}

vault_jpeg_reader *vault_jpeg_open_descriptor(int descriptor, char *error, size_t error_length) {
  vault_jpeg_reader *reader = calloc(1, sizeof *reader);
  if (reader != NULL) reader->source = calloc(1, sizeof *reader->source);
  if (reader == NULL || reader->source == NULL) {
    set_error(error, error_length, "out of memory");
    free(reader);
    return NULL;
  }
  reader->source->descriptor = descriptor;
  return vault_jpeg_start_reading(reader, NULL, 0, error, error_length);
}

vault_jpeg_reader *vault_jpeg_open_memory(const uint8_t *bytes, size_t length, char *error,
                                          size_t error_length) {
  vault_jpeg_reader *reader = calloc(1, sizeof *reader);
  if (reader == NULL) {
    set_error(error, error_length, "out of memory");
    return NULL;
  }
  return vault_jpeg_start_reading(reader, bytes, length, error, error_length);
}

void vault_jpeg_close(vault_jpeg_reader *reader) {
  if (reader == NULL) return;
  jpeg_destroy_decompress(&reader->info);
  free(reader->source);
  free(reader->cmyk_row);
  free(reader);
}

const char *vault_jpeg_error(const vault_jpeg_reader *reader) { return reader->errors.message; }

const char *vault_jpeg_warning(const vault_jpeg_reader *reader) {
  return reader->errors.warning_count > 0 ? reader->errors.warning : NULL;
}

int vault_jpeg_warning_count(const vault_jpeg_reader *reader) {
  return reader->errors.warning_count;
}

uint32_t vault_jpeg_width(const vault_jpeg_reader *reader) { return reader->info.image_width; }

uint32_t vault_jpeg_height(const vault_jpeg_reader *reader) { return reader->info.image_height; }

const uint8_t *vault_jpeg_app1(const vault_jpeg_reader *reader, size_t index, size_t *length) {
  size_t position = 0;
  for (const struct vault_jpeg_segment *segment = reader->app1_first; segment != NULL;
       segment = segment->next) {
    if (position == index) {
      *length = segment->length;
      return segment->data;
    }
    position += 1;
  }
  return NULL;
}

uint64_t vault_jpeg_coefficient_bytes(const vault_jpeg_reader *reader) {
  const struct jpeg_decompress_struct *info = &reader->info;
  /* Only a picture in several scans (progressive, or sequential with non-interleaved
   * scans) is buffered whole, as libjpeg's jdcoefct.c allocates it: per component,
   * blocks rounded up to its sampling factors, 64 coefficients of 2 bytes each. */
  if (!jpeg_has_multiple_scans((j_decompress_ptr)info)) return 0;
  uint64_t total = 0;
  for (int index = 0; index < info->num_components; index++) {
    const jpeg_component_info *component = &info->comp_info[index];
    uint64_t width = component->width_in_blocks, height = component->height_in_blocks;
    uint64_t h = (uint64_t)component->h_samp_factor, v = (uint64_t)component->v_samp_factor;
    total += (width + h - 1) / h * h * ((height + v - 1) / v * v) * 64 * sizeof(JCOEF);
  }
  return total;
}

int vault_jpeg_components(const vault_jpeg_reader *reader) { return reader->info.num_components; }

int vault_jpeg_start(vault_jpeg_reader *reader, unsigned scale_denominator, uint64_t memory_limit,
                     int shrinks_further, uint32_t *output_width, uint32_t *output_height) {
  if (setjmp(reader->errors.jump)) return -1;
  struct jpeg_decompress_struct *info = &reader->info;
  /* libjpeg refuses (it has no backing store) to allocate its whole-image buffers past
   * this: a second fence behind the caller's estimate. */
  if (memory_limit > 0) info->mem->max_memory_to_use = (long)memory_limit;
  info->scale_num = 1;
  info->scale_denom = scale_denominator;
  if (shrinks_further) {
    /* The rows are averaged down further, which hides the small differences of the fast
     * integer IDCT and of plain chroma upsampling (the merged upsampler, which also
     * converts the colours in the same pass). Each only applies where an 8×8 IDCT or an
     * upsampling is still done at this scale: at 1/4 of a 4:2:0 photo there are neither. */
    info->dct_method = JDCT_IFAST;
    info->do_fancy_upsampling = FALSE;
  } else {
    info->dct_method = JDCT_ISLOW;
  }
  if (info->jpeg_color_space == JCS_CMYK || info->jpeg_color_space == JCS_YCCK) {
    /* libjpeg converts YCCK to CMYK but not CMYK to RGB; Adobe writes CMYK inverted. */
    info->out_color_space = JCS_CMYK;
    reader->is_cmyk = 1;
    reader->inverted_cmyk = info->saw_Adobe_marker;
  } else {
    info->out_color_space = JCS_RGB;
  }
  jpeg_start_decompress(info);
  if (reader->is_cmyk) {
    reader->cmyk_row = malloc((size_t)info->output_width * 4);
    if (reader->cmyk_row == NULL) {
      snprintf(reader->errors.message, sizeof reader->errors.message, "out of memory");
      return -1;
    }
  }
  reader->started = 1;
  *output_width = info->output_width;
  *output_height = info->output_height;
  return 0;
}

int vault_jpeg_read_rows(vault_jpeg_reader *reader, uint8_t *rows, int max_rows) {
  if (setjmp(reader->errors.jump)) return -1;
  struct jpeg_decompress_struct *info = &reader->info;
  size_t stride = (size_t)info->output_width * 3;
  int count = 0;
  while (count < max_rows && info->output_scanline < info->output_height) {
    uint8_t *row = rows + stride * (size_t)count;
    if (reader->is_cmyk) {
      JSAMPROW samples = reader->cmyk_row;
      if (jpeg_read_scanlines(info, &samples, 1) != 1) break;
      for (JDIMENSION x = 0; x < info->output_width; x++) {
        unsigned c = reader->cmyk_row[x * 4], m = reader->cmyk_row[x * 4 + 1],
                 y = reader->cmyk_row[x * 4 + 2], k = reader->cmyk_row[x * 4 + 3];
        if (!reader->inverted_cmyk) {
          c = 255 - c; m = 255 - m; y = 255 - y; k = 255 - k;
        }
        row[x * 3] = (uint8_t)((c * k + 127) / 255);
        row[x * 3 + 1] = (uint8_t)((m * k + 127) / 255);
        row[x * 3 + 2] = (uint8_t)((y * k + 127) / 255);
      }
      count += 1;
    } else {
      /* As many rows as libjpeg has ready at once (two for the merged upsampler). */
      JSAMPROW samples[16];
      int wanted = max_rows - count;
      if (wanted > 16) wanted = 16;
      for (int index = 0; index < wanted; index++) samples[index] = row + stride * (size_t)index;
      JDIMENSION read = jpeg_read_scanlines(info, samples, (JDIMENSION)wanted);
      if (read == 0) break;
      count += (int)read;
    }
  }
  return count;
}

int vault_jpeg_encode_rgb(const uint8_t *pixels, uint32_t width, uint32_t height, int quality,
                          uint8_t **output, size_t *output_length, char *error,
                          size_t error_length) {
  struct jpeg_compress_struct info;
  struct vault_jpeg_error_manager errors;
  /* volatile: they change between setjmp and a possible longjmp. */
  unsigned char *volatile buffer = NULL;
  volatile unsigned long buffer_length = 0;
  memset(&info, 0, sizeof info);
  memset(&errors, 0, sizeof errors);
  info.err = jpeg_std_error(&errors.base);
  errors.base.error_exit = vault_jpeg_error_exit;
  errors.base.emit_message = vault_jpeg_emit_message;
  errors.base.output_message = vault_jpeg_output_message;
  if (setjmp(errors.jump)) {
    set_error(error, error_length, errors.message);
    jpeg_destroy_compress(&info);
    free(buffer);
    return -1;
  }
  jpeg_create_compress(&info);
  unsigned char *destination = NULL;
  unsigned long destination_length = 0;
  jpeg_mem_dest(&info, &destination, &destination_length);
  info.image_width = width;
  info.image_height = height;
  info.input_components = 3;
  info.in_color_space = JCS_RGB;
  jpeg_set_defaults(&info);
  jpeg_set_quality(&info, quality, TRUE);
  /* Full-resolution colour (4:4:4): thumbnails are small, and halving the chroma smears
   * saturated edges visibly at this size, for few bytes saved. */
  for (int component = 0; component < info.num_components; component++) {
    info.comp_info[component].h_samp_factor = 1;
    info.comp_info[component].v_samp_factor = 1;
  }
  jpeg_start_compress(&info, TRUE);
  while (info.next_scanline < info.image_height) {
    JSAMPROW row = (JSAMPROW)(pixels + (size_t)info.next_scanline * width * 3);
    jpeg_write_scanlines(&info, &row, 1);
  }
  jpeg_finish_compress(&info);
  buffer = destination;
  buffer_length = destination_length;
  jpeg_destroy_compress(&info);
  *output = buffer;
  *output_length = buffer_length;
  return 0;
}

void vault_imaging_free(void *pointer) { free(pointer); }
