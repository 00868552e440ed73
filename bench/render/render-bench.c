/* The renderer benchmark's reference: plain C drawing the same images as progress-render
 * (a 300x24 striped bar with its label; a 128x128 gradient ring), with cairo and pango,
 * encoded with the same libpng settings (it includes progress-render's own encoder).
 * Usage: render-bench COUNT -> one line per case: "case images_per_second". */
#include "../../Sources/CCairo/shim.h"
#include <math.h>
#include <stdio.h>
#include <time.h>

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec / 1e9;
}

static void rounded(cairo_t *cr, double x, double y, double w, double h, double r) {
    if (r > w / 2) r = w / 2;
    if (r > h / 2) r = h / 2;
    cairo_new_sub_path(cr);
    cairo_arc(cr, x + w - r, y + r, r, -M_PI / 2, 0);
    cairo_arc(cr, x + w - r, y + h - r, r, 0, M_PI / 2);
    cairo_arc(cr, x + r, y + h - r, r, M_PI / 2, M_PI);
    cairo_arc(cr, x + r, y + r, r, M_PI, 3 * M_PI / 2);
    cairo_close_path(cr);
}

static void label(cairo_t *cr, const char *text, double size, double *w, double *h, PangoLayout **out) {
    PangoLayout *layout = pango_cairo_create_layout(cr);
    PangoFontDescription *font = pango_font_description_from_string("Sans Bold");
    pango_font_description_set_absolute_size(font, size * PANGO_SCALE);
    pango_layout_set_font_description(layout, font);
    pango_font_description_free(font);
    pango_layout_set_text(layout, text, -1);
    int pw, ph;
    pango_layout_get_pixel_size(layout, &pw, &ph);
    *w = pw;
    *h = ph;
    *out = layout;
}

static void striped(cairo_t *cr, double w, double h, double fraction) {
    double r = h / 2, fw = w * fraction;
    rounded(cr, 0, 0, w, h, r);
    cairo_set_source_rgb(cr, 0.51, 0.51, 0.51);
    cairo_fill(cr);
    cairo_save(cr);
    rounded(cr, 0, 0, w, h, r);
    cairo_clip(cr);
    cairo_pattern_t *shadow = cairo_pattern_create_linear(0, 0, 0, h * 0.5);
    cairo_pattern_add_color_stop_rgba(shadow, 0, 0, 0, 0, 0.45);
    cairo_pattern_add_color_stop_rgba(shadow, 1, 0, 0, 0, 0);
    cairo_set_source(cr, shadow);
    cairo_paint(cr);
    cairo_pattern_destroy(shadow);
    cairo_restore(cr);
    rounded(cr, 0, 0, fw, h, r);
    cairo_pattern_t *fill = cairo_pattern_create_linear(0, 0, 0, h);
    cairo_pattern_add_color_stop_rgb(fill, 0, 0.27, 0.67, 1.0);
    cairo_pattern_add_color_stop_rgb(fill, 1, 0.16, 0.39, 0.67);
    cairo_set_source(cr, fill);
    cairo_fill_preserve(cr);
    cairo_pattern_destroy(fill);
    cairo_save(cr);
    cairo_clip(cr);
    double period = h * 1.6 > 8 ? h * 1.6 : 8;
    for (double x = -period; x < fw; x += period) {
        cairo_move_to(cr, x, h);
        cairo_line_to(cr, x + 0.25 * period, 0);
        cairo_line_to(cr, x + 0.75 * period, 0);
        cairo_line_to(cr, x + 0.5 * period, h);
        cairo_close_path(cr);
    }
    cairo_set_source_rgba(cr, 1, 1, 1, 0.2);
    cairo_fill(cr);
    cairo_restore(cr);
    rounded(cr, 0, 0, fw, h, r);
    cairo_set_source_rgb(cr, 0.12, 0.29, 0.5);
    cairo_set_line_width(cr, 1);
    cairo_stroke(cr);
    double tw, th;
    PangoLayout *layout;
    label(cr, "42%", h * 0.55, &tw, &th, &layout);
    double regions[2][2] = {{0, fw}, {fw, w - fw}};
    for (int i = 0; i < 2; i++) {
        cairo_save(cr);
        cairo_rectangle(cr, regions[i][0], 0, regions[i][1], h);
        cairo_clip(cr);
        cairo_set_source_rgba(cr, 0, 0, 0, 0.6);
        cairo_move_to(cr, fw - 6 - tw, (h - th) / 2);
        pango_cairo_show_layout(cr, layout);
        cairo_restore(cr);
    }
    g_object_unref(layout);
}

