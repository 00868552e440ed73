#ifndef PROGRESSD_CGETTEXT_SHIM_H
#define PROGRESSD_CGETTEXT_SHIM_H

/* gettext is part of glibc: no library to link. */
#include <libintl.h>
#include <locale.h>

/* gettext's manual: incremented to make gettext forget translations it looked up, after
 * LANGUAGE changed. Declared by no header. */
extern int _nl_msg_cat_cntr;

static inline void shim_gettext_forget_cached_translations(void) {
    ++_nl_msg_cat_cntr;
}

#endif
