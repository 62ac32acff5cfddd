//! Texture and surface operands (PTX ISA 9.7.10 `tex`, `tld4`, `txq`; 9.7.11 `suld`, `sust`,
//! `sured`, `suq`): the lengths of the coordinate, gradient and offset vectors that each
//! geometry needs, the geometries each lookup mode and coordinate type allow, and the register
//! types of the destination, coordinates, level of detail, gradients, offsets and depth value.
//!
//! Every rule below was confirmed with ptxas 13.5; where ptxas is more lenient than the spec's
//! description (it takes longer coordinate vectors than a geometry reads, integer registers
//! among floating-point coordinates), the rule follows ptxas.

use ptx_syntax::{Operand, OperandKind};

use super::operand_types::{
    float32, int32, int64, is_vector, parts, pred, register_type, symbol_of, word16, word32, Class,
    RegTy, Rules,
};
use crate::context::{Ctx, InstInfo};
use crate::scope::{Scope, SymbolKind};
use crate::Diagnostic;

/// The geometry qualifiers of textures and surfaces.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Geom {
    D1,
    D2,
    D3,
    A1,
    A2,
    Cube,
    ACube,
    Ms2,
    AMs2,
}

impl Geom {
    fn parse(word: &str) -> Option<Geom> {
        Some(match word {
            "1d" => Geom::D1,
            "2d" => Geom::D2,
            "3d" => Geom::D3,
            "a1d" => Geom::A1,
            "a2d" => Geom::A2,
            "cube" => Geom::Cube,
            "acube" => Geom::ACube,
            "2dms" => Geom::Ms2,
            "a2dms" => Geom::AMs2,
            _ => return None,
        })
    }

    /// The least number of elements of the coordinate vector `c` (9.7.10.3 and 9.7.11.1:
    /// one coordinate per dimension, an array index first, three-element forms padded to
    /// four). ptxas takes longer vectors, and a scalar register for any geometry.
    fn coordinates(self) -> usize {
        match self {
            Geom::D1 => 1,
            Geom::D2 | Geom::A1 => 2,
            _ => 4,
        }
    }

    /// The least number of elements of the offset vector `e` (9.7.10.3: one per dimension
    /// of the looked-up texture, 3d padded to four); `None` where offsets are not allowed.
    fn offsets(self) -> Option<usize> {
        match self {
            Geom::D1 | Geom::A1 => Some(1),
            Geom::D2 | Geom::A2 | Geom::Ms2 | Geom::AMs2 => Some(2),
            Geom::D3 => Some(4),
            Geom::Cube | Geom::ACube => None,
        }
    }

    /// The exact number of elements of each gradient vector of `tex.grad` (9.7.10.3 Mipmaps).
    /// ptxas takes two or four for the cube geometries, so those are not checked.
    fn gradients(self) -> Option<usize> {
        match self {
            Geom::D1 | Geom::A1 => Some(1),
            Geom::D2 | Geom::A2 => Some(2),
            Geom::D3 => Some(4),
            _ => None,
        }
    }

    /// Which element of the coordinate vector is the array index (`.u32`), if any
    /// (`.a2dms` has the sample number first).
    fn array_index(self) -> Option<usize> {
        match self {
            Geom::A1 | Geom::A2 | Geom::ACube => Some(0),
            Geom::AMs2 => Some(1),
            _ => None,
        }
    }

    fn multisample(self) -> bool {
        matches!(self, Geom::Ms2 | Geom::AMs2)
    }

    fn cube(self) -> bool {
        matches!(self, Geom::Cube | Geom::ACube)
    }
}

/// The texture rules' own checks.
impl Rules<'_, '_, '_, '_> {
    /// A vector of fewer elements than the geometry reads.
    fn too_short(&mut self, operand: &Operand<'_>, least: usize, what: &str) {
        if !is_vector(operand) {
            return;
        }
        let n = operand.elements().len();
        if n < least {
            let message = format!(
                "the {what} of `{}` has {n} element{}; this geometry needs at least {least}",
                self.opcode(),
                if n == 1 { "" } else { "s" }
            );
            self.error("vector-length", operand.range(), message);
        }
    }

    /// A constant of the wrong kind (an integer where a float is read, or the reverse).
    fn constant(&mut self, operand: &Operand<'_>, float: bool, what: &str) {
        let wrong = match operand.kind() {
            OperandKind::Integer(_) => float,
            OperandKind::Float(_) => !float,
            _ => false,
        };
        if wrong {
            let message = format!(
                "the {what} of `{}` is {}: write a{} constant",
                self.opcode(),
                if float { ".f32" } else { ".s32" },
                if float {
                    " floating-point"
                } else {
                    "n integer"
                }
            );
            self.error("operand-type", operand.range(), message);
        }
    }
}

pub(crate) fn check(ctx: &mut Ctx<'_>, info: &InstInfo<'_>, scope: &Scope<'_>) {
    let (section, image) = match info.words[0] {
        "tex" => ("9.7.10.3", true),
        "tld4" => ("9.7.10.4", true),
        "suld" => ("9.7.11.1", false),
        "sust" => ("9.7.11.2", false),
        "sured" => ("9.7.11.3", false),
        "txq" => return query(ctx, info, scope, "9.7.10.5"),
        "suq" => return query(ctx, info, scope, "9.7.11.4"),
        "istypep" => return type_test(ctx, info, scope),
        "wmma" => return wmma(ctx, info, scope),
        "tcgen05" | "wgmma" => return super::tcgen05::operands(ctx, info, scope),
        "ldmatrix" | "stmatrix" => {
            let ld = info.words[0] == "ldmatrix";
            let mut rules = Rules {
                ctx,
                info,
                scope,
                section: if ld { "9.7.14.5.15" } else { "9.7.14.5.16" },
            };
            if ld {
                super::tcgen05::format_pair(&mut rules);
            }
            // The fragments are 32-bit registers (ptxas 13.5 "Arguments mismatch" for 16- and
            // 64-bit ones).
            if let Some(fragment) = info.operands.get(if ld { 0 } else { 1 }) {
                rules.registers(fragment, "fragment", "32-bit registers", word32);
            }
            return;
        }
        "mma" => return mma(ctx, info, scope),
        "mov" => return opaque_moves(ctx, info, scope),
        _ => return,
    };
    let Some(geom) = info.words[1..].iter().find_map(|w| Geom::parse(w)) else {
        return;
    };
    let mut rules = Rules {
        ctx,
        info,
        scope,
        section,
    };
    // The image operand `[a, {b,} c]`: its last part is the coordinate vector.
    let Some(address) = info
        .operands
        .iter()
        .position(|op| matches!(op.kind(), OperandKind::Address { .. }))
    else {
        return;
    };
    let coordinates = {
        let elements = info.operands[address].elements();
        (elements.len() >= 2).then(|| elements[elements.len() - 1])
    };
    if let Some(c) = &coordinates {
        rules.too_short(c, geom.coordinates(), "coordinate vector");
    }
    handles(&mut rules, &info.operands[address]);
    if !image {
        surface(&mut rules, address, coordinates);
        return;
    }
    texture(&mut rules, geom, address, coordinates);
}

