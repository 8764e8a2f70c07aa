"""`python -m ptorewrite`: the same as the `ptorewrite` command."""

import sys

from ptorewrite.cli import main

sys.exit(main())
