#!/usr/bin/env bash
# The Debian packages this project needs, listed in one place. scripts/demo.sh,
# scripts/install.sh and .ci/run all install through this script, and
# scripts/check_package_list.sh (run by .ci/run) checks that none of them names
# a package itself.
#
# Usage: scripts/system_packages.sh [--video] [--list]
#   --video adds what video files need (ffmpeg: `landmarker pose|hand VIDEO_FILE`, the video
#           tests); the build itself does not need it.
#   --list  prints the packages, one per line, and installs nothing.
# Installs what is missing with apt-get, printing each package first. Without
# root it names the packages to install and exits with status 1.
set -euo pipefail

# libpng and libturbojpeg decode and encode images, libyuv converts YUV camera and video frames
# to RGB (ImageIO); libssl-dev brings libcrypto.so.3, which `landmarker extract` loads (dlopen)
# to hash its inputs and models; pkg-config finds the others for SwiftPM; binutils holds the linker the Swift toolchain drives, and
# objdump for scripts/check_avx512_isolation.sh.
packages=(libpng-dev libturbojpeg0-dev libyuv-dev libssl-dev pkg-config binutils)
# ffmpeg and ffprobe decode and encode video files (a child process of the CLI).
video_packages=(ffmpeg)

list=0
for argument in "$@"; do
  case "$argument" in
    --list) list=1 ;;
    --video) packages+=("${video_packages[@]}") ;;
    *) echo "system_packages: unknown argument '$argument' (expected --video or --list)" >&2; exit 2 ;;
  esac
done
if ((list)); then
  printf '%s\n' "${packages[@]}"
  exit 0
fi

say() { echo "system_packages: $*" >&2; }
missing=()
for package in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q 'install ok installed' || missing+=("$package")
done
if ((${#missing[@]} == 0)); then
  say "all present (${packages[*]})"
  exit 0
fi
if ((EUID != 0)); then
  say "missing: ${missing[*]}"
  say "install them as root, then run this again:  apt-get install ${missing[*]}"
  exit 1
fi
say "installing: ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq >&2
apt-get install -y -qq --no-install-recommends "${missing[@]}" >&2
say "installed: ${missing[*]}"
