//! Markdown for each kind of hover: our own description first, then facts from `ptx-isa`
//! (syntax forms, qualifier sets, versions, targets), register counts from `ptx-regs`, an
//! example, the link to the official section, and, when the user imported the spec, the spec's
//! own text under a separator.

use std::fmt::Write as _;

use ptx_isa::{Form, Instruction, Isa, Requirement, SlotKind, Unmet};

use super::descriptions::{descriptions, normalize_qualifier};
use super::symbols::ModuleFacts;

/// Most syntax forms shown in an opcode hover.
const MAX_FORMS: usize = 8;
/// Most values listed for one qualifier set.
const MAX_VALUES: usize = 24;

/// A markdown code block of PTX.
pub fn code(out: &mut String, text: &str) {
    let _ = writeln!(out, "```ptx\n{}\n```\n", text.trim_end());
}

/// `[PTX ISA §N title](url)`.
pub fn link(out: &mut String, section: &str, title: &str, anchor: &str) {
    let title = title.split(':').next_back().unwrap_or(title).trim();
    let _ = writeln!(
        out,
        "[PTX ISA §{section} {title}]({})",
        ptx_docs::anchor_url(anchor)
    );
}

/// The requirement and whether the document's `.version`/`.target` meet it.
pub fn requirement(out: &mut String, req: &Requirement, facts: &ModuleFacts) {
    let _ = write!(
        out,
        "**Requires** PTX ISA {}+ · targets: {}",
        req.since,
        req.targets.describe()
    );
    for (version, on) in &req.removed {
        let _ = write!(out, " · removed in PTX ISA {version} for {}", on.describe());
    }
    out.push_str("\n\n");
    let unmet = req.check(
        facts.version.unwrap_or(ptx_isa::PtxVersion::SPEC),
        &facts.target_strs(),
    );
    let target = facts.targets.join(", ");
    if unmet.is_empty() {
        if !target.is_empty() {
            let _ = writeln!(out, "✓ supported on `.target {target}`\n");
        }
        return;
    }
    for u in unmet {
        match u {
            Unmet::Version { needed } => {
                let have = facts
                    .version
                    .map_or_else(|| "?".to_string(), |v| v.to_string());
                let _ = writeln!(
                    out,
                    "✗ needs `.version {needed}` or later (this file has {have})\n"
                );
            }
            Unmet::Target { needed } => {
                let _ = writeln!(
                    out,
                    "✗ not supported on `.target {target}` (needs {})\n",
                    needed.describe()
                );
            }
            Unmet::Removed { since, on } => {
                let _ = writeln!(out, "✗ removed in PTX ISA {since} for {}\n", on.describe());
            }
        }
    }
}

/// Where the written form is available, judged on the form in hand as `check` judges it
/// (see `ptx_check::form_availability`), in words, with the verdict for the document's
/// `.target` and `.version`.
fn form_availability(out: &mut String, written: &str, facts: &ModuleFacts) {
    let availability = ptx_check::form_availability::availability(written);
    let _ = writeln!(
        out,
        "**Availability**: this form {}\n",
        availability.needs()
    );
    if let Some(since) = availability.since {
        if let Some(have) = facts.version.filter(|have| *have < since) {
            let _ = writeln!(
                out,
                "✗ needs `.version {since}` or later (this file has {have})\n"
            );
        }
    }
    let Some(target) = facts
        .target_strs()
        .into_iter()
        .find(|t| ptx_isa::SmName::parse(t).is_some())
    else {
        return;
    };
    if availability.available_on(target) {
        let _ = writeln!(
            out,
            "✓ {} (`.target {target}`)\n",
            availability.verdict(target)
        );
    } else {
        let _ = writeln!(out, "✗ not available on `.target {target}`\n");
    }
}

