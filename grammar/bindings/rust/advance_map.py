#!/usr/bin/env python3
"""Writes advance_map.h (run: python3 advance_map.py > advance_map.h)."""

N = 96  # largest argument count supported (47 pairs + the trailing empty argument)

HEADER = '''/*
 * A jump-table `ADVANCE_MAP` for the generated lexer (written by advance_map.py).
 *
 * tree-sitter's own `ADVANCE_MAP` (src/tree_sitter/parser.h) looks the
 * lookahead character up with a linear scan over (character, state) pairs;
 * in PTX's token-start states that scan runs for every blank and every
 * letter. This version expands the same pairs into `case` labels of a
 * `switch`, which the C compiler turns into a jump table. Same pairs, same
 * first-match result (a repeated character would not compile).
 *
 * Generated maps end with a trailing comma, so the argument count is odd:
 * PTX_AM_<n> takes n arguments, the last one empty. A map larger than the
 * largest PTX_AM_<n> names an undefined macro and fails to compile.
 */
#ifndef TREE_SITTER_PTX_ADVANCE_MAP_H_
#define TREE_SITTER_PTX_ADVANCE_MAP_H_

#define PTX_AM_CASE(c, s) \\
  case c:                 \\
    state = s;            \\
    goto next_state;
'''

FOOTER = '''
#undef ADVANCE_MAP
#define ADVANCE_MAP(...)                                        \\
  switch (lookahead) {                                          \\
    PTX_AM_CAT(PTX_AM_, PTX_AM_COUNT(__VA_ARGS__))(__VA_ARGS__) \\
    default:                                                    \\
      break;                                                    \\
  }

#endif  // TREE_SITTER_PTX_ADVANCE_MAP_H_'''


def main():
    lines = [HEADER]
    params = ','.join(f'_{i}' for i in range(1, N + 1))
    lines.append(f'#define PTX_AM_PICK({params}, n, ...) n')
    counts = ', '.join(str(i) for i in range(N, 0, -1))
    lines.append(f'#define PTX_AM_COUNT(...) PTX_AM_PICK(__VA_ARGS__, {counts})')
    lines.append('#define PTX_AM_CAT(a, b) PTX_AM_CAT_(a, b)')
    lines.append('#define PTX_AM_CAT_(a, b) a##b')
    lines.append('#define PTX_AM_1(x)')
    for n in range(3, N + 1, 2):
        lines.append(f'#define PTX_AM_{n}(c, s, ...) PTX_AM_CASE(c, s) PTX_AM_{n - 2}(__VA_ARGS__)')
    lines.append(FOOTER)
    print('\n'.join(lines))


if __name__ == '__main__':
    main()
