//! Large token arrays written straight into their response frame.
//!
//! tower-lsp turns every result into a `serde_json::Value` before writing it: for the
//! semantic tokens of a large file (a million integers) building, writing and freeing that
//! tree costs more than computing the tokens. So a full semantic-tokens result leaves the
//! handler with an empty `data` array and its `resultId`, the real array waits here under
//! that id, and the transport (which writes every frame to the client) puts the array's
//! JSON into the frame in place of the empty one. The client receives exactly what
//! serialising the whole result would have given.
//!
//! Only small frames are looked at (the response still holding `"data":[]` is a few dozen
//! bytes), and only while an array waits. Arrays whose response never comes (the request
//! was cancelled) are dropped once [`MAX_WAITING`] newer ones wait.
//!
//! Other large results (the outline, folding ranges of a big file) go the same way as
//! whole JSON texts: the handler serialises its typed result on its worker thread
//! ([`defer_json`], far cheaper than a `Value` tree), answers with a one-element
//! placeholder holding the returned marker string, and the transport writes the frame with
//! the text as its `result`.

use std::collections::VecDeque;
use std::sync::{Arc, Mutex};

/// Arrays kept for responses not yet written.
const MAX_WAITING: usize = 16;

/// A frame larger than this is never a response waiting for its array.
const MAX_MARKED_FRAME: usize = 512;

static WAITING: Mutex<VecDeque<(String, Arc<Vec<u32>>)>> = Mutex::new(VecDeque::new());

fn waiting() -> std::sync::MutexGuard<'static, VecDeque<(String, Arc<Vec<u32>>)>> {
    WAITING.lock().unwrap_or_else(|e| e.into_inner())
}

/// Keeps `data` for the response whose result has the (unique) `result_id` and an empty
/// `data` array.
pub(crate) fn defer(result_id: &str, data: Arc<Vec<u32>>) {
    let mut waiting = waiting();
    waiting.push_back((result_id.to_owned(), data));
    while waiting.len() > MAX_WAITING {
        waiting.pop_front();
    }
}

/// Serialised results waiting for their placeholder's frame, by marker number.
static WAITING_JSON: Mutex<VecDeque<(u64, Vec<u8>)>> = Mutex::new(VecDeque::new());

/// How a marker starts once serialised (`\u{1}` is written as `\u0001`).
const MARKER_PREFIX: &str = "\u{1}ptx-lsp-deferred:";
const SERIALISED_PREFIX: &[u8] = b"\\u0001ptx-lsp-deferred:";

/// Results smaller than this are answered directly: the placeholder only pays off on large ones.
pub(crate) const DEFER_JSON_BYTES: usize = 64 << 10;

/// Serialises `result` now. A small result comes back as `Err(result)` to be answered as
/// usual; a large one waits for its frame and the returned marker goes into the
/// placeholder answered in its place (a string field of a one-element list).
pub(crate) fn defer_json<T: serde::Serialize>(result: T) -> Result<String, T> {
    let Ok(bytes) = serde_json::to_vec(&result) else {
        return Err(result);
    };
    if bytes.len() < DEFER_JSON_BYTES {
        return Err(result);
    }
    static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(1);
    let number = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let mut waiting = WAITING_JSON.lock().unwrap_or_else(|e| e.into_inner());
    waiting.push_back((number, bytes));
    while waiting.len() > MAX_WAITING {
        waiting.pop_front();
    }
    Ok(format!("{MARKER_PREFIX}{number}"))
}

/// A placeholder's frame rewritten with its waiting result, if `body` is one.
fn splice_json(body: &[u8]) -> Option<Vec<u8>> {
    let at = find(body, SERIALISED_PREFIX)? + SERIALISED_PREFIX.len();
    let digits = body[at..].iter().take_while(|b| b.is_ascii_digit()).count();
    let number: u64 = std::str::from_utf8(&body[at..at + digits])
        .ok()?
        .parse()
        .ok()?;
    let message: serde_json::Value = serde_json::from_slice(body).ok()?;
    let marker = format!("{MARKER_PREFIX}{number}");
    // Only a response whose result holds the marker as a string is a placeholder.
    let holds_marker = |value: &serde_json::Value| {
        fn any(value: &serde_json::Value, marker: &str) -> bool {
            match value {
                serde_json::Value::String(s) => s == marker,
                serde_json::Value::Array(items) => items.iter().any(|v| any(v, marker)),
                serde_json::Value::Object(map) => map.values().any(|v| any(v, marker)),
                _ => false,
            }
        }
        any(value, &marker)
    };
    if !message.get("result").is_some_and(holds_marker) {
        return None;
    }
    let id = message.get("id")?;
    let bytes = {
        let mut waiting = WAITING_JSON.lock().unwrap_or_else(|e| e.into_inner());
        let index = waiting.iter().position(|(n, _)| *n == number)?;
        waiting.remove(index)?.1
    };
    let mut out = Vec::with_capacity(bytes.len() + 64);
    out.extend_from_slice(b"{\"jsonrpc\":\"2.0\",\"id\":");
    out.extend_from_slice(id.to_string().as_bytes());
    out.extend_from_slice(b",\"result\":");
    out.extend_from_slice(&bytes);
    out.push(b'}');
    Some(out)
}

