#!/bin/sh
# Makes the GIF encoder's test input (Tests/PureGIFTests/EncoderThreadsTests.swift).
# mandelbrot_144x128x6.rgba: ffmpeg's lavfi `mandelbrot` source (ffmpeg 5.1), 144x128, 10 fps,
# its first 6 frames as raw RGBA8 (6 x 144 x 128 x 4 bytes, rows top to bottom, no header):
# thousands of colours a frame (so frames are quantized and dithered), many pixels changing
# (30-60% of the pixels from frame 2 on; frame 1 changes 144), large enough (18,432
# pixels, two 64-row bands) that the encoder's threads run on every frame but the second.
set -e
cd "$(dirname "$0")"
ffmpeg -v error -y -f lavfi -i mandelbrot=size=144x128:rate=10 -frames:v 6 -f rawvideo -pix_fmt rgba mandelbrot_144x128x6.rgba
