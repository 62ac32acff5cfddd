//! `ptx-lsp dap`: a Debug Adapter Protocol server on stdio that debugs a
//! snippet or a kernel in the interpreter.
//!
//! Only this module knows DAP messages; the stepping, breakpoints and
//! watch expressions are `ptx_interp::Session`'s. The main thread reads
//! `Content-Length`-framed requests and hands them to an engine thread that
//! owns the session, except `pause`, which it answers itself by raising the
//! running session's pause flag. DAP threads are the warps of the running
//! CTA; each warp has a focused lane (the one that hit the breakpoint, or
//! the one `@lane N` in the debug console picked) whose registers and call
//! stack are shown. Data breakpoints watch buffer elements, shared memory and
//! registers; a Tensor Memory scope and a fragment-layout scope (and `layout`
//! in the console) show tcgen05 memory and which lane holds which matrix
//! element of a matrix instruction.

mod engine;
mod launch;
mod transport;

use std::io::{BufReader, Write};
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{mpsc, Arc, Mutex};

use serde_json::{json, Value};

pub(crate) use transport::Out;

/// The pause flag of the session running now, if one runs.
pub(crate) type PauseSlot = Arc<Mutex<Option<Arc<AtomicBool>>>>;

/// Serves one debug session on stdin/stdout.
pub(crate) fn serve() -> ExitCode {
    let stdout: Box<dyn Write + Send> = Box::new(std::io::stdout());
    run(BufReader::new(std::io::stdin().lock()), stdout)
}

fn run(mut input: impl std::io::BufRead, output: Box<dyn Write + Send>) -> ExitCode {
    let out = Out::new(output);
    let pause: PauseSlot = Arc::new(Mutex::new(None));
    let (tx, rx) = mpsc::channel::<Value>();
    let engine = {
        let out = out.clone();
        let pause = pause.clone();
        std::thread::Builder::new()
            .name("ptx-dap".into())
            .stack_size(crate::lsp::STACK_BYTES)
            .spawn(move || engine::main(&rx, &out, &pause))
    };
    let Ok(engine) = engine else {
        eprintln!("error: cannot start the debugger thread");
        return ExitCode::from(2);
    };
    loop {
        let message = match transport::read(&mut input) {
            Ok(Some(message)) => message,
            Ok(None) => break,
            Err(error) => {
                // A frame that is not JSON is answered with an output event
                // (there is no request to answer); a broken stream ends.
                match error {
                    transport::ReadError::Json(text) => {
                        out.event(
                            "output",
                            json!({"category": "stderr", "output": format!("{text}\n")}),
                        );
                        continue;
                    }
                    transport::ReadError::Io(text) => {
                        eprintln!("error: {text}");
                        break;
                    }
                }
            }
        };
        if message.get("type").and_then(Value::as_str) != Some("request") {
            continue;
        }
        let command = message.get("command").and_then(Value::as_str).unwrap_or("");
        if command == "pause" || command == "disconnect" || command == "terminate" {
            if let Some(flag) = pause.lock().ok().and_then(|slot| slot.clone()) {
                flag.store(true, Ordering::Relaxed);
            }
        }
        if command == "pause" {
            out.respond(&message, Ok(Value::Null));
            continue;
        }
        let last = command == "disconnect";
        if tx.send(message).is_err() || last {
            break;
        }
    }
    // The client is gone: a launch still running stops at once.
    if let Some(flag) = pause.lock().ok().and_then(|slot| slot.clone()) {
        flag.store(true, Ordering::Relaxed);
    }
    drop(tx);
    let _ = engine.join();
    ExitCode::SUCCESS
}
