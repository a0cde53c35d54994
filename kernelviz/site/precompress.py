"""Precompressed siblings for static hosts: beside each text asset of a built site (the suffixes ``kernelviz serve``
compresses as it serves, ``server.COMPRESSED``: HTML, JS, CSS, JSON, SVG, Python, WebAssembly, ...), ``NAME.gz``, the
same bytes gzip-compressed, written only when smaller. A host told to (nginx's ``gzip_static on``, Caddy's
``file_server { precompressed gzip }``, ...) then sends ``NAME.gz`` with ``Content-Encoding: gzip`` to a browser that
accepts gzip, with no compression per request. The bytes depend on the file alone (level 6, as the server's, and no
timestamp), so a rebuild writes the same siblings. No brotli: Python's standard library has no brotli encoder, and
kernelviz adds no package for it.
"""

import gzip
from pathlib import Path

from .server import COMPRESSED

LEVEL = 6
SUFFIX = ".gz"


def siblings(folder):
    """Write ``NAME.gz`` beside every text asset under `folder` (see above). Returns [(file, raw bytes, gzipped
    bytes)] of the siblings written."""
    written = []
    for file in sorted(Path(folder).rglob("*")):
        if file.suffix not in COMPRESSED or not file.is_file():
            continue
        raw = file.read_bytes()
        packed = gzip.compress(raw, compresslevel=LEVEL, mtime=0)
        if len(packed) >= len(raw):
            continue
        file.with_name(file.name + SUFFIX).write_bytes(packed)
        written.append((file, len(raw), len(packed)))
    return written
