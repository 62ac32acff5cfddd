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

/// The frame body with a waiting array put in, or unchanged.
pub(crate) fn splice(body: Vec<u8>) -> Vec<u8> {
    if body.len() > MAX_MARKED_FRAME {
        return body;
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
}
