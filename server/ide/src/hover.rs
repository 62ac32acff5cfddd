//! hover (owned by the hover/completion work).
