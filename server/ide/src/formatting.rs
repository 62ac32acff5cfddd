//! formatting (owned by the language-server work).
