"""Comparing two variants of a kernel: figures side by side and a diff of one stage."""
