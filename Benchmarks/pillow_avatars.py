#!/usr/bin/env python3
"""Pillow's avatar pipeline, timed on the photos the avatar-pipeline benchmark wrote (benchmarks --filter avatar).

Per photo, from its bytes in memory: Image.open, draft('RGB', (draft, draft)) (libjpeg's DCT scaling to the
smallest power-of-two reduction at least that large), ImageOps.fit to size x size with LANCZOS (centre crop and
resize in one pass), a circle mask (drawn once, 4x supersampled and reduced, as anti-aliased as ours) put in as
alpha, and PNG at the zlib level the Swift side uses. Each photo is timed by this thread's CPU clock, as the Swift
rows are, and the median of the repetitions kept; the decode alone (open, draft, load) is timed the same way.

Writes each photo's fitted avatar before the mask (RGB PNG, named as the photo) to --out, for the Swift side's PSNR
against its full-resolution reference, and prints one JSON line: the Pillow version and, per photo name, the
median CPU milliseconds of the whole pipeline and of the decode alone. Exits with status 3 and a line naming what
to install when Pillow is missing.

Usage: pillow_avatars.py --photos DIR --out DIR [--size 96] [--draft 192] [--png-level 1] [--repetitions 15]
"""

import argparse
import io
import json
import os
import statistics
import sys
import time

try:
    import PIL
    from PIL import Image, ImageDraw, ImageOps
except ImportError:
    print("Pillow is not installed (python3 -m pip install pillow)")
    sys.exit(3)


def circle_mask(size):
    """An anti-aliased disc filling size x size: drawn at 4x, reduced with LANCZOS."""
    large = Image.new("L", (size * 4, size * 4), 0)
    ImageDraw.Draw(large).ellipse((0, 0, size * 4 - 1, size * 4 - 1), fill=255)
    return large.resize((size, size), Image.Resampling.LANCZOS)


def decoded(data, draft):
    image = Image.open(io.BytesIO(data))
    image.draft("RGB", (draft, draft))
    image.load()
    return image


def fitted(data, size, draft):
    return ImageOps.fit(decoded(data, draft), (size, size), Image.Resampling.LANCZOS)


def avatar(data, size, draft, mask, png_level):
    image = fitted(data, size, draft)
    image.putalpha(mask)
    output = io.BytesIO()
    image.save(output, "PNG", compress_level=png_level)
    return output.getvalue()


def median_cpu_ms(body, repetitions):
    body()  # warm-up
    samples = []
    for _ in range(repetitions):
        start = time.thread_time()
        body()
        samples.append(time.thread_time() - start)
    return statistics.median(samples) * 1e3


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--photos", required=True)
    parser.add_argument("--out", required=True)
    parser.add_argument("--size", type=int, default=96)
    parser.add_argument("--draft", type=int, default=192)
    parser.add_argument("--png-level", type=int, default=1)
    parser.add_argument("--repetitions", type=int, default=15)
    arguments = parser.parse_args()

    names = sorted(name for name in os.listdir(arguments.photos) if name.endswith(".jpg"))
    mask = circle_mask(arguments.size)
    pipeline_ms = {}
    decode_ms = {}
    for name in names:
        with open(os.path.join(arguments.photos, name), "rb") as file:
            data = file.read()
        stem = os.path.splitext(name)[0]
        pipeline_ms[stem] = median_cpu_ms(
            lambda: avatar(data, arguments.size, arguments.draft, mask, arguments.png_level), arguments.repetitions
        )
        decode_ms[stem] = median_cpu_ms(lambda: decoded(data, arguments.draft), arguments.repetitions)
        fitted(data, arguments.size, arguments.draft).save(os.path.join(arguments.out, stem + ".png"))

    print(json.dumps({"pillow": PIL.__version__, "pipeline_ms": pipeline_ms, "decode_ms": decode_ms}))


if __name__ == "__main__":
    main()
