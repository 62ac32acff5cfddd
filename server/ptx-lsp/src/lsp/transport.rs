//! The stdio transport: `Content-Length` framing between the client and
//! tower-lsp, with malformed messages answered here.
//!
//! tower-lsp 0.20 answers the first undecodable message (invalid JSON, a
//! JSON value that is not a JSON-RPC message) and then stops reading its
//! input, which ends the server. To keep serving, the frames from stdin are
//! checked first: a valid JSON-RPC message is passed on to tower-lsp
//! unchanged; anything else gets the JSON-RPC error response (`-32700` parse
//! error, `-32600` invalid request) from this module, and reading goes on.
//! Headers without a usable `Content-Length` are skipped up to the next
//! blank line, and a `Content-Length` header found in the middle of a line
//! starts a new frame there (see [`read_frame`]). One task owns stdout and writes whole frames, from tower-lsp
//! and from this module, never interleaving two messages.
//!
//! Messages are also normalised: `"params": null` is removed (see
//! [`normalize`]). Several clients (Emacs Eglot, IntelliJ's lsp4ij, some
//! hand-written ones) send `{"method": "shutdown", "params": null}`; JSON-RPC
//! allows `params` to be omitted but not to be `null`, and tower-lsp 0.20
//! answers such a `shutdown` with `-32602 Unexpected params: null`, so that
//! the following `exit` ended the server with status 1. Fixing this here,
//! rather than moving to tower-lsp's successor `tower-lsp-server`, keeps the
//! change to one function with unit tests: the successor renames the crate,
//! its `LanguageServer` trait and the `lsp_types` re-exports, which touches
//! every handler, and as far as we know it decodes `params: null` for
//! parameterless methods the same way.

use std::io;

use serde_json::{json, Value};
use tokio::io::{
    AsyncBufRead, AsyncBufReadExt, AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt,
};
use tokio::io::{BufReader, DuplexStream};
use tokio::sync::mpsc;

/// Messages larger than this are refused (the largest real PTX files are a
/// few MB; a bogus length must not make the server allocate gigabytes).
const MAX_MESSAGE_BYTES: usize = 256 * 1024 * 1024;

/// One frame read from a stream.
#[derive(Debug, PartialEq, Eq)]
enum Frame {
    Body(Vec<u8>),
    /// Headers without a valid `Content-Length` (the body, if any, cannot be
    /// found and is skipped as further header lines).
    BadHeader(String),
}

/// Starts the transport tasks; returns the streams tower-lsp reads from and
/// writes to.
pub(crate) fn spawn<I, O>(stdin: I, stdout: O) -> (DuplexStream, DuplexStream)
where
    I: AsyncRead + Unpin + Send + 'static,
    O: AsyncWrite + Unpin + Send + 'static,
{
    let (server_input, mut to_server) = tokio::io::duplex(1 << 20);
    let (server_output, from_server) = tokio::io::duplex(1 << 20);
    let (frames_tx, mut frames_rx) = mpsc::unbounded_channel::<Vec<u8>>();

    // stdin → checks → tower-lsp (or an error response to stdout).
    let errors = frames_tx.clone();
    tokio::spawn(async move {
        let mut reader = BufReader::new(stdin);
        loop {
            match read_frame(&mut reader).await {
                Ok(Some(Frame::Body(body))) => match check_message(&body) {
                    Ok(()) => {
                        let body = normalize(body);
                        if to_server.write_all(&frame(&body)).await.is_err() {
                            break;
                        }
                    }
                    Err(response) => {
                        eprintln!(
                            "ptx-lsp: refused a malformed message: {}",
                            response["error"]["message"]
                        );
                        let _ = errors.send(frame(response.to_string().as_bytes()));
                    }
                },
                Ok(Some(Frame::BadHeader(header))) => {
                    eprintln!("ptx-lsp: skipped a message with a bad header: {header:?}");
                }
                Ok(None) => break,
                Err(error) => {
                    eprintln!("ptx-lsp: reading stdin failed: {error}");
                    break;
                }
            }
        }
        // Dropping `to_server` ends tower-lsp's input: the server stops.
    });

    // tower-lsp → whole frames → stdout.
    tokio::spawn(async move {
        let mut reader = BufReader::new(from_server);
        while let Ok(Some(Frame::Body(body))) = read_frame(&mut reader).await {
            // A semantic-tokens response gets its array here (see `splice`).
            let body = super::splice::splice(body);
            if frames_tx.send(frame(&body)).is_err() {
                break;
            }
        }
    });

    // The one writer of stdout.
    tokio::spawn(async move {
        let mut stdout = stdout;
        while let Some(bytes) = frames_rx.recv().await {
            if stdout.write_all(&bytes).await.is_err() || stdout.flush().await.is_err() {
                break;
            }
        }
    });

    (server_input, server_output)
}

fn frame(body: &[u8]) -> Vec<u8> {
    let mut out = format!("Content-Length: {}\r\n\r\n", body.len()).into_bytes();
    out.extend_from_slice(body);
    out
}

