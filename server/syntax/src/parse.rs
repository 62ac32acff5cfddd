//! One parsed text: the tree, the text it came from, and what is wrong with it.

use std::collections::HashMap;
use std::fmt::Write as _;
use std::sync::{Arc, OnceLock};

use tree_sitter::{Node, Point, Range, Tree};

use crate::ast::Module;
use crate::kinds as k;
use crate::TextRange;

/// An immutable parse of a text: cheap to clone and share between threads.
///
/// A parse made by [`Parse::new_parallel`] may consist of several trees, each covering a
/// run of whole top-level items; [`Parse::module`] reads them as one module.
#[derive(Debug, Clone)]
pub struct Parse {
    tree: Tree,
    /// The trees of the further chunks of a chunked parse, in text order (usually empty).
    more: Vec<Tree>,
    text: Arc<String>,
    /// Computed on first use and shared by the clones, with what the next parse of an
    /// edited text can reuse of it.
    nesting: Arc<OnceLock<(Nesting, Option<Arc<NestingMemo>>)>>,
    /// The memo of the nesting walk of an earlier version of the text.
    seed: Option<Arc<NestingMemo>>,
}

/// How deeply each top-level node of a tree nests, kept so that the parse of an edited text
/// walks only the top-level nodes whose text changed. A top-level node is known by its kind
/// and a hash of its text: the same text at the top level parses to the same subtree.
#[derive(Default)]
pub struct NestingMemo {
    nodes: HashMap<(u16, u64), NodeNesting>,
}

impl std::fmt::Debug for NestingMemo {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("NestingMemo")
            .field("nodes", &self.nodes.len())
            .finish()
    }
}

/// One top-level node's nesting, its ranges relative to the node's start.
#[derive(Debug, Clone)]
struct NodeNesting {
    depth: usize,
    deepest: TextRange,
    past_limit: Option<TextRange>,
}

/// Trees nesting deeper than this (blocks in blocks, parentheses, long operator chains)
/// are not analysed: every analysis walks the tree on the call stack, and real PTX nests a
/// few dozen levels at most. The checker reports such a file with one diagnostic instead
/// (see [`Parse::too_deep`]); the threads that run analyses have stacks sized for this
/// depth with a wide margin.
pub const MAX_NESTING: usize = 1000;

/// How deeply a tree nests: the depth of its deepest node and that node's range.
///
/// Subtrees spanning fewer than [`SMALL_SUBTREE`] bytes are not entered (every level of
/// nesting in the grammar takes at least one byte of text, so they add at most a few
/// dozen levels), which keeps the walk to a few nodes per statement.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Nesting {
    pub depth: usize,
    pub deepest: TextRange,
    /// The first node (in text order) nesting deeper than [`MAX_NESTING`].
    pub past_limit: Option<TextRange>,
}

/// See [`Nesting`].
const SMALL_SUBTREE: usize = 16;

/// Node counts of a tree.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct TreeStats {
    pub nodes: usize,
    pub errors: usize,
    pub missing: usize,
}

/// What kind of syntax error a tree contains.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SyntaxErrorKind {
    /// Text the grammar could not place.
    Unexpected,
    /// A token the grammar expected but did not find (e.g. `;`).
    Missing(String),
}

/// A syntax error, with a message in plain words.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SyntaxError {
    pub kind: SyntaxErrorKind,
    pub range: TextRange,
    pub message: String,
}

impl Parse {
    /// Parses `text` from scratch.
    pub fn new(text: impl Into<String>) -> Self {
        let text = Arc::new(text.into());
        let tree = crate::new_parser()
            .parse(text.as_bytes(), None)
            .expect("a parser with a language and no timeout always returns a tree");
        Parse {
            tree,
            more: Vec::new(),
            text,
            nesting: Arc::default(),
            seed: None,
        }
    }

