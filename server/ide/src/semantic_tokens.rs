//! semantic_tokens (owned by the language-server work).
