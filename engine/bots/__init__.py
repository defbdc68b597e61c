"""Bots: they see exactly what their seat may see (the public state and their own faces)."""
