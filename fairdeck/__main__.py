import sys

from fairdeck.cli import main

sys.exit(main())
