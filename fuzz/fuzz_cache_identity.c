/* fuzz_cache_identity.c: the identity a cache keeps of its input (import.h, import_identity_change)
 * is read back from the cache, a file anyone can write (issue 33 H1: a stale cache printed another
 * trace's numbers). The input is two identities, the kept one and the current one, split at the
 * first NUL byte. The comparison must never read past either text, and must call them the same
 * exactly when they are the same text: any difference, a damaged kept identity included, imports
 * again. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "import.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = malloc(size + 2);
    if (!text)
        abort();
    memcpy(text, data, size);
    text[size] = text[size + 1] = '\0';
    const char *was = text, *is = text + strlen(text) + 1; /* "" when there is no NUL */
    int same = strcmp(was, is) == 0;
    if ((import_identity_change(was, is) == NULL) != same ||
        (import_identity_change(is, was) == NULL) != same)
        abort();
    if (import_identity_change(was, was) != NULL || import_identity_change(NULL, is) == NULL)
        abort();
    free(text);
    return 0;
}
