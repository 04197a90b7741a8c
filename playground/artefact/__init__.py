"""The compile and what it leaves: Triton's pipeline through its cache, the binary's SASS and resource usage, the map back to Python lines, a static read of the code."""
