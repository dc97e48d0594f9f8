"""The synthetic video clips: people or a hand cut out of the sample photos, pasted on a grey
canvas and moved, zoomed, turned or hidden from frame to frame.

`scripts/fetch_samples.sh` writes their frames as PNG files under samples/<clip name>/ (run as
`python3 scripts/video_clips.py SAMPLES_DIR`); `scripts/make_references.py` reads those files and
runs MediaPipe on them (Tests/References/pose_clips.json and hands_clips.json), and the tests
read the same files. The identity clips (two people crossing, or one hidden while the other
stays) also get samples/<clip>/actors.json, who is where on each frame, which the identity tests
compare the track ids with.

Every frame is made the same way: the subject's box is cut out of its photo, resized with
Pillow's bicubic filter so that it is SUBJECT_HEIGHT pixels tall (the width keeps the box's
aspect ratio, rounded), then, depending on the clip,
- "dx": pasted at x = x0 + dx * i (whole pixels), vertically centred, on a CANVAS grey canvas
  (x0: centred when dx is 0, else MARGIN from the edge the subject moves away from);
- "zoom": resized to a height of SUBJECT_HEIGHT + zoom * i instead, pasted centred;
- "degrees": turned by degrees * i about its centre (bicubic, the canvas grey around it, the
  turned image grows to hold the corners), pasted centred;
- "actors": several subjects, or one that leaves the canvas or is hidden: each actor is pasted,
  vertically centred, at its own x for the frame (in list order, so a later one covers an
  earlier one where they overlap), or not at all where that x is None.
Frame i has the timestamp i * FRAME_INTERVAL_MS (25 fps). Translations paste the same resized
pixels at every frame, so only their position changes.
"""
import json
import sys
from pathlib import Path

from sample_clips import FRAME_INTERVAL_MS, import_pillow, write_clip

CANVAS = (640, 360)
GREY = (128, 128, 128)
SUBJECT_HEIGHT = 300
FRAMES = 30
# Left edge of the subject on the first frame of a clip that moves right; a clip that moves left
# starts with its right edge as far from the canvas's right edge.
MARGIN = 40

# Boxes (left, top, right, bottom) in photo pixels around MediaPipe 0.10.21's own landmarks on
# the photo, as Tests/References holds them, derived once and written here: the bounding box of
# the landmarks in pixels, widened on each side by `margin` times its width and heightened on each
# side by `margin` times its height, outwards to whole pixels and clipped to the photo.
# bus_man: the one pose of pose_image.json (num_poses 1) on bus.jpg, margins a quarter of the
# width and a sixth of the height. t1_hand: the one hand of hands_image.json (legacy, full model)
# on t1.jpg, margins the whole width and height: with less of the table and arm around it, the
# palm detector finds no hand in the resized cut. t1_man and astronaut: the one pose of
# pose_image.json (num_poses 1) on t1.jpg and astronaut.png, margins as bus_man's.
SUBJECTS = {
    "bus_man": {"photo": "bus.jpg", "margin": [0.25, 1 / 6], "box": [16, 358, 253, 966]},
    "t1_hand": {"photo": "t1.jpg", "margin": [1, 1], "box": [562, 325, 738, 574]},
    "t1_man": {"photo": "t1.jpg", "margin": [0.25, 1 / 6], "box": [0, 224, 389, 886]},
    "astronaut": {"photo": "astronaut.png", "margin": [0.25, 1 / 6], "box": [0, 0, 399, 512]},
}


def _clip(name, subject, **motion):
    return {"name": name, "subject": subject, "frames": FRAMES, **motion}


