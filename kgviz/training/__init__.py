"""What every trainer shares: the command-line options, the lock on its checkpoint folder and the
seeded data (`run`), the epoch loop with early stopping (`loop`) and the checkpoint card (`card`).
Each method's trainer lives in its own folder (`kgviz/reasoners/<method>/train.py`)."""
