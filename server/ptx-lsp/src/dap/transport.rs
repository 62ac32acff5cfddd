//! DAP framing: `Content-Length: N` headers, a blank line, N bytes of JSON;
//! and the numbered responses and events written back.

use std::io::{BufRead, Write};
use std::sync::{Arc, Mutex};

use serde_json::{json, Value};

/// The largest message accepted (a launch with large buffer arguments fits).
const MAX_MESSAGE: usize = 256 << 20;

pub(crate) enum ReadError {
    /// The stream is broken or its framing is wrong: nothing more can be read.
    Io(String),
    /// One message was not JSON; the next may be fine.
    Json(String),
}

/// Reads one message; `None` at the end of the input.
pub(crate) fn read(input: &mut impl BufRead) -> Result<Option<Value>, ReadError> {
    let mut length = None;
    let mut line = String::new();
    loop {
        line.clear();
        let n = input
            .read_line(&mut line)
            .map_err(|e| ReadError::Io(format!("reading a header: {e}")))?;
        if n == 0 {
            return if length.is_none() {
                Ok(None)
            } else {
                Err(ReadError::Io("the input ended inside a header".into()))
            };
        }
        let header = line.trim_end_matches(['\r', '\n']);
        if header.is_empty() {
            if length.is_some() {
                break;
            }
            continue;
        }
        let Some((name, value)) = header.split_once(':') else {
            return Err(ReadError::Io(format!("`{header}` is not a header")));
        };
        if name.trim().eq_ignore_ascii_case("content-length") {
            let n: usize = value
                .trim()
                .parse()
                .map_err(|_| ReadError::Io(format!("bad Content-Length `{}`", value.trim())))?;
            if n > MAX_MESSAGE {
                return Err(ReadError::Io(format!(
                    "a {n}-byte message is larger than the {MAX_MESSAGE} bytes accepted"
                )));
            }
            length = Some(n);
        }
    }
    let mut body = vec![0; length.unwrap_or(0)];
    input
        .read_exact(&mut body)
        .map_err(|e| ReadError::Io(format!("reading a message: {e}")))?;
    serde_json::from_slice(&body)
        .map(Some)
        .map_err(|e| ReadError::Json(format!("a message is not JSON: {e}")))
}

/// The writer shared by the reading thread and the engine, numbering what
/// it sends.
#[derive(Clone)]
pub(crate) struct Out {
    inner: Arc<Mutex<(Box<dyn Write + Send>, i64)>>,
}

impl Out {
    pub(crate) fn new(writer: Box<dyn Write + Send>) -> Out {
        Out {
            inner: Arc::new(Mutex::new((writer, 1))),
        }
    }

    fn send(&self, mut message: Value) {
        let Ok(mut guard) = self.inner.lock() else {
            return;
        };
        let (writer, seq) = &mut *guard;
        message["seq"] = json!(*seq);
        *seq += 1;
        let body = message.to_string();
        // A client that went away cannot be told; the input's end stops us.
        let _ = write!(writer, "Content-Length: {}\r\n\r\n{body}", body.len());
        let _ = writer.flush();
    }

    /// Answers `request` with a body, or with an error message.
    pub(crate) fn respond(&self, request: &Value, result: Result<Value, String>) {
        let mut response = json!({
            "type": "response",
            "request_seq": request.get("seq").cloned().unwrap_or(json!(0)),
            "command": request.get("command").cloned().unwrap_or(json!("")),
            "success": result.is_ok(),
        });
        match result {
            Ok(Value::Null) => {}
            Ok(body) => response["body"] = body,
            Err(message) => {
                response["message"] = json!(message);
                response["body"] = json!({"error": {"id": 1, "format": message, "showUser": true}});
            }
        }
        self.send(response);
    }

    pub(crate) fn event(&self, event: &str, body: Value) {
        let mut message = json!({"type": "event", "event": event});
        if !body.is_null() {
            message["body"] = body;
        }
        self.send(message);
    }
}