    /// Parses `text` on up to `threads` threads, in chunks split where a top-level item ends
    /// at the start of a line; the caller decides whether the text is large enough to be
    /// worth it. There are a few chunks per thread, each thread taking the next chunk not
    /// yet taken, so that a chunk slower to parse than its size says (long runs of data)
    /// does not leave the other threads idle. The result reads as [`Parse::new`]'s does (the same items,
    /// ranges and errors). When a chunk does not parse cleanly on its own (a split inside
    /// something that spans it), the whole text is parsed again in one piece, so broken
    /// files cost one extra parse and never a different result. Each chunk's nesting (see
    /// [`Parse::nesting`]) is walked on the thread that parsed it, while the tree is fresh.
    pub fn new_parallel(text: impl Into<String>, threads: usize) -> Self {
        /// Chunks per thread, and the smallest chunk worth a parser of its own.
        const CHUNKS_PER_THREAD: usize = 4;
        const MIN_CHUNK: usize = 64 * 1024;
        let text: Arc<String> = Arc::new(text.into());
        let chunks = if threads < 2 {
            1
        } else {
            (threads * CHUNKS_PER_THREAD)
                .min(text.len() / MIN_CHUNK)
                .max(threads)
        };
        let splits = chunk_splits(&text, chunks);
        if splits.is_empty() {
            return Parse::new_shared(text);
        }
        let mut bounds = vec![(0usize, Point::new(0, 0))];
        let mut row = 0;
        let mut last = 0;
        for &split in &splits {
            row += memchr_count(&text.as_bytes()[last..split]);
            last = split;
            bounds.push((split, Point::new(row, 0)));
        }
        let end = text.len();
        let end_point = Point::new(
            row + memchr_count(&text.as_bytes()[last..]),
            text.len() - text[..end].rfind('\n').map_or(0, |i| i + 1),
        );
        bounds.push((end, end_point));
        let ranges: Vec<Range> = bounds
            .windows(2)
            .map(|w| Range {
                start_byte: w[0].0,
                end_byte: w[1].0,
                start_point: w[0].1,
                end_point: w[1].1,
            })
            .collect();
        let parse_range = |range: Range| -> Option<(Tree, Nesting)> {
            let mut parser = crate::new_parser();
            parser.set_included_ranges(&[range]).ok()?;
            let tree = parser.parse(text.as_bytes(), None)?;
            (!tree.root_node().has_error()).then(|| {
                let nesting = tree_nesting(&tree);
                (tree, nesting)
            })
        };
        let next = std::sync::atomic::AtomicUsize::new(0);
        let work = || {
            let mut done = Vec::new();
            loop {
                let index = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                let Some(&range) = ranges.get(index) else {
                    return done;
                };
                done.push((index, parse_range(range)));
            }
        };
        let mut trees: Vec<(usize, Option<(Tree, Nesting)>)> = std::thread::scope(|s| {
            let workers: Vec<_> = (1..threads.min(ranges.len()))
                .map(|_| s.spawn(work))
                .collect();
            let mut trees = work();
            for worker in workers {
                // A worker that panicked leaves its chunks out: the whole text is parsed again.
                trees.extend(worker.join().unwrap_or_default());
            }
            trees
        });
        trees.sort_by_key(|&(index, _)| index);
        let complete = trees.len() == ranges.len();
        let Some(chunks) = trees
            .into_iter()
            .map(|(_, tree)| tree)
            .collect::<Option<Vec<(Tree, Nesting)>>>()
            .filter(|_| complete)
        else {
            return Parse::new_shared(text);
        };
        let (mut trees, nestings): (Vec<Tree>, Vec<Nesting>) = chunks.into_iter().unzip();
        let tree = trees.remove(0);
        Parse {
            tree,
            more: trees,
            text,
            nesting: Arc::new(OnceLock::from((chunks_nesting(nestings), None))),
            seed: None,
        }
    }

    fn new_shared(text: Arc<String>) -> Self {
        let tree = crate::new_parser()
            .parse(text.as_bytes(), None)
            .expect("a parser with a language and no timeout always returns a tree");
        Parse {
            tree,
            more: Vec::new(),
            text,
            nesting: Arc::default(),
            seed: None,
        }
    }

