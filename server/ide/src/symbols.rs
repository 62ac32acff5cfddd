//! symbols (owned by the language-server work).