/// `mov d, name` of a texture, sampler or surface variable copies its handle, into a `.u64`
/// only (ptxas 13.5 "Indirect access to texture requires .u64 type", also for `.b64` and
/// `.s64`).
fn opaque_moves(ctx: &mut Ctx<'_>, info: &InstInfo<'_>, scope: &Scope<'_>) {
    let Some(ty) = info.words.last().copied() else {
        return;
    };
    if ty == "u64" {
        return;
    }
    for op in info.operands.iter().skip(1) {
        let OperandKind::Identifier(name) = op.kind() else {
            continue;
        };
        let Some(symbol) = symbol_of(scope, name, SymbolKind::Variable) else {
            continue;
        };
        if let Some(opaque @ (".texref" | ".samplerref" | ".surfref")) = symbol.ty {
            ctx.report(
                Diagnostic::error(
                    "operand-type",
                    op.range(),
                    format!(
                        "`{name}` is a {opaque} variable: `mov` copies its handle as `.u64`, not `.{ty}`"
                    ),
                )
                .section(info.section()),
            );
        }
    }
}

/// `tex` and `tld4`: `d[|p], [a, {b,} c] {, lod | dPdx, dPdy} {, e} {, f}`.
fn texture(
    rules: &mut Rules<'_, '_, '_, '_>,
    geom: Geom,
    address: usize,
    coordinates: Option<Operand<'_>>,
) {
    let info = rules.info;
    let words = &info.words;
    let n = words.len();
    if n < 3 {
        return;
    }
    let ctype = words[n - 1];
    let dtype = words[n - 2];
    let float_coordinates = ctype == "f32";
    let is_tex = words[0] == "tex";
    let level = is_tex && info.has("level");
    let grad = is_tex && info.has("grad");
    let geometry_range = info
        .qualifiers
        .iter()
        .find(|q| Geom::parse(q.text.trim_start_matches('.')).is_some())
        .map_or(info.opcode_range(), |q| q.range());

    // The mipmap mode comes before the geometry (`tex.level.2d`); ptxas 13.5 does not know
    // `tex.2d.level` ("Unknown modifier '.level'").
    if is_tex {
        let geom_at = words.iter().position(|w| Geom::parse(w).is_some());
        let mip_at = words
            .iter()
            .position(|w| matches!(*w, "base" | "level" | "grad"));
        if let (Some(g), Some(m)) = (geom_at, mip_at) {
            if m > g {
                let message = format!(
                    "`{}`: the mipmap mode `.{}` goes before the geometry (`tex.{}.{}…`)",
                    rules.opcode(),
                    words[m],
                    words[m],
                    words[g]
                );
                rules.error("invalid-qualifier", geometry_range.clone(), message);
            }
        }
    }

    // 9.7.10.3 `.ctype`: multi-sample geometries take integer coordinates, cube maps
    // floating-point ones; `.level` and `.grad` do not apply to multi-sample textures.
    if is_tex && geom.multisample() && ctype == "f32" {
        let message = format!(
            "`{}` reads a multi-sample texture, whose coordinates are integers: use `.s32`",
            rules.opcode()
        );
        rules.error("invalid-qualifier", geometry_range.clone(), message);
    }
    if is_tex && geom.cube() && ctype == "s32" {
        let message = format!(
            "`{}` reads a cube map, whose coordinates are floating point: use `.f32`",
            rules.opcode()
        );
        rules.error("invalid-qualifier", geometry_range.clone(), message);
    }
    if geom.multisample() && (level || grad) {
        let message = format!(
            "`{}`: multi-sample textures have no mipmap levels (no `.level` or `.grad`)",
            rules.opcode()
        );
        rules.error("invalid-qualifier", geometry_range.clone(), message);
    }

    // The destination `d` (or `d|p`): four elements of `.dtype`, or two `.f16x2`.
    if let Some(dest) = info.operands.first() {
        let (data, predicate) = match dest.kind() {
            OperandKind::Pair => {
                let halves = dest.elements();
                (halves.first().copied(), halves.get(1).copied())
            }
            _ => (Some(*dest), None),
        };
        if let Some(data) = data.filter(is_vector) {
            // `.v2` (`.f16x2`) takes two registers, `.v4` four (ptxas 13.5 "Argument vector
            // size mismatch" for `tex.2d.v2.f16x2.f32 {%r0, %r1, %r2, %r3}`).
            let wanted = match words.get(n - 3).copied() {
                Some("v2") => Some(2),
                Some("v4") => Some(4),
                _ => None,
            };
            let count = data.elements().len();
            if wanted.is_some_and(|w| w != count) {
                let message = format!(
                    "`{}` writes {} registers; the destination has {count}",
                    rules.opcode(),
                    wanted.unwrap_or_default()
                );
                rules.error("vector-length", data.range(), message);
            }
            match dtype {
                "f16" => rules.registers(&data, "destination", "16-bit registers", word16),
                "f32" => rules.registers(&data, "destination", "32-bit registers", |t| {
                    t.bits == 32 && matches!(t.class, Class::Bits | Class::Int | Class::Float)
                }),
                "s32" | "u32" => rules.registers(
                    &data,
                    "destination",
                    "32-bit integer or bit-size registers",
                    int32,
                ),
                "f16x2" => rules.registers(&data, "destination", ".b32 or .f16x2 registers", |t| {
                    t.bits == 32 && matches!(t.class, Class::Bits | Class::HalfPair | Class::Int)
                }),
                _ => {}
            }
        }
        if let Some(p) = predicate {
            rules.registers(&p, "residency result", "a predicate", pred);
            // 9.7.10.3-4: the residency predicate is from PTX ISA 7.1 and sm_60 (ptxas 13.5
            // "Feature 'Texture instruction with optional predicate result' requires .target
            // sm_60 or higher").
            let sm = rules
                .ctx
                .sm_target()
                .and_then(ptx_isa::SmName::parse)
                .map(|sm| sm.canonical_number());
            if sm.is_some_and(|n| n < 60) {
                let message = format!(
                    "`{}` with a residency predicate (`d|p`) needs sm_60 or newer",
                    rules.opcode()
                );
                rules.error("unsupported-target", p.range(), message);
            } else if rules
                .ctx
                .version
                .is_some_and(|v| v < ptx_isa::PtxVersion::new(7, 1))
            {
                let message = format!(
                    "`{}` with a residency predicate (`d|p`) needs `.version 7.1` or newer",
                    rules.opcode()
                );
                rules.error("version-too-old", p.range(), message);
            }
        }
    }

    // The coordinates: the array index is an integer; with `.s32` they may not all be
    // floating point; integer and floating-point registers do not mix (a bit-size register
    // goes with either). ptxas judges the vector as a whole: `{%r1, %f2}` is accepted with
    // `.s32`, `{%f1}` is not.
    if let Some(c) = &coordinates {
        let elements = parts(c);
        let types: Vec<Option<RegTy>> = elements
            .iter()
            .map(|e| register_type(rules.scope, e))
            .collect();
        let index = geom.array_index().filter(|_| is_vector(c));
        if let Some(i) = index {
            if let Some(ty) = types.get(i).copied().flatten() {
                if ty.class == Class::Float {
                    let message = format!(
                        "`{}` is a floating-point register; the array index of `{}` is a .u32",
                        elements[i].text(),
                        rules.opcode()
                    );
                    rules.error("operand-type", elements[i].range(), message);
                }
            }
        }
        if is_tex {
            let all_float = !types.is_empty()
                && types
                    .iter()
                    .all(|t| t.is_some_and(|t| t.class == Class::Float));
            if all_float && !float_coordinates && index.is_none() {
                let message = format!(
                    "`{}` takes `.s32` coordinates; these registers are floating point",
                    rules.opcode()
                );
                rules.error("operand-type", c.range(), message);
            }
            // The mix check leaves out the index and sample elements of arrays and
            // multi-sample textures.
            let skip = match geom {
                Geom::A1 | Geom::A2 | Geom::ACube | Geom::Ms2 => 1,
                Geom::AMs2 => 2,
                _ => 0,
            };
            let rest = types.iter().skip(skip).flatten();
            let ints = rest.clone().any(|t| t.class == Class::Int);
            let floats = rest.clone().any(|t| t.class == Class::Float);
            if ints && floats && is_vector(c) {
                let message = format!(
                    "the coordinates of `{}` mix integer and floating-point registers",
                    rules.opcode()
                );
                rules.error("operand-type", c.range(), message);
            }
        }
    }

    // What follows the image operand.
    let mut rest: Vec<Operand<'_>> = info.operands[address + 1..].to_vec();
    if level {
        if rest.is_empty() {
            return;
        }
        let lod = rest.remove(0);
        let (want, fits): (&str, fn(RegTy) -> bool) = if float_coordinates {
            ("a 32-bit .f32 or .b32 register", float32)
        } else {
            ("a 32-bit integer or .b32 register", int32)
        };
        rules.registers(&lod, "level of detail", want, fits);
        rules.constant(&lod, float_coordinates, "level of detail");
    }
    if grad {
        if rest.len() < 2 {
            return;
        }
        let gradients: Vec<_> = rest.drain(..2).collect();
        for g in &gradients {
            if let Some(wanted) = geom.gradients() {
                if is_vector(g) && g.elements().len() != wanted {
                    let count = g.elements().len();
                    let message = format!(
                        "a gradient of `{}` has {wanted} element{} for this geometry, found {count}",
                        rules.opcode(),
                        if wanted == 1 { "" } else { "s" }
                    );
                    rules.error("vector-length", g.range(), message);
                }
            }
            rules.registers(g, "gradient", ".f32 or .b32 registers", float32);
        }
    }
    // Then `{, e} {, f}`: with two operands left they are the offset and the depth value;
    // a lone vector is the offset; a lone scalar could be either and is left alone, except
    // in 3d, whose offset is a vector: there it is a depth value, which 3d refuses (ptxas
    // 13.5 "Illegal modifier '.3d'" for `tex.3d … [t, {…}], %f1`).
    let (offset, depth) = match rest.as_slice() {
        [e, f] => (Some(*e), Some(*f)),
        [e] if is_vector(e) => (Some(*e), None),
        [f] if geom == Geom::D3 && is_tex => (None, Some(*f)),
        _ => (None, None),
    };
    // 9.7.10.3-4: offsets and depth compare values are from PTX ISA 4.3 (ptxas 13.5
    // "Feature 'tex' requires PTX ISA .version 4.3 or later").
    if let Some(extra) = offset.or(depth) {
        if rules
            .ctx
            .version
            .is_some_and(|v| v < ptx_isa::PtxVersion::new(4, 3))
        {
            let message = format!(
                "`{}` with an offset vector or a depth compare value needs `.version 4.3` or newer",
                rules.opcode()
            );
            rules.error("version-too-old", extra.range(), message);
        }
    }
    if let Some(e) = offset {
        match geom.offsets() {
            Some(least) => rules.too_short(&e, least, "offset vector"),
            None if is_vector(&e) => {
                let message = format!("`{}`: cube maps take no offset vector", rules.opcode());
                rules.error("invalid-qualifier", geometry_range.clone(), message);
            }
            None => {}
        }
        rules.registers(&e, "offset", "32-bit integer or .b32 registers", int32);
    }
    if let Some(f) = depth {
        rules.registers(
            &f,
            "depth compare value",
            "a .f32 or .b32 register",
            float32,
        );
        if !float_coordinates {
            let message = format!(
                "`{}` with a depth compare value takes `.f32` coordinates",
                rules.opcode()
            );
            rules.error("invalid-qualifier", f.range(), message);
        }
        if geom == Geom::D3 {
            let message = format!(
                "`{}`: 3d textures take no depth compare value",
                rules.opcode()
            );
            rules.error("invalid-qualifier", f.range(), message);
        }
    }
}

