#ifndef PROGRESSD_CCAIRO_LOADER_H
#define PROGRESSD_CCAIRO_LOADER_H

/* The cairo, pango and libpng functions the renderer calls are defined in this target:
 * each loads its library with dlopen on the first call into it, so that a program that
 * never draws (progressctl, and progressd until its tray draws) never loads them. */

#endif
