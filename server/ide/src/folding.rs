//! folding (owned by the language-server work).