/// The image and sampler of `[a, {b,} c]` (and of `txq`/`suq` `[a]`) are `.texref`,
/// `.samplerref` or `.surfref` names or 64-bit registers holding one (9.7.10.3, 9.7.11.1:
/// "indirect" access); ptxas 13.5 "Arguments mismatch" for `[%r1, …]` or `[%fd1, …]`.
fn handles(rules: &mut Rules<'_, '_, '_, '_>, address: &Operand<'_>) {
    let elements = address.elements();
    let handles = match elements.len() {
        0 => return,
        1 => &elements[..],
        n => &elements[..n - 1],
    };
    // In the independent texturing mode `tex` and `tld4` name a sampler after the texture
    // (ptxas 13.5 "Argument 2 of instruction 'tex': .samplerref or .u64 register expected").
    let independent = rules
        .ctx
        .targets
        .iter()
        .any(|t| t.name == "texmode_independent");
    if independent && handles.len() == 1 && matches!(rules.info.words[0], "tex" | "tld4") {
        let message = format!(
            "`{}` in the independent texturing mode reads `[texture, sampler, coordinates]`",
            rules.opcode()
        );
        rules.error("operand-kind", address.range(), message);
    }
    for handle in handles {
        rules.registers(handle, "image handle", "a 64-bit integer register", int64);
    }
    // A named image has the opaque type of its instruction family (ptxas 13.5 "Argument 1 of
    // instruction 'tex': .texref or .u64 register expected" for a `.surfref` or a `.u64`
    // variable).
    let wanted = if rules.info.words[0].starts_with("su") {
        ".surfref"
    } else {
        ".texref"
    };
    let image = handles[0];
    let OperandKind::Identifier(name) = image.kind() else {
        return;
    };
    let Some(symbol) = symbol_of(rules.scope, name, SymbolKind::Variable) else {
        return;
    };
    let Some(ty) = symbol.ty else {
        return;
    };
    // A variable of the deprecated `.tex` state space (`.tex .u64 t;`, 5.1.8) is a texture
    // reference of the unified mode whatever its type (ptxas 13.5 takes it).
    if ty != wanted && !(wanted == ".texref" && symbol.space == Some(".tex")) {
        let message = format!(
            "`{name}` is a {ty} variable; `{}` reads a {wanted} or a 64-bit register holding one",
            rules.opcode()
        );
        rules.error("operand-type", image.range(), message);
    } else if super::operand_types::variable_shape(rules.ctx.text, symbol.range.clone())
        .0
        .is_some()
    {
        // An array of handles is no handle (ptxas 13.5 "Arguments mismatch for instruction
        // 'tex'" for `[ta, {…}]` with `.global .texref ta[2];`).
        let message = format!(
            "`{name}` is an array of {ty}; `{}` reads one handle (a scalar variable or a 64-bit register)",
            rules.opcode()
        );
        rules.error("operand-type", image.range(), message);
    }
    // In the independent mode the sampler of `[a, b, c]` is a `.samplerref` (ptxas 13.5
    // "Argument 2 of instruction 'tex': .samplerref or .u64 register expected" for a `.texref`
    // or `.surfref` there); the unified mode takes any opaque name in that place.
    if let [_, sampler] = handles {
        if !independent {
            return;
        }
        let OperandKind::Identifier(name) = sampler.kind() else {
            return;
        };
        let Some(ty) = symbol_of(rules.scope, name, SymbolKind::Variable).and_then(|s| s.ty) else {
            return;
        };
        if ty != ".samplerref" {
            let message = format!(
                "`{name}` is a {ty} variable; the sampler of `{}` is a .samplerref or a 64-bit register holding one",
                rules.opcode()
            );
            rules.error("operand-type", sampler.range(), message);
        }
    }
}

