//! selection (owned by the language-server work).
