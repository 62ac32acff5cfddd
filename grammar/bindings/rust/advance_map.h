/*
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

#define PTX_AM_CASE(c, s) \
  case c:                 \
    state = s;            \
    goto next_state;

#define PTX_AM_PICK(_1,_2,_3,_4,_5,_6,_7,_8,_9,_10,_11,_12,_13,_14,_15,_16,_17,_18,_19,_20,_21,_22,_23,_24,_25,_26,_27,_28,_29,_30,_31,_32,_33,_34,_35,_36,_37,_38,_39,_40,_41,_42,_43,_44,_45,_46,_47,_48,_49,_50,_51,_52,_53,_54,_55,_56,_57,_58,_59,_60,_61,_62,_63,_64,_65,_66,_67,_68,_69,_70,_71,_72,_73,_74,_75,_76,_77,_78,_79,_80,_81,_82,_83,_84,_85,_86,_87,_88,_89,_90,_91,_92,_93,_94,_95,_96, n, ...) n
#define PTX_AM_COUNT(...) PTX_AM_PICK(__VA_ARGS__, 96, 95, 94, 93, 92, 91, 90, 89, 88, 87, 86, 85, 84, 83, 82, 81, 80, 79, 78, 77, 76, 75, 74, 73, 72, 71, 70, 69, 68, 67, 66, 65, 64, 63, 62, 61, 60, 59, 58, 57, 56, 55, 54, 53, 52, 51, 50, 49, 48, 47, 46, 45, 44, 43, 42, 41, 40, 39, 38, 37, 36, 35, 34, 33, 32, 31, 30, 29, 28, 27, 26, 25, 24, 23, 22, 21, 20, 19, 18, 17, 16, 15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1)
#define PTX_AM_CAT(a, b) PTX_AM_CAT_(a, b)
#define PTX_AM_CAT_(a, b) a##b
#define PTX_AM_1(x)
#define PTX_AM_3(c, s, ...) PTX_AM_CASE(c, s) PTX_AM_1(__VA_ARGS__)
#define PTX_AM_5(c, s, ...) PTX_AM_CASE(c, s) PTX_AM_3(__VA_ARGS__)
#define PTX_AM_7(c, s, ...) PTX_AM_CASE(c, s) PTX_AM_5(__VA_ARGS__)
#define PTX_AM_9(c, s, ...) PTX_AM_CASE(c, s) PTX_AM_7(__VA_ARGS__)
#define PTX_AM_11(c, s, ...) PTX_AM_CASE(c, s) PTX_AM_9(__VA_ARGS__)
#define PTX_AM_13(c, s, ...) PTX_AM_CASE(c, s) PTX_AM_11(__VA_ARGS__)
#define PTX_AM_15(c, s, ...) PTX_AM_CASE(c, s) PTX_AM_13(__VA_ARGS__)
#define PTX_AM_17(c, s, ...) PTX_AM_CASE(c, s) PTX_AM_15(__VA_ARGS__)
#define PTX_AM_19(c, s, ...) PTX_AM_CASE(c, s) PTX_AM_17(__VA_ARGS__)
#define PTX_AM_21(c, s, ...) PTX_AM_CASE(c, s) PTX_AM_19(__VA_ARGS__)
#define PTX_AM_23(c, s, ...) PTX_AM_CASE(c, s) PTX_AM_21(__VA_ARGS__)
#define PTX_AM_25(c, s, ...) PTX_AM_CASE(c, s) PTX_AM_23(__VA_ARGS__)
#define PTX_AM_27(c, s, ...) PTX_AM_CASE(c, s) PTX_AM_25(__VA_ARGS__)
#define PTX_AM_29(c, s, ...) PTX_AM_CASE(c, s) PTX_AM_27(__VA_ARGS__)
#define PTX_AM_31(c, s, ...) PTX_AM_CASE(c, s) PTX_AM_29(__VA_ARGS__)
#define PTX_AM_33(c, s, ...) PTX_AM_CASE(c, s) PTX_AM_31(__VA_ARGS__)
#define PTX_AM_35(c, s, ...) PTX_AM_CASE(c, s) PTX_AM_33(__VA_ARGS__)
#define PTX_AM_37(c, s, ...) PTX_AM_CASE(c, s) PTX_AM_35(__VA_ARGS__)
#define PTX_AM_39(c, s, ...) PTX_AM_CASE(c, s) PTX_AM_37(__VA_ARGS__)
#define PTX_AM_41(c, s, ...) PTX_AM_CASE(c, s) PTX_AM_39(__VA_ARGS__)
#define PTX_AM_43(c, s, ...) PTX_AM_CASE(c, s) PTX_AM_41(__VA_ARGS__)
#define PTX_AM_45(c, s, ...) PTX_AM_CASE(c, s) PTX_AM_43(__VA_ARGS__)
#define PTX_AM_47(c, s, ...) PTX_AM_CASE(c, s) PTX_AM_45(__VA_ARGS__)
#define PTX_AM_49(c, s, ...) PTX_AM_CASE(c, s) PTX_AM_47(__VA_ARGS__)
#define PTX_AM_51(c, s, ...) PTX_AM_CASE(c, s) PTX_AM_49(__VA_ARGS__)
#define PTX_AM_53(c, s, ...) PTX_AM_CASE(c, s) PTX_AM_51(__VA_ARGS__)
#define PTX_AM_55(c, s, ...) PTX_AM_CASE(c, s) PTX_AM_53(__VA_ARGS__)
#define PTX_AM_57(c, s, ...) PTX_AM_CASE(c, s) PTX_AM_55(__VA_ARGS__)
#define PTX_AM_59(c, s, ...) PTX_AM_CASE(c, s) PTX_AM_57(__VA_ARGS__)
#define PTX_AM_61(c, s, ...) PTX_AM_CASE(c, s) PTX_AM_59(__VA_ARGS__)
#define PTX_AM_63(c, s, ...) PTX_AM_CASE(c, s) PTX_AM_61(__VA_ARGS__)
#define PTX_AM_65(c, s, ...) PTX_AM_CASE(c, s) PTX_AM_63(__VA_ARGS__)
#define PTX_AM_67(c, s, ...) PTX_AM_CASE(c, s) PTX_AM_65(__VA_ARGS__)
#define PTX_AM_69(c, s, ...) PTX_AM_CASE(c, s) PTX_AM_67(__VA_ARGS__)
#define PTX_AM_71(c, s, ...) PTX_AM_CASE(c, s) PTX_AM_69(__VA_ARGS__)
#define PTX_AM_73(c, s, ...) PTX_AM_CASE(c, s) PTX_AM_71(__VA_ARGS__)
#define PTX_AM_75(c, s, ...) PTX_AM_CASE(c, s) PTX_AM_73(__VA_ARGS__)
#define PTX_AM_77(c, s, ...) PTX_AM_CASE(c, s) PTX_AM_75(__VA_ARGS__)
#define PTX_AM_79(c, s, ...) PTX_AM_CASE(c, s) PTX_AM_77(__VA_ARGS__)
#define PTX_AM_81(c, s, ...) PTX_AM_CASE(c, s) PTX_AM_79(__VA_ARGS__)
#define PTX_AM_83(c, s, ...) PTX_AM_CASE(c, s) PTX_AM_81(__VA_ARGS__)
#define PTX_AM_85(c, s, ...) PTX_AM_CASE(c, s) PTX_AM_83(__VA_ARGS__)
#define PTX_AM_87(c, s, ...) PTX_AM_CASE(c, s) PTX_AM_85(__VA_ARGS__)
#define PTX_AM_89(c, s, ...) PTX_AM_CASE(c, s) PTX_AM_87(__VA_ARGS__)
#define PTX_AM_91(c, s, ...) PTX_AM_CASE(c, s) PTX_AM_89(__VA_ARGS__)
#define PTX_AM_93(c, s, ...) PTX_AM_CASE(c, s) PTX_AM_91(__VA_ARGS__)
#define PTX_AM_95(c, s, ...) PTX_AM_CASE(c, s) PTX_AM_93(__VA_ARGS__)

#undef ADVANCE_MAP
#define ADVANCE_MAP(...)                                        \
  switch (lookahead) {                                          \
    PTX_AM_CAT(PTX_AM_, PTX_AM_COUNT(__VA_ARGS__))(__VA_ARGS__) \
    default:                                                    \
      break;                                                    \
  }

#endif  // TREE_SITTER_PTX_ADVANCE_MAP_H_