/// `suld`/`sust`/`sured`: the data vector has the `.vN` length (ptxas "Argument vector size
/// mismatch"), registers at least as wide as the type; `.s32` coordinates may not all be
/// floating point; `sured` reduces one scalar.
fn surface(rules: &mut Rules<'_, '_, '_, '_>, address: usize, coordinates: Option<Operand<'_>>) {
    let info = rules.info;
    if let Some(c) = &coordinates {
        let all_float = parts(c)
            .iter()
            .all(|e| register_type(rules.scope, e).is_some_and(|t| t.class == Class::Float));
        if all_float {
            let message = format!(
                "`{}` takes `.s32` coordinates; these registers are floating point",
                rules.opcode()
            );
            rules.error("operand-type", c.range(), message);
        }
    }
    let data = match info.words[0] {
        "suld" => info.operands.first(),
        _ => info.operands.get(address + 1),
    };
    let Some(data) = data.copied() else {
        return;
    };
    let ty = info.words[1..].iter().rev().find_map(|w| {
        let bits: u32 = w.strip_prefix(['b', 'u', 's', 'f'])?.parse().ok()?;
        matches!(bits, 8 | 16 | 32 | 64).then_some((w.starts_with(['u', 's']), bits))
    });
    let Some((integer, bits)) = ty else {
        return;
    };
    if info.words[0] == "sured" {
        if is_vector(&data) {
            let message = format!(
                "`{}` reduces one value: write a register, not a vector",
                rules.opcode()
            );
            rules.error("operand-kind", data.range(), message);
            return;
        }
        rules.registers(
            &data,
            "data",
            &format!("a register of at least {bits} bits"),
            |t| t.bits >= bits && t.class != Class::Pred && !(integer && t.class == Class::Float),
        );
        return;
    }
    let lanes = info.words[1..].iter().find_map(|w| match *w {
        "v2" => Some(2),
        "v4" => Some(4),
        _ => None,
    });
    if let Some(lanes) = lanes {
        // A vector moves at most 128 bits ("Vector type too large, exceeds 128 bit limit"
        // for `.v4.b64`).
        if lanes * bits as usize > 128 {
            let message = format!(
                "`{}` moves {lanes} × {bits} bits; a vector is at most 128 bits",
                rules.opcode()
            );
            rules.error("vector-length", info.opcode_range(), message);
            return;
        }
        if is_vector(&data) && data.elements().len() != lanes {
            let message = format!(
                "`{}` moves {lanes} elements; this vector has {}",
                rules.opcode(),
                data.elements().len()
            );
            rules.error("vector-length", data.range(), message);
        }
    }
    rules.registers(
        &data,
        "data",
        &format!("registers of at least {bits} bits"),
        |t| t.bits >= bits && t.class != Class::Pred,
    );
}