    pub(crate) fn from_parts(tree: Tree, text: Arc<String>) -> Self {
        Parse {
            tree,
            more: Vec::new(),
            text,
            nesting: Arc::default(),
            seed: None,
        }
    }

    /// How deeply the tree nests (computed once per parse, without recursion; a parse of an
    /// edited text walks only the top-level nodes the edit changed).
    pub fn nesting(&self) -> &Nesting {
        &self
            .nesting
            .get_or_init(|| {
                if !self.more.is_empty() {
                    let chunks = std::iter::once(&self.tree).chain(&self.more);
                    return (chunks_nesting(chunks.map(tree_nesting)), None);
                }
                let (nesting, memo) = memo_nesting(&self.tree, &self.text, self.seed.as_deref());
                (nesting, Some(Arc::new(memo)))
            })
            .0
    }

    /// What the parse of this text after an edit can reuse of this parse's nesting walk,
    /// once that walk has been made.
    pub fn nesting_memo(&self) -> Option<Arc<NestingMemo>> {
        self.nesting.get().and_then(|(_, memo)| memo.clone())
    }

    /// This parse, given the memo of an earlier version's nesting walk to reuse.
    pub(crate) fn with_nesting_seed(mut self, memo: Option<Arc<NestingMemo>>) -> Self {
        self.seed = memo;
        self
    }

    /// Where the tree nests deeper than [`MAX_NESTING`], if it does: the first node past
    /// the limit. Analyses are not run on such a tree.
    pub fn too_deep(&self) -> Option<TextRange> {
        self.nesting().past_limit.clone()
    }

    /// Whether the tree nests past [`MAX_NESTING`], if that is known already (without
    /// walking the tree now).
    pub fn known_too_deep(&self) -> Option<bool> {
        self.nesting
            .get()
            .map(|(nesting, _)| nesting.past_limit.is_some())
    }

    /// How many trees the parse consists of (1 unless made by [`Parse::new_parallel`]).
    pub fn chunks(&self) -> usize {
        1 + self.more.len()
    }

    pub fn text(&self) -> &str {
        &self.text
    }

    /// The raw tree, for the few callers inside the syntax layer's users that
    /// need tree-sitter queries (highlighting); prefer the typed views. Of a chunked
    /// parse ([`Parse::new_parallel`]) this is the first chunk's tree.
    pub fn tree(&self) -> &Tree {
        &self.tree
    }

    pub fn module(&self) -> Module<'_> {
        Module::new(self.tree.root_node(), &self.more, &self.text)
    }

    /// Counts of all nodes and of ERROR and MISSING nodes (of a chunked parse, each
    /// chunk has its own root node).
    pub fn stats(&self) -> TreeStats {
        let mut stats = TreeStats::default();
        for tree in std::iter::once(&self.tree).chain(&self.more) {
            let chunk = tree_stats(tree);
            stats.nodes += chunk.nodes;
            stats.errors += chunk.errors;
            stats.missing += chunk.missing;
        }
        stats
    }

    /// The tree as an S-expression with named nodes, fields and ranges.
    pub fn sexp(&self) -> String {
        let mut out = String::new();
        for tree in std::iter::once(&self.tree).chain(&self.more) {
            write_sexp(tree.root_node(), &mut out);
        }
        out
    }

    /// Every ERROR and MISSING node, outermost first, as a plain-words error.
    pub fn syntax_errors(&self) -> Vec<SyntaxError> {
        let mut errors = Vec::new();
        for tree in std::iter::once(&self.tree).chain(&self.more) {
            if tree.root_node().has_error() {
                collect_errors(tree.root_node(), &self.text, &mut errors);
            }
        }
        errors
    }
}

