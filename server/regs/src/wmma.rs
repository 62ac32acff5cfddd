//! Placeholder for the wmma family.

use crate::{Opcode, RegError, VectorCount};

pub(crate) fn counts(op: &Opcode) -> Result<Vec<VectorCount>, RegError> {
    Err(RegError::at(0, format!("{} is not supported yet", op.text)))
}

pub(crate) fn cases() -> Vec<crate::catalog::Case> {
    Vec::new()
}
