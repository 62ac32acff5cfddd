//! Background tools give way to the editor's own work.
//!
//! A `ptxas` of a large file takes seconds and a whole core; on a two-core machine it would
//! slow every check that runs meanwhile. While an [`Interactive`] guard lives (the server
//! holds one while it computes the diagnostics of an edit), every tool started through
//! [`crate::compile`] or [`crate::sass`] is stopped (`SIGSTOP`), and it continues (`SIGCONT`)
//! when the last guard is dropped. A tool started while a guard lives starts stopped.
//!
//! The children are signalled, and reaped, under one lock: a process id is never signalled
//! after its process has been waited for (when the id could belong to another process).

use std::process::{Child, ExitStatus};
use std::sync::Mutex;

#[derive(Debug, Default)]
struct State {
    /// Live [`Interactive`] guards.
    holders: usize,
    /// The process ids of the tools running now.
    children: Vec<u32>,
    /// Tools start at the lowest priority ([`tools_at_lowest_priority`]).
    lowest: bool,
}

static STATE: Mutex<State> = Mutex::new(State {
    holders: 0,
    children: Vec::new(),
    lowest: false,
});

/// From now on every tool starts at the lowest scheduling priority (niceness 19): it runs on
/// what the process's own threads leave, and a thread of the process that wakes up (to read an
/// edit, say) gets a core at once instead of waiting for its share beside the tools. For the
/// language server, whose tools run in the background; a command-line run that waits for its
/// tool keeps the normal priority.
pub fn tools_at_lowest_priority() {
    state().lowest = true;
}

/// Whether [`tools_at_lowest_priority`] was asked for: the threads that only wait for a tool
/// and read its output lower their own priority then too.
pub(crate) fn tools_in_background() -> bool {
    state().lowest
}

fn state() -> std::sync::MutexGuard<'static, State> {
    STATE.lock().unwrap_or_else(|e| e.into_inner())
}

/// While one lives, background tools are stopped.
#[derive(Debug)]
#[must_use = "the tools continue as soon as the guard is dropped"]
pub struct Interactive(());

/// Stops the background tools until the guard is dropped.
pub fn interactive() -> Interactive {
    let mut state = state();
    state.holders += 1;
    if state.holders == 1 {
        for &pid in &state.children {
            signal(pid, Signal::Stop);
        }
    }
    Interactive(())
}

impl Drop for Interactive {
    fn drop(&mut self) {
        let mut state = state();
        state.holders = state.holders.saturating_sub(1);
        if state.holders == 0 {
            for &pid in &state.children {
                signal(pid, Signal::Continue);
            }
        }
    }
}

/// A started tool, known to the pause mechanism until it has been reaped.
#[derive(Debug)]
pub(crate) struct Tracked {
    child: Child,
    reaped: bool,
}

impl Tracked {
    pub fn new(child: Child) -> Tracked {
        let mut state = state();
        if state.holders > 0 {
            signal(child.id(), Signal::Stop);
        }
        if state.lowest {
            lowest_priority(child.id());
        }
        state.children.push(child.id());
        Tracked {
            child,
            reaped: false,
        }
    }

    /// The exit status, once the tool has ended (then it is no longer signalled).
    pub fn try_wait(&mut self) -> std::io::Result<Option<ExitStatus>> {
        let mut state = state();
        let status = self.child.try_wait()?;
        if status.is_some() {
            self.forget(&mut state);
        }
        Ok(status)
    }

    /// Kills the tool and waits for it.
    pub fn kill(&mut self) {
        let mut state = state();
        let _ = self.child.kill();
        let _ = self.child.wait();
        self.forget(&mut state);
    }

    fn forget(&mut self, state: &mut State) {
        let id = self.child.id();
        state.children.retain(|&pid| pid != id);
        self.reaped = true;
    }
}

impl Drop for Tracked {
    fn drop(&mut self) {
        if !self.reaped {
            self.kill();
        }
    }
}

