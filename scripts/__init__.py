"""The nexttoken build pipeline: one module per stage, each runnable with `python -m scripts.NAME`."""
