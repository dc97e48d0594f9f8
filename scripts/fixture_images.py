"""The golden-test images and clip: canonical RGB PNGs made from the sample photos.

`scripts/fetch_samples.sh` runs this (`python3 scripts/fixture_images.py SAMPLES_DIR`) after
fetching the photos of scripts/samples.tsv; it writes samples/fixtures/images/<name>.png and the
frames of one clip, samples/fixtures/video/<clip>/frame_NNNN.png. `scripts/make_fixtures.py`
runs MediaPipe on exactly these files and commits what it outputs to Tests/Fixtures; the tests
read the same files. Nothing here is committed.

Each image is its photo decoded with Pillow to RGB (a gray photo's value replicated to three
channels), then the listed steps, all whole-pixel copies: `crop` (x, y, width, height),
`rot90cw` (a quarter turn clockwise), `mirror` (left-right). The clip is a crop window of a
fixed size whose top-left corner moves in whole pixels from `start` to `end`
(x_i = x0 + (x1 - x0) * i // (frames - 1), same for y), frame i at i * 40 ms (25 fps).
"""
import sys
from pathlib import Path

from sample_clips import import_pillow, windows, write_clip

# name: (photo of scripts/samples.tsv, steps, what it shows)
IMAGES = {
    "bus": ("bus.jpg", [], "street scene, several full-body pedestrians in front of a bus"),
    "zidane": ("zidane.jpg", [], "two men cut at the waist, one pointing"),
    "astronaut": ("astronaut.png", [], "upper-body portrait, one hand at the bottom edge"),
    "grace_hopper": ("grace_hopper.jpg", [], "head-and-shoulders portrait"),
    "camera": ("camera.png", [], "grayscale: man with a film camera on a tripod"),
    "coffee": ("coffee.png", [], "NEGATIVE: coffee cup, no person, no hand"),
    "chelsea": ("chelsea.png", [], "NEGATIVE: a cat, no person, no hand"),
    "t1": ("t1.jpg", [], "six people around a card table, many hands"),
    "bus_man": ("bus.jpg", [("crop", 10, 250, 300, 660)], "one man standing, whole body"),
    "bus_man_rot90cw": ("bus.jpg", [("crop", 10, 250, 300, 660), ("rot90cw",)],
                        "the standing man turned a quarter clockwise (lying on his side)"),
    "t1_cards_left": ("t1.jpg", [("crop", 90, 330, 300, 300)], "two hands holding a fan of cards"),
    "t1_cards_right": ("t1.jpg", [("crop", 970, 400, 300, 300)], "a hand holding cards, another on the table"),
    "t1_chip": ("t1.jpg", [("crop", 600, 400, 300, 300)], "a hand holding up a poker chip"),
    "t1_chip_mirror": ("t1.jpg", [("crop", 600, 400, 300, 300), ("mirror",)],
                       "the chip hand mirrored left-right (the other handedness)"),
}

# The clip of the video goldens: 50 frames of 640 x 360 panning over the card table.
CLIP = {"name": "t1_sweep", "source": "t1.jpg", "width": 640, "height": 360,
        "start": [300, 300], "end": [620, 420], "frames": 50}


def make_image(image_module, samples, name):
    """The Pillow RGB image `name` of IMAGES, from its photo in `samples`."""
    photo, steps, _ = IMAGES[name]
    image = image_module.open(samples / photo).convert("RGB")
    for step in steps:
        if step[0] == "crop":
            x, y, width, height = step[1:]
            image = image.crop((x, y, x + width, y + height))
        elif step[0] == "rot90cw":
            image = image.transpose(image_module.Transpose.ROTATE_270)
        elif step[0] == "mirror":
            image = image.transpose(image_module.Transpose.FLIP_LEFT_RIGHT)
        else:
            raise ValueError(f"unknown step {step}")
    return image


def write_images(samples):
    """Writes samples/fixtures/images/<name>.png for each image not written yet, and the clip."""
    folder = samples / "fixtures" / "images"
    folder.mkdir(parents=True, exist_ok=True)
    image_module = import_pillow()
    for name in IMAGES:
        path = folder / f"{name}.png"
        if path.exists():
            continue
        partial = folder / f".{name}.png.part"
        make_image(image_module, samples, name).save(partial, format="PNG")
        partial.rename(path)
        print(f"fixture_images: {path}", file=sys.stderr)

    def make_frames():
        source = image_module.open(samples / CLIP["source"]).convert("RGB")
        for _, x, y, _ in windows(CLIP):
            yield source.crop((x, y, x + CLIP["width"], y + CLIP["height"]))
    write_clip(samples / "fixtures" / "video", CLIP["name"], make_frames,
               f"{CLIP['frames']} frames from {CLIP['source']}", "fixture_images")


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: python3 scripts/fixture_images.py SAMPLES_DIR")
    write_images(Path(sys.argv[1]))
