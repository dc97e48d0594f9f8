#ifndef LANDMARKER_BUILD_INFO_H
#define LANDMARKER_BUILD_INFO_H

/// The git commit the binary was built from (40 hex digits, with "-dirty" when the working
/// tree had changes), or "unknown". Set by Package.swift from $LANDMARKER_BUILD_COMMIT, which
/// scripts/build_release.sh passes.
const char *landmarker_build_commit(void);

#endif