/// `txq`/`suq d, [a]{, lod}` (9.7.10.5, 9.7.11.4): `d` is a 32-bit register, `a` a name or
/// 64-bit register without offset, the level of `txq.level` a 32-bit integer.
fn query(ctx: &mut Ctx<'_>, info: &InstInfo<'_>, scope: &Scope<'_>, section: &'static str) {
    let mut rules = Rules {
        ctx,
        info,
        scope,
        section,
    };
    if let Some(d) = info.operands.first() {
        rules.scalar(d);
        rules.registers(d, "result", "a 32-bit register", word32);
    }
    if let Some(address) = info.operands.get(1) {
        if matches!(address.kind(), OperandKind::Address { .. }) {
            let elements = address.elements();
            match elements.as_slice() {
                [one]
                    if matches!(
                        one.kind(),
                        OperandKind::Register(_) | OperandKind::Identifier(_)
                    ) =>
                {
                    if info.words[0] == "txq" {
                        query_handle(&mut rules, one);
                    } else {
                        handles(&mut rules, address)
                    }
                }
                [_] => {
                    let message = format!(
                        "`{}` takes a texture or surface name or a 64-bit register, without offset",
                        rules.opcode()
                    );
                    rules.error("operand-kind", address.range(), message);
                }
                _ => {}
            }
        }
    }
    if info.has("level") {
        if let Some(lod) = info.operands.get(2) {
            rules.registers(lod, "level", "a 32-bit integer register", int32);
        }
    }
}

/// The handle of `txq`: a `.texref`, except for the sampler attributes (`filter_mode`,
/// `addr_mode_N`, `force_unnormalized_coords`), which are a `.samplerref`'s in the independent
/// texturing mode; in the unified mode `force_unnormalized_coords` has no reference to read
/// (ptxas 13.5 ".samplerref expected", ".texref or .u64 register expected", ".samplerref or
/// .u64 register expected", measured over every query, reference kind and mode).
fn query_handle(rules: &mut Rules<'_, '_, '_, '_>, handle: &Operand<'_>) {
    rules.registers(handle, "image handle", "a 64-bit integer register", int64);
    let OperandKind::Identifier(name) = handle.kind() else {
        return;
    };
    let Some(ty) = symbol_of(rules.scope, name, SymbolKind::Variable).and_then(|s| s.ty) else {
        return;
    };
    let independent = rules
        .ctx
        .targets
        .iter()
        .any(|t| t.name == "texmode_independent");
    let sampler_query = rules.info.words[1..].iter().any(|w| {
        matches!(
            *w,
            "filter_mode"
                | "addr_mode_0"
                | "addr_mode_1"
                | "addr_mode_2"
                | "force_unnormalized_coords"
        )
    });
    let unnormalized = rules.info.has("force_unnormalized_coords");
    // `txq.memory_layout` (listed for `suq` only, 9.7.11.4) reads any of the three kinds in
    // the independent mode and a `.texref` in the unified one (ptxas 13.5, measured).
    if rules.info.has("memory_layout") && independent {
        return;
    }
    let wanted = if sampler_query && (independent || unnormalized) {
        ".samplerref"
    } else {
        ".texref"
    };
    if ty != wanted || unnormalized && !independent {
        let mode = if independent {
            "independent"
        } else {
            "unified"
        };
        let message = format!(
            "`{name}` is a {ty} variable; `{}` reads a {wanted} (texmode_{mode}) or a 64-bit register holding one",
            rules.opcode()
        );
        rules.error("operand-type", handle.range(), message);
    }
}

/// `istypep.type p, a` (9.7.10.6): `p` a predicate, `a` a 64-bit register.
fn type_test(ctx: &mut Ctx<'_>, info: &InstInfo<'_>, scope: &Scope<'_>) {
    let mut rules = Rules {
        ctx,
        info,
        scope,
        section: "9.7.10.6",
    };
    if let Some(p) = info.operands.first() {
        rules.scalar(p);
        rules.registers(p, "result", "a predicate", pred);
    }
    if let Some(a) = info.operands.get(1) {
        rules.scalar(a);
        if let OperandKind::Identifier(name) = a.kind() {
            if symbol_of(rules.scope, name, SymbolKind::Variable).is_some() {
                let message = format!(
                    "`{}` tests a 64-bit register holding a handle, not the variable `{name}`",
                    rules.opcode()
                );
                rules.error("operand-kind", a.range(), message);
            }
        }
        rules.registers(a, "operand", "a 64-bit integer register", int64);
    }
}

/// Whether a register fits one element of a wmma fragment of type `ty` (9.7.14.4.1-2: `.f16`
/// pairs in `.f16x2`/`.b32` registers, `.f32`/`.s32` accumulators one per 32-bit register,
/// the integer and other packed inputs in 32-bit registers, `.f64` in 64-bit ones). Confirmed
/// with ptxas 13.5 ("Arguments mismatch" for `.f32` registers with `.f16` or `.s8`, `.s32`
/// registers with `.f32` or `.f16`, `.f32` ones with `.s32`, 32-bit ones with `.f64`; `.bf16`
/// and `.tf32` take `.b32` registers only: `.f32`, `.u32`, `.s32`, `.f16x2` are rejected).
fn fragment_fits(ty: &str, reg: RegTy) -> bool {
    if reg.class == Class::Pred {
        return false;
    }
    match ty {
        "f64" => reg.bits == 64,
        "f16" => reg.bits == 32 && matches!(reg.class, Class::Bits | Class::HalfPair),
        "f32" => reg.bits == 32 && matches!(reg.class, Class::Bits | Class::Float),
        "s32" => reg.bits == 32 && matches!(reg.class, Class::Bits | Class::Int),
        "s8" | "u8" | "s4" | "u4" | "b1" => {
            reg.bits == 32 && matches!(reg.class, Class::Bits | Class::Int)
        }
        "bf16" | "tf32" => reg.bits == 32 && reg.class == Class::Bits,
        _ => reg.bits == 32,
    }
}

