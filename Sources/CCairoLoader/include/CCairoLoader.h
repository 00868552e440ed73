#ifndef PROGRESSD_CCAIRO_LOADER_H
#define PROGRESSD_CCAIRO_LOADER_H

/* The cairo, pango and libpng functions the renderer calls are defined in this target:
 * each finds its library's function on the first call into it, so that a program that
 * never draws (progressctl, and progressd until its tray draws) never loads them, and no
 * program is linked against them. */

/* Opens cairo and pango (through libpangocairo) and libpng, once each. NULL when drawing
 * can go on; otherwise a sentence naming the library that could not be loaded and the
 * dynamic loader's reason ("libpangocairo-1.0.so.0 could not be loaded:
 * /lib/…/libcairo.so.2: file too short"), valid until the thread's next call. A library
 * that failed is tried again on the next call, so drawing comes back with the library. */
const char *ccairo_loader_open(void);

#endif
