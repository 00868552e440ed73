/* The renderer benchmark's reference: plain C drawing the same images as progress-render
 * (a 300x24 striped bar with its label; a 128x128 gradient ring), with cairo and pango,
 * encoded with the same libpng settings (it includes progress-render's own encoder). The
 * benchmark checks that both sides' images have the same pixels.
 * Usage: render-bench COUNT -> one line per case: "case images_per_second";
 *        render-bench COUNT encoders -> the PNG encoder against cairo's writer;
 *        render-bench write DIR -> each case's image as DIR/case.png. */
#include "../../Sources/CCairo/shim.h"
#include <malloc.h>
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

/* progress-render's Color.brightness(times:): the HSB brightness scaled, capped at 1, with
 * white and black first nudged to 0.99 and 0.01. */
typedef struct { double r, g, b; } rgb;

static double clamp(double x, double low, double high) { return x < low ? low : x > high ? high : x; }

static rgb brightness(rgb c, double factor) {
    rgb n = {clamp(c.r, 0.01, 0.99), clamp(c.g, 0.01, 0.99), clamp(c.b, 0.01, 0.99)};
    double value = fmax(n.r, fmax(n.g, n.b)), target = fmin(1, value * factor), ratio = target / value;
    return (rgb) {fmin(1, n.r * ratio), fmin(1, n.g * ratio), fmin(1, n.b * ratio)};
}

static rgb hex(unsigned int x) { return (rgb) {(x >> 16 & 0xff) / 255.0, (x >> 8 & 0xff) / 255.0, (x & 0xff) / 255.0}; }

/* Three box blurs in each direction, the same arithmetic as progress-render's BoxBlur: rows,
 * then columns; a window's mean from a table; a line equal to the one before it takes its
 * result. */
typedef struct {
    unsigned char *first, *second, *previous_input, *previous_output;
    int has_previous;
} line_buffers;

static void blur_line(unsigned char *line, int count, int step, int box, const unsigned char *mean, line_buffers *work) {
    int half = box / 2, repeats = work->has_previous;
    for (int i = 0; i < count; i++) {
        unsigned char value = line[i * step];
        repeats = repeats && work->previous_input[i] == value;
        work->first[half + i] = value;
    }
    if (repeats) {
        for (int i = 0; i < count; i++) line[i * step] = work->previous_output[i];
        return;
    }
    memcpy(work->previous_input, work->first + half, count);
    unsigned char *source = work->first, *target = work->second;
    for (int pass = 0; pass < 3; pass++) {
        for (int k = 0; k < half; k++) {
            source[k] = source[half];
            source[half + count + k] = source[half + count - 1];
        }
        int sum = 0;
        for (int k = 0; k < box; k++) sum += source[k];
        for (int i = 0; i < count; i++) {
            target[half + i] = mean[sum];
            sum += source[i + box] - source[i];
        }
        unsigned char *swap = source;
        source = target;
        target = swap;
    }
    for (int i = 0; i < count; i++) line[i * step] = source[half + i];
    memcpy(work->previous_output, source + half, count);
    work->has_previous = 1;
}

static void box_blur(unsigned char *pixels, int width, int height, int stride, double sigma) {
    int box = (int) floor(sigma * 3 * sqrt(2 * M_PI) / 4 + 0.5) | 1;
    if (box <= 1) return;
    int half = box / 2, capacity = (width > height ? width : height) + 2 * half + 1;
    unsigned char *mean = malloc(255 * box + 1);
    for (int sum = 0; sum <= 255 * box; sum++) mean[sum] = (unsigned char) ((sum + half) / box);
    line_buffers work = {malloc(capacity), malloc(capacity), malloc(capacity), malloc(capacity), 0};
    for (int y = 0; y < height; y++) blur_line(pixels + y * stride, width, 1, box, mean, &work);
    work.has_previous = 0;
    for (int x = 0; x < width; x++) blur_line(pixels + x, height, stride, box, mean, &work);
    free(mean);
    free(work.first);
    free(work.second);
    free(work.previous_input);
    free(work.previous_output);
}

/* The track's inner shadow: the outside of the track, offset (0.5, 1), blurred 5, black
 * at 70 %, painted inside the track. */
