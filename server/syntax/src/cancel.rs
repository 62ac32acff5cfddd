//! Cooperative cancellation of long analyses.
//!
//! The language server runs each analysis on a worker thread inside a [`scope`] holding the
//! request's flag; the flag is set when the request is cancelled (`$/cancelRequest`), when its
//! document is closed or changed in a way that makes the result useless, and at shutdown. The
//! analyses that can take long on a large document (the checker's walk over functions, the
//! token walk, formatting, outlines) ask [`cancelled`] between units of work and stop early;
//! their partial result is thrown away by the caller, which answers the request as cancelled.
//! Outside a scope (the command line, tests) nothing is ever cancelled.

use std::cell::RefCell;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

thread_local! {
    static CURRENT: RefCell<Option<Arc<AtomicBool>>> = const { RefCell::new(None) };
}

/// The flag of the analysis running on this thread, in place until dropped.
#[must_use = "the flag applies while the scope lives"]
#[derive(Debug)]
pub struct Scope {
    previous: Option<Arc<AtomicBool>>,
}

/// Makes `flag` the cancellation flag of what runs on this thread until the scope is dropped.
pub fn scope(flag: Arc<AtomicBool>) -> Scope {
    let previous = CURRENT.with(|current| current.borrow_mut().replace(flag));
    Scope { previous }
}

impl Drop for Scope {
    fn drop(&mut self) {
        let previous = self.previous.take();
        CURRENT.with(|current| *current.borrow_mut() = previous);
    }
}

/// Whether the analysis running on this thread has been cancelled.
pub fn cancelled() -> bool {
    CURRENT.with(|current| {
        current
            .borrow()
            .as_ref()
            .is_some_and(|flag| flag.load(Ordering::Relaxed))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_scope_sets_and_restores_the_flag() {
        assert!(!cancelled());
        let outer = Arc::new(AtomicBool::new(false));
        let inner = Arc::new(AtomicBool::new(true));
        {
            let _outer = scope(outer.clone());
            assert!(!cancelled());
            {
                let _inner = scope(inner);
                assert!(cancelled());
            }
            assert!(!cancelled());
            outer.store(true, Ordering::Relaxed);
            assert!(cancelled());
        }
        assert!(!cancelled());
    }
}
