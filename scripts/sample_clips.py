"""The sample clips: crop windows sliding over a sample photo, one window per frame.

`scripts/make_references.py` runs MediaPipe on these clips (Tests/References), and
`scripts/fetch_samples.sh` writes their frames as PNG files under samples/<clip name>/ (run as
`python3 scripts/sample_clips.py SAMPLES_DIR`), where the video examples read them.

A clip is a crop window of a fixed size whose top-left corner moves linearly, in whole pixels,
from `start` to `end` over `frames` frames: x_i = x0 + (x1 - x0) * i // (frames - 1), same for y.
Frame i has the timestamp i * FRAME_INTERVAL_MS (25 fps).
"""
import functools
import shutil
import sys
from pathlib import Path

FRAME_INTERVAL_MS = 40
POSE_CLIP = {"name": "bus_tilt", "source": "bus", "width": 520, "height": 700,
             "start": [0, 380], "end": [10, 230], "frames": 30}
HANDS_CLIP = {"name": "t1_pan", "source": "t1", "width": 480, "height": 400,
              "start": [460, 330], "end": [560, 380], "frames": 30}
CLIPS = [(POSE_CLIP, "bus.jpg"), (HANDS_CLIP, "t1.jpg")]
# Pillow decodes the photos and encodes the frames; fetched from PyPI when it is not installed.
PILLOW = "pillow==11.3.0"


def windows(clip):
    """(index, x, y, timestamp in ms) of each frame's crop window."""
    (x0, y0), (x1, y1), count = clip["start"], clip["end"], clip["frames"]
    return [(i, x0 + (x1 - x0) * i // (count - 1), y0 + (y1 - y0) * i // (count - 1), i * FRAME_INTERVAL_MS)
            for i in range(count)]


@functools.cache
def import_pillow():
    """Pillow's Image module, from the environment or from a wheel downloaded with pip (once per
    process)."""
    try:
        from PIL import Image
        return Image
    except ImportError:
        pass
    import atexit
    import subprocess
    import tempfile
    import zipfile
    folder = Path(tempfile.mkdtemp(prefix="sample_clips_"))
    atexit.register(shutil.rmtree, folder, True)
    print(f"sample_clips: downloading {PILLOW} with pip", file=sys.stderr)
    subprocess.run([sys.executable, "-m", "pip", "download", "--quiet", "--no-deps", "--only-binary=:all:",
                    "-d", str(folder), PILLOW], check=True, stdout=sys.stderr)
    wheel = next(folder.glob("*.whl"))
    with zipfile.ZipFile(wheel) as archive:
        archive.extractall(folder / "site")
    sys.path.insert(0, str(folder / "site"))
    from PIL import Image
    return Image


def write_clip(samples, name, make_frames, description, tool, extra_files=None):
    """Writes samples/<name>/frame_NNNN.png from the Pillow images `make_frames()` yields, and
    each text file of `extra_files` (file name: a function returning its text), unless that
    folder is complete already: through samples/<name>.part, renamed when every file and the
    `.complete` marker (holding `description`) are written. `tool` starts the messages."""
    folder = samples / name
    if (folder / ".complete").exists():
        print(f"{tool}: {name} present", file=sys.stderr)
        return
    partial = samples / (name + ".part")
    partial.mkdir(parents=True, exist_ok=True)
    count = 0
    for index, frame in enumerate(make_frames()):
        frame.save(partial / f"frame_{index:04d}.png")
        count += 1
    for file_name, make_text in (extra_files or {}).items():
        (partial / file_name).write_text(make_text() + "\n")
    (partial / ".complete").write_text(description + "\n")
    if folder.exists():
        shutil.rmtree(folder)
    partial.rename(folder)
    print(f"{tool}: {name}: {count} frames in {folder}", file=sys.stderr)


def write_frames(samples):
    """Writes samples/<clip>/frame_NNNN.png for each clip whose folder is not complete yet."""
    for clip, photo in CLIPS:
        def make_frames(clip=clip, photo=photo):
            source = import_pillow().open(samples / photo).convert("RGB")
            for _, x, y, _ in windows(clip):
                yield source.crop((x, y, x + clip["width"], y + clip["height"]))
        write_clip(samples, clip["name"], make_frames, f"{clip['frames']} frames from {photo}", "sample_clips")


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: python3 scripts/sample_clips.py SAMPLES_DIR")
    write_frames(Path(sys.argv[1]))
