//! Node-kind and field names of the grammar, in one place.
//!
//! These strings must match `grammar/grammar.js`; a test parses a sample that
//! uses every kind and fails if one of them is renamed.

pub(crate) const MODULE: &str = "module";
pub(crate) const VERSION_DIRECTIVE: &str = "version_directive";
pub(crate) const TARGET_DIRECTIVE: &str = "target_directive";
pub(crate) const ADDRESS_SIZE_DIRECTIVE: &str = "address_size_directive";
pub(crate) const FILE_DIRECTIVE: &str = "file_directive";
pub(crate) const LOC_DIRECTIVE: &str = "loc_directive";
pub(crate) const SECTION_DIRECTIVE: &str = "section_directive";
pub(crate) const DWARF_DIRECTIVE: &str = "dwarf_directive";
pub(crate) const ALIAS_DIRECTIVE: &str = "alias_directive";
pub(crate) const PRAGMA_DIRECTIVE: &str = "pragma_directive";
pub(crate) const CALLPROTOTYPE_DIRECTIVE: &str = "callprototype_directive";
pub(crate) const BRANCHTARGETS_DIRECTIVE: &str = "branchtargets_directive";
pub(crate) const CALLTARGETS_DIRECTIVE: &str = "calltargets_directive";
pub(crate) const FUNCTION_DEFINITION: &str = "function_definition";
pub(crate) const FUNCTION_DECLARATION: &str = "function_declaration";
pub(crate) const FUNCTION_ATTRIBUTE: &str = "function_attribute";
pub(crate) const PARAMETER_DECLARATION: &str = "parameter_declaration";
pub(crate) const VARIABLE_DECLARATION: &str = "variable_declaration";
pub(crate) const DECLARATOR: &str = "declarator";
pub(crate) const LINKAGE: &str = "linkage";
pub(crate) const STATE_SPACE: &str = "state_space";
pub(crate) const TYPE: &str = "type";
pub(crate) const VECTOR_TYPE: &str = "vector_type";
pub(crate) const ALIGNMENT: &str = "alignment";
pub(crate) const BLOCK: &str = "block";
pub(crate) const LABEL_DECLARATION: &str = "label_declaration";
pub(crate) const INSTRUCTION: &str = "instruction";
pub(crate) const REGISTER: &str = "register";
pub(crate) const REGISTER_COMPONENT: &str = "register_component";
pub(crate) const IDENTIFIER: &str = "identifier";
pub(crate) const INTEGER_LITERAL: &str = "integer_literal";
pub(crate) const FLOAT_LITERAL: &str = "float_literal";
pub(crate) const STRING_LITERAL: &str = "string_literal";
pub(crate) const REGISTER_PAIR: &str = "register_pair";
pub(crate) const NEGATED_OPERAND: &str = "negated_operand";
pub(crate) const VECTOR_OPERAND: &str = "vector_operand";
pub(crate) const ADDRESS_OPERAND: &str = "address_operand";
pub(crate) const ARGUMENT_LIST: &str = "argument_list";
pub(crate) const SINK: &str = "sink";
pub(crate) const UNARY_EXPRESSION: &str = "unary_expression";
pub(crate) const QUALIFIER: &str = "qualifier";
pub(crate) const COMMENT: &str = "comment";
pub(crate) const PREPROCESSOR_DIRECTIVE: &str = "preprocessor_directive";
pub(crate) const SECTION_NAME: &str = "section_name";
pub(crate) const SECTION_REFERENCE: &str = "section_reference";
pub(crate) const DATA_BLOCK: &str = "data_block";
pub(crate) const INTEGER_RUN: &str = "integer_run";
pub(crate) const PTR_ATTRIBUTE: &str = "ptr_attribute";
pub(crate) const ATTRIBUTE_DIRECTIVE: &str = "attribute_directive";
pub(crate) const ATTRIBUTE: &str = "attribute";
pub(crate) const COMPONENT: &str = "component";
pub(crate) const PREDICATE_GUARD: &str = "predicate_guard";
pub(crate) const BINARY_EXPRESSION: &str = "binary_expression";
pub(crate) const CONDITIONAL_EXPRESSION: &str = "conditional_expression";
pub(crate) const PARENTHESIZED_EXPRESSION: &str = "parenthesized_expression";
pub(crate) const SUBSCRIPT_EXPRESSION: &str = "subscript_expression";
pub(crate) const SAMPLER_FIELD: &str = "sampler_field";

