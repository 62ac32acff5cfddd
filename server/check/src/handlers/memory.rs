//! Rules for one family of instructions (see the module list in `handlers/mod.rs`).

use crate::context::{Ctx, InstInfo};
use crate::scope::Scope;

pub(crate) fn check(_ctx: &mut Ctx<'_>, _info: &InstInfo<'_>, _scope: &Scope<'_>) {}
