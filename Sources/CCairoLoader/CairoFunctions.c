#include "CCairoLoader.h"

#include <cairo.h>
#include <cairo-pdf.h>
#include <cairo-svg.h>
#include <dlfcn.h>
#include <pango/pangocairo.h>
#include <png.h>
#include <stdio.h>
#include <stdlib.h>

/* progressd, progressctl and progress-render are one program installed under three names;
 * only drawing needs cairo, pango and libpng, whose forty libraries take a program 3 ms to
 * load (fontconfig, harfbuzz, freetype, X11's …). The program is linked against none of
 * them: each function below stands in for the library's own, and finds the real function
 * in the library (opened by its soname, as the package depends on it) on its first call;
 * later calls go straight through the pointer it keeps.
 *
 * A library that can not be opened (missing, unreadable, broken) is not a crash: the
 * renderer calls ccairo_loader_open before it draws, and says the reason it returns. Only a
 * library that opens but lacks a function below, which the package's dependencies rule
 * out, still stops the program, since a stand-in has nothing to return. */

enum library { PANGOCAIRO, PNG };

static const char *const sonames[] = {
    /* dlsym on libpangocairo's handle also finds pango's and cairo's functions: a handle's
     * search covers the libraries it depends on. */
    [PANGOCAIRO] = "libpangocairo-1.0.so.0",
    [PNG] = "libpng16.so.16",
};

static void *handles[2];

/* The library's handle, opened now if it was not; NULL (and dlerror's reason) if it can not be. */
static void *open_library(enum library library) {
    void *handle = __atomic_load_n(&handles[library], __ATOMIC_ACQUIRE);
    if (handle != NULL) return handle;
    handle = dlopen(sonames[library], RTLD_NOW | RTLD_LOCAL);
    if (handle != NULL) __atomic_store_n(&handles[library], handle, __ATOMIC_RELEASE);
    return handle;
}

const char *ccairo_loader_open(void) {
    /* One thread draws at a time in each program; the buffer is the caller's until its next call. */
    static _Thread_local char reason[512];
    for (size_t library = 0; library < sizeof sonames / sizeof *sonames; library++) {
        if (open_library((enum library) library) != NULL) continue;
        const char *error = dlerror();
        snprintf(reason, sizeof reason, "%s could not be loaded: %s", sonames[library],
                 error != NULL ? error : "no reason given");
        return reason;
    }
    return NULL;
}

static void *find(enum library library, const char *name) {
    void *handle = open_library(library);
    void *function = handle != NULL ? dlsym(handle, name) : NULL;
    if (function == NULL) {
        /* Reached only when ccairo_loader_open was not asked first, or the library lacks `name`. */
        const char *error = dlerror();
        fprintf(stderr, "can not draw: %s: %s\n", sonames[library], error != NULL ? error : name);
        abort();
    }
    return function;
}

