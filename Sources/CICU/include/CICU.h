#ifndef PROGRESSD_CICU_H
#define PROGRESSD_CICU_H

#include <stddef.h>
#include <stdint.h>

/* Debian's ICU (CLDR's data) for every number, size, duration and direction progressd
 * writes. ICU's own headers stay in the .c files, so that Swift sees only these plain C
 * signatures. Text crosses as UTF-8; a function that writes text returns its length in
 * bytes, or -1 when ICU failed or `capacity` was too small. */

/* CLDR's default numbering system of a locale ("beng" for bn_BD) into `name`; 0 when ICU
 * has none that fits. */
int icu_default_numbering_system(const char *locale, char *name, size_t size);

/* A number formatter for one locale and one ICU number skeleton ("percent", ".##",
 * "measure-unit/digital-megabyte"), opened once and used for many numbers; NULL when the
 * locale or skeleton is refused. Not thread-safe: one formatter per thread. */
typedef struct icu_number_format icu_number_format;
icu_number_format *icu_number_format_open(const char *locale, const char *skeleton);
void icu_number_format_close(icu_number_format *format);
int icu_number_format_double(icu_number_format *format, double value, char *out, int capacity);
/* `decimal` is a number as ASCII digits ("18446744073709551615"), formatted exactly. */
int icu_number_format_decimal(icu_number_format *format, const char *decimal, char *out, int capacity);

/* CLDR's list of units of one locale, wide ("2 hours, 2 minutes"), opened once and used for
 * many lists; NULL when ICU refuses the locale. Not thread-safe, as a number format. */
typedef struct icu_unit_list icu_unit_list;
icu_unit_list *icu_unit_list_open(const char *locale);
void icu_unit_list_close(icu_unit_list *list);
int icu_unit_list_join(icu_unit_list *list, const char *const *items, int count, char *out, int capacity);

/* 1 when the locale's script is written right to left ("ar", "he_IL", "ur"), else 0. */
int icu_is_right_to_left(const char *locale);

/* 1 when `code` is one of ICU's ISO 639 language codes ("fr", "haw"), else 0. */
int icu_is_language(const char *code);

#endif