static void inner_shadow(cairo_t *cr, double w, double h, double r, double scale) {
    double sigma = 5.0 / 2 * scale;
    int margin = (int) ceil(3 * sigma) + 2;
    int mw = (int) ceil(ceil(w) * scale) + 2 * margin, mh = (int) ceil(ceil(h) * scale) + 2 * margin;
    cairo_surface_t *mask = cairo_image_surface_create(CAIRO_FORMAT_A8, mw, mh);
    cairo_t *shape = cairo_create(mask);
    cairo_paint(shape);
    cairo_set_operator(shape, CAIRO_OPERATOR_CLEAR);
    cairo_scale(shape, scale, scale);
    double logical_margin = margin / scale;
    rounded(shape, logical_margin + 0.5, logical_margin + 1, w, h, r);
    cairo_fill(shape);
    cairo_destroy(shape);
    cairo_surface_flush(mask);
    box_blur(cairo_image_surface_get_data(mask), mw, mh, cairo_image_surface_get_stride(mask), sigma);
    cairo_surface_mark_dirty(mask);
    cairo_surface_set_device_scale(mask, scale, scale);
    cairo_save(cr);
    rounded(cr, 0, 0, w, h, r);
    cairo_clip(cr);
    cairo_set_source_rgba(cr, 0, 0, 0, 0.7);
    cairo_mask_surface(cr, mask, -logical_margin, -logical_margin);
    cairo_restore(cr);
    cairo_surface_destroy(mask);
}

/* The light theme's running striped bar, as progress-render draws it by default. */
static void striped(cairo_t *cr, double w, double h, double fraction, double scale) {
    double r = h / 2, fw = w * fraction;
    rgb color = hex(0x3584E4), light = brightness(color, 1.3), dark = brightness(color, 0.75);
    rgb outline = brightness(brightness(color, 0.75), 0.75);
    rounded(cr, 0, 0, w, h, r);
    cairo_set_source_rgba(cr, 0.51, 0.51, 0.51, 1);
    cairo_fill(cr);
    inner_shadow(cr, w, h, r, scale);
    rounded(cr, 0, 0, fw, h, fmin(r, fw / 2));
    cairo_pattern_t *fill = cairo_pattern_create_linear(0, 0, 0, h);
    cairo_pattern_add_color_stop_rgba(fill, 0, light.r, light.g, light.b, 1);
    cairo_pattern_add_color_stop_rgba(fill, 1, dark.r, dark.g, dark.b, 1);
    cairo_set_source(cr, fill);
    cairo_fill_preserve(cr);
    cairo_pattern_destroy(fill);
    cairo_save(cr);
    cairo_clip(cr);
    double period = fmax(8, h * 1.6);
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
    rounded(cr, 0, 0, fw, h, fmin(r, fw / 2));
    cairo_set_source_rgba(cr, outline.r, outline.g, outline.b, 1);
    cairo_set_line_width(cr, 1);
    cairo_stroke(cr);
    double tw, th;
    PangoLayout *layout;
    label(cr, "42%", fmax(6, h * 0.55), &tw, &th, &layout);
    double regions[2][2] = {{0, fw}, {fw, w - fw}};
    for (int i = 0; i < 2; i++) {
        cairo_save(cr);
        cairo_rectangle(cr, regions[i][0], 0, regions[i][1], h);
        cairo_clip(cr);
        cairo_set_source_rgba(cr, 0, 0, 0, 0.6); /* black reads best on both (WCAG) */
        cairo_move_to(cr, fw - 6 - tw, (h - th) / 2);
        pango_cairo_show_layout(cr, layout);
        cairo_restore(cr);
    }
    g_object_unref(layout);
}

/* The default gauge colours, green, yellow and red at 0, 0.5 and 1, as RingPainter mixes them. */
static rgb gauge_color(double t) {
    static const double locations[3] = {0, 0.5, 1};
    rgb colors[3] = {hex(0x2EC27E), hex(0xF6D32D), hex(0xE01B24)};
    t = fmin(1, fmax(0, t));
    int upper = 0;
    while (upper < 3 && locations[upper] < t) upper++;
    if (upper == 0) return colors[0];
    int lower = upper - 1;
    double local = (t - locations[lower]) / fmax(1e-9, locations[upper] - locations[lower]);
    rgb a = colors[lower], b = colors[upper];
    return (rgb) {a.r + (b.r - a.r) * local, a.g + (b.g - a.g) * local, a.b + (b.b - a.b) * local};
}

