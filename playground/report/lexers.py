"""Pygments lexers for the stages pygments does not know: MLIR (TTIR/TTGIR), SASS and AMDGCN.

PTX and LLVM IR use pygments' own lexers; Python uses its Python lexer.
"""
from __future__ import annotations

from pygments.filter import simplefilter
from pygments.lexer import RegexLexer, bygroups, words
from pygments.token import Comment, Error, Keyword, Name, Number, Operator, Punctuation, String, Text, Whitespace

from ..core.stages import STAGES


class MlirLexer(RegexLexer):
    """MLIR as Triton prints it: `%x = tt.load %p, %m : tensor<128xf32, #blocked> loc(#loc3)`."""
    name = "MLIR"
    aliases = ["mlir", "ttir", "ttgir"]
    filenames = ["*.mlir"]
    tokens = {
        "root": [
            (r"\s+", Whitespace),
            (r"//.*?$", Comment.Single),
            (r"\bloc\([^\n]*?\)(?=\s*$)", Comment),                       # location records
            (r"#loc\d*", Comment),
            (r'"[^"]*"', String),
            (r"%[\w.$-]+(:\d+)?", Name.Variable),                          # SSA values
            (r"\^[\w.$-]+", Name.Label),                                    # block labels
            (r"@[\w.$-]+", Name.Function),                                  # symbols
            (r"#[\w.$-]+", Name.Decorator),                                 # attribute aliases (#blocked, #mma)
            (r"!?[\w]+\.[\w.]+", Name.Builtin),                             # dialect ops and types (tt.load, !tt.ptr)
            (words(("module", "func", "return", "loc", "true", "false", "unit"), suffix=r"\b"), Keyword),
            (r"\b(tensor|memref|vector|i1|i8|i16|i32|i64|f16|bf16|f32|f64|index|ptr)\b", Keyword.Type),
            (r"0x[0-9a-fA-F]+|-?\d+(\.\d+)?(e[-+]?\d+)?", Number),
            (r"->|=|:|<|>|\*", Operator),
            (r"[()\[\]{},]", Punctuation),
            (r"[\w.$-]+", Text),
            (r".", Text),
        ],
    }


class SassLexer(RegexLexer):
    """SASS as nvdisasm prints it: `/*0040*/  @P0 LDG.E.128 R4, desc[UR4][R2.64] ;`."""
    name = "SASS"
    aliases = ["sass"]
    filenames = ["*.sass"]
    tokens = {
        "root": [
            (r"^([ \t]*)(\.[\w.]+.*?)$", bygroups(Whitespace, Comment.Preproc)),  # section directives
            (r"[ \t]+|\n", Whitespace),   # never swallow a newline with the next line's indent: ^ must see it
            (r"//.*?$", Comment.Single),
            (r"/\*[0-9a-f]{4,}\*/", Comment.Special),                     # instruction address
            (r"/\*.*?\*/", Comment.Multiline),
            (r"[.\w$]+:", Name.Label),
            (r"@!?U?P[T\d]+", Keyword.Pseudo),                             # predicate guards
            (r"\b(U?R\d+|RZ|URZ|SRZ|U?P\d+|PT|UPT|SR_[\w.]+)\b", Name.Variable),  # registers
            (r"\b([A-Z][A-Z0-9_]*)((?:\.[A-Z0-9_]+)*)", bygroups(Keyword, Keyword.Type)),  # opcode.MODIFIERS
            (r"c\[0x[0-9a-f]+\]", Name.Constant),
            (r"-?0x[0-9a-fA-F]+|-?\d+(\.\d+)?", Number),
            (r"[\[\](){},;|!~+-]", Punctuation),
            (r"\w+", Text),
            (r".", Text),
        ],
    }


class AmdgcnLexer(RegexLexer):
    """AMDGCN assembly: `v_mfma_f32_32x32x8_f16 a[0:15], v[2:3], v[4:5], a[0:15]`."""
    name = "AMDGCN"
    aliases = ["amdgcn", "gcn"]
    filenames = ["*.s", "*.amdgcn"]
    tokens = {
        "root": [
            (r"^([ \t]*)(\.[\w.]+)", bygroups(Whitespace, Comment.Preproc)),  # assembler directives
            (r"[ \t]+|\n", Whitespace),
            (r";.*?$", Comment.Single),
            (r"//.*?$", Comment.Single),
            (r"[.\w$]+:", Name.Label),
            (r'"[^"]*"', String),
            (r"\b([sv]_[a-z0-9_]+|buffer_[a-z0-9_]+|global_[a-z0-9_]+|ds_[a-z0-9_]+|flat_[a-z0-9_]+|scratch_[a-z0-9_]+)",
             Keyword),
            (r"\b([svat]\[\d+:\d+\]|[svat]\d+|vcc(_lo|_hi)?|exec(_lo|_hi)?|scc|m0)\b", Name.Variable),
            (r"\b(offset|glc|slc|nt|sc0|sc1|off|lgkmcnt|vmcnt|expcnt)\b", Name.Attribute),
            (r"-?0x[0-9a-fA-F]+|-?\d+(\.\d+)?", Number),
            (r"[\[\](),:+-]", Punctuation),
            (r"\w+", Text),
            (r".", Text),
        ],
    }


@simplefilter
def _errors_as_text(self, lexer, stream, options):
    """pygments' PTX and LLVM lexers predate some of what LLVM now prints (`@%p1` guards,
    `captures(none)`); show those characters plainly rather than boxed as errors."""
    for token, value in stream:
        yield (Text if token in Error else token), value


def lexer_for(stage: str):
    """The lexer for a stage's language (stages.py), or None for binary stages."""
    from pygments.lexers import LlvmLexer, PtxLexer, PythonLexer

    language = STAGES[stage].language if stage in STAGES else None
    lexer = {"python": PythonLexer, "mlir": MlirLexer, "llvm": LlvmLexer, "ptx": PtxLexer, "sass": SassLexer,
             "amdgcn": AmdgcnLexer}.get(language)
    if lexer is None:
        return None
    lexer = lexer()
    if language in ("ptx", "llvm"):
        lexer.add_filter(_errors_as_text())
    return lexer
