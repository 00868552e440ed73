#ifndef PROGRESSD_CCAIRO_SHIM_H
#define PROGRESSD_CCAIRO_SHIM_H

#include <cairo.h>
#include <cairo-pdf.h>
#include <cairo-svg.h>
#include <pango/pangocairo.h>
#include <png.h>
#include <zlib.h>
#include <setjmp.h>
#include <stdlib.h>
#include <string.h>

/* Growing buffer the PNG is written into. */
typedef struct {
    unsigned char *data;
    size_t length;
    size_t capacity;
} shim_buffer;

static void shim_png_write(png_structp png, png_bytep bytes, png_size_t length) {
    shim_buffer *buffer = (shim_buffer *) png_get_io_ptr(png);
    if (buffer->length + length > buffer->capacity) {
        size_t capacity = buffer->capacity ? buffer->capacity * 2 : 4096;
        while (capacity < buffer->length + length) capacity *= 2;
        unsigned char *grown = realloc(buffer->data, capacity);
        if (grown == NULL) png_error(png, "out of memory");
        buffer->data = grown;
        buffer->capacity = capacity;
    }
    memcpy(buffer->data + buffer->length, bytes, length);
    buffer->length += length;
}

static void shim_png_flush(png_structp png) { (void) png; }

/* libpng's and zlib's working memory (about 270 KB of deflate state for every image) comes
 * from a block kept by each thread between encodes. Allocating and freeing it per image
 * made glibc return it to the kernel and take it back (brk, page faults) on every image:
 * about a fifth of the renderer's time for small images. The block grows to the largest
 * need seen, up to shim_png_arena_limit; what does not fit falls back to malloc. It lives
 * as long as its thread: progress-render draws on one. */
typedef struct {
    unsigned char *base;
    size_t capacity;
    size_t used;
    size_t wanted;
} shim_png_arena;

enum { shim_png_arena_limit = 4 << 20 };

static shim_png_arena *shim_png_thread_arena(void) {
    static _Thread_local shim_png_arena arena;
    return &arena;
}

static png_voidp shim_png_arena_malloc(png_structp png, png_alloc_size_t size) {
    shim_png_arena *arena = (shim_png_arena *) png_get_mem_ptr(png);
    size_t rounded = (size + 63) & ~(size_t) 63;
    arena->wanted += rounded;
    if (arena->used + rounded <= arena->capacity) {
        void *block = arena->base + arena->used;
        arena->used += rounded;
        return block;
    }
    return malloc(size);
}

static void shim_png_arena_free(png_structp png, png_voidp block) {
    shim_png_arena *arena = (shim_png_arena *) png_get_mem_ptr(png);
    unsigned char *bytes = (unsigned char *) block;
    if (arena->base != NULL && bytes >= arena->base && bytes < arena->base + arena->capacity) return;
    free(block);
}

/* After an encode: forget its blocks, and grow to what it wanted if that was more. */
static void shim_png_arena_reset(shim_png_arena *arena) {
    if (arena->wanted > arena->capacity && arena->wanted <= shim_png_arena_limit) {
        free(arena->base);
        arena->base = malloc(arena->wanted);
        arena->capacity = arena->base ? arena->wanted : 0;
    }
    arena->used = 0;
    arena->wanted = 0;
}

/* Encodes a cairo ARGB32 image (premultiplied, native endian) as an 8-bit RGBA PNG.
 * Settings chosen for small images written often: no row filtering and zlib level 3,
 * which make the encoder several times faster than cairo's own writer for the same
 * pixels at a modest size cost. `pixels_per_metre` goes into a pHYs chunk (0: none).
 * libpng reports errors by longjmp, which Swift can not catch: hence this in C.
 * Returns 0 and a malloc'd PNG in *out, or -1. */
static inline int shim_png_encode(const unsigned char *argb, int width, int height, int stride,
                                  unsigned int pixels_per_metre, unsigned char **out, size_t *out_length) {
    shim_buffer buffer = {NULL, 0, 0};
    unsigned char *row = malloc((size_t) width * 4);
    shim_png_arena *arena = shim_png_thread_arena();
    png_structp png = png_create_write_struct_2(PNG_LIBPNG_VER_STRING, NULL, NULL, NULL, arena,
                                                shim_png_arena_malloc, shim_png_arena_free);
    png_infop info = png ? png_create_info_struct(png) : NULL;
    if (row == NULL || png == NULL || info == NULL) {
        free(row);
        png_destroy_write_struct(&png, info ? &info : NULL);
        shim_png_arena_reset(arena);
        return -1;
    }
    if (setjmp(png_jmpbuf(png))) {
        free(row);
        free(buffer.data);
        png_destroy_write_struct(&png, &info);
        shim_png_arena_reset(arena);
        return -1;
    }
    png_set_write_fn(png, &buffer, shim_png_write, shim_png_flush);
    png_set_filter(png, PNG_FILTER_TYPE_BASE, PNG_FILTER_NONE);
    png_set_compression_level(png, 3);
    png_set_IHDR(png, info, (png_uint_32) width, (png_uint_32) height, 8, PNG_COLOR_TYPE_RGB_ALPHA,
                 PNG_INTERLACE_NONE, PNG_COMPRESSION_TYPE_BASE, PNG_FILTER_TYPE_BASE);
    if (pixels_per_metre > 0) png_set_pHYs(png, info, pixels_per_metre, pixels_per_metre, PNG_RESOLUTION_METER);
    png_write_info(png, info);
    for (int y = 0; y < height; y++) {
        const uint32_t *source = (const uint32_t *) (argb + (size_t) y * stride);
        for (int x = 0; x < width; x++) {
            uint32_t pixel = source[x];
            unsigned int alpha = pixel >> 24;
            unsigned char *target = row + x * 4;
            if (alpha == 0) {
                target[0] = target[1] = target[2] = target[3] = 0;
                continue;
            }
            /* Cairo premultiplies; PNG does not. */
            target[0] = (unsigned char) ((((pixel >> 16) & 0xff) * 255 + alpha / 2) / alpha);
            target[1] = (unsigned char) ((((pixel >> 8) & 0xff) * 255 + alpha / 2) / alpha);
            target[2] = (unsigned char) (((pixel & 0xff) * 255 + alpha / 2) / alpha);
            target[3] = (unsigned char) alpha;
        }
        png_write_row(png, row);
    }
    png_write_end(png, info);
    png_destroy_write_struct(&png, &info);
    shim_png_arena_reset(arena);
    free(row);
    *out = buffer.data;
    *out_length = buffer.length;
    return 0;
}

#endif
