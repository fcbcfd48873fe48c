"""Quality tools: benchmarks (make bench) and the site report (make report). Figures, never asserted."""