/// Reads one frame; `None` at the end of the stream.
///
/// A `Content-Length` header is recognised anywhere in a line, not only at
/// its start: after a frame whose length was wrong (a client counting
/// characters instead of bytes), the rest of its body runs into the next
/// header line, and reading resumes at that header instead of waiting for a
/// blank line that may never come.
async fn read_frame<R: AsyncBufRead + Unpin>(reader: &mut R) -> io::Result<Option<Frame>> {
    let mut length: Option<usize> = None;
    let mut header = String::new();
    let mut saw_header = false;
    loop {
        let Some(line) = read_header_line(reader).await? else {
            return Ok(None);
        };
        let line = String::from_utf8_lossy(&line);
        let line = line.trim_end_matches(['\r', '\n']);
        if line.is_empty() {
            if saw_header {
                break;
            }
            // Blank lines between messages are tolerated.
            continue;
        }
        saw_header = true;
        if let Some(at) = line.to_ascii_lowercase().find(CONTENT_LENGTH) {
            if at > 0 {
                eprintln!(
                    "ptx-lsp: skipped {at} bytes before a header (a previous length was wrong)"
                );
                header.clear();
            }
            length = line[at + CONTENT_LENGTH.len()..].trim().parse().ok();
        }
        if header.len() < 200 {
            header.extend(line.chars().take(200));
            header.push('\n');
        }
    }
    match length {
        Some(length) if length <= MAX_MESSAGE_BYTES => {
            let mut body = vec![0; length];
            reader.read_exact(&mut body).await?;
            Ok(Some(Frame::Body(body)))
        }
        _ => Ok(Some(Frame::BadHeader(header))),
    }
}

const CONTENT_LENGTH: &str = "content-length:";

/// Header lines longer than this keep only their end (where a header that
/// follows garbage is); reading never buffers more than this.
const MAX_HEADER_LINE: usize = 4096;

/// One line (with its `\n`), or its last [`MAX_HEADER_LINE`] bytes when it is
/// longer; `None` at the end of the stream.
async fn read_header_line<R: AsyncBufRead + Unpin>(reader: &mut R) -> io::Result<Option<Vec<u8>>> {
    let mut line = Vec::new();
    loop {
        let read = (&mut *reader)
            .take(MAX_HEADER_LINE as u64)
            .read_until(b'\n', &mut line)
            .await?;
        if read == 0 {
            return Ok((!line.is_empty()).then_some(line));
        }
        if line.ends_with(b"\n") {
            return Ok(Some(line));
        }
        if line.len() > MAX_HEADER_LINE {
            line.drain(..line.len() - MAX_HEADER_LINE);
        }
    }
}

/// Whether a body is a JSON-RPC 2.0 message tower-lsp can take; if not, the
/// error response to send instead.
fn check_message(body: &[u8]) -> Result<(), Value> {
    let value: Value = serde_json::from_slice(body).map_err(|error| {
        json!({"jsonrpc": "2.0", "id": null,
               "error": {"code": -32700, "message": format!("Parse error: {error}")}})
    })?;
    let id = value.get("id").cloned().unwrap_or(Value::Null);
    let invalid = |why: &str| {
        let id = if id.is_string() || id.is_number() {
            id.clone()
        } else {
            Value::Null
        };
        json!({"jsonrpc": "2.0", "id": id,
               "error": {"code": -32600, "message": format!("Invalid request: {why}")}})
    };
    let Some(object) = value.as_object() else {
        return Err(invalid("not a JSON object (batches are not supported)"));
    };
    if object.get("jsonrpc").and_then(Value::as_str) != Some("2.0") {
        return Err(invalid("`jsonrpc` must be \"2.0\""));
    }
    let id_ok = match object.get("id") {
        None => true,
        Some(id) => id.is_string() || id.is_i64() || id.is_u64() || id.is_null(),
    };
    if !id_ok {
        return Err(invalid("`id` must be a string or an integer"));
    }
    match object.get("method") {
        Some(Value::String(_)) => match object.get("params") {
            None | Some(Value::Object(_) | Value::Array(_) | Value::Null) => Ok(()),
            Some(_) => Err(invalid("`params` must be an object or an array")),
        },
        Some(_) => Err(invalid("`method` must be a string")),
        None if object.contains_key("result") || object.contains_key("error") => Ok(()),
        None => Err(invalid("neither a request, a notification nor a response")),
    }
}

/// Removes `"params": null` from a request or notification (a message
/// [`check_message`] accepted), so that the methods without parameters
/// (`shutdown`, `exit`, `initialized` sent that way, …) are accepted, and a
/// method that needs parameters gets tower-lsp's usual "missing params"
/// error. Any other message is passed on byte for byte.
fn normalize(body: Vec<u8>) -> Vec<u8> {
    // A message with `"params": null` is a few dozen bytes: a large one (a
    // whole document) is not decoded a second time.
    if body.len() > 4096 {
        return body;
    }
    let Ok(Value::Object(mut object)) = serde_json::from_slice::<Value>(&body) else {
        return body;
    };
    if !object.contains_key("method") || object.get("params") != Some(&Value::Null) {
        return body;
    }
    object.remove("params");
    serde_json::to_vec(&Value::Object(object)).unwrap_or(body)
}

