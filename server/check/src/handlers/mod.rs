//! The handlers, one module per family of rules, and the walk that feeds them.
//!
//! Module-level rules run once; instruction rules run for every instruction with the names
//! in scope at that point; flow rules (tcgen05) see each function's instructions in order.

pub(crate) mod availability;
pub(crate) mod combinations;
pub(crate) mod immediates;
pub(crate) mod module;
pub(crate) mod names;
pub(crate) mod opcode;
pub(crate) mod operands;
pub(crate) mod rounding;
pub(crate) mod special_registers;
pub(crate) mod state_spaces;
pub(crate) mod syntax;
pub(crate) mod tcgen05;
pub(crate) mod types;
pub(crate) mod vectors;

use ptx_syntax::{Block, Function, Instruction, Item, Statement};

use crate::context::Ctx;
use crate::incremental::{self, CheckCache};
use crate::scope::{Frame, Scope};

/// Runs every handler over the document; with a cache, functions checked
/// before in the same module-level context are taken from it.
pub(crate) fn run_all(ctx: &mut Ctx<'_>, mut cache: Option<&mut CheckCache>) {
    syntax::check(ctx);
    module::check(ctx);
    let module = ctx.module;
    let mut scope = Scope::default();
    scope.push(names::module_frame(ctx));
    let mut snippet_frame = Frame::default();
    let mut duplicates = Vec::new();
    for item in module.items() {
        if let Item::Statement(Statement::Label(_)) = item {
            // Labels of a snippet are declared with the snippet's frame below.
        }
        match item {
            Item::Statement(Statement::Variable(decl)) => {
                names::check_variable_type(ctx, &decl);
                snippet_frame.declare_variable(&decl, &mut duplicates)
            }
            Item::Statement(Statement::Label(label)) => {
                if let Some(name) = label.name() {
                    let _ = snippet_frame.declare(
                        name.text,
                        crate::scope::Symbol {
                            kind: crate::scope::SymbolKind::Label,
                            ty: None,
                            vector: None,
                            space: None,
                            range: name.range(),
                        },
                    );
                }
            }
            _ => {}
        }
    }
    names::report_duplicates(ctx, duplicates);
    scope.push(snippet_frame);
    let mut flow = tcgen05::Flow::default();
    let environment = cache
        .is_some()
        .then(|| incremental::environment(&module, ctx.options));
    for item in module.items() {
        match item {
            Item::Function(function) => match (cache.as_deref_mut(), environment) {
                (Some(cache), Some(environment)) => {
                    let key = incremental::key(environment, &function);
                    let start = function.range().start;
                    if let Some(diagnostics) = cache.get(key, start) {
                        ctx.extend(diagnostics);
                    } else {
                        let before = ctx.diagnostic_count();
                        check_function(ctx, &mut scope, function);
                        cache.put(key, function.range(), ctx.diagnostics_since(before));
                    }
                }
                _ => check_function(ctx, &mut scope, function),
            },
            Item::Statement(Statement::Instruction(inst)) => {
                check_instruction(ctx, &scope, inst, &mut flow)
            }
            Item::Statement(Statement::Block(block)) => {
                check_block(ctx, &mut scope, block, &mut flow)
            }
            _ => {}
        }
    }
    flow.finish(ctx);
}

fn check_function<'a>(ctx: &mut Ctx<'a>, scope: &mut Scope<'a>, function: Function<'a>) {
    let Some(body) = function.body() else {
        return;
    };
    let mut labels = Frame::default();
    labels.declare_all_labels(&body);
    let mut params = Frame::default();
    let mut duplicates = Vec::new();
    for param in function
        .return_parameters()
        .iter()
        .chain(function.parameters().iter())
    {
        names::check_variable_type(ctx, param);
        params.declare_variable(param, &mut duplicates);
    }
    names::report_duplicates(ctx, duplicates);
    scope.push(labels);
    scope.push(params);
    let mut flow = tcgen05::Flow::for_function(function);
    check_block(ctx, scope, body, &mut flow);
    flow.finish(ctx);
    scope.pop();
    scope.pop();
}

fn check_block<'a>(
    ctx: &mut Ctx<'a>,
    scope: &mut Scope<'a>,
    block: Block<'a>,
    flow: &mut tcgen05::Flow<'a>,
) {
    let mut frame = Frame::default();
    let mut duplicates = Vec::new();
    frame.declare_block(&block, &mut duplicates);
    names::report_duplicates(ctx, duplicates);
    scope.push(frame);
    for statement in block.statements() {
        match statement {
            Statement::Instruction(inst) => check_instruction(ctx, scope, inst, flow),
            Statement::Block(inner) => check_block(ctx, scope, inner, flow),
            Statement::Variable(decl) => names::check_variable_type(ctx, &decl),
            _ => {}
        }
    }
    scope.pop();
}

fn check_instruction<'a>(
    ctx: &mut Ctx<'a>,
    scope: &Scope<'a>,
    inst: Instruction<'a>,
    flow: &mut tcgen05::Flow<'a>,
) {
    // A statement with a syntax error has been reported as such; its parts are unreliable.
    if inst.has_error() {
        return;
    }
    let Some(info) = ctx.inst_info(inst) else {
        return;
    };
    names::check_uses(ctx, &info, scope);
    special_registers::check(ctx, &info);
    if !opcode::check(ctx, &info) {
        return;
    }
    availability::check(ctx, &info);
    rounding::check(ctx, &info);
    combinations::check(ctx, &info);
    if operands::check(ctx, &info) {
        types::check(ctx, &info, scope);
        state_spaces::check(ctx, &info, scope);
        vectors::check(ctx, &info);
        immediates::check(ctx, &info);
    }
    flow.observe(ctx, &info);
}
