/* Sizes read from a binary input file with fread (Parboil histo: fread(&img_width, sizeof(unsigned
 * int), 1, f)): only the scanf family's destinations were candidate parameters, so the image loop
 * was a constant (-94 % at 8x the pixels).
 * Usage: freadsize FILE (two unsigned ints: width, height) */
#include <stdio.h>
#include <stdlib.h>
int main(int argc, char **argv)
{
  unsigned int w, h;
  FILE *f = fopen(argv[1], "rb");
  if (fread(&w, sizeof w, 1, f) + fread(&h, sizeof h, 1, f) != 2) return 1;
  fclose(f);
  double *img = calloc((size_t)w * h, sizeof *img), s = 0;
  for (unsigned int i = 0; i < w * h; ++i) s += img[i] + i;
  printf("%g\n", s);
  return 0;
}
