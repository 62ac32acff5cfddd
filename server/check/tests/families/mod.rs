//! The instruction families of the PTX ISA, shared by the agreement tests.

/// The instruction families of the PTX ISA (its sections 9.7.N).
pub const ISA_FAMILIES: &[(&str, &str)] = &[
    ("9.7.1", "integer arithmetic"),
    ("9.7.2", "extended-precision integer"),
    ("9.7.3", "floating point"),
    ("9.7.4", "half precision"),
    ("9.7.5", "mixed precision"),
    ("9.7.6", "comparison and selection"),
    ("9.7.7", "half precision comparison"),
    ("9.7.8", "logic and shift"),
    ("9.7.9", "data movement and conversion"),
    ("9.7.10", "texture"),
    ("9.7.11", "surface"),
    ("9.7.12", "control flow"),
    ("9.7.13", "parallel synchronization"),
    ("9.7.14", "warp-level matrix"),
    ("9.7.15", "wgmma"),
    ("9.7.16", "tcgen05"),
    ("9.7.17", "stack manipulation"),
    ("9.7.18", "video"),
    ("9.7.19", "miscellaneous"),
];