/// The frame body with a waiting array or result put in, or unchanged.
pub(crate) fn splice(body: Vec<u8>) -> Vec<u8> {
    if body.len() > MAX_MARKED_FRAME {
        return body;
    }
    if let Some(spliced) = splice_json(&body) {
        return spliced;
    }
    let mut waiting = waiting();
    if waiting.is_empty() {
        return body;
    }
    for index in 0..waiting.len() {
        let id = &waiting[index].0;
        // Keys come sorted (serde_json's map) or in field order; either way the empty array
        // sits beside the id in the same object.
        let sorted = format!("\"data\":[],\"resultId\":\"{id}\"");
        let ordered = format!("\"resultId\":\"{id}\",\"data\":[]");
        let Some((at, pattern)) = find(&body, sorted.as_bytes())
            .map(|at| (at, &sorted))
            .or_else(|| find(&body, ordered.as_bytes()).map(|at| (at, &ordered)))
        else {
            continue;
        };
        let Some((_, data)) = waiting.remove(index) else {
            break;
        };
        drop(waiting);
        let empty = at + pattern.find("[]").unwrap_or(0);
        let mut out = Vec::with_capacity(body.len() + data.len() * 4);
        out.extend_from_slice(&body[..empty]);
        write_array(&mut out, &data);
        out.extend_from_slice(&body[empty + 2..]);
        return out;
    }
    body
}

/// `data` as a JSON array of integers.
pub(crate) fn write_array(out: &mut Vec<u8>, data: &[u32]) {
    let mut buffer = itoa::Buffer::new();
    out.push(b'[');
    for (i, n) in data.iter().enumerate() {
        if i > 0 {
            out.push(b',');
        }
        out.extend_from_slice(buffer.format(*n).as_bytes());
    }
    out.push(b']');
}

fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack.windows(needle.len()).position(|w| w == needle)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::{json, Value};
    use tower_lsp::lsp_types::{SemanticToken, SemanticTokens, SemanticTokensResult};

    /// The spliced frame is the frame of the whole result, whatever the key order.
    #[test]
    fn the_spliced_response_equals_the_serialised_result() {
        let data: Vec<u32> = (0..50u32).map(|i| i * 7919 % 1000).collect();
        let tokens: Vec<SemanticToken> = data
            .chunks(5)
            .map(|c| SemanticToken {
                delta_line: c[0],
                delta_start: c[1],
                length: c[2],
                token_type: c[3],
                token_modifiers_bitset: c[4],
            })
            .collect();
        let whole = |id: &str| {
            json!({"jsonrpc": "2.0", "id": 4, "result": SemanticTokensResult::Tokens(SemanticTokens {
                result_id: Some(id.into()),
                data: tokens.clone(),
            })})
        };
        let marked = |id: &str| {
            json!({"jsonrpc": "2.0", "id": 4, "result": SemanticTokensResult::Tokens(SemanticTokens {
                result_id: Some(id.into()),
                data: Vec::new(),
            })})
        };
        defer("splice-test-1", Arc::new(data.clone()));
        let spliced = splice(marked("splice-test-1").to_string().into_bytes());
        let parsed: Value = serde_json::from_slice(&spliced).unwrap();
        assert_eq!(parsed, whole("splice-test-1"));
        // Written once: the same frame again is left alone.
        let again = marked("splice-test-1").to_string().into_bytes();
        assert_eq!(splice(again.clone()), again);
        // Keys in field order.
        defer("splice-test-2", Arc::new(data));
        let ordered =
            br#"{"jsonrpc":"2.0","result":{"resultId":"splice-test-2","data":[]},"id":4}"#;
        let parsed: Value = serde_json::from_slice(&splice(ordered.to_vec())).unwrap();
        assert_eq!(parsed, whole("splice-test-2"));
        // Other frames pass unchanged.
        let other = br#"{"jsonrpc":"2.0","result":{"data":[],"resultId":"unknown"},"id":5}"#;
        assert_eq!(splice(other.to_vec()), other.to_vec());
    }

    /// A large result deferred as JSON comes out as the frame of the whole result; a small
    /// one is answered as usual; a frame that only mentions a marker is left alone.
    #[test]
    fn a_deferred_result_is_written_in_place_of_its_placeholder() {
        use tower_lsp::lsp_types::FoldingRange;
        let folds: Vec<FoldingRange> = (0..5_000)
            .map(|i| FoldingRange {
                start_line: i * 3,
                end_line: i * 3 + 2,
                ..FoldingRange::default()
            })
            .collect();
        let whole = json!({"jsonrpc": "2.0", "id": 9, "result": folds});
        let marker = defer_json(folds.clone()).expect("a large result is deferred");
        let placeholder = vec![FoldingRange {
            collapsed_text: Some(marker.clone()),
            ..FoldingRange::default()
        }];
        let frame = json!({"jsonrpc": "2.0", "result": placeholder, "id": 9}).to_string();
        assert!(frame.len() <= MAX_MARKED_FRAME, "{frame}");
        let spliced: Value = serde_json::from_slice(&splice(frame.clone().into_bytes())).unwrap();
        assert_eq!(spliced, whole);
        // Written once: the same placeholder again is left alone.
        assert_eq!(splice(frame.clone().into_bytes()), frame.into_bytes());
        // A marker inside some other message (a log line) is not a result.
        let marker2 = defer_json(folds).expect("deferred");
        let log = json!({"jsonrpc": "2.0", "method": "window/logMessage",
                         "params": {"type": 4, "message": marker2}})
        .to_string();
        assert_eq!(splice(log.clone().into_bytes()), log.into_bytes());
        // A small result is not deferred.
        let small = vec![FoldingRange::default()];
        assert_eq!(defer_json(small.clone()), Err(small));
    }
}
