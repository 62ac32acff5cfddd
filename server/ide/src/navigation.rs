//! navigation (owned by the language-server work).
