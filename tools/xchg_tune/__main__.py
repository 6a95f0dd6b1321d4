"""python3 -m xchg_tune: the same as the xchg-tune command."""
import sys

from .cli import main

sys.exit(main())
