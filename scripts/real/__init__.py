"""Real-model stages (SmolLM2 measured, GPT-2 published or measured, GPT-2's tokenizer) and their merge for the pages."""
