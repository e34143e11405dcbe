#ifndef VAULT_IMAGING_H
#define VAULT_IMAGING_H

#include <stddef.h>
#include <stdint.h>

/* Readers and a writer over libjpeg-turbo and libpng. Both libraries report fatal
 * errors by longjmp; every setjmp here sits in the C function that calls into the
 * library, so no jump ever crosses a Swift frame. Every function that can fail returns
 * a negative value or NULL and leaves a one-line message in the reader's error text. */

#define VAULT_IMAGING_MESSAGE_LENGTH 200

/* The most scans a progressive JPEG may have (libjpeg-turbo's TJFLAG_LIMITSCANS uses 500). */
#define VAULT_JPEG_SCAN_LIMIT 500

typedef struct vault_jpeg_reader vault_jpeg_reader;

/* Reads the header (and the APP1 segments) of a JPEG file through a descriptor the caller
 * opened and keeps open until the reader is closed; it is read with pread from offset 0,
 * so its file offset does not matter. On failure returns NULL and writes the reason into
 * error. */
vault_jpeg_reader *vault_jpeg_open_descriptor(int descriptor, char *error, size_t error_length);
/* The same for a JPEG in memory; the bytes must stay alive until the reader is closed. */
vault_jpeg_reader *vault_jpeg_open_memory(const uint8_t *bytes, size_t length, char *error,
                                          size_t error_length);
void vault_jpeg_close(vault_jpeg_reader *reader);
const char *vault_jpeg_error(const vault_jpeg_reader *reader);
/* The first non-fatal warning (corrupt data, premature end), or NULL. */
const char *vault_jpeg_warning(const vault_jpeg_reader *reader);
int vault_jpeg_warning_count(const vault_jpeg_reader *reader);
uint32_t vault_jpeg_width(const vault_jpeg_reader *reader);
uint32_t vault_jpeg_height(const vault_jpeg_reader *reader);
/* The APP1 segment at position index (0, 1, ...), or NULL past the last one. */
const uint8_t *vault_jpeg_app1(const vault_jpeg_reader *reader, size_t index, size_t *length);
int vault_jpeg_components(const vault_jpeg_reader *reader);
/* The bytes libjpeg will allocate at once for the whole picture's DCT coefficients when
 * decoding starts: 0 for a single-scan (baseline) picture, which it decodes a row of
 * blocks at a time. */
uint64_t vault_jpeg_coefficient_bytes(const vault_jpeg_reader *reader);
/* Starts decoding at 1/scale_denominator of the full size (1, 2, 4 or 8), always to
 * 8-bit RGB, with libjpeg's large buffers limited to memory_limit bytes (0: no limit).
 * With shrinks_further set (the rows will be averaged down to a smaller picture), the
 * faster, slightly less exact integer IDCT and plain chroma upsampling are used.
 * Returns 0 and the output size, or -1. */
int vault_jpeg_start(vault_jpeg_reader *reader, unsigned scale_denominator, uint64_t memory_limit,
                     int shrinks_further, uint32_t *output_width, uint32_t *output_height);
/* Reads up to max_rows rows of RGB into rows (output_width * 3 bytes a row). Returns
 * the number of rows read (0 at the end), or -1. */
int vault_jpeg_read_rows(vault_jpeg_reader *reader, uint8_t *rows, int max_rows);

typedef struct vault_png_reader vault_png_reader;

/* Reads the header of a PNG file through a descriptor, as vault_jpeg_open_descriptor. */
vault_png_reader *vault_png_open_descriptor(int descriptor, char *error, size_t error_length);
/* The same for a PNG in memory; the bytes must stay alive until the reader is closed. */
vault_png_reader *vault_png_open_memory(const uint8_t *bytes, size_t length, char *error,
                                        size_t error_length);
