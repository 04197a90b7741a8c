"""Compiling an autotune space offline and ranking it."""
