//! The state of one check: the document, the module's `.version`/`.target` (after overrides),
//! the knowledge base, a cache of qualifier matches and the diagnostics found so far.

use rustc_hash::FxHashMap as HashMap;
use std::cell::{Cell, OnceCell};
use std::rc::Rc;

use ptx_isa::{Isa, MatchOutcome, PtxVersion};
use ptx_syntax::{DirectiveKind, Guard, Instruction, Module, Operand, Parse, Token};

use crate::{CheckOptions, Diagnostic};

/// The qualifier match of one opcode spelling, shared by every instruction written that way.
/// When only a reordering of the qualifiers matches (ptxas accepts any order), `outcome` is
/// the reordered match, whose `used` list is in the spec's order.
#[derive(Debug)]
pub(crate) struct Resolved {
    /// The words joined with dots (`ld.global.v4.f32`).
    pub spelling: String,
    pub outcome: MatchOutcome<'static>,
    /// Whether the matched instruction can take a brace vector anywhere (see
    /// [`crate::handlers::operands::takes_vectors`]); derived once per spelling.
    pub takes_vectors: bool,
    /// The register counts of the spelling's vector operands, derived on first use.
    register_counts: OnceCell<Result<ptx_regs::RegCounts, ptx_regs::RegError>>,
    /// Whether the rules that read only the opcode (availability, rounding) found nothing
    /// for this spelling, once they have run for it: those rules then need not run again.
    pub opcode_rules_clean: Cell<Option<bool>>,
}

impl Resolved {
    /// The resolution of a spelling; [`Ctx::inst_info`] fills in [`Resolved::spelling`].
    pub fn new(outcome: MatchOutcome<'static>) -> Self {
        let takes_vectors = crate::handlers::operands::takes_vectors(&outcome);
        Resolved {
            spelling: String::new(),
            outcome,
            takes_vectors,
            register_counts: OnceCell::new(),
            opcode_rules_clean: Cell::new(None),
        }
    }

    /// [`ptx_regs::register_counts`] of the spelling, computed once.
    pub fn register_counts(&self) -> &Result<ptx_regs::RegCounts, ptx_regs::RegError> {
        self.register_counts
            .get_or_init(|| ptx_regs::register_counts(&self.spelling))
    }
}

/// One instruction with its parts split out for the handlers.
#[derive(Debug)]
pub(crate) struct InstInfo<'a> {
    pub inst: Instruction<'a>,
    pub guard: Option<Guard<'a>>,
    pub mnemonic: Token<'a>,
    pub qualifiers: Vec<Token<'a>>,
    /// Mnemonic and qualifiers without dots: `["ld", "global", "v4", "f32"]`.
    pub words: Vec<&'a str>,
    pub operands: Vec<Operand<'a>>,
    /// Every register inside the operands, with its operand's index (see
    /// [`ptx_syntax::InstructionParts::registers`]).
    pub registers: Vec<(usize, Token<'a>)>,
    /// Every identifier inside the operands, with its operand's index.
    pub identifiers: Vec<(usize, Token<'a>)>,
    pub resolved: Rc<Resolved>,
}

impl<'a> InstInfo<'a> {
    /// The spec section of the first matched form (empty when nothing matched), for
    /// diagnostics.
    pub fn section(&self) -> String {
        self.resolved
            .outcome
            .matches
            .first()
            .map(|m| m.instruction.section.clone())
            .unwrap_or_default()
    }

    /// Whether operand 0 is the instruction's result: the first operand of its matched syntax
    /// form is a value named as the spec names results (`d`, `d[|p]`, `p|q`, `dst`, `r`, `_`,
    /// `ptr`, `reg`, `pred`, `f` of bfi, `state`, `waitComplete`), not an address or a source
    /// (`a` of bar, `t` of nanosleep, `fptr` of call, `membermask`, `index`, `N`).
    pub fn writes_first_operand(&self) -> bool {
        self.resolved.outcome.matches.first().is_some_and(|m| {
            m.form.operands.first().is_some_and(|o| {
                o.kind == ptx_isa::OperandKind::Value
                    && (o.name.starts_with('d')
                        || o.name.starts_with('p')
                        || matches!(
                            o.name.as_str(),
                            "r" | "reg" | "f" | "state" | "waitComplete" | "_"
                        ))
            })
        })
    }

    /// The range of word `index` of [`InstInfo::words`] (0 is the mnemonic).
    pub fn word_range(&self, index: usize) -> ptx_syntax::TextRange {
        match index {
            0 => self.mnemonic.range(),
            i => self
                .qualifiers
                .get(i - 1)
                .or(self.qualifiers.last())
                .map_or(self.mnemonic.range(), Token::range),
        }
    }

    /// The whole opcode (`ld.global.v4.f32`).
    pub fn opcode_range(&self) -> ptx_syntax::TextRange {
        let end = self.qualifiers.last().map_or(self.mnemonic.end, |q| q.end);
        self.mnemonic.start..end
    }

    pub fn opcode_text(&self) -> &str {
        &self.resolved.spelling
    }

    /// Whether a qualifier (without dot) is written.
    pub fn has(&self, word: &str) -> bool {
        self.words[1..].contains(&word)
    }

    /// The qualifier token written as `word` (without dot).
    pub fn qualifier(&self, word: &str) -> Option<Token<'a>> {
        self.qualifiers
            .iter()
            .find(|q| q.text.trim_start_matches('.') == word)
            .copied()
    }
}

