/*
 * Launches a headless Chromium, opens a page and prints its accessibility snapshot.
 *
 *   cc snapshot.c -I capi/include -L target/release -lpagesight -o snapshot
 *   LD_LIBRARY_PATH=target/release ./snapshot fixtures/pages/forms.html
 */
#include <stdio.h>

#include "pagesight.h"

int main(int argc, char **argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: %s URL_OR_FILE\n", argv[0]);
    return 2;
  }
  pagesight_browser *browser = NULL;
  char *error = NULL;
  pagesight_result rc = pagesight_browser_launch(NULL, &browser, &error);
  if (rc != PAGESIGHT_OK) {
    fprintf(stderr, "launch failed: %s: %s\n", pagesight_result_name(rc), error);
    pagesight_string_free(error);
    return 1;
  }

  int status = 1;
  pagesight_page *page = NULL;
  rc = pagesight_page_open(browser, argv[1], &page);
  if (rc != PAGESIGHT_OK) {
    fprintf(stderr, "open failed: %s: %s\n", pagesight_result_name(rc),
            pagesight_browser_last_error(browser));
    goto done;
  }

  char *snapshot = NULL;
  rc = pagesight_page_snapshot(page, "a11y", "text", NULL, &snapshot);
  if (rc != PAGESIGHT_OK) {
    fprintf(stderr, "snapshot failed: %s: %s\n", pagesight_result_name(rc),
            pagesight_page_last_error(page));
    goto done;
  }
  fputs(snapshot, stdout);
  pagesight_string_free(snapshot);

  /* Any command of the JSON-lines protocol works the same way. */
  char *response = NULL;
  rc = pagesight_page_call(page, "{\"cmd\":\"pages\"}", &response);
  if (rc != PAGESIGHT_OK) {
    fprintf(stderr, "pages failed: %s: %s\n", pagesight_result_name(rc),
            pagesight_page_last_error(page));
    goto done;
  }
  printf("pages: %s\n", response);
  pagesight_string_free(response);
  status = 0;

done:
  pagesight_page_free(page); /* NULL is fine */
  pagesight_browser_free(browser);
  return status;
}