static void ring(cairo_t *cr, double size, double fraction) {
    double lw = fmax(2, size * 0.1), c = size / 2, radius = size / 2 - lw / 2 - 1;
    double start = -240 * M_PI / 180, end = 60 * M_PI / 180, span = end - start;
    rgb track = hex(0xDEDDDA);
    cairo_set_line_cap(cr, CAIRO_LINE_CAP_ROUND);
    cairo_set_line_width(cr, lw);
    cairo_new_path(cr);
    cairo_arc(cr, c, c, radius, start, end);
    cairo_set_source_rgba(cr, track.r, track.g, track.b, 0.5);
    cairo_stroke(cr);
    cairo_pattern_t *mesh = cairo_pattern_create_mesh();
    double inner = radius - lw / 2 - 1, outer = radius + lw / 2 + 1, cap = (lw / 2 + 1) / radius, step = 4 * M_PI / 180;
    for (double a = start - cap; a < end + cap;) {
        double b = fmin(a + step, end + cap);
        rgb first = gauge_color((a - start) / span), second = gauge_color((b - start) / span);
        cairo_mesh_pattern_begin_patch(mesh);
        cairo_mesh_pattern_move_to(mesh, c + inner * cos(a), c + inner * sin(a));
        cairo_mesh_pattern_line_to(mesh, c + outer * cos(a), c + outer * sin(a));
        cairo_mesh_pattern_line_to(mesh, c + outer * cos(b), c + outer * sin(b));
        cairo_mesh_pattern_line_to(mesh, c + inner * cos(b), c + inner * sin(b));
        cairo_mesh_pattern_set_corner_color_rgba(mesh, 0, first.r, first.g, first.b, 1);
        cairo_mesh_pattern_set_corner_color_rgba(mesh, 1, first.r, first.g, first.b, 1);
        cairo_mesh_pattern_set_corner_color_rgba(mesh, 2, second.r, second.g, second.b, 1);
        cairo_mesh_pattern_set_corner_color_rgba(mesh, 3, second.r, second.g, second.b, 1);
        cairo_mesh_pattern_end_patch(mesh);
        a = b;
    }
    cairo_set_source(cr, mesh);
    cairo_new_path(cr);
    cairo_arc(cr, c, c, radius, start, start + span * fraction);
    cairo_stroke(cr);
    cairo_pattern_destroy(mesh);
    double tw, th;
    PangoLayout *layout;
    label(cr, "42%", fmax(6, radius * 0.45), &tw, &th, &layout);
    cairo_set_source_rgba(cr, 0, 0, 0, 1);
    cairo_move_to(cr, c - tw / 2, c - th / 2);
    pango_cairo_show_layout(cr, layout);
    g_object_unref(layout);
}

/* One image of a case (0 the striped bar, 1 the ring), drawn and encoded; the PNG is malloc'd. */
static void draw_png(int kind, double scale, unsigned char **png, size_t *length) {
    double w = kind == 0 ? 300 : 128, h = kind == 0 ? 24 : 128;
    cairo_surface_t *surface = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, (int) ceil(w * scale), (int) ceil(h * scale));
    cairo_surface_set_device_scale(surface, scale, scale);
    cairo_t *cr = cairo_create(surface);
    if (kind == 0) striped(cr, w, h, 0.42, scale); else ring(cr, w, 0.42);
    cairo_surface_flush(surface);
    shim_png_encode(cairo_image_surface_get_data(surface), cairo_image_surface_get_width(surface),
                    cairo_image_surface_get_height(surface), cairo_image_surface_get_stride(surface),
                    (unsigned int) (96 / 0.0254 * scale + 0.5), png, length);
    cairo_destroy(cr);
    cairo_surface_destroy(surface);
}

static double measure(int kind, double scale, int count) {
    double began = now();
    for (int i = 0; i < count; i++) {
        unsigned char *png;
        size_t length;
        draw_png(kind, scale, &png, &length);
        free(png);
    }
    return count / (now() - began);
}

/* Writes each case's image into a directory, for the benchmark to check that both sides
 * draw the same pixels. */
static int write_cases(const char *directory) {
    const char *names[4] = {"striped-1", "striped-2", "ring-1", "ring-2"};
    for (int i = 0; i < 4; i++) {
        unsigned char *png;
        size_t length;
        draw_png(i / 2, i % 2 ? 2 : 1, &png, &length);
        char path[4096];
        snprintf(path, sizeof path, "%s/%s.png", directory, names[i]);
        FILE *file = fopen(path, "wb");
        if (file == NULL || fwrite(png, 1, length, file) != length) {
            perror(path);
            return 1;
        }
        fclose(file);
        free(png);
    }
    return 0;
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
    striped(cr, 300, 24, 0.42, 2);
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
    /* In about half of this program's runs (it depends on where the heap lands), glibc
     * returned memory to the kernel after cairo's stroke masks and took it back for the
     * next image, hundreds of brk calls a second, about a fifth slower. Keeping freed memory
     * makes the reference steady and at its fastest, so progress-render is held to the
     * better figure. */
    mallopt(M_TRIM_THRESHOLD, 64 << 20);
    if (argc > 2 && strcmp(argv[1], "write") == 0) return write_cases(argv[2]);
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
