"""MkDocs hooks, listed in mkdocs.yml: numbers from site_data through Jinja2, formulas to MathML."""
