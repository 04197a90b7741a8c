"""Throughput against PyTorch: measured on a GPU, modelled anywhere; its text, CSV and plot."""
