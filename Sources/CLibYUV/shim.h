#ifndef LANDMARKER_CLIBYUV_SHIM_H
#define LANDMARKER_CLIBYUV_SHIM_H

#include <libyuv/convert_argb.h>
#include <libyuv/planar_functions.h>

/*
 * libyuv's colour matrices are globals of an incomplete struct type, which
 * Swift does not import; their addresses are re-exported here. Each is a
 * "Yvu" matrix: handed the V plane where libyuv expects U (and U for V), the
 * RGB24 converters then write R, G, B in memory order instead of B, G, R
 * (libyuv's own NV12ToRAWMatrix macro swaps the planes the same way).
 */
static inline const struct YuvConstants *landmarker_yuv_bt601_limited(void) { return &kYvuI601Constants; }
static inline const struct YuvConstants *landmarker_yuv_bt601_full(void) { return &kYvuJPEGConstants; }
static inline const struct YuvConstants *landmarker_yuv_bt709_full(void) { return &kYvuF709Constants; }

#endif
