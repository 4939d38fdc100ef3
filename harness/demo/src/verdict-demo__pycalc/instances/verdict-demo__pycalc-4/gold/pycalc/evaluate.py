"""Evaluating arithmetic expressions with a recursive-descent parser.

Grammar (lowest precedence first):

    expression := term (("+" | "-") term)*
    term       := factor (("*" | "/") factor)*
    factor     := ("+" | "-") factor | atom
    atom       := number | "(" expression ")" | "[" expression "]"
"""

from .errors import CalcError
from .tokens import tokenize


def evaluate(expr):
    """Evaluate `expr` and return an int or a float."""
    parser = _Parser(tokenize(expr))
    value = parser.expression()
    leftover = parser.peek()
    if leftover is not None:
        raise CalcError(f"unexpected {leftover.text!r} after the expression")
    return value


class _Parser:
    def __init__(self, tokens):
        self.tokens = tokens
        self.pos = 0

    def peek(self):
        if self.pos < len(self.tokens):
            return self.tokens[self.pos]
        return None

    def take(self):
        token = self.peek()
        if token is None:
            raise CalcError("unexpected end of expression")
        self.pos += 1
        return token

    def at_op(self, *ops):
        token = self.peek()
        return token is not None and token.kind == "op" and token.text in ops

    def expect(self, op):
        token = self.take()
        if token.kind != "op" or token.text != op:
            raise CalcError(f"expected {op!r}, found {token.text!r}")

    def expression(self):
        value = self.term()
        while self.at_op("+", "-"):
            op = self.take().text
            rhs = self.term()
            value = value + rhs if op == "+" else value - rhs
        return value

    def term(self):
        value = self.factor()
        while self.at_op("*", "/"):
            op = self.take().text
            rhs = self.factor()
            if op == "*":
                value = value * rhs
            elif rhs == 0:
                raise CalcError("division by zero")
            else:
                value = value / rhs
        return value

    def factor(self):
        if self.at_op("-"):
            self.take()
            return -self.factor()
        if self.at_op("+"):
            self.take()
            return self.factor()
        return self.atom()

    def atom(self):
        token = self.take()
        if token.kind == "num":
            return token.value
        # a parenthesised or bracketed sub-expression
        if token.text in ("(", "["):
            value = self.expression()
            self.expect(")" if token.text == "(" else "]")
            return value
        raise CalcError(f"unexpected {token.text!r}")
