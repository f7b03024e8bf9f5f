"""C code generation: from a planned graph to the files of the generated directory."""