/* The real function `name` of `library`, found once. */
#define FORWARD(library, name) \
    (*({ \
        static __typeof__(name) *real; \
        __typeof__(name) *found = __atomic_load_n(&real, __ATOMIC_ACQUIRE); \
        if (found == NULL) { \
            found = (__typeof__(name) *) find(library, #name); \
            __atomic_store_n(&real, found, __ATOMIC_RELEASE); \
        } \
        found; \
    }))

void cairo_arc(cairo_t * a0, double a1, double a2, double a3, double a4, double a5) {
    FORWARD(PANGOCAIRO, cairo_arc)(a0, a1, a2, a3, a4, a5);
}
void cairo_clip(cairo_t * a0) { FORWARD(PANGOCAIRO, cairo_clip)(a0); }
void cairo_close_path(cairo_t * a0) { FORWARD(PANGOCAIRO, cairo_close_path)(a0); }
cairo_t * cairo_create(cairo_surface_t * a0) { return FORWARD(PANGOCAIRO, cairo_create)(a0); }
void cairo_destroy(cairo_t * a0) { FORWARD(PANGOCAIRO, cairo_destroy)(a0); }
void cairo_fill(cairo_t * a0) { FORWARD(PANGOCAIRO, cairo_fill)(a0); }
void cairo_fill_preserve(cairo_t * a0) { FORWARD(PANGOCAIRO, cairo_fill_preserve)(a0); }
cairo_pattern_t * cairo_get_source(cairo_t * a0) { return FORWARD(PANGOCAIRO, cairo_get_source)(a0); }
cairo_surface_t * cairo_image_surface_create(cairo_format_t a0, int a1, int a2) {
    return FORWARD(PANGOCAIRO, cairo_image_surface_create)(a0, a1, a2);
}
cairo_surface_t * cairo_image_surface_create_from_png_stream(cairo_read_func_t a0, void * a1) {
    return FORWARD(PANGOCAIRO, cairo_image_surface_create_from_png_stream)(a0, a1);
}
unsigned char * cairo_image_surface_get_data(cairo_surface_t * a0) {
    return FORWARD(PANGOCAIRO, cairo_image_surface_get_data)(a0);
}
int cairo_image_surface_get_height(cairo_surface_t * a0) {
    return FORWARD(PANGOCAIRO, cairo_image_surface_get_height)(a0);
}
int cairo_image_surface_get_stride(cairo_surface_t * a0) {
    return FORWARD(PANGOCAIRO, cairo_image_surface_get_stride)(a0);
}
int cairo_image_surface_get_width(cairo_surface_t * a0) {
    return FORWARD(PANGOCAIRO, cairo_image_surface_get_width)(a0);
}
void cairo_line_to(cairo_t * a0, double a1, double a2) { FORWARD(PANGOCAIRO, cairo_line_to)(a0, a1, a2); }
void cairo_mask_surface(cairo_t * a0, cairo_surface_t * a1, double a2, double a3) {
    FORWARD(PANGOCAIRO, cairo_mask_surface)(a0, a1, a2, a3);
}
void cairo_mesh_pattern_begin_patch(cairo_pattern_t * a0) { FORWARD(PANGOCAIRO, cairo_mesh_pattern_begin_patch)(a0); }
void cairo_mesh_pattern_end_patch(cairo_pattern_t * a0) { FORWARD(PANGOCAIRO, cairo_mesh_pattern_end_patch)(a0); }
void cairo_mesh_pattern_line_to(cairo_pattern_t * a0, double a1, double a2) {
    FORWARD(PANGOCAIRO, cairo_mesh_pattern_line_to)(a0, a1, a2);
}
void cairo_mesh_pattern_move_to(cairo_pattern_t * a0, double a1, double a2) {
    FORWARD(PANGOCAIRO, cairo_mesh_pattern_move_to)(a0, a1, a2);
}
void cairo_mesh_pattern_set_corner_color_rgba(cairo_pattern_t * a0, unsigned int a1, double a2, double a3, double a4,
                                              double a5) {
    FORWARD(PANGOCAIRO, cairo_mesh_pattern_set_corner_color_rgba)(a0, a1, a2, a3, a4, a5);
}
void cairo_move_to(cairo_t * a0, double a1, double a2) { FORWARD(PANGOCAIRO, cairo_move_to)(a0, a1, a2); }
void cairo_new_path(cairo_t * a0) { FORWARD(PANGOCAIRO, cairo_new_path)(a0); }
void cairo_new_sub_path(cairo_t * a0) { FORWARD(PANGOCAIRO, cairo_new_sub_path)(a0); }
void cairo_paint(cairo_t * a0) { FORWARD(PANGOCAIRO, cairo_paint)(a0); }
void cairo_pattern_add_color_stop_rgba(cairo_pattern_t * a0, double a1, double a2, double a3, double a4, double a5) {
    FORWARD(PANGOCAIRO, cairo_pattern_add_color_stop_rgba)(a0, a1, a2, a3, a4, a5);
}
cairo_pattern_t * cairo_pattern_create_linear(double a0, double a1, double a2, double a3) {
    return FORWARD(PANGOCAIRO, cairo_pattern_create_linear)(a0, a1, a2, a3);
}
cairo_pattern_t * cairo_pattern_create_mesh(void) { return FORWARD(PANGOCAIRO, cairo_pattern_create_mesh)(); }
void cairo_pattern_destroy(cairo_pattern_t * a0) { FORWARD(PANGOCAIRO, cairo_pattern_destroy)(a0); }
void cairo_pattern_set_extend(cairo_pattern_t * a0, cairo_extend_t a1) {
    FORWARD(PANGOCAIRO, cairo_pattern_set_extend)(a0, a1);
}
cairo_surface_t * cairo_pdf_surface_create_for_stream(cairo_write_func_t a0, void * a1, double a2, double a3) {
    return FORWARD(PANGOCAIRO, cairo_pdf_surface_create_for_stream)(a0, a1, a2, a3);
}
void cairo_rectangle(cairo_t * a0, double a1, double a2, double a3, double a4) {
    FORWARD(PANGOCAIRO, cairo_rectangle)(a0, a1, a2, a3, a4);
}
void cairo_restore(cairo_t * a0) { FORWARD(PANGOCAIRO, cairo_restore)(a0); }
void cairo_save(cairo_t * a0) { FORWARD(PANGOCAIRO, cairo_save)(a0); }
void cairo_scale(cairo_t * a0, double a1, double a2) { FORWARD(PANGOCAIRO, cairo_scale)(a0, a1, a2); }
void cairo_set_line_cap(cairo_t * a0, cairo_line_cap_t a1) { FORWARD(PANGOCAIRO, cairo_set_line_cap)(a0, a1); }
void cairo_set_line_width(cairo_t * a0, double a1) { FORWARD(PANGOCAIRO, cairo_set_line_width)(a0, a1); }
void cairo_set_operator(cairo_t * a0, cairo_operator_t a1) { FORWARD(PANGOCAIRO, cairo_set_operator)(a0, a1); }
void cairo_set_source(cairo_t * a0, cairo_pattern_t * a1) { FORWARD(PANGOCAIRO, cairo_set_source)(a0, a1); }
void cairo_set_source_rgba(cairo_t * a0, double a1, double a2, double a3, double a4) {
    FORWARD(PANGOCAIRO, cairo_set_source_rgba)(a0, a1, a2, a3, a4);
}
void cairo_set_source_surface(cairo_t * a0, cairo_surface_t * a1, double a2, double a3) {
    FORWARD(PANGOCAIRO, cairo_set_source_surface)(a0, a1, a2, a3);
}
void cairo_stroke(cairo_t * a0) { FORWARD(PANGOCAIRO, cairo_stroke)(a0); }
cairo_surface_t * cairo_surface_create_for_rectangle(cairo_surface_t * a0, double a1, double a2, double a3, double a4) {
    return FORWARD(PANGOCAIRO, cairo_surface_create_for_rectangle)(a0, a1, a2, a3, a4);
}
void cairo_surface_destroy(cairo_surface_t * a0) { FORWARD(PANGOCAIRO, cairo_surface_destroy)(a0); }
void cairo_surface_finish(cairo_surface_t * a0) { FORWARD(PANGOCAIRO, cairo_surface_finish)(a0); }
void cairo_surface_flush(cairo_surface_t * a0) { FORWARD(PANGOCAIRO, cairo_surface_flush)(a0); }
void cairo_surface_mark_dirty(cairo_surface_t * a0) { FORWARD(PANGOCAIRO, cairo_surface_mark_dirty)(a0); }
void cairo_surface_set_device_scale(cairo_surface_t * a0, double a1, double a2) {
    FORWARD(PANGOCAIRO, cairo_surface_set_device_scale)(a0, a1, a2);
}
cairo_status_t cairo_surface_status(cairo_surface_t * a0) { return FORWARD(PANGOCAIRO, cairo_surface_status)(a0); }
cairo_surface_t * cairo_svg_surface_create_for_stream(cairo_write_func_t a0, void * a1, double a2, double a3) {
    return FORWARD(PANGOCAIRO, cairo_svg_surface_create_for_stream)(a0, a1, a2, a3);
}
void cairo_translate(cairo_t * a0, double a1, double a2) { FORWARD(PANGOCAIRO, cairo_translate)(a0, a1, a2); }
PangoLayout * pango_cairo_create_layout(cairo_t * a0) { return FORWARD(PANGOCAIRO, pango_cairo_create_layout)(a0); }
void pango_cairo_show_layout(cairo_t * a0, PangoLayout * a1) { FORWARD(PANGOCAIRO, pango_cairo_show_layout)(a0, a1); }
void pango_font_description_free(PangoFontDescription * a0) { FORWARD(PANGOCAIRO, pango_font_description_free)(a0); }
PangoFontDescription * pango_font_description_from_string(const char * a0) {
    return FORWARD(PANGOCAIRO, pango_font_description_from_string)(a0);
}
void pango_font_description_set_absolute_size(PangoFontDescription * a0, double a1) {
    FORWARD(PANGOCAIRO, pango_font_description_set_absolute_size)(a0, a1);
}
void pango_layout_get_pixel_size(PangoLayout * a0, int * a1, int * a2) {
    FORWARD(PANGOCAIRO, pango_layout_get_pixel_size)(a0, a1, a2);
}
void pango_layout_set_font_description(PangoLayout * a0, const PangoFontDescription * a1) {
    FORWARD(PANGOCAIRO, pango_layout_set_font_description)(a0, a1);
}
void pango_layout_set_text(PangoLayout * a0, const char * a1, int a2) {
    FORWARD(PANGOCAIRO, pango_layout_set_text)(a0, a1, a2);
}
png_infop png_create_info_struct(png_const_structrp restrict a0) { return FORWARD(PNG, png_create_info_struct)(a0); }
png_structp png_create_write_struct_2(png_const_charp a0, png_voidp a1, png_error_ptr a2, png_error_ptr a3,
                                      png_voidp a4, png_malloc_ptr a5, png_free_ptr a6) {
    return FORWARD(PNG, png_create_write_struct_2)(a0, a1, a2, a3, a4, a5, a6);
}
void png_destroy_write_struct(png_structpp a0, png_infopp a1) { FORWARD(PNG, png_destroy_write_struct)(a0, a1); }
void png_error(png_const_structrp restrict a0, png_const_charp a1) {
    FORWARD(PNG, png_error)(a0, a1);
    __builtin_unreachable();
}
png_voidp png_get_io_ptr(png_const_structrp restrict a0) { return FORWARD(PNG, png_get_io_ptr)(a0); }
png_voidp png_get_mem_ptr(png_const_structrp restrict a0) { return FORWARD(PNG, png_get_mem_ptr)(a0); }
void png_set_IHDR(png_const_structrp restrict a0, png_inforp restrict a1, png_uint_32 a2, png_uint_32 a3, int a4,
                  int a5, int a6, int a7, int a8) {
    FORWARD(PNG, png_set_IHDR)(a0, a1, a2, a3, a4, a5, a6, a7, a8);
}
void png_set_compression_level(png_structrp restrict a0, int a1) { FORWARD(PNG, png_set_compression_level)(a0, a1); }
void png_set_filter(png_structrp restrict a0, int a1, int a2) { FORWARD(PNG, png_set_filter)(a0, a1, a2); }
jmp_buf *png_set_longjmp_fn(png_structrp a0, png_longjmp_ptr a1, size_t a2) {
    return FORWARD(PNG, png_set_longjmp_fn)(a0, a1, a2);
}
void png_set_pHYs(png_const_structrp restrict a0, png_inforp restrict a1, png_uint_32 a2, png_uint_32 a3, int a4) {
    FORWARD(PNG, png_set_pHYs)(a0, a1, a2, a3, a4);
}
void png_set_write_fn(png_structrp restrict a0, png_voidp a1, png_rw_ptr a2, png_flush_ptr a3) {
    FORWARD(PNG, png_set_write_fn)(a0, a1, a2, a3);
}
void png_write_end(png_structrp restrict a0, png_inforp restrict a1) { FORWARD(PNG, png_write_end)(a0, a1); }
void png_write_info(png_structrp restrict a0, png_const_inforp restrict a1) { FORWARD(PNG, png_write_info)(a0, a1); }
void png_write_row(png_structrp restrict a0, png_const_bytep a1) { FORWARD(PNG, png_write_row)(a0, a1); }
