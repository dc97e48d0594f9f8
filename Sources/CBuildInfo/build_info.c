#include "build_info.h"

#ifndef LANDMARKER_BUILD_COMMIT
#define LANDMARKER_BUILD_COMMIT "unknown"
#endif

const char *landmarker_build_commit(void) { return LANDMARKER_BUILD_COMMIT; }
