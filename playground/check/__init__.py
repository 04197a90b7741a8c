"""`playground check`: is a kernel right? One checker for the kernels of a spec (kernels/) and for real code (a
function, an nn.Module, an autograd.Function or a KernelBench solution), with one rule for numbers and one registry
of guards. ARCHITECTURE.md draws its layers.
"""
