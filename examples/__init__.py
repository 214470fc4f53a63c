"""Built-in examples: networks, points, claim files."""
