#include "CICU.h"

#include <string.h>
#include <unicode/unumsys.h>

int icu_default_numbering_system(const char *locale, char *name, size_t size) {
    UErrorCode status = U_ZERO_ERROR;
    UNumberingSystem *system = unumsys_open(locale, &status);
    if (U_FAILURE(status) || system == NULL) return 0;
    const char *found = unumsys_getName(system);
    int fits = found != NULL && strlen(found) < size;
    if (fits) strcpy(name, found);
    unumsys_close(system);
    return fits;
}
