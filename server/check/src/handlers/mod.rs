//! The handlers, one module per family of rules, and the walk that feeds them.
//!
//! Module-level rules run once; instruction rules run for every instruction with the names
//! in scope at that point; flow rules (tcgen05) see each function's instructions in order.

pub(crate) mod arith;
pub(crate) mod atomics;
pub(crate) mod availability;
pub(crate) mod calls;
pub(crate) mod combinations;
pub(crate) mod constants;
pub(crate) mod declarations;
pub(crate) mod expressions;
pub(crate) mod fragment_floors;
pub(crate) mod immediates;
pub(crate) mod memory;
pub(crate) mod module;
pub(crate) mod names;
pub(crate) mod negation;
pub(crate) mod opcode;
pub(crate) mod operand_forms;
pub(crate) mod operand_shapes;
pub(crate) mod operand_types;
pub(crate) mod operands;
pub(crate) mod pragmas;
pub(crate) mod rounding;
pub(crate) mod special_registers;
pub(crate) mod state_spaces;
pub(crate) mod syntax;
pub(crate) mod tcgen05;
pub(crate) mod textures;
pub(crate) mod types;
pub(crate) mod variable_forms;
pub(crate) mod vectors;

use std::sync::atomic::{AtomicUsize, Ordering};

use ptx_syntax::{Block, Function, Instruction, Item, Statement};

use crate::context::{Ctx, InstInfo};
use crate::incremental::{self, CheckCache};
use crate::scope::{Frame, Scope};

/// Runs every handler over the document; with a cache, functions checked
/// before in the same module-level context are taken from it.
pub(crate) fn run_all(ctx: &mut Ctx<'_>, cache: Option<&mut CheckCache>) {
    let items = ctx.module.items();
    let mut scope = prepare(ctx, &items);
    let mut flow = tcgen05::Flow::default();
    check_items(ctx, &mut scope, &items, &mut flow, cache);
    flow.finish(ctx);
}

