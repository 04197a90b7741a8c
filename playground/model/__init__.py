"""The performance model: constants (with sources), program (what the binary says), traffic (the tile
schedule's DRAM and L2 bytes), explain (the time, its breakdown and its band)."""
