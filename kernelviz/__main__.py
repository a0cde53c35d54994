"""``python -m kernelviz``: the ``kernelviz`` command."""

import sys

from kernelviz.cli import main

sys.exit(main())
