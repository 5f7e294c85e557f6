import sys

from kgviz.cli import main

sys.exit(main())