void vault_png_close(vault_png_reader *reader);
const char *vault_png_error(const vault_png_reader *reader);
uint32_t vault_png_width(const vault_png_reader *reader);
uint32_t vault_png_height(const vault_png_reader *reader);
int vault_png_is_interlaced(const vault_png_reader *reader);
/* Sets up the transformations to 8-bit RGBA (palettes, tRNS, low and high bit depths,
 * gray, gamma). With last_pass_only set, an interlaced image is not assembled: reading
 * yields only the rows of the last Adam7 pass (the odd rows, full width: height / 2 rows),
 * which needs one row of memory instead of the whole image. Returns 0 or -1. */
int vault_png_start(vault_png_reader *reader, int last_pass_only);
/* Reads up to max_rows rows of RGBA (width * 4 bytes a row) of a non-interlaced image,
 * or of the last pass of an interlaced one started with last_pass_only. Returns the
 * number of rows read (0 at the end), or -1. */
int vault_png_read_rows(vault_png_reader *reader, uint8_t *rows, int max_rows);
/* Reads the whole image (height rows of width * 4 bytes): interlaced images need it.
 * Returns 0 or -1. */
int vault_png_read_image(vault_png_reader *reader, uint8_t *pixels);
/* Reads the rest of the file after the image, so that its end is checked. Returns 0 or -1. */
int vault_png_finish(vault_png_reader *reader);

/* Encodes 8-bit RGB pixels as a baseline 4:4:4 JPEG in memory. On success returns 0 and a
 * buffer to release with vault_imaging_free. */
int vault_jpeg_encode_rgb(const uint8_t *pixels, uint32_t width, uint32_t height, int quality,
                          uint8_t **output, size_t *output_length, char *error,
                          size_t error_length);
void vault_imaging_free(void *pointer);

/* One output row of AreaResampler: output pixel x (RGB) is the sum over its taps of
 * weights[x * taps + tap] × the RGB sums of source pixel starts[x] + tap, rounded to the
 * nearest byte (halves up) and clamped. sums must hold starts[x] + taps pixels for
 * every x. */
void vault_average_columns(const float *sums, const int64_t *starts, const float *weights, int taps,
                           int width, uint8_t *output);

/* PNG writing, for kitty (f=100), in bands deflated on several threads at once. A PNG of
 * 8-bit RGB (channels 3) or RGBA (4) pixels, rows packed, with one filter on every row
 * (`vault_png_filter`): the head (signature, IHDR, the IDAT's start and zlib header), then
 * each band of rows [first, end) filtered and deflated on its own
 * (`vault_png_deflate_band`: its length, or -1 when it failed or did not fit in
 * `capacity`, which `vault_png_band_capacity` gives; the adler32 of its filtered rows in
 * `adler`, joined with `vault_png_adler_combine`), one after another, then the tail (the
 * zlib checksum, the IDAT's CRC, IEND). zlib's own buffers are wiped before they are
 * freed; `output` is the caller's to wipe. */
typedef enum { VAULT_PNG_FILTER_SUB = 1, VAULT_PNG_FILTER_AVERAGE = 3 } vault_png_filter;
size_t vault_png_band_capacity(uint32_t width, uint32_t rows, int channels);
long vault_png_deflate_band(const uint8_t *pixels, uint32_t width, uint32_t height, int channels,
                            vault_png_filter filter, uint32_t first, uint32_t end, uint8_t *output,
                            size_t capacity, uint32_t *adler);
uint32_t vault_png_adler_combine(uint32_t before, uint32_t after, size_t after_length);
size_t vault_png_head_length(void);
/* Writes the head at `png`; `deflated_length` is the bands' length together. */
void vault_png_write_head(uint32_t width, uint32_t height, int channels, size_t deflated_length, uint8_t *png);
size_t vault_png_tail_length(void);
/* Writes the tail after the head and the bands (`png` is where the head starts). */
void vault_png_write_tail(uint8_t *png, size_t deflated_length, uint32_t adler);

#endif