/// `wmma.load/store/mma` (9.7.14.4.3-5): fragment registers of the fragment's type, fragments
/// written as vectors (not constants), the stride one scalar.
fn wmma(ctx: &mut Ctx<'_>, info: &InstInfo<'_>, scope: &Scope<'_>) {
    let op = info.words.get(1).copied().unwrap_or("");
    let section = match op {
        "load" => "9.7.14.4.3",
        "store" => "9.7.14.4.4",
        "mma" => "9.7.14.4.5",
        _ => return,
    };
    let mut rules = Rules {
        ctx,
        info,
        scope,
        section,
    };
    let last = info.words.last().copied().unwrap_or("");
    // (operand index, fragment type)
    let mut fragments: Vec<(usize, &str)> = Vec::new();
    match op {
        "load" => fragments.push((0, last)),
        "store" => fragments.push((1, last)),
        _ => {
            const TYPES: &[&str] = &[
                "f16", "f32", "f64", "s32", "s8", "u8", "s4", "u4", "b1", "bf16", "tf32",
            ];
            let types: Vec<&str> = info.words[2..]
                .iter()
                .copied()
                .filter(|w| TYPES.contains(w))
                .collect();
            match types.as_slice() {
                [d, c] => fragments.extend([(0, *d), (1, "f16"), (2, "f16"), (3, *c)]),
                [d, a, b, c] => fragments.extend([(0, *d), (1, *a), (2, *b), (3, *c)]),
                _ => {}
            }
        }
    }
    for (index, ty) in fragments {
        let Some(operand) = info.operands.get(index) else {
            continue;
        };
        if matches!(
            operand.kind(),
            OperandKind::Integer(_) | OperandKind::Float(_) | OperandKind::Expression
        ) {
            let message = format!(
                "operand {} of `{}` is a matrix fragment: write a vector of registers, not a constant",
                index + 1,
                rules.opcode()
            );
            rules.error("operand-kind", operand.range(), message);
            continue;
        }
        let want = match ty {
            "f64" => "64-bit registers".to_owned(),
            "f16" => ".f16x2 or .b32 registers (pairs of halves)".to_owned(),
            "f32" => ".f32 or .b32 registers".to_owned(),
            "s32" => "32-bit integer or .b32 registers".to_owned(),
            _ => format!("32-bit registers holding packed .{ty} elements"),
        };
        rules.registers(operand, &format!(".{ty} fragment"), &want, |t| {
            fragment_fits(ty, t)
        });
    }
    if op != "mma" {
        if let Some(stride) = info.operands.get(2) {
            rules.scalar(stride);
        }
    }
}

/// `mma{.sp}…dtype.atype.btype.ctype d, a, b, c…` (9.7.14.5.14): the fragments d, a, b, c
/// hold elements of their types, as for wmma ([`fragment_fits`]; ptxas 13.5 "Arguments
/// mismatch" for `.f32` registers in a `.s32`, `.f16` or `.tf32` fragment, 32-bit ones in a
/// `.f64` one). The 8-, 6- and 4-bit float inputs are checked for size only.
fn mma(ctx: &mut Ctx<'_>, info: &InstInfo<'_>, scope: &Scope<'_>) {
    const TYPES: &[&str] = &[
        "f16", "f32", "f64", "s32", "s8", "u8", "s4", "u4", "b1", "bf16", "tf32", "e4m3", "e5m2",
        "e2m1", "e3m2", "e2m3",
    ];
    let types: Vec<&str> = info.words[1..]
        .iter()
        .copied()
        .filter(|w| TYPES.contains(w))
        .collect();
    let [d, a, b, c, ..] = types.as_slice() else {
        return;
    };
    let mut rules = Rules {
        ctx,
        info,
        scope,
        section: "9.7.14.5.14",
    };
    for (index, ty) in [*d, *a, *b, *c].into_iter().enumerate() {
        let Some(operand) = info.operands.get(index) else {
            continue;
        };
        let want = match ty {
            "f64" => "64-bit registers".to_owned(),
            "f16" => ".f16x2 or .b32 registers (pairs of halves)".to_owned(),
            "f32" => ".f32 or .b32 registers".to_owned(),
            "s32" => "32-bit integer or .b32 registers".to_owned(),
            _ => format!("32-bit registers holding packed .{ty} elements"),
        };
        rules.registers(operand, &format!(".{ty} fragment"), &want, |t| {
            fragment_fits(ty, t)
        });
    }
}

#[cfg(test)]
mod tests {
    use crate::test_support::check_diagnostics;

    /// Each line confirmed with ptxas 13.5 (sm_90): the rejected ones with "Operand vector size
    /// doesn't match geometry", "Arguments mismatch", "Array index … Expecting type .u32",
    /// "Integer coordinates require .s32 instruction type", "Floating-point coordinates
    /// required", "Illegal modifier 'Multi-sample geometry'".
    #[test]
    fn texture_operands() {
        check_diagnostics(
            r#"
.version 9.1
.target sm_90
.address_size 64
.global .texref tex0;
.global .surfref surf0;
.visible .entry k()
{
  .reg .b32 %r<8>;
  .reg .s32 %s<8>;
  .reg .b16 %h<8>;
  .reg .b64 %rd<4>;
  .reg .f32 %f<9>;
  tex.1d.v4.f32.s32 {%f1, %f2, %f3, %f4}, [tex0, {%r1, %r2, %r3, %r4}];
  tex.2d.v4.f32.s32 {%f1, %f2, %f3, %f4}, [tex0, %r1];
  tex.3d.v4.f32.s32 {%f1, %f2, %f3, %f4}, [tex0, {%r1, %r2}];
//                                               ^^^^^^^^^^ error: the coordinate vector of `tex.3d.v4.f32.s32` has 2 elements; this geometry needs at least 4
  tex.a1d.v4.f32.s32 {%f1, %f2, %f3, %f4}, [tex0, {%f1, %r2}];
//                                                 ^^^ error: `%f1` is a floating-point register; the array index of `tex.a1d.v4.f32.s32` is a .u32
  tex.1d.v4.f32.s32 {%f1, %f2, %f3, %f4}, [tex0, {%f1}];
//                                               ^^^^^ error: `tex.1d.v4.f32.s32` takes `.s32` coordinates; these registers are floating point
  tex.2d.v4.f32.s32 {%f1, %f2, %f3, %f4}, [tex0, {%f1, %r2}];
  tex.2d.v4.f32.f32 {%f1, %f2, %f3, %f4}, [tex0, {%s1, %f2}];
//                                               ^^^^^^^^^^ error: the coordinates of `tex.2d.v4.f32.f32` mix integer and floating-point registers
  tex.cube.v4.f32.s32 {%f1, %f2, %f3, %f4}, [tex0, {%r1, %r2, %r3, %r4}];
//   ^^^^^ error: `tex.cube.v4.f32.s32` reads a cube map, whose coordinates are floating point: use `.f32`
  tex.level.2dms.v4.f32.s32 {%f1, %f2, %f3, %f4}, [tex0, {%r1, %r2, %r3, %r4}], %r5;
//         ^^^^^ error: `tex.level.2dms.v4.f32.s32`: multi-sample textures have no mipmap levels (no `.level` or `.grad`)
  tex.1d.v4.f16.f32 {%r1, %r2, %r3, %r4}, [tex0, {%f1}];
//                   ^^^ error: `%r1` is a 32-bit bit-size register; the destination of `tex.1d.v4.f16.f32` needs 16-bit registers
//                        ^^^ error: `%r2` is a 32-bit bit-size register; the destination of `tex.1d.v4.f16.f32` needs 16-bit registers
//                             ^^^ error: `%r3` is a 32-bit bit-size register; the destination of `tex.1d.v4.f16.f32` needs 16-bit registers
//                                  ^^^ error: `%r4` is a 32-bit bit-size register; the destination of `tex.1d.v4.f16.f32` needs 16-bit registers
  tex.1d.v4.f16.f32 {%h1, %h2, %h3, %h4}, [tex0, {%f1}];
  tex.2d.v4.f32.f32 {%f1, %f2, %f3, %f4}, [%rd1, %rd2, {%f5, %f6}];
  tex.level.1d.v4.f32.f32 {%f1, %f2, %f3, %f4}, [tex0, {%f1}], %s1;
//                                                             ^^^ error: `%s1` is a 32-bit integer register; the level of detail of `tex.level.1d.v4.f32.f32` needs a 32-bit .f32 or .b32 register
  tex.grad.2d.v4.f32.f32 {%f1, %f2, %f3, %f4}, [tex0, {%f5, %f6}], {%f1}, {%f2, %f3};
//                                                                 ^^^^^ error: a gradient of `tex.grad.2d.v4.f32.f32` has 2 elements for this geometry, found 1
  tex.2d.v4.f32.s32 {%f1, %f2, %f3, %f4}, [tex0, {%r1, %r2}], {%r3};
//                                                            ^^^^^ error: the offset vector of `tex.2d.v4.f32.s32` has 1 element; this geometry needs at least 2
  tex.1d.v4.f32.f32 {%f1, %f2, %f3, %f4}, [%r1, {%f1}];
//                                         ^^^ error: `%r1` is a 32-bit bit-size register; the image handle of `tex.1d.v4.f32.f32` needs a 64-bit integer register
  tex.1d.v4.f32.f32 {%f1, %f2, %f3, %f4}, [surf0, {%f1}];
//                                         ^^^^^ error: `surf0` is a .surfref variable; `tex.1d.v4.f32.f32` reads a .texref or a 64-bit register holding one
  ret;
}
"#,
        );
    }