/// Byte offsets where a text may be split into `threads` chunks: each right after a line
/// `}` near an equal share of the text that ends a top-level item, which is where the
/// next non-blank, non-comment line starts a top-level directive (or the text ends).
/// Compilers also put a `}` at the start of a line inside function bodies (nvcc's inline
/// `asm` blocks), and splitting there would make both chunks fail to parse.
fn chunk_splits(text: &str, threads: usize) -> Vec<usize> {
    let mut splits = Vec::new();
    if threads < 2 {
        return splits;
    }
    let bytes = text.as_bytes();
    for i in 1..threads {
        let mut from = (text.len() * i / threads).max(splits.last().copied().unwrap_or(0));
        let split = loop {
            let Some(at) = find_sub(&bytes[from..], b"\n}\n") else {
                break None;
            };
            let split = from + at + 3;
            if starts_top_level(&text[split..]) {
                break Some(split);
            }
            from = split - 1;
        };
        match split {
            Some(split) if split < text.len() => splits.push(split),
            _ => break,
        }
    }
    splits.dedup();
    splits
}

/// Whether `rest`, after blank lines and `//` comment lines, begins with a directive that
/// only stands at module level.
fn starts_top_level(rest: &str) -> bool {
    const TOP_LEVEL: [&str; 9] = [
        ".visible", ".weak", ".extern", ".entry", ".func", ".file", ".section", ".global", ".const",
    ];
    let mut rest = rest;
    loop {
        rest = rest.trim_start();
        if rest.starts_with("//") {
            rest = rest.find('\n').map_or("", |at| &rest[at..]);
        } else {
            break;
        }
    }
    rest.is_empty()
        || TOP_LEVEL.iter().any(|directive| {
            rest.strip_prefix(directive)
                .is_some_and(|after| after.starts_with(|c: char| c.is_ascii_whitespace()))
        })
}

fn find_sub(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack.windows(needle.len()).position(|w| w == needle)
}

fn memchr_count(bytes: &[u8]) -> usize {
    bytes.iter().filter(|&&b| b == b'\n').count()
}

fn tree_stats(tree: &Tree) -> TreeStats {
    let mut stats = TreeStats::default();
    let mut cursor = tree.walk();
    loop {
        let node = cursor.node();
        stats.nodes += 1;
        if node.is_error() {
            stats.errors += 1;
        }
        if node.is_missing() {
            stats.missing += 1;
        }
        if cursor.goto_first_child() {
            continue;
        }
        loop {
            if cursor.goto_next_sibling() {
                break;
            }
            if !cursor.goto_parent() {
                return stats;
            }
        }
    }
}

/// The nesting of a chunked parse from its chunks' (in text order).
fn chunks_nesting(chunks: impl IntoIterator<Item = Nesting>) -> Nesting {
    let mut nesting = Nesting::default();
    for chunk in chunks {
        let past_limit = nesting.past_limit.take().or(chunk.past_limit.clone());
        if chunk.depth > nesting.depth {
            nesting = chunk;
        }
        nesting.past_limit = past_limit;
    }
    nesting
}

/// The depth of a tree's deepest node (see [`Nesting`]), walked with a cursor.
fn tree_nesting(tree: &Tree) -> Nesting {
    let mut nesting = node_nesting(tree.root_node(), 0);
    if nesting.depth == 0 {
        nesting.deepest = TextRange::default();
    }
    nesting
}

/// [`tree_nesting`] of a single tree, taking the top-level nodes that `seed` knows from it
/// and walking the others; with the memo of this walk.
fn memo_nesting(tree: &Tree, text: &str, seed: Option<&NestingMemo>) -> (Nesting, NestingMemo) {
    use std::hash::{Hash, Hasher};
    let root = tree.root_node();
    let mut memo = NestingMemo::default();
    let mut nesting = Nesting::default();
    if root.byte_range().len() < SMALL_SUBTREE {
        return (nesting, memo);
    }
    let mut cursor = root.walk();
    if !cursor.goto_first_child() {
        return (nesting, memo);
    }
    loop {
        let node = cursor.node();
        let start = node.start_byte();
        let mut hasher = std::collections::hash_map::DefaultHasher::new();
        text.as_bytes()
            .get(node.byte_range())
            .unwrap_or_default()
            .hash(&mut hasher);
        let key = (node.kind_id(), hasher.finish());
        let known = seed.and_then(|seed| seed.nodes.get(&key));
        let own = match known {
            Some(known) => known.clone(),
            None => {
                let walked = node_nesting(node, 1);
                let relative = |r: TextRange| (r.start - start)..(r.end - start);
                NodeNesting {
                    depth: walked.depth,
                    deepest: relative(walked.deepest),
                    past_limit: walked.past_limit.map(relative),
                }
            }
        };
        let absolute = |r: &TextRange| (r.start + start)..(r.end + start);
        if own.depth > nesting.depth {
            nesting.depth = own.depth;
            nesting.deepest = absolute(&own.deepest);
        }
        if nesting.past_limit.is_none() {
            nesting.past_limit = own.past_limit.as_ref().map(absolute);
        }
        memo.nodes.insert(key, own);
        if !cursor.goto_next_sibling() {
            return (nesting, memo);
        }
    }
}