/// A `.target` entry of the file (or of the override).
#[derive(Debug, Clone)]
pub(crate) struct TargetEntry {
    pub name: String,
}

/// Everything the handlers share.
pub(crate) struct Ctx<'a> {
    pub text: &'a str,
    pub parse: &'a Parse,
    pub module: Module<'a>,
    pub isa: &'static Isa,
    pub options: &'a CheckOptions,
    /// The `.version` in force (override first), if known.
    pub version: Option<PtxVersion>,
    /// The `.target` entries in force (override first), architecture and options.
    pub targets: Vec<TargetEntry>,
    /// The file's `.version` number token, when the file's version is the one in force (the
    /// place a "raise .version" quick fix edits).
    pub version_token: Option<ptx_syntax::TextRange>,
    /// The file's architecture in `.target` (`sm_90a`), when it is the one in force.
    pub target_token: Option<ptx_syntax::TextRange>,
    /// Whether the file is a snippet: statements outside any function, no module directives.
    pub snippet: bool,
    /// Whether the module's addresses are 64 bits: it says `.address_size 64` (its first
    /// `.address_size` directive), or says none and is not a snippet.
    pub address_size_64: bool,
    /// Whether the module writes an `.address_size` directive.
    pub address_size_written: bool,
    /// Functions declared `.extern` and defined nowhere in the file, which ptxas cannot
    /// resolve when it assembles the file as a whole program (filled by the module frame).
    pub unresolved_functions: Vec<&'a str>,
    /// Functions whose signature ptxas's ABI cannot pass (a call of one, or its address, is
    /// refused; filled by the module frame).
    pub outside_abi_functions: Vec<&'a str>,
    /// Whether the statements being checked are a kernel's (`.entry`) body.
    pub in_entry: bool,
    /// Where the body of the function being checked starts (`usize::MAX` outside one).
    pub body_start: usize,
    /// The `.param` variables that calls so far in the function wrote their results into.
    pub call_results: Vec<&'a str>,
    /// The labels inside the nested `{ }` blocks of the function being checked (seen only in
    /// their block: named elsewhere, they are undeclared, with a message that says why).
    pub nested_labels: Vec<&'a str>,
    /// The functions of the module, by first declaration (filled by the module frame).
    pub functions: Vec<crate::handlers::calls::Callee<'a>>,
    /// The labels of the current function that name a `.branchtargets` list, with where the
    /// list is.
    pub branch_tables: Vec<(&'a str, usize)>,
    /// The current function's `.callprototype` labels and their signatures.
    pub prototypes: Vec<crate::handlers::calls::Callee<'a>>,
    /// The function's `.callprototype` and `.calltargets` labels, with where each is given.
    pub call_lists: Vec<(&'a str, usize)>,
    /// Instructions checked clean so far (`None`: every instruction is checked in full).
    pub memo: Option<crate::memo::CleanMemo>,
    diagnostics: Vec<Diagnostic>,
    matches: HashMap<String, Rc<Resolved>>,
    /// A buffer for the spelling of the instruction being split.
    key: String,
}

impl std::fmt::Debug for Ctx<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Ctx")
            .field("version", &self.version)
            .field("targets", &self.targets)
            .finish_non_exhaustive()
    }
}

