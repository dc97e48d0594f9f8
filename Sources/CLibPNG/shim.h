#ifndef LANDMARKER_CLIBPNG_SHIM_H
#define LANDMARKER_CLIBPNG_SHIM_H

#include <png.h>

/*
 * libpng's PNG_FORMAT_* values are macros built from other macros, which Swift
 * does not import. They are re-exported here as typed constants. Only the
 * simplified API (png_image_*) is used from Swift: it reports errors in the
 * png_image structure instead of longjmp-ing, which Swift frames cannot survive.
 */
static const png_uint_32 LANDMARKER_PNG_IMAGE_VERSION = PNG_IMAGE_VERSION;
static const png_uint_32 LANDMARKER_PNG_FORMAT_GRAY = PNG_FORMAT_GRAY;
static const png_uint_32 LANDMARKER_PNG_FORMAT_RGB = PNG_FORMAT_RGB;
static const png_uint_32 LANDMARKER_PNG_FORMAT_RGBA = PNG_FORMAT_RGBA;
static const png_uint_32 LANDMARKER_PNG_FORMAT_FLAG_ALPHA = PNG_FORMAT_FLAG_ALPHA;
static const png_uint_32 LANDMARKER_PNG_IMAGE_FLAG_16BIT_sRGB = PNG_IMAGE_FLAG_16BIT_sRGB;
static const png_uint_32 LANDMARKER_PNG_IMAGE_ERROR = PNG_IMAGE_ERROR;

#endif
