//! The `ptx/run` requests in progress.
//!
//! A run can take as long as its step limit allows, so runs are kept apart
//! from everything else: at most [`MAX_CONCURRENT_RUNS`] at once (a further
//! one is refused at once, so runs never fill the request slots that hover,
//! completion and diagnostics need), and each has a stop flag that the
//! interpreter reads every few thousand steps. The flag is set when the
//! request is cancelled (`$/cancelRequest` drops the handler, and with it the
//! [`RunTicket`]), when its document is closed, at `shutdown`, and when the
//! run outlives the time limit (`run.timeLimitMs`).

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use tower_lsp::lsp_types::Url;

/// Runs allowed at the same time (each occupies one core).
pub(crate) const MAX_CONCURRENT_RUNS: usize = 2;

/// The runs in progress.
#[derive(Debug, Default)]
pub(crate) struct Runs {
    active: Mutex<Vec<(u64, Url, Arc<AtomicBool>)>>,
    next_id: AtomicU64,
}

/// One run in progress; dropping it stops the run (if it still goes on) and
/// frees its place.
#[derive(Debug)]
pub(crate) struct RunTicket {
    runs: Arc<Runs>,
    id: u64,
    stop: Arc<AtomicBool>,
}

impl Runs {
    /// A place for a run of `uri`, or why there is none.
    pub fn start(self: &Arc<Self>, uri: &Url) -> Result<RunTicket, String> {
        let mut active = self.active.lock().unwrap_or_else(|e| e.into_inner());
        if active.len() >= MAX_CONCURRENT_RUNS {
            return Err(format!(
                "{} runs are in progress already; wait for one to end (or cancel it)",
                active.len()
            ));
        }
        let id = self.next_id.fetch_add(1, Ordering::Relaxed);
        let stop = Arc::new(AtomicBool::new(false));
        active.push((id, uri.clone(), stop.clone()));
        Ok(RunTicket {
            runs: self.clone(),
            id,
            stop,
        })
    }

    /// Stops the runs of a document (it was closed).
    pub fn stop_document(&self, uri: &Url) {
        let active = self.active.lock().unwrap_or_else(|e| e.into_inner());
        for (_, _, stop) in active.iter().filter(|(_, u, _)| u == uri) {
            stop.store(true, Ordering::Relaxed);
        }
    }

    /// Stops every run (the server shuts down).
    pub fn stop_all(&self) {
        let active = self.active.lock().unwrap_or_else(|e| e.into_inner());
        for (_, _, stop) in active.iter() {
            stop.store(true, Ordering::Relaxed);
        }
    }

    /// How many runs are in progress.
    #[cfg(test)]
    pub fn len(&self) -> usize {
        self.active.lock().map_or(0, |active| active.len())
    }
}

impl RunTicket {
    /// The flag the interpreter reads.
    pub fn flag(&self) -> Arc<AtomicBool> {
        self.stop.clone()
    }

    pub fn stop(&self) {
        self.stop.store(true, Ordering::Relaxed);
    }
}

impl Drop for RunTicket {
    fn drop(&mut self) {
        self.stop();
        let mut active = self.runs.active.lock().unwrap_or_else(|e| e.into_inner());
        active.retain(|(id, _, _)| *id != self.id);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn places_are_bounded_and_freed_and_flags_set() {
        let runs = Arc::new(Runs::default());
        let a: Url = "file:///a.ptx".parse().unwrap();
        let b: Url = "file:///b.ptx".parse().unwrap();
        let first = runs.start(&a).unwrap();
        let second = runs.start(&b).unwrap();
        assert!(runs.start(&a).unwrap_err().contains("in progress"));
        runs.stop_document(&a);
        assert!(first.flag().load(Ordering::Relaxed));
        assert!(!second.flag().load(Ordering::Relaxed));
        let flag = first.flag();
        drop(first);
        assert!(flag.load(Ordering::Relaxed));
        assert_eq!(runs.len(), 1);
        let third = runs.start(&a).unwrap();
        runs.stop_all();
        assert!(second.flag().load(Ordering::Relaxed) && third.flag().load(Ordering::Relaxed));
    }
}
