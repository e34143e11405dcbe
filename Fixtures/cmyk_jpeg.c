/* Writes an Adobe-style CMYK or YCCK JPEG (inverted ink values, Adobe marker) from a
 * binary PPM on stdin, for Fixtures/generate.py: cjpeg cannot write either.
 * Build: cc -o cmyk_jpeg cmyk_jpeg.c -ljpeg      Use: cmyk_jpeg cmyk|ycck < in.ppm > out.jpg */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <jpeglib.h>

int main(int argc, char **argv) {
  int width, height, maximum;
  if (argc != 2 || scanf("P6 %d %d %d", &width, &height, &maximum) != 3 || maximum != 255) {
    fprintf(stderr, "usage: cmyk_jpeg cmyk|ycck < in.ppm > out.jpg\n");
    return 2;
  }
  getchar();
  unsigned char *rgb = malloc((size_t)width * height * 3);
  if (fread(rgb, 3, (size_t)width * height, stdin) != (size_t)width * height) return 1;
  struct jpeg_compress_struct info;
  struct jpeg_error_mgr errors;
  info.err = jpeg_std_error(&errors);
  jpeg_create_compress(&info);
  jpeg_stdio_dest(&info, stdout);
  info.image_width = width;
  info.image_height = height;
  info.input_components = 4;
  info.in_color_space = JCS_CMYK;
  jpeg_set_defaults(&info);
  jpeg_set_colorspace(&info, strcmp(argv[1], "ycck") == 0 ? JCS_YCCK : JCS_CMYK);
  jpeg_set_quality(&info, 95, TRUE);
  jpeg_start_compress(&info, TRUE);
  unsigned char *row = malloc((size_t)width * 4);
  while (info.next_scanline < info.image_height) {
    for (int x = 0; x < width; x++) {
      const unsigned char *p = rgb + ((size_t)info.next_scanline * width + x) * 3;
      /* Adobe stores inverted ink: with K' = max(R,G,B), R = C'·K'/255 and so on. */
      int k = p[0] > p[1] ? p[0] : p[1];
      k = k > p[2] ? k : p[2];
      row[x * 4 + 3] = (unsigned char)k;
      for (int c = 0; c < 3; c++) row[x * 4 + c] = k == 0 ? 0 : (unsigned char)((p[c] * 255 + k / 2) / k);
    }
    JSAMPROW pointer = row;
    jpeg_write_scanlines(&info, &pointer, 1);
  }
  jpeg_finish_compress(&info);
  jpeg_destroy_compress(&info);
  free(row);
  free(rgb);
  return 0;
}
