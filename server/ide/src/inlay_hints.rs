//! inlay_hints (owned by the language-server work).
