"""What everything else is built on: kernel specs and where they are found, the K=V grammar, element types, stages, targets and their GPUs, and the Request that puts a compile together."""
