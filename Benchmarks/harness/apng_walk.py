#!/usr/bin/env python3
"""Pillow's side of the APNG decoding comparison: seek to every frame and load it (Pillow
composites each frame onto the canvas as it seeks)."""
import sys

from PIL import Image

image = Image.open(sys.argv[1])
for index in range(image.n_frames):
    image.seek(index)
    image.load()
