"""The tiny model's data stage: tokenizer -> checkpoint (training) -> export to site_data/tiny/."""