/// Register counts of the vector operands of `opcode_text` with its written `operands` (which
/// may be empty), if `ptx-regs` knows them.
pub fn register_counts(out: &mut String, opcode_text: &str, operands: &str) {
    let Ok(counts) = ptx_regs::register_counts(&format!("{opcode_text} {operands}")) else {
        return;
    };
    if counts.vectors.is_empty() {
        return;
    }
    out.push_str("**Registers**\n\n");
    for v in &counts.vectors {
        let _ = writeln!(
            out,
            "- operand {} (`{}`): {} × {}-bit — {}",
            // Counted from 1, as diagnostics count operands.
            v.operand + 1,
            v.role,
            v.registers,
            v.register_bits,
            v.explanation
        );
    }
    out.push('\n');
}

/// The qualifier sets of a form: `.ss = { .global, .shared, … }`.
fn qualifier_sets(out: &mut String, form: &Form) {
    let mut lines = Vec::new();
    for slot in &form.qualifier_slots {
        if slot.kind != SlotKind::Set && slot.values.len() < 2 {
            continue;
        }
        let mut values: Vec<String> = slot
            .values
            .iter()
            .take(MAX_VALUES)
            .map(|v| format!(".{}", v.trim_end_matches('*')))
            .collect();
        if slot.values.len() > MAX_VALUES {
            values.push(format!("… ({} in all)", slot.values.len()));
        }
        let line = format!("{} = {{ {} }}", slot.name, values.join(", "));
        if !lines.contains(&line) {
            lines.push(line);
        }
    }
    if !lines.is_empty() {
        out.push_str("**Qualifiers**\n\n");
        code(out, &lines.join("\n"));
    }
}

/// What an opcode hover needs to know about the written instruction.
#[derive(Debug)]
pub struct OpcodeHover<'a> {
    pub instruction: &'a Instruction,
    /// The form the written qualifiers match (or the closest one).
    pub form: Option<&'a Form>,
    /// The opcode as written (`ld.global.v4.f32`).
    pub written: String,
    /// Whether the written qualifiers match a form.
    pub matched: bool,
    /// The written operands (`%rd1, %rd2, …`; empty when not known): they tell which operands
    /// are fragments (a wgmma A operand given as a descriptor is not).
    pub operands: String,
}

impl<'a> OpcodeHover<'a> {
    /// Matches the written opcode against the knowledge base.
    pub fn new(isa: &'a Isa, written: &str) -> Option<OpcodeHover<'a>> {
        let components: Vec<&str> = written.split('.').filter(|c| !c.is_empty()).collect();
        let outcome = isa.match_qualifiers(&components);
        if let Some(m) = outcome.matches.first() {
            return Some(OpcodeHover {
                instruction: m.instruction,
                form: Some(m.form),
                written: written.to_string(),
                matched: true,
                operands: String::new(),
            });
        }
        if let Some((instruction, form)) = outcome.closest {
            // The closest form of the longest named opcode reads better than an unrelated one.
            let named = isa.instruction_for(written).unwrap_or(instruction);
            let form = if std::ptr::eq(named, instruction) {
                Some(form)
            } else {
                named.forms.first()
            };
            return Some(OpcodeHover {
                instruction: named,
                form,
                written: written.to_string(),
                matched: false,
                operands: String::new(),
            });
        }
        let instruction = isa.instruction_for(written)?;
        Some(OpcodeHover {
            instruction,
            form: instruction.forms.first(),
            written: written.to_string(),
            matched: false,
            operands: String::new(),
        })
    }

    /// The same hover, knowing the instruction's written operands.
    pub fn with_operands(mut self, operands: String) -> OpcodeHover<'a> {
        self.operands = operands;
        self
    }
}

