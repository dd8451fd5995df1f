/*
 * Renders a saved capture (`pagesight capture URL -o FILE`) offline: no browser involved.
 *
 *   cc offline.c -I capi/include -L target/release -lpagesight -o offline
 *   LD_LIBRARY_PATH=target/release ./offline fixtures/captures/checkout.json.gz [a11y|dom]
 */
#include <stdio.h>
#include <stdlib.h>

#include "pagesight.h"

static unsigned char *read_file(const char *path, size_t *len) {
  FILE *f = fopen(path, "rb");
  if (f == NULL) return NULL;
  size_t cap = 1 << 16, used = 0;
  unsigned char *buf = malloc(cap);
  size_t n;
  while (buf != NULL && (n = fread(buf + used, 1, cap - used, f)) > 0) {
    used += n;
    if (used == cap) {
      unsigned char *bigger = realloc(buf, cap *= 2);
      if (bigger == NULL) free(buf);
      buf = bigger;
    }
  }
  fclose(f);
  *len = used;
  return buf;
}

int main(int argc, char **argv) {
  if (argc < 2 || argc > 3) {
    fprintf(stderr, "usage: %s CAPTURE_FILE [a11y|dom]\n", argv[0]);
    return 2;
  }
  size_t len = 0;
  unsigned char *bytes = read_file(argv[1], &len);
  if (bytes == NULL) {
    perror(argv[1]);
    return 1;
  }
  const char *mode = argc == 3 ? argv[2] : "a11y";

  char *out = NULL, *error = NULL;
  pagesight_result rc = pagesight_render_capture(bytes, len, mode, "text", &out, &error);
  free(bytes);
  if (rc != PAGESIGHT_OK) {
    fprintf(stderr, "render failed: %s: %s\n", pagesight_result_name(rc), error);
    pagesight_string_free(error);
    return 1;
  }
  fputs(out, stdout);
  pagesight_string_free(out);
  printf("pagesight %s\n", pagesight_version());
  return 0;
}
