"""What every trainer shares: the command-line options and the seeded data before its own loop.
Each method's trainer lives in its own folder (`kgviz/reasoners/<method>/train.py`)."""