#[cfg(test)]
mod tests {
    use super::*;

    async fn frames(input: &[u8]) -> Vec<Frame> {
        let mut reader = BufReader::new(input);
        let mut out = Vec::new();
        while let Some(frame) = read_frame(&mut reader).await.unwrap() {
            out.push(frame);
        }
        out
    }

    #[tokio::test]
    async fn frames_bad_headers_and_resynchronisation() {
        let input = b"Content-Length: 2\r\n\r\n{}\r\nX-Junk: 1\r\n\r\ncontent-length:  3\r\nContent-Type: x\r\n\r\n[1]";
        assert_eq!(
            frames(input).await,
            [
                Frame::Body(b"{}".to_vec()),
                Frame::BadHeader("X-Junk: 1\n".into()),
                Frame::Body(b"[1]".to_vec()),
            ]
        );
        // Lengths 2 bytes short and long: reading resumes at the next header.
        // (The header the long body swallowed is lost with its message.)
        let input = b"Content-Length: 3\r\n\r\n[1,2]Content-Length: 2\r\n\r\n{}Content-Length: 5\r\n\r\n[]Content-Length: 3\r\n\r\n[7]Content-Length: 3\r\n\r\n[8]";
        assert_eq!(
            frames(input).await,
            [
                Frame::Body(b"[1,".to_vec()),
                Frame::Body(b"{}".to_vec()),
                Frame::Body(b"[]Con".to_vec()),
                Frame::BadHeader("tent-Length: 3\n".into()),
                Frame::Body(b"[8]".to_vec()),
            ]
        );
        // A truncated body is the end of the stream, not a hang or a panic.
        let mut reader = BufReader::new(&b"Content-Length: 10\r\n\r\n{}"[..]);
        assert!(read_frame(&mut reader).await.is_err());
    }

    #[test]
    fn messages_are_checked_before_tower_lsp_sees_them() {
        let code = |body: &str| {
            check_message(body.as_bytes())
                .err()
                .map(|e| e["error"]["code"].clone())
        };
        assert_eq!(code(r#"{"jsonrpc":"2.0","id":1,"method":"x"}"#), None);
        assert_eq!(code(r#"{"jsonrpc":"2.0","method":"x","params":{}}"#), None);
        assert_eq!(code(r#"{"jsonrpc":"2.0","id":"a","result":null}"#), None);
        assert_eq!(code("{not json"), Some(json!(-32700)));
        assert_eq!(code("[]"), Some(json!(-32600)));
        assert_eq!(code(r#"{"id":1,"method":"x"}"#), Some(json!(-32600)));
        assert_eq!(
            code(r#"{"jsonrpc":"2.0","id":1.5,"method":"x"}"#),
            Some(json!(-32600))
        );
        assert_eq!(
            code(r#"{"jsonrpc":"2.0","id":1,"method":3}"#),
            Some(json!(-32600))
        );
        assert_eq!(
            code(r#"{"jsonrpc":"2.0","id":1,"method":"x","params":7}"#),
            Some(json!(-32600))
        );
        let response = check_message(br#"{"jsonrpc":"1.0","id":4,"method":"x"}"#).unwrap_err();
        assert_eq!(response["id"], 4);
    }

    #[test]
    fn null_params_are_removed_from_requests_and_notifications() {
        let normalized = |body: &str| -> Value {
            serde_json::from_slice(&normalize(body.as_bytes().to_vec())).unwrap()
        };
        for (before, after) in [
            (
                r#"{"jsonrpc":"2.0","id":1,"method":"shutdown","params":null}"#,
                json!({"jsonrpc":"2.0","id":1,"method":"shutdown"}),
            ),
            (
                r#"{"jsonrpc":"2.0","method":"exit","params":null}"#,
                json!({"jsonrpc":"2.0","method":"exit"}),
            ),
            (
                r#"{"jsonrpc":"2.0","method":"initialized","params":null}"#,
                json!({"jsonrpc":"2.0","method":"initialized"}),
            ),
        ] {
            assert_eq!(normalized(before), after, "{before}");
        }
        // Everything else is passed on unchanged, byte for byte.
        for body in [
            r#"{"jsonrpc":"2.0","id":1,"method":"shutdown"}"#,
            r#"{"jsonrpc":"2.0","method":"initialized","params":{}}"#,
            r#"{"jsonrpc":"2.0","id":2,"method":"x","params":[null]}"#,
            r#"{"jsonrpc":"2.0","id":3,"result":null}"#,
            r#"{"jsonrpc":"2.0", "id":4, "error":{"code":1,"message":"m","data":null}}"#,
        ] {
            assert_eq!(
                normalize(body.as_bytes().to_vec()),
                body.as_bytes(),
                "{body}"
            );
        }
    }
}
