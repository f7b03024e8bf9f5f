"""Model importers: turn a model file into a :class:`utvm_build.graph.Graph`."""