static void ring(cairo_t *cr, double size, double fraction) {
    double lw = size * 0.1, c = size / 2, radius = size / 2 - lw / 2 - 1;
    double start = -240 * M_PI / 180, end = 60 * M_PI / 180, span = end - start;
    cairo_set_line_cap(cr, CAIRO_LINE_CAP_ROUND);
    cairo_set_line_width(cr, lw);
    cairo_arc(cr, c, c, radius, start, end);
    cairo_set_source_rgba(cr, 0.87, 0.87, 0.85, 0.5);
    cairo_stroke(cr);
    cairo_pattern_t *mesh = cairo_pattern_create_mesh();
    double inner = radius - lw / 2 - 1, outer = radius + lw / 2 + 1, cap = (lw / 2 + 1) / radius, step = 4 * M_PI / 180;
    for (double a = start - cap; a < end + cap; a += step) {
        double b = a + step < end + cap ? a + step : end + cap;
        double t0 = (a - start) / span, t1 = (b - start) / span;
        t0 = t0 < 0 ? 0 : t0 > 1 ? 1 : t0;
        t1 = t1 < 0 ? 0 : t1 > 1 ? 1 : t1;
        cairo_mesh_pattern_begin_patch(mesh);
        cairo_mesh_pattern_move_to(mesh, c + inner * cos(a), c + inner * sin(a));
        cairo_mesh_pattern_line_to(mesh, c + outer * cos(a), c + outer * sin(a));
        cairo_mesh_pattern_line_to(mesh, c + outer * cos(b), c + outer * sin(b));
        cairo_mesh_pattern_line_to(mesh, c + inner * cos(b), c + inner * sin(b));
        cairo_mesh_pattern_set_corner_color_rgb(mesh, 0, t0, 1 - t0 / 2, 0.3);
        cairo_mesh_pattern_set_corner_color_rgb(mesh, 1, t0, 1 - t0 / 2, 0.3);
        cairo_mesh_pattern_set_corner_color_rgb(mesh, 2, t1, 1 - t1 / 2, 0.3);
        cairo_mesh_pattern_set_corner_color_rgb(mesh, 3, t1, 1 - t1 / 2, 0.3);
        cairo_mesh_pattern_end_patch(mesh);
    }
    cairo_set_source(cr, mesh);
    cairo_new_path(cr);
    cairo_arc(cr, c, c, radius, start, start + span * fraction);
    cairo_stroke(cr);
    cairo_pattern_destroy(mesh);
    double tw, th;
    PangoLayout *layout;
    label(cr, "42%", radius * 0.45, &tw, &th, &layout);
    cairo_set_source_rgb(cr, 0, 0, 0);
    cairo_move_to(cr, c - tw / 2, c - th / 2);
    pango_cairo_show_layout(cr, layout);
    g_object_unref(layout);
}

static double measure(int kind, double scale, int count) {
    double w = kind == 0 ? 300 : 128, h = kind == 0 ? 24 : 128;
    double began = now();
    for (int i = 0; i < count; i++) {
        cairo_surface_t *surface = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, (int) ceil(w * scale), (int) ceil(h * scale));
        cairo_surface_set_device_scale(surface, scale, scale);
        cairo_t *cr = cairo_create(surface);
        if (kind == 0) striped(cr, w, h, 0.42); else ring(cr, w, 0.42);
        cairo_surface_flush(surface);
        unsigned char *png;
        size_t length;
        shim_png_encode(cairo_image_surface_get_data(surface), cairo_image_surface_get_width(surface),
                        cairo_image_surface_get_height(surface), cairo_image_surface_get_stride(surface),
                        (unsigned int) (96 / 0.0254 * scale + 0.5), &png, &length);
        free(png);
        cairo_destroy(cr);
        cairo_surface_destroy(surface);
    }
    return count / (now() - began);
}

static cairo_status_t discard(void *closure, const unsigned char *data, unsigned int length) {
    *(size_t *) closure += length;
    return CAIRO_STATUS_SUCCESS;
}

/* The PNG encoder alone, on one drawn image: libpng as set up in shim.h against cairo's
 * own writer. Prints images per second and bytes for each. */
static void encoders(int count) {
    cairo_surface_t *surface = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, 600, 48);
    cairo_surface_set_device_scale(surface, 2, 2);
    cairo_t *cr = cairo_create(surface);
    striped(cr, 300, 24, 0.42);
    cairo_surface_flush(surface);
    size_t ours = 0, theirs = 0;
    double began = now();
    for (int i = 0; i < count; i++) {
        unsigned char *png;
        shim_png_encode(cairo_image_surface_get_data(surface), 600, 48, cairo_image_surface_get_stride(surface), 7559, &png, &ours);
        free(png);
    }
    double ours_rate = count / (now() - began);
    began = now();
    for (int i = 0; i < count; i++) {
        theirs = 0;
        cairo_surface_write_to_png_stream(surface, discard, &theirs);
    }
    double theirs_rate = count / (now() - began);
    printf("encode-ours %.1f %zu\nencode-cairo %.1f %zu\n", ours_rate, ours, theirs_rate, theirs);
    cairo_destroy(cr);
    cairo_surface_destroy(surface);
}

int main(int argc, char **argv) {
    if (argc > 2 && strcmp(argv[2], "encoders") == 0) {
        encoders(atoi(argv[1]));
        return 0;
    }
    int count = argc > 1 ? atoi(argv[1]) : 500;
    measure(0, 1, 20); /* warm the font caches */
    printf("striped-1 %.1f\nstriped-2 %.1f\nring-1 %.1f\nring-2 %.1f\n", measure(0, 1, count), measure(0, 2, count),
           measure(1, 1, count), measure(1, 2, count));
    return 0;
}
