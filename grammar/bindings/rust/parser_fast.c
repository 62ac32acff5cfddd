/*
 * The generated parser (src/parser.c) compiled with the jump-table
 * ADVANCE_MAP of advance_map.h. parser.h's include guard makes parser.c's
 * own `#include "tree_sitter/parser.h"` a no-op, so the definition below wins.
 */
#include "tree_sitter/parser.h"
#include "advance_map.h"
#include "parser.c"
