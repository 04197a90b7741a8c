"""`playground check` on real code: a function, an nn.Module or an autograd.Function that launches Triton, or a
KernelBench solution, against a PyTorch reference, with a verdict the code under test cannot game.

Layers inside, low to high: arguments (--inputs, --init, --set as data), draws (seeded inputs by class,
parameters by name), problem (a KernelBench problem file, its sizes overridden), cases (what runs: seeds, input
sets, another shape, input classes, layouts), sandbox (the child's process: scratch folder, limits, bubblewrap),
child (the untrusted process: the subject runs there on the virtual GPU, first, on fresh inputs, poisoned
memory), reference (fp64, in this process, after), guards (every comparison, each named), verdict (the typed
result), judge (the whole check, one solution or many), text.
"""