/// The nesting of the subtree of `top`, which stands at depth `base`.
fn node_nesting(top: Node<'_>, base: usize) -> Nesting {
    let mut nesting = Nesting {
        depth: base,
        deepest: top.byte_range(),
        past_limit: (base > MAX_NESTING).then(|| top.byte_range()),
    };
    let mut cursor = top.walk();
    let mut depth = base;
    // For each node entered, the deepest level its descendants can reach (see
    // `levels_below`): once the walk has found a node that deep, the rest of its
    // descendants can change nothing (only a deeper node does) and are skipped. Compiler
    // output has thousands of statements and data lines no deeper than the first ones.
    let mut reach: Vec<usize> = Vec::new();
    loop {
        let node = cursor.node();
        if depth > nesting.depth {
            nesting.depth = depth;
            nesting.deepest = node.byte_range();
            if depth == MAX_NESTING + 1 {
                nesting.past_limit = Some(node.byte_range());
            }
        }
        if node.byte_range().len() >= SMALL_SUBTREE {
            let deepest = depth + levels_below(node);
            if deepest > nesting.depth && cursor.goto_first_child() {
                reach.push(deepest);
                depth += 1;
                continue;
            }
        }
        loop {
            let spent = reach
                .last()
                .is_some_and(|&deepest| deepest <= nesting.depth);
            if !spent && cursor.goto_next_sibling() {
                break;
            }
            if !cursor.goto_parent() {
                return nesting;
            }
            reach.pop();
            depth -= 1;
        }
    }
}

/// At most how many levels a cursor walk can descend below `node`: one level for its
/// children, and each further level takes a descendant that is not a child (tree-sitter
/// keeps both counts of visible nodes in every subtree, so this costs no walk).
fn levels_below(node: Node<'_>) -> usize {
    match node.child_count() {
        0 => 0,
        children => node
            .descendant_count()
            .checked_sub(1 + children)
            .map_or(usize::MAX / 2, |deeper| 1 + deeper),
    }
}

/// [`node_nesting`] without skipping anything: what the tests compare it with.
#[cfg(test)]
fn node_nesting_every_node(top: Node<'_>, base: usize) -> Nesting {
    let mut nesting = Nesting {
        depth: base,
        deepest: top.byte_range(),
        past_limit: (base > MAX_NESTING).then(|| top.byte_range()),
    };
    let mut cursor = top.walk();
    let mut depth = base;
    loop {
        let node = cursor.node();
        if depth > nesting.depth {
            nesting.depth = depth;
            nesting.deepest = node.byte_range();
            if depth == MAX_NESTING + 1 {
                nesting.past_limit = Some(node.byte_range());
            }
        }
        if node.byte_range().len() >= SMALL_SUBTREE && cursor.goto_first_child() {
            depth += 1;
            continue;
        }
        loop {
            if cursor.goto_next_sibling() {
                break;
            }
            if !cursor.goto_parent() {
                return nesting;
            }
            depth -= 1;
        }
    }
}

