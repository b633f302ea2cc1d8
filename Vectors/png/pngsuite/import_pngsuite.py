#!/usr/bin/env python3
"""Copies the PngSuite images that pypng's source distribution embeds into this folder.

PngSuite itself is not on PyPI, but pypng's sdist carries 26 of its files (the basic
formats, Adam7, a filter, sBIT, odd size and transparency samples) in code/pngsuite.py.
None of PngSuite's x*.png (invalid) files is among them. Run once, then regenerate the
manifest with ../generate.py, which picks up every .png here:

    pip download --no-deps --no-binary :all: pypng==0.20220715.0 -d /tmp/pypng
    tar xzf /tmp/pypng/pypng-0.20220715.0.tar.gz -C /tmp/pypng
    python3 Vectors/png/pngsuite/import_pngsuite.py /tmp/pypng/pypng-0.20220715.0/code/pngsuite.py
    python3 Vectors/png/generate.py

Only the lower-case names are PngSuite's; the capitalised ones in that module are pypng's own.
"""

import importlib.util
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: import_pngsuite.py path/to/pypng/code/pngsuite.py")
    spec = importlib.util.spec_from_file_location("pngsuite", sys.argv[1])
    module = importlib.util.module_from_spec(spec)
    sys.modules["pngsuite"] = module  # the module registers its images on itself
    spec.loader.exec_module(module)
    count = 0
    for name, data in sorted(module.png.items()):
        if not name.islower():
            continue
        with open(os.path.join(HERE, name + ".png"), "wb") as f:
            f.write(data)
        count += 1
    print("%d PngSuite files written to %s" % (count, HERE))


if __name__ == "__main__":
    main()