enum Signal {
    Stop,
    Continue,
}

/// How much lower than the server's own the priority of its background threads is (a
/// `nice` increment).
pub const BACKGROUND_NICENESS: i32 = 5;

/// Lowers the priority of the calling thread for good (an unprivileged process cannot raise
/// it again), for threads that only run background work: on a busy machine the threads that
/// answer requests then get the cores first. On Linux a thread's niceness is its own; where
/// that fails or is not supported nothing changes.
pub fn lower_this_threads_priority() {
    #[cfg(target_os = "linux")]
    {
        use rustix::process::{getpriority_process, setpriority_process};
        let tid = rustix::thread::gettid();
        if let Ok(now) = getpriority_process(Some(tid)) {
            let _ = setpriority_process(Some(tid), (now + BACKGROUND_NICENESS).min(19));
        }
    }
}

#[cfg(unix)]
fn signal(pid: u32, signal: Signal) {
    use rustix::process::{kill_process, Pid, Signal as S};
    let Some(pid) = i32::try_from(pid).ok().and_then(Pid::from_raw) else {
        return;
    };
    let signal = match signal {
        Signal::Stop => S::STOP,
        Signal::Continue => S::CONT,
    };
    // The process may have ended on its own meanwhile (not yet reaped, so the id is still
    // its own): nothing to do then.
    let _ = kill_process(pid, signal);
}

#[cfg(not(unix))]
fn signal(_pid: u32, _signal: Signal) {}

/// Sets the niceness of the process `pid` (its main thread, and so the threads it starts
/// later) to 19; where that fails or is not supported nothing changes.
fn lowest_priority(pid: u32) {
    #[cfg(target_os = "linux")]
    {
        use rustix::process::{setpriority_process, Pid};
        if let Some(pid) = i32::try_from(pid).ok().and_then(Pid::from_raw) {
            let _ = setpriority_process(Some(pid), 19);
        }
    }
    #[cfg(not(target_os = "linux"))]
    let _ = pid;
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::process::Command;
    use std::time::{Duration, Instant};

    /// Once asked for, the tools start at niceness 19.
    #[cfg(target_os = "linux")]
    #[test]
    fn tools_start_at_the_lowest_priority_once_asked() {
        use rustix::process::{getpriority_process, Pid};
        tools_at_lowest_priority();
        let child = Command::new("sleep").arg("5").spawn().unwrap();
        let pid = Pid::from_raw(i32::try_from(child.id()).unwrap());
        let mut tracked = Tracked::new(child);
        assert_eq!(getpriority_process(pid).unwrap(), 19);
        tracked.kill();
    }

    /// A child started under a guard does not run until the guard is dropped.
    #[test]
    fn a_guard_holds_the_tools_until_dropped() {
        let dir = std::env::temp_dir().join(format!("ptx-pause-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let marker = dir.join("ran");
        let guard = interactive();
        assert!(state().holders > 0);
        let child = Command::new("sh")
            .arg("-c")
            .arg(format!("sleep 1; touch {}", marker.display()))
            .spawn()
            .unwrap();
        let mut tracked = Tracked::new(child);
        // The shell is stopped: it never gets past its `sleep` to the `touch`.
        std::thread::sleep(Duration::from_millis(1600));
        assert!(!marker.exists(), "the tool ran while paused");
        assert_eq!(tracked.try_wait().unwrap(), None);
        drop(guard);
        let start = Instant::now();
        let status = loop {
            if let Some(status) = tracked.try_wait().unwrap() {
                break status;
            }
            assert!(start.elapsed() < Duration::from_secs(20), "never continued");
            std::thread::sleep(Duration::from_millis(5));
        };
        assert!(status.success());
        assert!(marker.exists());
        assert!(state().children.is_empty());
        let _ = std::fs::remove_dir_all(&dir);
    }
}