/// Writes a tree as an S-expression, with an explicit stack (a tree may nest deeper than
/// the call stack allows). Indentation stops growing at [`SEXP_MAX_INDENT`] levels, so
/// that the output of a deep tree stays linear in its size.
fn write_sexp(root: Node<'_>, out: &mut String) {
    const SEXP_MAX_INDENT: usize = 100;
    enum Step<'t> {
        Open(Node<'t>, Option<&'static str>, usize),
        Close(usize),
    }
    let mut stack = vec![Step::Open(root, None, 0)];
    let mut children = Vec::new();
    while let Some(step) = stack.pop() {
        let (node, field, depth) = match step {
            Step::Close(depth) => {
                out.push(')');
                if depth == 0 {
                    out.push('\n');
                }
                continue;
            }
            Step::Open(node, field, depth) => (node, field, depth),
        };
        if depth > 0 {
            out.push('\n');
        }
        for _ in 0..depth.min(SEXP_MAX_INDENT) {
            out.push_str("  ");
        }
        if let Some(field) = field {
            let _ = write!(out, "{field}: ");
        }
        let kind = if node.is_missing() {
            format!("MISSING {}", node.kind())
        } else {
            node.kind().to_owned()
        };
        let (start, end) = (node.start_position(), node.end_position());
        let _ = write!(
            out,
            "({kind} [{}, {}] - [{}, {}]",
            start.row, start.column, end.row, end.column
        );
        stack.push(Step::Close(depth));
        let mut cursor = node.walk();
        if cursor.goto_first_child() {
            loop {
                let child = cursor.node();
                if child.is_named() || child.is_missing() {
                    children.push(Step::Open(child, cursor.field_name(), depth + 1));
                }
                if !cursor.goto_next_sibling() {
                    break;
                }
            }
        }
        stack.extend(children.drain(..).rev());
    }
}

/// Every ERROR and MISSING node under `root`, outermost first, with an explicit stack; each
/// is described in the words of its nearest enclosing construct.
fn collect_errors(root: Node<'_>, text: &str, out: &mut Vec<SyntaxError>) {
    let mut stack = vec![(root, "at the top level")];
    let mut children = Vec::new();
    while let Some((node, context)) = stack.pop() {
        if node.is_missing() {
            let expected = describe_token(node.kind());
            out.push(SyntaxError {
                kind: SyntaxErrorKind::Missing(node.kind().to_owned()),
                range: node.byte_range(),
                message: format!("expected {expected} here"),
            });
            continue;
        }
        if node.is_error() {
            let snippet: String = text[node.byte_range()].chars().take(40).collect();
            let snippet = snippet.lines().next().unwrap_or("").trim();
            out.push(SyntaxError {
                kind: SyntaxErrorKind::Unexpected,
                range: node.byte_range(),
                message: if snippet.is_empty() {
                    format!("unexpected input {context}")
                } else {
                    format!("unexpected `{snippet}` {context}")
                },
            });
            continue;
        }
        let inner = match node.kind() {
            k::INSTRUCTION => "in this instruction",
            k::VARIABLE_DECLARATION | k::PARAMETER_DECLARATION => "in this declaration",
            k::FUNCTION_DEFINITION | k::FUNCTION_DECLARATION => "in this function header",
            k::BLOCK => "in this function body",
            k::MODULE => "at the top level",
            _ => context,
        };
        let mut cursor = node.walk();
        children.extend(
            node.children(&mut cursor)
                .filter(|child| child.has_error() || child.is_missing())
                .map(|child| (child, inner)),
        );
        stack.extend(children.drain(..).rev());
    }
}

