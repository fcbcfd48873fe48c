"""Site generators (site_data -> docs/ browser data, figures, vendored assets) and the MkDocs hooks."""
