#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "vault_imaging.h"

/* Zeroes `length` bytes about to be freed (volatile: a plain memset before free may be
 * left out by the compiler). */
static void vault_wipe(void *address, size_t length) {
  volatile uint8_t *bytes = (volatile uint8_t *)address;
  for (size_t index = 0; index < length; index++) bytes[index] = 0;
}

/* zlib's own buffers (its window and pending output hold the filtered pixels) are wiped
 * before they are freed: each allocation keeps its size in front of it. */
static voidpf vault_zlib_alloc(voidpf opaque, uInt items, uInt size) {
  (void)opaque;
  size_t bytes = (size_t)items * size;
  size_t *block = calloc(1, sizeof(size_t) + bytes);
  if (block == NULL) return Z_NULL;
  block[0] = bytes;
  return block + 1;
}

static void vault_zlib_free(voidpf opaque, voidpf address) {
  (void)opaque;
  if (address == Z_NULL) return;
  size_t *block = (size_t *)address - 1;
  vault_wipe(address, block[0]);
  free(block);
}

/* Row `row` filtered into `filtered` (its filter byte first). Average predicts from the
 * pixel to the left and the one above (0 outside the picture), Sub from the left only. */
static void vault_png_filter_row(const uint8_t *pixels, uint32_t width, int channels, vault_png_filter filter,
                                 uint32_t row, uint8_t *filtered) {
  size_t length = (size_t)width * (size_t)channels;
  const uint8_t *current = pixels + row * length;
  const uint8_t *above = row > 0 ? current - length : NULL;
  filtered[0] = (uint8_t)filter;
  for (size_t index = 0; index < length; index++) {
    unsigned left = index >= (size_t)channels ? current[index - channels] : 0;
    unsigned prediction = filter == VAULT_PNG_FILTER_SUB ? left : (left + (above ? above[index] : 0)) / 2;
    filtered[1 + index] = (uint8_t)(current[index] - prediction);
  }
}

size_t vault_png_band_capacity(uint32_t width, uint32_t rows, int channels) {
  /* zlib's worst case adds 5 bytes a 16 KiB block; a flush marker and slack besides. */
  size_t raw = (size_t)rows * (1 + (size_t)width * (size_t)channels);
  return raw + raw / 1024 * 6 + 64;
}

long vault_png_deflate_band(const uint8_t *pixels, uint32_t width, uint32_t height, int channels,
                            vault_png_filter filter, uint32_t first, uint32_t end, uint8_t *output,
                            size_t capacity, uint32_t *adler) {
  if (width == 0 || first >= end || end > height || (channels != 3 && channels != 4)) return -1;
  if (filter != VAULT_PNG_FILTER_SUB && filter != VAULT_PNG_FILTER_AVERAGE) return -1;
  size_t row_length = 1 + (size_t)width * (size_t)channels;
  uint8_t *filtered = calloc(1, row_length);
  if (filtered == NULL) return -1;
  z_stream stream;
  memset(&stream, 0, sizeof stream);
  stream.zalloc = vault_zlib_alloc;
  stream.zfree = vault_zlib_free;
  /* Speed first: one fixed filter (the caller's) and zlib's fastest level with run-length
   * matching take a tenth of the time the adaptive filters and level 6 take. Raw deflate
   * (negative window bits): the bands are joined into one zlib stream by the caller. */
  int status = deflateInit2(&stream, 1, Z_DEFLATED, -15, 8, Z_RLE);
  if (status != Z_OK) {
    free(filtered);
    return -1;
  }
  stream.next_out = output;
  stream.avail_out = (uInt)(capacity > UINT32_MAX ? UINT32_MAX : capacity);
  uLong checksum = adler32(0L, Z_NULL, 0);
  for (uint32_t row = first; row < end && status == Z_OK; row++) {
    vault_png_filter_row(pixels, width, channels, filter, row, filtered);
    checksum = adler32(checksum, filtered, (uInt)row_length);
    stream.next_in = filtered;
    stream.avail_in = (uInt)row_length;
    /* The last band ends the stream; the others end on a byte boundary, to be followed. */
    int last = row + 1 == end;
    int flush = !last ? Z_NO_FLUSH : (end == height ? Z_FINISH : Z_SYNC_FLUSH);
    status = deflate(&stream, flush);
    /* Room left over means zlib wrote all it had: `capacity` is its worst case. */
    if (status == Z_OK && (stream.avail_in != 0 || stream.avail_out == 0)) status = Z_BUF_ERROR;
    if (last && flush == Z_FINISH) status = status == Z_STREAM_END ? Z_OK : Z_BUF_ERROR;
  }
  long length = status == Z_OK ? (long)stream.total_out : -1;
  deflateEnd(&stream);
  vault_wipe(filtered, row_length);
  free(filtered);
  *adler = (uint32_t)checksum;
  return length;
}

uint32_t vault_png_adler_combine(uint32_t before, uint32_t after, size_t after_length) {
  return (uint32_t)adler32_combine(before, after, (z_off_t)after_length);
}

static void vault_put32(uint8_t *output, uint32_t value) {
  output[0] = (uint8_t)(value >> 24);
  output[1] = (uint8_t)(value >> 16);
  output[2] = (uint8_t)(value >> 8);
  output[3] = (uint8_t)value;
}

/* A chunk of `length` data bytes already at `chunk + 8`: its length, type and CRC. */
static size_t vault_png_chunk(uint8_t *chunk, const char *type, size_t length) {
  vault_put32(chunk, (uint32_t)length);
  memcpy(chunk + 4, type, 4);
  vault_put32(chunk + 8 + length, (uint32_t)crc32(crc32(0L, Z_NULL, 0), chunk + 4, (uInt)(4 + length)));
  return 12 + length;
}

size_t vault_png_head_length(void) { return 8 + 25 + 8 + 2; }

void vault_png_write_head(uint32_t width, uint32_t height, int channels, size_t deflated_length, uint8_t *output) {
  static const uint8_t signature[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1A, '\n'};
  memcpy(output, signature, 8);
  uint8_t *header = output + 8;
  vault_put32(header + 8, width);
  vault_put32(header + 12, height);
  header[16] = 8;                       /* bits a sample */
  header[17] = channels == 4 ? 6 : 2;   /* RGBA or RGB */
  header[18] = header[19] = header[20] = 0; /* deflate, adaptive filtering, not interlaced */
  vault_png_chunk(header, "IHDR", 13);
  /* One IDAT: the zlib header (deflate, 32 KiB window, fastest), the bands, the checksum. */
  vault_put32(output + 33, (uint32_t)(2 + deflated_length + 4));
  memcpy(output + 37, "IDAT", 4);
  output[41] = 0x78;
  output[42] = 0x01;
}

size_t vault_png_tail_length(void) { return 4 + 4 + 12; }

void vault_png_write_tail(uint8_t *png, size_t deflated_length, uint32_t adler) {
  uint8_t *tail = png + vault_png_head_length() + deflated_length;
  vault_put32(tail, adler);
  /* The IDAT's CRC covers its type and data: the zlib header, the bands, the checksum. */
  uint8_t *idat = png + 37;
  vault_put32(tail + 4, (uint32_t)crc32(crc32(0L, Z_NULL, 0), idat, (uInt)(4 + 2 + deflated_length + 4)));
  vault_png_chunk(tail + 8, "IEND", 0);
}
