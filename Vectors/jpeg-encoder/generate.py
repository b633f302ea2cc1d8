#!/usr/bin/env python3
"""Golden vectors for the PureJPEG encoder: small PPM/PGM inputs cut from a real photograph
(matplotlib's sample grace_hopper.jpg, pass its path) plus synthetic ones, and the JPEG bytes
libjpeg-turbo's cjpeg writes for them. manifest.tsv lists each case:

    output  input  quality  subsampling  progressive  optimize  restart  grayscale

The Swift tests encode each input with the same settings and compare bytes.
Usage: python3 generate.py /path/to/grace_hopper.jpg
"""
import subprocess, sys, os
import numpy as np
from PIL import Image

here = os.path.dirname(os.path.abspath(__file__))
photo = Image.open(sys.argv[1]).convert('RGB')

def save(name, img):
    img.save(os.path.join(here, name))

save('photo_64x48.ppm', photo.crop((200, 150, 264, 198)))
save('photo_37x29.ppm', photo.crop((100, 300, 137, 329)))
save('photo_17x9.ppm', photo.crop((300, 100, 317, 109)))
save('photo_130x97.ppm', photo.resize((130, 97), Image.LANCZOS))
save('photo_gray_45x31.pgm', photo.crop((250, 250, 295, 281)).convert('L'))
rng = np.random.RandomState(7)
save('noise_24x16.ppm', Image.fromarray((rng.rand(16, 24, 3) * 255).astype('uint8')))
save('tiny_1x1.ppm', Image.fromarray(np.array([[[200, 30, 90]]], dtype='uint8')))
# Saturated colours and hard edges exercise clamping in the colour conversion and large AC.
bars = np.zeros((20, 40, 3), dtype='uint8')
for i, c in enumerate([(255, 0, 0), (0, 255, 0), (0, 0, 255), (255, 255, 255), (0, 0, 0)]):
    bars[:, i * 8:(i + 1) * 8] = c
save('bars_40x20.ppm', Image.fromarray(bars))

sample = {'444': '1x1', '422': '2x1', '420': '2x2'}
cases = []
def case(inp, q, sub='420', prog=0, opt=0, restart=0, gray=0):
    stem = inp.split('.')[0]
    name = f'{stem}_q{q}_{sub}' + ('_prog' if prog else '') + ('_opt' if opt else '') \
        + (f'_rst{restart}' if restart else '') + ('_gray' if gray else '') + '.jpg'
    # A 1-component JPEG has 1x1 sampling (libjpeg's default for grayscale); cjpeg would
    # write -sample's factors into its SOF. Below quality 25 the scaled tables pass 255 and
    # cjpeg would write 16-bit DQT; -baseline clamps them as our encoder always does.
    one = gray or inp.endswith('.pgm')
    args = ['cjpeg', '-quality', str(q), '-dct', 'int', '-sample', '1x1' if one else sample[sub]]
    if q < 25: args.append('-baseline')
    if prog: args.append('-progressive')
    if opt: args.append('-optimize')
    if restart: args += ['-restart', f'{restart}B']
    if gray: args.append('-grayscale')
    with open(os.path.join(here, inp), 'rb') as f:
        data = subprocess.run(args, stdin=f, capture_output=True, check=True).stdout
    with open(os.path.join(here, name), 'wb') as f:
        f.write(data)
    cases.append([name, inp, q, sub, prog, opt, restart, gray])

for inp in ['photo_64x48.ppm', 'photo_37x29.ppm', 'photo_17x9.ppm', 'noise_24x16.ppm', 'tiny_1x1.ppm', 'bars_40x20.ppm']:
    for sub in ['420', '422', '444']:
        case(inp, 75, sub)
    case(inp, 85, '420', opt=1)
    case(inp, 75, '420', prog=1)
for q in [1, 25, 50, 90, 100]:
    case('photo_130x97.ppm', q, '420')
case('photo_130x97.ppm', 85, '422', prog=1)
case('photo_130x97.ppm', 85, '444', prog=1)
case('photo_130x97.ppm', 80, '420', restart=5)
case('photo_130x97.ppm', 80, '420', prog=1, restart=7)
case('photo_130x97.ppm', 80, '420', opt=1, restart=3)
case('photo_130x97.ppm', 75, '420', gray=1)
case('photo_gray_45x31.pgm', 75, '420')
case('photo_gray_45x31.pgm', 90, '420', prog=1)
case('photo_gray_45x31.pgm', 60, '420', opt=1, restart=2)

with open(os.path.join(here, 'manifest.tsv'), 'w') as f:
    for c in cases:
        f.write('\t'.join(map(str, c)) + '\n')
print(len(cases), 'cases')