    /// Confirmed with ptxas 13.5 (sm_90): "Argument vector size mismatch", "Arguments
    /// mismatch", "Incorrect type '.b32' for operation '.add' in instruction 'sured.b'",
    /// "Argument 1 of instruction 'suq': .surfref or .u64 register expected".
    #[test]
    fn surface_operands() {
        check_diagnostics(
            r#"
.version 9.1
.target sm_90
.address_size 64
.global .surfref surf0;
.visible .entry k()
{
  .reg .b32 %r<8>;
  .reg .b16 %h<8>;
  .reg .b64 %rd<4>;
  .reg .f32 %f<4>;
  suld.b.2d.b32.trap {%r1}, [surf0, {%r2}];
//                                  ^^^^^ error: the coordinate vector of `suld.b.2d.b32.trap` has 1 element; this geometry needs at least 2
  suld.b.1d.v4.b32.trap {%r1, %r2}, [surf0, {%r2}];
//                      ^^^^^^^^^^ error: `suld.b.1d.v4.b32.trap` moves 4 elements; this vector has 2
  suld.b.1d.b32.trap {%rd1}, [surf0, {%r2}];
  sust.b.1d.b32.trap [surf0, {%r2}], {%h1};
//                                    ^^^ error: `%h1` is a 16-bit bit-size register; the data of `sust.b.1d.b32.trap` needs registers of at least 32 bits
  sured.b.add.1d.b32.trap [surf0, {%r2}], %r1;
//              ^^^^ error: `.b32` is not allowed here in `sured.b.add.1d.b32.trap`; expected .u32, .s32, .u64
  sured.b.add.1d.u32.trap [surf0, {%r2}], %f1;
//                                        ^^^ error: `%f1` is a 32-bit floating-point register; the data of `sured.b.add.1d.u32.trap` needs a register of at least 32 bits
  sured.b.and.1d.b32.trap [surf0, {%r2}], %f1;
  suq.width.b32 %r1, [%rd1+8];
//                   ^^^^^^^^ error: `suq.width.b32` takes a texture or surface name or a 64-bit register, without offset
  suq.width.b32 %h1, [surf0];
//              ^^^ error: `%h1` is a 16-bit bit-size register; the result of `suq.width.b32` needs a 32-bit register
  ret;
}
"#,
        );
    }