pub(crate) const FIELD_NAME: &str = "name";
pub(crate) const FIELD_KIND: &str = "kind";
pub(crate) const FIELD_BODY: &str = "body";
pub(crate) const FIELD_PARAMETERS: &str = "parameters";
pub(crate) const FIELD_RETURN_PARAMETERS: &str = "return_parameters";
pub(crate) const FIELD_GUARD: &str = "guard";
pub(crate) const FIELD_NEGATED: &str = "negated";
pub(crate) const FIELD_PREDICATE: &str = "predicate";
pub(crate) const FIELD_QUALIFIER: &str = "qualifier";
pub(crate) const FIELD_MNEMONIC: &str = "mnemonic";
pub(crate) const FIELD_OPERANDS: &str = "operands";
pub(crate) const FIELD_COUNT: &str = "count";
pub(crate) const FIELD_DIMENSION: &str = "dimension";
pub(crate) const FIELD_VALUE: &str = "value";
pub(crate) const FIELD_SUFFIX: &str = "suffix";
pub(crate) const FIELD_REGISTER: &str = "register";
pub(crate) const FIELD_COMPONENT: &str = "component";
pub(crate) const FIELD_OPERAND: &str = "operand";
pub(crate) const FIELD_FIRST: &str = "first";
pub(crate) const FIELD_SECOND: &str = "second";
pub(crate) const FIELD_VERSION: &str = "version";
pub(crate) const FIELD_TARGET: &str = "target";
pub(crate) const FIELD_SIZE: &str = "size";
pub(crate) const FIELD_BYTES: &str = "bytes";
pub(crate) const FIELD_OPERATOR: &str = "operator";
pub(crate) const FIELD_LEFT: &str = "left";
pub(crate) const FIELD_RIGHT: &str = "right";
pub(crate) const FIELD_CONDITION: &str = "condition";
pub(crate) const FIELD_CONSEQUENCE: &str = "consequence";
pub(crate) const FIELD_ALTERNATIVE: &str = "alternative";
pub(crate) const FIELD_ARRAY: &str = "array";
pub(crate) const FIELD_INDEX: &str = "index";

/// Field names with their ids looked up once: tree-sitter's own lookup by
/// name compares the name with every field name of the grammar on each call,
/// which made field access the largest cost of walking the typed views.
pub(crate) trait NodeExt<'t> {
    /// The node's kind (as `Node::kind`, from a table indexed by kind id:
    /// `Node::kind` measures and UTF-8-checks a C string on every call).
    fn kind_name(&self) -> &'static str;
    /// The child in field `name` (as `Node::child_by_field_name`).
    fn field(&self, name: &str) -> Option<tree_sitter::Node<'t>>;
    /// The children in field `name` (as `Node::children_by_field_name`).
    fn fields<'c>(
        &self,
        name: &str,
        cursor: &'c mut tree_sitter::TreeCursor<'t>,
    ) -> impl Iterator<Item = tree_sitter::Node<'t>> + 'c
    where
        't: 'c;
}

fn field_id(name: &str) -> Option<std::num::NonZeroU16> {
    use rustc_hash::FxHashMap as HashMap;
    use std::sync::OnceLock;
    static IDS: OnceLock<HashMap<&'static str, Option<std::num::NonZeroU16>>> = OnceLock::new();
    let ids = IDS.get_or_init(|| {
        let language = crate::language();
        ALL_FIELDS
            .iter()
            .map(|&f| (f, language.field_id_for_name(f)))
            .collect()
    });
    match ids.get(name) {
        Some(id) => *id,
        None => crate::language().field_id_for_name(name),
    }
}

/// The ids of the fields an instruction's children are read by (see
/// [`crate::Instruction::parts`]); `None` never matches a child.
pub(crate) struct InstructionFieldIds {
    pub guard: Option<std::num::NonZeroU16>,
    pub mnemonic: Option<std::num::NonZeroU16>,
    pub qualifier: Option<std::num::NonZeroU16>,
    pub operands: Option<std::num::NonZeroU16>,
}

pub(crate) fn field_ids() -> &'static InstructionFieldIds {
    use std::sync::OnceLock;
    static IDS: OnceLock<InstructionFieldIds> = OnceLock::new();
    IDS.get_or_init(|| InstructionFieldIds {
        guard: field_id(FIELD_GUARD),
        mnemonic: field_id(FIELD_MNEMONIC),
        qualifier: field_id(FIELD_QUALIFIER),
        operands: field_id(FIELD_OPERANDS),
    })
}

fn kind_names() -> &'static [&'static str] {
    use std::sync::OnceLock;
    static NAMES: OnceLock<Vec<&'static str>> = OnceLock::new();
    NAMES.get_or_init(|| {
        let language = crate::language();
        (0..language.node_kind_count() as u16)
            .map(|id| language.node_kind_for_id(id).unwrap_or(""))
            .collect()
    })
}

