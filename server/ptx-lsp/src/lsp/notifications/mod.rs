//! Notification handlers, one per file. Document changes are applied
//! synchronously, before any `.await` (architecture invariant 6).

pub(crate) mod did_change;
pub(crate) mod did_change_configuration;
pub(crate) mod did_close;
pub(crate) mod did_open;
