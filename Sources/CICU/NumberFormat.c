#include "CICU.h"

#include <stdlib.h>
#include <string.h>
#include <unicode/ulistformatter.h>
#include <unicode/uloc.h>
#include <unicode/unumberformatter.h>
#include <unicode/ustring.h>

struct icu_number_format {
    UNumberFormatter *formatter;
    UFormattedNumber *result;
};

/* ICU's UTF-16 result as UTF-8 in `out`. */
static int to_utf8(const UChar *text, int32_t length, char *out, int capacity) {
    UErrorCode status = U_ZERO_ERROR;
    int32_t written = 0;
    u_strToUTF8(out, capacity, &written, text, length, &status);
    if (U_FAILURE(status) || status == U_STRING_NOT_TERMINATED_WARNING || written >= capacity) return -1;
    return written;
}

icu_number_format *icu_number_format_open(const char *locale, const char *skeleton) {
    UChar wide[256];
    UErrorCode status = U_ZERO_ERROR;
    int32_t length = 0;
    u_strFromUTF8(wide, 256, &length, skeleton, -1, &status);
    if (U_FAILURE(status) || length >= 256) return NULL;
    icu_number_format *format = calloc(1, sizeof *format);
    if (format == NULL) return NULL;
    format->formatter = unumf_openForSkeletonAndLocale(wide, length, locale, &status);
    format->result = U_SUCCESS(status) ? unumf_openResult(&status) : NULL;
    if (U_FAILURE(status)) {
        icu_number_format_close(format);
        return NULL;
    }
    return format;
}

void icu_number_format_close(icu_number_format *format) {
    if (format == NULL) return;
    if (format->result != NULL) unumf_closeResult(format->result);
    if (format->formatter != NULL) unumf_close(format->formatter);
    free(format);
}

static int formatted(icu_number_format *format, UErrorCode status, char *out, int capacity) {
    UChar text[256];
    if (U_FAILURE(status)) return -1;
    int32_t length = unumf_resultToString(format->result, text, 256, &status);
    if (U_FAILURE(status) || length >= 256) return -1;
    return to_utf8(text, length, out, capacity);
}

int icu_number_format_double(icu_number_format *format, double value, char *out, int capacity) {
    UErrorCode status = U_ZERO_ERROR;
    unumf_formatDouble(format->formatter, value, format->result, &status);
    return formatted(format, status, out, capacity);
}

int icu_number_format_decimal(icu_number_format *format, const char *decimal, char *out, int capacity) {
    UErrorCode status = U_ZERO_ERROR;
    unumf_formatDecimal(format->formatter, decimal, -1, format->result, &status);
    return formatted(format, status, out, capacity);
}

struct icu_unit_list {
    UListFormatter *formatter;
};

icu_unit_list *icu_unit_list_open(const char *locale) {
    UErrorCode status = U_ZERO_ERROR;
    UListFormatter *formatter = ulistfmt_openForType(locale, ULISTFMT_TYPE_UNITS, ULISTFMT_WIDTH_WIDE, &status);
    if (U_FAILURE(status)) return NULL;
    icu_unit_list *list = malloc(sizeof *list);
    if (list == NULL) {
        ulistfmt_close(formatter);
        return NULL;
    }
    list->formatter = formatter;
    return list;
}

void icu_unit_list_close(icu_unit_list *list) {
    if (list == NULL) return;
    ulistfmt_close(list->formatter);
    free(list);
}

int icu_unit_list_join(icu_unit_list *list, const char *const *items, int count, char *out, int capacity) {
    if (count <= 0 || count > 8) return -1;
    UErrorCode status = U_ZERO_ERROR;
    UChar wide[8][128];
    const UChar *pieces[8];
    int32_t lengths[8];
    for (int index = 0; index < count; index++) {
        u_strFromUTF8(wide[index], 128, &lengths[index], items[index], -1, &status);
        if (U_FAILURE(status) || lengths[index] >= 128) return -1;
        pieces[index] = wide[index];
    }
    UChar text[1024];
    int32_t length = ulistfmt_format(list->formatter, pieces, lengths, count, text, 1024, &status);
    if (U_FAILURE(status) || length >= 1024) return -1;
    return to_utf8(text, length, out, capacity);
}

int icu_is_right_to_left(const char *locale) { return uloc_isRightToLeft(locale) ? 1 : 0; }

int icu_is_language(const char *code) {
    for (const char *const *language = uloc_getISOLanguages(); *language != NULL; language++) {
        if (strcmp(*language, code) == 0) return 1;
    }
    return 0;
}