POSE_CLIPS = [_clip("pose_still", "bus_man", dx=0)] + [
    _clip(f"pose_{'right' if dx > 0 else 'left'}_{abs(dx)}px", "bus_man", dx=dx) for dx in (1, 2, 5, 10, -1, -2, -5, -10)
] + [_clip("pose_zoom", "bus_man", zoom=2), _clip("pose_turn", "bus_man", degrees=1)]
# Widths of the subjects at SUBJECT_HEIGHT: bus_man 117, t1_man 176, astronaut 234.
CENTRE = (CANVAS[0] - 117) // 2
PATH_CLIPS = [
    # bus_man standing still, hidden on frame 10, or on frames 10 to 12.
    {"name": "pose_hidden_1", "subject": "bus_man", "frames": FRAMES, "num_poses": 1,
     "actors": [{"subject": "bus_man", "xs": [None if i == 10 else CENTRE for i in range(FRAMES)]}]},
    {"name": "pose_hidden_3", "subject": "bus_man", "frames": FRAMES, "num_poses": 1,
     "actors": [{"subject": "bus_man", "xs": [None if 10 <= i <= 12 else CENTRE for i in range(FRAMES)]}]},
    # bus_man walking out on the right at 40 px per frame (wholly outside on frames 6 to 8) and back.
    {"name": "pose_exit", "subject": "bus_man", "frames": FRAMES, "num_poses": 1,
     "actors": [{"subject": "bus_man", "xs": [400 + 40 * max(0, 7 - abs(i - 7)) for i in range(FRAMES)]}]},
    # t1_man walking left and bus_man walking right past him, 12 px per frame each.
    {"name": "poses_two_pass", "subject": "bus_man", "frames": FRAMES, "num_poses": 2,
     "actors": [{"subject": "t1_man", "xs": [CANVAS[0] - 20 - 176 - 12 * i for i in range(FRAMES)]},
                {"subject": "bus_man", "xs": [20 + 12 * i for i in range(FRAMES)]}]},
    # The same two passing in front of the astronaut, who stands in the middle.
    {"name": "poses_three_pass", "subject": "bus_man", "frames": FRAMES, "num_poses": 3,
     "actors": [{"subject": "astronaut", "xs": [(CANVAS[0] - 234) // 2] * FRAMES},
                {"subject": "t1_man", "xs": [CANVAS[0] - 20 - 176 - 12 * i for i in range(FRAMES)]},
                {"subject": "bus_man", "xs": [20 + 12 * i for i in range(FRAMES)]}]},
]
# Two people who cross or one who is hidden, for the identity tests (docs/PIPELINE.md, "Track
# ids"); each also gets actors.json beside its frames (see `write_frames`).
IDENTITY_FRAMES = 44
IDENTITY_CLIPS = [
    # bus_man walking right behind t1_man walking left, 10 px per frame each: their boxes overlap
    # on frames 16 to 29, and t1_man covers all of bus_man on frames 22 to 24.
    {"name": "poses_cross_behind", "subject": "bus_man", "frames": IDENTITY_FRAMES, "num_poses": 2,
     "actors": [{"subject": "bus_man", "xs": [20 + 10 * i for i in range(IDENTITY_FRAMES)]},
                {"subject": "t1_man", "xs": [CANVAS[0] - 20 - 176 - 10 * i for i in range(IDENTITY_FRAMES)]}]},
    # The same walks with bus_man in front: he covers part of t1_man on frames 16 to 29.
    {"name": "poses_cross_front", "subject": "bus_man", "frames": IDENTITY_FRAMES, "num_poses": 2,
     "actors": [{"subject": "t1_man", "xs": [CANVAS[0] - 20 - 176 - 10 * i for i in range(IDENTITY_FRAMES)]},
                {"subject": "bus_man", "xs": [20 + 10 * i for i in range(IDENTITY_FRAMES)]}]},
    # bus_man and t1_man standing apart; bus_man is hidden on frames 10 to 14.
    {"name": "poses_one_hidden", "subject": "bus_man", "frames": 30, "num_poses": 2,
     "actors": [{"subject": "bus_man", "xs": [None if 10 <= i <= 14 else 80 for i in range(30)]},
                {"subject": "t1_man", "xs": [400] * 30}]},
]
HAND_CLIPS = [_clip("hand_still", "t1_hand", dx=0)] + [
    _clip(f"hand_{'right' if dx > 0 else 'left'}_{abs(dx)}px", "t1_hand", dx=dx) for dx in (1, 5, -1, -5)
] + [_clip("hand_zoom", "t1_hand", zoom=2), _clip("hand_turn", "t1_hand", degrees=1)]
CLIPS = POSE_CLIPS + PATH_CLIPS + IDENTITY_CLIPS + HAND_CLIPS


def subject_image(image_module, samples, subject):
    """The subject cut out of its photo and resized to SUBJECT_HEIGHT rows."""
    source = image_module.open(samples / SUBJECTS[subject]["photo"]).convert("RGB")
    left, top, right, bottom = SUBJECTS[subject]["box"]
    cut = source.crop((left, top, right, bottom))
    width = round((right - left) * SUBJECT_HEIGHT / (bottom - top))
    return cut, cut.resize((width, SUBJECT_HEIGHT), image_module.Resampling.BICUBIC)


def frames(image_module, samples, clip):
    """The clip's frames as Pillow RGB images, in order."""
    cut, subject = subject_image(image_module, samples, clip["subject"])
    actors = [(actor["xs"], subject_image(image_module, samples, actor["subject"])[1]) for actor in clip.get("actors", [])]
    result = []
    for i in range(clip["frames"]):
        canvas = image_module.new("RGB", CANVAS, GREY)
        if actors:
            for xs, image in actors:
                if xs[i] is not None:
                    canvas.paste(image, (xs[i], (CANVAS[1] - image.height) // 2))
        elif "dx" in clip:
            dx = clip["dx"]
            if dx == 0:
                x = (CANVAS[0] - subject.width) // 2
            elif dx > 0:
                x = MARGIN + dx * i
            else:
                x = CANVAS[0] - MARGIN - subject.width + dx * i
            canvas.paste(subject, (x, (CANVAS[1] - subject.height) // 2))
        else:
            if "zoom" in clip:
                height = SUBJECT_HEIGHT + clip["zoom"] * i
                piece = cut.resize((round(cut.width * height / cut.height), height), image_module.Resampling.BICUBIC)
            else:
                piece = subject.rotate(clip["degrees"] * i, resample=image_module.Resampling.BICUBIC, expand=True,
                                       fillcolor=GREY)
            canvas.paste(piece, ((CANVAS[0] - piece.width) // 2, (CANVAS[1] - piece.height) // 2))
        result.append(canvas)
    return result


def actors_json(image_module, samples, clip):
    """Who is where on each frame of an identity clip, the tests' ground truth: the canvas size,
    the frame interval, and each actor in paste order with its subject, its width and height in
    pixels and its left edge on each frame (null where it is not pasted)."""
    actors = []
    for actor in clip["actors"]:
        image = subject_image(image_module, samples, actor["subject"])[1]
        actors.append({"subject": actor["subject"], "width": image.width, "height": image.height, "xs": actor["xs"]})
    return json.dumps({"canvas": list(CANVAS), "frame_interval_ms": FRAME_INTERVAL_MS, "actors": actors}, indent=1)


def write_frames(samples):
    """Writes samples/<clip>/frame_NNNN.png for each clip whose folder is not complete yet, and
    samples/<clip>/actors.json (`actors_json`) for each identity clip."""
    for clip in CLIPS:
        extra = {}
        if clip in IDENTITY_CLIPS:
            extra["actors.json"] = lambda clip=clip: actors_json(import_pillow(), samples, clip)
        write_clip(samples, clip["name"], lambda clip=clip: frames(import_pillow(), samples, clip),
                   f"{clip['frames']} frames of {clip['subject']}", "video_clips", extra)


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: python3 scripts/video_clips.py SAMPLES_DIR")
    write_frames(Path(sys.argv[1]))
