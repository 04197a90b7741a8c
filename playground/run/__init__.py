"""Running kernels: natively on a GPU or in Triton's interpreter in a worker process, with guarded buffers and fp64 references; `check` and its tolerances."""
