"""`make report`: the quality report of the built site (run as `python -m scripts.quality.report`).

config (paths, targets), weight (page weight), server (gzip like GitHub Pages), lighthouse,
browser (axe, requests, demo start-up), render (report.md, comparison), __main__ (the run).
"""