/// Runs the handlers with the functions shared out between up to `threads` threads. The
/// functions are cut into runs of consecutive functions of about the same size, a few runs
/// per thread, and each thread takes the next run not yet taken (so a run slower to check
/// than its size says does not leave the other threads idle); a thread keeps its names and
/// its memory of clean instructions from one run to the next. `None` when the module cannot
/// be split (fewer than two functions, or statements outside functions, whose flow runs
/// through the whole file). The diagnostics come in the order [`run_all`] reports them.
pub(crate) fn run_parallel<'a>(
    parse: &'a ptx_syntax::Parse,
    options: &'a crate::CheckOptions,
    threads: usize,
) -> Option<Vec<crate::Diagnostic>> {
    const RUNS_PER_THREAD: usize = 4;
    let mut ctx = Ctx::new(parse, options);
    let items = ctx.module.items();
    if items.iter().any(|item| {
        matches!(
            item,
            Item::Statement(Statement::Instruction(_) | Statement::Block(_))
        )
    }) {
        return None;
    }
    let sizes: Vec<usize> = items
        .iter()
        .map(|item| match item {
            Item::Function(f) => f.range().len(),
            _ => 0,
        })
        .collect();
    let total: usize = sizes.iter().sum();
    let functions = sizes.iter().filter(|&&s| s > 0).count();
    let threads = threads.min(functions);
    if threads < 2 {
        return None;
    }
    let wanted = (threads * RUNS_PER_THREAD).min(functions);
    // Run boundaries: item indices where the running size passes each equal share.
    let mut bounds = vec![0];
    let mut running = 0;
    for (index, size) in sizes.iter().enumerate() {
        if running >= total * bounds.len() / wanted && index > *bounds.last()? {
            bounds.push(index);
            if bounds.len() == wanted {
                break;
            }
        }
        running += size;
    }
    bounds.push(items.len());
    if bounds.len() < 3 {
        return None;
    }
    let runs: Vec<&[Item<'a>]> = bounds.windows(2).map(|w| &items[w[0]..w[1]]).collect();
    let next = AtomicUsize::new(0);
    let work = |ctx: &mut Ctx<'a>, scope: &mut Scope<'a>| check_runs(ctx, scope, &runs, &next);
    let (module_rules, mut done) = std::thread::scope(|s| {
        let workers: Vec<_> = (1..threads)
            .map(|_| {
                let (items, work) = (&items, &work);
                s.spawn(move || {
                    let mut ctx = Ctx::new(parse, options);
                    // The module-level rules run on the calling thread: only the names are needed.
                    let mut scope = prepare_names(&mut ctx, items);
                    ctx.truncate_diagnostics(0);
                    work(&mut ctx, &mut scope)
                })
            })
            .collect();
        let mut scope = prepare(&mut ctx, &items);
        let module_rules = ctx.take_diagnostics_since(0);
        let mut done = work(&mut ctx, &mut scope);
        for worker in workers {
            match worker.join() {
                Ok(runs) => done.extend(runs),
                // A handler panicked on another thread: report as the sequential check would.
                Err(payload) => std::panic::resume_unwind(payload),
            }
        }
        (module_rules, done)
    });
    done.sort_by_key(|&(index, _)| index);
    let mut diagnostics = module_rules;
    diagnostics.extend(done.into_iter().flat_map(|(_, d)| d));
    Some(diagnostics)
}

/// Checks the runs of items not yet taken (counted by `next`); each run's diagnostics with
/// its index.
fn check_runs<'a>(
    ctx: &mut Ctx<'a>,
    scope: &mut Scope<'a>,
    runs: &[&[Item<'a>]],
    next: &AtomicUsize,
) -> Vec<(usize, Vec<crate::Diagnostic>)> {
    let mut done = Vec::new();
    loop {
        let index = next.fetch_add(1, Ordering::Relaxed);
        let Some(run) = runs.get(index) else {
            return done;
        };
        let before = ctx.diagnostic_count();
        let mut flow = tcgen05::Flow::default();
        check_items(ctx, scope, run, &mut flow, None);
        flow.finish(ctx);
        done.push((index, ctx.take_diagnostics_since(before)));
    }
}

/// The module-level rules, then the names every function sees.
fn prepare<'a>(ctx: &mut Ctx<'a>, items: &[Item<'a>]) -> Scope<'a> {
    syntax::check(ctx);
    module::check(ctx);
    if !ctx.snippet {
        declarations::check(ctx);
    }
    prepare_names(ctx, items)
}

/// The module's frame and the frame of statements outside functions (a snippet's).
pub(crate) fn prepare_names<'a>(ctx: &mut Ctx<'a>, items: &[Item<'a>]) -> Scope<'a> {
    let mut scope = Scope::default();
    scope.push(names::module_frame(ctx, items));
    let mut snippet_frame = Frame::default();
    let mut duplicates = Vec::new();
    for item in items {
        match item {
            Item::Statement(Statement::Variable(decl)) => {
                let ty = snippet_frame.declare_variable(decl, &mut duplicates);
                names::check_variable_type(ctx, ty);
            }
            // Labels of a snippet are declared with the snippet's frame.
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
    scope
}

/// Checks the functions and top-level statements among `items`.
fn check_items<'a>(
    ctx: &mut Ctx<'a>,
    scope: &mut Scope<'a>,
    items: &[Item<'a>],
    flow: &mut tcgen05::Flow<'a>,
    mut cache: Option<&mut CheckCache>,
) {
    let environment = cache
        .is_some()
        .then(|| incremental::environment(&ctx.module, ctx.options));
    for item in items {
        // The result of a cancelled check is thrown away (see `ptx_syntax::cancel`).
        if ptx_syntax::cancel::cancelled() {
            return;
        }
        match *item {
            Item::Function(function) => match (cache.as_deref_mut(), environment) {
                (Some(cache), Some(environment)) => {
                    let key = incremental::key(environment, &function);
                    let start = function.range().start;
                    if let Some(diagnostics) = cache.get(key, start) {
                        ctx.extend(diagnostics);
                    } else {
                        let before = ctx.diagnostic_count();
                        check_function(ctx, scope, function);
                        cache.put(key, function.range(), ctx.diagnostics_since(before));
                    }
                }
                _ => check_function(ctx, scope, function),
            },
            Item::Statement(Statement::Instruction(inst)) => {
                check_instruction(ctx, scope, inst, flow)
            }
            Item::Statement(Statement::Block(block)) => {
                check_block(ctx, scope, block, flow, &mut Vec::new().into_iter())
            }
            _ => {}
        }
    }
}

fn check_function<'a>(ctx: &mut Ctx<'a>, scope: &mut Scope<'a>, function: Function<'a>) {
    let Some(body) = function.body() else {
        return;
    };
    let statements = body.statements();
    ctx.in_entry = function.kind() == ptx_syntax::FunctionKind::Entry;
    if !ctx.snippet {
        declarations::body(ctx, &statements);
    }
    let mut labels = Frame::default();
    let mut blocks = Vec::new();
    labels.declare_all_labels(&statements, &mut blocks);
    ctx.nested_labels = blocks
        .iter()
        .flat_map(|(_, statements)| statements)
        .filter_map(|s| match s {
            Statement::Label(label) => label.name().map(|n| n.text),
            _ => None,
        })
        .collect();
    let mut params = Frame::default();
    let mut duplicates = Vec::new();
    for param in function
        .return_parameters()
        .iter()
        .chain(function.parameters().iter())
    {
        let ty = params.declare_variable(param, &mut duplicates);
        names::check_variable_type(ctx, ty);
    }
    names::report_duplicates(ctx, duplicates);
    calls::branch_tables(ctx, &statements, &labels);
    scope.push(labels);
    scope.push(params);
    let mut flow = tcgen05::Flow::for_function(function);
    ctx.body_start = body.range().start;
    ctx.call_results.clear();
    check_statements(ctx, scope, &statements, &mut flow, &mut blocks.into_iter());
    ctx.in_entry = false;
    ctx.body_start = usize::MAX;
    ctx.nested_labels.clear();
    flow.finish(ctx);
    scope.pop();
    scope.pop();
}

/// The statements of nested blocks listed in advance (by [`Frame::declare_all_labels`]), in
/// the order a walk meets the blocks, with where each block starts.
type Listed<'a> = std::vec::IntoIter<(usize, Vec<Statement<'a>>)>;

fn check_block<'a>(
    ctx: &mut Ctx<'a>,
    scope: &mut Scope<'a>,
    block: Block<'a>,
    flow: &mut tcgen05::Flow<'a>,
    listed: &mut Listed<'a>,
) {
    let statements = match listed.next() {
        Some((start, statements)) if start == block.range().start => statements,
        _ => block.statements(),
    };
    check_statements(ctx, scope, &statements, flow, listed);
}

/// Checks the statements of one block in a frame of their own.
fn check_statements<'a>(
    ctx: &mut Ctx<'a>,
    scope: &mut Scope<'a>,
    statements: &[Statement<'a>],
    flow: &mut tcgen05::Flow<'a>,
    listed: &mut Listed<'a>,
) {
    let mut frame = Frame::default();
    let mut duplicates = Vec::new();
    let types = frame.declare_block(statements, &mut duplicates);
    for ty in types {
        names::check_variable_type(ctx, Some(ty));
    }
    names::report_duplicates(ctx, duplicates);
    scope.push(frame);
    for statement in statements {
        match *statement {
            Statement::Instruction(inst) => check_instruction(ctx, scope, inst, flow),
            Statement::Block(inner) => check_block(ctx, scope, inner, flow, listed),
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
    // An instruction like one checked clean before (see `memo`) is clean too.
    let names = crate::memo::Names {
        scope,
        inputs: &flow.inputs,
        unresolved: &ctx.unresolved_functions,
        outside_abi: &ctx.outside_abi_functions,
        in_entry: ctx.in_entry,
        body_start: ctx.body_start,
    };
    let keyed = match ctx.memo.as_mut() {
        Some(memo) => memo.prepare(inst.text(), names),
        None => false,
    };
    if keyed {
        let memo = ctx.memo.as_ref().expect("keyed with a memo");
        if memo.is_clean() && flow.observe_mnemonic(memo.mnemonic(inst.text())) {
            return;
        }
    }
    let before = ctx.diagnostic_count();
    let info = check_rules(ctx, scope, inst, flow);
    if keyed && ctx.diagnostic_count() == before {
        if let Some(memo) = ctx.memo.as_mut() {
            memo.set_clean();
        }
    }
    if let Some(info) = info {
        flow.observe(ctx, &info);
    }
}

/// Runs the instruction rules; the instruction's parts, unless it has no opcode that
/// resolves (then there is nothing more to check).
fn check_rules<'a>(
    ctx: &mut Ctx<'a>,
    scope: &Scope<'a>,
    inst: Instruction<'a>,
    flow: &tcgen05::Flow<'a>,
) -> Option<InstInfo<'a>> {
    let mut info = ctx.inst_info(inst)?;
    opcode::blank_inside_name(ctx, &info);
    names::check_uses(ctx, &info, scope);
    special_registers::check(ctx, &info, scope);
    let before = ctx.diagnostic_count();
    if !opcode::check(ctx, &info) {
        // ptxas ignores a stray `.pred` on some instructions: check them without it.
        let stripped = arith::without_stray_pred(ctx, &info)?;
        ctx.truncate_diagnostics(before);
        if !opcode::check(ctx, &stripped) {
            return None;
        }
        info = stripped;
    }
    // These rules read nothing but the opcode's spelling and the module's `.version` and
    // `.target`: once they find nothing for a spelling, they find nothing for its repeats.
    if info.resolved.opcode_rules_clean.get() != Some(true) {
        let before = ctx.diagnostic_count();
        availability::check(ctx, &info);
        // The fragment floors refine what the availability rules leave open; one error
        // about the target is enough.
        if ctx.diagnostic_count() == before {
            fragment_floors::check(ctx, &info);
        }
        rounding::check(ctx, &info);
        memory::feature_floors(ctx, &info);
        let clean = ctx.diagnostic_count() == before;
        info.resolved.opcode_rules_clean.set(Some(clean));
    }
    combinations::check(ctx, &info);
    expressions::check(ctx, &info);
    constants::check(ctx, &info);
    if operands::check(ctx, &info) {
        types::check(ctx, &info, scope);
        operand_forms::check(ctx, &info, scope);
        operand_shapes::check(ctx, &info, scope);
        state_spaces::check(ctx, &info, scope);
        state_spaces::input_parameter_write(ctx, &info, scope, &flow.inputs);
        vectors::check(ctx, &info, scope);
        immediates::check(ctx, &info);
        atomics::check(ctx, &info, scope);
        textures::check(ctx, &info, scope);
        memory::check(ctx, &info, scope);
        arith::check(ctx, &info, scope);
        calls::check(ctx, &info, scope);
        negation::check(ctx, &info, scope);
    }
    Some(info)
}
