#!/usr/bin/env python3
"""Regenerates Tests/Fixtures/opencv_crops.json: the uint8 crops OpenCV 4.10 (the fixed-point
generation MediaPipe's ImageToTensorCalculator runs on) makes of the golden-test images, called as
that calculator calls it, as FNV-1a 64 digests of their RGB bytes.

- ROI crops: the model-input ROIs of scripts/make_fixtures.py (pose_landmark_full on `bus_man`,
  hand_landmark_full on `t1_chip`), square of side max(w W, h H), with border replicate and zero.
- Letterboxed detector inputs: whole images padded to the tensor's aspect ratio, border zero.
- Segmentation masks brought back to image size from the same two ROIs (a pattern mask, value
  ((row * 31 + column * 17) mod 256) / 255): `cv2.warpAffine(mask, T, (W, H), INTER_LINEAR |
  WARP_INVERSE_MAP, BORDER_CONSTANT)` with T = scale(mask size) * M^-1 * scale(1 / image size) in
  float32, M MediaPipe's ROI matrix (GetRotatedSubRectToRectTransformMatrix, cosf and sinf of
  the C library) and M^-1 as its InverseMatrixCalculator forms it, as MediaPipe's
  WarpAffineCalculator runs it: FNV-1a 64 of the float32 output.

Each crop: MediaPipe's `PadRoi` in float32 when the aspect ratio is kept, `cv2.boxPoints` of the
float32 rotated rect (angle `rotation * 180.f / M_PI`), `cv2.getPerspectiveTransform` to the
tensor corners (0, H), (0, 0), (W, 0), (W, H), `cv2.warpPerspective` INTER_LINEAR, IPP off.
Run with opencv-python-headless 4.10.0.84 (scripts/make_fixtures.sh sets up its venv and runs it).
"""
import ctypes
import datetime
import json
import math
import sys
from pathlib import Path

import cv2
import numpy as np

from fnv1a import fnv1a64

REPO_ROOT = Path(__file__).resolve().parents[1]
FIXTURES = REPO_ROOT / "Tests" / "Fixtures"
IMAGES = REPO_ROOT / "samples" / "fixtures" / "images"
F = np.float32
# (image, legacy fixture, key path of its rect, tensor side)
ROI_CROPS = [
    ("bus_man", "legacy/pose_full/bus_man.json", ["intermediate", "pose_rect_from_detection"], 256),
    ("t1_chip", "legacy/hands_full/t1_chip.json", ["intermediate", "hand_rects_from_palm_detections", 0], 224),
]
# (ROI crop index, mask width, mask height)
MASK_WARPS = [(0, 256, 256), (1, 64, 48)]
# (image, tensor width, tensor height)
LETTERBOXES = [("bus", 224, 224), ("zidane", 224, 224), ("t1_cards_left", 192, 192), ("t1", 192, 128)]



def rgb(name):
    image = cv2.imread(str(IMAGES / f"{name}.png"), cv2.IMREAD_COLOR)
    if image is None:
        sys.exit(f"make_opencv_crops.py: missing {IMAGES / name}.png: run scripts/fetch_samples.sh")
    return np.ascontiguousarray(image[:, :, ::-1])


def pad_roi(width, height, tensor_width, tensor_height):
    """MediaPipe's PadRoi in float32: the ROI grown to the tensor's aspect ratio."""
    tensor_aspect = F(tensor_height) / F(tensor_width)
    roi_aspect = F(height) / F(width)
    if tensor_aspect > roi_aspect:
        return F(width), F(width) * tensor_aspect
    return F(height) / tensor_aspect, F(height)


def crop(pixels, cx, cy, width, height, rotation, tensor_width, tensor_height, border):
    angle = F(float(F(rotation) * F(180)) / math.pi)
    corners = cv2.boxPoints(((float(cx), float(cy)), (float(width), float(height)), float(angle)))
    target = np.array([[0, tensor_height], [0, 0], [tensor_width, 0], [tensor_width, tensor_height]], dtype=F)
    matrix = cv2.getPerspectiveTransform(corners.astype(F), target)
    return cv2.warpPerspective(pixels, matrix, (tensor_width, tensor_height), flags=cv2.INTER_LINEAR,
                               borderMode=border, borderValue=(0, 0, 0))


def roi_matrix(cx, cy, width, height, rotation, image_width, image_height):
    """MediaPipe's ROI matrix in float32 (tensor-normalised (u, v) -> image-normalised (x, y)),
    the 2 x 3 affine part, each product and sum rounded to float32 in C's order."""
    libm = ctypes.CDLL("libm.so.6")
    for name in ["cosf", "sinf"]:
        getattr(libm, name).restype = ctypes.c_float
        getattr(libm, name).argtypes = [ctypes.c_float]
    a, b, e, f = F(width), F(height), F(cx), F(cy)
    c, d = F(libm.cosf(F(rotation))), F(libm.sinf(F(rotation)))
    g, h = F(1) / F(image_width), F(1) / F(image_height)
    half = F(0.5)
    return [a * c * g, -b * d * g, (-half * a * c + half * b * d + e) * g,
            a * d * h, b * c * h, (-half * b * c - half * a * d + f) * h]


