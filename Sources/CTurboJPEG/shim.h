#ifndef LANDMARKER_CTURBOJPEG_SHIM_H
#define LANDMARKER_CTURBOJPEG_SHIM_H

#include <turbojpeg.h>

/*
 * The TurboJPEG 2.x API (tjInitDecompress / tjDecompressHeader3 / tjDecompress2,
 * tjInitCompress / tjCompress2) returns error codes and never longjmps into the
 * caller. Flag macros are re-exported as typed constants for Swift.
 */
static const int LANDMARKER_TJFLAG_LIMITSCANS = TJFLAG_LIMITSCANS;
static const int LANDMARKER_TJFLAG_ACCURATEDCT = TJFLAG_ACCURATEDCT;

#endif
