"""Rewrite decorated functions so that mutmut mutates them too.

mutmut 3 leaves every decorated function alone (only a lone ``@staticmethod`` or
``@classmethod`` is mutated), which would leave out each ``@transaction.atomic`` service and
each ``@property``. In the scratch copy the decorators are applied by assignment instead::

    @transaction.atomic                 def memory_create(...):
    def memory_create(...):       ->        ...
        ...                             memory_create = transaction.atomic(memory_create)

which binds the same object to the same name, once the body of the module or class has run.
"""

import libcst as cst

_LEFT_ALONE = {"staticmethod", "classmethod", "overload", "typing.overload"}
_ACCESSOR_SUFFIXES = (".setter", ".getter", ".deleter")


def undecorate_source(source: str) -> str:
    """Return the source with every decorator it can move written as an assignment."""
    return cst.parse_module(source).visit(_Undecorate()).code


def _can_move(function: cst.FunctionDef, module: cst.Module) -> bool:
    """Return True if the function's decorators may run after its definition instead."""
    if not function.decorators:
        return False
    names = [module.code_for_node(d.decorator) for d in function.decorators]
    return not any(n in _LEFT_ALONE or n.endswith(_ACCESSOR_SUFFIXES) for n in names)


class _Undecorate(cst.CSTTransformer):
    """Move decorators of functions in any block to an assignment just after the function."""

    def __init__(self) -> None:
        super().__init__()
        self._module = cst.Module(body=[])

    def visit_Module(self, node: cst.Module) -> None:
        self._module = node

    def leave_Module(self, original: cst.Module, updated: cst.Module) -> cst.Module:
        return updated.with_changes(body=self._rewrite(updated.body))

    def leave_IndentedBlock(
        self, original: cst.IndentedBlock, updated: cst.IndentedBlock
    ) -> cst.IndentedBlock:
        return updated.with_changes(body=self._rewrite(updated.body))

    def _rewrite(self, body):
        statements = []
        for statement in body:
            if isinstance(statement, cst.FunctionDef) and _can_move(statement, self._module):
                statements.append(statement.with_changes(decorators=()))
                statements.append(self._assignment(statement))
            else:
                statements.append(statement)
        return statements

    def _assignment(self, function: cst.FunctionDef) -> cst.SimpleStatementLine:
        name = function.name.value
        value = name
        for decorator in reversed(function.decorators):
            value = f"({self._module.code_for_node(decorator.decorator)})({value})"
        return cst.parse_statement(f"{name} = {value}\n")