    /// Confirmed with ptxas 13.5 (sm_90 for wmma, sm_100a for the rest): "Unexpected
    /// instruction types specified for 'wmma.mma'", "Arguments mismatch", "Incorrect
    /// instruction type specified for ldmatrix with shape '.m8n8'", "Incorrect no. of matrix: 4
    /// for ldmatrix with shape '.m16n16'", "Modifier '.trans' require for instruction stmatrix
    /// with shape '.m16n8'".
    #[test]
    fn matrix_operands() {
        check_diagnostics(
            r#"
.version 9.1
.target sm_100a
.address_size 64
.shared .b8 smem[1024];
.global .b8 gmem[1024];
.visible .entry k()
{
  .reg .b32 %r<10>;
  .reg .s32 %s<10>;
  .reg .b64 %rd<4>;
  .reg .f32 %f<10>;
  wmma.mma.sync.aligned.row.col.m8n8k32.s32.s4.s4.s32 {%r1, %r2}, {%r1}, {%r1}, {%r1, %r2};
  wmma.mma.sync.aligned.row.col.m8n8k32.s32.s4.u4.s32 {%r1, %r2}, {%r1}, {%r1}, {%r1, %r2};
//                                            ^^^ error: `.u4` is not allowed here in `wmma.mma.sync.aligned.row.col.m8n8k32.s32.s4.u4.s32`; expected .s4
  wmma.load.c.sync.aligned.row.m16n16k16.f32 {%s1, %s2, %s3, %s4, %s5, %s6, %s7, %s8}, [smem], %r9;
//                                            ^^^ error: `%s1` is a 32-bit integer register; the .f32 fragment of `wmma.load.c.sync.aligned.row.m16n16k16.f32` needs .f32 or .b32 registers
//                                                 ^^^ error: `%s2` is a 32-bit integer register; the .f32 fragment of `wmma.load.c.sync.aligned.row.m16n16k16.f32` needs .f32 or .b32 registers
//                                                      ^^^ error: `%s3` is a 32-bit integer register; the .f32 fragment of `wmma.load.c.sync.aligned.row.m16n16k16.f32` needs .f32 or .b32 registers
//                                                           ^^^ error: `%s4` is a 32-bit integer register; the .f32 fragment of `wmma.load.c.sync.aligned.row.m16n16k16.f32` needs .f32 or .b32 registers
//                                                                ^^^ error: `%s5` is a 32-bit integer register; the .f32 fragment of `wmma.load.c.sync.aligned.row.m16n16k16.f32` needs .f32 or .b32 registers
//                                                                     ^^^ error: `%s6` is a 32-bit integer register; the .f32 fragment of `wmma.load.c.sync.aligned.row.m16n16k16.f32` needs .f32 or .b32 registers
//                                                                          ^^^ error: `%s7` is a 32-bit integer register; the .f32 fragment of `wmma.load.c.sync.aligned.row.m16n16k16.f32` needs .f32 or .b32 registers
//                                                                               ^^^ error: `%s8` is a 32-bit integer register; the .f32 fragment of `wmma.load.c.sync.aligned.row.m16n16k16.f32` needs .f32 or .b32 registers
  wmma.load.a.sync.aligned.row.m16n16k16.f16 {%r1, %r2, %r3, %r4, %r5, %r6, %r7, %r8}, [smem], {%r9};
//                                                                                             ^^^^^ error: `wmma.load.a.sync.aligned.row.m16n16k16.f16` takes one register here, not a vector
  wmma.store.d.sync.aligned.row.m16n16k16.f32 [smem], 1, %r1;
//                                                    ^ error: operand 2 of `wmma.store.d.sync.aligned.row.m16n16k16.f32` is a matrix fragment: write a vector of registers, not a constant
  ldmatrix.sync.aligned.m8n8.x2.shared.b16 {%r1, %r2}, [smem];
  mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32 {%f1, %f2, %f3, %f4}, {%r1, %r2, %r3, %r4}, {%r5, %r6}, {%r1, %r2, %r3, %r4};
//                                                 ^^^ error: `%f1` is a 32-bit floating-point register; the .s32 fragment of `mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32` needs 32-bit integer or .b32 registers
//                                                      ^^^ error: `%f2` is a 32-bit floating-point register; the .s32 fragment of `mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32` needs 32-bit integer or .b32 registers
//                                                           ^^^ error: `%f3` is a 32-bit floating-point register; the .s32 fragment of `mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32` needs 32-bit integer or .b32 registers
//                                                                ^^^ error: `%f4` is a 32-bit floating-point register; the .s32 fragment of `mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32` needs 32-bit integer or .b32 registers
  ldmatrix.sync.aligned.m8n8.x2.shared.b8 {%r1, %r2}, [smem];
//                                    ^^^ error: `.b8` is not allowed here in `ldmatrix.sync.aligned.m8n8.x2.shared.b8`; expected .b16
  ldmatrix.sync.aligned.m16n16.x2.trans.shared.b8 {%r1, %r2, %r3, %r4}, [smem];
  stmatrix.sync.aligned.m16n8.x2.trans.shared.b8 [smem], {%r1, %r2};
  ret;
}
"#,
        );
    }

    /// Confirmed with ptxas 13.5 on sm_100a ("Arguments mismatch", "must be 16-bit size",
    /// "Modifier .x64 not allowed for instruction tcgen05.ld with shape '.16x256b'", "Unexpected
    /// number of 'format conversion' modifiers specified").
    #[test]
    fn tensor_core_operands() {
        check_diagnostics(
            r#"
.version 9.1
.target sm_100a
.address_size 64
.shared .b8 smem[1024];
.visible .entry k()
{
  .reg .pred %p<4>;
  .reg .b16 %h<4>;
  .reg .b32 %r<10>;
  .reg .b64 %rd<4>;
  tcgen05.mma.cta_group::1.kind::f16 [%r1], %rd1, %rd2, %r2, %p1;
  tcgen05.mma.cta_group::1.kind::f16 [%r1], %rd1, %rd2, %r2, %p1, %r3;
//                                                                ^^^ error: the input scale of `tcgen05.mma.cta_group::1.kind::f16` is a constant
  tcgen05.mma.cta_group::1.kind::f16 [%rd1], %rd1, %rd2, %r2, %p1;
//                                    ^^^^ error: `%rd1` is a .b64 register, but tensor memory addresses are 32 bits; use a 32-bit register
  tcgen05.mma.cta_group::1.kind::f16 [%r1], %rd1, %rd2, %r2, {%r3, %r4, %r5, %r6}, %p1;
  tcgen05.mma.cta_group::1.kind::f16 [%r1], %rd1, %rd2, %r2, {%r3, %r4}, %p1;
//                                                           ^^^^^^^^^^ error: the disabled-lane mask of `tcgen05.mma.cta_group::1.kind::f16` has 4 registers with this `.cta_group`, found 2
  tcgen05.commit.cta_group::1.mbarrier::arrive::one.multicast::cluster.b64 [%rd1], %h1;
  tcgen05.commit.cta_group::1.mbarrier::arrive::one.multicast::cluster.b64 [%rd1], %r1;
//                                                                                 ^^^ error: `%r1` is a 32-bit bit-size register; the CTA mask of `tcgen05.commit.cta_group::1.mbarrier::arrive::one.multicast::cluster.b64` needs a 16-bit register
  tcgen05.cp.cta_group::1.128x256b [%r1], %r1;
//                                        ^^^ error: `%r1` is a 32-bit bit-size register; the shared memory descriptor of `tcgen05.cp.cta_group::1.128x256b` needs a 64-bit register
  tcgen05.cp.cta_group::1.4x256b.b8x16.b6x16_p32 [%r1], %rd1;
  tcgen05.cp.cta_group::1.4x256b.b6x16_p32 [%r1], %rd1;
//^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^ error: `tcgen05.cp.cta_group::1.4x256b.b6x16_p32`: write the formats as a pair, `.b8x16` then `.b6x16_p32` or `.b4x16_p64`, and no other type
  tcgen05.ld.sync.aligned.16x256b.x64.b32 {%r1}, [%r2];
//                               ^^^^ error: `.x64` is not allowed here in `tcgen05.ld.sync.aligned.16x256b.x64.b32`; expected .x1, .x2, .x4, .x8, .x16, .x32
  ret;
}
"#,
        );
    }
}
