//! signature (owned by the hover/completion work).