/// The hover of an opcode.
pub fn opcode(h: &OpcodeHover<'_>, facts: &ModuleFacts) -> String {
    let inst = h.instruction;
    let mut out = String::new();
    code(&mut out, &h.written);
    let description = descriptions().instruction(&inst.opcode, &inst.section);
    let _ = write!(out, "**{}**", inst.opcode);
    match description {
        Some(d) => {
            let _ = writeln!(out, " — {}\n", d.text);
        }
        None => {
            let _ = writeln!(
                out,
                " — {}\n",
                inst.summary.as_deref().unwrap_or(&inst.title)
            );
        }
    }
    if !h.matched && inst.forms.iter().any(|f| !f.pseudo) {
        out.push_str("*The written qualifiers match none of the syntax forms.*\n\n");
    }
    // The instruction in hand first (where it is available, its registers), the docs after.
    if h.matched {
        form_availability(&mut out, &h.written, facts);
    } else {
        let base = h.form.map_or(&inst.requirement, |f| &f.requirement);
        requirement(&mut out, base, facts);
    }
    register_counts(&mut out, &h.written, &h.operands);
    let forms: Vec<&str> = h
        .form
        .into_iter()
        .chain(
            inst.forms
                .iter()
                .filter(|f| h.form.is_none_or(|m| !std::ptr::eq(*f, m))),
        )
        .map(|f| f.syntax.as_str())
        .collect();
    if !forms.is_empty() {
        out.push_str("**Syntax**\n\n");
        let mut shown: Vec<&str> = forms.iter().copied().take(MAX_FORMS).collect();
        shown.dedup();
        let mut text = shown.join("\n");
        if forms.len() > MAX_FORMS {
            let _ = write!(text, "\n// … {} more forms", forms.len() - MAX_FORMS);
        }
        code(&mut out, &text);
    }
    if let Some(form) = h.form {
        qualifier_sets(&mut out, form);
    }
    if let Some(d) = description.filter(|d| !d.example.is_empty()) {
        out.push_str("**Example**\n\n");
        code(&mut out, &d.example.join("\n"));
    }
    link(&mut out, &inst.section, &inst.title, &inst.anchor);
    out
}

/// The hover of one qualifier of an instruction.
pub fn qualifier(h: &OpcodeHover<'_>, qualifier: &str, facts: &ModuleFacts) -> String {
    let inst = h.instruction;
    let q = normalize_qualifier(qualifier);
    let mut out = String::new();
    let _ = writeln!(out, "`{q}` on `{}`\n", inst.opcode);
    match descriptions().qualifier(&inst.opcode, &inst.section, &q) {
        Some((text, _)) => {
            let _ = writeln!(out, "{text}\n");
        }
        None => out.push_str("No description of this qualifier yet.\n\n"),
    }
    let bare = &q[1..];
    let slot = h
        .form
        .into_iter()
        .chain(inst.forms.iter())
        .flat_map(|f| f.qualifier_slots.iter())
        .find(|s| s.values.iter().any(|v| v.trim_end_matches('*') == bare));
    if let Some(slot) = slot.filter(|s| s.kind == SlotKind::Set) {
        let values: Vec<String> = slot
            .values
            .iter()
            .take(MAX_VALUES)
            .map(|v| format!(".{}", v.trim_end_matches('*')))
            .collect();
        let more = if slot.values.len() > MAX_VALUES {
            ", …"
        } else {
            ""
        };
        let _ = writeln!(
            out,
            "One of `{} = {{ {}{more} }}`{}.\n",
            slot.name,
            values.join(", "),
            if slot.optional { " (optional)" } else { "" }
        );
    } else if slot.is_none() {
        let _ = writeln!(out, "*`{q}` is not a qualifier of `{}`.*\n", inst.opcode);
    }
    let slot_name = slot.map(|s| s.name.as_str()).unwrap_or("");
    if h.matched {
        form_availability(&mut out, &h.written, facts);
    } else {
        let base = h.form.map_or(&inst.requirement, |f| &f.requirement);
        requirement(&mut out, base, facts);
    }
    let is_shape = slot_name.contains("shape")
        || slot_name.contains("num")
        || slot_name.contains("vec")
        || bare.starts_with('v')
        || bare.starts_with('x')
        || bare.starts_with('m')
        || bare.contains("pack");
    if is_shape {
        register_counts(&mut out, &h.written, &h.operands);
    }
    link(&mut out, &inst.section, &inst.title, &inst.anchor);
    out
}