impl<'a> Ctx<'a> {
    /// Why the module's addresses are 64 bits, for messages: "with `.address_size 64`", or
    /// the default when the module writes no `.address_size`.
    pub fn why_64_bit_addresses(&self) -> &'static str {
        if self.address_size_written {
            "with `.address_size 64`"
        } else {
            "(a module without `.address_size` has 64-bit addresses)"
        }
    }

    pub fn new(parse: &'a Parse, options: &'a CheckOptions) -> Self {
        let module = parse.module();
        let version_directive = module.directives(DirectiveKind::Version);
        let version_value = version_directive.first().and_then(|d| d.value());
        let file_version = version_value.and_then(|v| PtxVersion::parse(v.text));
        let version_token = version_value
            .filter(|_| options.version_override.is_none())
            .map(|v| v.range());
        let target_token = module
            .directives(DirectiveKind::Target)
            .iter()
            .flat_map(|d| d.targets())
            .find(|t| ptx_isa::SmName::read(t.text).is_some())
            .filter(|_| options.target_override.is_none())
            .map(|t| t.range());
        let version = options
            .version_override
            .as_deref()
            .and_then(PtxVersion::parse)
            .or(file_version);
        let mut targets: Vec<TargetEntry> = module
            .directives(DirectiveKind::Target)
            .iter()
            .flat_map(|d| d.targets())
            .map(|t| TargetEntry {
                // `sm_90b` is `sm_90` to ptxas 13.5 (SmName::ptxas_reading).
                name: ptx_isa::SmName::ptxas_reading(t.text).unwrap_or_else(|| t.text.to_owned()),
            })
            .collect();
        if let Some(over) = &options.target_override {
            targets.retain(|t| ptx_isa::SmName::parse(&t.name).is_none());
            targets.insert(0, TargetEntry { name: over.clone() });
        }
        let snippet = !module.top_level_statements().is_empty()
            && module.functions().is_empty()
            && version_directive.is_empty();
        // A module without `.address_size` is 64-bit to ptxas 13.5 as well: a 32-bit global or
        // generic address there makes it take the module for 32-bit code, which it no longer
        // compiles ("32-Bit compilation is no longer supported"), as with `.address_size 64`.
        let address_size = module.directives(DirectiveKind::AddressSize);
        let address_size_written = !address_size.is_empty();
        let address_size_64 = match address_size.first() {
            Some(d) => d
                .value()
                .is_some_and(|v| ptx_syntax::parse_integer(v.text) == Some(64)),
            None => !snippet,
        };
        Ctx {
            text: parse.text(),
            parse,
            module,
            isa: Isa::get(),
            options,
            version,
            targets,
            version_token,
            target_token,
            snippet,
            address_size_64,
            address_size_written,
            unresolved_functions: Vec::new(),
            outside_abi_functions: Vec::new(),
            in_entry: false,
            body_start: usize::MAX,
            call_results: Vec::new(),
            nested_labels: Vec::new(),
            functions: Vec::new(),
            branch_tables: Vec::new(),
            prototypes: Vec::new(),
            call_lists: Vec::new(),
            memo: Some(crate::memo::CleanMemo::default()),
            diagnostics: Vec::new(),
            matches: HashMap::default(),
            key: String::new(),
        }
    }

    /// Reports a diagnostic unless its code is disabled.
    pub fn report(&mut self, diagnostic: Diagnostic) {
        if self
            .options
            .disabled_codes
            .iter()
            .any(|c| c == diagnostic.code)
        {
            return;
        }
        self.diagnostics.push(diagnostic);
    }

    /// How many diagnostics have been reported so far.
    pub fn diagnostic_count(&self) -> usize {
        self.diagnostics.len()
    }

    /// The diagnostics reported since [`Ctx::diagnostic_count`] returned `start`.
    pub fn diagnostics_since(&self, start: usize) -> &[Diagnostic] {
        &self.diagnostics[start..]
    }

    /// Takes out the diagnostics reported since [`Ctx::diagnostic_count`] returned `start`.
    pub fn take_diagnostics_since(&mut self, start: usize) -> Vec<Diagnostic> {
        self.diagnostics.split_off(start)
    }

    /// Forgets the diagnostics reported after the first `count`.
    pub fn truncate_diagnostics(&mut self, count: usize) {
        self.diagnostics.truncate(count);
    }

    /// Adds diagnostics that were filtered by the options when first reported.
    pub fn extend(&mut self, diagnostics: Vec<Diagnostic>) {
        self.diagnostics.extend(diagnostics);
    }

    pub fn finish(self) -> Vec<Diagnostic> {
        match self.version {
            Some(v) if v > PtxVersion::SPEC => newer_version(v, self.diagnostics),
            _ => self.diagnostics,
        }
    }

    /// Target names as `&str`s, for [`ptx_isa::Requirement::check`].
    pub fn target_names(&self) -> Vec<&str> {
        self.targets.iter().map(|t| t.name.as_str()).collect()
    }

    /// The architecture target (`sm_90a`), if any.
    pub fn sm_target(&self) -> Option<&str> {
        self.targets
            .iter()
            .map(|t| t.name.as_str())
            .find(|t| ptx_isa::SmName::parse(t).is_some())
    }

    /// Splits an instruction and matches its qualifiers (cached per spelling).
    pub fn inst_info(&mut self, inst: Instruction<'a>) -> Option<InstInfo<'a>> {
        let parts = inst.parts();
        let mnemonic = parts.mnemonic?;
        let qualifiers = parts.qualifiers;
        let mut words = Vec::with_capacity(qualifiers.len() + 1);
        words.push(mnemonic.text);
        words.extend(qualifiers.iter().map(|q| q.text.trim_start_matches('.')));
        self.key.clear();
        for (i, word) in words.iter().enumerate() {
            if i > 0 {
                self.key.push('.');
            }
            self.key.push_str(word);
        }
        let resolved = match self.matches.get(self.key.as_str()) {
            Some(r) => r.clone(),
            None => {
                let mut r = crate::handlers::opcode::resolve(self.isa, &words);
                r.spelling = self.key.clone();
                let r = Rc::new(r);
                self.matches.insert(self.key.clone(), r.clone());
                r
            }
        };
        Some(InstInfo {
            inst,
            guard: parts.guard,
            mnemonic,
            qualifiers,
            words,
            operands: parts.operands,
            registers: parts.registers,
            identifiers: parts.identifiers,
            resolved,
        })
    }
}

/// Codes of the rules that say "this instruction, qualifier or combination does not exist":
/// true of PTX ISA 9.1, the version the facts describe, and unknowable for a newer one.
const UNKNOWN_TO_THIS_VERSION: &[&str] = &[
    "unknown-opcode",
    "unknown-qualifier",
    "invalid-qualifier",
    "missing-qualifier",
];

/// In a module that declares a PTX ISA newer than the facts describe (`.version 9.2` while
/// they stop at 9.1), an instruction or qualifier they do not know may well exist: such
/// errors become warnings that name the version. Genuine typos in a module of a known
/// version stay errors.
fn newer_version(version: PtxVersion, mut diagnostics: Vec<Diagnostic>) -> Vec<Diagnostic> {
    for d in &mut diagnostics {
        if d.severity == crate::Severity::Error && UNKNOWN_TO_THIS_VERSION.contains(&d.code) {
            d.severity = crate::Severity::Warning;
            d.message = format!(
                "not judged: this may need PTX ISA {version} or newer, which this tool does not know \
                 (it knows PTX ISA {}; under {} it would be: {})",
                PtxVersion::SPEC,
                PtxVersion::SPEC,
                d.message
            );
        }
    }
    diagnostics
}
