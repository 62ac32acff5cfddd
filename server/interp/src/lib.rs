//! Interpreter for PTX snippets and kernels.
