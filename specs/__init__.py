"""Formal statements: activation conditions and theorem constants (see the issues)."""