/// The hover of a special register (`%tid`, `%tid.x`).
pub fn special_register(
    sreg: &ptx_isa::SpecialRegister,
    written: &str,
    facts: &ModuleFacts,
) -> String {
    let mut out = String::new();
    let component = written.contains('.');
    let ty = if component {
        sreg.ty.trim_start_matches(".v4").trim().to_string()
    } else {
        sreg.ty.clone()
    };
    code(&mut out, &format!(".sreg {ty} {written};"));
    let _ = write!(out, "**{written}** — special register");
    match descriptions().special_register(written) {
        Some(d) => {
            let _ = writeln!(out, ". {}\n", d.text);
        }
        None => out.push_str(".\n\n"),
    }
    if !sreg.components.is_empty() && !component {
        let _ = writeln!(out, "Components: {}\n", sreg.components.join(", "));
    }
    requirement(&mut out, &sreg.requirement, facts);
    link(&mut out, &sreg.section, &sreg.name, &sreg.anchor);
    out
}

/// The hover of a directive keyword.
pub fn directive(dir: &ptx_isa::Directive, facts: &ModuleFacts) -> String {
    let mut out = String::new();
    let _ = write!(out, "**{}** — directive", dir.name);
    match descriptions().directive(&dir.name) {
        Some(d) => {
            let _ = writeln!(out, ". {}\n", d.text);
            if !dir.syntax.is_empty() {
                out.push_str("**Syntax**\n\n");
                code(&mut out, &dir.syntax.join("\n"));
            }
            requirement(&mut out, &dir.requirement, facts);
            if !d.example.is_empty() {
                out.push_str("**Example**\n\n");
                code(&mut out, &d.example.join("\n"));
            }
        }
        None => {
            out.push_str(".\n\n");
            requirement(&mut out, &dir.requirement, facts);
        }
    }
    link(&mut out, &dir.section, &dir.name, &dir.anchor);
    out
}

/// The hover of a type or state space name.
pub fn type_or_space(name: &str) -> Option<String> {
    let isa = Isa::get();
    let d = descriptions().type_or_space(name)?;
    let mut out = String::new();
    let base = name.split("::").next().unwrap_or(name);
    if let Some(space) = isa.state_spaces().iter().find(|s| s.name == base) {
        let _ = writeln!(out, "**{name}** — state space. {}\n", d.text);
        if !space.variants.is_empty() {
            let _ = writeln!(out, "Sub-qualified forms: {}\n", space.variants.join(", "));
        }
        let _ = writeln!(
            out,
            "{}addressable by `ld`/`st` · PTX ISA §{}\n",
            if space.addressable { "" } else { "not " },
            space.section
        );
    } else if let Some(ty) = isa.types().iter().find(|t| t.name == name) {
        let _ = writeln!(out, "**{name}** — type. {}\n", d.text);
        let _ = writeln!(
            out,
            "{} bits{}\n",
            ty.bits,
            if ty.declarable {
                ""
            } else {
                " · instruction type only (not for declarations)"
            }
        );
    } else {
        let _ = writeln!(out, "**{name}** — {}\n", d.text);
    }
    if !d.example.is_empty() {
        out.push_str("**Example**\n\n");
        code(&mut out, &d.example.join("\n"));
    }
    Some(out)
}

/// The hover of a `.target` architecture name.
pub fn target(info: &ptx_isa::TargetInfo) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "**{}** — target architecture\n", info.name);
    let _ = writeln!(out, "Introduced in PTX ISA {}", info.since);
    if let Some(family) = info.family() {
        let _ = writeln!(out, " · family {family}");
    }
    out.push('\n');
    if info.name.ends_with('a') {
        out.push_str("Arch-specific: code for it runs only on this exact architecture.\n");
    } else if info.name.ends_with('f') {
        out.push_str("Family-specific: code for it runs on later members of the same family.\n");
    }
    out
}
