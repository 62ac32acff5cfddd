//! completion (owned by the hover/completion work).