impl<'t> NodeExt<'t> for tree_sitter::Node<'t> {
    fn kind_name(&self) -> &'static str {
        kind_names()
            .get(self.kind_id() as usize)
            .copied()
            .unwrap_or_else(|| self.kind())
    }

    fn field(&self, name: &str) -> Option<tree_sitter::Node<'t>> {
        self.child_by_field_id(field_id(name)?.get())
    }

    fn fields<'c>(
        &self,
        name: &str,
        cursor: &'c mut tree_sitter::TreeCursor<'t>,
    ) -> impl Iterator<Item = tree_sitter::Node<'t>> + 'c
    where
        't: 'c,
    {
        let id = field_id(name);
        let children: Vec<tree_sitter::Node<'t>> = match id {
            Some(id) => self.children_by_field_id(id, cursor).collect(),
            None => Vec::new(),
        };
        children.into_iter()
    }
}

/// Every field name above, for the id table.
const ALL_FIELDS: &[&str] = &[
    FIELD_NAME,
    FIELD_KIND,
    FIELD_BODY,
    FIELD_PARAMETERS,
    FIELD_RETURN_PARAMETERS,
    FIELD_GUARD,
    FIELD_NEGATED,
    FIELD_PREDICATE,
    FIELD_QUALIFIER,
    FIELD_MNEMONIC,
    FIELD_OPERANDS,
    FIELD_COUNT,
    FIELD_DIMENSION,
    FIELD_VALUE,
    FIELD_SUFFIX,
    FIELD_REGISTER,
    FIELD_COMPONENT,
    FIELD_OPERAND,
    FIELD_FIRST,
    FIELD_SECOND,
    FIELD_VERSION,
    FIELD_TARGET,
    FIELD_SIZE,
    FIELD_BYTES,
    FIELD_OPERATOR,
    FIELD_LEFT,
    FIELD_RIGHT,
    FIELD_CONDITION,
    FIELD_CONSEQUENCE,
    FIELD_ALTERNATIVE,
    FIELD_ARRAY,
    FIELD_INDEX,
];

#[cfg(test)]
mod tests {
    use super::*;

    /// Every name above must exist in the generated grammar; a rename in
    /// `grammar.js` fails here rather than silently breaking a view.
    #[test]
    fn every_kind_and_field_exists_in_the_grammar() {
        let node_types = tree_sitter_ptx::NODE_TYPES;
        let kinds = [
            MODULE,
            VERSION_DIRECTIVE,
            TARGET_DIRECTIVE,
            ADDRESS_SIZE_DIRECTIVE,
            FILE_DIRECTIVE,
            LOC_DIRECTIVE,
            SECTION_DIRECTIVE,
            DWARF_DIRECTIVE,
            ALIAS_DIRECTIVE,
            PRAGMA_DIRECTIVE,
            CALLPROTOTYPE_DIRECTIVE,
            BRANCHTARGETS_DIRECTIVE,
            CALLTARGETS_DIRECTIVE,
            FUNCTION_DEFINITION,
            FUNCTION_DECLARATION,
            FUNCTION_ATTRIBUTE,
            PARAMETER_DECLARATION,
            VARIABLE_DECLARATION,
            DECLARATOR,
            LINKAGE,
            STATE_SPACE,
            TYPE,
            VECTOR_TYPE,
            ALIGNMENT,
            BLOCK,
            LABEL_DECLARATION,
            INSTRUCTION,
            REGISTER,
            REGISTER_COMPONENT,
            IDENTIFIER,
            INTEGER_LITERAL,
            FLOAT_LITERAL,
            STRING_LITERAL,
            REGISTER_PAIR,
            NEGATED_OPERAND,
            VECTOR_OPERAND,
            ADDRESS_OPERAND,
            ARGUMENT_LIST,
            SINK,
            UNARY_EXPRESSION,
            QUALIFIER,
            COMMENT,
            PREPROCESSOR_DIRECTIVE,
            SECTION_NAME,
            SECTION_REFERENCE,
            DATA_BLOCK,
            INTEGER_RUN,
            PTR_ATTRIBUTE,
            ATTRIBUTE_DIRECTIVE,
            ATTRIBUTE,
            COMPONENT,
            PREDICATE_GUARD,
            BINARY_EXPRESSION,
            CONDITIONAL_EXPRESSION,
            PARENTHESIZED_EXPRESSION,
            SUBSCRIPT_EXPRESSION,
            SAMPLER_FIELD,
        ];
        for kind in kinds {
            assert!(
                node_types.contains(&format!("\"type\": \"{kind}\"")),
                "node kind `{kind}` is not in the grammar"
            );
        }
        for field in ALL_FIELDS {
            assert!(
                node_types.contains(&format!("\"{field}\": {{")),
                "field `{field}` is not in the grammar"
            );
        }
    }
}
