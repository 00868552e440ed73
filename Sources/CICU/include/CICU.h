#ifndef PROGRESSD_CICU_H
#define PROGRESSD_CICU_H

#include <stddef.h>

/* CLDR's default numbering system of a locale ("beng" for bn_BD) into `name`, from Debian's
 * ICU; 0 when ICU has none that fits. ICU's own headers stay in the .c file: Foundation's
 * bundled ICU declares the same types, and a Swift module can not import both. */
int icu_default_numbering_system(const char *locale, char *name, size_t size);

#endif
