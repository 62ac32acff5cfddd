//! Knowledge base of the PTX ISA 9.1: instructions, qualifiers, versions and targets.

pub mod notation;
pub mod specgen;
pub mod specmd;
pub mod target;
pub mod version;