fn describe_token(kind: &str) -> String {
    match kind {
        ";" => "`;` to end the statement".into(),
        "}" => "`}` to close the block".into(),
        ")" => "`)`".into(),
        "]" => "`]` to close the address".into(),
        k::IDENTIFIER => "a name".into(),
        k::REGISTER => "a register".into(),
        k::INTEGER_LITERAL => "an integer".into(),
        k::FLOAT_LITERAL => "a number".into(),
        k::STRING_LITERAL => "a string".into(),
        other if other.starts_with('.') || other.len() <= 2 => format!("`{other}`"),
        other => format!("a {}", other.replace('_', " ")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use expect_test::expect;

    #[test]
    fn errors_are_reported_in_plain_words() {
        let parse =
            Parse::new(".entry k()\n{\n  mov.u32 %r1, 1\n  add.s32 %r1, %r2 %r3;\n  ret;\n}\n");
        let errors: Vec<String> = parse
            .syntax_errors()
            .iter()
            .map(|e| format!("{:?} {}", e.range, e.message))
            .collect();
        expect![[r#"
            [
                "29..29 expected `;` to end the statement here",
                "49..52 unexpected `%r3` in this instruction",
            ]
        "#]]
        .assert_debug_eq(&errors);
    }

    #[test]
    fn chunks_split_only_before_top_level_items() {
        let function = |name: &str| {
            format!(
                ".visible .entry {name}()\n{{\n\t// begin inline asm\n\t{{\n    .reg .pred p;\n}}\n\n\t// end inline asm\n\tret;\n}}\n"
            )
        };
        // The first function is the longer, so the equal share falls before its `asm` block.
        let long = function("a").replacen("{\n", &format!("{{\n{}", "\tnop;\n".repeat(20)), 1);
        let text = format!("{long}\n// next\n{}", function("b"));
        let second = text.find("// next").unwrap();
        assert_eq!(chunk_splits(&text, 2), vec![second - 1]);
        // The inline asm's `}` is never a split point, even where the share falls.
        let asm_end = text.find("}\n\n\t// end").unwrap();
        assert!(starts_top_level("\n// x\n\t.section .debug_info {"));
        assert!(!starts_top_level(&text[asm_end + 2..]));
        let parse = Parse::new_parallel(text.as_str(), 2);
        assert_eq!(parse.chunks(), 2);
        let functions = |p: &Parse| {
            (p.module().functions().iter())
                .map(|f| f.range())
                .collect::<Vec<_>>()
        };
        assert_eq!(functions(&parse), functions(&Parse::new(text.as_str())));
        assert!(parse.syntax_errors().is_empty());
    }

    /// The walk that skips what cannot be deeper finds what the walk of every node finds,
    /// for every top-level node of every corpus file and of texts nesting past the limit.
    #[test]
    fn the_nesting_walk_skips_only_what_cannot_be_deeper() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/corpus");
        let mut texts = vec![
            format!(
                ".entry k()\n{}\n{}",
                "{\n".repeat(MAX_NESTING + 5),
                "}\n".repeat(MAX_NESTING + 5)
            ),
            format!(
                ".global .u32 x = {}1{};\n",
                "(".repeat(MAX_NESTING + 3),
                ")".repeat(MAX_NESTING + 3)
            ),
            format!(
                ".entry k()\n{{\n\tadd.s32 %r1, {}1;\n}}\n",
                "1 + ".repeat(2 * MAX_NESTING)
            ),
        ];
        for dir in ["nvcc", "triton"] {
            for entry in std::fs::read_dir(root.join(dir)).expect("corpus folder") {
                let path = entry.expect("corpus entry").path();
                if path.extension().is_some_and(|e| e == "ptx") {
                    texts.push(std::fs::read_to_string(&path).expect("corpus file"));
                }
            }
        }
        assert!(texts.len() > 20);
        let mut past_limit = 0;
        for text in &texts {
            let parse = Parse::new(text.as_str());
            let root = parse.tree().root_node();
            let mut cursor = root.walk();
            let mut nodes = vec![root];
            if cursor.goto_first_child() {
                loop {
                    nodes.push(cursor.node());
                    if !cursor.goto_next_sibling() {
                        break;
                    }
                }
            }
            for node in nodes {
                for base in [0, 1] {
                    let every = node_nesting_every_node(node, base);
                    assert_eq!(node_nesting(node, base), every, "{:?}", node.byte_range());
                    past_limit += usize::from(every.past_limit.is_some());
                }
            }
        }
        assert!(past_limit >= 6, "{past_limit}");
    }

    #[test]
    fn stats_count_error_nodes() {
        let clean = Parse::new(".version 9.1\n.target sm_90\n");
        assert_eq!(clean.stats().errors + clean.stats().missing, 0);
        assert!(clean.stats().nodes > 3);
        let broken = Parse::new(".version 9.1\n.target\n}}");
        assert!(broken.stats().errors + broken.stats().missing > 0);
    }
}
