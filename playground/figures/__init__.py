"""Numbers derived from a compiled kernel: occupancy, the launch grid and its waves, the roofline model (always labelled modelled), the what-if recompiles, --expect."""
