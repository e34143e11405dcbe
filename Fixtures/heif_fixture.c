/* Writes a HEIC file with libheif's encoder (x265), which heif-enc cannot do: HEIF
 * orientation (irot/imir), several images with a chosen primary, an EXIF block beside
 * the orientation (as iPhones write), alpha. Used by generate.py.
 *
 * Usage: heif_fixture OUT.heic [-a] [-o ORIENTATION] [-p PRIMARY] [-x EXIF_ORIENTATION]
 *                     [-e EXIF_FILE] [-q QUALITY] IMAGE...
 * Each IMAGE is a raw picture: a text line "WIDTH HEIGHT CHANNELS\n" (3: RGB, 4: RGBA),
 * then WIDTH*HEIGHT*CHANNELS bytes. Images are encoded in order; PRIMARY (1-based) is the
 * primary one; ORIENTATION (1-8, EXIF's meaning) becomes irot/imir boxes on every image,
 * and an EXIF block with EXIF_ORIENTATION is attached to the primary image, or the EXIF
 * block in EXIF_FILE (a TIFF structure after 4 zero bytes, as add_exif writes). -a encodes
 * AV1 (an AVIF file) instead of HEVC. */
#include <libheif/heif.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void check(struct heif_error error, const char* what) {
  if (error.code != heif_error_Ok) {
    fprintf(stderr, "heif_fixture: %s: %s\n", what, error.message);
    exit(1);
  }
}

static struct heif_image* read_image(const char* path) {
  FILE* file = fopen(path, "rb");
  if (!file) {
    perror(path);
    exit(1);
  }
  int width, height, channels;
  if (fscanf(file, "%d %d %d", &width, &height, &channels) != 3 || fgetc(file) != '\n' ||
      (channels != 3 && channels != 4)) {
    fprintf(stderr, "heif_fixture: %s: bad header\n", path);
    exit(1);
  }
  struct heif_image* image;
  enum heif_chroma chroma = channels == 4 ? heif_chroma_interleaved_RGBA : heif_chroma_interleaved_RGB;
  check(heif_image_create(width, height, heif_colorspace_RGB, chroma, &image), "image");
  check(heif_image_add_plane(image, heif_channel_interleaved, width, height, 8), "plane");
  int stride;
  uint8_t* plane = heif_image_get_plane(image, heif_channel_interleaved, &stride);
  for (int y = 0; y < height; y++) {
    if (fread(plane + y * stride, 1, (size_t)width * channels, file) != (size_t)width * channels) {
      fprintf(stderr, "heif_fixture: %s: short\n", path);
      exit(1);
    }
  }
  fclose(file);
  return image;
}

/* A little-endian TIFF header and one IFD entry: Orientation. libheif wants the 4-byte
 * offset to the TIFF header in front (zero here). */
static void add_exif(struct heif_context* context, struct heif_image_handle* handle, int orientation) {
  uint8_t exif[] = {0, 0, 0, 0, 'I', 'I', 42, 0, 8, 0, 0, 0, 1, 0, 0x12, 0x01, 3, 0, 1, 0, 0, 0,
                    (uint8_t)orientation, 0, 0, 0, 0, 0, 0, 0};
  check(heif_context_add_exif_metadata(context, handle, exif, sizeof exif), "exif");
}

/* Attaches the EXIF block read from `path`. */
static void add_exif_file(struct heif_context* context, struct heif_image_handle* handle, const char* path) {
  FILE* file = fopen(path, "rb");
  if (!file) {
    perror(path);
    exit(1);
  }
  static uint8_t exif[1 << 16];
  size_t size = fread(exif, 1, sizeof exif, file);
  fclose(file);
  check(heif_context_add_exif_metadata(context, handle, exif, (int)size), "exif");
}

int main(int argc, char** argv) {
  int orientation = 1, primary = 1, exif_orientation = 0, quality = 90, option;
  const char* exif_file = NULL;
  enum heif_compression_format format = heif_compression_HEVC;
  while ((option = getopt(argc, argv, "ao:p:x:e:q:")) != -1) {
    switch (option) {
      case 'a': format = heif_compression_AV1; break;
      case 'o': orientation = atoi(optarg); break;
      case 'p': primary = atoi(optarg); break;
      case 'x': exif_orientation = atoi(optarg); break;
      case 'e': exif_file = optarg; break;
      case 'q': quality = atoi(optarg); break;
      default: return 2;
    }
  }
  if (argc - optind < 2) {
    fprintf(stderr, "usage: heif_fixture OUT.heic [-a] [-o N] [-p N] [-x N] [-e FILE] [-q N] IMAGE...\n");
    return 2;
  }
  const char* output = argv[optind];
  struct heif_context* context = heif_context_alloc();
  struct heif_encoder* encoder;
  check(heif_context_get_encoder_for_format(context, format, &encoder), "encoder");
  check(heif_encoder_set_lossy_quality(encoder, quality), "quality");
  /* Full-resolution colour, so that the quadrants' edges stay sharp in a tiny picture. */
  check(heif_encoder_set_parameter_string(encoder, "chroma", "444"), "chroma");
  struct heif_encoding_options* options = heif_encoding_options_alloc();
  options->image_orientation = (enum heif_orientation)orientation;
  /* A size that is not a multiple of the coding block gets a 'clap' crop, not a grid. */
  options->macOS_compatibility_workaround = 0;
  for (int index = optind + 1; index < argc; index++) {
    struct heif_image* image = read_image(argv[index]);
    struct heif_image_handle* handle;
    check(heif_context_encode_image(context, image, encoder, options, &handle), "encode");
    if (index - optind == primary) {
      check(heif_context_set_primary_image(context, handle), "primary");
      if (exif_orientation) add_exif(context, handle, exif_orientation);
      if (exif_file) add_exif_file(context, handle, exif_file);
    }
    heif_image_handle_release(handle);
    heif_image_release(image);
  }
  check(heif_context_write_to_file(context, output), "write");
  heif_encoding_options_free(options);
  heif_encoder_release(encoder);
  heif_context_free(context);
  return 0;
}
