"""Splitting an expression into number and operator tokens."""

from dataclasses import dataclass

from .errors import CalcError

OPERATORS = "+-*/()[]"


@dataclass(frozen=True)
class Token:
    kind: str  # "num" or "op"
    text: str

    @property
    def value(self):
        """The number a "num" token stands for: an int when it has no fraction part."""
        if self.text.isdigit():
            return int(self.text)
        return float(self.text)


def tokenize(expr):
    """Return the tokens of `expr`, skipping whitespace."""
    tokens = []
    i = 0
    n = len(expr)
    while i < n:
        ch = expr[i]
        if ch.isspace():
            i += 1
        elif ch.isdigit() or ch == ".":
            start = i
            while i < n and (expr[i].isdigit() or expr[i] == "."):
                i += 1
            text = expr[start:i]
            if text == "." or text.count(".") > 1:
                raise CalcError(f"malformed number {text!r} at position {start}")
            tokens.append(Token("num", text))
        elif ch in OPERATORS:
            tokens.append(Token("op", ch))
            i += 1
        else:
            raise CalcError(f"unexpected character {ch!r} at position {i}")
    return tokens
