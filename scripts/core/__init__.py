"""What every stage shares: atomic I/O and loud failures (io), the stage registry and runner (stage)."""