def mask_warp(mask, mask_width, mask_height, roi, image_width, image_height):
    """The mask warped back to the image, as SegmentationMaskWarp describes."""
    m0, m1, m3, m4, m5, m7 = roi_matrix(*roi, image_width, image_height)
    m10 = F(roi[2]) * (F(1) / F(image_width))  # the matrix's z scale: width / image width
    # The inverse as MediaPipe's InverseMatrixCalculator forms it (Eigen's blockwise 4 x 4 float
    # inverse): each cofactor times m10, then times the reciprocal of the determinant.
    reciprocal = F(1) / ((m5 * m0 - m1 * m4) * m10)
    i00, i01, i03 = (m5 * m10) * reciprocal, -((m1 * m10) * reciprocal), -((m10 * (m5 * m3 - m1 * m7)) * reciprocal)
    i10, i11, i13 = -((m4 * m10) * reciprocal), (m0 * m10) * reciprocal, -((m10 * (m0 * m7 - m4 * m3)) * reciprocal)
    mask_w, mask_h = F(mask_width), F(mask_height)
    inverse_w, inverse_h = F(1) / F(image_width), F(1) / F(image_height)
    transform = np.array([[mask_w * i00 * inverse_w, mask_w * i01 * inverse_h, mask_w * i03],
                          [mask_h * i10 * inverse_w, mask_h * i11 * inverse_h, mask_h * i13]], dtype=F)
    return cv2.warpAffine(mask, transform, (image_width, image_height),
                          flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP, borderMode=cv2.BORDER_CONSTANT, borderValue=0)


def pattern_mask(width, height):
    rows, columns = np.mgrid[0:height, 0:width]
    return (((rows * 31 + columns * 17) % 256).astype(F) / F(255)).astype(F)


def main():
    if not cv2.__version__.startswith("4.10."):
        sys.exit(f"make_opencv_crops.py: needs OpenCV 4.10 (found {cv2.__version__})")
    cv2.ipp.setUseIPP(False)
    roi_crops, letterboxes, mask_warps, rois = [], [], [], []
    for name, fixture, key_path, side in ROI_CROPS:
        pixels = rgb(name)
        height, width = pixels.shape[:2]
        rect = json.loads((FIXTURES / fixture).read_text())
        for key in key_path:
            rect = rect[key]
        cx, cy = F(rect["x_center"] * width), F(rect["y_center"] * height)
        roi_side = F(max(rect["width"] * width, rect["height"] * height))
        rois.append(((cx, cy, roi_side, roi_side, F(rect["rotation"])), width, height))
        for border_name, border in [("replicate", cv2.BORDER_REPLICATE), ("zero", cv2.BORDER_CONSTANT)]:
            out = crop(pixels, cx, cy, roi_side, roi_side, rect["rotation"], side, side, border)
            roi_crops.append({"image": f"images/{name}.png", "rect_file": fixture, "rect_path": key_path,
                              "side": side, "border": border_name, "fnv1a64": fnv1a64(out.tobytes())})
    for index, mask_width, mask_height in MASK_WARPS:
        roi, width, height = rois[index]
        out = mask_warp(pattern_mask(mask_width, mask_height), mask_width, mask_height, roi, width, height)
        mask_warps.append({**{k: roi_crops[2 * index][k] for k in ["image", "rect_file", "rect_path", "side"]},
                           "image_width": width, "image_height": height, "mask_width": mask_width,
                           "mask_height": mask_height, "fnv1a64": fnv1a64(out.astype("<f4").tobytes())})
    for name, tensor_width, tensor_height in LETTERBOXES:
        pixels = rgb(name)
        height, width = pixels.shape[:2]
        roi_width, roi_height = pad_roi(width, height, tensor_width, tensor_height)
        out = crop(pixels, F(width) / 2, F(height) / 2, roi_width, roi_height, 0, tensor_width, tensor_height,
                   cv2.BORDER_CONSTANT)
        letterboxes.append({"image": f"images/{name}.png", "width": tensor_width, "height": tensor_height,
                            "fnv1a64": fnv1a64(out.tobytes())})
    output = FIXTURES / "opencv_crops.json"
    output.write_text(json.dumps({
        "schema": "landmarker-fixtures/opencv-crops/1",
        "producer": {"opencv": cv2.__version__, "numpy": np.__version__, "ipp": False,
                     "script": "scripts/make_opencv_crops.py", "date": datetime.date.today().isoformat()},
        "roi_crops": roi_crops, "letterboxes": letterboxes, "mask_warps": mask_warps}, indent=1) + "\n")
    print(f"make_opencv_crops.py: wrote {output.relative_to(REPO_ROOT)}", file=sys.stderr)


if __name__ == "__main__":
    main()
