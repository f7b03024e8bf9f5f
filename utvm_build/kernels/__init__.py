"""C kernel sources shipped with the package (copied into generated directories)."""
