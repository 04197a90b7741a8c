"""playground: a Triton kernel compiler playground. See README.md."""
__version__ = "0.1.0"
